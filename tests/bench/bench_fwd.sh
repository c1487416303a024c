#!/usr/bin/env bash
# Real-time forwarding (docs/performance.md, Real-time forwarding): 4,198 B UET data frames (4,096 B MSS) into a
# device under test from a DPDK port, and what leaves it on another, per lcore. Cases:
#   switch         uetemu, tests/bench/fwd-rack.yaml on one lcore: frames in at tor0:2 (host2, a real device) from
#                  a net_pcap port replaying them forever (infinite_rx=1), through the emulated switch, out at tor0:3
#                  (host3) to net_null (no-rx=1). The feeder is the lcore's own port: nothing else to starve.
#   testpmd        dpdk-testpmd in io forwarding between the same two ports (net_pcap infinite_rx -> net_null).
#   switch-memif   the switch again, its ports net_memif to a feeder and sink process (bench_fwd_peer).
#   nic-memif      uetemu, tests/bench/fwd-nic.yaml: the feeder writes to emulated host1 on a net_memif port on one
#                  PDC (each frame asking for an ACK); the NIC's ACKs come back out of the port.
#   testpmd-memif  dpdk-testpmd in io forwarding between the two net_memif ports.
# Rounds interleaved (BENCH_FWD_REPS, default 3) of BENCH_FWD_SECONDS (default 3): frames forwarded per wall
# second, and per second of the forwarding lcore's CPU time (on a shared machine the wall figure also counts the
# time other processes held the core; the CPU figure is what the lcore does with a core to itself). With the
# net_pcap feeder the lcore never waits for frames, so its CPU time is all forwarding: uetemu's user + system time
# less that of a run of 10 ms (its start and end: the EAL, memory, the pcap's load; the median of three), and
# testpmd's forwarding thread's. With net_memif, the DUT's busiest thread's CPU time in the feeder's window: a
# busy-polling lcore spends all the CPU it gets, so that figure is its forwarding only while the feeder keeps its
# ring full (fed_full > 0) and both processes run at once. The load average is printed. Figures only, no
# assertion. Needs root (DPDK EAL).
# BASE=an earlier uetemu binary runs each uetemu case with it too, right after, in every round (a paired A/B).
# Usage: bench_fwd.sh UETEMU REPO_ROOT BENCH_FWD_PEER [CASE...]   (default: switch testpmd nic-memif)
set -uo pipefail
uetemu=$(realpath "$1") root=$(realpath "$2") peer=$(realpath "$3")
shift 3
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(switch testpmd nic-memif)
[ "$(id -u)" -eq 0 ] || { echo "SKIP: bench_fwd needs root (DPDK EAL)"; exit 77; }
[ -x /usr/bin/time ] || { echo "SKIP: bench_fwd needs /usr/bin/time (Debian's time package)"; exit 77; }
reps=${BENCH_FWD_REPS:-3} secs=${BENCH_FWD_SECONDS:-3} warm=1
# The feeder on lcore 1 and the device under test on lcore 0 (BENCH_FWD_PEER_LCORE, BENCH_FWD_DUT_LCORE).
pl=${BENCH_FWD_PEER_LCORE:-1} dl=${BENCH_FWD_DUT_LCORE:-0}
testpmd=$(command -v dpdk-testpmd || true)
tmp=$(mktemp -d)
trap '[ -n "${BENCH_FWD_KEEP:-}" ] && echo "bench_fwd: logs in $tmp" || rm -rf "$tmp"; rm -rf /var/run/dpdk/uetfwd*$$' EXIT
memif() { echo "net_memif$1,role=$2,id=0,bsize=9216,socket=/uetfwd-$3-$$"; }

# Run the device under test ($@) beside the peer, which reads the DUT's lcore CPU time in its window.
round() {
	local name=$1 sink=$2
	shift 2
	rm -f "$tmp/dut.pid"
	BENCH_FWD_DUT_PID="$tmp/dut.pid" timeout -k 5 $((secs + warm + 30)) "$peer" "$secs" "$warm" \
		"$(memif 0 server in)" "$sink" -- --no-huge --no-pci -m 256 -l "$pl" --file-prefix "uetfwdp$$" \
		--log-level='lib.*:error' >"$tmp/peer.log" 2>&1 &
	local ppid=$!
	sleep 0.3
	"$@" >"$tmp/dut.log" 2>&1 &
	local dpid=$! k child=
	for ((k = 0; k < 50; k++)); do # the DUT itself, timeout's child (the function execs timeout)
		child=$(pgrep -P "$dpid" | head -1)
		[ -z "$child" ] || break
		sleep 0.02
	done
	echo "${child:-$dpid}" >"$tmp/dut.pid"
	wait "$ppid"
	kill -INT "$dpid" 2>/dev/null
	wait "$dpid" 2>/dev/null
	local tot
	tot=$(grep 'total' "$tmp/peer.log") || { echo "bench_fwd: $name: no figures"; sed 's/^/  peer: /' "$tmp/peer.log";
		sed 's/^/  dut: /' "$tmp/dut.log" | tail -20; return 1; }
	echo "$name $tot" >>"$tmp/rounds"
	echo "bench_fwd: $name round: ${tot#bench_fwd_peer: total }"
	cp "$tmp/dut.log" "$tmp/$name.dut.log"
}

