#!/usr/bin/env bash
# The Linux kernel as the fabric in the loop (issue 15): emulated hosts of two racks on veth ports, two Linux
# namespaces routing between them over two equal-cost paths (fib_multipath_hash_policy=1: the UDP source port,
# UET's entropy, picks the path), an HTB bottleneck with uetemu's CE marker on its egress. The same run twice,
# NSCC on and NSCC off; the figures of both printed as a table.
#
# Usage: tests/lab/lab_kloop.sh UETEMU REPO_ROOT [UETEMU_ECN]   (as root; LAB_KEEP=1 keeps the work directory)
#
#   uetu<pid> (uetemu)              uetka<pid> (router A)              uetkb<pid> (router B)
#   host0 10.1.0.1 \                               p1a 10.9.1.1 ===== p1b 10.9.1.2
#   host1 10.1.0.2 / vu0 ====== vr0 10.1.0.254                                       vr1 10.2.0.254 ====== vu1 \ host2 10.2.0.1
#                                                  p2a 10.9.2.1 ===== p2b 10.9.2.2   HTB 50 Mbit/s,           / host3 10.2.0.2
#                                                                                    pfifo 30 frames,
#   each router: 10.x/24 of the far rack via both p1 and p2             CE marker on its egress (uetemu-ecn)
#
# Asserted (robust facts only), in the NSCC run: uetemu exits 0 and every message completes; both paths carry
# frames both ways (the routers' interface counters, as `ip -s link` shows them); the marker marked packets CE; the
# receivers got CE-marked data and the senders got ECN echoes (M flag) back; the senders' congestion windows fell
# below their maximum (uet-transport-stats records); every HTB tail drop was recovered (retransmissions, all
# messages complete). Printed, not asserted: the same figures with NSCC off (more drops or more queueing), FCTs,
# queue maxima. Exit 0, 1, or 77 when not root or without tc or the CE marker.
#
# KLOOP_MODE=trim (the lab-ktrim test; the third argument is then uetemu-trim): the trimmer instead of the CE
# marker on the bottleneck, both runs with nic.TransportProcessingLayers.ScalaUETPdsManager.TrimmingEnabled (the
# senders mark data DSCP_TRIMMABLE). Asserted in the NSCC run: the trimmer trimmed packets; rack B received trimmed
# requests, at most as many as were trimmed, and NACKed every one; rack A received every NACK and retransmitted at
# least once per NACK; every message completes.
set -u
KLOOP_MODE=${KLOOP_MODE:-ecn}
LAB_NAME=lab_kloop
[ "$KLOOP_MODE" = trim ] && LAB_NAME=lab_ktrim
. "$(dirname "${BASH_SOURCE[0]}")/lablib.sh"
lab_init "$@"
TOOL=uetemu-ecn
[ "$KLOOP_MODE" = trim ] && TOOL=uetemu-trim
ECN=$(realpath -m "${3:-${UETEMU_ECN:-$(dirname "$UETEMU")/bpf/$TOOL}}")
[ -x "$ECN" ] || { echo "SKIP: $LAB_NAME needs $TOOL (libbpf and clang at build time): $ECN"; exit 77; }
MODE_SET=()
[ "$KLOOP_MODE" = trim ] && MODE_SET=(--set nic.TransportProcessingLayers.ScalaUETPdsManager.TrimmingEnabled=true)
lab_need tc
U=uetu$$ A=uetka$$ B=uetkb$$
[ "$KLOOP_MODE" = trim ] && U=uettu$$ A=uetta$$ B=uettb$$
ans() { ip netns exec "$A" "$@"; }
bns() { ip netns exec "$B" "$@"; }
HTB_RATE=${KLOOP_RATE:-50mbit}
MARK_RATE=${KLOOP_MARK_RATE:-45mbit}
QLIMIT=${KLOOP_QLIMIT:-30}
FIFO=(pfifo limit "$QLIMIT")
# A trimming switch's queue is counted in bytes (a trimmed header takes the room of its 58 B, not a data frame's):
# a bfifo of QLIMIT data frames' bytes (30 x 1,126 B), so the trimmed headers that follow a trim find room.
[ "$KLOOP_MODE" = trim ] && FIFO=(bfifo limit $((QLIMIT * 1126)))

