#!/usr/bin/env bash
# One fabric, two processes (docs/realtime.md, One fabric across processes): tests/lab/split.yaml, a leaf-spine of
# two racks, partition a run by process A (uetemu run --partition a) in namespace uetsa<pid>, partition b by B in
# uetsb<pid>, the two links between them (leaf0-spine1, spine0-leaf1) veth pairs sa0-sb0 and sa1-sb1, each end
# bound by its process (net_af_packet). Then the same fabric in one process, without ports, at the same rates.
# Usage: lab_split.sh UETEMU REPO_ROOT (root). Checks:
#   - A and B exit 0 and each completes its own hosts' messages (3 each), every one crossing both processes;
#   - both joining links carried UET frames both ways (ECMP over the two spines, so over both links);
#   - the captures at the two ends of each joining link agree frame for frame: what A's port sent (by source MAC)
#     is what B's received, in order, byte for byte, and the other way;
#   - every message's FCT is within 20 % of the same message's in the one-process run (printed);
#   - a replay into a host of partition b: B plays it, A leaves it to B ("other_process" in its summary.json);
#   - refused with a clear error: an unknown --partition, --partition in virtual time, --record with --partition,
#     and the config run whole in one process (its ports bind links whose two ends that process runs).
# Exit status: 0 all passed, 1 a check failed, 77 skipped (not root, or a tool missing).
set -uo pipefail
LAB_NAME=lab_split
# shellcheck source=tests/lab/lablib.sh
. "$(dirname "$0")/lablib.sh"
lab_init "$@"
config=$ROOT/tests/lab/split.yaml
NSA=uetsa$$ NSB=uetsb$$

if ! { ns_add "$NSA" && ns_add "$NSB" && veth "$NSA" sa0 "$NSB" sb0 && veth "$NSA" sa1 "$NSB" sb1; }; then
	fail "namespaces $NSA and $NSB with the veth pairs sa0-sb0 and sa1-sb1"
	finish
