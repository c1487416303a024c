#!/usr/bin/env bash
# uetemu merge (docs/parallel.md): the record shards of `mpirun -np 2 uetemu run configs/fat-tree-128.yaml` (every
# periodic record on, every 10 us, and uet-events) joined by `uetemu merge DIR --out MERGED` are the one-process
# run's CSVs byte for byte, under the one-process names; summary.json is rank 0's; the capture shards of
# tests/parallel/parallel.yaml (pcap and pcapng) are its one-process captures byte for byte; bad input is refused
# with a message. Skipped (77) without mpirun or in a build without MPI. Usage: test_merge.sh UETEMU REPO_ROOT
set -uo pipefail
uetemu=$(realpath "$1") root=$(realpath "$2")
cd "$root"
command -v mpirun >/dev/null || { echo "SKIP: no mpirun (Debian: openmpi-bin)"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
check() { if eval "$2"; then echo "ok   $1"; pass=$((pass+1)); else echo "FAIL $1"; fail=$((fail+1)); fi; }

sets=(--set simulation.NDStatsReportInterval=10us --set simulation.EnableNetworkBufferStatsReporting=true
	--set simulation.EnablePCIeStatsLogging=true --set nic.EnableBufferStats=true --set nic.EnableEventLogging=true
	--set switch.ReportPerPortBufferStats=true)
out=$(timeout 300 mpirun --oversubscribe -np 2 "$uetemu" run configs/fat-tree-128.yaml -q --out "$tmp/ranks" \
	"${sets[@]}" 2>&1); rc=$?
if [[ "$out" == *"built without MPI"* ]]; then echo "SKIP: $uetemu was built without MPI"; exit 77; fi
check "mpirun -np 2 run configs/fat-tree-128.yaml: exit 0 ($rc)" '[ $rc -eq 0 ]'
"$uetemu" run configs/fat-tree-128.yaml -q --out "$tmp/one" "${sets[@]}" >/dev/null
check "2 ranks wrote 2 shards of each record" \
	'[ "$(ls "$tmp/ranks" | grep -c -- "-1\.csv$")" -eq "$(ls "$tmp/one" | grep -c -- "-0\.csv$")" ]'

m=$("$uetemu" merge "$tmp/ranks" --out "$tmp/merged"); rc=$?
n=$(ls "$tmp/one" | grep -c '\.csv$')
check "merge: exit 0, '$m'" '[ $rc -eq 0 ] && [ "$m" = "uetemu merge: $n records from 2 ranks into $tmp/merged" ]'
check "merge: the one-process run's $n CSV names, no others" \
	'[ "$(cd "$tmp/one" && ls *.csv)" = "$(cd "$tmp/merged" && ls *.csv)" ]'
for f in "$tmp"/one/*.csv; do
	b=$(basename "$f")
	case $b in *-uet-monitor-*) continue ;; esac
	check "$b: merged = one process, byte for byte ($(wc -l <"$f") lines)" 'cmp -s "$f" "$tmp/merged/$b"'
done
check "summary.json: rank 0's, copied" 'cmp -s "$tmp/ranks/summary.json" "$tmp/merged/summary.json"'
# Captures: tests/parallel/parallel.yaml's two (a link between the ranks, whose directions two ranks write, and a
# host link one rank writes, the other's shard empty), as pcap and as pcapng (its statistics block summed): the
# merged files are the one-process run's, byte for byte, under its names.
for fmt in pcap pcapng; do
	cs=(--set "captures.0.format=$fmt" --set "captures.1.format=$fmt")
	timeout 300 mpirun --oversubscribe -np 2 "$uetemu" run tests/parallel/parallel.yaml -q --out "$tmp/c2-$fmt" \
		"${cs[@]}" >/dev/null 2>&1
	"$uetemu" run tests/parallel/parallel.yaml -q --out "$tmp/c1-$fmt" "${cs[@]}" >/dev/null
	m=$("$uetemu" merge "$tmp/c2-$fmt" --out "$tmp/cm-$fmt"); rc=$?
	check "merge of parallel.yaml's shards ($fmt): exit $rc, '$m'" '[ $rc -eq 0 ] && [[ "$m" == *" and 2 captures from 2 ranks "* ]]'
	for f in "$tmp/c1-$fmt"/*."$fmt" "$tmp/c1-$fmt"/*.csv; do
		b=$(basename "$f")
		case $b in *-uet-monitor-*) continue ;; esac
		check "$b: merged = one process, byte for byte ($(ls "$tmp/c2-$fmt/${b%.*}"-[0-9]*."$fmt" 2>/dev/null | wc -l) shards)" \
			'cmp -s "$f" "$tmp/cm-$fmt/$b"'
	done
done
cp "$tmp/c2-pcap/spine-link-0.pcap" "$tmp/c2-pcap/x-0.pcap" && head -c 100 "$tmp/c2-pcap/spine-link-1.pcap" >"$tmp/c2-pcap/x-1.pcap"
"$uetemu" merge "$tmp/c2-pcap" --out "$tmp/cm-bad" >/dev/null 2>"$tmp/e"; rc=$?
check "a capture shard cut short: refused ($(cat "$tmp/e"))" '[ $rc -eq 1 ] && grep -q "x-1.pcap: a record cut short" "$tmp/e"'

# Refused: no DIR, no --out, --out DIR itself, a folder without shards, a missing shard, a foreign shard.
"$uetemu" merge "$tmp/ranks" >/dev/null 2>"$tmp/e"; rc=$?
check "no --out: usage error 2" '[ $rc -eq 2 ] && grep -q "missing --out" "$tmp/e"'
"$uetemu" merge "$tmp/ranks" --out "$tmp/ranks" >/dev/null 2>"$tmp/e"; rc=$?
check "--out DIR itself: refused ($(cat "$tmp/e"))" '[ $rc -eq 1 ] && grep -q "is DIR itself" "$tmp/e"'
mkdir "$tmp/empty"
"$uetemu" merge "$tmp/empty" --out "$tmp/m2" >/dev/null 2>"$tmp/e"; rc=$?
check "no shards: refused ($(cat "$tmp/e"))" '[ $rc -eq 1 ] && grep -q "no record shards" "$tmp/e"'
mkdir "$tmp/gap" && cp "$tmp/ranks"/*-nd-stats-0.csv "$tmp/gap/" &&
	cp "$tmp/ranks/fat-tree-128-nd-stats-1.csv" "$tmp/gap/fat-tree-128-nd-stats-2.csv"
"$uetemu" merge "$tmp/gap" --out "$tmp/m3" >/dev/null 2>"$tmp/e"; rc=$?
check "a missing shard: refused ($(cat "$tmp/e"))" '[ $rc -eq 1 ] && grep -q "a shard is missing" "$tmp/e"'
mkdir "$tmp/mix" && cp "$tmp/ranks"/*-nd-stats-0.csv "$tmp/mix/" &&
	cp "$tmp/ranks/fat-tree-128-pcie-stats-1.csv" "$tmp/mix/fat-tree-128-nd-stats-1.csv"
"$uetemu" merge "$tmp/mix" --out "$tmp/m4" >/dev/null 2>"$tmp/e"; rc=$?
check "a shard of another record: refused ($(cat "$tmp/e"))" '[ $rc -eq 1 ] && grep -q "header is not" "$tmp/e"'
echo "test_merge: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