router() { # NS: forwarding, ECMP on the L4 hash (the UDP source port), no reverse-path filter (paths differ)
	ip netns exec "$1" sysctl -qw net.ipv4.ip_forward=1 net.ipv4.fib_multipath_hash_policy=1 \
		net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0
}
if ! { ns_add "$U" && ns_add "$A" && ns_add "$B" && router "$A" && router "$B" &&
	veth "$U" vu0 "$A" vr0 && veth "$U" vu1 "$B" vr1 && veth "$A" p1a "$B" p1b && veth "$A" p2a "$B" p2b &&
	ans ip addr add 10.1.0.254/24 dev vr0 && bns ip addr add 10.2.0.254/24 dev vr1 &&
	ans ip addr add 10.9.1.1/30 dev p1a && bns ip addr add 10.9.1.2/30 dev p1b &&
	ans ip addr add 10.9.2.1/30 dev p2a && bns ip addr add 10.9.2.2/30 dev p2b &&
	ans ip route add 10.2.0.0/24 nexthop via 10.9.1.2 dev p1a nexthop via 10.9.2.2 dev p2a &&
	bns ip route add 10.1.0.0/24 nexthop via 10.9.1.1 dev p1b nexthop via 10.9.2.1 dev p2b; }; then
	fail "namespaces $U, $A, $B, veths, multipath routes"
	finish
fi
pass "routers $A and $B: two equal-cost paths (p1, p2), fib_multipath_hash_policy=1"

# The bottleneck, made afresh for each run (its counters start at 0): HTB at HTB_RATE on B's egress to rack B, a
# pfifo of QLIMIT frames under it (the kernel's tail drop), and the CE marker's virtual queue just below that rate
# (or the trimmer's: it trims what would take its queue above 20 KB, before the pfifo's 30 frames, 33 KB, fill).
attach_tool() {
	if [ "$KLOOP_MODE" = trim ]; then
		bns "$ECN" attach vr1 --rate "$MARK_RATE" --min 20KB >/dev/null
	else
		bns "$ECN" attach vr1 --rate "$MARK_RATE" --min 10KB --max 30KB >/dev/null
	fi
}
bottleneck() {
	bns tc qdisc del dev vr1 root 2>/dev/null
	bns tc qdisc add dev vr1 root handle 1: htb default 10 r2q 100 &&
		bns tc class add dev vr1 parent 1: classid 1:10 htb rate "$HTB_RATE" ceil "$HTB_RATE" &&
		bns tc qdisc add dev vr1 parent 1:10 handle 10: "${FIFO[@]}" &&
		attach_tool && bns "$ECN" stats vr1 --reset >/dev/null
}

# The pfifo's backlog, sampled every 50 ms into FILE: its maximum in frames.
sample_backlog() {
	local max=0 p
	while :; do
		p=$(bns tc -s qdisc show dev vr1 2>/dev/null | awk '/^qdisc [pb]fifo/ {f = 1} f && /backlog/ {
			sub("p", "", $3); print $3; exit }')
		if [ "${p:-0}" -gt "$max" ]; then max=$p; echo "$max" >"$1"; fi
		sleep 0.05
	done
}

# tx_packets of each path's two ends: A->B on p1a, p2a; B->A on p1b, p2b.
path_counts() {
	echo "$(ans cat /sys/class/net/p1a/statistics/tx_packets) $(ans cat /sys/class/net/p2a/statistics/tx_packets)" \
		"$(bns cat /sys/class/net/p1b/statistics/tx_packets) $(bns cat /sys/class/net/p2b/statistics/tx_packets)"
}

