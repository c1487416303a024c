#!/usr/bin/env bash
# Session record and re-run (docs/replay.md) with a kernel peer: tests/lab/record.yaml's emulated hosts on two
# veths bound with net_af_packet, the kernel's bridge br0 between them in a namespace: it answers and sends ARP,
# pings each host, and carries their UET frames from one port to the other, so every UET frame a host receives
# arrived from outside. The run is recorded (--record) and re-run in virtual time (uetemu rerun).
#
# Usage: tests/lab/lab_record.sh UETEMU REPO_ROOT     (as root; LAB_KEEP=1 keeps the work directory)
#
# Checks, for two sessions: the run exits 0 with its messages completed and the pings answered; the re-run exits 0
# and says its log is identical to the recorded one; independently of that log, the frames each port capture
# (pcapng, dev) holds as sent by the emulated hosts are the same in the re-run as in the real-time run, byte for
# byte, with the same emulated time (the comment of each frame), and so are the frames received; every record
# (CSV) of the re-run is byte-identical to the session's. Then: the first session re-run a second time gives the
# same again; a log with one arrived byte changed makes the re-run exit 6 naming the first difference; the log of a
# killed run (cut inside a record) re-runs as far as it goes, identical; a session
# run with LagPolicy elastic (emulated time held back) re-runs identically; --record with two EAL lcores is refused
# with a clear message.
set -u
LAB_NAME=lab_record
. "$(dirname "${BASH_SOURCE[0]}")/lablib.sh"
lab_init "$@"
K=uetrk$$ U=uetru$$
kns() { ip netns exec "$K" "$@"; }
frames() { python3 "$ROOT/tests/lab/pcapng_frames.py" "$@"; }

if ! { ns_add "$K" && ns_add "$U" && veth "$U" vu0 "$K" vk0 && veth "$U" vu1 "$K" vk1 &&
	kns ip link add br0 type bridge stp_state 0 mcast_snooping 0 && kns ip link set vk0 master br0 &&
	kns ip link set vk1 master br0 && kns ip addr add 10.88.0.254/24 dev br0 && kns ip link set br0 up; }; then
	fail "namespaces $K and $U, veths, bridge br0"
	finish
fi
pass "namespaces $K and $U, br0 10.88.0.254/24 over vk0 and vk1"

