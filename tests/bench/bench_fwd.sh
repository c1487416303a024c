#!/usr/bin/env bash
# Real-time forwarding (docs/performance.md, Real-time forwarding): 4,198 B UET data frames from a feeder process
# (bench_fwd_peer) over a net_memif port into a device under test, and what leaves it on a second net_memif port
# back to the same process, counted there:
#   switch   uetemu, tests/bench/fwd-rack.yaml: in at tor0:2 (host2, a real device), through the emulated switch,
#            out at tor0:3 (host3); one lcore.
#   nic      uetemu, tests/bench/fwd-nic.yaml: the frames are to emulated host1 on the port (a PDC opened by SYN,
#            every frame asking for an ACK); the ACKs come back on the same port; one lcore.
#   testpmd  dpdk-testpmd in io forwarding on the same two kinds of ports: the forwarding lcore alone.
# For each, BENCH_FWD_REPS rounds (default 3), interleaved, of BENCH_FWD_SECONDS (default 3) after a 1 s warm-up:
# the frames offered and forwarded per wall second, and the forwarding lcore's CPU time per frame (its thread's
# utime + stime over the run, from /proc, divided by the frames it forwarded: on a shared machine the wall figure
# also counts the time other processes held the core). Medians and the load average are printed. Figures only,
# no assertion. Needs root (DPDK EAL). Usage: bench_fwd.sh UETEMU REPO_ROOT BENCH_FWD_PEER [CASE...]
set -uo pipefail
uetemu=$(realpath "$1") root=$(realpath "$2") peer=$(realpath "$3")
shift 3
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(switch nic testpmd)
[ "$(id -u)" -eq 0 ] || { echo "SKIP: bench_fwd needs root (DPDK EAL)"; exit 77; }
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
	exec timeout -s INT -k 5 $((secs + warm + 20)) "$uetemu" run "$root/tests/bench/fwd-rack.yaml" --mode realtime \
		--out "$tmp/sw" --quiet --allow-incomplete --set "simulation.SimulationDuration=$((secs + warm + 10))s" \
		--set "ports.0.dev=$(memif 0 client in)" --set "ports.1.dev=$(memif 1 client out)" \
		-- -l "$dl" --no-huge --no-pci -m 512 --file-prefix "uetfwdd$$" --log-level='lib.*:error'
}
nic_dut() {
	exec timeout -s INT -k 5 $((secs + warm + 20)) "$uetemu" run "$root/tests/bench/fwd-nic.yaml" --mode realtime \
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

echo "bench_fwd: 4,198 B UET data frames, $reps rounds of $secs s, peer lcore $pl, device lcore $dl; load average:" \
	"$(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 0; r < reps; r++)); do
	for c in "${cases[@]}"; do
		case $c in
		switch) round switch "$(memif 1 server out)" sw_dut ;;
		nic) round nic - nic_dut ;;
		testpmd)
			[ -n "$testpmd" ] || { echo "bench_fwd: no dpdk-testpmd (Debian's dpdk-dev): testpmd left out"; continue; }
			round testpmd "$(memif 1 server out)" pmd_dut ;;
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
    fwd = [float(r['back'] if name == 'nic' else r['sink']) for r in rs]
    w = [float(r['seconds']) for r in rs]
    off = statistics.median(float(r['offered']) / s for r, s in zip(rs, w)) / 1e6
    mpps = statistics.median(f / s for f, s in zip(fwd, w)) / 1e6
    cpu = [float(r['dut_cpu_s']) for r in rs]
    ns = statistics.median(c * 1e9 / f if f > 0 and c > 0 else float('nan') for c, f in zip(cpu, fwd))
    print('bench_fwd: %-8s median offered %6.3f Mpps; %s %6.3f Mpps per wall second (%5.1f Gb/s of frames); '
          'lcore CPU %5.1f ns per frame = %6.3f Mpps per CPU second (%3.0f %% of 11.9 Mpps); CPU in the window %s' %
          (name, off, 'ACKs back' if name == 'nic' else 'forwarded', mpps, mpps * 4198 * 8 / 1e3, ns,
           1e3 / ns if ns == ns else 0, 100 * 1e3 / ns / 11.9 if ns == ns else 0,
           ', '.join('%.2f s' % c for c in cpu)))
PY
