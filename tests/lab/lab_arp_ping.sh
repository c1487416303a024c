#!/usr/bin/env bash
# ARP and ping: emulated hosts on veths bound with net_af_packet answer a kernel's ARP and ping, announce
# themselves, and resolve the kernel's MAC and each other's by ARP (no static entry anywhere).
#
# Usage: tests/lab/lab_arp_ping.sh UETEMU REPO_ROOT     (as root; LAB_KEEP=1 keeps the work directory)
#
#   namespace uetk<pid> (the kernel side)           namespace uetu<pid> (uetemu)
#     br0 10.88.0.254/24 --- vk0 ======== vu0  net_af_packet0: host0 10.88.0.1, host2 10.88.0.3 (one port)
#                        --- vk1 ======== vu1  net_af_packet1: host1 10.88.0.2
#
# Checks: ping -c 3 -W 1 gets 3 replies from each host; the kernel's neighbour table has each host's MAC, learnt
# by ARP; each host's announcement (gratuitous ARP) reached br0; each port resolved its gateway 10.88.0.254 by an
# ARP reply to br0's MAC; the messages between the hosts (through br0, and host0 to host2 on their shared port)
# complete; every frame received is counted once. Exit 0, 1, or 77 when not root.
set -u
LAB_NAME=lab_arp_ping
. "$(dirname "${BASH_SOURCE[0]}")/lablib.sh"
lab_init "$@"
lab_need tshark
K=uetk$$ U=uetu$$
kns() { ip netns exec "$K" "$@"; }

if ! { ns_add "$K" && ns_add "$U" && veth "$U" vu0 "$K" vk0 && veth "$U" vu1 "$K" vk1 &&
	kns ip link add br0 type bridge stp_state 0 mcast_snooping 0 && kns ip link set vk0 master br0 &&
	kns ip link set vk1 master br0 && kns ip addr add 10.88.0.254/24 dev br0 && kns ip link set br0 up; }; then
	fail "namespaces $K and $U, veths, bridge br0"
	finish
fi
pass "namespaces $K and $U, br0 10.88.0.254/24 over vk0 and vk1"
tshark_start "$K" "$WORK/tshark.log" -n -i br0 -f arp -F pcap -w "$WORK/arp.pcap" -a duration:40

run_uetemu "$U" "$ROOT/tests/lab/arp-ping.yaml" "$WORK/out"
if wait_running; then
	pass "uetemu running"
else
	fail "uetemu did not start"
	tail -n 20 "$WORK/uetemu.log" | sed 's/^/  uetemu: /'
	finish
fi

# ping the three hosts at once (the messages start 2.5 s into the run)
pings=()
for ip in 10.88.0.1 10.88.0.2 10.88.0.3; do
	ip netns exec "$K" ping -n -c 3 -W 1 "$ip" >"$WORK/ping-$ip.log" 2>&1 &
	pings+=($!)
	PIDS+=($!)
done
wait "${pings[@]}"
check "uetemu still running after the pings" 'kill -0 "$UPID" 2>/dev/null' 
for ip in 10.88.0.1 10.88.0.2 10.88.0.3; do
	got=$(sed -n 's/.* \([0-9]*\) received.*/\1/p' "$WORK/ping-$ip.log")
	check "ping -c 3 -W 1 $ip: ${got:-0} replies" '[ "${got:-0}" = 3 ]'
done
for h in "10.88.0.1 02:00:00:00:00:01" "10.88.0.2 02:00:00:00:00:02" "10.88.0.3 02:00:00:00:00:03"; do
	read -r ip mac <<<"$h"
	line=$(kns ip neigh show "$ip" dev br0)
	check "kernel neighbour table: $line" \
		'[[ "$line" == *"lladdr $mac"* ]] && [[ "$line" != *PERMANENT* ]] && [[ "$line" != *FAILED* ]]'
done
brmac=$(kns cat /sys/class/net/br0/address)

wait_uetemu
sleep 0.3
stop_pid "$TPID"
for ip in 10.88.0.1 10.88.0.2 10.88.0.3; do
	n=$(tshark -n -r "$WORK/arp.pcap" -Y "arp.isannouncement && arp.src.proto_ipv4 == $ip" 2>/dev/null | wc -l)
	check "br0 saw $ip's ARP announcement ($n)" '[ "$n" -ge 1 ]'
done
# each host's port resolves its gateway at the start: a request from the host, br0's reply, the entry
for h in "0 10.88.0.1" "1 10.88.0.2"; do
	read -r p ip <<<"$h"
	q=$(tshark -n -r "$WORK/arp.pcap" -Y "arp.opcode == 1 && arp.src.proto_ipv4 == $ip && arp.dst.proto_ipv4 == \
10.88.0.254" 2>/dev/null | wc -l)
	a=$(tshark -n -r "$WORK/arp.pcap" -Y "arp.opcode == 2 && arp.src.proto_ipv4 == 10.88.0.254 && \
arp.dst.proto_ipv4 == $ip" 2>/dev/null | wc -l)
	gw=$(summary_py "print(*[(n['mac'], n['state']) for n in ports[$p]['neighbours'] if n['ip'] == '10.88.0.254'][0],
      ports[$p]['stack']['arp_replies_learnt'] > 0)")
	check "port $p resolved its gateway by ARP: $q request(s) from $ip, $a repl(ies) from br0, entry $gw (br0 is \
$brmac)" '[ "$q" -ge 1 ] && [ "$a" -ge 1 ] && [ "$gw" = "$brmac reachable True" ]'
done
peer=$(summary_py "print(*[(n['mac'], n['state']) for n in ports[0]['neighbours'] if n['ip'] == '10.88.0.2'][0])")
check "port 0 knows host1 (through br0) by ARP: $peer" '[[ "$peer" == "02:00:00:00:00:02 "* ]]'
echo_n=$(summary_py "print(ports[0]['stack']['icmp_echo_answered'], ports[1]['stack']['icmp_echo_answered'])")
check "echo requests answered per port: $echo_n" '[ "$echo_n" = "6 3" ]'
local_n=$(summary_py "print(ports[0]['stack']['tx_local'])")
check "host0 to host2 on their shared port without the wire ($local_n frames)" '[ "${local_n:-0}" -gt 0 ]'
check_messages
check_accounted
finish
