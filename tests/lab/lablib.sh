# Shared by the lab shell tests (lab_*.sh, and test_af_xdp.sh, test_ecn.sh, test_badport.sh, test_rt_tx.sh,
# test_telemetry.sh, test_capture_rt.sh); sourced, not run.
# Network namespaces named after the test's pid, veth pairs between them, uetemu bound to veth ends with
# net_af_packet, checks that print PASS/FAIL, and a cleanup that stops what the test started (by pid) and deletes
# its namespaces and EAL runtime directory on every exit. Nothing outside the test's own namespaces is touched.
#
# The sourcing script sets LAB_NAME, then calls lab_init "$@" (UETEMU and ROOT from meson's args or the env).

PASSED=0
FAILED=0
PIDS=()
NSS=()

pass() { echo "PASS: $*"; PASSED=$((PASSED + 1)); }
fail() { echo "FAIL: $*"; FAILED=$((FAILED + 1)); }
check() { if eval "$2"; then pass "$1"; else fail "$1"; return 1; fi; } # 1 on a failure: `check ... || tail LOG`
finish() {
	echo "$LAB_NAME: $PASSED passed, $FAILED failed"
	[ "$FAILED" -eq 0 ] && [ "$PASSED" -gt 0 ] && exit 0
	exit 1
}

# Stop a background process by its pid: SIGTERM (uetemu and tshark finish their files on it), SIGKILL 5 s later.
stop_pid() {
	local pid=$1
	[ -n "$pid" ] || return 0
	kill -TERM "$pid" 2>/dev/null || return 0
	for _ in $(seq 50); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	return 0
}

# shellcheck disable=SC2317 # called through the EXIT trap
lab_cleanup() {
	local pid ns
	for pid in "${PIDS[@]}"; do stop_pid "$pid"; done
	for ns in "${NSS[@]}"; do ip netns del "$ns" 2>/dev/null; done
	rm -rf "/var/run/dpdk/$PREFIX"
	if [ -n "${LAB_KEEP:-}" ]; then
		echo "$LAB_NAME: work directory kept: $WORK"
	else
		rm -rf "$WORK"
	fi
}

