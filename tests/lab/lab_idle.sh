#!/usr/bin/env bash
# The lab's figures, run after run (docs/realtime.md, Lateness): ./scripts/lab N times on configs/lab-bridge.yaml
# (or LAB_CONFIG), one line per run with what issue "Results a lab can trust" asks of an idle machine: timeouts,
# retransmissions, drops, lateness p50/p99/max, passes late > 10 us, timers fired late, the timing verdict; then
# the load average it ran at. Not a test (it checks nothing): the measurement to rerun on an idle machine.
#
# Usage, as root: tests/lab/lab_idle.sh [RUNS] [uetemu run options...]
#   RUNS             default 3
#   options          passed to scripts/lab (e.g. --set nic.EnableEventLogging=false, --pass-profile)
#   UETEMU=path      the uetemu binary (default <repo>/build/uetemu)
#   LAB_CONFIG=path  the scenario (default <repo>/configs/lab-bridge.yaml)
#   LAB_OUT=dir      where the runs' outputs go (default a temporary directory, removed at the end)
# Each run is bounded by 60 s. Exit status: 0 every run exited 0, 1 otherwise.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
RUNS=3
if [ $# -gt 0 ] && [[ "$1" =~ ^[0-9]+$ ]]; then
	RUNS=$1
	shift
fi
[ "$(id -u)" -eq 0 ] || { echo "lab_idle: needs root (scripts/lab)" >&2; exit 1; }
UETEMU=$(realpath -m "${UETEMU:-$ROOT/build/uetemu}")
CONFIG=$(realpath -m "${LAB_CONFIG:-$ROOT/configs/lab-bridge.yaml}")
OUT=${LAB_OUT:-}
KEEP=1
if [ -z "$OUT" ]; then
	OUT=$(mktemp -d "${TMPDIR:-/tmp}/lab_idle.XXXXXX") || exit 1
	KEEP=0
fi
mkdir -p "$OUT" || exit 1
rc_all=0
for i in $(seq "$RUNS"); do
	load=$(cut -d' ' -f1 /proc/loadavg)
	timeout -s TERM -k 10 60 env UETEMU="$UETEMU" LAB_NS="labidle$$-$i" "$ROOT/scripts/lab" "$CONFIG" \
		--out "$OUT/run$i" --quiet "$@" >"$OUT/run$i.log" 2>&1
	rc=$?
	[ "$rc" -eq 0 ] || rc_all=1
	python3 - "$OUT/run$i/summary.json" "$i" "$rc" "$load" <<'EOF' || { echo "run $2: exit $rc, no summary.json"; sed 's/^/  /' "$OUT/run$i.log" | tail -n 5; }
import json, sys
s = json.load(open(sys.argv[1]))
rt, t, v = s["realtime"], s["counters"], s["verdict"]
print("run %s: exit %s, load %s; timeouts %d, retransmits %d, drops %d; lateness p50 %.3f us, p99 %.3f us, "
      "max %.3f us; %d of %d passes due late > 10 us; timers late %d of %d; timing %s" % (
          sys.argv[2], sys.argv[3], sys.argv[4], t["timeouts"], t["retransmits"], t["drops"],
          rt["lateness_p50_ns"] / 1e3, rt["lateness_p99_ns"] / 1e3, rt["lateness_max_ns"] / 1e3,
          rt["passes_late_over_10us"], rt["passes_due"], rt["timers_fired_late"], rt["timers_fired"],
          v["timing"]))
EOF
	grep '^\[uetemu\] pass profile' "$OUT/run$i.log" | sed 's/^/  /'
done
echo "lab_idle: $RUNS runs of $(basename "$CONFIG") $*; load average now $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
if [ "$KEEP" = 1 ]; then echo "lab_idle: outputs in $OUT"; else rm -rf "$OUT"; fi
exit "$rc_all"
