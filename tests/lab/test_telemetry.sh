#!/usr/bin/env bash
# Telemetry while a real-time run goes on, and a clean stop on SIGINT. Usage: test_telemetry.sh UETEMU REPO_ROOT
# (root). In a namespace uettel<pid>: a veth pair uettel0/uettel1 with host0 and host1 bound to its ends
# (net_af_packet), sending to each other for longer than the test lets the run last (tests/lab/telemetry.yaml).
# The EAL gets only `--file-prefix uettesttelemetry<pid>` (lablib.sh's PREFIX), so the run also shows that a user's
# EAL args keep the defaults.
# Checks:
#   - `dpdk-telemetry.py -f PREFIX` answers /uetemu/summary twice, 1 s apart, and the run's counters move
#     (simulated time, events, frames through the ports both ways);
#   - /uetemu/ports, /uetemu/hosts, /uetemu/hosts,host1, /uetemu/links and /uetemu/lateness answer JSON objects;
#   - SIGINT: uetemu exits 3, summary.json has "stop": "signal", the ports' counters and the records are written;
#   - a run with no EAL args uses the prefix uetemu-<pid> and removes /var/run/dpdk/uetemu-<pid> at exit.
# Exit status: 0 all passed, 1 a check failed, 77 skipped (not root, or a tool missing).
set -uo pipefail
LAB_NAME=test_telemetry
. "$(dirname "${BASH_SOURCE[0]}")/lablib.sh"
# lab_cleanup stops the uetemu runs in PIDS, deletes the namespace and removes /var/run/dpdk/$PREFIX (a prefix the
# user names stays after the run, docs/realtime.md).
lab_init "$@"
lab_need dpdk-telemetry.py
config=$ROOT/tests/lab/telemetry.yaml
NS=uettel$$
inns() { ip netns exec "$NS" "$@"; }

if ! { ns_add "$NS" && inns ip link add uettel0 type veth peer name uettel1 && inns ip link set uettel0 up &&
	inns ip link set uettel1 up; }; then
	check "namespace $NS with the veth pair uettel0/uettel1" false
	finish
fi

# `ip netns exec` execs the command, so $! is uetemu itself and the signals below reach it directly.
ip netns exec "$NS" "$UETEMU" run "$config" --mode realtime --out "$WORK/out" -- --file-prefix "$PREFIX" \
	>"$WORK/log" 2>&1 &
UPID=$!
PIDS+=("$UPID")
# the line comes once the ports are up and the commands registered
wait_log "$WORK/log" "telemetry: dpdk-telemetry.py -f $PREFIX" "$UPID" 150
check "uetemu announces telemetry on prefix $PREFIX" "grep -q 'telemetry: dpdk-telemetry.py -f $PREFIX' '$WORK/log'"
tel() { printf '%s\n' "$@" | dpdk-telemetry.py -f "$PREFIX" 2>>"$WORK/tel-err"; }
tel /uetemu/summary >"$WORK/s1.json"
sleep 1
tel /uetemu/summary >"$WORK/s2.json"
tel /uetemu/ports /uetemu/hosts /uetemu/hosts,host1 /uetemu/links /uetemu/lateness >"$WORK/others.json"
python3 - "$WORK/s1.json" "$WORK/s2.json" "$WORK/others.json" >"$WORK/py" 2>&1 <<'PY'
import json, sys
a, b = (json.loads(open(p).read())["/uetemu/summary"] for p in sys.argv[1:3])
moved = [k for k in ("sim_time_ps", "events", "polls") if b[k] > a[k]]
moved += ["ports." + k for k in ("rx_frames", "tx_frames") if b["ports"][k] > a["ports"][k]]
print(len(moved), ",".join(moved), b["sim_time_ps"] - a["sim_time_ps"], b["ports"]["tx_frames"] - a["ports"]["tx_frames"])
ok = []
for i, line in enumerate(open(sys.argv[3])):
    (cmd, v), = json.loads(line).items()
    # every answer an object; links is empty here (two hosts and their ports, no link between them)
    want = {0: ("1",), 1: ("host1",), 2: ("counters",), 3: (), 4: ("max_ns", "timers_fired", "timers_fired_late")}[i]
    if isinstance(v, dict) and all(w in v for w in want):
        ok.append(cmd + ("" if i != 2 else "(one)"))
