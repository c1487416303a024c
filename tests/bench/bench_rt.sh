#!/usr/bin/env bash
# Real-time lateness: run tests/bench/rt-pair.yaml (two hosts over an in-process net_memif link, 10 Gb/s each way,
# TimeScale 1) once per LagPolicy besteffort and elastic, and print summary.json's lateness figures; then
# tests/lab/lcores.yaml (a leaf-spine in two partitions) at TimeScale 1 on one lcore (-l 0) and on two (-l 0-1),
# with each lcore's figures. Figures only, no assertion. Needs root (DPDK EAL). Usage: bench_rt.sh UETEMU REPO_ROOT
set -uo pipefail
uetemu=$(realpath "$1") root=$(realpath "$2")
[ "$(id -u)" -eq 0 ] || { echo "SKIP: bench_rt needs root (DPDK EAL)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" /var/run/dpdk/uetbrt$$' EXIT
sock="$tmp/memif.sock"
for policy in besteffort elastic; do
	# figures only: a run a loaded machine leaves with messages open still gives them (--allow-incomplete)
	timeout -s TERM -k 5 60 "$uetemu" run "$root/tests/bench/rt-pair.yaml" --mode realtime --out "$tmp/$policy" \
		--quiet --allow-incomplete --set simulation.LagPolicy=$policy \
		--set "ports.0.dev=net_memif0,role=server,id=0,bsize=9216,socket=$sock" \
		--set "ports.1.dev=net_memif1,role=client,id=0,bsize=9216,socket=$sock" \
		-- --no-huge --no-pci -m 256 --file-prefix uetbrt$$ --log-level='lib.*:error' >"$tmp/$policy.log" 2>&1 ||
		{ echo "bench_rt: $policy run failed:"; sed 's/^/  /' "$tmp/$policy.log"; exit 1; }
	python3 - "$tmp/$policy/summary.json" "$policy" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
rt, m = s['realtime'], s['messages']
print('bench_rt: rt-pair over net_memif, TimeScale %d, LagPolicy %-10s lateness p50 %.3f us, p99 %.3f us, '
      'max %.3f us over %d passes with events due (%d polls); late > 1/10/100 us: %d/%d/%d; held %.3f us; '
      'messages %d/%d, FCT p50 %.1f us' % (
          rt['time_scale'], sys.argv[2], rt['lateness_p50_ns'] / 1e3, rt['lateness_p99_ns'] / 1e3,
          rt['lateness_max_ns'] / 1e3, rt['passes_due'], rt['polls'], rt['passes_late_over_1us'],
          rt['passes_late_over_10us'], rt['passes_late_over_100us'], rt['held_ns'] / 1e3, m['completed'],
          m['posted'], m['fct_us']['p50']))
PY
done
for l in 0 0-1; do
	timeout -s TERM -k 5 60 "$uetemu" run "$root/tests/lab/lcores.yaml" --mode realtime --out "$tmp/lc$l" --quiet --allow-incomplete \
		--set simulation.TimeScale=1 -- -l "$l" --file-prefix uetbrt$$ --log-level='lib.*:error' \
		>"$tmp/lc$l.log" 2>&1 || { echo "bench_rt: lcores -l $l failed:"; sed 's/^/  /' "$tmp/lc$l.log"; exit 1; }
	python3 - "$tmp/lc$l/summary.json" "$l" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
rt, m = s['realtime'], s['messages']
fig = lambda r: 'p50 %.3f us, p99 %.3f us, max %.3f us, late > 1/10/100 us: %d/%d/%d' % (
    r['lateness_p50_ns'] / 1e3, r['lateness_p99_ns'] / 1e3, r['lateness_max_ns'] / 1e3, r['passes_late_over_1us'],
    r['passes_late_over_10us'], r['passes_late_over_100us'])
print('bench_rt: lcores.yaml (two partitions), TimeScale 1, -l %-4s %s; messages %d/%d, FCT p50 %.1f us' % (
    sys.argv[2], fig(rt), m['completed'], m['posted'], m['fct_us']['p50']))
for l in rt.get('lcores', []):
    print('bench_rt:   lcore %d (%s): %s; frames from other lcores %d, %d late (max %.3f us)' % (
        l['lcore'], l['partitions'], fig(l), l['cross_received'], l['cross_late'], l['cross_late_max_ns'] / 1e3))
PY
done
