#!/usr/bin/env bash
# Routed: two emulated hosts in two subnets, each on its own veth (net_af_packet), each with its gateway, and a
# Linux namespace routing between them (ip_forward=1). Messages complete both ways; every UET frame reaches a host
# with TTL 254 (one router) and is taken.
#
# Usage: tests/lab/lab_routed.sh UETEMU REPO_ROOT     (as root; LAB_KEEP=1 keeps the work directory)
#
#   namespace uetu<pid> (uetemu)                        namespace uetr<pid> (the router)
#     host0 10.1.0.1/24 gw .254  vu0 ======== vr0 10.1.0.254/24
#     host1 10.2.0.1/24 gw .254  vu1 ======== vr1 10.2.0.254/24      net.ipv4.ip_forward=1
#
# Checks: uetemu exits 0; the messages complete; tshark on vu0 and vu1 sees the peer's UET frames arrive with TTL
# 254 only; no port refused a frame; each port's neighbour table holds its gateway (the router's MAC, by ARP) and
# not the peer (off the subnet); every frame received is counted once. Exit 0, 1, or 77 when not root.
set -u
LAB_NAME=lab_routed
. "$(dirname "${BASH_SOURCE[0]}")/lablib.sh"
lab_init "$@"
lab_need tshark
R=uetr$$ U=uetu$$
rns() { ip netns exec "$R" "$@"; }

if ! { ns_add "$R" && ns_add "$U" && veth "$U" vu0 "$R" vr0 && veth "$U" vu1 "$R" vr1 &&
	rns ip addr add 10.1.0.254/24 dev vr0 && rns ip addr add 10.2.0.254/24 dev vr1 &&
	rns sysctl -qw net.ipv4.ip_forward=1; }; then
	fail "namespaces $R and $U, veths, routing"
	finish
fi
pass "router $R: vr0 10.1.0.254/24, vr1 10.2.0.254/24, ip_forward=1"
for i in 0 1; do
	tshark_start "$U" "$WORK/tshark$i.log" -n -i "vu$i" -f "udp port 4793" -F pcap -w "$WORK/vu$i.pcap" -a duration:40
	eval "TPID$i=\$TPID"
done

run_uetemu "$U" "$ROOT/tests/lab/routed.yaml" "$WORK/out"
wait_running && pass "uetemu running" || fail "uetemu did not start"
wait_uetemu
sleep 0.3
stop_pid "$TPID0"
stop_pid "$TPID1"

check_messages
# the peer's frames as they reach each host: forwarded once, so TTL 255 - 1
for h in "0 10.2.0.1 10.1.0.1" "1 10.1.0.1 10.2.0.1"; do
	read -r i src dst <<<"$h"
	ttls=$(tshark -n -r "$WORK/vu$i.pcap" -Y "ip.src == $src && ip.dst == $dst" -T fields -e ip.ttl 2>/dev/null |
		sort | uniq -c | awk '{s = s (NR > 1 ? ", " : "") $1 " x TTL " $2} END {print s}')
	check "UET frames from $src at vu$i: $ttls" '[[ "$ttls" =~ ^[0-9]+\ x\ TTL\ 254$ ]]'
done
refused=$(summary_py "print(sum(s['port_rx_refused'].values()), sum(p['stack']['rx_to_host'] for p in ports))")
check "no frame refused, frames to the hosts (refused, taken: $refused)" '[[ "$refused" =~ ^0\ [1-9][0-9]*$ ]]'
for h in "0 vr0 10.1.0.254 10.2.0.1" "1 vr1 10.2.0.254 10.1.0.1"; do
	read -r i dev gw peer <<<"$h"
	mac=$(rns cat "/sys/class/net/$dev/address")
	got=$(summary_py "n = {e['ip']: e for e in ports[$i]['neighbours']}
print(n['$gw']['mac'] if '$gw' in n else 'none', '$peer' in n)")
	check "port $i: gateway $gw at $got (the router's $dev is $mac; the peer $peer is no neighbour)" \
		'[ "$got" = "$mac False" ]'
done
check_accounted
finish
