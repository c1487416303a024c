#!/usr/bin/env bash
# The Chakra workload in real time with one rack's hosts on a DPDK port (docs/chakra.md, Real time with a rack on
# DPDK ports): configs/chakra-dp8-rack-ports.yaml, the 8-rank data-parallel traceset on a leaf-spine of 2 racks,
# host0..host3 (ranks 0-3) sharing one net_af_packet port on veth ckp<pid>, whose peer ckq<pid> is bound to leaf0's
# port 4 (the place of host4, external): every frame rack 0 sends to rack 1 leaves through the port, crosses the
# veth and enters the fabric at leaf0:4. Both veth ends in namespace uetck<pid>.
# Usage: lab_chakra_rt.sh UETEMU REPO_ROOT (root). Checks:
#   - uetemu exits 0 in real time; every rank ended, with a completion time; chakra-perf has all 252 transfers;
#   - the host port sent frames and the switch port received them (over a thousand each way of the veth), the
#     switch port refused only the port's ARP announcements (not IPv4);
#   - the per-rank completion times are printed beside the virtual-time run's (not compared: wall-clock timing).
# Exit status: 0 all passed, 1 a check failed, 77 skipped (not root, or a tool missing).
set -uo pipefail
LAB_NAME=lab_chakra_rt
# shellcheck source=tests/lab/lablib.sh
. "$(dirname "$0")/lablib.sh"
lab_init "$@"
config=$ROOT/configs/chakra-dp8-rack-ports.yaml
NS=uetck$$ P=ckp$$ Q=ckq$$
AFP=blocksz=69632,framesz=4352,framecnt=512 # 4,198 B data frames (the default framesz takes 1,980 B)

if ! { ns_add "$NS" && veth "$NS" "$P" "$NS" "$Q"; }; then
	fail "namespace $NS with the veth pair $P-$Q"
	finish
fi
pass "namespace $NS, veth $P-$Q"
LAB_TIMEOUT=${LAB_TIMEOUT:-60} run_uetemu "$NS" "$config" "$WORK/out" --set "ports.0.dev=net_af_packet0,iface=$P,$AFP" \
	--set "ports.1.dev=net_af_packet1,iface=$Q,$AFP"
wait_uetemu
rm -rf "/var/run/dpdk/$PREFIX"

line=$(summary_py "c = s['chakra']
print(c['ranks'], c['ranks_ended'], sum(t is not None for t in c['completion_us']), c['post_errors'])")
check "every rank ended with a completion time (ranks, ended, timed, post errors: $line)" "[ '$line' = '8 8 8 0' ]"
perf=$(($(wc -l <"$WORK/out/chakra-dp8-rt-chakra-perf-0.csv") - 1))
check "chakra-perf: $perf transfers (2 x (112 + 14))" "[ $perf -eq 252 ]"
line=$(summary_py "a, b = ports[0], ports[1]
print(a['tx_frames'], b['rx_frames'], b.get('switch_port'), sum(b['rx_drops'].values()), b['rx_drops'].get('not_ipv4', 0),
      a['stack']['tx_local'])")
read -r tx rx sw refused not_ipv4 local <<<"$line"
echo "  host port sent $tx frames ($local handed over between its hosts), leaf0:4 received $rx, refused $refused"
check "frames crossed the veth: the host port sent $tx, switch port $sw received $rx" \
	"[ '$sw' = 'leaf0:4' ] && [ '${tx:-0}' -gt 1000 ] && [ '${rx:-0}' -gt 1000 ]"
check "the switch port refused only the ARP announcements ($refused refused, $not_ipv4 not IPv4)" \
	"[ '${refused:-x}' = '${not_ipv4:-y}' ]"

# the same config in virtual time (the ports are not used there): the completion times side by side
"$UETEMU" run "$config" --out "$WORK/virt" --quiet >/dev/null 2>&1
python3 -c "
import json, sys
r, v = (json.load(open(p))['chakra']['completion_us'] for p in sys.argv[1:])
print('  completion us, real time vs virtual: ' + ' '.join('%.1f/%.1f' % (a, b) for a, b in zip(r, v)))
" "$WORK/out/summary.json" "$WORK/virt/summary.json" 2>&1
finish
