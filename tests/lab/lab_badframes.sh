#!/usr/bin/env bash
# Bad frames at a bound port while traffic runs: scapy, on the kernel side of host0's veth, sends frames host0 must
# count by reason and not take, while host0 and host1 exchange messages through a Linux bridge.
#
# Usage: tests/lab/lab_badframes.sh UETEMU REPO_ROOT     (as root; LAB_KEEP=1 keeps the work directory)
#
#   namespace uetk<pid> (kernel side)                 namespace uetu<pid> (uetemu)
#     br0 --- vk0 ========================== vu0  net_af_packet0: host0 10.88.0.1
#         --- vk1 ========================== vu1  net_af_packet1: host1 10.88.0.2
#     send_bad_frames.py sends on vk0
#
# Checks: uetemu is still running once every bad frame is sent, and exits 0; the messages complete; host0's port
# counts each kind of frame as send_bad_frames.py says (exact counts by reason and of the decoders' refusals in
# all, at least as many under each decoder reason named, echo requests answered, the ACK for no PDC ignored by
# the NIC); every frame received is counted once.
# Exit 0, 1, or 77 when not root or without scapy.
set -u
LAB_NAME=lab_badframes
. "$(dirname "${BASH_SOURCE[0]}")/lablib.sh"
lab_init "$@"
PY=$(scapy_python)
[ -n "$PY" ] || { echo "SKIP: $LAB_NAME needs python3-scapy"; exit 77; }
K=uetk$$ U=uetu$$
kns() { ip netns exec "$K" "$@"; }

if ! { ns_add "$K" && ns_add "$U" && veth "$U" vu0 "$K" vk0 && veth "$U" vu1 "$K" vk1 &&
	kns ip link add br0 type bridge stp_state 0 mcast_snooping 0 && kns ip link set vk0 master br0 &&
	kns ip link set vk1 master br0 && kns ip link set br0 up; }; then
	fail "namespaces $K and $U, veths, bridge br0"
	finish
fi
pass "namespaces $K and $U, br0 over vk0 and vk1"

run_uetemu "$U" "$ROOT/tests/lab/badframes.yaml" "$WORK/out"
wait_running && pass "uetemu running" || fail "uetemu did not start"
# the messages run from about 1 s to 3.6 s of wall time; the bad frames go out over about half a second of it
if kns "$PY" "$ROOT/tests/lab/send_bad_frames.py" vk0 "$WORK/want.json" >"$WORK/scapy.log" 2>&1; then
	pass "send_bad_frames.py: $(tail -n 1 "$WORK/scapy.log")"
else
	fail "send_bad_frames.py"
	sed 's/^/  scapy: /' "$WORK/scapy.log"
fi
check "uetemu still running once every bad frame is sent" 'kill -0 "$UPID" 2>/dev/null'
wait_uetemu
check_messages

[ -s "$WORK/want.json" ] || { fail "send_bad_frames.py wrote no counts"; finish; }
got=$(summary_py "want = json.load(open('$WORK/want.json'))
p = ports[0]
have = dict(p['rx_drops'])
have['refused'] = sum(v for k, v in p['rx_drops'].items() if k in s['port_rx_refused'])
have['icmp_echo_answered'] = p['stack']['icmp_echo_answered']
host0 = [h for h in s['hosts'] if h['name'] == 'host0'][0]
have['late_no_pdc'] = host0['counters']['late_no_pdc']
for k in sorted(want):
    # at least: a frame cut by the port is counted under one of the decoders' reasons (the total is exact), and
    # a late ACK of the traffic adds to late_no_pdc
    at_least = k == 'late_no_pdc' or (k in s['port_rx_refused'] and k != 'refused')
    ok = have.get(k, 0) >= want[k] if at_least else have.get(k, 0) == want[k]
    print('%s:%d/%d:%s' % (k, have.get(k, 0), want[k], 'ok' if ok else 'BAD'))")
for kv in $got; do
	IFS=: read -r k counts verdict <<<"$kv"
	check "port of host0: $k counted $counts (counted/sent)" '[ "$verdict" = ok ]'
done
[ -n "$got" ] || fail "no counts: $(cat "$WORK/want.json" 2>&1)"
check_accounted
finish
