#!/usr/bin/env bash
# Replay in real time (docs/replay.md): a capture of 5,001 frames spanning 5 s sent to a net_pcap port at TSC
# deadlines: the run ends about 5 s after it started, every frame goes out in order, none before its deadline,
# and summary.json reports the timing error (send time minus deadline, p50/p99/max), printed here; the machine is
# shared, so the bounds on time are loose. Then configs/pair.yaml's host0 frames replayed into host1 in real time
# at speed 0.001: host1 delivers and acknowledges every message (pcap-info of the link's capture).
# Usage: test_replay_rt.sh UETEMU REPO_ROOT
set -uo pipefail
uetemu=$(realpath "$1") root=$(realpath "$2")
[ "$(id -u)" -eq 0 ] || { echo "SKIP: test_replay_rt needs root (DPDK EAL)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" /var/run/dpdk/uetrp$$' EXIT
pass=0 fail=0
check() { if eval "$2"; then echo "ok   $1"; pass=$((pass+1)); else echo "FAIL $1"; fail=$((fail+1)); fi; }
eal=(-- --no-huge --no-pci -m 256 --file-prefix uetrp$$ --log-level='lib.*:error')

python3 - "$tmp" <<'PY'
import struct, sys
tmp = sys.argv[1]
def frame(i):  # UDP from 10.0.0.1 to 10.0.0.2 carrying its index
    payload = struct.pack('>I', i) + bytes(60)
    udp = struct.pack('>HHHH', 5000, 5001, 8 + len(payload), 0) + payload
    ip = bytearray(struct.pack('>BBHHHBBH4s4s', 0x45, 0, 20 + len(udp), i & 0xffff, 0, 64, 17, 0,
                               bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])))
    s = sum(struct.unpack('>10H', ip)); s = (s & 0xffff) + (s >> 16); s = (s & 0xffff) + (s >> 16)
    ip[10:12] = struct.pack('>H', ~s & 0xffff)
    return bytes.fromhex('020000000002020000000001') + b'\x08\x00' + bytes(ip) + udp
