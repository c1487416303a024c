#!/usr/bin/env bash
# Real time, zero-copy TX and LagPolicy (docs/realtime.md): frames sent zero-copy are byte for byte those of the
# copy path (net_pcap TX captures of tests/lab/rt-tx.yaml, where nothing comes in so both runs send the same
# frames), their payload is wire_payload_byte()'s pattern; zero-copy frames come back whole through net_ring;
# LagPolicy abort stops an impossible run with "stop": "lag" and exit status 5; elastic holds emulated time back
# and keeps every pass within LagLimit. Usage: test_rt_tx.sh UETEMU REPO_ROOT
# Exit status: 0 all passed, 1 a check failed, 77 skipped (not root, or a tool missing).
set -uo pipefail
LAB_NAME=test_rt_tx
. "$(dirname "${BASH_SOURCE[0]}")/lablib.sh"
lab_init "$@"
# run NAME CONFIG [--set ...]: a real-time run, outputs in $WORK/NAME, exit status in $WORK/NAME.rc
run() {
	local name=$1 config=$2; shift 2
	timeout -s TERM -k 5 60 "$UETEMU" run "$ROOT/tests/lab/$config" --mode realtime --out "$WORK/$name" --quiet "$@" \
		-- --no-huge --no-pci -m 256 --file-prefix "$PREFIX" --log-level='lib.*:error' >"$WORK/$name.log" 2>&1
	echo $? >"$WORK/$name.rc"
}
rc() { cat "$WORK/$1.rc"; }
# json NAME EXPR...: Python expressions over summary.json (s), printed on one line separated by spaces
json() {
	local name=$1; shift
	local IFS=,
	python3 -c "import json, sys; s = json.load(open(sys.argv[1])); print(*[$*])" "$WORK/$name/summary.json"
}

# An empty nanosecond pcap for net_pcap's RX side: nothing comes in.
python3 -c "import struct, sys
open(sys.argv[1], 'wb').write(struct.pack('<IHHiIII', 0xa1b23c4d, 2, 4, 0, 0, 65535, 1))" "$WORK/empty.pcap"
pcap_ports() { # MODE: the --set options binding both hosts to net_pcap ports writing $WORK/MODE-h{0,1}.pcap
	for h in 0 1; do
		printf -- '--set\nports.%s.dev=net_pcap%s,rx_pcap=%s,tx_pcap=%s\n' $h $h "$WORK/empty.pcap" "$WORK/$1-h$h.pcap"
		[ "$1" = copy ] && printf -- '--set\nports.%s.tx=copy\n' $h
	done
}
mapfile -t zc_sets < <(pcap_ports zc)
mapfile -t cp_sets < <(pcap_ports copy)
# nothing comes in, so no message completes: work left open by design (--allow-incomplete; docs/summary.md, verdict)
run zc rt-tx.yaml "${zc_sets[@]}" --allow-incomplete
run copy rt-tx.yaml "${cp_sets[@]}" --allow-incomplete
check "zero-copy and copy runs exit 0 ($(rc zc), $(rc copy))" '[ "$(rc zc)" = 0 ] && [ "$(rc copy)" = 0 ]'
[ "$(rc zc)" = 0 ] || sed 's/^/  /' "$WORK/zc.log"
modes_zc=$(json zc "[p['tx_mode'] for p in s['ports']]")
modes_copy=$(json copy "[p['tx_mode'] for p in s['ports']]")
check "net_pcap ports send zero-copy ($modes_zc), and copy when told to ($modes_copy)" \
	'[ "$modes_zc" = "['"'zerocopy', 'zerocopy'"']" ] && [ "$modes_copy" = "['"'copy', 'copy'"']" ]'
check "the port setup says once which TX each port uses" \
	'[ "$(grep -c "zero-copy TX: net_pcap reads mbuf chains" "$WORK/zc.log")" = 2 ] &&
	 [ "$(grep -c "copy TX: copy asked for" "$WORK/copy.log")" = 2 ]'
python3 - "$WORK" "$ROOT/tests/scenario" >"$WORK/cmp" 2>&1 <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
from uetpcap import read_pcap, ipv4_csum_ok
tmp = sys.argv[1]
n = same = big = small = pattern = csum = 0
for h in (0, 1):
    # the UET frames (each host also announces itself once by a gratuitous ARP, the same either way)
    zc = [f for _, f in read_pcap('%s/zc-h%d.pcap' % (tmp, h)) if f[12:14] == b'\x08\x00']
    cp = [f for _, f in read_pcap('%s/copy-h%d.pcap' % (tmp, h)) if f[12:14] == b'\x08\x00']
    n += len(zc)
    same += len(zc) == len(cp) and zc == cp
    for f in zc:
        big += len(f) > 4352
        small += len(f) <= 4352
        csum += ipv4_csum_ok(f[14:34])
        pattern += all(b == i & 0xff for i, b in enumerate(f[102:])) if len(f) > 102 else 1
