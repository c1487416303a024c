#!/usr/bin/env bash
# The real-time lab test: two emulated hosts on net_tap ports, joined by a Linux bridge in a network namespace.
#
# Usage: tests/lab/lab_bridge.sh            (as root; from anywhere)
#   UETEMU=path      the uetemu binary (default: <repo>/build/uetemu)
#   LAB_CONFIG=path  the scenario (default: <repo>/configs/lab-bridge.yaml)
#   LAB_TIMEOUT=s    bound on the uetemu run in seconds (default 30)
#   LAB_KEEP=1       keep the work directory (capture, logs, summary) and print its path
#
# What it does, in a namespace uetlab<pid> so nothing touches the host's network:
#   1. creates bridge br0 (no STP, no multicast snooping, IPv6 off so the kernel stays quiet on the wire) and
#      starts tshark on br0 writing a pcap (br0 is promiscuous under tshark, so it sees every forwarded frame);
#   2. runs uetemu in real-time mode; dp_port_add probes the ports named in the config's `ports:` section
#      (net_tap0,iface=uet0 and net_tap1,iface=uet1), so the EAL args carry no --vdev;
#   3. waits (up to 10 s) for uet0 and uet1, enslaves them to br0 and sets them up, before the messages start
#      at 2 s of run time;
#   4. waits for uetemu to stop (SimulationDuration, about 4 s; bounded by LAB_TIMEOUT), then stops tshark.
# Checks: uetemu exited 0; summary.json has messages.completed == messages.posted > 0; the capture holds UET
# frames (the Lua dissector's protocol, "uet" or "uetemu") and no malformed frame or Lua error.
# Exit status: 0 all passed, 1 a check failed, 77 skipped (not root, or a tool missing).
#
# net_tap in DPDK 22.11 caps the port MTU at 1504 (its max_rx_pktlen is 1522) and refuses longer frames, so
# configs/lab-bridge.yaml uses a 1024 B RdmaDataMSS (1126 B data frames) instead of the default 4096.

set -u

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
UETEMU=$(realpath -m "${UETEMU:-$ROOT/build/uetemu}")
CONFIG=$(realpath -m "${LAB_CONFIG:-$ROOT/configs/lab-bridge.yaml}")
LUA=$ROOT/scripts/wireshark/uet.lua
RUN_TIMEOUT=${LAB_TIMEOUT:-30}
NS=uetlab$$
PREFIX=uetlab$$

if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: lab_bridge needs root"
	exit 77
fi
for tool in ip tshark python3 timeout; do
	command -v "$tool" >/dev/null 2>&1 || { echo "SKIP: lab_bridge needs $tool"; exit 77; }
done

PASSED=0
FAILED=0
pass() { echo "PASS: $*"; PASSED=$((PASSED + 1)); }
fail() { echo "FAIL: $*"; FAILED=$((FAILED + 1)); }
finish() {
	echo "lab_bridge: $PASSED passed, $FAILED failed"
	[ "$FAILED" -eq 0 ] && exit 0
	exit 1
}

for f in "$UETEMU" "$CONFIG" "$LUA"; do
	[ -e "$f" ] || { fail "$f not found"; finish; }
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/uetlab.XXXXXX") || { fail "mktemp"; finish; }
OUT=$WORK/out
CAP=$WORK/cap.pcap
UPID=
TPID=

# Stop a background process by its pid, and its children: SIGTERM (tshark and uetemu both finish their files
# on it; SIGINT would not do, a non-interactive shell starts background jobs with SIGINT ignored), SIGKILL 5 s later.
stop_pid() {
	local pid=$1 kids
	[ -n "$pid" ] || return 0
	kids=$(pgrep -P "$pid" | tr '\n' ' ')
	kill -TERM "$pid" 2>/dev/null || return 0
	for _ in $(seq 50); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	# shellcheck disable=SC2086 # $kids is a list of pids
	kill -KILL "$pid" $kids 2>/dev/null
	wait "$pid" 2>/dev/null
	return 0
}