# run_case LABEL [uetemu run options]: one run; its outputs in $WORK/LABEL/, its figures in $WORK/LABEL.fig.
run_case() {
	local label=$1 before after spid
	shift
	bottleneck || { fail "$label: HTB and CE marker on $B's vr1"; return 1; }
	echo 0 >"$WORK/$label.backlog"
	sample_backlog "$WORK/$label.backlog" &
	spid=$!
	PIDS+=("$spid")
	before=$(path_counts)
	run_uetemu "$U" "$ROOT/tests/lab/kloop.yaml" "$WORK/out" "${MODE_SET[@]}" "$@"
	wait_running || fail "$label: uetemu did not start"
	wait_uetemu
	after=$(path_counts)
	stop_pid "$spid"
	{
		echo "paths $before $after"
		echo "backlog_max $(cat "$WORK/$label.backlog")"
		echo "htb $(bns tc -s qdisc show dev vr1 | awk '/^qdisc [pb]fifo/ {f = 1} f && /dropped/ {
			gsub("[(,]", ""); print $4, $7, $9; exit }')"
		echo "marker $(bns "$ECN" stats vr1 --json)"
	} >"$WORK/$label.fig"
	echo "  $label: ip -s link on $A's p1a (path 1, towards rack B):"
	ans ip -s link show dev p1a | sed -n '3,4p' | sed 's/^/    /'
	mv "$WORK/out" "$WORK/$label"
	mv "$WORK/uetemu.log" "$WORK/$label.log"
}

run_case nscc_on
run_case nscc_off --set nic.TransportProcessingLayers.ScalaUETCongestionControl.NSCCEnable=false
bns "$ECN" detach vr1 >/dev/null 2>&1

# The figures of both runs, and the facts asserted about the NSCC run.
python3 - "$WORK" "$KLOOP_MODE" >"$WORK/verdict" <<'PY'
import csv, json, sys
work, mode = sys.argv[1], sys.argv[2]

def case(label):
    s = json.load(open(f'{work}/{label}/summary.json'))
    fig = {}
    for line in open(f'{work}/{label}.fig'):
        k, _, v = line.strip().partition(' ')
        fig[k] = v
    p = [int(x) for x in fig['paths'].split()]
    paths = [p[4 + i] - p[i] for i in range(4)]
    sent, dropped, overlimits = (int(x) for x in fig['htb'].split())
    marker = json.loads(fig['marker'])
    hosts = {h['name']: h for h in s['hosts']}
    c = lambda names, k: sum(hosts[n]['counters'][k] for n in names)
    rows = list(csv.DictReader(open(f'{work}/{label}/kloop-uet-transport-stats-0.csv')))
    cw = {}
    for n in ('host0', 'host1'):
        mine = [r for r in rows if r['component_name'] == n]
        top = max(float(r['ivl_calc_max_cwnd_bytes']) for r in mine)
        low = float(mine[-1]['calc_min_cwnd_bytes'])
        cw[n] = (low, top)
    m = s['messages']
    return {
        'completed': m['completed'], 'posted': m['posted'], 'fct_p50': m['fct_us']['p50'],
        'fct_max': m['fct_us']['max'], 'paths': paths, 'htb_sent': sent, 'htb_dropped': dropped,
        'backlog_max': int(fig['backlog_max']), 'marked': marker['counters'].get('marked', 0),
        'ce_rcvd': c(('host2', 'host3'), 'ecn_ce_rcvd'), 'echo_sent': c(('host2', 'host3'), 'm_marked_pkts_sent'),
        'echo_rcvd': c(('host0', 'host1'), 'm_marked_pkts_rcvd'), 'rtx': c(('host0', 'host1'), 'num_rtx'),
        'rto': c(('host0', 'host1'), 'num_rto'), 'cwnd': cw,
        'data': c(('host0', 'host1'), 'write_pkts_sent'),
        'trimmed': marker['counters'].get('trimmed', 0), 'trims_rcvd': c(('host2', 'host3'), 'trims_rcvd'),
        'nack_sent': c(('host2', 'host3'), 'nack_pkts_sent'), 'nack_rcvd': c(('host0', 'host1'), 'nack_pkts_rcvd'),
    }

