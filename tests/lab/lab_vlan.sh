#!/usr/bin/env bash
# VLAN and PCP on real ports, and PFC per priority (issue 12): emulated hosts on ports with `vlan: 10` answer ARP
# and ping through the tag, send every UET frame tagged with PCP = its traffic class, count frames of other VLANs
# and untagged ones, and take untagged 802.1Qbb PFC frames, pausing only the priority they name.
#
# The far end of the VLAN is scapy on the bridge's port (tests/lab/vlan_ping.py): this machine's kernel is built
# without 802.1Q (CONFIG_VLAN_8021Q), so `ip link add link br0 name br0.10 type vlan id 10` fails here; with such
# a kernel, docs/lab.md gives the same check with a VLAN subinterface. A bridge without VLAN support still forwards
# tagged frames between its ports as it does any frame.
#
# Usage: tests/lab/lab_vlan.sh UETEMU REPO_ROOT     (as root; LAB_KEEP=1 keeps the work directory)
#
#   namespace uetk<pid> (the kernel side)                   namespace uetu<pid> (uetemu)
#     scapy on vs0 ==== vs1 --- br0 --- vk0 ================== vu0 net_af_packet0 vlan 10: host0 10.77.0.1
#     (VLAN 10 as 10.77.0.254)      --- vk1 ================== vu1 net_af_packet1 vlan 10: host1 10.77.0.2
#     scapy's PFC frames go out of vk0 itself: a pause is for the link, host0's port only
#
# Checks: a tagged ARP request to each host is answered, tagged, and 3 tagged echo requests get 3 tagged replies; an
# ARP request in VLAN 20 and an untagged one go unanswered, and the ports count them as vlan_other and
# vlan_untagged; on vk0
# (tshark) every frame of host0 carries VID 10, its data frames PCP 0 and its ACKs PCP 1 (the NIC's classes), its ARP
# and ICMP PCP 0; scapy's untagged PFC frames pausing priority 0 reach host0, whose records show priority 0 paused
# and priority 1 never, and on the wire host0 kept sending ACKs (priority 1) and no data (priority 0) while the
# pauses held (from 0.1 to 0.3 s after each was sent, by send_pfc.py's own times); the messages complete; every frame received is counted once. Exit 0, 1, or 77 when not root or without
# tshark or scapy.
set -u
LAB_NAME=lab_vlan
. "$(dirname "${BASH_SOURCE[0]}")/lablib.sh"
lab_init "$@"
lab_need tshark
PY=$(scapy_python)
[ -n "$PY" ] || { echo "SKIP: $LAB_NAME needs scapy"; exit 77; }
K=uetk$$ U=uetu$$
kns() { ip netns exec "$K" "$@"; }

if ! { ns_add "$K" && ns_add "$U" && veth "$U" vu0 "$K" vk0 && veth "$U" vu1 "$K" vk1 &&
	kns ip link add br0 type bridge stp_state 0 mcast_snooping 0 && kns ip link set vk0 master br0 &&
	kns ip link set vk1 master br0 && kns ip link set br0 up && veth "$K" vs0 "$K" vs1 &&
	kns ip link set vs1 master br0; }; then
	fail "namespaces $K and $U, veths, bridge br0"
	finish
fi
pass "br0 over vk0, vk1 and vs1; scapy on vs0, vs1's peer"
tshark_start "$K" "$WORK/tshark.log" -n -i vk0 -F pcap -w "$WORK/vk0.pcap" -a duration:60

run_uetemu "$U" "$ROOT/tests/lab/vlan.yaml" "$WORK/out"
T0=$(date +%s.%N)
if wait_running; then
	pass "uetemu running"
else
	fail "uetemu did not start"
	tail -n 20 "$WORK/uetemu.log" | sed 's/^/  uetemu: /'
	finish
fi

# PFC from 5.2 s into the run (the messages start at 5 s): 10 pauses of priority 0 on host0's port, 100 ms apart
kns "$PY" "$ROOT/tests/lab/send_pfc.py" vk0 0 10 0.1 "$(python3 -c "print($T0 + 5.2)")" >"$WORK/pfc.out" \
	2>"$WORK/pfc.log" &
PFC_PID=$!
PIDS+=("$PFC_PID")
# meanwhile, ARP and ping through the tag; ARP in another VLAN and untagged go unanswered
pings=()
for ip in 10.77.0.1 10.77.0.2; do
	kns "$PY" "$ROOT/tests/lab/vlan_ping.py" vs0 10 10.77.0.254 "$ip" 3 20 >"$WORK/vping-$ip" \
		2>"$WORK/vping-$ip.log" &
	pings+=($!)
	PIDS+=($!)
done
wait "${pings[@]}"
for h in "10.77.0.1 02:00:00:00:00:01" "10.77.0.2 02:00:00:00:00:02"; do
	read -r ip mac <<<"$h"
	read -r got apcp replies epcp other untag <"$WORK/vping-$ip"
	check "tagged ARP for $ip in VLAN 10: answered by ${got:-none} at PCP ${apcp:-?}" \
		'[ "${got:-}" = "$mac" ] && [ "$apcp" = 0 ]'
	check "tagged ping -c 3 $ip: ${replies:-0} tagged replies at PCP ${epcp:--}" \
		'[ "${replies:-0}" = 3 ] && [ "$epcp" = 0 ]'
	check "ARP for $ip in VLAN 20 and untagged: answered ${other:-?} and ${untag:-?} times" \
		'[ "${other:-1}" = 0 ] && [ "${untag:-1}" = 0 ]'
