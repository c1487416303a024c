#!/usr/bin/env bash
# The trimmer (bpf/ebpf_trim.bpf.c, loaded by uetemu-trim) on a real interface. Usage: test_trim.sh UETEMU_TRIM REPO
# (root). Two namespaces uettrA<pid> and uettrB<pid> joined by the veth pair trma/trmb (10.76.0.1 - 10.76.0.2,
# static neighbours, IPv6 off, so the only frames trma sends are the test's). uetemu-trim attaches the trimmer to
# trma's egress at 100 kbit/s with --min 5KB, and trim_send.py sends, much faster: 30 UET frames over UDP 4793 with
# DSCP 8, 10 with DSCP 46, 10 UDP frames to port 9999 with DSCP 8, 10 native UET frames (IP protocol 253) with
# DSCP 8, 1000 B of payload each; tshark captures them on trmb. trim_check.py checks, for two phases:
#   1. --dscp 16 (the default): the frames that fit under --min pass whole, every trimmable one after is trimmed
#      (58 B: IPv4 length 44, DSCP 16, ECN and TTL as sent, IP checksum good, UDP length 24, checksum 0, the first
#      16 UET bytes as sent; native: 54 B, IPv4 length 40, the entropy header and 16 UET bytes), DSCP 46 and UDP
#      9999 frames never, and the counters (uetemu-trim stats --json) equal the capture;
#   2. re-configured in place with --dscp 18 (same program id, no reload): the same, trimmed to DSCP 18.
# Then detach removes the filter and the clsact qdisc, and bad arguments are refused (exit 2), stats and detach
# where no trimmer is fail (exit 1).
set -u
LAB_NAME=test_trim
. "$(dirname "${BASH_SOURCE[0]}")/lablib.sh"
lab_init "$@" # UETEMU is uetemu-trim here
lab_need tc tshark
trim=$UETEMU
lab_need_obj ebpf_trim.bpf.o
A=uettrA$$ B=uettrB$$

N=30 PAYLOAD=1000 MIN=5000
if ! ns_pair "$A" trma 10.76.0.1 "$B" trmb 10.76.0.2; then
	check "namespaces $A, $B with the veth pair trma/trmb" false
	finish
fi

# phase NAME DSCP_TRIMMED: capture, send, read the counters before and after, check.
phase() {
	local name=$1 dscp=$2
	tshark_start "$B" "$WORK/$name-tshark.log" -q -i trmb -f "ip src 10.76.0.1" -F pcap -w "$WORK/$name.pcap"
	CAP_PID=$TPID
	ina "$trim" stats trma --json >"$WORK/$name-s0.json"
	ina timeout 20 python3 "$ROOT/tests/lab/trim_send.py" 10.76.0.2 $N $PAYLOAD
	sleep 1
	ina "$trim" stats trma --json >"$WORK/$name-s1.json"
	kill -INT "$CAP_PID"; wait "$CAP_PID"
	echo "-- phase $name: --min $MIN, trimmed to DSCP $dscp"
	python3 "$ROOT/tests/lab/trim_check.py" "$WORK/$name.pcap" "$WORK/$name-s0.json" "$WORK/$name-s1.json" \
		$N $PAYLOAD $MIN "$dscp" >"$WORK/$name.check" 2>&1
	local rc=$?
	sed 's/^/  /' "$WORK/$name.check"
	check "phase $name: capture and counters as the trimmer's semantics say" "[ $rc -eq 0 ]"
}

ina "$trim" attach trma --rate 100kbit --min 5KB >"$WORK/attach1" 2>&1
check "attach: $(head -1 "$WORK/attach1")" "grep -q 'attached to trma egress' '$WORK/attach1'"
check "clsact qdisc and the bpf filter on trma egress" "ina tc filter show dev trma egress | grep -q 'uetemu_trim'"
id1=$(ina "$trim" stats trma --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["prog_id"])')
phase dscp16 16

# the queue must drain before the next phase: re-configuring starts a new generation
ina "$trim" attach trma --rate 100kbit --min 5KB --dscp 18 >"$WORK/attach2" 2>&1
check "re-configure in place: $(cat "$WORK/attach2")" \
	"grep -q 're-configured trma egress (program id $id1).*DSCP 8 trimmed to DSCP 18' '$WORK/attach2'"
phase dscp18 18

ina "$trim" attach trma --rate 1Mbit --min 5KB --dscp 8 >/dev/null 2>&1
check "--dscp equal to --trimmable refused (exit 2)" "[ $? -eq 2 ]"
ina "$trim" attach trma --rate 1Mbit >/dev/null 2>&1
check "attach without --min refused (exit 2)" "[ $? -eq 2 ]"
ina "$trim" detach trma >"$WORK/detach1" 2>&1
check "detach: $(cat "$WORK/detach1")" "grep -q 'clsact qdisc removed' '$WORK/detach1'"
check "no clsact qdisc left on trma" "! ina tc qdisc show dev trma | grep -q clsact"
ina "$trim" detach trma >/dev/null 2>&1
check "a second detach fails (exit 1)" "[ $? -eq 1 ]"
ina "$trim" stats trma >/dev/null 2>&1
check "stats of an interface without the trimmer fails (exit 1)" "[ $? -eq 1 ]"
finish