on, off = case('nscc_on'), case('nscc_off')
rows = [
    ('messages completed / posted', lambda r: f"{r['completed']} / {r['posted']}"),
    ('FCT p50 / max (us, emulated)', lambda r: f"{r['fct_p50']:.0f} / {r['fct_max']:.0f}"),
    ('data packets sent (rack A)', lambda r: r['data']),
    ('path 1 frames A->B / B->A', lambda r: f"{r['paths'][0]} / {r['paths'][2]}"),
    ('path 2 frames A->B / B->A', lambda r: f"{r['paths'][1]} / {r['paths'][3]}"),
] + ([
    ('packets trimmed by the trimmer', lambda r: r['trimmed']),
    ('trimmed requests received (rack B)', lambda r: r['trims_rcvd']),
    ('NACKs sent (rack B) / received (rack A)', lambda r: f"{r['nack_sent']} / {r['nack_rcvd']}"),
] if mode == 'trim' else [
    ('CE marked by the marker', lambda r: r['marked']),
    ('CE data received (rack B)', lambda r: r['ce_rcvd']),
    ('ECN echoes sent / received', lambda r: f"{r['echo_sent']} / {r['echo_rcvd']}"),
]) + [
    ('cwnd min / max host0 (B)', lambda r: '%d / %d' % r['cwnd']['host0']),
    ('cwnd min / max host1 (B)', lambda r: '%d / %d' % r['cwnd']['host1']),
    ('HTB frames sent / tail drops', lambda r: f"{r['htb_sent']} / {r['htb_dropped']}"),
    ('HTB backlog max (frames, 50 ms samples)', lambda r: r['backlog_max']),
    ('retransmissions / timeouts (rack A)', lambda r: f"{r['rtx']} / {r['rto']}"),
]
print('| %-42s | %-16s | %-16s |' % ('', 'NSCC on', 'NSCC off'))
print('|%s|%s|%s|' % ('-' * 44, '-' * 18, '-' * 18))
for name, f in rows:
    print('| %-42s | %-16s | %-16s |' % (name, f(on), f(off)))
r = on
def ok(cond, text):
    print(('PASS: ' if cond else 'FAIL: ') + 'NSCC on: ' + text)
ok(r['posted'] > 0 and r['completed'] == r['posted'], f"messages complete ({r['completed']} of {r['posted']})")
ok(min(r['paths'][:2]) > 0 and min(r['paths'][2:]) > 0,
   'both paths carry frames both ways (A->B %d, %d; B->A %d, %d)' % tuple(r['paths']))
if mode == 'trim':
    ok(r['trimmed'] > 0, f"the trimmer trimmed {r['trimmed']} packets")
    ok(0 < r['trims_rcvd'] <= r['trimmed'],
       f"rack B received trimmed requests ({r['trims_rcvd']}), no more than were trimmed ({r['trimmed']})")
    ok(r['nack_sent'] == r['trims_rcvd'], f"rack B NACKed every one ({r['nack_sent']} NACKs)")
    ok(r['nack_rcvd'] == r['nack_sent'], f"rack A received every NACK ({r['nack_rcvd']})")
    ok(r['rtx'] >= r['nack_rcvd'],
       f"rack A retransmitted at least once per NACK ({r['rtx']} retransmissions, {r['rto']} timeouts)")
else:
    ok(r['marked'] > 0, f"the CE marker marked {r['marked']} packets")
    ok(r['ce_rcvd'] > 0 and r['echo_rcvd'] > 0,
       f"CE-marked data received ({r['ce_rcvd']}), ECN echoes back at the senders ({r['echo_rcvd']})")
ok(all(low < top for low, top in r['cwnd'].values()),
   'the senders\' windows fell below their maximum (%s)' % ', '.join(
       '%s %d < %d' % (n, low, top) for n, (low, top) in r['cwnd'].items()))
ok(r['htb_dropped'] == 0 or (r['rtx'] > 0 and r['completed'] == r['posted']),
   f"tail drops recovered ({r['htb_dropped']} dropped, {r['rtx']} retransmitted, all messages complete)")
if off['htb_dropped'] > on['htb_dropped'] or off['backlog_max'] > on['backlog_max']:
    print('NSCC off: more drops or more queueing (drops %d vs %d, backlog max %d vs %d frames)' % (
        off['htb_dropped'], on['htb_dropped'], off['backlog_max'], on['backlog_max']))
else:
    print('NSCC off: no more drops nor queueing than NSCC on in this run (drops %d vs %d, backlog max %d vs %d)' % (
        off['htb_dropped'], on['htb_dropped'], off['backlog_max'], on['backlog_max']))
PY
grep -v '^PASS: \|^FAIL: ' "$WORK/verdict"
while read -r line; do
	case "$line" in
	PASS:*) pass "${line#PASS: }" ;;
	FAIL:*) fail "${line#FAIL: }" ;;
	esac
done <"$WORK/verdict"
[ -s "$WORK/verdict" ] || fail "the figures could not be read (see $WORK)"
finish
