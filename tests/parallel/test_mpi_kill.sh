#!/usr/bin/env bash
# A rank killed mid-run (docs/parallel.md, When a rank dies): `mpirun -np 2 uetemu run configs/fat-tree-1024.yaml`
# with rank 1 killed (SIGKILL) 2 s after both ranks started; rank 0 must be gone within 10 s, and mpirun exit non-zero. Twice: as the
# other MPI tests run it (mpirun ends the job when a rank dies), and with --mca orte_abort_on_non_zero_status 0
# (mpirun keeps the job going), where rank 0's own bounded waits end it: it says which rank has gone. Then rank 1
# sent SIGINT instead: rank 0 stops with it and says why (not "stalled"): summary.json stop "signal", exit 3.
# Skipped (77) without mpirun or in a build without MPI. Usage: test_mpi_kill.sh UETEMU REPO_ROOT
set -uo pipefail
uetemu=$(realpath "$1") root=$(realpath "$2")
cd "$root"
command -v mpirun >/dev/null || { echo "SKIP: no mpirun (Debian: openmpi-bin)"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
tmp=$(mktemp -d)
MP=
trap '[ -n "$MP" ] && kill -KILL "$MP" 2>/dev/null; rm -rf "$tmp"' EXIT
pass=0 fail=0
check() { if eval "$2"; then echo "ok   $1"; pass=$((pass+1)); else echo "FAIL $1"; fail=$((fail+1)); fi; }

out=$(timeout 120 mpirun --oversubscribe -np 2 "$uetemu" run configs/pair.yaml -q --out "$tmp/probe" 2>&1)
if [[ "$out" == *"built without MPI"* ]]; then echo "SKIP: $uetemu was built without MPI"; exit 77; fi

# gone PID: the process has ended (no /proc entry, or a zombie not reaped yet)
gone() { [ ! -e "/proc/$1/stat" ] || [ "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" = Z ]; }

for how in default no-abort sigint; do
	extra=()
	[ $how = no-abort ] && extra=(--mca orte_abort_on_non_zero_status 0)
	timeout -k 5 120 mpirun --oversubscribe "${extra[@]}" -np 2 "$uetemu" run configs/fat-tree-1024.yaml -q \
		--out "$tmp/$how" >"$tmp/$how.log" 2>&1 &
	MP=$!
	# the two ranks: uetemu processes writing to this run's --out, in rank order (rank 1 started second); rank 1
	# is killed 2 s after both are seen, well inside the run (it builds for a second, then runs for seconds on
	# any machine), whatever the time mpirun takes to start them
	ranks=()
	for _ in $(seq 200); do
		ranks=($(pgrep -f -- "^$uetemu run .*--out $tmp/$how\$"))
		[ ${#ranks[@]} -eq 2 ] && break
		kill -0 "$MP" 2>/dev/null || break
		sleep 0.1
	done
	[ ${#ranks[@]} -eq 2 ] && sleep 2 && ranks=($(pgrep -f -- "^$uetemu run .*--out $tmp/$how\$"))
	if [ ${#ranks[@]} -ne 2 ]; then
		check "$how: two ranks running 2 s after both started (${#ranks[@]} found)" false
		tail -n 5 "$tmp/$how.log"
		kill -KILL "$MP" 2>/dev/null
		wait "$MP" 2>/dev/null
		continue
	fi
	[ $how = sigint ] && kill -INT "${ranks[1]}" || kill -KILL "${ranks[1]}"
	t0=$(date +%s%N)
	for _ in $(seq 150); do gone "${ranks[0]}" && break; sleep 0.1; done
	t=$((($(date +%s%N) - t0) / 1000000))
	gone "${ranks[0]}" && left=0 || left=1
	[ $left -eq 1 ] && kill -KILL "${ranks[0]}" 2>/dev/null
	wait "$MP"
	rc=$?
	MP=
	check "$how: rank 1 sent SIG$([ $how = sigint ] && echo INT || echo KILL), rank 0 gone within 10 s ($t ms)" "[ $left -eq 0 ] && [ $t -le 10000 ]"
	check "$how: mpirun exit non-zero ($rc)" "[ $rc -ne 0 ] && [ $rc -ne 124 ]"
	if [ $how = sigint ]; then
		check "$how: rank 0 says rank 1 was stopped by a signal" \
			"grep -q 'MPI rank 1 was stopped by a signal: rank 0 stops with it' '$tmp/$how.log'" ||
			tail -n 5 "$tmp/$how.log"
		check "$how: summary.json says stop signal, not stalled" \
			"grep -q '\"stop\": \"signal\"' '$tmp/$how/summary.json'"
	fi
	if [ $how = no-abort ]; then
		check "$how: rank 0 says which rank has gone" "grep -q 'MPI rank 1 (pid [0-9]*) has gone' '$tmp/$how.log'" ||
			tail -n 5 "$tmp/$how.log"
	fi
done
echo "mpi-kill: $pass passed, $fail failed"
[ $fail -eq 0 ]
