#!/usr/bin/env bash
# Virtual-time speed: run tests/bench/pairs.yaml (8 pairs, 1 GiB in all over 16 x 400 Gb/s NIC ports) and print
# events per second and simulated time per wall second. Figures only, no assertion.
set -euo pipefail
uetemu=$(realpath "$1") root=$(realpath "$2")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$uetemu" run "$root/tests/bench/pairs.yaml" --out "$tmp" --quiet >/dev/null
python3 - "$tmp/summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
w, ev, sim = s['wall_s'], s['events'], s['sim_time_ps'] / 1e12
pk = sum(h['counters']['write_pkts_sent'] + h['counters']['ack_pkts_sent'] for h in s['hosts'])
print('bench_virtual: %d messages, %.3f ms simulated in %.3f s wall: %.2f M events/s, %.2f M packets/s, '
      'slowdown %.1fx' % (s['messages']['completed'], sim * 1e3, w, ev / w / 1e6, pk / w / 1e6, w / sim))
PY
