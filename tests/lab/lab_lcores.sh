#!/usr/bin/env bash
# Two lcores, two partitions (docs/realtime.md, Lcores and partitions): tests/lab/lcores.yaml, a leaf-spine of two
# racks split into "left" and "right", run in real time with -l 0-1, then with -l 0. Usage: lab_lcores.sh UETEMU
# REPO_ROOT (root: the DPDK EAL). No port: the frames between the partitions cross through the rings.
# Checks, with -l 0-1:
#   - uetemu says lcore 0 (main) runs left and lcore 1 runs right, and exits 0;
#   - dpdk-telemetry.py, during the run: /uetemu/lateness answers both lcores, each with polls, p50, p99, max;
#   - summary.json: every message completed; realtime.lcores has both lcores with their partitions, passes with
#     events due and percentiles; each sent frames to the other and every frame sent was received (none lost to a
#     full ring); frames were counted late or not, never lost;
#   - the capture of leaf0-spine1, a link between the partitions whose two directions are sent by two lcores,
#     holds every frame summary.json counts on that link;
# and with -l 0 (one lcore, as before lcores): every message completes, summary.json has no lcores member.
# A replay with -l 0-1 is refused (replays run on one lcore); without -l it runs on the main lcore alone.
# Exit status: 0 all passed, 1 a check failed, 77 skipped (not root, or a tool missing).
set -uo pipefail
LAB_NAME=lab_lcores
# shellcheck source=tests/lab/lablib.sh
. "$(dirname "$0")/lablib.sh"
lab_init "$@"
lab_need dpdk-telemetry.py
config=$ROOT/tests/lab/lcores.yaml

"$UETEMU" run "$config" --mode realtime --out "$WORK/out" -- -l 0-1 --file-prefix "$PREFIX" \
	>"$WORK/uetemu.log" 2>&1 &
UPID=$!
PIDS+=("$UPID")
wait_log "$WORK/uetemu.log" "telemetry: dpdk-telemetry.py -f $PREFIX" "$UPID" 50
sleep 0.3
echo /uetemu/lateness | dpdk-telemetry.py -f "$PREFIX" >"$WORK/lateness.json" 2>"$WORK/tel-err"
check "telemetry /uetemu/lateness answers both lcores, each with polls, p50, p99 and max" "python3 -c \"
import json, sys
t = json.loads(open('$WORK/lateness.json').read().strip().splitlines()[-1])['/uetemu/lateness']
l = t['lcores']
assert set(l) == {'0', '1'}, l
for k in l.values():
    assert k['polls'] > 0 and {'p50_ns', 'p99_ns', 'max_ns', 'passes_late_over_1us', 'passes_late_over_10us',
                               'passes_late_over_100us'} <= set(k), k
print('  telemetry:', {i: (k['lcore'], k['polls'], k['p50_ns'], k['p99_ns'], k['max_ns']) for i, k in l.items()})
\""
wait_uetemu
check "lcore 0 (main) runs left, lcore 1 runs right" \
	"grep -q 'lcore 0 (main): partitions left' '$WORK/uetemu.log' &&
	 grep -q 'lcore 1: partitions right' '$WORK/uetemu.log'"
line=$(summary_py "
m = s['messages']; lc = s['realtime']['lcores']
ok = m['posted'] == m['completed'] == 10 and s['stop'] == 'completed'
ok = ok and [(l['lcore'], l['partitions']) for l in lc] == [(0, 'left'), (1, 'right')]
ok = ok and all(l['passes_due'] > 0 and l['polls'] > 0 and l['lateness_max_ns'] >= l['lateness_p99_ns'] >=
                l['lateness_p50_ns'] for l in lc)
ok = ok and all(l['cross_sent'] > 0 and l['cross_ring_full'] == 0 and l['writer_ring_full'] == 0 for l in lc)
ok = ok and lc[0]['cross_sent'] == lc[1]['cross_received'] and lc[1]['cross_sent'] == lc[0]['cross_received']
for l in lc:
    print('lcore %d %s: p50 %d ns p99 %d ns max %d ns, late >1/10/100us %d/%d/%d, cross %d sent %d received %d late' % (
        l['lcore'], l['partitions'], l['lateness_p50_ns'], l['lateness_p99_ns'], l['lateness_max_ns'],
        l['passes_late_over_1us'], l['passes_late_over_10us'], l['passes_late_over_100us'], l['cross_sent'],
        l['cross_received'], l['cross_late']), end='; ')
print('OK' if ok else 'BAD %s %s' % (m, lc))")
echo "  $line"
check "summary.json: 10 messages done; both lcores' lateness; every frame sent between them received" \
	"[[ '$line' == *OK ]]"
frames=$(summary_py "
print(sum(l['ab']['frames'] + l['ba']['frames'] for l in s['links'] if l['name'] == 'leaf0-spine1'))")
captured=$(python3 -c "
import struct, sys
b = open(sys.argv[1], 'rb').read(); o, n = 24, 0
while o + 16 <= len(b):
    o += 16 + struct.unpack_from('<I', b, o + 8)[0]; n += 1
print(n)" "$WORK/out/leaf0-spine1.pcap" 2>&1)
check "capture of leaf0-spine1 (two lcores send on it): $captured frames, summary.json counts $frames" \
	"[ '$captured' = '$frames' ] && [ '$frames' -gt 0 ]"

mv "$WORK/out" "$WORK/out-2"
timeout -k 5 40 "$UETEMU" run "$config" --mode realtime --out "$WORK/out" -- -l 0 --file-prefix "$PREFIX" \
	>"$WORK/uetemu1.log" 2>&1
rc=$?
check "-l 0: uetemu exited 0" "[ $rc -eq 0 ]"
line=$(summary_py "m = s['messages']; r = s['realtime']
print('OK' if m['posted'] == m['completed'] == 10 and 'lcores' not in r else 'BAD %s' % r)")
check "-l 0: every message done on one lcore, no lcores member in summary.json" "[ '$line' = OK ]"

# a replay on a run of two lcores: refused with a clear error (replays run on one lcore), before any pass
python3 -c "
import yaml, sys
c = yaml.safe_load(open(sys.argv[1]))
c['replay'] = [{'file': sys.argv[3], 'host': 'host2'}]
yaml.safe_dump(c, open(sys.argv[2], 'w'))" "$config" "$WORK/replay.yaml" "$ROOT/configs/pair-host0.pcap"
timeout -k 5 40 "$UETEMU" run "$WORK/replay.yaml" --mode realtime --out "$WORK/rp" -- -l 0-1 --file-prefix "$PREFIX" \
	>"$WORK/rp.log" 2>&1
rc=$?
check "a replay with -l 0-1: refused, saying replays run on one lcore (exit $rc)" \
	"[ $rc -eq 1 ] && grep -q 'replays run on one lcore' '$WORK/rp.log'"
# the same run without -l (the EAL's default, every core): on the main lcore only, said once, and it runs
timeout -k 5 40 "$UETEMU" run "$WORK/replay.yaml" --mode realtime --out "$WORK/rp1" -- --file-prefix "$PREFIX" \
	>"$WORK/rp1.log" 2>&1
rc=$?
check "the replay without -l: one lcore, said on stderr, the run ends well (exit $rc)" \
	"[ $rc -eq 0 ] && grep -q 'one lcore: a replay runs on one lcore' '$WORK/rp1.log' && [ -s '$WORK/rp1/summary.json' ]"
finish
