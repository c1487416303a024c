#!/usr/bin/env bash
# Two real devices across an emulated fabric (docs/realtime.md, "Real devices across the fabric"): uetemu runs a
# leaf-spine (tests/lab/fabric.yaml) whose host1 and host3 are external, their switch ports leaf0:1 and leaf1:1
# bound to veths. The other ends are two namespaces with host1's and host3's addresses and MACs: their kernels
# resolve each other by ARP, ping and run iperf3 TCP across leaf0 - spine0 - leaf1, uetemu's switches routing
# their frames by IPv4 address.
#
# Usage: tests/lab/lab_fabric.sh UETEMU REPO_ROOT     (as root; needs iperf3 and tcpdump; LAB_KEEP=1 keeps files)
#
#   namespace fabu<pid>: uetemu  leaf0:1 -- fua ==== fa (10.0.0.2) namespace faba<pid>
#                                leaf1:1 -- fub ==== fb (10.0.0.4) namespace fabb<pid>
#
# Checks: ARP resolves across the fabric (no static neighbours); ping gets its replies; two iperf3 TCP runs
# transfer bytes, the first with tcp_ecn off (no ECT: not a frame arrives CE-marked), the second with tcp_ecn on
# (ECT(0) data queued behind the 10x slower spine link: frames arrive CE-marked, counted by tcpdump in fabb); a
# burst of 3,000 UET data frames (UDP 4793, DSCP 8 TRIMMABLE) from faba: past the cap they arrive in fabb trimmed
# (IP total length 44, UDP length 24, DSCP 16 or 18), every other one whole, and links[] count the trims; 20
# RoCEv2 frames of 4 BTH opcodes cross intact, counted as roce in rx_class and tx_class;
# summary.json's per-class counters of both switch ports equal what the namespaces' kernels sent and received
# (ICMP exactly, TCP segments by /proc/net/snmp), every frame a known class, no raw buffer short, and leaf0 marked.
set -u
LAB_NAME=lab_fabric
. "$(dirname "${BASH_SOURCE[0]}")/lablib.sh"
lab_init "$@"
lab_need iperf3 tcpdump ping ethtool
NU=fabu$$ NA=faba$$ NB=fabb$$
T=${LAB_STEP_TIMEOUT:-30}

if ! { ns_add "$NU" && ns_add "$NA" && ns_add "$NB" && veth "$NU" fua "$NA" fa && veth "$NU" fub "$NB" fb; }; then
	fail "namespaces $NU, $NA, $NB and veths fua-fa, fub-fb"
	finish
fi
# The devices: host1's and host3's addresses and MACs (the switches address their frames to the hosts' mac:), MTU
# 1500, and no checksum or segmentation offload: a veth's kernel leaves TCP checksums partial for the device to
# complete, and uetemu forwards a real device's frames byte for byte (one TCP segment a frame, checksummed).
setup_dev() { # NS IF MAC IP
	ip netns exec "$1" ip link set "$2" address "$3" mtu 1500 && ip netns exec "$1" ip addr add "$4/24" dev "$2" &&
		ip netns exec "$1" ethtool -K "$2" tx off tso off gso off gro off >/dev/null
}
if ! { setup_dev "$NA" fa 02:00:00:00:00:02 10.0.0.2 && setup_dev "$NB" fb 02:00:00:00:00:04 10.0.0.4; }; then
	fail "addresses, MACs, MTU and offloads of fa and fb"
	finish
fi
pass "namespaces $NU (uetemu), $NA (10.0.0.2), $NB (10.0.0.4)"

LAB_TIMEOUT=${LAB_TIMEOUT:-120} run_uetemu "$NU" "$ROOT/tests/lab/fabric.yaml" "$WORK/out"
if ! wait_running; then
	fail "uetemu's poll loop running"
	tail -n 20 "$WORK/uetemu.log" | sed 's/^/  uetemu: /'
	finish
fi
snmp() { # NS FIELD: a Tcp counter of /proc/net/snmp in namespace NS
	ip netns exec "$1" awk -v f="$2" '/^Tcp:/ { if (!n) { for (i = 1; i <= NF; i++) k[i] = $i; n = 1 }
		else for (i = 1; i <= NF; i++) if (k[i] == f) print $i }' /proc/net/snmp
}