done
wait "$PFC_PID"
PFC_T=$(cat "$WORK/pfc.out")
check "scapy sent 10 PFC pauses of priority 0 and a resume on vk0 ($(awk '{printf "%s to %s, resume %s", $1, $(NF-1), $NF}' <<<"$PFC_T"))" \
	'[ "$(wc -w <<<"$PFC_T")" = 11 ]'

wait_uetemu
sleep 0.3
stop_pid "$TPID"
check_messages
check_accounted
drops=$(summary_py "print(' '.join('%d' % sum(p['rx_drops'].get(k, 0) for p in ports)
                                  for k in ('vlan_other', 'vlan_untagged')), ports[0]['vlan'], ports[1]['vlan'])")
read -r other untagged v0 v1 <<<"$drops"
check "ports in VLAN $v0 and $v1 counted frames of VLAN 20 ($other) and untagged ones ($untagged)" \
	'[ "$v0" = 10 ] && [ "$v1" = 10 ] && [ "${other:-0}" -ge 1 ] && [ "${untagged:-0}" -ge 1 ]'

# on the wire: host0's frames, by kind, with their tags
tshark -n -r "$WORK/vk0.pcap" -Y "eth.src == 02:00:00:00:00:01" -T fields -e frame.time_epoch -e vlan.id \
	-e vlan.priority -e frame.len -e udp.dstport -e arp.opcode -e icmp.type >"$WORK/host0.tsv" 2>/dev/null
python3 - "$WORK/host0.tsv" "$PFC_T" >"$WORK/wire" <<'PY'
import sys
rows = [l.rstrip('\n').split('\t') for l in open(sys.argv[1]) if l.strip()]
# Each pause (65,535 quanta at 1 Gb/s: 33.55 ms emulated, 335 ms of wall time at TimeScale 10) holds priority 0
# from when host0 takes it until it ends. The frames counted are those inside a window every pause sent is sure to
# cover: 0.1 s after it was sent (frames already on their way, a late poll) to 0.3 s after, or the resume that
# ends the last. scapy sends one every 0.1 s, but on a loaded machine it can be late by more than the 0.235 s the
# overlap allows: a gap between two pauses then lets data out, as it should, and is not counted (the windows are
# those of the pauses actually sent).
sent = [float(x) for x in sys.argv[2].split()]
sent, resume = sent[:-1], sent[-1] if sent else 0
cover = [(t + 0.1, min(t + 0.3, resume)) for t in sent]
kinds = {}
untagged = 0
for r in rows:
    t, vid, pcp, ln, dport, arp, icmp = (r + [''] * 7)[:7]
    if vid != '10':
        untagged += 1
        continue
    kind = 'data' if dport == '4793' and int(ln) > 1000 else 'ack' if dport == '4793' else \
        'arp' if arp else 'icmp' if icmp else 'other'
    kinds.setdefault(kind, set()).add(pcp)
win = [r for r in rows if r[4:5] == ['4793'] and any(a < float(r[0]) < b for a, b in cover)]
data_in = sum(1 for r in win if int(r[3]) > 1000)
acks_in = sum(1 for r in win if int(r[3]) <= 1000)
gaps = sum(1 for a, b in zip(sent, sent[1:]) if b - a > 0.3)
print(len(rows), untagged, ' '.join('%s=%s' % (k, ','.join(sorted(v))) for k, v in sorted(kinds.items())),
      data_in, acks_in, gaps)
PY
read -r n0 untag0 k1 k2 k3 k4 data_in acks_in gaps <<<"$(cat "$WORK/wire")"
check "on vk0, all $n0 frames of host0 carry VID 10 ($untag0 do not)" '[ "$n0" -gt 0 ] && [ "$untag0" = 0 ]'
check "PCP = traffic class: $k1 $k2 $k3 $k4" \
	'[ "$k1 $k2 $k3 $k4" = "ack=1 arp=0 data=0 icmp=0" ]'
check "during the pauses host0 sent $acks_in ACKs (priority 1) and $data_in data frames (priority 0; scapy late by more than the overlap ${gaps:-?} times)" \
	'[ "${acks_in:-0}" -gt 0 ] && [ "${data_in:-1}" = 0 ]'
pfc=$(python3 - "$WORK/out/vlan-ecn-pfc-stats-0.csv" <<'PY'
import csv, sys
last = {}
for r in csv.DictReader(open(sys.argv[1])):
    if r['component_name'] == 'host0':
        last[r['priority']] = r
get = lambda p, k: last[p][k] if p in last else '0'
print(get('0', 'pfcxoff_rx'), float(get('0', 'pfc_time_paused_usec')) > 0, get('1', 'pfcxoff_rx'),
      float(get('1', 'pfc_time_paused_usec')) > 0, get('0', 'pfc_time_paused_usec'))
PY
)
read -r x0 p0 x1 p1 us0 <<<"$pfc"
check "host0 records: priority 0 paused by $x0 pauses ($us0 us emulated), priority 1 by $x1 ($p1)" \
	'[ "$x0" = 10 ] && [ "$p0" = True ] && [ "$x1" = 0 ] && [ "$p1" = False ]'
finish
