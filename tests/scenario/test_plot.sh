#!/usr/bin/env bash
# scripts/plot (issue 6): the default scenario's outputs (NIC buffer stats on) become five PNGs (WQE latency CDF,
# per-host goodput, congestion window and RTT, switch queues, NIC buffers), and `--describe` shows they are
# readable: one line per buffer pool (per switch, direction and pool; per NIC and pool), never two series of one
# plot in one colour (16 hosts), units on every axis, and a WQE latency CDF over the recording window whose
# p50/p99 are summary.json's. configs/rdma-rack.yaml checks --config: its own timeline gives the window, and a
# wrong one is flagged. Usage: test_plot.sh UETEMU REPO_ROOT
set -uo pipefail
uetemu=$(realpath "$1") root=$(realpath "$2")
py=/usr/bin/python3
if ! { [ -x $py ] && $py -c 'import matplotlib' 2>/dev/null; }; then
	echo "SKIP: python3-matplotlib not installed"; exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { echo "ok   $*"; pass=$((pass+1)); }
ko() { echo "FAIL $*"; fail=$((fail+1)); }

"$uetemu" run "$root/configs/default.yaml" --out "$tmp/out" --quiet --set nic.EnableBufferStats=true \
	--set simulation.EnableNetworkBufferStatsReporting=true >/dev/null || { echo "FAIL uetemu run"; exit 1; }
"$root/scripts/plot" "$tmp/out" "$tmp/png" --describe >"$tmp/describe" 2>"$tmp/notes" ||
	{ echo "FAIL scripts/plot"; cat "$tmp/notes"; exit 1; }
