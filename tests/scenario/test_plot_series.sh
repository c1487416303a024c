#!/usr/bin/env bash
# scripts/plot on the message workloads (configs/incast.yaml, pair.yaml, leaf-spine.yaml, their records starting
# at 0): with an interval a tenth of the run or finer, every time series has more than 10 points, the level axes
# (receive rate, congestion window, RTT) start at 0 and every series has a label; at the default 1 ms interval the
# script warns, naming the record, the reason and what to set; and a 2-rank MPI run's plot reads both shards
# (skipped without mpirun or MPI). Usage: test_plot_series.sh UETEMU REPO_ROOT
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

# CONFIG INTERVAL: the shipped config's plots as it is (its intervals INTERVAL), each time series with more
# than 10 points
for spec in incast:20us pair:20us leaf-spine:5us; do
	c=${spec%%:*} ivl=${spec#*:}
	grep -q "NDStatsReportInterval: $ivl" "$root/configs/$c.yaml" || ko "configs/$c.yaml: NDStatsReportInterval $ivl"
	"$uetemu" run "$root/configs/$c.yaml" --out "$tmp/$c" --quiet >/dev/null || { ko "uetemu run $c"; continue; }
	"$root/scripts/plot" "$tmp/$c" "$tmp/$c-png" --describe >"$tmp/$c.desc" 2>"$tmp/$c.notes" ||
		{ ko "scripts/plot $c: $(cat "$tmp/$c.notes")"; continue; }
	$py - "$c" "$tmp/$c.desc" >"$tmp/$c.checks" 2>&1 <<'PY'
import json, sys
name, desc = sys.argv[1], sys.argv[2]
def say(good, msg):
    print(('ok   ' if good else 'FAIL ') + name + ': ' + msg)
plots = {d['png'].rsplit('/', 1)[1]: d for d in map(json.loads, open(desc))}
say('goodput.png' in plots and 'cwnd-rtt.png' in plots, 'goodput.png and cwnd-rtt.png drawn (%s)' % sorted(plots))
for png in ('goodput.png', 'cwnd-rtt.png'):
    for i, ax in enumerate(plots.get(png, {}).get('axes', [])):
        pts = [ln['points'] for ln in ax['lines']]
        say(pts and min(pts) > 10, '%s panel %d: %d series, each more than 10 points (fewest %s)'
            % (png, i, len(pts), min(pts) if pts else None))
        say(ax['ylim'][0] == 0, '%s panel %d (%s): y axis from 0 (%s)' % (png, i, ax['ylabel'], ax['ylim'][0]))
        labels = [ln['label'] for ln in ax['lines']]
        say(all(l and not l.startswith('_') for l in labels) and len(set(labels)) == len(labels),
            '%s panel %d: every series labelled, each its own label (%s)' % (png, i, ', '.join(labels[:4])))
PY
	cat "$tmp/$c.checks"
	pass=$((pass + $(grep -c '^ok' "$tmp/$c.checks"))) fail=$((fail + $(grep -c '^FAIL' "$tmp/$c.checks")))
	grep -q '^Traceback' "$tmp/$c.checks" && ko "$c: the checks failed"
	if grep -q 'warning' "$tmp/$c.notes"; then ko "$c at $ivl: warned: $(grep warning "$tmp/$c.notes")"
	else ok "$c at $ivl: no few-rows warning"; fi
done

# The pages' default interval (1 ms) over a 0.345 ms run: one row per host, and the script says so and what to set.
"$uetemu" run "$root/configs/incast.yaml" --out "$tmp/one" --quiet --set simulation.NDStatsReportInterval=1ms \
	--set switch.SharedBufferManager.BufferStatsReportInterval=1ms >/dev/null || ko "uetemu run incast"
"$root/scripts/plot" "$tmp/one" "$tmp/one-png" >/dev/null 2>"$tmp/one.notes"
want="warning: nd-stats has only 1 row per device: the run ended (0.344977 ms) before the records' start (0, or "
want+="simulation.RecordStartTime) + NDStatsReportInterval, or just after; set simulation.NDStatsReportInterval shorter"
if grep -qF "$want" "$tmp/one.notes"; then ok "incast at 1 ms: '$want'"
else ko "incast at 1 ms: want '$want', got: $(cat "$tmp/one.notes")"; fi

# Two MPI ranks (configs/leaf-spine.yaml, a partition per rack): the plot reads both shards of each record.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
if ! command -v mpirun >/dev/null; then
	echo "skip the MPI case: no mpirun"
elif out=$(timeout 300 mpirun --oversubscribe -np 2 "$uetemu" run "$root/configs/leaf-spine.yaml" -q \
		--out "$tmp/mpi" --set simulation.NDStatsReportInterval=5us 2>&1); [[ "$out" == *"built without MPI"* ]]; then
	echo "skip the MPI case: $uetemu built without MPI"
else
	"$root/scripts/plot" "$tmp/mpi" "$tmp/mpi-png" --describe >"$tmp/mpi.desc" 2>"$tmp/mpi.notes" ||
		ko "scripts/plot on the MPI run: $(cat "$tmp/mpi.notes")"
	n1=$($py -c "import json,sys; print([len(d['axes'][0]['lines']) for d in map(json.loads, open(sys.argv[1])) if d['png'].endswith('goodput.png')])" "$tmp/leaf-spine.desc")
	n2=$($py -c "import json,sys; print([len(d['axes'][0]['lines']) for d in map(json.loads, open(sys.argv[1])) if d['png'].endswith('goodput.png')])" "$tmp/mpi.desc")
	if grep -q "nd-stats: .* rows from 2 shards (leaf-spine-nd-stats-0.csv, leaf-spine-nd-stats-1.csv)" "$tmp/mpi.notes" &&
		[ "$n1" = "$n2" ]; then ok "2 ranks: nd-stats read from both shards, goodput.png $n2 hosts as one process ($n1)"
	else ko "2 ranks: want both shards and $n1 hosts, got $n2: $(cat "$tmp/mpi.notes")"; fi
fi
echo "test_plot_series: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