# session S: the recorded real-time run ($WORK/rt$S, record $WORK/rec$S) with three pings from the kernel
session() {
	local s=$1 ip got
	ip netns exec "$U" timeout -s TERM -k 5 40 "$UETEMU" run "$ROOT/tests/lab/record.yaml" --mode realtime \
		--out "$WORK/rt$s" --record "$WORK/rec$s" -- --no-huge --no-pci -m 256 --file-prefix "$PREFIX" \
		--log-level='lib.*:warning' >"$WORK/uetemu.log" 2>&1 &
	UPID=$!
	PIDS+=("$UPID")
	wait_running || { fail "session $s: uetemu did not start"; tail -n 20 "$WORK/uetemu.log"; return 1; }
	for ip in 10.88.0.1 10.88.0.2 10.88.0.3; do
		kns ping -n -c 3 -W 1 -i 0.3 "$ip" >"$WORK/ping$s-$ip.log" 2>&1
		got=$(sed -n 's/.* \([0-9]*\) received.*/\1/p' "$WORK/ping$s-$ip.log")
		check "session $s: ping $ip: ${got:-0} replies" '[ "${got:-0}" = 3 ]'
	done
	wait "$UPID"
	local rc=$?
	check "session $s: uetemu exited 0 ($rc)" '[ $rc = 0 ] && [ -r "$WORK/rt$s/summary.json" ]'
	[ $rc = 0 ] || tail -n 20 "$WORK/uetemu.log" | sed 's/^/  uetemu: /'
	cp "$WORK/uetemu.log" "$WORK/uetemu$s.log"
	local m
	m=$(python3 -c "import json, sys
s = json.load(open(sys.argv[1])); r = s['record']
print(s['messages']['completed'], s['messages']['posted'], r['passes'], r['rx_frames'], r['tx_frames'])" \
		"$WORK/rt$s/summary.json")
	read -r done posted passes rx tx <<<"$m"
	check "session $s: messages $done of $posted completed; the log holds $passes passes, $rx arrivals, $tx frames sent" \
		'[ "$done" = "$posted" ] && [ "${posted:-0}" -gt 0 ] && [ "$rx" -gt 100 ] && [ "$tx" -gt 100 ]'
}

# rerun S OUT: re-run session S into OUT and compare it with the real-time run
rerun() {
	local s=$1 out=$2 rc n p dir
	"$UETEMU" rerun "$WORK/rec$s" --out "$out" --quiet >"$out.log" 2>&1
	rc=$?
	check "rerun $s -> $(basename "$out"): exit 0 and its log identical to the session's ($rc: $(grep -o 'identical.*\|DIFFERS.*' "$out.log" | head -1))" \
		'[ $rc = 0 ] && grep -q "identical to the recorded session" "$out.log"'
	for p in vu0 vu1; do
		for dir in out in; do
			frames "$WORK/rt$s/$p.pcapng" $dir >"$out.$p.$dir.rt"
			frames "$out/$p.pcapng" $dir >"$out.$p.$dir.rr"
			n=$(wc -l <"$out.$p.$dir.rt")
			check "rerun $s: port $p, frames $( [ $dir = out ] && echo sent by the emulated hosts || echo received): $n, the same bytes and emulated times" \
				'[ "$n" -gt 20 ] && cmp -s "$out.$p.$dir.rt" "$out.$p.$dir.rr"'
		done
	done
	local same=0 total=0 f
	for f in "$WORK/rt$s"/*.csv; do
		total=$((total + 1))
		cmp -s "$f" "$out/$(basename "$f")" && same=$((same + 1))
	done
	check "rerun $s: records identical ($same of $total CSV files)" '[ "$total" -gt 2 ] && [ $same = $total ]'
}

for s in 1 2; do
	session $s || finish
	rerun $s "$WORK/rr$s"
done
rerun 1 "$WORK/rr1b"
e=$(sed -n 1p "$WORK/rr1.vu0.out.rt" | cut -c1-100)
echo "  first frame sent on vu0: $e"

# a log with one arrived byte changed: the re-run says where it differs
cp -r "$WORK/rec1" "$WORK/bad"
python3 - "$WORK/bad/session.bin" <<'PY'
import struct, sys
data = bytearray(open(sys.argv[1], 'rb').read())
off = 56
while off + 24 <= len(data):
    t, port, n = data[off], data[off + 1], struct.unpack_from('<I', data, off + 4)[0]
    if t == 2 and n > 60 and data[off + 24 + 12:off + 24 + 14] == b'\x08\x00':  # an arrived IPv4 frame
        data[off + 24 + n - 1] ^= 0xff                                          # its last payload byte
        break
    off += 24 + n
open(sys.argv[1], 'wb').write(data)
PY
"$UETEMU" rerun "$WORK/bad" --out "$WORK/rrbad" --quiet >"$WORK/rrbad.log" 2>&1
rc=$?
check "a log with one arrived byte changed: the re-run exits 6 and names the first difference ($rc: $(grep -o 'DIFFERS.*' "$WORK/rrbad.log" | cut -c1-120))" \
	'[ $rc = 6 ] && grep -q "DIFFERS from the recorded session at record" "$WORK/rrbad.log"'

# the log of a run killed while writing, cut at four places inside records: each re-run plays it as far as it goes
mkdir -p "$WORK/cut" && cp "$WORK/rec1/config.yaml" "$WORK/rec1/sets" "$WORK/cut/"
size=$(stat -c %s "$WORK/rec1/session.bin")
ok=0 said=""
for k in 2 4 5 7; do
	head -c $((size * k / 9 + k)) "$WORK/rec1/session.bin" >"$WORK/cut/session.bin"
	"$UETEMU" rerun "$WORK/cut" --out "$WORK/rrcut$k" --quiet >"$WORK/rrcut$k.log" 2>&1
	rc=$?
	said="$said $rc"
	[ $rc = 0 ] && grep -q "identical to the recorded session" "$WORK/rrcut$k.log" && ok=$((ok + 1))
done
check "a log cut inside a record (a killed run), at 4 places: each re-run as far as it goes is identical (exit:$said)" \
	'[ $ok = 4 ]'

# LagPolicy elastic with LagLimit 1 us holds emulated time back on a shared machine: the log keeps the times the
# loop used, so the re-run still reproduces the session (tests/lab/rt-tx.yaml: two hosts on net_null ports, so
# nothing comes back and no message completes: --allow-incomplete)
"$UETEMU" run "$ROOT/tests/lab/rt-tx.yaml" --mode realtime --out "$WORK/el" --quiet --record "$WORK/elrec" --allow-incomplete \
	--set simulation.LagPolicy=elastic --set simulation.LagLimit=1us -- --no-huge --no-pci -m 256 \
	--file-prefix "$PREFIX" --log-level='lib.*:error' >"$WORK/el.log" 2>&1
rc=$?
holds=$(python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['realtime']['holds'])" "$WORK/el/summary.json" 2>&1)
"$UETEMU" rerun "$WORK/elrec" --out "$WORK/elrr" --quiet >"$WORK/elrr.log" 2>&1
rr=$?
same=0
for f in "$WORK/el"/*.csv; do cmp -s "$f" "$WORK/elrr/$(basename "$f")" && same=$((same + 1)); done
check "LagPolicy elastic (held back in $holds passes): the re-run is identical, records too (run $rc, rerun $rr, $same CSV files the same)" \
	'[ $rc = 0 ] && [ $rr = 0 ] && [ $same = 3 ] && grep -q "identical to the recorded session" "$WORK/elrr.log"'

"$UETEMU" run "$ROOT/tests/lab/record.yaml" --mode realtime --out "$WORK/lc" --record "$WORK/lcrec" -- -l 0-1 \
	>"$WORK/lc.log" 2>&1
rc=$?
check "--record with -l 0-1 is refused ($rc: $(grep -o 'the EAL args give.*lcores' "$WORK/lc.log"))" \
	'[ $rc = 1 ] && grep -q "the EAL args give 2 lcores (-l)" "$WORK/lc.log"'
finish
