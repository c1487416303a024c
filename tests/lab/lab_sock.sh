#!/usr/bin/env bash
# Any UET peer, any real device: a Linux UDP socket with the kernel's defaults talks UET to an emulated host, and a
# port whose MTU is too small for the frames is refused by validate, or counted at run time, never silent.
#
# Usage: tests/lab/lab_sock.sh UETEMU REPO_ROOT     (as root; LAB_KEEP=1 keeps the work directory)
#
#   namespace uetsks<pid>                      namespace uetsku<pid> (uetemu)
#     sk0 10.61.0.1 (uet_sock.py) ======== sku  net_af_packet0: host0 10.61.0.2 (tests/lab/sock.yaml)
#                                              va ====== vb  MTU 1500: host1, host2 (tests/lab/mtu.yaml)
#
# 1. tests/lab/uet_sock.py sends a 4-packet message as RUD_CC requests from a UDP socket, TX checksum offload left
#    on (so each frame carries a partial UDP checksum): host0 takes every one (rx_csum_partial counts them, no
#    bad_udp_csum), receives the message and ACKs it; the socket reads the ACK of the last PSN.
# 2. The same with the port's rx_csum: verify: every frame refused as bad_udp_csum, no ACK (so the frames really
#    carried partial checksums, and the default is what takes them).
# 3. sku's MTU set to 1500: validate -m realtime refuses RdmaDataMSS 4096 (exit 1) naming the key and the most it
#    may be (1412) and the interface's MTU; RdmaDataMSS 1024 is valid.
# 4. tests/lab/mtu.yaml (mtu: 9000 on ports whose interfaces carry 1500): the run warns, and the data frames are
#    dropped as tx_drop_mtu, counted in summary.json; the message does not complete.
# Exit 0, 1, or 77 when not root.
set -u
LAB_NAME=lab_sock
. "$(dirname "${BASH_SOURCE[0]}")/lablib.sh"
lab_init "$@"
S=uetsks$$ U=uetsku$$
sns() { ip netns exec "$S" "$@"; }
uns() { ip netns exec "$U" "$@"; }
MSS_KEY=nic.TransportProcessingLayers.SemanticLayer.RdmaDataMSS

if ! { ns_add "$S" && ns_add "$U" && veth "$S" sk0 "$U" sku && sns ip addr add 10.61.0.1/24 dev sk0 &&
	veth "$U" va "$U" vb && uns ip link set va mtu 1500 && uns ip link set vb mtu 1500; }; then
	fail "namespaces $S and $U, veths sk0/sku and va/vb"
	finish
fi
csum=$(sns ethtool -k sk0 2>/dev/null | sed -n 's/^tx-checksumming: //p')
pass "namespaces $S and $U; sk0 10.61.0.1/24, TX checksum offload ${csum:-(ethtool not found: the veth default, on)}"

# sock_run LABEL CONFIG: uetemu with CONFIG, the socket's message once it runs; the socket's JSON in LABEL.json.
sock_run() {
	run_uetemu "$U" "$2" "$WORK/out"
	if ! wait_running; then
		fail "$1: uetemu did not start"
		tail -n 20 "$WORK/uetemu.log" | sed 's/^/  uetemu: /'
		return 1
	fi
	sns timeout 20 python3 "$ROOT/tests/lab/uet_sock.py" 10.61.0.1 10.61.0.2 --packets 4 --timeout 3 \
		>"$WORK/$1.json" 2>"$WORK/$1.err"
	SOCK_RC=$?
	wait_uetemu
	mv "$WORK/out" "$WORK/$1"
	mv "$WORK/uetemu.log" "$WORK/$1.log"
}

