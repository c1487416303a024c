#!/usr/bin/env bash
# scripts/plot (issue 6): the default scenario's outputs become four non-empty PNGs (WQE latency CDF, per-host
# goodput, congestion window and RTT, switch queues). Usage: test_plot.sh UETEMU REPO_ROOT
set -uo pipefail
uetemu=$(realpath "$1") root=$(realpath "$2")
[ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import matplotlib' 2>/dev/null || { echo "SKIP: python3-matplotlib not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
"$uetemu" run "$root/configs/default.yaml" --out "$tmp/out" --quiet >/dev/null || { echo "FAIL uetemu run"; exit 1; }
"$root/scripts/plot" "$tmp/out" "$tmp/png" >/dev/null || { echo "FAIL scripts/plot"; exit 1; }
for png in wqe-latency-cdf goodput cwnd-rtt queues; do
	f="$tmp/png/$png.png"
	if [ -s "$f" ] && [ "$(head -c 8 "$f" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ]; then
		echo "ok   $png.png ($(stat -c %s "$f") bytes)"; pass=$((pass+1))
	else
		echo "FAIL $png.png missing, empty or not a PNG"; fail=$((fail+1))
	fi
done
echo "test_plot: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