for png in wqe-latency-cdf goodput cwnd-rtt queues nic-buffers; do
	f="$tmp/png/$png.png"
	if [ -s "$f" ] && [ "$(head -c 8 "$f" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ]; then
		ok "$png.png ($(stat -c %s "$f") bytes)"
	else
		ko "$png.png missing, empty or not a PNG"
	fi
done

# What the plots show, against the records and summary.json read here independently.
$py - "$tmp/out" "$tmp/describe" >"$tmp/checks" 2>&1 <<'EOF'
import csv, glob, json, re, sys
from decimal import Decimal

out, desc = sys.argv[1], sys.argv[2]
def say(good, msg):
    print(('ok   ' if good else 'FAIL ') + msg)
def rows(rec):
    with open(glob.glob('%s/*-%s-0.csv' % (out, rec))[0], newline='') as f:
        return list(csv.DictReader(f))
try:
    plots = {d['png'].rsplit('/', 1)[1]: d for d in map(json.loads, open(desc))}
except ValueError:
    say(False, 'scripts/plot --describe prints one JSON object per PNG')
    sys.exit()
summary = json.load(open(out + '/summary.json'))

# Units on every axis; within a panel, every series its own colour.
UNIT = re.compile(r'\((ms|µs|Gb/s|kB|B|0–1)\)$')
for name, d in sorted(plots.items()):
    for i, ax in enumerate(d['axes']):
        say(UNIT.search(ax['xlabel']) and UNIT.search(ax['ylabel']),
            '%s panel %d: axis labels with units: %r, %r' % (name, i, ax['xlabel'], ax['ylabel']))
        cols = [ln['color'] for ln in ax['lines']]
        say(len(set(cols)) == len(cols), '%s panel %d: %d series, %d distinct colours'
            % (name, i, len(cols), len(set(cols))))

def one_line_per(name, r, pool, keys, what):
    """Each panel of @name is one pool; one line per group of @keys in it, each with all of that group's rows
    (+ the step's start at time 0), so no two series are merged."""
    d = plots.get(name)
    if d is None:
        return say(False, name + ' drawn')
    want = {}
    for x in r:
        want.setdefault(x[pool], {}).setdefault(tuple(x[k] for k in keys), 0)
        want[x[pool]][tuple(x[k] for k in keys)] += 1
    say(len(d['axes']) == len(want), '%s: %d panels, one per pool (%d)' % (name, len(d['axes']), len(want)))
    total = 0
    for ax in d['axes']:
        p = next((p for p in want if ax['title'].startswith(('pool %s ' % p, p + ' '))), None)
        if p is None:
            say(False, '%s: panel %r names its pool' % (name, ax['title']))
            continue
        pts = sorted(ln['points'] for ln in ax['lines'])
        total += len(pts)
        say(pts == sorted(n + 1 for n in want[p].values()),
            '%s pool %s: %d lines of %s points, one per %s (%d)'
            % (name, p, len(pts), sorted(set(pts)), what, len(want[p])))
    n = sum(len(v) for v in want.values())
    say(total == n, '%s: %d lines in all, one per buffer pool (%d)' % (name, total, n))

one_line_per('queues.png', [x for x in rows('scala-switch-agg-buff-stats') if x['buff_id'] == 'egressQueue'],
             'pool_num', ('component_name', 'uldl'), 'switch and direction')
one_line_per('nic-buffers.png', rows('net-buff-stats'), 'buffer_id', ('component_name',), 'NIC')

# 16 hosts (more than 10): 16 lines, 16 colours.
g = plots.get('goodput.png')
hosts = {x['component_name'] for x in rows('nd-stats') if x['component_type'] != 'Switch'}
lines = g['axes'][0]['lines'] if g else []
say(len(hosts) == 16 and len(lines) == 16 and len({ln['color'] for ln in lines}) == 16,
    'goodput.png: %d hosts, %d lines, %d colours' % (len(hosts), len(lines), len({ln['color'] for ln in lines})))

# The CDF: configs/default.yaml's recording window is 5..7 ms (StartTime + ClientStartOffset +
# ClientStartInterval + WarmUp = 1 + 1 + 1 + 2 ms, RunTime 2 ms), both ends in, as ctl_rdma_done() counts.
perf = rows('rdma-perf')
t = lambda x: Decimal(x['sim_time_sec'])
lat = sorted(Decimal(x['perf_metric_usec']) for x in perf if Decimal('0.005') <= t(x) <= Decimal('0.007'))
pct = lambda p: lat[(p * len(lat) + 99) // 100 - 1]
s = summary['rdma']['wqe_latency_us']
say(len(lat) < len(perf) and '%.3f' % pct(50) == '%.3f' % s['p50'] and '%.3f' % pct(99) == '%.3f' % s['p99'],
    'the window 5..7 ms holds %d of %d WQEs, p50 %.3f p99 %.3f us, as summary.json (%.3f, %.3f)'
    % (len(lat), len(perf), pct(50), pct(99), s['p50'], s['p99']))
c = plots.get('wqe-latency-cdf.png')
ax = c['axes'][0] if c else {'title': '', 'lines': [], 'texts': [], 'legend': []}
words = ax['title'] + ' ' + ' '.join(ax['legend'])
say('recording window 5.000–7.000 ms' in words, 'CDF title and legend name the window: %r' % words)
say([ln['points'] for ln in ax['lines']] == [len(lat)], 'CDF: one line of the window\'s %d WQEs (%s)'
    % (len(lat), [ln['points'] for ln in ax['lines']]))
text = ' '.join(ax['texts'])
say('p50 %.3f µs' % s['p50'] in text and 'p99 %.3f µs' % s['p99'] in text and '= summary.json' in text,
    'CDF prints summary.json\'s p50 and p99: %r' % text)
EOF
grep -c . "$tmp/checks" >/dev/null || echo "FAIL the checks printed nothing" >>"$tmp/checks"
cat "$tmp/checks"
pass=$((pass + $(grep -c '^ok' "$tmp/checks"))) fail=$((fail + $(grep -c '^FAIL' "$tmp/checks")))
grep -q '^Traceback' "$tmp/checks" && fail=$((fail+1))

# --config: configs/rdma-rack.yaml's own timeline (window 50..250 us) matches its summary; a wrong one is flagged.
"$uetemu" run "$root/configs/rdma-rack.yaml" --out "$tmp/rack" --quiet >/dev/null ||
	{ echo "FAIL uetemu run rack"; exit 1; }
for set in "" simulation.WarmUp=30us; do
	"$root/scripts/plot" "$tmp/rack" "$tmp/rack-png" --config "$root/configs/rdma-rack.yaml" ${set:+--set $set} \
		>/dev/null 2>"$tmp/rack-notes" || ko "scripts/plot --config rdma-rack.yaml $set"
	want='recording window 0.050–0.250 ms (timeline of rdma-rack.yaml), .* = summary.json'
	[ -n "$set" ] && want='recording window 0.060–0.260 ms (timeline of rdma-rack.yaml with --set), .* DIFFERS'
	what="rdma-rack --config ${set:-as run}"
	if grep -q "WQE latency CDF: $want" "$tmp/rack-notes"; then ok "$what: $want"
	else ko "$what: want '$want', got: $(cat "$tmp/rack-notes")"; fi
done
# Without --config the window comes from summary.json (rdma.record_window_ps), whatever the config's timeline.
"$root/scripts/plot" "$tmp/rack" "$tmp/rack-png2" >/dev/null 2>"$tmp/rack-notes2" || ko "scripts/plot rack"
want='recording window 0.050–0.250 ms (summary.json rdma.record_window_ps), .* = summary.json'
if grep -q "WQE latency CDF: $want" "$tmp/rack-notes2"; then ok "rdma-rack without --config: $want"
else ko "rdma-rack without --config: want '$want', got: $(cat "$tmp/rack-notes2")"; fi
echo "test_plot: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
