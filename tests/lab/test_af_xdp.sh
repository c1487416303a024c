#!/usr/bin/env bash
# AF_XDP with uetemu's XDP steering on a veth: UET reaches uetemu while the kernel keeps its own traffic on the
# same interface. Usage: test_af_xdp.sh UETEMU REPO (root).
#
#   namespace uetxA<pid>                            namespace uetxB<pid>
#   xdpa 10.79.0.1/24 (kernel) + host0 (AF_XDP) --- xdpb \
#                                                          br0 10.79.0.2/24 (kernel)
#   xdpp (no address)          + host1 (AF_PACKET) -- xdpq /
#
# uetemu (tests/lab/af_xdp.yaml, 6 s) binds host0 to net_af_xdp on xdpa, which loads bpf/ebpf_xdp_steer.bpf.o
# through the PMD's xdp_prog= devarg, and host1 to net_af_packet on xdpp; their UET messages cross the bridge.
# Meanwhile, from uetxB: 20 pings to 10.79.0.1 (the AF_XDP interface's own kernel address) and three TCP
# connections to it echoing 256 KB each; 3 pings to host0's address (steered to uetemu as ICMP, answered by the
# emulated host) and one ARP request for it (steered as ARP).
# Checks: the steering program is attached to xdpa during the run and gone after it; every message completes; all
# 20 pings and 3 TCP echoes succeed; uetemu's steering counters show UET frames redirected, ICMP and ARP for host0
# redirected, frames passed to the kernel; and the kernel's passed frames cover the pings and TCP.
# Exit status: 0 all passed, 1 a check failed, 77 skipped (not root, a tool or the steering object missing).
set -uo pipefail
LAB_NAME=test_af_xdp
. "$(dirname "${BASH_SOURCE[0]}")/lablib.sh"
lab_init "$@"
lab_need ping
[ -e "$(dirname "$UETEMU")/bpf/ebpf_xdp_steer.bpf.o" ] || { echo "SKIP: ebpf_xdp_steer.bpf.o not built"; exit 77; }
A=uetxA$$ B=uetxB$$
ina() { ip netns exec "$A" "$@"; }
inb() { ip netns exec "$B" "$@"; }

setup() {
	ns_add "$A" && ns_add "$B" &&
	ina ip link add xdpa type veth peer name xdpb netns "$B" &&
	ina ip link add xdpp type veth peer name xdpq netns "$B" &&
	inb ip link add br0 type bridge stp_state 0 mcast_snooping 0 &&
	inb ip link set xdpb master br0 && inb ip link set xdpq master br0 &&
	ina ip addr add 10.79.0.1/24 dev xdpa && inb ip addr add 10.79.0.2/24 dev br0 &&
	for l in xdpa xdpp; do ina ip link set "$l" up || return 1; done &&
	for l in xdpb xdpq br0; do inb ip link set "$l" up || return 1; done &&
	inb ip neigh replace 10.79.0.11 lladdr 02:00:00:00:00:01 dev br0 nud permanent
}
if ! setup; then
	check "namespaces $A, $B: veths, bridge, addresses" false
	finish
fi

# `ip netns exec` execs uetemu, so $! is uetemu itself.
ip netns exec "$A" "$UETEMU" run "$ROOT/tests/lab/af_xdp.yaml" --mode realtime --out "$WORK/out" --quiet \
	>"$WORK/log" 2>&1 &
UPID=$!
PIDS+=("$UPID")
wait_log "$WORK/log" "XDP steering: UDP" "$UPID"
check "uetemu loaded the steering program on xdpa: $(grep -m1 'XDP steering: UDP' "$WORK/log")" \
	"grep -q 'XDP steering: UDP 4793 and 4794' '$WORK/log'"
check "xdpa has the XDP program uetemu_steer during the run" "ina ip link show xdpa | grep -q 'prog/xdp.*uetemu_steer'"

