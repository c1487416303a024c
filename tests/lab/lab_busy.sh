#!/usr/bin/env bash
# The lab under load (docs/realtime.md, Lateness and Timing verdict): ./scripts/lab on configs/lab-bridge.yaml with
# a busy loop per CPU beside it (--allow-incomplete: a message the stalls held past the stop time is not the
# point). The run must end at its stop time (exit 0) with its timing verdict degraded or invalid and the reason
# naming the lateness that caused it. The idle case, trusted with 0 timeouts, is lab_bridge.sh's (checked when
# the machine is idle).
# Usage: lab_busy.sh UETEMU REPO_ROOT. Exit status: 0 all passed, 1 a check failed, 77 skipped (not root).
set -uo pipefail
LAB_NAME=lab_busy
# shellcheck source=tests/lab/lablib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lablib.sh"
lab_init "$@"
HOGS=()
stop_hogs() { local p; for p in "${HOGS[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; HOGS=(); }
trap 'stop_hogs; lab_cleanup' EXIT

for _ in $(seq "$(nproc)"); do
	bash -c 'while :; do :; done' &
	HOGS+=($!)
done
timeout -s TERM -k 10 60 env UETEMU="$UETEMU" LAB_NS="labbusy$$" "$ROOT/scripts/lab" \
	"$ROOT/configs/lab-bridge.yaml" --out "$WORK/out" --quiet --allow-incomplete >"$WORK/lab.log" 2>&1
rc=$?
stop_hogs
v=$(python3 -c 'import json, sys
s = json.load(open(sys.argv[1])); v = s["verdict"]; r = s["realtime"]; m = s["messages"]
print(v["timing"], m["completed"], m["posted"], s["counters"]["timeouts"], r["lateness_p99_ns"], r["lateness_max_ns"])
print(v.get("timing_why", ""))' "$WORK/out/summary.json" 2>&1)
read -r timing completed posted timeouts p99 max <<<"$(head -n 1 <<<"$v")"
why=$(tail -n 1 <<<"$v")
echo "$(nproc) busy loops: $completed of $posted messages completed, timing $timing, lateness p99 ${p99:-?} ns, max ${max:-?} ns, $timeouts timeouts; $why"
check "scripts/lab exited 0 ($rc)" '[ "$rc" = 0 ]'
[ "$rc" = 0 ] || tail -n 20 "$WORK/lab.log" | sed 's/^/  /'
check "timing degraded or invalid ($timing)" '[ "$timing" = degraded ] || [ "$timing" = invalid ]'
check "the verdict names the lateness that caused it" '[[ "$why" == *"lateness "* ]]'
finish