# 1. offload (the default): taken, counted, ACKed.
if sock_run offload "$ROOT/tests/lab/sock.yaml"; then
	check "socket: the ACK of the last PSN read from the socket ($(head -c 300 "$WORK/offload.json"))" \
		'[ "$SOCK_RC" -eq 0 ]'
	facts=$(python3 - "$WORK/offload/summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
p = s['ports'][0]
h = {x['name']: x for x in s['hosts']}['host0']['counters']
print(p['stack']['rx_csum_partial'], p['stack']['rx_to_host'], p['rx_drops'].get('bad_udp_csum', 0),
      h['write_pkts_rcvd'], h['ack_pkts_sent'] if 'ack_pkts_sent' in h else -1)
PY
)
	read -r partial to_host bad rcvd acks <<<"$facts"
	check "port: 4 frames taken with a partial UDP checksum (rx_csum_partial $partial, rx_to_host $to_host)" \
		'[ "${partial:-0}" -eq 4 ] && [ "${to_host:-0}" -ge 4 ]'
	check "port: no frame refused as bad_udp_csum ($bad)" '[ "${bad:-1}" -eq 0 ]'
	check "host0: 4 data packets received ($rcvd), ACKs sent ($acks)" \
		'[ "${rcvd:-0}" -eq 4 ] && [ "${acks:-0}" != 0 ]'
fi

# 2. verify: the same frames refused.
sed 's/iface=sku"}/iface=sku", rx_csum: verify}/' "$ROOT/tests/lab/sock.yaml" >"$WORK/sock-verify.yaml"
if sock_run verify "$WORK/sock-verify.yaml"; then
	check "rx_csum: verify: no ACK at the socket" '[ "$SOCK_RC" -eq 1 ]'
	bad=$(python3 -c "import json, sys; p = json.load(open(sys.argv[1]))['ports'][0]
print(p['rx_drops'].get('bad_udp_csum', 0), p['stack']['rx_csum_partial'])" "$WORK/verify/summary.json")
	check "rx_csum: verify: 4 frames refused as bad_udp_csum, none taken as partial ($bad)" '[ "$bad" = "4 0" ]'
fi

# 3. validate against the interface's MTU.
uns ip link set sku mtu 1500
uns "$UETEMU" validate "$ROOT/tests/lab/sock.yaml" -m realtime --set "$MSS_KEY=4096" >"$WORK/v1.out" 2>&1
rc=$?
sed 's/^/  /' "$WORK/v1.out"
check "validate -m realtime, RdmaDataMSS 4096 on a 1500 MTU veth: exit 1 ($rc)" '[ "$rc" -eq 1 ]'
check "validate names the key, the most it may be, and the MTU" \
	"grep -q 'ports.0 (dev \"net_af_packet0,iface=sku\"): data frames of 4198 B.*more than interface sku.s MTU 1500.*set $MSS_KEY to at most 1412, or raise the interface.s MTU (ip link set dev sku mtu 9000)' '$WORK/v1.out'"
uns "$UETEMU" validate "$ROOT/tests/lab/sock.yaml" -m realtime >"$WORK/v2.out" 2>&1
check "validate -m realtime, RdmaDataMSS 1024 on it: valid ($(cat "$WORK/v2.out"))" '[ $? -eq 0 ]'
uns "$UETEMU" validate "$ROOT/tests/lab/sock.yaml" --set "$MSS_KEY=4096" >/dev/null 2>&1
check "validate in virtual mode: the MTU of a port is not its business (exit 0)" '[ $? -eq 0 ]'

# 4. at run time: counted.
run_uetemu "$U" "$ROOT/tests/lab/mtu.yaml" "$WORK/out"
wait_running || fail "mtu.yaml: uetemu did not start"
wait "$UPID"
check "mtu.yaml: the run warns that data frames do not fit" \
	"grep -q 'warning: port net_af_packet1,iface=va: MTU 1500: data frames of 4198 B do not fit and are dropped (tx_drop_mtu); set $MSS_KEY to at most 1412' '$WORK/uetemu.log'"
facts=$(python3 -c "import json, sys; s = json.load(open(sys.argv[1]))
print(s['ports'][0]['tx_drop_mtu'], s['messages']['completed'], s['messages']['posted'])" "$WORK/out/summary.json" 2>&1)
read -r drops done posted <<<"$facts"
check "mtu.yaml: data frames counted as tx_drop_mtu (${drops:-?}), the message not complete (${done:-?}/${posted:-?})" \
	'[ "${drops:-0}" -gt 0 ] && [ "${done:-1}" -eq 0 ] && [ "${posted:-0}" -eq 1 ]'
finish
