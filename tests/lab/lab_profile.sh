#!/usr/bin/env bash
# A peer profile on a real wire (docs/wire.md, Peer profiles; docs/pingpong.md): tests/lab/profile.yaml, two uetemu
# processes in two namespaces, A (partition a: host0 with the UEC reference provider's profile) in prof<pid>a and
# B (partition b: host1, default but for the trailer) in prof<pid>b, each on net_af_packet on a veth whose other
# end is on a Linux bridge in prof<pid>br, where tshark captures. Checks:
#   - A and B exit 0; each completes its own host's messages (2 each, both ways);
#   - A's ping-pong completes its 1,000 round trips, its latency percentiles in summary.json, ordered; B answered
#     each (replies 1,000);
#   - host0's frames on the bridge: IPv4 protocol 253, TTL 64, data RUD_REQ, the refprov CRC-32C right (checked
#     here in Python); host1's ACKs to host0 plain ACKs with an SES response;
#   - the bridge capture decodes with the shipped dissector (scripts/wireshark/uet.lua): 0 malformed, 0 errors.
# Exit status: 0 all passed, 1 a check failed, 77 skipped (not root, or a tool missing).
set -uo pipefail
LAB_NAME=lab_profile
# shellcheck source=tests/lab/lablib.sh
. "$(dirname "$0")/lablib.sh"
lab_init "$@"
lab_need tshark
config=$ROOT/tests/lab/profile.yaml
NSA=prof$$a NSB=prof$$b NSBR=prof$$br

if ! { ns_add "$NSA" && ns_add "$NSB" && ns_add "$NSBR" && veth "$NSA" profa0 "$NSBR" profba &&
	veth "$NSB" profb0 "$NSBR" profbb && ip netns exec "$NSBR" ip link add profbr type bridge &&
	ip netns exec "$NSBR" ip link set profba master profbr && ip netns exec "$NSBR" ip link set profbb master profbr &&
	ip netns exec "$NSBR" ip link set profbr up; }; then
	fail "namespaces $NSA, $NSB, $NSBR with the bridge profbr"
	finish
fi
if ! tshark_start "$NSBR" "$WORK/tshark.log" -i profbr -w "$WORK/br.pcap" -F pcap; then
	fail "tshark capturing on the bridge"
	finish
fi
run_part() { # run_part NS PART CORE: uetemu running one partition in NS on CORE, its pid in UPID_<PART>
	ip netns exec "$1" timeout -s TERM -k 5 "${LAB_TIMEOUT:-60}" "$UETEMU" run "$config" --mode realtime \
		--partition "$2" --out "$WORK/$2" -- -l "$3" --no-huge --no-pci -m 256 --file-prefix "$PREFIX$2" \
		--log-level='lib.*:warning' >"$WORK/$2.log" 2>&1 &
	PIDS+=("$!")
	eval "UPID_$2=$!"
}
run_part "$NSA" a 0
run_part "$NSB" b 1
wait "$UPID_a"
rca=$?
wait "$UPID_b"
rcb=$?
rm -rf "/var/run/dpdk/${PREFIX}a" "/var/run/dpdk/${PREFIX}b"
sleep 0.5
stop_pid "$TPID"
check "A (host0, reference provider's profile) exited 0" "[ $rca -eq 0 ]" || tail -n 15 "$WORK/a.log"
check "B (host1, default) exited 0" "[ $rcb -eq 0 ]" || tail -n 15 "$WORK/b.log"