sw_dut() {
	exec timeout -s INT -k 5 $((secs + warm + 20)) "$bin" run "$root/tests/bench/fwd-rack.yaml" --mode realtime \
		--out "$tmp/sw" --quiet --allow-incomplete --set "simulation.SimulationDuration=$((secs + warm + 10))s" \
		--set "ports.0.dev=$(memif 0 client in)" --set "ports.1.dev=$(memif 1 client out)" \
		-- -l "$dl" --no-huge --no-pci -m 512 --file-prefix "uetfwdd$$" --log-level='lib.*:error'
}
nic_dut() {
	exec timeout -s INT -k 5 $((secs + warm + 20)) "$bin" run "$root/tests/bench/fwd-nic.yaml" --mode realtime \
		--out "$tmp/nic" --quiet --allow-incomplete --set "simulation.SimulationDuration=$((secs + warm + 10))s" \
		--set "ports.0.dev=$(memif 0 client in)" \
		-- -l "$dl" --no-huge --no-pci -m 512 --file-prefix "uetfwdd$$" --log-level='lib.*:error'
}
pmd_dut() {
	# the main lcore on the peer's core (it only sleeps between stats), the forwarding lcore on the DUT's
	exec timeout -s INT -k 5 $((secs + warm + 20)) "$testpmd" -l "$pl,$dl" --main-lcore "$pl" --no-huge --no-pci -m 512 \
		--file-prefix "uetfwdt$$" --log-level='lib.*:error' --vdev "$(memif 0 client in)" \
		--vdev "$(memif 1 client out)" -- --forward-mode=io --auto-start --nb-cores=1 --mbuf-size=4480 --total-num-mbufs=8192 \
		--txd=512 --rxd=512 --burst=32 --stats-period=0 </dev/null
}

pcap="$tmp/fwd.pcap"
"$peer" --pcap "$pcap" 1024 || exit 1
pcap_in="net_pcap0,rx_pcap=$pcap,infinite_rx=1" null_out="net_null0,no-rx=1"

# uetemu on the net_pcap and net_null ports for $1 of emulated time (TimeScale 1: as long in wall time).
sw_pcap() {
	/usr/bin/time -o "$tmp/time" -f '%U %S' timeout -s INT -k 5 $((secs + 20)) "$bin" run \
		"$root/tests/bench/fwd-rack.yaml" --mode realtime --out "$tmp/swp" --quiet --allow-incomplete \
		--set "simulation.SimulationDuration=$1" --set "ports.0.dev=$pcap_in" --set "ports.1.dev=$null_out" \
		-- -l "$dl" --no-huge --no-pci -m 512 --file-prefix "uetfwdd$$" --log-level='lib.*:error' >"$tmp/dut.log" 2>&1
}

# The CPU seconds of a uetemu run that forwards for 10 ms only: its start (EAL, memory, the pcap's load) and end,
# the median of three, taken off each round's CPU time so that what is left is the forwarding's.
declare -A startup
startup_cpu() {
	for k in 1 2 3; do
		sw_pcap 10ms
		tail -1 "$tmp/time" | awk '{printf "%.3f\n", $1 + $2}'
	done | sort -n | sed -n 2p
}

