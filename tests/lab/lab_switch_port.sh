#!/usr/bin/env bash
# A real device behind an emulated switch port: process A emulates a rack (tor0, host0..host2, and host3 marked
# external) with tor0's port 3 bound to a veth; process B, another uetemu, binds its host3 to the veth's other end.
# Messages between B's host3 and A's hosts complete both ways, through A's switch.
#
# Usage: tests/lab/lab_switch_port.sh UETEMU REPO_ROOT     (as root; LAB_KEEP=1 keeps the work directory)
#
#   namespace uetsa<pid>: A (ext-rack.yaml) tor0:3 -- va ==== vb -- host3 B (ext-host.yaml): namespace uetsb<pid>
#   (a namespace each: net_af_packet's PACKET_FANOUT groups of two processes must not meet in one namespace)
#
# Checks: both exit 0; A's two messages to host3 and B's message to host0 complete; A's summary shows the port
# bound to tor0:3 with frames both ways and the host3-tor0 link carrying them; B's host3 received A's payload.
set -u
LAB_NAME=lab_switch_port
. "$(dirname "${BASH_SOURCE[0]}")/lablib.sh"
lab_init "$@"
NA=uetsa$$ NB=uetsb$$

if ! { ns_add "$NA" && ns_add "$NB" && veth "$NA" va "$NB" vb; }; then
	fail "namespaces $NA, $NB and veth va-vb"
	finish
fi
pass "namespaces $NA and $NB, veth va-vb"
# Each on a core of its own (-l): without -l both main lcores are the first core, and on a loaded 2-core machine
# the two processes then take turns on it for tens of ms, each pause longer than a retransmission timer.
run_one() { # NAME CONFIG: uetemu in real time in its namespace, its own EAL prefix; pid in PID_NAME
	local ns=$NA core=0
	[ "$1" = b ] && ns=$NB core=1
	ip netns exec "$ns" timeout -s TERM -k 5 "${LAB_TIMEOUT:-40}" "$UETEMU" run "$2" --mode realtime \
		--out "$WORK/$1" -- --no-huge --no-pci -m 256 --file-prefix "$PREFIX$1" --log-level='lib.*:warning' \
		-l "$core" \
		>"$WORK/$1.log" 2>&1 &
	PIDS+=($!)
	eval "PID_$1=\$!"
}
run_one b "$ROOT/tests/lab/ext-host.yaml"
run_one a "$ROOT/tests/lab/ext-rack.yaml"
for p in a b; do
	eval "pid=\$PID_$p"
	wait "$pid"
	rc=$?
	check "process $p exited 0 (exit $rc)" '[ "$rc" -eq 0 ]'
	[ "$rc" -eq 0 ] || tail -n 15 "$WORK/$p.log" | sed "s/^/  $p: /"
	rm -rf "/var/run/dpdk/$PREFIX$p"
done
sa="$WORK/a/summary.json" sb="$WORK/b/summary.json"
py() { python3 -c "import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
$1" "$sa" "$sb" 2>&1; }
got=$(py "print(a['messages']['completed'], a['messages']['posted'], b['messages']['completed'], b['messages']['posted'])")
check "A's 2 messages to host3 and B's message to host0 complete ($got)" '[ "$got" = "2 2 1 1" ]'
port=$(py "p = a['ports'][0]; print(p['switch_port'], p['host'], p['rx_frames'] > 0, p['tx_frames'] > 0)")
check "A's port is tor0:3, facing host3, frames both ways ($port)" '[ "$port" = "tor0:3 host3 True True" ]'
link=$(py "l = [l for l in a['links'] if l['name'] == 'host3-tor0'][0]
print(l['ab']['frames'] > 0, l['ba']['frames'] > 0)")
check "A's link host3-tor0 carries frames both ways: B's into the switch, the switch's to B ($link)" \
	'[ "$link" = "True True" ]'
pay=$(py "h = [h for h in b['hosts'] if h['name'] == 'host3'][0]
print(h['rx_payload_bytes'], [x for x in a['hosts'] if x['name'] == 'host0'][0]['rx_payload_bytes'])")
check "payload delivered: B's host3 262144 + 100000 B, A's host0 200000 B ($pay)" '[ "$pay" = "362144 200000" ]'
finish
