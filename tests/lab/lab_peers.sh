#!/usr/bin/env bash
# Peers that fail cleanly, and neighbours a lab can pin (docs/realtime.md, When a peer fails; Static neighbours).
# Usage: lab_peers.sh UETEMU REPO_ROOT [PHASE...] (root; PHASE kill, alone, garbage, static: all by default).
#   kill:    tests/lab/split.yaml as in lab_split.sh (process A runs partition a in namespace peers-a<pid>, B
#            partition b in peers-b<pid>, the joining links veth pairs pa0-pb0 and pa1-pb1); B is killed (SIGKILL)
#            4 s in. A exits 1 within peer_timeout (5 s) of the hello B no longer sent (its last hello + 1 s), says
#            which port lost its peer, and leaves whole outputs: summary.json with stop "peer_lost" and the port's
#            peer.lost, its captures readable.
#   alone:   A without B, --set ports.N.peer_timeout=1s: A stops with exit 1 and stop peer_lost, saying the other
#            process has not started (three times peer_timeout while no hello has come).
#   garbage: the same pair, both running to the end, while tests/lab/peers_garbage.py puts frames no uetemu sends
#            on pb0 (random bytes, frames cut inside their headers, IPv4 with impossible fields, bad hellos): A
#            counts them on pa0 by reason (ports[].rx_drops, peer.bad_hellos), both exit 0, every message completes.
#   static:  host0 and host1 on ports vu0 and vu1 of one uetemu (namespace peers-u<pid>), bridged by br0 in
#            peers-k<pid>; scapy in peers-k sends ARP replies and announcements saying host1's address is at
#            02:66:66:66:66:66 while host0 sends host1 a message. With neighbours: arp (the default) the spoof moves
#            host0's frames to the forged MAC (the attack works); with neighbours: static and neighbour_macs it
#            changes nothing: the capture on vk0 shows every UET frame from host0 to host1's configured MAC, and the
#            port counts the forged ARP as arp_spoofed.
# Exit status: 0 all passed, 1 a check failed, 77 skipped (not root, or a tool missing).
set -uo pipefail
LAB_NAME=lab_peers
# shellcheck source=tests/lab/lablib.sh
. "$(dirname "$0")/lablib.sh"
lab_init "$@"
shift 2 2>/dev/null
PHASES=${*:-kill alone garbage static}
config=$ROOT/tests/lab/split.yaml
NSA=peers-a$$ NSB=peers-b$$

# run_part NS PART CORE TAG: uetemu running one partition in NS on CORE, outputs in $WORK/TAG-PART, its pid in
# UPID_<PART>
run_part() {
	ip netns exec "$1" timeout -s TERM -k 5 "${LAB_TIMEOUT:-40}" "$UETEMU" run "$WORK/split.yaml" --mode realtime \
		--partition "$2" --out "$WORK/$4-$2" -- -l "$3" --file-prefix "$PREFIX$4$2" >"$WORK/$4-$2.log" 2>&1 &
	PIDS+=("$!")
	eval "UPID_$2=$!"
}

# split.yaml with the veth names of this test
split_config() {
	sed -e 's/iface=sa/iface=pa/; s/iface=sb/iface=pb/' "$config" >"$WORK/split.yaml"
}

pair_up() {
	[ -n "${PAIR_UP:-}" ] && return 0
	if ! { ns_add "$NSA" && ns_add "$NSB" && veth "$NSA" pa0 "$NSB" pb0 && veth "$NSA" pa1 "$NSB" pb1; }; then
		fail "namespaces $NSA and $NSB with the veth pairs pa0-pb0 and pa1-pb1"
		finish
	fi
	split_config
	PAIR_UP=1
}

js() { # js FILE 'EXPR': EXPR of s = FILE's summary.json, or "none"
	python3 -c "
import json, sys
s = json.load(open(sys.argv[1]))
print($2)" "$1" 2>/dev/null || echo none
}