fi
# run_part NS PART CORE: uetemu running one partition in NS on CORE (A and B each on a core of their own, not both
# on core 0), its pid in the variable UPID_<PART>
run_part() {
	ip netns exec "$1" timeout -s TERM -k 5 "${LAB_TIMEOUT:-40}" "$UETEMU" run "$config" --mode realtime \
		--partition "$2" --out "$WORK/$2" -- -l "$3" --file-prefix "$PREFIX$2" >"$WORK/$2.log" 2>&1 &
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
check "A (partition a) exited 0" "[ $rca -eq 0 ]" || tail -n 15 "$WORK/a.log"
check "B (partition b) exited 0" "[ $rcb -eq 0 ]" || tail -n 15 "$WORK/b.log"
grep -h '^\[uetemu\] port' "$WORK/a.log" "$WORK/b.log" | sed 's/^/  /'

fct() { python3 -c "
import json, sys
s = json.load(open(sys.argv[1])); m = s['messages']
print(m['posted'], m['completed'], ' '.join('%s>%s:%s' % (x['src'], x['dst'], x['fct_us']) for x in m['list']))" "$1"; }
check "A: 3 messages from host0 and host1, all completed ($(fct "$WORK/a/summary.json" | cut -d' ' -f1-2))" \
	"[ \"\$(fct '$WORK/a/summary.json' | cut -d' ' -f1-2)\" = '3 3' ]"
check "B: 3 messages from host2 and host3, all completed ($(fct "$WORK/b/summary.json" | cut -d' ' -f1-2))" \
	"[ \"\$(fct '$WORK/b/summary.json' | cut -d' ' -f1-2)\" = '3 3' ]"

# the frames of a pcap, split by source MAC, in order
cat >"$WORK/cmp.py" <<'PY'
import struct, sys
def frames(path):
    b = open(path, 'rb').read(); o = 24; out = {}
    while o + 16 <= len(b):
        n = struct.unpack_from('<I', b, o + 8)[0]; f = b[o + 16:o + 16 + n]; o += 16 + n
        out.setdefault(f[6:12], []).append(f)
    return out
a, b = frames(sys.argv[1]), frames(sys.argv[2])
ok = set(a) == set(b) and len(a) == 2 and all(a[k] == b[k] for k in a)
uet = all(sum(1 for f in a[k] if len(f) > 42 and f[23] == 17) > 0 for k in a)
print('%s %s %s' % ('same' if ok else 'differ', 'uet-both-ways' if uet else 'no-uet',
                     '/'.join('%s:%d+%d' % (k.hex(':'), len(a[k]), len(b.get(k, []))) for k in a)))
PY
for pair in "a0 b0" "a1 b1"; do
	set -- $pair
	line=$(python3 "$WORK/cmp.py" "$WORK/a/$1.pcap" "$WORK/b/$2.pcap" 2>&1)
	echo "  $1/$2: $line"
	check "captures at both ends of $1-$2 agree frame for frame, and carried UET frames both ways" \
		"[[ '$line' == 'same uet-both-ways'* ]]"
done

# the same fabric in one process: no partition of its own, no port, no capture, at the same rates
python3 -c "
import yaml, sys
c = yaml.safe_load(open(sys.argv[1]))
for k in ('ports', 'captures', 'partitions'):
    c.pop(k, None)
yaml.safe_dump(c, open(sys.argv[2], 'w'))" "$config" "$WORK/one.yaml"
timeout -k 5 "${LAB_TIMEOUT:-40}" "$UETEMU" run "$WORK/one.yaml" --mode realtime --out "$WORK/one" \
	-- -l 0 --file-prefix "${PREFIX}one" >"$WORK/one.log" 2>&1
rc=$?
rm -rf "/var/run/dpdk/${PREFIX}one"
check "the one-process run exited 0" "[ $rc -eq 0 ]"
line=$(python3 -c "
import json, sys
one = {(m['src'], m['dst'], m['start_us']): m['fct_us'] for m in json.load(open(sys.argv[1]))['messages']['list']}
ok, out = True, []
for p in sys.argv[2:]:
    for m in json.load(open(p))['messages']['list']:
        o = one.get((m['src'], m['dst'], m['start_us']))
        r = m['fct_us'] / o if o and m['fct_us'] else 0
        ok = ok and 0.8 <= r <= 1.2
        out.append('%s>%s %.1f/%.1f us (%+.0f %%)' % (m['src'], m['dst'], m['fct_us'] or -1, o or -1, (r - 1) * 100))
print(('OK ' if ok else 'BAD ') + '; '.join(out))" "$WORK/one/summary.json" "$WORK/a/summary.json" \
	"$WORK/b/summary.json" 2>&1)
echo "  FCT two processes/one process: ${line#* }"
check "every message's FCT in two processes within 20 % of one process's" "[[ '$line' == OK* ]]"

# a replay into host2 (partition b) in both processes' config: B plays it, A leaves it to B (other_process)
# (its 40 us stop the messages, at 300 us on, never start: work left open by design, --allow-incomplete)
python3 -c "
import yaml, sys
c = yaml.safe_load(open(sys.argv[1]))
c['replay'] = [{'name': 'to-host2', 'file': sys.argv[3], 'host': 'host2'}]
c['simulation']['SimulationDuration'] = '40us'
yaml.safe_dump(c, open(sys.argv[2], 'w'))" "$config" "$WORK/replay.yaml" "$ROOT/configs/pair-host0.pcap"
for part in a b; do
	ns=$NSA core=0
	[ $part = b ] && ns=$NSB core=1
	ip netns exec "$ns" timeout -k 5 "${LAB_TIMEOUT:-40}" "$UETEMU" run "$WORK/replay.yaml" --mode realtime \
		--partition $part --out "$WORK/rp$part" --allow-incomplete -- -l $core --file-prefix "${PREFIX}rp$part" \
		>"$WORK/rp$part.log" 2>&1 &
	PIDS+=("$!")
	eval "RPID_$part=$!"
done
wait "$RPID_a"
rca=$?
wait "$RPID_b"
rcb=$?
rm -rf "/var/run/dpdk/${PREFIX}rpa" "/var/run/dpdk/${PREFIX}rpb"
rp() { python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))['replays'][0]
print(r['played'], r.get('other_process', False))" "$1" 2>&1; }
line="$(rp "$WORK/rpa/summary.json") / $(rp "$WORK/rpb/summary.json")"
check "a replay into host2 (partition b): A leaves it to B, B plays it (exit $rca/$rcb; played, other_process: $line)" \
	"[ $rca -eq 0 ] && [ $rcb -eq 0 ] && [[ '$line' == '0 True / '[1-9]*' False' ]]"

# refusals: each exits 1 with its message, before any port is opened
refused() { # refused WANT ARGS...: uetemu run ARGS exits 1 and says WANT
	local want=$1 out rc
	shift
	out=$("$UETEMU" run "$config" --out "$WORK/refused" "$@" 2>&1)
	rc=$?
	rm -rf "/var/run/dpdk/${PREFIX}r"
	[ "$rc" -eq 1 ] && [[ "$out" == *"$want"* ]] || { echo "  rc $rc: $(echo "$out" | tail -n 2)"; return 1; }
}
check "--partition c: refused, naming the partitions there are" \
	"refused 'no such partition; $config has a b' --mode realtime --partition c -- -l 0 --file-prefix ${PREFIX}r"
check "--partition in virtual time: refused" "refused '--partition is for real time' --partition a"
check "--record with --partition: refused (a re-run plays the whole fabric in one process)" \
	"refused '--record with --partition a' --mode realtime --partition a --record '$WORK/rec' -- -l 0 \
	--file-prefix ${PREFIX}r"
check "the split config run whole in one process: refused, naming the port" \
	"refused 'ports.0 binds leaf0:3, whose link goes to spine1, which this process runs too' --mode realtime \
	-- -l 0 --file-prefix ${PREFIX}r"
finish
