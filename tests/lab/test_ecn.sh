#!/usr/bin/env bash
# The CE marker (bpf/ebpf_ecn.bpf.c, loaded by uetemu-ecn) on a real interface. Usage: test_ecn.sh UETEMU_ECN REPO
# (root). Two namespaces uetecnA<pid> and uetecnB<pid> joined by the veth pair ecna/ecnb (10.77.0.1 - 10.77.0.2,
# static neighbours, IPv6 off, so the only frames ecna sends are the test's). uetemu-ecn attaches the marker to
# ecna's egress at a low rate (100 kbit/s) and ecn_send.py sends 1000 B frames much faster, a third Not-ECT, the
# rest ECT(0)/ECT(1); tshark captures them on ecnb. Three phases, each checked by ecn_check.py:
#   1. threshold: --min 20KB --max 40KB: no mark while the virtual queue is below min, every ECT frame marked once
#      it is at or above max, never a Not-ECT frame, every IP header checksum good (tshark ip.check_checksum);
#   2. band: --min 10KB --max 110KB (re-attached): frames between min and max are marked with the linear
#      probability, so a fraction of them, within 4 standard deviations of what that probability expects;
#   3. re-configured in place with --pmax 0.5 (same program id, no reload): the band's fraction halves;
# and in every phase the marker's counters (uetemu-ecn stats --json) equal what the capture shows. Then detach
# removes the filter and the clsact qdisc it created, and bad arguments are refused with exit 2.
# Exit status: 0 all passed, 1 a check failed, 77 skipped (not root, a tool or the BPF object missing).
set -uo pipefail
LAB_NAME=test_ecn
. "$(dirname "${BASH_SOURCE[0]}")/lablib.sh"
lab_init "$@" # UETEMU is uetemu-ecn here
lab_need tc tshark
ecn=$UETEMU
lab_need_obj ebpf_ecn.bpf.o
A=uetecnA$$ B=uetecnB$$

COUNT=150 FRAME=1000 RATE=100000 PORT=9999
if ! ns_pair "$A" ecna 10.77.0.1 "$B" ecnb 10.77.0.2; then
	check "namespaces $A, $B with the veth pair ecna/ecnb" false
	finish
fi

# phase NAME ATTACH_ARGS...: capture, send, read the counters before and after, check.
phase() {
	local name=$1; shift
	local min=$1 max=$2 pmax=$3; shift 3
	tshark_start "$B" "$WORK/$name-tshark.log" -q -i ecnb -f "udp dst port $PORT" -w "$WORK/$name.pcap"
	CAP_PID=$TPID
	ina "$ecn" stats ecna --json >"$WORK/$name-s0.json"
	send_s=$(ina python3 "$ROOT/tests/lab/ecn_send.py" 10.77.0.2 $PORT $COUNT $FRAME)
	sleep 1
	ina "$ecn" stats ecna --json >"$WORK/$name-s1.json"
	kill -INT "$CAP_PID"; wait "$CAP_PID"
	tshark -r "$WORK/$name.pcap" -o ip.check_checksum:TRUE -T fields -e ip.dsfield.ecn -e ip.checksum.status \
		-e udp.payload >"$WORK/$name.fields" 2>/dev/null
	echo "-- phase $name: min $min max $max pmax $pmax, $COUNT frames sent in ${send_s}s"
	(cd "$ROOT/tests/lab" && python3 ecn_check.py "$WORK/$name.fields" "$WORK/$name-s0.json" "$WORK/$name-s1.json" \
		$COUNT $FRAME $RATE "$min" "$max" "$pmax" "$send_s") >"$WORK/$name.check" 2>&1
	local rc=$?
	sed 's/^/  /' "$WORK/$name.check"
	check "phase $name: capture and counters as the marker's semantics say" "[ $rc -eq 0 ]"
}

ina "$ecn" attach ecna --rate 100kbit --min 20KB --max 40KB >"$WORK/attach1" 2>&1
check "attach: $(head -1 "$WORK/attach1")" "grep -q 'attached to ecna egress' '$WORK/attach1'"
check "clsact qdisc and the bpf filter on ecna egress" \
	"ina tc filter show dev ecna egress | grep -q 'uetemu_ecn'"
phase threshold 20000 40000 1.0

ina "$ecn" detach ecna >"$WORK/detach1" 2>&1
check "detach: $(cat "$WORK/detach1")" "grep -q 'clsact qdisc removed' '$WORK/detach1'"
check "no clsact qdisc left on ecna" "! ina tc qdisc show dev ecna | grep -q clsact"
ina "$ecn" attach ecna --rate 100kbit --min 10KB --max 110KB >"$WORK/attach2" 2>&1
id1=$(ina "$ecn" stats ecna --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["prog_id"])')
phase band 10000 110000 1.0

# The queue must drain before the next phase counts from empty: re-configuring starts a new generation.
ina "$ecn" attach ecna --rate 100kbit --min 10KB --max 110KB --pmax 0.5 >"$WORK/attach3" 2>&1
check "re-configure in place: $(cat "$WORK/attach3")" "grep -q 're-configured ecna egress (program id $id1)' '$WORK/attach3'"
phase pmax-half 10000 110000 0.5

ina "$ecn" stats lo >/dev/null 2>&1
check "stats of an interface without the marker fails (exit 1)" "[ $? -eq 1 ]"
ina "$ecn" attach ecna --rate 1Mbit --min 40KB --max 20KB >/dev/null 2>&1
check "min above max refused (exit 2)" "[ $? -eq 2 ]"
ina "$ecn" detach ecna >/dev/null 2>&1
ina "$ecn" detach ecna >/dev/null 2>&1
check "a second detach fails (exit 1)" "[ $? -eq 1 ]"
finish