phase_kill() {
	pair_up
	run_part "$NSA" a 0 kill
	run_part "$NSB" b 1 kill
	sleep 4
	# B itself, not the timeout that runs it (`ip netns exec` execs timeout; uetemu is its child)
	kill -KILL "$(pgrep -P "$UPID_b")" 2>/dev/null
	local t_kill t_end rca
	t_kill=$(date +%s.%N)
	wait "$UPID_a"
	rca=$?
	t_end=$(date +%s.%N)
	wait "$UPID_b" 2>/dev/null
	rm -rf "/var/run/dpdk/${PREFIX}killa" "/var/run/dpdk/${PREFIX}killb"
	local took s=$WORK/kill-a/summary.json
	took=$(python3 -c "print('%.1f' % ($t_end - $t_kill))")
	check "A exits 1 when B is killed (exit $rca, ${took} s after the kill)" "[ $rca -eq 1 ]" ||
		tail -n 5 "$WORK/kill-a.log" | sed 's/^/  A: /'
	# B's last hello came at most 1 s before the kill, the next was due 1 s after it: A's loop stops 5 s after that
	# (its summary: wall_s against the last hello's time), and A has exited, outputs written, within 8 s of the kill
	local late
	late=$(js "$s" "'%.2f' % (s['wall_s'] - max(p['peer']['last_hello_s'] for p in s['ports']) - 1)")
	check "A stops within peer_timeout (5 s) of B's next hello's due time (${late} s after it)" \
		"python3 -c 'import sys; sys.exit(0 if $late <= 5.5 else 1)'"
	check "A has exited within 8 s of the kill (${took} s)" "python3 -c 'import sys; sys.exit(0 if $took <= 8 else 1)'"
	grep '^\[uetemu\] port .*no hello' "$WORK/kill-a.log" | sed 's/^/  /'
	check "A says which port lost its peer, and that the other process is gone" \
		"grep -q 'the link to .*no hello from the other process since .* it has gone' '$WORK/kill-a.log'"
	check "A's summary.json: stop peer_lost ($(js "$s" "s['stop']"))" "[ \"\$(js '$s' \"s['stop']\")\" = peer_lost ]"
	local lost
	lost=$(js "$s" "' '.join('%s:%s' % (p['dev'].split('=')[-1], p['peer']['lost']) for p in s['ports'])")
	check "A's summary.json: the joining ports' peer.lost ($lost)" "[[ '$lost' == *True* ]]"
	check "A's captures readable after the stop" \
		"python3 -c \"import struct,sys; b=open('$WORK/kill-a/a0.pcap','rb').read(); sys.exit(0 if len(b) >= 24 and struct.unpack('<I', b[:4])[0] in (0xa1b2c3d4, 0xa1b23c4d) else 1)\""
}

# A alone, its peer never started: with peer_timeout 1s it stops 3 s (three times, while no hello has come) past
# the first hello's due time, saying the other process is not there
phase_alone() {
	pair_up
	local t0 rc t
	t0=$(date +%s%N)
	ip netns exec "$NSA" timeout -s TERM -k 5 "${LAB_TIMEOUT:-40}" "$UETEMU" run "$WORK/split.yaml" --mode realtime \
		--partition a --out "$WORK/alone-a" --set ports.0.peer_timeout=1s --set ports.1.peer_timeout=1s \
		-- -l 0 --file-prefix "${PREFIX}alone" >"$WORK/alone-a.log" 2>&1
	rc=$?
	t=$((($(date +%s%N) - t0) / 1000000))
	rm -rf "/var/run/dpdk/${PREFIX}alone"
	grep '^\[uetemu\] port .*no hello' "$WORK/alone-a.log" | head -n 1 | sed 's/^/  /'
	check "A alone (B never started), peer_timeout 1s: exit 1 ($rc) after the EAL and 4 s of run ($t ms in all)" \
		"[ $rc -eq 1 ] && [ $t -le 15000 ]"
	check "A alone: says the other process has not started" "grep -q 'not started, or cannot reach this one' '$WORK/alone-a.log'"
	check "A alone: summary.json stop peer_lost" "[ \"\$(js '$WORK/alone-a/summary.json' \"s['stop']\")\" = peer_lost ]"
}

