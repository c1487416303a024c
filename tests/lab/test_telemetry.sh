#!/usr/bin/env bash
# Telemetry while a real-time run goes on, and a clean stop on SIGINT. Usage: test_telemetry.sh UETEMU REPO_ROOT
# (root). In a namespace uettel<pid>: a veth pair uettel0/uettel1 with host0 and host1 bound to its ends
# (net_af_packet), sending to each other for longer than the test lets the run last (tests/lab/telemetry.yaml).
# The EAL gets only `--file-prefix uettel<pid>`, so the run also shows that a user's EAL args keep the defaults.
# Checks:
#   - `dpdk-telemetry.py -f PREFIX` answers /uetemu/summary twice, 1 s apart, and the run's counters move
#     (simulated time, events, frames through the ports both ways);
#   - /uetemu/ports, /uetemu/hosts, /uetemu/hosts,host1, /uetemu/links and /uetemu/lateness answer JSON objects;
#   - SIGINT: uetemu exits 3, summary.json has "stop": "signal", the ports' counters and the records are written;
#   - a run with no EAL args uses the prefix uetemu-<pid> and removes /var/run/dpdk/uetemu-<pid> at exit.
# Exit status: 0 all passed, 1 a check failed, 77 skipped (not root, or a tool missing).
set -uo pipefail
uetemu=$(realpath "$1") root=$(realpath "$2")
config=$root/tests/lab/telemetry.yaml
[ "$(id -u)" -eq 0 ] || { echo "SKIP: test_telemetry needs root (namespaces, DPDK EAL)"; exit 77; }
for tool in ip python3 dpdk-telemetry.py; do
	command -v "$tool" >/dev/null 2>&1 || { echo "SKIP: test_telemetry needs $tool"; exit 77; }
done
NS=uettel$$
PREFIX=uettel$$
tmp=$(mktemp -d)
UPID=
# shellcheck disable=SC2317 # called through the EXIT trap
cleanup() {
	[ -n "$UPID" ] && kill -KILL "$UPID" 2>/dev/null && wait "$UPID" 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	rm -rf "$tmp" "/var/run/dpdk/$PREFIX" # a prefix the user names stays after the run (docs/realtime.md)
}
trap cleanup EXIT
trap 'exit 130' INT TERM
pass=0 fail=0
check() { if eval "$2"; then echo "ok   $1"; pass=$((pass + 1)); else echo "FAIL $1"; fail=$((fail + 1)); fi; }
finish() { echo "test_telemetry: $pass passed, $fail failed"; [ "$fail" -eq 0 ] && exit 0; exit 1; }
inns() { ip netns exec "$NS" "$@"; }

if ! { ip netns add "$NS" && inns sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 &&
	inns ip link add uettel0 type veth peer name uettel1 && inns ip link set uettel0 up &&
	inns ip link set uettel1 up; }; then
	check "namespace $NS with the veth pair uettel0/uettel1" false
	finish
fi

# `ip netns exec` execs the command, so $! is uetemu itself and the signals below reach it directly.
ip netns exec "$NS" "$uetemu" run "$config" --mode realtime --out "$tmp/out" -- --file-prefix "$PREFIX" \
	>"$tmp/log" 2>&1 &
UPID=$!
for _ in $(seq 150); do # the line comes once the ports are up and the commands registered
	grep -q "telemetry: dpdk-telemetry.py -f $PREFIX" "$tmp/log" && break
	kill -0 "$UPID" 2>/dev/null || break
	sleep 0.1
