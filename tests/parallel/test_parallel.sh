#!/usr/bin/env bash
# Virtual time over threads (docs/parallel.md): every output (records, captures, the uet-events record, the summary
# less its "parallel" member and wall_s, the table less its parallel lines) is byte-identical with 1, 2, 3 and 4
# threads, on fat-tree-128, leaf-spine and tests/parallel/parallel.yaml (captures of a link between threads, a
# fault on one, losses, timeouts), and on 2 threads sharing one CPU; --threads auto picks from the partitions, the
# CPUs and the hosts; a link of delay 0 between two partitions is refused, naming it; what runs on one thread says
# so and runs.
# Usage: test_parallel.sh UETEMU REPO_ROOT
set -uo pipefail
uetemu=$(realpath "$1") root=$(realpath "$2")
cd "$root"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
check() { if eval "$2"; then echo "ok   $1"; pass=$((pass+1)); else echo "FAIL $1"; fail=$((fail+1)); fi; }

# same A B: every file of two output folders equal; summary.json without wall_s and parallel
same() {
	local a=$1 b=$2 f
	for f in $( (ls "$a"; ls "$b") | sort -u); do
		[ "$f" = .uetemu.lock ] && continue
		if [ "$f" = summary.json ]; then
			cmp -s <(grep -v '"wall_s"\|"parallel"' "$a/$f" | sed "s#$a##g") \
				<(grep -v '"wall_s"\|"parallel"' "$b/$f" | sed "s#$b##g") || return 1
		else
			cmp -s "$a/$f" "$b/$f" || return 1
		fi
	done
	cmp -s <(sed -E -e '1s/in [0-9.]+ s wall//' -e '/^parallel: /d' -e '/^  thread /d' -e "s#$a##g" "$a.out") \
		<(sed -E -e '1s/in [0-9.]+ s wall//' -e '/^parallel: /d' -e '/^  thread /d' -e "s#$b##g" "$b.out")
}

for cfg in configs/fat-tree-128.yaml configs/leaf-spine.yaml tests/parallel/parallel.yaml; do
	name=$(basename "$cfg" .yaml)
	for t in 1 2 3 4; do
		"$uetemu" run "$cfg" -q --threads $t -s nic.EnableEventLogging=true --out "$tmp/$name-$t" \
			>"$tmp/$name-$t.out" 2>"$tmp/$name-$t.err"
		echo $? >"$tmp/$name-$t.rc"
	done
	check "$name: 1 thread completes (exit $(cat "$tmp/$name-1.rc"))" \
		'[ "$(cat "$tmp/$name-1.rc")" = 0 ] && grep -q "\"stop\": \"completed\"" "$tmp/$name-1/summary.json"'
	n=$(ls "$tmp/$name-1" | wc -l)
	for t in 2 3 4; do
		th=$(python3 -c "import json; print(json.load(open('$tmp/$name-$t/summary.json'))['parallel']['threads'])")
		check "$name: $t threads ($th run), exit $(cat "$tmp/$name-$t.rc"), all $n outputs identical to 1 thread's" \
			'[ "$(cat "$tmp/$name-$t.rc")" = 0 ] && [ "$th" -ge 2 ] && same "$tmp/$name-1" "$tmp/$name-$t"'
	done
	late=$(python3 -c "import json; print(sum(t['late'] + t['lost'] for t in
		json.load(open('$tmp/$name-4/summary.json'))['parallel']['threads_detail']))")
	check "$name: no frame crossed late or was lost between threads ($late)" '[ "$late" = 0 ]'
	pe() { python3 -c "import json; print([p['events'] for t in json.load(open('$1/summary.json'))['parallel'][
		'threads_detail'] for p in t['partitions']])"; }
	check "$name: each partition's events the same on 1 and 3 threads ($(pe "$tmp/$name-1"))" \
		'[ "$(pe "$tmp/$name-1" | tr -d "[] " | tr , "\n" | sort)" = "$(pe "$tmp/$name-3" | tr -d "[] " | tr , "\n" | sort)" ]'
done
# busy_s + wait_s of each thread (tests/lib/busy_wait.py)
bw() { python3 "$root/tests/lib/busy_wait.py" "$1" "$2"; }
res=$(bw "$tmp/parallel-2" 2)
check "parallel.yaml on 2 threads: busy_s/wait_s of each thread within its wall time ($res)" '[[ "$res" == *" ok" ]]'
res=$(bw "$tmp/parallel-1" 1)
check "parallel.yaml on 1 thread: no busy_s or wait_s, the same every run ($res)" '[[ "$res" == *" ok" ]]'
# the captures and the events went through the threads' logs: there is something in them
frames=$(tshark -r "$tmp/parallel-4/spine-link.pcap" 2>/dev/null | wc -l)
check "parallel.yaml: the capture of the link between threads holds frames ($frames), as 1 thread's" \
	'[ "$frames" -gt 100 ] && cmp -s "$tmp/parallel-1/spine-link.pcap" "$tmp/parallel-4/spine-link.pcap"'