hdr = struct.pack('<IHHiIII', 0xa1b23c4d, 2, 4, 0, 0, 65535, 1)
with open(tmp + '/five.pcap', 'wb') as f:
    f.write(hdr)
    for i in range(5001):  # one a millisecond: the last 5 s after the first
        t = 1767225600 * 10**9 + i * 1_000_000
        fr = frame(i)
        f.write(struct.pack('<IIII', t // 10**9, t % 10**9, len(fr), len(fr)) + fr)
open(tmp + '/empty.pcap', 'wb').write(hdr)
PY
cd "$tmp" || exit 1
timeout -s TERM -k 5 60 "$uetemu" run "$root/tests/lab/replay-rt.yaml" --mode realtime --out "$tmp/five" --quiet \
	--set "ports.0.dev=net_pcap0,rx_pcap=$tmp/empty.pcap,tx_pcap=$tmp/five-tx.pcap" --set replay.0.dev=net_pcap0 \
	--set "replay.0.file=$tmp/five.pcap" \
	"${eal[@]}" >"$tmp/five.log" 2>&1
rc=$?
check "the 5 s replay to net_pcap exits 0 ($rc)" '[ $rc = 0 ]'
[ $rc = 0 ] || sed 's/^/  /' "$tmp/five.log"
python3 - "$tmp" >"$tmp/five.check" 2>&1 <<'PY'
import json, struct, sys
tmp = sys.argv[1]
s = json.load(open(tmp + '/five/summary.json'))
rp = s['replays'][0]
te = rp.get('timing_error_ns', {})
print('figures: wall_s %.6f; timing error p50 %d ns, p99 %d ns, max %d ns over %d frames' %
      (s['wall_s'], te.get('p50', -1), te.get('p99', -1), te.get('max', -1), te.get('count', -1)))
f = open(tmp + '/five-tx.pcap', 'rb')
magic, = struct.unpack('<I', f.read(24)[:4])
unit = 1 if magic == 0xa1b23c4d else 1000
sent = []
while True:
    h = f.read(16)
    if len(h) < 16:
        break
    sec, frac, cap, _ = struct.unpack('<IIII', h)
    d = f.read(cap)
    if d[12:14] == b'\x08\x00' and d[23] == 17:
        sent.append((sec * 10**9 + frac * unit, struct.unpack('>I', d[42:46])[0]))
t0 = sent[0][0] if sent else 0
# deadlines from the first frame's send time: frame i is never sent before i ms after it, less the first's error
# and 1 ms of slack: net_pcap stamps a frame when it writes it, at the end of a pass or later on a loaded machine,
# so the first frame's stamp can be late by more than the timing error uetemu measured when it staged the frame
early = [i for i, (t, _) in enumerate(sent) if t - t0 < i * 1_000_000 - te.get('max', 0) - 1_000_000]
span = (sent[-1][0] - t0) / 1e9 if sent else 0
print('figures: %d frames in the TX pcap, span %.6f s (first to last, net_pcap stamps), last frame %.3f ms past '
      'its deadline from the first' % (len(sent), span, (span - 5) * 1e3))
ok = [rp['played'] == 5001 and te.get('count') == 5001, len(sent) == 5001 and [i for _, i in sent] == list(range(5001)),
      not early, 4.999 <= s['wall_s'] <= 5.5 and 4.99 <= span <= 5.5, te.get('p50', -1) >= 0 and te['max'] >= te['p99']]
print('checks', ' '.join('1' if x else '0' for x in ok))
PY
sed 's/^/  /' "$tmp/five.check"
res=$(grep '^checks' "$tmp/five.check")
check "5,001 frames played, each with its timing error counted" '[ "$(echo $res | cut -d" " -f2)" = 1 ]'
check "every frame went out, in order" '[ "$(echo $res | cut -d" " -f3)" = 1 ]'
check "no frame went out before its deadline (net_pcap stamps, from the first frame)" '[ "$(echo $res | cut -d" " -f4)" = 1 ]'
check "the run and the frames span 5 s (loose bounds: a shared machine)" '[ "$(echo $res | cut -d" " -f5)" = 1 ]'
check "summary.json has the timing error p50 <= p99 <= max" '[ "$(echo $res | cut -d" " -f6)" = 1 ]'

# pair.pcap's host0 frames into host1, in real time at speed 0.001 (its 0.3 ms last 0.3 s)
"$uetemu" run "$root/configs/pair.yaml" --out "$tmp/out/pair" --quiet >/dev/null
timeout -s TERM -k 5 60 "$uetemu" run "$root/configs/replay-pair.yaml" --mode realtime --out "$tmp/rtpair" \
	--quiet --set replay.0.speed=0.001 --set replay.0.file=out/pair/pair.pcap "${eal[@]}" >"$tmp/rtpair.log" 2>&1
rc=$?
check "pair.pcap replayed into host1 in real time exits 0 ($rc)" '[ $rc = 0 ]'
[ $rc = 0 ] || sed 's/^/  /' "$tmp/rtpair.log"
got=$("$uetemu" pcap-info "$tmp/rtpair/l0.pcapng" --json | python3 -c "import json, sys
d = json.load(sys.stdin)
print(sum(p['messages'] for p in d['pdcs']), sum(p['completed'] for p in d['pdcs']))")
rx=$(python3 -c "import json, sys
s = json.load(open(sys.argv[1])); print([h['rx_payload_bytes'] for h in s['hosts'] if h['name'] == 'host1'][0],
s['replays'][0]['played'])" "$tmp/rtpair/summary.json")
te=$(python3 -c "import json, sys
te = json.load(open(sys.argv[1]))['replays'][0]['timing_error_ns']
print('p50 %d ns, p99 %d ns, max %d ns over %d frames' % (te['p50'], te['p99'], te['max'], te['count']))" \
	"$tmp/rtpair/summary.json")
echo "  figures: injection into host1, wall-clock time past each frame's deadline: $te"
echo "  figures: messages started/acknowledged $got; host1 rx payload and frames played: $rx"
check "every message delivered and acknowledged: 10 started, 10 acknowledged ($got)" '[ "$got" = "10 10" ]'
check "host1 took 10 MiB of payload from 2,570 frames ($rx)" '[ "$rx" = "10485760 2570" ]'
echo "replay-rt: $pass passed, $fail failed"
[ $fail = 0 ]