ina python3 "$ROOT/tests/lab/tcp_echo.py" serve 10.79.0.1 5001 3 >"$WORK/serve.log" 2>&1 &
SPID=$!
PIDS+=("$SPID")
sleep 0.3
inb ping -c 20 -i 0.1 -W 1 10.79.0.1 >"$WORK/ping.log" 2>&1 &
PPID_=$!
PIDS+=("$PPID_")
tcp_ok=0
for _ in 1 2 3; do
	inb python3 "$ROOT/tests/lab/tcp_echo.py" send 10.79.0.1 5001 262144 >>"$WORK/tcp.log" 2>&1
	sleep 0.3
done
tcp_ok=$(grep -c '^ok 262144$' "$WORK/tcp.log")
inb ping -c 3 -i 0.2 -W 1 10.79.0.11 >"$WORK/ping-host0.log" 2>&1
# An ARP request for host0 from br0, by a raw socket (no scapy needed): broadcast, sender br0's MAC and address.
inb python3 -c 'import socket
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("br0", 0))
mac = bytes.fromhex(open("/sys/class/net/br0/address").read().strip().replace(":", ""))
arp = bytes.fromhex("0001080006040001") + mac + socket.inet_aton("10.79.0.2") + bytes(6) + socket.inet_aton("10.79.0.11")
print(s.send(b"\xff" * 6 + mac + b"\x08\x06" + arp + bytes(18)))' >"$WORK/arp.log" 2>&1
wait "$PPID_"
prc=$?
still=$(kill -0 "$UPID" 2>/dev/null && echo yes || echo no)
wait "$UPID"
urc=$?
wait "$SPID" 2>/dev/null
got=$(sed -n 's/.* \([0-9]*\) received.*/\1/p' "$WORK/ping.log")
check "20 pings to the kernel's 10.79.0.1 on the AF_XDP interface answered (${got:-0}, rc $prc)" \
	"[ '$prc' = 0 ] && [ '${got:-0}' = 20 ]"
check "3 TCP connections to 10.79.0.1:5001 echoed 256 KB each ($tcp_ok)" "[ '$tcp_ok' = 3 ]"
got0=$(sed -n 's/.* \([0-9]*\) received.*/\1/p' "$WORK/ping-host0.log")
check "3 pings to host0 (10.79.0.11) through the steering program answered by the emulated host (${got0:-0})" \
	"[ '${got0:-0}' = 3 ]"
check "uetemu was still running when the pings and TCP ended" "[ '$still' = yes ]"
check "uetemu exits 0 ($urc)" "[ $urc -eq 0 ]"
[ $urc -eq 0 ] || sed 's/^/  /' "$WORK/log"
check "the steering program is gone from xdpa after the run" "! ina ip link show xdpa | grep -q prog/xdp"
python3 - "$WORK/out/summary.json" >"$WORK/py" 2>&1 <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
print(s['messages']['posted'], s['messages']['completed'])
PY
read -r posted done <"$WORK/py"
check "every UET message completed (${done:-?} of ${posted:-?})" "[ -n '$posted' ] && [ '$posted' = '$done' ] && [ '$posted' -gt 0 ]"
line=$(grep 'XDP steering: to uetemu' "$WORK/log")
echo "  $line"
num() { echo "$line" | sed -n "s/.*[ ,]$1 \([0-9]*\).*/\1/p"; }
uet=$(num uet) icmp=$(num icmp) arp=$(num arp) kern=$(echo "$line" | sed -n 's/.*to the kernel \([0-9]*\).*/\1/p')
rx=$(sed -n 's/.*net_af_xdp0,iface=xdpa: rx \([0-9]*\) frames.*/\1/p' "$WORK/log")
check "UET frames steered to uetemu ($uet), and uetemu's port received them all (rx $rx)" \
	"[ '${uet:-0}' -gt 100 ] && [ '${rx:-0}' -ge '${uet:-0}' ]"
check "the 3 pings to host0 steered to uetemu as ICMP ($icmp)" "[ '${icmp:-0}' = 3 ]"
check "the ARP request for host0 steered to uetemu ($arp)" "[ '${arp:-0}' -ge 1 ]"
check "frames left to the kernel ($kern) cover 20 pings and 3 TCP connections" "[ '${kern:-0}' -ge 50 ]"
finish
