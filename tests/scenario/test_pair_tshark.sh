#!/usr/bin/env bash
# Conformance (issue 2): tshark with scripts/wireshark/uet.lua decodes every frame of the configs/pair.yaml capture
# as UET with no malformed or unknown packet, whatever the entropy source port and with no option; IPv4 checksums
# valid; DSCP and ECN as specified; the same run with native IPv4 encapsulation and the CRC trailer decodes as UET
# with every trailer right; and the RDMA application's connection setup frames (UDP 4794) decode as uetemu_cm
# ConnectRequest, ConnectReply, ReadyToUse.
# Usage: test_pair_tshark.sh UETEMU REPO_ROOT
set -uo pipefail
uetemu=$(realpath "$1") root=$(realpath "$2")
command -v tshark >/dev/null || { echo "SKIP: tshark not installed"; exit 77; }
. "$root/tests/lib/tscount.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
check() { if eval "$2"; then echo "ok   $1"; pass=$((pass+1)); else echo "FAIL $1"; fail=$((fail+1)); fi; }

"$uetemu" run "$root/configs/pair.yaml" --out "$tmp" --quiet >/dev/null || { echo "FAIL uetemu run"; exit 1; }
# Entropy source ports (256..383) sit below 4793, some on ports other protocols registered (269, 319, 320): the
# script's source-port chooser gives frames to 4793 to UET with no option (no udp.try_heuristic_first).
ts=(tshark -n -o ip.check_checksum:TRUE -X "lua_script:$root/scripts/wireshark/uet.lua" -r "$tmp/pair.pcap")
# one tshark pass counts every filter (tests/lib/tscount.sh); err: its stderr lines (a Lua error, a bad filter)
read -r total uet bad badsum data ctl som eom err < <(tscount 'frame' 'uet' \
	'_ws.malformed || _ws.expert.severity >= warning || _ws.lua.error || uet.pds.type != 13 && uet.pds.type != 8 && uet.pds.type != 11' \
	'ip.checksum.status != 1' 'uet.pds.type == 13 && ip.dsfield.dscp == 0 && ip.dsfield.ecn == 1 && ip.ttl == 255' \
	'uet.pds.type != 13 && ip.dsfield.dscp == 46 && ip.dsfield.ecn == 1' 'uet.ses.som == 1' 'uet.ses.eom == 1' \
	-- "${ts[@]}")
check "capture has frames ($total)" '[ "$total" -gt 2560 ]'
# 10 x 1 MiB: 2,560 data + 2,560 ACKs + one base-RTT probe and its ACK per message (uet-nic-transport.md)
check "5140 frames: 2560 data, 2560 ACKs, 10 probes, 10 probe ACKs ($total)" '[ "$total" -eq 5140 ]'
check "every frame dissected as uet ($uet of $total)" '[ "$uet" -eq "$total" ]'
check "no malformed, unknown or warned frame ($bad, $err stderr lines)" '[ "$bad" -eq 0 ] && [ "$err" -eq 0 ]'
check "every IPv4 header checksum valid ($badsum bad)" '[ "$badsum" -eq 0 ]'
check "2560 data frames with DSCP 0 (no-trim), ECT(1), TTL 255 ($data)" '[ "$data" -eq 2560 ]'
check "every control frame DSCP 46, ECT(1) ($ctl of $((total - 2560)))" '[ "$ctl" -eq $((total - 2560)) ]'
check "10 SOM and 10 EOM segments ($som, $eom)" '[ "$som" -eq 10 ] && [ "$eom" -eq 10 ]'

# Native IPv4 (protocol 253 + entropy header) with a CRC-32C trailer on every frame: same frame count, every one
# UET with its entropy value and a trailer the dissector checks as right.
"$uetemu" run "$root/configs/pair.yaml" --out "$tmp/native" --quiet \
	--set nic.UETEncapsulation.Encapsulation=NativeIPv4 --set nic.UETEncapsulation.CrcTrailer=true >/dev/null ||
	{ echo "FAIL uetemu run native"; exit 1; }
nts=(tshark -n -o ip.check_checksum:TRUE -o uet.crc_trailer:TRUE -X "lua_script:$root/scripts/wireshark/uet.lua"
     -r "$tmp/native/pair.pcap")
read -r ntotal ngood nbad nerr < <(tscount 'frame' 'uet && ip.proto == 253 && uet.entropy && uet.crc.status == 1 && !udp' \
	'_ws.malformed || _ws.expert.severity >= warning || _ws.lua.error' -- "${nts[@]}")
check "native + CRC: $ntotal frames, all UET over protocol 253 with a right trailer ($ngood), none warned ($nbad, $nerr stderr lines)" \
	'[ "$ntotal" -eq 5140 ] && [ "$ngood" -eq "$ntotal" ] && [ "$nbad" -eq 0 ] && [ "$nerr" -eq 0 ]'

# The RDMA application's connection setup frames (UDP 4794, docs/wire.md): uetemu_cm decodes all three.
{ cat "$root/configs/rdma-rack.yaml"; echo 'captures: [{name: setup, link: host1-tor0}]'; } >"$tmp/rdma.yaml"
"$uetemu" run "$tmp/rdma.yaml" --out "$tmp/rdma" --quiet --set simulation.RunTime=1us >/dev/null ||
	{ echo "FAIL uetemu run rdma"; exit 1; }
cm=(tshark -n -X "lua_script:$root/scripts/wireshark/uet.lua" -r "$tmp/rdma/setup.pcap" -Y uetemu_cm)
types=$("${cm[@]}" -T fields -e uetemu_cm.type 2>/dev/null | tr '\n' ' ')
check "connection setup frames decoded: ConnectRequest, ConnectReply, ReadyToUse ($types)" '[ "$types" = "1 2 3 " ]'
qpn=$("${cm[@]}" -Y 'uetemu_cm.type == 3' -T fields -e uetemu_cm.qpn 2>/dev/null)
check "ReadyToUse carries the Initiator's PDC id ($qpn)" '[ "$qpn" = 1 ]'
cmbad=$("${cm[@]}" -Y 'uetemu_cm && (_ws.malformed || _ws.expert.severity >= warning || _ws.lua.error)' 2>&1 | grep -v 'Running as user' | wc -l)
check "no malformed setup frame ($cmbad)" '[ "$cmbad" -eq 0 ]'
echo "test_pair_tshark: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