print(len(ok), ",".join(ok))
PY
{ read -r n_moved moved dsim dtx; read -r n_ok answered; } <"$WORK/py"
check "summary 1 s apart: ${n_moved:-0} counters moved (${moved:-}; +${dsim:-?} ps, +${dtx:-?} frames sent)" \
	'[ "${n_moved:-0}" = 5 ]'
check "ports, hosts, hosts,host1, links, lateness answered (${answered:-})" '[ "${n_ok:-0}" = 5 ]'
[ "${n_moved:-0}" = 5 ] && [ "${n_ok:-0}" = 5 ] || sed 's/^/  /' "$WORK/py" "$WORK/s1.json" "$WORK/s2.json" \
	"$WORK/others.json" "$WORK/tel-err"

kill -INT "$UPID"
for _ in $(seq 100); do kill -0 "$UPID" 2>/dev/null || break; sleep 0.1; done
kill -0 "$UPID" 2>/dev/null && kill -KILL "$UPID"
wait "$UPID"
rc=$?
check "SIGINT: uetemu exits 3 ($rc)" '[ "$rc" = 3 ]'
[ "$rc" = 3 ] || tail -n 20 "$WORK/log" | sed 's/^/  uetemu: /'
python3 - "$WORK/out/summary.json" >"$WORK/sum" 2>&1 <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
print(s["stop"], s["mode"], len(s["ports"]), min(p["rx_frames"] for p in s["ports"]), s["realtime"]["polls"])
PY
read -r stop mode nports minrx polls <"$WORK/sum"
check "summary.json: stop ${stop:-?}, mode ${mode:-?}" '[ "${stop:-}" = signal ] && [ "${mode:-}" = realtime ]'
check "summary.json: ${nports:-0} ports, each received frames (min ${minrx:-0}), ${polls:-0} polls" \
	'[ "${nports:-0}" = 2 ] && [ "${minrx:-0}" -gt 0 ] && [ "${polls:-0}" -gt 0 ]'
rows=$(cat "$WORK"/out/telemetry-nd-stats-0.csv "$WORK"/out/telemetry-uet-transport-stats-0.csv 2>/dev/null | wc -l)
check "records written (nd-stats and uet-transport-stats: $rows lines)" '[ "$rows" -gt 2 ]'
check "the poll loop ended and both ports' final counters were read before they closed" \
	"[ \$(grep -c '^\[uetemu\] port net_af_packet[^:]*: rx ' '$WORK/log') = 2 ]"

# No EAL args at all: the default prefix uetemu-<pid>, whose runtime directory goes at exit.
# 300 ms end the 1 GiB message long before it completes: --allow-incomplete (docs/summary.md, verdict)
ip netns exec "$NS" "$UETEMU" run "$config" --mode realtime --out "$WORK/out2" --allow-incomplete \
	--set simulation.SimulationDuration=300ms >"$WORK/log2" 2>&1 &
UPID=$!
PIDS+=("$UPID")
wait "$UPID"
rc=$?
pid=$UPID
check "a run with no EAL args exits 0 ($rc) with prefix uetemu-$pid" \
	"[ $rc = 0 ] && grep -q 'EAL file prefix uetemu-$pid;' '$WORK/log2'"
check "/var/run/dpdk/uetemu-$pid removed at exit" "[ ! -e /var/run/dpdk/uetemu-$pid ]"
[ "$rc" = 0 ] || tail -n 20 "$WORK/log2" | sed 's/^/  uetemu: /'
finish
