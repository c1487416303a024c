#!/usr/bin/env bash
# Captures in real time (docs/capture.md): host2's NIC is bound to a net_pcap port replaying truncated, corrupt and
# good frames (tests/lab/gen_bad_frames.py, as test_badport.sh); a pcapng capture of that DPDK port (captures: dev)
# holds every frame it received (inbound, the refused ones with the decoder's reason in a comment) and sent
# (outbound), each stamped with the wall clock and commented with its emulated time; capinfos and tshark read it
# with its interface name; pcap-info agrees with the port's counters; the emulated link's pcap capture is stamped
# with the wall clock too. Usage: test_capture_rt.sh UETEMU REPO_ROOT
# Exit status: 0 all passed, 1 a check failed, 77 skipped (not root, or a tool missing).
set -uo pipefail
LAB_NAME=test_capture_rt
. "$(dirname "${BASH_SOURCE[0]}")/lablib.sh"
lab_init "$@"
lab_need tshark capinfos

read -r total malformed < <(python3 "$ROOT/tests/lab/gen_bad_frames.py" "$WORK/bad.pcap")
{ cat "$ROOT/tests/lab/badport.yaml"
  echo 'captures:'
  echo '  - {name: port, dev: net_pcap0, format: pcapng}'
  echo '  - {name: link, link: l0}'; } >"$WORK/cap.yaml"
t0=$(date +%s)
timeout -s TERM -k 5 60 "$UETEMU" run "$WORK/cap.yaml" --mode realtime --out "$WORK/out" --quiet \
	--set "ports.0.dev=net_pcap0,rx_pcap=$WORK/bad.pcap,tx_pcap=$WORK/tx.pcap" \
	-- --no-huge --no-pci -m 256 --file-prefix "$PREFIX" --log-level='lib.*:error' >"$WORK/log" 2>&1
rc=$?
t1=$(date +%s)
check "uetemu exits 0 ($rc)" '[ $rc -eq 0 ]'
[ $rc -eq 0 ] || sed 's/^/  /' "$WORK/log"
port="$WORK/out/port.pcapng"
read -r rx tx written seen < <(python3 -c '
import json, sys; s = json.load(open(sys.argv[1])); p = s["ports"][0]; c = s["captures"][0]
print(p["rx_frames"], p["tx_frames"], c["written"], c["seen"])' "$WORK/out/summary.json")
check "the port capture holds every frame the port received and sent ($written = $rx + $tx)" \
	'[ "$written" = "$((rx + tx))" ] && [ "$rx" = "$total" ] && [ "$seen" = "$written" ]'
ci=$(capinfos "$port" 2>&1); crc=$?
check "capinfos reads it clean, interface net_pcap0 ($crc)" \
	'[ $crc -eq 0 ] && [[ "$ci" == *"Name = net_pcap0"* ]] && [[ "$ci" == *"Number of packets:   $written"* ]]'
tshark -n -r "$port" -T fields -E separator='|' -e frame.interface_name -e frame.packet_flags_direction \
	-e frame.time_epoch -e frame.comment >"$WORK/fields" 2>"$WORK/tshark-err"
in=$(grep -c '|0x00000001|' "$WORK/fields"); out=$(grep -c '|0x00000002|' "$WORK/fields")
check "tshark: every frame on net_pcap0, $in inbound, $out outbound" \
	'[ "$(cut -d"|" -f1 "$WORK/fields" | sort -u)" = "net_pcap0" ] && [ "$in" = "$rx" ] && [ "$out" = "$tx" ] &&
	 ! grep -qv "Running as user" "$WORK/tshark-err"'
refused=$(grep -c "refused by uetemu's decoder" "$WORK/fields")
check "the $malformed refused frames carry the decoder's reason ($refused)" '[ "$refused" = "$malformed" ]'
emu=$(grep -c '|[^|]*emulated time [0-9]*\.[0-9]\{12\} s$' "$WORK/fields")
check "every frame keeps its emulated time in a comment ($emu of $written)" '[ "$emu" = "$written" ]'
read -r lo hi < <(cut -d'|' -f3 "$WORK/fields" | sort -n | sed -n '1p;$p' | tr '\n' ' ')
check "stamps are the wall clock of the run ($lo .. $hi within $t0 .. $t1)" \
	'python3 -c "import sys; a, b, t0, t1 = map(float, sys.argv[1:]); sys.exit(not (t0 - 1 <= a <= b <= t1 + 1))" \
	 "$lo" "$hi" "$t0" "$t1"'
pi=$("$UETEMU" pcap-info --json "$port"); prc=$?
perr=$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])["decode_errors"]["total"])' "$pi" 2>/dev/null)
# pcap-info's UET decoder also refuses the ARP frames the port's IPv4 side sent or took (the refused ones, a bad
# ARP among them, are counted once already)
arp=$(tshark -n -r "$port" -Y arp 2>/dev/null | wc -l)
check "pcap-info: exit $prc, decode errors = frames the port refused, and at most the ARP frames more ($perr: $malformed + <= $arp)" \
	'[ $prc -eq 0 ] && [ "$perr" -ge "$malformed" ] && [ "$perr" -le "$((malformed + arp))" ]'
first=$(tshark -n -r "$WORK/out/link.pcap" -T fields -e frame.time_epoch 2>/dev/null | head -1)
check "the emulated link's pcap is stamped with the wall clock too ($first)" \
	'python3 -c "import sys; a, t0, t1 = map(float, sys.argv[1:]); sys.exit(not (t0 - 1 <= a <= t1 + 1))" \
	 "${first:-0}" "$t0" "$t1"'
finish