# lab_init UETEMU ROOT: check root and tools, make the work directory, set the traps.
lab_init() {
	UETEMU=$(realpath -m "${1:-${UETEMU:-build/uetemu}}")
	ROOT=$(realpath -m "${2:-.}")
	PREFIX=uet${LAB_NAME//[^a-z]/}$$
	if [ "$(id -u)" -ne 0 ]; then
		echo "SKIP: $LAB_NAME needs root (network namespaces, DPDK EAL)"
		exit 77
	fi
	lab_need ip python3 timeout
	[ -x "$UETEMU" ] || { echo "FAIL: $UETEMU not found"; exit 1; }
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/$LAB_NAME.XXXXXX") || exit 1
	trap lab_cleanup EXIT
	trap 'exit 130' INT TERM
}

# lab_need TOOL...: skip the test (exit 77) unless every TOOL is on the PATH. After lab_init, which checks root first.
lab_need() {
	local tool
	for tool in "$@"; do
		command -v "$tool" >/dev/null 2>&1 || { echo "SKIP: $LAB_NAME needs $tool"; exit 77; }
	done
}

# A Python with scapy (the system's, when python3 on the PATH is another one), or "" when there is none.
scapy_python() {
	local py
	for py in python3 /usr/bin/python3; do
		if "$py" -c 'import scapy' 2>/dev/null; then
			echo "$py"
			return
		fi
	done
}

# ns_add NAME: a namespace with IPv6 off (the kernel then puts no router solicitation on the wire) and lo up.
ns_add() {
	ip netns add "$1" || return 1
	NSS+=("$1")
	ip netns exec "$1" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 &&
		ip netns exec "$1" ip link set lo up
}

# veth NS_A IF_A NS_B IF_B: a veth pair with one end in each namespace, both up, MTU 9000.
veth() {
	ip link add "$2" netns "$1" mtu 9000 type veth peer name "$4" netns "$3" mtu 9000 &&
		ip netns exec "$1" ip link set "$2" up && ip netns exec "$3" ip link set "$4" up
}

# ina CMD..., inb CMD...: CMD inside the namespace "$A" or "$B" (the two ends a test names, ns_pair's).
ina() { ip netns exec "$A" "$@"; }
inb() { ip netns exec "$B" "$@"; }

# lab_need_obj OBJ: skip (exit 77) unless the BPF object OBJ was built beside the tool under test ($UETEMU).
lab_need_obj() {
	[ -e "$(dirname "$UETEMU")/$1" ] || { echo "SKIP: $1 not built (no clang)"; exit 77; }
}

# ns_pair NS_A IF_A IP_A NS_B IF_B IP_B: the namespaces NS_A and NS_B (ns_add) joined by the veth pair IF_A/IF_B
# (the default MTU), addresses IP_A/24 and IP_B/24, both up, each end's neighbour static (no ARP: the only frames
# an end sends are the test's).
ns_pair() {
	ns_add "$1" && ns_add "$4" &&
		ip netns exec "$1" ip link add "$2" type veth peer name "$5" netns "$4" &&
		ip netns exec "$1" ip addr add "$3/24" dev "$2" && ip netns exec "$4" ip addr add "$6/24" dev "$5" &&
		ip netns exec "$1" ip link set "$2" up && ip netns exec "$4" ip link set "$5" up &&
		ip netns exec "$1" ip neigh replace "$6" lladdr "$(ip netns exec "$4" cat "/sys/class/net/$5/address")" \
			dev "$2" nud permanent &&
		ip netns exec "$4" ip neigh replace "$3" lladdr "$(ip netns exec "$1" cat "/sys/class/net/$2/address")" \
			dev "$5" nud permanent
}

# run_uetemu NS CONFIG OUT [RUN OPTIONS...]: uetemu in real time inside NS (more `uetemu run` options, such as
# --set K=V, after OUT), bounded by LAB_TIMEOUT (default 40 s); its pid in UPID, its log $WORK/uetemu.log.
run_uetemu() {
	ip netns exec "$1" timeout -s TERM -k 5 "${LAB_TIMEOUT:-40}" "$UETEMU" run "$2" --mode realtime --out "$3" \
		"${@:4}" -- --no-huge --no-pci -m 256 --file-prefix "$PREFIX" --log-level='lib.*:warning' \
		>"$WORK/uetemu.log" 2>&1 &
	UPID=$!
	PIDS+=("$UPID")
}

# wait_log FILE PATTERN [PID [TRIES]]: until FILE has a line matching PATTERN (grep), looked at every 0.1 s up to
# TRIES times (default 100: 10 s); gives up at once when PID (if given and not "") has ended. 0 when it has the line.
wait_log() {
	local i
	for ((i = 0; i < ${4:-100}; i++)); do
		grep -q -- "$2" "$1" 2>/dev/null && return 0
		[ -z "${3:-}" ] || kill -0 "$3" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# tshark_start NS LOG TSHARK_ARGS...: tshark inside NS (its output in LOG), until it says "Capturing on" (up to
# 10 s); its pid in TPID (`ip netns exec` execs tshark: the pid is tshark's, for stop_pid or kill -INT).
tshark_start() {
	ip netns exec "$1" tshark "${@:3}" >"$2" 2>&1 &
	TPID=$!
	PIDS+=("$TPID")
	wait_log "$2" "Capturing on" "$TPID"
}

# wait_running: until uetemu's poll loop has run a second (its first progress line), up to 20 s. 0 when it has.
wait_running() {
	wait_log "$WORK/uetemu.log" '^\[uetemu\] real time' "$UPID" 200
}

# wait_uetemu: wait for uetemu to end; checks it exited 0 and wrote its summary.
wait_uetemu() {
	wait "$UPID"
	local rc=$?
	if [ "$rc" -eq 0 ]; then
		pass "uetemu exited 0"
	else
		fail "uetemu exited $rc$([ "$rc" -eq 124 ] && echo " (killed by the timeout)")"
		tail -n 20 "$WORK/uetemu.log" | sed 's/^/  uetemu: /'
	fi
	grep '^\[uetemu\] port' "$WORK/uetemu.log" | sed 's/^/  /'
	[ -r "$WORK/out/summary.json" ] || fail "no summary.json"
}

# summary_py 'PYTHON': run PYTHON with s = summary.json loaded; its output (one line of words) on stdout.
summary_py() {
	python3 -c "import json, sys
s = json.load(open(sys.argv[1]))
ports = s.get('ports', [])
def taken(p):
    st = p['stack']
    return st['rx_to_host'] + st['arp_requests_answered'] + st['arp_replies_learnt'] + \\
        st['arp_announcements_learnt'] + st['icmp_echo_answered'] + sum(p['rx_drops'].values())
$1" "$WORK/out/summary.json" 2>&1
}

# check_accounted: every frame each port received is counted once, taken or by reason.
check_accounted() {
	local line
	line=$(summary_py "print(' '.join('%d/%d' % (taken(p), p['rx_frames']) for p in ports))")
	check "every frame received counted once, taken or by reason (per port: counted/received $line)" \
		"summary_py \"print(all(taken(p) == p['rx_frames'] for p in ports) and len(ports) > 0)\" | grep -qx True"
}

# check_messages: every message posted completed.
check_messages() {
	local m
	m=$(summary_py "print(s['messages']['completed'], s['messages']['posted'])")
	read -r done posted <<<"$m"
	check "messages: $done of $posted completed" \
		'[[ "${posted:-}" =~ ^[0-9]+$ ]] && [ "$posted" -gt 0 ] && [ "$done" = "$posted" ]'
}