print(n, same, big, small, pattern, csum)
PY
read -r n same big small pattern csum <"$WORK/cmp"
check "zero-copy TX captures equal the copy path's byte for byte, both hosts ($same of 2, $n frames)" \
	'[ "${same:-0}" = 2 ] && [ "${n:-0}" -ge 8 ]'
check "frames above one copy-path mbuf ($big) and below it ($small)" '[ "${big:-0}" -gt 0 ] && [ "${small:-0}" -gt 0 ]'
check "every frame's payload is the pattern, every IPv4 checksum right ($pattern, $csum of $n)" \
	'[ "$pattern" = "$n" ] && [ "$csum" = "$n" ]'
tx_zc=$(json zc "[h['counters']['tx_bytes'] for h in s['hosts']]")
tx_copy=$(json copy "[h['counters']['tx_bytes'] for h in s['hosts']]")
check "the same tx_bytes counted either way ($tx_zc)" '[ "$tx_zc" = "$tx_copy" ]'

# net_ring is a loopback: host0's zero-copy frames come back to it, as chains, linearized whole, and are counted as
# the host's own frames (a loop). Those sent in the last pass, after the last receive, do not come back.
run ring rt-tx.yaml --set ports.0.dev=net_ring0 --set "ports.1.dev=net_null1,no-rx=1" --allow-incomplete
ring=$(json ring "s['ports'][0]['tx_mode']" "0 < s['ports'][0]['rx_frames'] <= s['ports'][0]['tx_frames']" \
	"s['ports'][0]['rx_frames'] == s['ports'][0]['rx_drops'].get('own_frame')" "not s['port_rx_refused']")
check "net_ring: zero-copy frames come back whole, counted as the host's own ($(json ring "s['ports'][0]"))" \
	'[ "$(rc ring)" = 0 ] && [ "$ring" = "zerocopy True True True" ]'
null=$(json ring "s['ports'][1]['tx_mode']" "s['ports'][1]['rx_frames']" "s['ports'][1]['tx_frames'] > 0")
check "net_null (no-rx=1): zero-copy, nothing received ($null)" '[ "$null" = "zerocopy 0 True" ]'

# LagPolicy abort on an impossible LagLimit: exit 5, "stop": "lag", the lateness that stopped it above the limit.
run abort rt-lag.yaml --set simulation.LagPolicy=abort --set simulation.LagLimit=1ns
check "LagPolicy abort: exit status 5 ($(rc abort)) and a clear error" \
	'[ "$(rc abort)" = 5 ] && grep -q "LagPolicy abort: the event due at" "$WORK/abort.log" &&
	 grep -q "uetemu: stopped: the real-time loop fell more than simulation.LagLimit behind" "$WORK/abort.log"'
abort=$(json abort "s['stop']" "s['realtime']['lag_stop_late_ns'] > 1" "s['sim_time_ps'] < 2000000000")
check "LagPolicy abort: summary stop lag, stopped more than LagLimit late, before SimulationDuration ($abort)" \
	'[ "$abort" = "lag True True" ]'

# LagPolicy elastic: the run goes to its end, emulated time was held back, no pass later than LagLimit (2 us).
run elastic rt-lag.yaml --set simulation.LagPolicy=elastic --set simulation.LagLimit=2us
elastic=$(json elastic "s['stop']" "s['messages']['completed']")
check "LagPolicy elastic: exit 0, stop duration, messages completed ($(json elastic "s['realtime']"))" \
	'[ "$(rc elastic)" = 0 ] && [ "$elastic" = "duration 2" ]'
held=$(json elastic "(lambda r: r['held_ns'] > 0 and r['holds'] > 0 and r['lateness_max_ns'] <= 2000)(s['realtime'])")
check "LagPolicy elastic: held time back, lateness never above LagLimit" '[ "$held" = True ]'
order=$(json elastic "(lambda r: r['lateness_p50_ns'] <= r['lateness_p99_ns'] <= r['lateness_max_ns'] and
	r['passes_late_over_1us'] >= r['passes_late_over_10us'] >= r['passes_late_over_100us'] and
	r['passes_due'] <= r['polls'])(s['realtime'])")
check "summary realtime member: percentiles in order, late-pass counts nested" '[ "$order" = True ]'
finish
