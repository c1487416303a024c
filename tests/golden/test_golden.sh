#!/usr/bin/env bash
# Golden capture: tests/golden/small.yaml must reproduce the checked-in pcap and uet-events record byte for byte.
# Usage: test_golden.sh UETEMU REPO_ROOT [--update]
set -uo pipefail
uetemu=$(realpath "$1") root=$(realpath "$2")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$uetemu" run "$root/tests/golden/small.yaml" --out "$tmp" --quiet >/dev/null || { echo "FAIL uetemu run"; exit 1; }
files=(golden.pcap golden-uet-events-0.csv)
if [ "${3:-}" = "--update" ]; then
	for f in "${files[@]}"; do cp "$tmp/$f" "$root/tests/golden/$f"; done
	echo "golden files updated"; exit 0
fi
pass=0 fail=0
for f in "${files[@]}"; do
	if cmp -s "$tmp/$f" "$root/tests/golden/$f"; then echo "ok   $f identical"; pass=$((pass+1))
	else echo "FAIL $f differs from tests/golden/$f"; fail=$((fail+1)); fi
done
echo "test_golden: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