# The CPU seconds of the thread named $2 (testpmd's forwarding lcore) of timeout $1's child, sampled until it ends.
thread_cpu_until_exit() {
	local last=-1 hz f pid= t
	hz=$(getconf CLK_TCK)
	while kill -0 "$1" 2>/dev/null; do
		[ -n "$pid" ] || pid=$(pgrep -P "$1" | head -1) # timeout's child
		for f in /proc/"${pid:-$1}"/task/*; do
			[ "$(cat "$f/comm" 2>/dev/null)" = "$2" ] || continue
			t=$(sed 's/.*) //' "$f/stat" 2>/dev/null | awk -v hz="$hz" '{printf "%.3f", ($12 + $13) / hz}')
			[ -z "$t" ] || last=$t
		done
		sleep 0.1
	done
	echo "$last"
}

# One lcore fed by net_pcap for $secs: "name seconds=... sink=... dut_cpu_s=..." into the rounds.
pcap_round() {
	local name=$1 fwd wall= cpu
	if [ "${name%-base}" = switch ]; then
		sw_pcap "${secs}s"
		fwd=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["ports"][1]["tx_frames"])' \
			"$tmp/swp/summary.json" 2>/dev/null)
		cpu=$(tail -1 "$tmp/time" | awk -v s="${startup[$bin]}" '{printf "%.3f", $1 + $2 - s}')
	else
		timeout -s INT -k 5 $((secs + 2)) "$testpmd" -l "$pl,$dl" --main-lcore "$pl" --no-huge \
			--no-pci -m 512 --file-prefix "uetfwdt$$" --log-level='lib.*:error' --vdev "$pcap_in" --vdev "$null_out" \
			-- --forward-mode=io --auto-start --mbuf-size=4480 --total-num-mbufs=8192 --txd=512 --rxd=512 --burst=32 \
			--stats-period=1 >"$tmp/dut.log" 2>&1 &
		cpu=$(thread_cpu_until_exit $! "rte-worker-$dl")
		wait
		# the last "Forward statistics for port 1" block: its TX-packets
		fwd=$(awk '/Forward statistics for port 1/ {p = 1} p && /TX-packets/ {print $2; p = 0}' "$tmp/dut.log" | tail -1)
		# per wall second: the median of port 1's Tx-pps over the once-a-second stats once forwarding runs (the
		# run's first seconds are the EAL's start, under load longer than one)
		wall=$(awk '/NIC statistics for port 1/ {p = 1} p && /Tx-pps/ {if ($2 > 0) print $2; p = 0}' "$tmp/dut.log" |
			sort -n | awk '{v[NR] = $1} END {if (NR) print v[int((NR + 1) / 2)]}')
	fi
	[ -n "$fwd" ] || { echo "bench_fwd: $name: no figures"; tail -20 "$tmp/dut.log" | sed 's/^/  dut: /'; return 1; }
	# testpmd: its frames over the CPU time, and per wall second its own rate (as the seconds that give it)
	local s=$secs
	[ -z "${wall:-}" ] || s=$(awk -v f="$fwd" -v w="$wall" 'BEGIN {printf "%.3f", f / w}')
	echo "$name seconds=$s offered=$fwd sink=$fwd back=0 dut_cpu_s=$cpu" >>"$tmp/rounds"
	echo "bench_fwd: $name round: $fwd frames forwarded (${wall:-$(( fwd / secs ))} per wall second), lcore CPU $cpu s"
	cp "$tmp/dut.log" "$tmp/$name.dut.log"
}

echo "bench_fwd: 4,198 B UET data frames, $reps rounds of $secs s, device lcore $dl (memif feeder: $pl); load average:" \
	"$(cut -d' ' -f1-3 /proc/loadavg)"
# BASE=another uetemu binary: each uetemu case again with it, right after ("switch-base", ...): a paired A/B
if [ -n "${BASE:-}" ]; then
	base=$(realpath "$BASE") all=()
	for c in "${cases[@]}"; do
		all+=("$c")
		case $c in testpmd*) ;; *) all+=("$c-base") ;; esac
	done
	cases=("${all[@]}")
fi
for c in "${cases[@]}"; do
	bin=$uetemu
	case $c in *-base) bin=$base ;; esac
	if [ "${c%-base}" = switch ] && [ -z "${startup[$bin]:-}" ]; then
		startup[$bin]=$(startup_cpu)
		echo "bench_fwd: $c: a run's start and end take ${startup[$bin]} s of CPU (taken off its rounds)"
	fi
done
for ((r = 0; r < reps; r++)); do
	for c in "${cases[@]}"; do
		bin=$uetemu
		case $c in *-base) bin=$base ;; esac
		case $c in
		testpmd*) [ -n "$testpmd" ] || { echo "bench_fwd: no dpdk-testpmd (Debian's dpdk-dev): left out"; continue; } ;;
		esac
		case ${c%-base} in
		switch | testpmd) pcap_round "$c" ;;
		switch-memif) round "$c" "$(memif 1 server out)" sw_dut ;;
		nic-memif) round "$c" - nic_dut ;;
		testpmd-memif) round "$c" "$(memif 1 server out)" pmd_dut ;;
		*) echo "bench_fwd: unknown case $c"; exit 2 ;;
		esac
	done
done
echo "bench_fwd: load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
[ -f "$tmp/rounds" ] || exit 1
python3 - "$tmp/rounds" <<'PY'
import re, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    name = line.split()[0]
    rows.setdefault(name, []).append(dict(re.findall(r'(\w+)=(-?[\d.]+)', line)))
for name, rs in rows.items():
    # forwarded: frames out of the sink port; for the NIC, the ACKs back on the feed port
    fwd = [float(r['back'] if name.startswith('nic') else r['sink']) for r in rs]
    w = [float(r['seconds']) for r in rs]
    off = statistics.median(float(r['offered']) / s for r, s in zip(rs, w)) / 1e6
    mpps = statistics.median(f / s for f, s in zip(fwd, w)) / 1e6
    cpu = [float(r.get('dut_cpu_s', -1)) for r in rs]
    # rounds whose lcore CPU time could not be read (-1) are left out of this median
    good = [c * 1e9 / f for c, f in zip(cpu, fwd) if f > 0 and c > 0]
    ns = statistics.median(good) if good else float('nan')
    print('bench_fwd: %-8s median offered %6.3f Mpps; %s %6.3f Mpps per wall second (%5.1f Gb/s of frames); '
          'lcore CPU %5.1f ns per frame = %6.3f Mpps per CPU second (%3.0f %% of 11.9 Mpps); CPU in the window %s' %
          (name, off, 'ACKs back' if name.startswith('nic') else 'forwarded', mpps, mpps * 4198 * 8 / 1e3, ns,
           1e3 / ns if ns == ns else 0, 100 * 1e3 / ns / 11.9 if ns == ns else 0,
           ', '.join('%.2f s' % c for c in cpu)))
PY