drops=$(python3 -c "import json; d=json.load(open('$tmp/parallel-3/summary.json'))['drop_reasons'];
print(d.get('link_down_drop', 0), d.get('link_loss_drop', 0))")
check "parallel.yaml: the faults on links between threads drop frames (down, loss: $drops)" \
	'[ "${drops% *}" -gt 0 ] && [ "${drops#* }" -gt 0 ]'
# the EAL's lcore list names the threads too: -- -l 0-2 is 3, with the same outputs
"$uetemu" run configs/leaf-spine.yaml -q -s nic.EnableEventLogging=true --out "$tmp/ls-l" -- -l 0-2 >"$tmp/ls-l.out" 2>&1
th=$(python3 -c "import json; print(json.load(open('$tmp/ls-l/summary.json'))['parallel']['threads'])")
check "leaf-spine, -- -l 0-2: $th threads, outputs identical to 1 thread's" '[ "$th" = 3 ] && same "$tmp/leaf-spine-1" "$tmp/ls-l"'
# two threads on one CPU: each waits asleep (a futex) and runs the other's phases when that one has no CPU; the
# outputs stay the same
taskset -c 0 "$uetemu" run configs/fat-tree-128.yaml -q --threads 2 -s nic.EnableEventLogging=true \
	--out "$tmp/ft-cpu0" >"$tmp/ft-cpu0.out" 2>&1
th=$(python3 -c "import json; print(json.load(open('$tmp/ft-cpu0/summary.json'))['parallel']['threads'])")
check "fat-tree-128, 2 threads on one CPU (taskset -c 0): $th threads, outputs identical to 1 thread's" \
	'[ "$th" = 2 ] && same "$tmp/fat-tree-128-1" "$tmp/ft-cpu0"'
# --threads auto: the partitions, the free CPUs, 32 hosts a thread at least
auto() { python3 -c "import json; p=json.load(open('$1/summary.json'))['parallel']; print(p['threads'], p['threads_auto'])"; }
"$uetemu" run configs/fat-tree-128.yaml -q --threads auto -s nic.EnableEventLogging=true --out "$tmp/ft-auto" \
	>"$tmp/ft-auto.out" 2>&1
a=$(auto "$tmp/ft-auto")
check "fat-tree-128, --threads auto: $a; outputs identical to 1 thread's" \
	'[[ "$a" == [12]" auto: 32 partitions, "[12]" of $(nproc) CPUs free, 128 hosts"* ]] && same "$tmp/fat-tree-128-1" "$tmp/ft-auto"'
taskset -c 0 "$uetemu" run configs/fat-tree-128.yaml -q --threads auto --out "$tmp/ft-auto1" >/dev/null 2>&1
a=$(auto "$tmp/ft-auto1")
check "fat-tree-128, --threads auto on one CPU: $a" '[[ "$a" == "1 auto: 32 partitions, 1 of 1 CPUs free"* ]]'
"$uetemu" run configs/leaf-spine.yaml -q --threads auto --out "$tmp/ls-auto" >/dev/null 2>&1
a=$(auto "$tmp/ls-auto")
check "leaf-spine (16 hosts), --threads auto: $a" '[[ "$a" == "1 auto: 4 partitions, "*", 16 hosts"* ]]'
out=$("$uetemu" run configs/leaf-spine.yaml -q --threads autox 2>&1); rc=$?
check "--threads autox is a usage error (exit $rc)" '[ $rc -eq 2 ] && [[ "$out" == *"1 to 64, or auto"* ]]'
# 8 threads for 4 partitions: 4 run
"$uetemu" run configs/leaf-spine.yaml -q --threads 8 --out "$tmp/ls8" >/dev/null 2>&1
th=$(python3 -c "import json; print(json.load(open('$tmp/ls8/summary.json'))['parallel']['threads'])")
check "leaf-spine, --threads 8: as many threads as partitions ($th)" '[ "$th" = 4 ]'

# a partition boundary on a link of delay 0: refused, the link named
out=$("$uetemu" run configs/leaf-spine.yaml -q --threads 2 -s topology.Delay.leaf=0ns --out "$tmp/zero" 2>&1); rc=$?
check "a zero-delay link between partitions with 2 threads: exit $rc, '$(echo "$out" | head -1)'" \
	'[ $rc -eq 1 ] && [[ "$out" == *": link leaf"*"-spine"*" joins partitions rack"*"with a delay of 0"* ]]'
"$uetemu" run configs/leaf-spine.yaml -q --threads 1 -s topology.Delay.leaf=0ns --out "$tmp/zero1" >/dev/null 2>&1
check "... and runs on one thread (exit $?)" '[ -s "$tmp/zero1/summary.json" ]'
out=$("$uetemu" run configs/leaf-spine.yaml -q --threads 0 2>&1); rc=$?
check "--threads 0 is a usage error (exit $rc)" '[ $rc -eq 2 ] && [[ "$out" == *"expected a number of threads"* ]]'
# what runs on one thread only says so and runs there
out=$("$uetemu" run configs/rdma-rack.yaml -q --threads 2 --out "$tmp/rdma" 2>&1 >/dev/null); rc=$?
check "the ScalaRdma application with --threads 2: one thread, said (exit $rc)" \
	'[ $rc -eq 0 ] && [[ "$out" == *"one thread: the ScalaRdma application runs on one thread"* ]]'

# a signal stops every thread: the run ends as "signal" with its outputs written
"$uetemu" run configs/fat-tree-1024.yaml -q --threads 2 --out "$tmp/sig" >/dev/null 2>&1 &
pid=$!
sleep 1
kill -INT $pid
wait $pid
rc=$?
check "SIGINT during a run on 2 threads: exit $rc, stop \"signal\", summary written" \
	'[ $rc -eq 3 ] && grep -q "\"stop\": \"signal\"" "$tmp/sig/summary.json"'

echo "test_parallel: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
