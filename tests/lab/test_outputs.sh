#!/usr/bin/env bash
# Outputs a run can rely on: two runs never share an output directory (a lock), and a full disk gives a clear
# error naming the file and "No space left on device", a non-zero exit, and files that stay well formed (whole
# CSV rows, whole pcap records, no half summary.json). The disk-full part mounts a small tmpfs: root only (without
# root the lock part runs and the test exits 77, skipped).
# Usage: test_outputs.sh UETEMU REPO_ROOT
set -uo pipefail
uetemu=$(realpath "$1") root=$(realpath "$2")
cd "$root"
tmp=$(mktemp -d)
mnt="$tmp/full"
cleanup() { mountpoint -q "$mnt" && umount "$mnt"; rm -rf "$tmp"; }
trap cleanup EXIT
pass=0 fail=0
check() { if eval "$2"; then echo "ok   $1"; pass=$((pass+1)); else echo "FAIL $1"; fail=$((fail+1)); fi; }

# 1. the lock: while another process holds DIR/.uetemu.lock, a run into DIR refuses to start
mkdir -p "$tmp/busy"
flock -o "$tmp/busy/.uetemu.lock" sleep 5 &
holder=$!
sleep 0.3
out=$("$uetemu" run configs/pair.yaml -q -o "$tmp/busy" 2>&1); rc=$?
check "a second run into a locked directory: exit $rc, '$out'" \
	'[ $rc -eq 1 ] && [[ "$out" == *"another uetemu run is writing its outputs here"* ]] && [ ! -f "$tmp/busy/summary.json" ]'
kill $holder 2>/dev/null; wait $holder 2>/dev/null
"$uetemu" run configs/pair.yaml -q -o "$tmp/busy" >/dev/null; rc=$?
check "once the other run is gone the directory is free again (exit $rc)" '[ $rc -eq 0 ]'

# 2. a full disk
if [ "$(id -u)" -ne 0 ]; then
	echo "test_outputs: $pass passed, $fail failed (disk-full part skipped: not root)"
	[ "$fail" -eq 0 ] || exit 1
	exit 77 # half of the test did not run: meson reports it skipped, not passed
fi
mkdir -p "$mnt"
mount -t tmpfs -o size=512k tmpfs "$mnt"
out=$("$uetemu" run configs/pair.yaml -q -o "$mnt/o" 2>&1 >"$tmp/stdout"); rc=$?
check "disk full: exit $rc, the error names a file and says 'No space left on device': $out" \
	'[ $rc -eq 1 ] && [[ "$out" == *"$mnt/o/"*": No space left on device"* ]]'
check "disk full: the summary table still reaches stdout" 'grep -qE "^messages: [0-9]+ posted" "$tmp/stdout"'
python3 - "$mnt/o" <<'PY' >"$tmp/wf"; rc=$?
import csv, glob, json, os, struct, sys
d = sys.argv[1]
bad = []
for p in glob.glob(os.path.join(d, '*.csv')):
    data = open(p, 'rb').read()
    if data and not data.endswith(b'\n'):
        bad.append('%s: ends inside a row' % p)
    rows = list(csv.reader(data.decode().splitlines()))
    if rows and any(len(r) != len(rows[0]) for r in rows):
        bad.append('%s: a row with another column count' % p)
for p in glob.glob(os.path.join(d, '*.pcap')):
    data = open(p, 'rb').read()
    at = 24 if len(data) >= 24 else len(data)
    while at + 16 <= len(data):
        caplen = struct.unpack_from('<I', data, at + 8)[0]
        at += 16 + caplen
    if at != len(data):
        bad.append('%s: ends inside a record (%d of %d bytes whole)' % (p, at, len(data)))
s = os.path.join(d, 'summary.json')
if os.path.exists(s):
    json.load(open(s))
if glob.glob(os.path.join(d, '.summary.json.tmp')):
    bad.append('a temporary summary was left behind')
print('%d files checked; %s' % (len(os.listdir(d)), '; '.join(bad) or 'all well formed'))
sys.exit(1 if bad else 0)
PY
check "disk full: what was written stays well formed: $(cat "$tmp/wf")" '[ $rc -eq 0 ]'
echo "test_outputs: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