phase_garbage() {
	pair_up
	local py
	py=$(scapy_python)
	run_part "$NSA" a 0 garb
	run_part "$NSB" b 1 garb
	# both loops running (their first progress line) before the first garbage frame
	wait_log "$WORK/garb-a.log" '^\[uetemu\] real time' "$UPID_a" 200
	wait_log "$WORK/garb-b.log" '^\[uetemu\] real time' "$UPID_b" 200
	local line
	line=$(ip netns exec "$NSB" "${py:-python3}" "$ROOT/tests/lab/peers_garbage.py" pb0 40 2>&1)
	echo "  garbage on pb0: $line"
	wait "$UPID_a"
	local rca=$?
	wait "$UPID_b"
	local rcb=$?
	rm -rf "/var/run/dpdk/${PREFIX}garba" "/var/run/dpdk/${PREFIX}garbb"
	check "A and B exit 0 with garbage on a joining link (exit $rca/$rcb)" "[ $rca -eq 0 ] && [ $rcb -eq 0 ]" ||
		tail -n 5 "$WORK/garb-a.log" "$WORK/garb-b.log" | sed 's/^/  /'
	local s=$WORK/garb-a/summary.json m
	m=$(js "$s" "'%d %d' % (s['messages']['posted'], s['messages']['completed'])")
	check "A: every message completed ($m)" "[ '$m' = '3 3' ]"
	m=$(js "$WORK/garb-b/summary.json" "'%d %d' % (s['messages']['posted'], s['messages']['completed'])")
	check "B: every message completed ($m)" "[ '$m' = '3 3' ]" || tail -n 12 "$WORK/garb-b.log" | sed 's/^/  B: /'
	local p0
	p0=$(js "$s" "[(sorted(p['rx_drops'].items()), p['peer']['bad_hellos'], p['peer']['hellos_received']) for p in s['ports'] if p['dev'].endswith('pa0')][0]")
	echo "  A's pa0: rx_drops, bad hellos, hellos: $p0"
	local bad=${line##* }
	check "A counts every bad hello on pa0 ($bad sent)" \
		"[ \"\$(js '$s' \"[p['peer']['bad_hellos'] for p in s['ports'] if p['dev'].endswith('pa0')][0]\")\" = '$bad' ]"
	check "A counts the rest on pa0 by reason (at least 4 reasons, 200 frames)" \
		"[ \"\$(js '$s' \"[len(p['rx_drops']) >= 4 and sum(p['rx_drops'].values()) >= 200 for p in s['ports'] if p['dev'].endswith('pa0')][0]\")\" = True ]"
	check "A: every frame on pa0 counted once: taken by class, refused by reason, a hello or a bad hello" \
		"[ \"\$(js '$s' \"[p['rx_frames'] == sum(p['rx_class'].values()) + sum(p['rx_drops'].values()) + p['peer']['bad_hellos'] + p['peer']['hellos_received'] for p in s['ports'] if p['dev'].endswith('pa0')][0]\")\" = True ]"
	echo "  A's drop_reasons: $(js "$s" "s['drop_reasons']") (IPv4 the decoder refuses enters the fabric as a real device's frame: no route)"
	check "A still had B's hellos on pa0 (the peer never taken for lost)" \
		"[ \"\$(js '$s' \"[p['peer']['hellos_received'] >= 5 and not p['peer']['lost'] for p in s['ports'] if p['dev'].endswith('pa0')][0]\")\" = True ]"
}

phase_static() {
	local py K=peers-k$$ U=peers-u$$
	py=$(scapy_python)
	[ -n "$py" ] || { echo "SKIP (static): no scapy"; return 0; }
	lab_need tcpdump
	if ! { ns_add "$K" && ns_add "$U" && veth "$U" vu0 "$K" vk0 && veth "$U" vu1 "$K" vk1 &&
		ip netns exec "$K" ip link add br0 type bridge stp_state 0 mcast_snooping 0 &&
		ip netns exec "$K" ip link set vk0 master br0 && ip netns exec "$K" ip link set vk1 master br0 &&
		ip netns exec "$K" ip link set br0 up; }; then
		fail "namespaces $K and $U, br0 over vk0 and vk1"
		return
	fi
	for mode in arp static; do
		python3 - "$ROOT/tests/lab/arp-ping.yaml" "$WORK/st-$mode.yaml" "$mode" <<'PY'
import sys, yaml
c = yaml.safe_load(open(sys.argv[1]))
c['simulation']['SimulationDuration'] = '600ms'
c['topology']['hosts'] = [{'name': 'host0', 'ip': '10.89.0.1/24'}, {'name': 'host1', 'ip': '10.89.0.2/24'}]
c['ports'] = [{'attach': 'host0', 'dev': 'net_af_packet0,iface=vu0'},
              {'attach': 'host1', 'dev': 'net_af_packet1,iface=vu1'}]
if sys.argv[3] == 'static':
    c['ports'][0].update({'neighbours': 'static', 'neighbour_macs': [{'ip': '10.89.0.2', 'mac': '02:00:00:00:00:02'}]})
    c['ports'][1].update({'neighbours': 'static', 'neighbour_macs': [{'ip': '10.89.0.1', 'mac': '02:00:00:00:00:01'}]})
c['applications'] = [{'type': 'messages', 'list': [{'src': 'host0', 'dst': 'host1', 'bytes': '256KiB', 'start': t}
                                                   for t in ('300ms', '400ms', '500ms')]}]
yaml.safe_dump(c, open(sys.argv[2], 'w'))
PY
		ip netns exec "$K" timeout -k 2 40 tcpdump -i vk0 -Q in -n -w "$WORK/st-$mode.pcap" \
			>"$WORK/tcpdump-$mode.log" 2>&1 &
		local tpid=$!
		PIDS+=("$tpid")
		wait_log "$WORK/tcpdump-$mode.log" "listening on" "$tpid"
		ip netns exec "$U" timeout -s TERM -k 5 40 "$UETEMU" run "$WORK/st-$mode.yaml" --mode realtime \
			--out "$WORK/st-$mode" -- --no-huge --no-pci -m 256 --file-prefix "${PREFIX}st$mode" \
			>"$WORK/st-$mode.log" 2>&1 &
		local upid=$!
		PIDS+=("$upid")
		sleep 1
		# forged ARP: replies to host0 and announcements, "10.89.0.2 is at 02:66:66:66:66:66", every 20 ms for 8 s or
		# until uetemu exits
		# (the messages run from 3 s to 5 s of wall clock)
		ip netns exec "$K" "$py" -c "
from scapy.all import Ether, ARP, sendp
import time
f = '02:66:66:66:66:66'
r = Ether(src=f, dst='02:00:00:00:00:01') / ARP(op=2, hwsrc=f, psrc='10.89.0.2', hwdst='02:00:00:00:00:01', pdst='10.89.0.1')
g = Ether(src=f, dst='ff:ff:ff:ff:ff:ff') / ARP(op=1, hwsrc=f, psrc='10.89.0.2', hwdst='00:00:00:00:00:00', pdst='10.89.0.2')
for _ in range(400):
    sendp([r, g], iface='br0', verbose=False)
    time.sleep(0.02)
" >"$WORK/spoof-$mode.log" 2>&1 &
		local fpid=$!
		PIDS+=("$fpid")
		wait "$upid"
		local rc=$?
		# the forger has done its work once uetemu has exited: stopped now, not when its 8 s are up
		kill "$fpid" 2>/dev/null
		wait "$fpid" 2>/dev/null
		rm -rf "/var/run/dpdk/${PREFIX}st$mode"
		sleep 0.5
		kill -INT "$tpid" 2>/dev/null
		wait "$tpid" 2>/dev/null
		local to
		to=$(python3 - "$WORK/st-$mode.pcap" <<'PY'
import struct, sys, collections
b = open(sys.argv[1], 'rb').read()
be = b[:4] == b'\xa1\xb2\xc3\xd4'
o, c = 24, collections.Counter()
while o + 16 <= len(b):
    n = struct.unpack_from('>I' if be else '<I', b, o + 8)[0]
    f = b[o + 16:o + 16 + n]
    o += 16 + n
    if f[6:12] == bytes.fromhex('020000000001') and f[12:14] == b'\x08\x00' and f[23] == 17:
        c[f[0:6].hex(':')] += 1
print(' '.join('%s=%d' % kv for kv in sorted(c.items())) or 'none')
PY
)
		local s=$WORK/st-$mode/summary.json
		local p0
		p0=$(js "$s" "(s['ports'][0]['neighbour_mode'], s['ports'][0]['rx_drops'].get('arp_spoofed', 0), s['ports'][0]['rx_drops'].get('arp_static_only', 0), [(n['ip'], n['mac'], n['learnt']) for n in s['ports'][0]['neighbours']])")
		echo "  neighbours: $mode: UDP frames from host0 by destination MAC: $to; port 0: $p0"
		if [ $mode = arp ]; then
			check "neighbours: arp: the forged ARP moves host0's frames to 02:66:66:66:66:66 (the attack works; $to)" \
				"[[ '$to' == *02:66:66:66:66:66=* ]]"
		else
			check "neighbours: static: uetemu exited 0 (exit $rc)" "[ $rc -eq 0 ]" ||
				tail -n 5 "$WORK/st-$mode.log" | sed 's/^/  /'
			check "neighbours: static: every UDP frame from host0 goes to host1's configured MAC ($to)" \
				"[[ '$to' =~ ^02:00:00:00:00:02=[0-9]+$ ]]"
			check "neighbours: static: the forged replies and announcements counted arp_spoofed on port 0" \
				"[ \"\$(js '$s' \"s['ports'][0]['rx_drops'].get('arp_spoofed', 0) >= 10\")\" = True ]"
			check "neighbours: static: host0's messages completed" \
				"[ \"\$(js '$s' \"s['messages']['completed']\")\" = 3 ]"
		fi
	done
	# a gateway the config gives no MAC for, on a port with neighbours: static: refused before the run
	python3 -c "
import sys, yaml
c = yaml.safe_load(open(sys.argv[1]))
c['ports'][0]['gateway'] = '10.89.0.254'
yaml.safe_dump(c, open(sys.argv[2], 'w'))" "$WORK/st-static.yaml" "$WORK/st-gw.yaml"
	local out rc
	out=$(ip netns exec "$U" timeout -k 5 40 "$UETEMU" run "$WORK/st-gw.yaml" --mode realtime --out "$WORK/st-gw" \
		-- --no-huge --no-pci -m 256 --file-prefix "${PREFIX}stgw" 2>&1)
	rc=$?
	rm -rf "/var/run/dpdk/${PREFIX}stgw"
	check "neighbours: static with a gateway the config gives no MAC: refused (exit $rc)" \
		"[ $rc -eq 1 ] && [[ \"\$out\" == *\"host0's gateway 10.89.0.254 has no MAC in the config\"* ]]" ||
		echo "$out" | tail -n 3 | sed 's/^/  /'
}

for ph in $PHASES; do
	echo "--- $ph"
	"phase_$ph"
done
finish
