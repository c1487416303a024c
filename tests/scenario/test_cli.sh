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
	mode=virtual; grep -q '^ports:' "$c" && mode=realtime
	# the config's rules only: its ports' interfaces are a lab's, not this machine's (--no-preflight)
	check "validate $c (--mode $mode)" '"$uetemu" validate "$c" --mode $mode --no-preflight >/dev/null'
done
# the preflight checks that need no root (tests/lab/test_preflight.sh has the rest): a bogus PMD, a devargs typo
out=$("$uetemu" validate configs/lab-bridge.yaml -m realtime --set ports.0.dev=net_bogus0 2>&1); rc=$?
check "validate -m realtime, a bogus PMD: exit $rc, '${out:0:90}'" \
	'[ $rc -eq 1 ] && [[ "$out" == *"no PMD driver for \"net_bogus0\" in this DPDK build"* ]]'
out=$("$uetemu" validate configs/lab-bridge.yaml -m realtime -N --set ports.0.dev=net_tap0,ifcae=x 2>&1); rc=$?
check "validate -m realtime, a devargs typo warned: exit $rc, '${out:0:90}'" \
	'[ $rc -eq 0 ] && [[ "$out" == *"net_tap takes no devarg \"ifcae\""* ]]'
out=$("$uetemu" validate configs/lab-bridge.yaml 2>&1); rc=$?
check "validate in virtual mode refuses what run refuses in virtual mode: hosts with ports only" \
	'[ $rc -eq 1 ] && [[ "$out" == *"has no link in virtual mode"* ]]'

