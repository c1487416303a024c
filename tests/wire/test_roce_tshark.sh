#!/bin/sh
# Wireshark's own RoCEv2 dissector (no Lua) decodes every RoCE frame uetemu encodes: WRITE FIRST / MIDDLE / LAST /
# ONLY, SEND ONLY, ACK, NAK and CNP, without and with the ICRC and the RETH (roce_nic.RoCEEncapsulation), with no
# malformed frame, each with the opcode it was given. With the ICRC, scapy's own RoCE layer (when installed)
# recomputes every frame's ICRC and must find the same bytes; Wireshark 4.0 shows the ICRC but does not check it.
# Usage: test_roce_tshark.sh ROCE_PCAP_TOOL
set -eu
tool=$1
dir=$(mktemp -d "${TMPDIR:-/tmp}/roce_tshark.XXXXXX")
trap 'rm -rf "$dir"' EXIT
command -v tshark >/dev/null || { echo "tshark missing (scripts/lib.sh installs it)"; exit 1; }
fail=0
for mode in "" icrc reth "icrc reth"; do
	f="$dir/roce-$(echo "$mode" | tr ' ' '-').pcap"
	# shellcheck disable=SC2086
	"$tool" "$f" $mode
	want="6 7 8 10 4 17 17 129"
	case "$mode" in *reth*) want="$want 10";; esac
	got=$(tshark -r "$f" -T fields -e infiniband.bth.opcode 2>/dev/null | tr '\n' ' ' | sed 's/ $//')
	bad=$(tshark -r "$f" -Y '_ws.malformed || _ws.expert.severity >= "warning"' -T fields -e frame.number \
		2>/dev/null | tr '\n' ' ')
	if [ "$got" != "$want" ]; then
		echo "FAIL [$mode]: opcodes '$got', want '$want'"; fail=1
	fi
	if [ -n "$bad" ]; then
		echo "FAIL [$mode]: malformed or warned frames: $bad"; fail=1
	fi
	naks=$(tshark -r "$f" -Y 'infiniband.aeth.syndrome == 0x60' 2>/dev/null | wc -l)
	[ "$naks" -eq 1 ] || { echo "FAIL [$mode]: $naks NAK frames, want 1"; fail=1; }
	case "$mode" in *icrc*)
		if /usr/bin/python3 -c 'import scapy.contrib.roce' 2>/dev/null; then
			/usr/bin/python3 - "$f" <<'PY' || fail=1
import sys
from scapy.all import rdpcap, Ether
from scapy.contrib.roce import BTH
ok = True
for i, p in enumerate(rdpcap(sys.argv[1]), 1):
    raw = bytes(p)
    q = Ether(raw)
    q[BTH].icrc = None
    if bytes(q) != raw:
        print("FAIL: frame %d ICRC %s, scapy computes %s" % (i, raw[-4:].hex(), bytes(q)[-4:].hex()))
        ok = False
sys.exit(0 if ok else 1)
PY
		else
			echo "note: no scapy; the ICRC is checked by the unit tests only"
		fi;;
	esac
	echo "[$mode] frames: $(tshark -r "$f" 2>/dev/null | wc -l), opcodes $got"
done
exit $fail