msgs() { python3 -c "
import json, sys
m = json.load(open(sys.argv[1]))['messages']; print(m['posted'], m['completed'])" "$1" 2>&1; }
check "A: host0's 2 messages completed ($(msgs "$WORK/a/summary.json"))" "[ \"\$(msgs '$WORK/a/summary.json')\" = '2 2' ]"
check "B: host1's 2 messages completed ($(msgs "$WORK/b/summary.json"))" "[ \"\$(msgs '$WORK/b/summary.json')\" = '2 2' ]"
line=$(python3 -c "
import json, sys
a = json.load(open(sys.argv[1]))['pingpong'][0]; b = json.load(open(sys.argv[2]))['pingpong'][0]
t = a.get('rtt_ps', {})
ok = a.get('count') == 1000 and b.get('replies') == 1000 and 0 < t['min'] <= t['p50'] <= t['p90'] <= t['p99'] <= t['max']
print('OK' if ok else 'BAD', 'count %s replies %s p50 %.1f us p90 %.1f us p99 %.1f us max %.1f us' % (
    a.get('count'), b.get('replies'), t['p50'] / 1e6, t['p90'] / 1e6, t['p99'] / 1e6, t['max'] / 1e6))" \
	"$WORK/a/summary.json" "$WORK/b/summary.json" 2>&1)
echo "  pingpong: ${line#* }"
check "A's ping-pong: 1,000 round trips, percentiles ordered; B answered each" "[[ '$line' == OK* ]]"

cat >"$WORK/frames.py" <<'PY'
import struct, sys
T = []
for i in range(256):
    c = i
    for _ in range(8):
        c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
    T.append(c)
def crc32c(b):
    c = 0xffffffff
    for x in b:
        c = T[(c ^ x) & 0xff] ^ (c >> 8)
    return c ^ 0xffffffff
b = open(sys.argv[1], 'rb').read(); o = 24; n = dict(h0=0, native=0, ttl=0, crc=0, rud=0, ack=0, ack_rsp=0)
while o + 16 <= len(b):
    ln = struct.unpack_from('<I', b, o + 8)[0]; f = b[o + 16:o + 16 + ln]; o += 16 + ln
    if len(f) < 42 or f[12:14] != b'\x08\x00':
        continue
    ip = f[14:34]; tot = struct.unpack('>H', ip[2:4])[0]; f = f[:14 + tot]
    if ip[12:16] == bytes([10, 78, 0, 1]):
        n['h0'] += 1; n['native'] += ip[9] == 253; n['ttl'] += ip[8] == 64
        n['crc'] += crc32c(f[26:-4]) == struct.unpack('>I', f[-4:])[0]
        n['rud'] += ip[9] == 253 and f[38] >> 3 == 2
    elif ip[12:16] == bytes([10, 78, 0, 2]) and ip[9] in (17, 253):
        pds = f[42:] if ip[9] == 17 else f[38:]
        if pds[0] >> 3 == 7 and struct.unpack('>H', pds[0:2])[0] >> 7 & 0xf == 4:
            n['ack_rsp'] += 1
        n['ack'] += pds[0] >> 3 == 7
ok = n['h0'] > 0 and n['h0'] == n['native'] == n['ttl'] == n['crc'] and n['rud'] > 0 and n['ack'] > 0 and n['ack'] == n['ack_rsp']
print('OK' if ok else 'BAD', ' '.join('%s=%d' % kv for kv in n.items()))
PY
line=$(python3 "$WORK/frames.py" "$WORK/br.pcap" 2>&1)
echo "  bridge capture: ${line#* }"
check "host0's frames: native, TTL 64, RUD_REQ data, refprov CRC right; host1's ACKs plain with SES responses" \
	"[[ '$line' == OK* ]]"
# one pass (the Lua CRC of 20,000 frames takes a while): per frame, malformed / an error / a refprov CRC right
line=$(tshark -r "$WORK/br.pcap" -X "lua_script:$ROOT/scripts/wireshark/uet.lua" -T fields -E occurrence=f \
	-e _ws.malformed -e _ws.expert.severity -e uet.crc.refprov -e uet.crc.status 2>/dev/null | awk -F'\t' '
	{ n++; if ($1 != "" || $2 == "8388608") bad++; if ($3 == "1" && $4 == "1") good++ }
	END { printf "%d %d %d\n", n, bad, good }')
read -r total bad good <<<"$line"
check "the bridge capture under tshark with the shipped dissector: ${total:-0} frames, ${bad:-?} malformed or error, ${good:-0} refprov CRCs good" \
	"[ \"${bad:-x}\" = 0 ] && [ \"${good:-0}\" -gt 0 ]"
finish
