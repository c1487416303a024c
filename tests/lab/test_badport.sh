#!/usr/bin/env bash
# Bad input from a port, in real time: every refused frame is counted with its reason, the process does not
# crash, and the records and summary are written; then forged or early connection-management frames reach the
# RDMA application and are each counted (rdma.setup). Usage: test_badport.sh UETEMU REPO_ROOT
# Exit status: 0 all passed, 1 a check failed, 77 skipped (not root, or a tool missing).
set -uo pipefail
LAB_NAME=test_badport
. "$(dirname "${BASH_SOURCE[0]}")/lablib.sh"
lab_init "$@"
# run_port NAME CONFIG [ARGS...]: run CONFIG in real time with its port replaying $WORK/NAME.pcap, outputs in
# $WORK/NAME
run_port() {
	local name=$1 config=$2; shift 2
	set -- "$name" "$config" "$@"
	timeout -s TERM -k 5 60 "$UETEMU" run "$ROOT/tests/lab/$2" --mode realtime --out "$WORK/$1" --quiet "${@:3}" \
		--set "ports.0.dev=net_pcap0,rx_pcap=$WORK/$1.pcap,tx_pcap=$WORK/$1-tx.pcap" \
		-- --no-huge --no-pci -m 256 --file-prefix "$PREFIX" --log-level='lib.*:error' >"$WORK/$1-log" 2>&1
	local rc=$?
	check "uetemu exits 0 on $2 ($rc)" "[ $rc -eq 0 ]"
	[ $rc -eq 0 ] || sed 's/^/  /' "$WORK/$1-log"
}

read -r total malformed < <(python3 "$ROOT/tests/lab/gen_bad_frames.py" "$WORK/bad.pcap")
run_port bad badport.yaml
python3 - "$WORK/bad/summary.json" "$total" "$malformed" >"$WORK/py" 2>&1 <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
total, malformed = int(sys.argv[2]), int(sys.argv[3])
port = s['ports'][0]
# every frame not taken, by reason: the port's own reasons (well-formed, not for uetemu) and the decoders'
dropped = sum(port['rx_drops'].values())
decoder = sum(s['port_rx_refused'].values())
print(port['rx_frames'], dropped, s['messages']['completed'], s['messages']['posted'],
      s['drop_reasons'].get('ext_rx_bad_frame', 0), decoder,
      sum(h['counters']['late_no_pdc'] +
          h['counters']['probe_no_pdc'] for h in s['hosts']),
      len(port['rx_drops']), port['stack']['rx_to_host'])
PY
read -r rx refused done posted dropped decoder nopdc nreasons tohost <"$WORK/py"
check "all $total frames read from the port ($rx)" '[ "$rx" = "$total" ]'
check "all $malformed malformed frames refused and counted by reason ($refused)" '[ "$refused" = "$malformed" ]'
check "refusals counted under several named reasons ($nreasons)" '[ "${nreasons:-0}" -ge 8 ]'
check "the decoders' refusals appear in the drop counters ($dropped of $decoder)" \
	'[ "$dropped" = "$decoder" ] && [ "${decoder:-0}" -gt 100 ]'
check "the 2 well-formed UET frames reached the host ($tohost)" '[ "$tohost" = 2 ]'
check "the ACK for no open PDC ignored, the probe for no open PDC answered ($nopdc)" '[ "$nopdc" = 2 ]'
check "the message on the emulated link completed ($done of $posted)" '[ "$done" = 1 ] && [ "$posted" = 1 ]'

# Connection-management frames from the port, before the RDMA application's StartTime: each counted once, as
# gen_cm_frames.py says for host1's role (the run's placement, read back from summary.json).
python3 "$ROOT/tests/lab/gen_cm_frames.py" "$WORK/cm.pcap" >"$WORK/cm.txt"
# host1's peer is a replay: the ScalaRdma pair never sets up, its work left open by design (--allow-incomplete)
run_port cm badport-cm.yaml --allow-incomplete
python3 - "$WORK/cm/summary.json" "$WORK/cm.txt" >"$WORK/cm-py" 2>&1 <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
role = 1 if s['rdma']['pairs'][0]['responder'] == 'host1' else 2
want = {'invalid': 0, 'not_listening': 0, 'refused': 0}
for line in open(sys.argv[2]):
    want[line.split()[role]] += 1
setup = s['rdma']['setup']
got = (setup['invalid'], setup['not_listening'], sum(s['port_rx_refused'].values()))
print(('responder' if role == 1 else 'initiator'), '%d/%d/%d' % got,
      '%d/%d/%d' % (want['invalid'], want['not_listening'], want['refused']), setup['established'])
PY
read -r role got want established <"$WORK/cm-py"
check "host1 ($role): invalid/not_listening/refused counted $got, as sent $want" '[ -n "$got" ] && [ "$got" = "$want" ]'
check "no forged message set a connection up ($established established)" '[ "$established" = 0 ]'
finish