# shellcheck disable=SC2317 # called through the EXIT trap
cleanup() {
	stop_pid "$UPID"
	stop_pid "$TPID"
	ip netns del "$NS" 2>/dev/null
	rm -rf "/var/run/dpdk/$PREFIX" # EAL runtime files of --file-prefix (the namespace does not hide the fs)
	if [ -n "${LAB_KEEP:-}" ]; then
		echo "lab_bridge: work directory kept: $WORK"
	else
		rm -rf "$WORK"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

inns() { ip netns exec "$NS" "$@"; }

# 1. The namespace, its bridge, and tshark on the bridge.
if ! { ip netns add "$NS" &&
	inns sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 &&
	inns ip link set lo up &&
	inns ip link add br0 type bridge stp_state 0 mcast_snooping 0 &&
	inns ip link set br0 up; }; then
	fail "namespace $NS with bridge br0"
	finish
fi
# Not through inns(): a function in the background runs in a subshell, and $! would be that subshell, not tshark.
ip netns exec "$NS" tshark -n -i br0 -F pcap -w "$CAP" -a "duration:$((RUN_TIMEOUT + 15))" >"$WORK/tshark.log" 2>&1 &
TPID=$!
for _ in $(seq 100); do
	grep -q "Capturing on" "$WORK/tshark.log" 2>/dev/null && break
	kill -0 "$TPID" 2>/dev/null || break
	sleep 0.1
done
if grep -q "Capturing on" "$WORK/tshark.log" 2>/dev/null; then
	pass "namespace $NS, bridge br0 up, tshark capturing on br0"
else
	fail "tshark did not start capturing on br0"
	sed 's/^/  tshark: /' "$WORK/tshark.log"
	finish
fi

# 2. uetemu, bounded: timeout sends SIGTERM (a clean stop that still writes the summary), SIGKILL 5 s later.
ip netns exec "$NS" timeout -s TERM -k 5 "$RUN_TIMEOUT" \
	"$UETEMU" run "$CONFIG" --mode realtime --out "$OUT" \
	-- --no-huge --no-pci -m 256 --file-prefix "$PREFIX" --log-level='lib.*:warning' >"$WORK/uetemu.log" 2>&1 &
UPID=$!

# 3. The taps appear once dp_port_add has probed them; put them on the bridge.
up=0
for _ in $(seq 100); do
	if inns ip link show uet0 >/dev/null 2>&1 && inns ip link show uet1 >/dev/null 2>&1; then
		up=1
		break
	fi
	kill -0 "$UPID" 2>/dev/null || break
	sleep 0.1
done
if [ "$up" -eq 1 ]; then
	ok=1
	for dev in uet0 uet1; do
		# MTU 9000: the bridge drops frames longer than its egress port's MTU (the tap PMD sends up to 1522 B).
		# txqueuelen 10000: the kernel-to-tap ring drops when full, and uetemu reads 32 frames a pass; on a busy
		# machine a run that catches up after losing the CPU sends more than the default 1000 in one go.
		inns ip link set "$dev" mtu 9000 txqueuelen 10000 && inns ip link set "$dev" master br0 &&
			inns ip link set "$dev" up || ok=0
	done
	if [ "$ok" -eq 1 ]; then
		pass "uet0 and uet1 appeared and joined br0"
	else
		fail "could not put uet0/uet1 on br0"
	fi
else
	fail "uet0/uet1 did not appear within 10 s"
fi

# 4. The run ends by itself at SimulationDuration; then give the last frames a moment to reach the capture.
wait "$UPID"
URC=$?
UPID=
sleep 0.5
stop_pid "$TPID"
TPID=

if [ "$URC" -eq 0 ]; then
	pass "uetemu exited 0"
else
	fail "uetemu exited $URC$([ "$URC" -eq 124 ] && echo " (killed by the ${RUN_TIMEOUT} s timeout)")"
	tail -n 20 "$WORK/uetemu.log" | sed 's/^/  uetemu: /'
fi
grep '^\[uetemu\] port' "$WORK/uetemu.log" | sed 's/^/  /'

# Checks on the summary.
if [ -r "$OUT/summary.json" ]; then
	msgs=$(python3 -c 'import json, sys
m = json.load(open(sys.argv[1]))["messages"]
print(m["posted"], m["completed"])' "$OUT/summary.json" 2>&1)
	read -r posted completed <<<"$msgs"
	if [[ "${posted:-}" =~ ^[0-9]+$ && "${completed:-}" =~ ^[0-9]+$ ]] &&
		[ "$posted" -gt 0 ] && [ "$completed" -eq "$posted" ]; then
		pass "summary.json: $completed of $posted messages completed"
	else
		fail "summary.json: messages posted/completed: $msgs"
	fi
else
	fail "no $OUT/summary.json"
fi

# Checks on the capture, with the Lua dissector. frame.protocols lists the dissectors of each frame
# ("eth:ethertype:ip:udp:uet"), which works whichever name the script registered.
ts() { tshark -n -X "lua_script:$LUA" -r "$CAP" "$@" 2>>"$WORK/tshark-read.log"; }
if [ -s "$CAP" ]; then
	total=$(ts -T fields -e frame.number | wc -l)
	uet=$(ts -T fields -e frame.protocols | grep -c -E '(^|:)(uet|uetemu)(:|$)')
	malformed=$(ts -Y _ws.malformed -T fields -e frame.number | wc -l)
	lua_err=$(grep -v 'Running as user "root"' "$WORK/tshark-read.log" | grep -c .)
	if [ "$uet" -gt 0 ]; then
		pass "capture: $uet UET frames of $total"
	else
		fail "capture: no UET frame among $total"
	fi
	if [ "$malformed" -eq 0 ] && [ "$lua_err" -eq 0 ]; then
		pass "capture: no malformed frame, no dissector error"
	else
		fail "capture: $malformed malformed frames, $lua_err lines of tshark errors"
		ts -Y _ws.malformed | head -n 5 | sed 's/^/  /'
		grep -v 'Running as user "root"' "$WORK/tshark-read.log" | head -n 5 | sed 's/^/  tshark: /'
	fi
else
	fail "capture $CAP is empty"
	sed 's/^/  tshark: /' "$WORK/tshark.log"
fi

finish