done
check "uetemu announces telemetry on prefix $PREFIX" "grep -q 'telemetry: dpdk-telemetry.py -f $PREFIX' '$tmp/log'"
tel() { printf '%s\n' "$@" | dpdk-telemetry.py -f "$PREFIX" 2>>"$tmp/tel-err"; }
tel /uetemu/summary >"$tmp/s1.json"
sleep 1
tel /uetemu/summary >"$tmp/s2.json"
tel /uetemu/ports /uetemu/hosts /uetemu/hosts,host1 /uetemu/links /uetemu/lateness >"$tmp/others.json"
python3 - "$tmp/s1.json" "$tmp/s2.json" "$tmp/others.json" >"$tmp/py" 2>&1 <<'PY'
import json, sys
a, b = (json.loads(open(p).read())["/uetemu/summary"] for p in sys.argv[1:3])
moved = [k for k in ("sim_time_ps", "events", "polls") if b[k] > a[k]]
moved += ["ports." + k for k in ("rx_frames", "tx_frames") if b["ports"][k] > a["ports"][k]]
print(len(moved), ",".join(moved), b["sim_time_ps"] - a["sim_time_ps"], b["ports"]["tx_frames"] - a["ports"]["tx_frames"])
ok = []
for i, line in enumerate(open(sys.argv[3])):
    (cmd, v), = json.loads(line).items()
    # every answer an object; links is empty here (two hosts and their ports, no link between them)
    want = {0: "1", 1: "host1", 2: "counters", 3: None, 4: "max_ns"}[i]
    if isinstance(v, dict) and (want is None or want in v):
        ok.append(cmd + ("" if i != 2 else "(one)"))
print(len(ok), ",".join(ok))
PY
{ read -r n_moved moved dsim dtx; read -r n_ok answered; } <"$tmp/py"
check "summary 1 s apart: ${n_moved:-0} counters moved (${moved:-}; +${dsim:-?} ps, +${dtx:-?} frames sent)" \
	'[ "${n_moved:-0}" = 5 ]'
check "ports, hosts, hosts,host1, links, lateness answered (${answered:-})" '[ "${n_ok:-0}" = 5 ]'
[ "${n_moved:-0}" = 5 ] && [ "${n_ok:-0}" = 5 ] || sed 's/^/  /' "$tmp/py" "$tmp/s1.json" "$tmp/s2.json" \
	"$tmp/others.json" "$tmp/tel-err"

kill -INT "$UPID"
for _ in $(seq 100); do kill -0 "$UPID" 2>/dev/null || break; sleep 0.1; done
kill -0 "$UPID" 2>/dev/null && kill -KILL "$UPID"
wait "$UPID"
rc=$?
UPID=
check "SIGINT: uetemu exits 3 ($rc)" '[ "$rc" = 3 ]'
[ "$rc" = 3 ] || tail -n 20 "$tmp/log" | sed 's/^/  uetemu: /'
python3 - "$tmp/out/summary.json" >"$tmp/sum" 2>&1 <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
print(s["stop"], s["mode"], len(s["ports"]), min(p["rx_frames"] for p in s["ports"]), s["realtime"]["polls"])
PY
read -r stop mode nports minrx polls <"$tmp/sum"
check "summary.json: stop ${stop:-?}, mode ${mode:-?}" '[ "${stop:-}" = signal ] && [ "${mode:-}" = realtime ]'
check "summary.json: ${nports:-0} ports, each received frames (min ${minrx:-0}), ${polls:-0} polls" \
	'[ "${nports:-0}" = 2 ] && [ "${minrx:-0}" -gt 0 ] && [ "${polls:-0}" -gt 0 ]'
rows=$(cat "$tmp"/out/telemetry-nd-stats-0.csv "$tmp"/out/telemetry-uet-transport-stats-0.csv 2>/dev/null | wc -l)
check "records written (nd-stats and uet-transport-stats: $rows lines)" '[ "$rows" -gt 2 ]'
check "the poll loop ended and both ports' final counters were read before they closed" \
	"[ \$(grep -c '^\[uetemu\] port net_af_packet[^:]*: rx ' '$tmp/log') = 2 ]"

# No EAL args at all: the default prefix uetemu-<pid>, whose runtime directory goes at exit.
ip netns exec "$NS" "$uetemu" run "$config" --mode realtime --out "$tmp/out2" \
	--set simulation.SimulationDuration=300ms >"$tmp/log2" 2>&1 &
UPID=$!
wait "$UPID"
rc=$?
pid=$UPID
UPID=
check "a run with no EAL args exits 0 ($rc) with prefix uetemu-$pid" \
	"[ $rc = 0 ] && grep -q 'EAL file prefix uetemu-$pid;' '$tmp/log2'"
check "/var/run/dpdk/uetemu-$pid removed at exit" "[ ! -e /var/run/dpdk/uetemu-$pid ]"
[ "$rc" = 0 ] || tail -n 20 "$tmp/log2" | sed 's/^/  uetemu: /'
finish