# ARP and ICMP: nothing is resolved yet; ping's first request sends the ARP request across the fabric
out=$(ip netns exec "$NA" timeout "$T" ping -c 5 -i 0.2 -W 2 10.0.0.4 2>&1)
got=$(echo "$out" | sed -n 's/.* \([0-9]*\) received.*/\1/p')
check "ping 10.0.0.2 -> 10.0.0.4 across the fabric: 5 of 5 replies (${got:-none})" '[ "${got:-0}" = 5 ]'
nb=$(ip netns exec "$NA" ip neigh show 10.0.0.4 dev fa)
check "ARP resolved across the fabric: $NA knows 10.0.0.4 at 02:00:00:00:00:04 ($nb)" \
	'echo "$nb" | grep -q "lladdr 02:00:00:00:00:04"'

# TCP without ECT, then with: tcpdump in fabb counts CE-marked TCP frames from 10.0.0.2
iperf_run() { # TAG ECN: tcpdump in NB, an iperf3 client in NA for 2 s; sets BYTES_<TAG> and CE_<TAG>
	local tag=$1 bytes ce tp
	for ns in "$NA" "$NB"; do ip netns exec "$ns" sysctl -qw net.ipv4.tcp_ecn="$2"; done
	ip netns exec "$NB" timeout "$((2 * T))" tcpdump -i fb -nn -U -w "$WORK/$tag.pcap" \
		'tcp and src host 10.0.0.2' >"$WORK/tcpdump-$tag.log" 2>&1 &
	tp=$!
	PIDS+=("$tp")
	wait_log "$WORK/tcpdump-$tag.log" "listening on" "$tp" 100
	ip netns exec "$NB" timeout "$((4 * T))" iperf3 -s -1 -p 5202 >"$WORK/iperf3-s-$tag.log" 2>&1 &
	PIDS+=($!)
	sleep 0.5
	ip netns exec "$NA" timeout "$T" iperf3 -c 10.0.0.4 -p 5202 -t 2 -J >"$WORK/iperf3-$tag.json" 2>"$WORK/iperf3-$tag.err"
	sleep 1
	stop_pid "$tp"
	bytes=$(python3 -c "import json, sys
print(json.load(open(sys.argv[1]))['end']['sum_received']['bytes'])" "$WORK/iperf3-$tag.json" 2>/dev/null)
	ce=$(tcpdump -nn -r "$WORK/$tag.pcap" 'ip[1] & 3 = 3' 2>/dev/null | wc -l)
	ect=$(tcpdump -nn -r "$WORK/$tag.pcap" 'ip[1] & 3 != 0' 2>/dev/null | wc -l)
	eval "BYTES_$tag=\${bytes:-0} CE_$tag=\$ce ECT_$tag=\$ect"
}
iperf_run plain 0
iperf_run ecn 1
check "iperf3 TCP without ECN: $BYTES_plain B received" '[ "$BYTES_plain" -gt 0 ]'
check "without ECT no frame arrives CE-marked or ECT ($CE_plain CE, $ECT_plain ECN-capable)" \
	'[ "$CE_plain" -eq 0 ] && [ "$ECT_plain" -eq 0 ]'
check "iperf3 TCP with tcp_ecn=1: $BYTES_ecn B received" '[ "$BYTES_ecn" -gt 0 ]'
check "with ECT(0) behind the slow spine link, frames arrive CE-marked ($CE_ecn of $ECT_ecn ECN-capable)" \
	'[ "$CE_ecn" -gt 0 ]'
# UET across the fabric: a burst of UET data frames (UDP 4793, DSCP 8 = TRIMMABLE) faster than the slow spine
# link; past leaf0's spine-port cap the switch trims them (58 B frames, IP total length 44, DSCP 16 or 18)
ip netns exec "$NB" timeout "$((2 * T))" tcpdump -i fb -nn -U -w "$WORK/uet.pcap" 'udp dst port 4793' \
	>"$WORK/tcpdump-uet.log" 2>&1 &
tp=$!
PIDS+=("$tp")
wait_log "$WORK/tcpdump-uet.log" "listening on" "$tp" 100
ip netns exec "$NB" timeout "$((2 * T))" python3 -c "import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(('10.0.0.4', 4793))
print('bound', flush=True)
while True:
    s.recv(2048)" >"$WORK/recv-uet.log" 2>&1 & # a receiver, so $NB's kernel sends no ICMP port unreachable
PIDS+=($!)
UR=$!
wait_log "$WORK/recv-uet.log" "bound" "$UR" 100 # bound before the first frame, or that frame draws an ICMP
UET_SENT=3000
ip netns exec "$NA" timeout "$T" python3 -c "import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, 8 << 2)
pds = bytes([0x02 << 3, 0x00, 0x00, 0x00]) + bytes(12)  # PDS type RUD_REQ, then PSN, SPDCID, DPDCID fields zero
for i in range(int(sys.argv[1])):
    s.sendto(pds + bytes(1372), ('10.0.0.4', 4793))" "$UET_SENT" >"$WORK/uet-send.log" 2>&1
sleep 2
stop_pid "$tp"
stop_pid "$UR"
UET_ALL=$(tcpdump -nn -r "$WORK/uet.pcap" 2>/dev/null | wc -l)
UET_TRIM=$(tcpdump -nn -r "$WORK/uet.pcap" 'ip[2:2] = 44 and udp[4:2] = 24 and (ip[1] >> 2 = 16 or ip[1] >> 2 = 18)' \
	2>/dev/null | wc -l)
UET_BAD=$(tcpdump -nn -r "$WORK/uet.pcap" 'ip[2:2] != 44 and ip[2:2] != 1416' 2>/dev/null | wc -l)
check "UET burst across the fabric: trimmed frames arrive in $NB (IP length 44, UDP 24, DSCP 16/18: $UET_TRIM of $UET_ALL received, $UET_SENT sent)" \
	'[ "$UET_TRIM" -gt 0 ] && [ "$UET_ALL" -gt "$UET_TRIM" ]'
check "every UET frame arrives whole or trimmed to 44 B ($UET_BAD others)" '[ "$UET_BAD" -eq 0 ]'
# RoCEv2 across the fabric: 5 frames of each of 4 BTH opcodes (SEND only, RDMA WRITE only, RDMA READ request,
# ACK) to UDP 4791, slow enough not to queue: all arrive intact (same UDP length), counted as roce on both ports
ip netns exec "$NB" timeout "$((2 * T))" tcpdump -i fb -nn -U -w "$WORK/roce.pcap" 'udp dst port 4791' \
	>"$WORK/tcpdump-roce.log" 2>&1 &
tp=$!
PIDS+=("$tp")
wait_log "$WORK/tcpdump-roce.log" "listening on" "$tp" 100
ip netns exec "$NB" timeout "$((2 * T))" python3 -c "import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(('10.0.0.4', 4791))
print('bound', flush=True)
while True:
    s.recv(2048)" >"$WORK/recv-roce.log" 2>&1 &
PIDS+=($!)
UR=$!
wait_log "$WORK/recv-roce.log" "bound" "$UR" 100
ROCE_SENT=20
ip netns exec "$NA" timeout "$T" python3 -c "import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for op in (0x04, 0x0a, 0x0c, 0x11):  # RC SEND only, RDMA WRITE only, RDMA READ request, ACKNOWLEDGE
    for i in range(5):
        bth = bytes([op, 0x40, 0xff, 0xff, 0, 0, 0, 0x11, 0x80, 0, 0, i])
        s.sendto(bth + bytes(64) + bytes(4), ('10.0.0.4', 4791))
        time.sleep(0.01)" >"$WORK/roce-send.log" 2>&1
sleep 1
stop_pid "$tp"
stop_pid "$UR"
ROCE_OK=$(tcpdump -nn -r "$WORK/roce.pcap" 'udp[4:2] = 88' 2>/dev/null | wc -l)
check "RoCEv2 across the fabric: $ROCE_OK of $ROCE_SENT frames (4 BTH opcodes) arrive intact" '[ "$ROCE_OK" -eq "$ROCE_SENT" ]'
ao=$(( $(snmp "$NA" OutSegs) + $(snmp "$NA" RetransSegs) )) bo=$(( $(snmp "$NB" OutSegs) + $(snmp "$NB" RetransSegs) ))
bi=$(snmp "$NB" InSegs) ai=$(snmp "$NA" InSegs)

stop_pid "$UPID"
wait "$UPID" 2>/dev/null
[ -r "$WORK/out/summary.json" ] || { fail "no summary.json"; finish; }
pass "uetemu stopped, summary.json written"
cls=$(summary_py "a, b = s['ports'][0], s['ports'][1]
print(a['switch_port'], b['switch_port'], a['rx_class']['icmp'], a['tx_class']['icmp'], b['rx_class']['icmp'],
      b['tx_class']['icmp'])")
check "ICMP counted by class: leaf0:1 in 5 out 5, leaf1:1 in 5 out 5 ($cls)" '[ "$cls" = "leaf0:1 leaf1:1 5 5 5 5" ]'
arp=$(summary_py "a, b = s['ports'][0], s['ports'][1]
print(min(a['rx_class']['arp'], a['tx_class']['arp'], b['rx_class']['arp'], b['tx_class']['arp']) > 0)")
check "ARP crossed both ways, counted on both ports ($arp)" '[ "$arp" = True ]'
tcp=$(summary_py "a, b = s['ports'][0], s['ports'][1]
print(a['rx_class']['tcp'], b['rx_class']['tcp'], b['tx_class']['tcp'], a['tx_class']['tcp'])")
check "TCP counted by class = the kernels' segments: in at leaf0:1 = $NA sent, in at leaf1:1 = $NB sent, out at leaf1:1 = $NB received, out at leaf0:1 = $NA received ($tcp vs $ao $bo $bi $ai)" \
	'[ "$tcp" = "$ao $bo $bi $ai" ]'
other=$(summary_py "print(sum(p['rx_class'][k] + p['tx_class'][k] for p in s['ports']
          for k in ('udp', 'other_ipv4', 'non_ipv4')), sum(s['port_rx_refused'].values()),
          s['counters'].get('raw_pool_full', 0) if isinstance(s.get('counters'), dict) else 0)")
check "no frame of another class, none refused, no raw buffer short ($other)" '[ "$other" = "0 0 0" ]'
roce=$(summary_py "a, b = s['ports'][0], s['ports'][1]
print(a['rx_class']['roce'], b['tx_class']['roce'], b['rx_class']['roce'], a['tx_class']['roce'])")
check "RoCEv2 counted by class: in at leaf0:1 $ROCE_SENT, out at leaf1:1 $ROCE_SENT, none back ($roce)" \
	'[ "$roce" = "$ROCE_SENT $ROCE_SENT 0 0" ]'
uet=$(summary_py "a, b = s['ports'][0], s['ports'][1]
print(a['rx_class']['uet'] >= b['tx_class']['uet'] >= $UET_ALL > 0)")
check "UET counted by class: in at leaf0:1 >= out at leaf1:1 >= received in $NB ($uet)" '[ "$uet" = True ]'
trims=$(summary_py "print(sum(l[d]['trims'] for l in s['links'] for d in ('ab', 'ba')))")
check "the switches' ports counted the trims $NB saw (links[] trims: $trims, $UET_TRIM seen)" \
	'[ "${trims:-0}" -ge "$UET_TRIM" ] && [ "$UET_TRIM" -gt 0 ]'
marks=$(summary_py "print(s['counters']['ecn_marks'])")
check "the switches marked at least the CE frames $NB saw ($marks marks, $CE_ecn seen)" \
	'[ "${marks:-0}" -ge "$CE_ecn" ] && [ "$CE_ecn" -gt 0 ]'
# Zero-copy forwarding: the frames from one namespace to the other crossed in their received mbufs, and each went
# back once (sent on, freed with a drop, or at the end): the ports' count of kept mbufs is what the fabric gave back.
zc=$(grep -o 'zero-copy forwarding: [0-9]* frames.*outstanding' "$WORK/uetemu.log")
check "frames forwarded in their received mbufs, none outstanding at the end ($zc)" \
	'[ -n "$zc" ] && [ "$(echo "$zc" | awk "{print \$3}")" -gt 0 ] && echo "$zc" | grep -q "; 0 outstanding"'
finish
