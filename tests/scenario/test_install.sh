#!/usr/bin/env bash
# meson install: the binary, the man page, the Wireshark dissector, every example config and every doc land under
# DESTDIR where the build's prefix, bindir, mandir and datadir say; the installed binary runs; the man page renders.
# Usage: test_install.sh BUILD_DIR REPO_ROOT
set -uo pipefail
build=$(realpath "$1") root=$(realpath "$2")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
check() { if eval "$2"; then echo "ok   $1"; pass=$((pass+1)); else echo "FAIL $1"; fail=$((fail+1)); fi; }

meson install -C "$build" --destdir "$tmp/dest" --no-rebuild --quiet >"$tmp/log" 2>&1; rc=$?
check "meson install --destdir exits 0 ($rc)" '[ $rc -eq 0 ]'
[ $rc -eq 0 ] || sed 's/^/  /' "$tmp/log"

# the install directories of this build, as absolute paths (meson joins relative ones to the prefix)
read -r prefix bindir mandir datadir < <(meson introspect "$build" --buildoptions | python3 -c '
import json, os, sys
o = {x["name"]: x["value"] for x in json.load(sys.stdin)}
p = o["prefix"]
print(p, *(os.path.join(p, o[k]) for k in ("bindir", "mandir", "datadir")))')
check "build options read (prefix '$prefix')" '[ -n "${datadir:-}" ]'
d=$tmp/dest

check "binary $bindir/uetemu" '[ -x "$d$bindir/uetemu" ]'
out=$("$d$bindir/uetemu" version 2>&1)
check "the installed binary runs: '$out'" '[[ "$out" =~ ^uetemu\ [0-9]+\.[0-9]+\.[0-9]+$ ]]'
man1=$d$mandir/man1/uetemu.1
check "man page $mandir/man1/uetemu.1" '[ -f "$man1" ] && cmp -s "$man1" "$root/docs/uetemu.1"'
if command -v groff >/dev/null; then
	warn=$(groff -man -Tutf8 -ww -z "$man1" 2>&1)
	check "the installed man page renders without warnings${warn:+: $warn}" \
		'[ -z "$warn" ] && groff -man -Tutf8 -P-cbou "$man1" 2>/dev/null | grep -q "^EXIT STATUS"'
fi
check "Wireshark dissector $datadir/uetemu/wireshark/uet.lua" \
	'cmp -s "$d$datadir/uetemu/wireshark/uet.lua" "$root/scripts/wireshark/uet.lua"'
for f in "$root"/configs/*.yaml; do
	n=$(basename "$f")
	check "config $datadir/uetemu/configs/$n" 'cmp -s "$d$datadir/uetemu/configs/$n" "$f"'
done
for f in "$root"/docs/*.md; do
	n=$(basename "$f")
	check "doc $datadir/doc/uetemu/$n" 'cmp -s "$d$datadir/doc/uetemu/$n" "$f"'
done
# bpf/: the CE marker's and the trimmer's loaders and the BPF objects, when this build has them (libbpf; clang for
# the objects)
if [ -e "$build/bpf/uetemu-ecn" ]; then
	check "loader $bindir/uetemu-ecn runs (help)" '"$d$bindir/uetemu-ecn" help | grep -q "uetemu-ecn attach"'
	check "loader $bindir/uetemu-trim runs (help)" '"$d$bindir/uetemu-trim" help | grep -q "uetemu-trim attach"'
fi
for o in ebpf_ecn ebpf_trim ebpf_xdp_steer; do
	[ -e "$build/bpf/$o.bpf.o" ] || continue
	check "BPF object $datadir/uetemu/bpf/$o.bpf.o" 'cmp -s "$d$datadir/uetemu/bpf/$o.bpf.o" "$build/bpf/$o.bpf.o"'
done
check "docs/summary.md among the installed docs" '[ -f "$d$datadir/doc/uetemu/summary.md" ]'
# an installed config validates with the installed binary
check "the installed binary validates the installed configs/pair.yaml" \
	'"$d$bindir/uetemu" validate "$d$datadir/uetemu/configs/pair.yaml" >/dev/null'

echo "install: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
