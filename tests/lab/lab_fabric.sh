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
# (ECT(0) data queued behind the 10x slower spine link: frames arrive CE-marked, counted by tcpdump in fabb);
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
          for k in ('udp', 'roce', 'uet', 'other_ipv4', 'non_ipv4')), sum(s['port_rx_refused'].values()),
          s['counters'].get('raw_pool_full', 0) if isinstance(s.get('counters'), dict) else 0)")
check "no frame of another class, none refused, no raw buffer short ($other)" '[ "$other" = "0 0 0" ]'
marks=$(summary_py "print(s['counters']['ecn_marks'])")
check "the switches marked at least the CE frames $NB saw ($marks marks, $CE_ecn seen)" \
	'[ "${marks:-0}" -ge "$CE_ecn" ] && [ "$CE_ecn" -gt 0 ]'
finish