# validate = run's checks: on every bad config both fail, and run's first error is among validate's
for c in tests/control/bad/*.yaml; do
	v=$("$uetemu" validate "$c" 2>&1 >/dev/null); vrc=$?
	r=$("$uetemu" run "$c" --out "$tmp/bad" --quiet 2>&1 >/dev/null); rrc=$?
	first=$(printf '%s\n' "$r" | head -1)
	check "$c: validate exit $vrc, run exit $rrc, run's error among validate's" \
		'[ $vrc -eq 1 ] && [ $rrc -eq 1 ] && printf "%s\n" "$v" | grep -qxF -- "$first"'
done
n=$("$uetemu" validate tests/control/bad/many-errors.yaml 2>&1 | grep -c '^uetemu: tests/control/bad/many-errors.yaml:[0-9]*:[0-9]*: ')
check "validate reports all 4 errors of many-errors.yaml in one pass, each with file:line:col ($n)" '[ "$n" -eq 4 ]'

# the command line: help for every command, --opt=value, short options, exit statuses
for sub in run validate keys columns pcap-info conform version help; do
	out=$("$uetemu" $sub --help); rc=$?
	check "uetemu $sub --help exits 0 and shows its usage" '[ $rc -eq 0 ] && [[ "$out" == "usage: uetemu $sub"* ]]'
done
out=$("$uetemu" conform --help); rc=$?
check "conform --help lists its cases" '[ $rc -eq 0 ] && [[ "$out" == *"  sack_out_of_order "* ]] && [[ "$out" == *"  bad_frames "* ]]'
"$uetemu" conform --ip 10.0.0.1 >/dev/null 2>&1; rc=$?
check "conform without --dev and --dut-ip exits 2 ($rc)" '[ $rc -eq 2 ]'
out=$("$uetemu" conform --dev net_null0 --dut-ip 10.0.0.2 --ip 10.0.0.1 --cases nosuch 2>&1); rc=$?
check "conform --cases with an unknown case exits 2 and lists the cases ($rc)" \
	'[ $rc -eq 2 ] && [[ "$out" == *"no case '"'"'nosuch'"'"'"* ]] && [[ "$out" == *pdc_establish* ]]'
out=$("$uetemu" conform --dev net_null0 --dut-ip 10.0.0.2 --ip 10.0.0.1 --encap tcp 2>&1); rc=$?
check "conform --encap tcp exits 2 ($rc)" '[ $rc -eq 2 ] && [[ "$out" == *"expected udp or native"* ]]'
out=$("$uetemu" help); rc=$?
check "uetemu help lists the commands" '[ $rc -eq 0 ] && [[ "$out" == *"validate CONFIG"* ]]'
# the help is read whole first: `grep -q` quits at its first match, and with pipefail the SIGPIPE uetemu then gets
# writing the rest of a help longer than one stdio buffer would fail the check
run_help=$("$uetemu" run --help)
for opt in -m --mode -o --out -s --set -q --quiet -h --help; do
	check "run --help describes $opt" 'grep -qE -- "(^| )$opt[ ,]" <<<"$run_help"'
done
check "uetemu --version" '"$uetemu" --version | grep -Eq "^uetemu [0-9]+\.[0-9]+\.[0-9]+$"'
"$uetemu" run configs/pair.yaml --out="$tmp/eq" -q >/dev/null; rc=$?
check "--out=DIR and -q work (exit $rc)" '[ $rc -eq 0 ] && [ -f "$tmp/eq/summary.json" ]'
"$uetemu" run -q -o "$tmp/short" -s simulation.SimulationName=short configs/pair.yaml >/dev/null; rc=$?
check "short options before CONFIG (exit $rc)" '[ $rc -eq 0 ] && [ -f "$tmp/short/short-uet-events-0.csv" ]'
"$uetemu" run configs/pair.yaml --bogus >/dev/null 2>&1; rc=$?
check "an unknown option exits 2 ($rc)" '[ $rc -eq 2 ]'
"$uetemu" run >/dev/null 2>&1; rc=$?
check "a missing CONFIG exits 2 ($rc)" '[ $rc -eq 2 ]'
"$uetemu" pcap-info >/dev/null 2>&1; rc=$?
check "pcap-info without FILE exits 2 ($rc)" '[ $rc -eq 2 ]'
out=$("$uetemu" pcap-info --udp-port 0 tests/golden/golden.pcap 2>&1); rc=$?
check "pcap-info --udp-port 0 exits 2 ($rc)" '[ $rc -eq 2 ] && [[ "$out" == *"expected a port number, 1 to 65535"* ]]'
out=$("$uetemu" run configs/pair.yaml --json 2>&1); rc=$?
check "an option of another command is unknown to run: --json exits 2 ($rc)" \
	'[ $rc -eq 2 ] && [[ "$out" == *"unknown option '"'"'--json'"'"'"* ]]'
"$uetemu" pcap-info -j -p 4793 tests/golden/golden.pcap |
	python3 -c 'import json,sys; j=json.load(sys.stdin); sys.exit(j["frames"] != 16)'
rc=$?
check "pcap-info -j -p 4793 on the golden capture: 16 frames (with the probes and their ACKs) (exit $rc)" '[ $rc -eq 0 ]'
"$uetemu" frobnicate >/dev/null 2>&1; rc=$?
check "an unknown command exits 2 ($rc)" '[ $rc -eq 2 ]'
# 200,000 keys in one map, the last a duplicate of the sixth: found, with both places (the duplicate check is a
# hash lookup; a linear scan per key took 111 s here)
python3 -c "
print('simulation:')
for i in range(200000): print('  K%d: 1' % i)
print('  K5: 2')
" >"$tmp/keys.yaml"
out=$("$uetemu" validate "$tmp/keys.yaml" 2>&1); rc=$?
check "200,000 keys: the duplicate K5 at line 200002 is found, first at 7:3" \
	'[ $rc -eq 1 ] && [[ "$out" == *"keys.yaml:200002:3: simulation.K5: duplicate key; keep one, the first is at 7:3"* ]]'

# report intervals of at least 1 us; idle time does not fill the disk: rows stop at simulation.RecordSizeLimit
out=$("$uetemu" validate configs/pair.yaml -s simulation.NDStatsReportInterval=1ps 2>&1); rc=$?
check "NDStatsReportInterval 1ps refused ($out)" '[ $rc -eq 1 ] && [[ "$out" == *"interval below 1us"* ]]'
printf '%s\n' 'simulation: {SimulationName: late}' \
	'topology: {hosts: [{name: host0, ip: 10.0.0.1}, {name: host1, ip: 10.0.0.2}], links: [{name: l0, a: host0, b: host1}]}' \
	'applications: [{type: messages, list: [{src: host0, dst: host1, bytes: 4096, start: 3600s}]}]' >"$tmp/late.yaml"
out=$("$uetemu" run "$tmp/late.yaml" -q -o "$tmp/late" -s simulation.RecordSizeLimit=2MB 2>&1 >/dev/null); rc=$?
size=$(cat "$tmp"/late/*.csv | wc -c)
check "a message at 1 h with RecordSizeLimit 2 MB: warned first, rows stop, $size B of records, exit $rc" \
	'[ $rc -eq 0 ] && [[ "$out" == *"would take about"*"reached simulation.RecordSizeLimit"* ]] &&
	 [ "$size" -lt 2100000 ] && grep -q "\"records_cut_at_ps\": " "$tmp/late/summary.json" &&
	 grep -q "\"completed\": 1" "$tmp/late/summary.json"'
# records that start late (RecordStartTime 3599 s, 1 s of rows, about 0.72 MB): the projection is of the rows'
# rate since they started, so it warns before the cut at 500 KB (it warned at 3600/3599 of the first round's bytes)
out=$("$uetemu" run "$tmp/late.yaml" -q -o "$tmp/late-start" -s simulation.RecordSizeLimit=500KB \
	-s simulation.RecordStartTime=3599s 2>&1 >/dev/null); rc=$?
check "records from 3599 s, RecordSizeLimit 500 KB: warned before the rows stop, exit $rc" \
	'[ $rc -eq 0 ] && [[ "$out" == *"would take about"*"reached simulation.RecordSizeLimit"* ]]'
# the budget counts the rows still in the streams' buffers too, so a small limit is kept to within a round of rows
"$uetemu" run "$tmp/late.yaml" -q -o "$tmp/late20" -s simulation.RecordSizeLimit=20KB >/dev/null 2>&1
size=$(cat "$tmp"/late20/*.csv | wc -c)
check "RecordSizeLimit 20 KB: $size B of records (a round of rows past 20,000 at most, not a stream buffer per file)" \
	'[ "$size" -ge 20000 ] && [ "$size" -lt 21000 ]'

# a run that can never finish is stopped: a receiver whose buffers take nothing makes no progress
out=$("$uetemu" run configs/pair.yaml -q -o "$tmp/zero" -s nic.NetworkInterface.IngressBufferManager.TotalBufferSize=0 2>&1 >/dev/null); rc=$?
check "zero ingress buffer: no progress detected, exit $rc, stop stalled" \
	'[ $rc -eq 4 ] && [[ "$out" == *"no progress for 0.1"*"10 of 10 messages open"* ]] && grep -q "\"stop\": \"stalled\"" "$tmp/zero/summary.json"'

# more messages than PDCs at once and no duration: some never post, the run stops "stalled" with exit 4
python3 -c "
print('topology: {hosts: [{name: host0, ip: 10.0.0.1}, {name: host1, ip: 10.0.0.2}], links: [{name: l0, a: host0, b: host1}]}')
print('applications:\n  - type: messages\n    list:')
for i in range(9000): print('      - {src: host0, dst: host1, bytes: 64, start: 0}')
" >"$tmp/many.yaml"
out=$("$uetemu" run "$tmp/many.yaml" -o "$tmp/many" -q 2>&1); rc=$?
check "messages never posted: exit 4 ($rc), summary stop stalled, console says how many failed" \
	'[ $rc -eq 4 ] && grep -q "\"stop\": \"stalled\"" "$tmp/many/summary.json" && [[ "$out" == *"808 failed to post"* ]]'
python3 - "$tmp/eq/summary.json" <<'PY' && check "summary.json: schema 1, stop completed" true || check "summary.json: schema 1, stop completed" false
import json, sys
s = json.load(open(sys.argv[1]))
sys.exit(0 if s.get('schema') == 1 and s.get('stop') == 'completed' else 1)
PY

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
	'[ $rc -ne 0 ] && [ "$(printf "%s\n" "$out" | head -1)" = "uetemu: configs/pair.yaml: nic (host host0): 1.5 x link rate x InitialBaseRTT is 3750 B, below one nominal packet (4184 B); raise InitialBaseRTT" ]'
out=$("$uetemu" run configs/pair.yaml --out "$tmp/cc" --set nic.NetworkInterface.UplinkNetworkInterface.DataRate=500Mbps 2>&1); rc=$?
check "stop rule: link rate below 1 Gb/s" '[ $rc -ne 0 ] && [[ "$out" == *"below 1 Gb/s"* ]]'
out=$("$uetemu" run configs/pair.yaml --out "$tmp/cc" --set nic.TransportProcessingLayers.ScalaUETCongestionControl.ReferenceNetworkRTT=0 2>&1); rc=$?
check "stop rule: ReferenceNetworkRTT 0" '[ $rc -ne 0 ] && [[ "$out" == *"ReferenceNetworkRTT is 0"* ]]'
# uetemu columns: a record's header from its column table (docs/records.md, Declaring a record)
out=$("$uetemu" columns nd-stats); rc=$?
check "columns nd-stats: its 22 columns, time_utc first, rx_drops last" \
	'[ $rc -eq 0 ] && [ "$(tr , "\n" <<<"$out" | wc -l)" -eq 22 ] && [[ "$out" == time_utc,*,rx_drops ]]'
out=$("$uetemu" columns nd-stat 2>&1); rc=$?
check "columns of no record: exit 1, '$out'" '[ $rc -eq 1 ] && [[ "$out" == *"not a record uetemu writes"* ]]'
out=$("$uetemu" columns); rc=$?
check "columns lists every record with its header, each as 'columns RECORD' prints it" \
	'[ $rc -eq 0 ] && [ "$(wc -l <<<"$out")" -ge 13 ] && (while read -r rec hdr; do [ "$("$uetemu" columns "$rec")" = "$hdr" ] || exit 1; done <<<"$out")'
check "docs/config.md lists exactly what 'uetemu keys' prints" \
	'diff <("$uetemu" keys) <(sed -n "/^| key | type | default |$/,\$p" docs/config.md) >/dev/null'
echo "test_cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
