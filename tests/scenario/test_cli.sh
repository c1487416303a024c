#!/usr/bin/env bash
# The command line (issue 2): validate on broken configs names the line and key and exits non-zero; run on a
# missing file says so; --set overrides reach the run; version prints.
# Usage: test_cli.sh UETEMU REPO_ROOT
set -uo pipefail
uetemu=$(realpath "$1") root=$(realpath "$2")
cd "$root"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
check() { if eval "$2"; then echo "ok   $1"; pass=$((pass+1)); else echo "FAIL $1"; fail=$((fail+1)); fi; }

expect_err() { # NAME FILE EXPECTED-STDERR
	want=$3
	out=$("$uetemu" validate "$2" 2>&1 >/dev/null); rc=$?
	check "$1: exit $rc, '$out'" '[ $rc -ne 0 ] && [ "$out" = "$want" ]'
}
expect_err "typo'd key" tests/control/bad/typo.yaml \
  "uetemu: tests/control/bad/typo.yaml:7:7: nic.TransportProcessingLayers.ScalaUETPdsManager.TrimingEnabled: unknown key; did you mean 'TrimmingEnabled'?"
expect_err "bad unit" tests/control/bad/bad-unit.yaml \
  "uetemu: tests/control/bad/bad-unit.yaml:5:40: nic.NetworkInterface.UplinkNetworkInterface.DataRate: bad unit 'Gbit'; a datarate takes bps, Kbps, Mbps, Gbps or Tbps, e.g. 400Gbps"
expect_err "negative size" tests/control/bad/negative-size.yaml \
  "uetemu: tests/control/bad/negative-size.yaml:12:16: applications.0.list.0.bytes: negative size '-5'; a size is a whole number of bytes, e.g. 4096 or 1MiB"

out=$("$uetemu" run "$tmp/nope.yaml" --out "$tmp/o" 2>&1); rc=$?
check "run on a missing file: exit $rc, '$out'" '[ $rc -ne 0 ] && [ "$out" = "uetemu: $tmp/nope.yaml: No such file or directory" ]'
out=$("$uetemu" run configs/pair.yaml --set nic.Bogus=1 2>&1); rc=$?
check "bad --set: exit $rc, '$out'" '[ $rc -ne 0 ] && [[ "$out" == *"--set nic.Bogus=1"* ]]'
out=$("$uetemu" run configs/pair.yaml --mode warp 2>&1); rc=$?
check "bad --mode: exit $rc" '[ $rc -eq 2 ] && [[ "$out" == *"expected virtual or realtime"* ]]'
check "version" '"$uetemu" version | grep -Eq "^uetemu [0-9]+\.[0-9]+\.[0-9]+$"'
for c in configs/*.yaml; do
	check "validate $c" '"$uetemu" validate "$c" >/dev/null'
done

# --set reaches the run: one 4,096-byte message instead of 1 MiB -> 4,096 B of payload delivered
"$uetemu" run configs/pair.yaml --out "$tmp/s" --quiet --set applications.0.list.0.bytes=4096 \
	--set simulation.SimulationName=setrun >/dev/null
check "--set applications.0.list.0.bytes=4096 reaches the run" \
	'grep -q "\"rx_payload_bytes\": $((9 * 1048576 + 4096))" "$tmp/s/summary.json"'
check "--set simulation.SimulationName names the records" '[ -f "$tmp/s/setrun-uet-events-0.csv" ]'
"$uetemu" run configs/default.yaml --out "$tmp/deep/er/dir" --quiet >/dev/null
check "--out creates missing parent directories" '[ -f "$tmp/deep/er/dir/summary.json" ]'
out=$("$uetemu" run configs/pair.yaml --out "$tmp/cc" --set nic.TransportProcessingLayers.ScalaUETCongestionControl.InitialBaseRTT=50ns 2>&1); rc=$?
check "stop rule: window below one nominal packet ($out)" \
	'[ $rc -ne 0 ] && [ "$out" = "uetemu: configs/pair.yaml: nic (host host0): 1.5 x link rate x InitialBaseRTT is 3750 B, below one nominal packet (4184 B); raise InitialBaseRTT" ]'
out=$("$uetemu" run configs/pair.yaml --out "$tmp/cc" --set nic.NetworkInterface.UplinkNetworkInterface.DataRate=500Mbps 2>&1); rc=$?
check "stop rule: link rate below 1 Gb/s" '[ $rc -ne 0 ] && [[ "$out" == *"below 1 Gb/s"* ]]'
out=$("$uetemu" run configs/pair.yaml --out "$tmp/cc" --set nic.TransportProcessingLayers.ScalaUETCongestionControl.ReferenceNetworkRTT=0 2>&1); rc=$?
check "stop rule: ReferenceNetworkRTT 0" '[ $rc -ne 0 ] && [[ "$out" == *"ReferenceNetworkRTT is 0"* ]]'
check "docs/config.md lists exactly what 'uetemu keys' prints" \
	'diff <("$uetemu" keys) <(sed -n "/^| key | type | default |$/,\$p" docs/config.md) >/dev/null'
echo "test_cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
