#!/usr/bin/env bash
# Interop from a real port, in real time: tests/wire/gen_uet_vectors.py writes one frame of every UET 1.0 PDS type
# and SES form (scapy, from the spec layouts; each over UDP 4793 and native IPv4 protocol 253), a net_pcap port
# replays them into host2's NIC (tests/lab/uetvec.yaml), and summary.json must show: every frame read, none refused,
# each counted by PDS and SES class (hosts[].uet_rx), only the TSS ones (unreadable without keys) under not_used,
# and the model's reactions to the rest as UET 1.0 prescribes for a stranger's frames (the generator's answer_of():
# requests with SYN delivered and ACKed, without SYN NACKed INV_DPDCID, RUDI answered with RUDI_RESP, ACKs and NACKs
# for no open PDC ignored, CPs for no PDC NACKed, CREDIT / NEGOTIATION NACKed UNEXP_EVENT, probes answered), and
# every answer out of the port; the table of vector -> answer is printed. Run 1: no trailer, CrcTrailer false. Run 2: every frame with a CRC-32C trailer,
# CrcTrailer true and Encapsulation NativeIPv4: what host2 sends back out of the port (ACKs, NACKs) must be native
# with a right trailer (decoded by tests/wire/pcap_classes). Run 3: the frames without trailer while CrcTrailer is
# true: all but the trimmed and TSS ones refused as bad_crc, the rest still counted.
# Usage: test_uet_vectors.sh UETEMU REPO_ROOT PCAP_CLASSES
set -uo pipefail
uetemu=$(realpath "$1") root=$(realpath "$2") classes=$(realpath "$3")
[ "$(id -u)" -eq 0 ] || { echo "SKIP: test_uet_vectors needs root (DPDK EAL)"; exit 77; }
py=""
for p in python3 /usr/bin/python3; do
	if command -v "$p" >/dev/null && "$p" -c 'import scapy.all' 2>/dev/null; then py=$p; break; fi
done
[ -n "$py" ] || { echo "SKIP: no python3 with scapy (python3-scapy)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" /var/run/dpdk/uetvec$$' EXIT
pass=0 fail=0
check() { if eval "$2"; then echo "ok   $1"; pass=$((pass+1)); else echo "FAIL $1"; fail=$((fail+1)); fi; }
# run_port NAME PCAP CRC [ENCAP]: run uetvec.yaml in real time with its port replaying PCAP, outputs in $tmp/NAME
run_port() {
	timeout -s TERM -k 5 60 "$uetemu" run "$root/tests/lab/uetvec.yaml" --mode realtime --out "$tmp/$1" --quiet \
		--set "ports.0.dev=net_pcap0,rx_pcap=$2,tx_pcap=$tmp/$1-tx.pcap" \
		--set "nic.UETEncapsulation.CrcTrailer=$3" --set "nic.UETEncapsulation.Encapsulation=${4:-UDP}" \
		-- --no-huge --no-pci -m 256 --file-prefix uetvec$$ --log-level='lib.*:error' >"$tmp/$1-log" 2>&1
	local rc=$?
	check "uetemu exits 0 replaying $(basename "$2") with CrcTrailer $3 ($rc)" "[ $rc -eq 0 ]"
	[ $rc -eq 0 ] || sed 's/^/  /' "$tmp/$1-log"
}

"$py" "$root/tests/wire/gen_uet_vectors.py" "$tmp" || { echo "FAIL the generator failed"; exit 1; }
run_port plain "$tmp/uet_vectors.pcap" false
run_port crc "$tmp/uet_vectors_crc.pcap" true NativeIPv4
run_port nocrc "$tmp/uet_vectors.pcap" true
# What host2 sent back out of the port in run 2: native IPv4 (encap flag 1) with a right CRC trailer (2); its ARP
# announcement at the start (refused by the UET decoder as not_ipv4) is not UET and not counted.
"$classes" "$tmp/crc-tx.pcap" --crc | grep -v ' not_ipv4 ' >"$tmp/crc-tx.txt"
sent=$(wc -l <"$tmp/crc-tx.txt") good=$(awk '$2 == "ok" && $7 == 3' "$tmp/crc-tx.txt" | wc -l)
check "run 2: the $sent frames host2 sent out of the port are native IPv4 with a right CRC trailer ($good)" \
	'[ "$sent" -gt 0 ] && [ "$good" = "$sent" ]'
"$py" - "$tmp/uet_vectors.json" "$tmp" >"$tmp/py" 2>&1 <<'PY'
import collections, json, os, sys
man = json.load(open(sys.argv[1]))
vecs, tmp = man['vectors'], sys.argv[2]
per = man['frames_per_vector']
want_pds, want_ses, want_unused = collections.Counter(), collections.Counter(), collections.Counter()
for v in vecs:
    want_pds[v['pds']] += per
    for s in v['ses']:
        want_ses[s] += per
    if v['ignored']:
        want_unused[v['pds']] += per
REQS = ('rud_req', 'rod_req', 'rud_cc_req', 'rod_cc_req')
ACKS, NACKS = ('ack', 'ack_cc', 'ack_ccx'), ('nack', 'nack_ccx')
def n_of(pred):
    return per * sum(1 for v in vecs if pred(v))
asis = lambda v: v['answer']['asis']
syn = lambda v: '_syn' in v['name']
want_model = {
    # every request is data, trimmed or not, whatever its form
    'write_pkts_rcvd': n_of(lambda v: v['pds'] in REQS + ('rudi_req', 'uud_req')),
    # a trim is acted on where the request reaches its PDC (none without SYN), and for RUDI and UUD
    'trims_rcvd': n_of(lambda v: v['trimmed'] and (v['pds'] in ('rudi_req', 'uud_req') or syn(v))),
    # uetemu's own data form without SYN for no PDC: the Scala pages' silent drop (the other forms get INV_DPDCID)
    'drop_no_rcv_pdc': n_of(lambda v: v['pds'] == 'rud_cc_req' and v['used'] and not syn(v)),
    'ack_pkts_rcvd': n_of(lambda v: v['pds'] in ACKS),
    'nack_pkts_rcvd': n_of(lambda v: v['pds'] in NACKS),
    # ACKs and NACKs name no PDC of host2's (a RUDI NACK names none at all: counted apart)
    'late_no_pdc': n_of(lambda v: v['pds'] in ACKS or v['pds'] in NACKS and v['name'] != 'nack_rudi_nt'),
    'probe_no_pdc': n_of(lambda v: v['pds'] == 'cp_probe'),
    # what host2 answered (the generator's answer_of(), "as sent": a stranger, no PDC anywhere)
    'nack_pkts_sent': n_of(lambda v: asis(v).startswith('nack:')),
    'ack_pkts_sent': n_of(lambda v: asis(v) in ('ack_cc', 'rudi_resp+rsp')),
}
want_ev = {
    'nack_inv_dpdcid': n_of(lambda v: asis(v) == 'nack:0x0e'),
    'nack_unexp_event': n_of(lambda v: asis(v) == 'nack:0x19'),
    'rudi_resp_sent': n_of(lambda v: asis(v) == 'rudi_resp+rsp'),
    'rudi_resp_unmatched': n_of(lambda v: v['pds'] == 'rudi_resp'),
    'cp_noop': n_of(lambda v: v['pds'] == 'cp_noop'),
}
want_answers = n_of(lambda v: asis(v) != '-')
print('TABLE %-36s %-14s %s' % ('vector', 'pds', 'answer (as sent by a stranger)'))
for v in vecs:
    print('TABLE %-36s %-14s %s' % (v['name'], v['pds'], asis(v)))

def load(name):
    s = json.load(open(os.path.join(tmp, name, 'summary.json')))
    return s, s['hosts'][2]

for name, label in (('plain', 'no~trailer'), ('crc', 'CRC~trailer')):
    s, h = load(name)
    u, c = h['uet_rx'], h['counters']
    n = len(vecs) * per
    print('CHECK %s:~all~%d~frames~read~from~the~port~(%d) %d' % (label, n, s['ports'][0]['rx_frames'],
                                                                s['ports'][0]['rx_frames'] == n))
    refused = ','.join('%s=%d' % kv for kv in sorted(s['port_rx_refused'].items())) or 'none'
    print('CHECK %s:~no~frame~refused~(%s) %d' % (label, refused, not s['port_rx_refused']))
    print('CHECK %s:~every~frame~counted~by~PDS~type,~%d~types~(%s) %d' % (
        label, len(want_pds), ','.join('%s=%d' % kv for kv in sorted(u['pds'].items())), u['pds'] == want_pds))
    print('CHECK %s:~by~SES~header~and~extension~(%s) %d' % (
        label, ','.join('%s=%d' % kv for kv in sorted(u['ses'].items())), u['ses'] == want_ses))
    print('CHECK %s:~%d~valid~frames~not~used~by~this~model,~by~type~(uet_not_used~%d) %d' % (
        label, sum(want_unused.values()), c['uet_not_used'],
        u['not_used'] == want_unused and c['uet_not_used'] == sum(want_unused.values())))
    got = {k: c[k] for k in want_model}
    print('CHECK %s:~the~model~acted~on~the~rest~(%s) %d' % (
        label, ','.join('%s=%d' % kv for kv in sorted(got.items())), got == want_model))
    ev = u.get('pds_events', {})
    got = {k: ev.get(k, 0) for k in want_ev}
    print('CHECK %s:~answered~as~UET~1.0~says~(%s) %d' % (
        label, ','.join('%s=%d' % kv for kv in sorted(got.items())), got == want_ev))
    print('CHECK %s:~the~message~on~the~emulated~link~completed %d' % (label, s['messages']['completed'] == 1))
s, h = load('nocrc')
want_bad = per * sum(1 for v in vecs if not v['trimmed'] and v['pds'] != 'tss')
bad = s['port_rx_refused'].get('bad_crc', 0)
print('CHECK CrcTrailer~true,~none~sent:~%d~refused~as~bad_crc~(%d),~the~%d~trimmed~and~TSS~counted~(%d) %d' % (
    want_bad, bad, len(vecs) * per - want_bad, sum(h['uet_rx']['pds'].values()),
    bad == want_bad and set(s['port_rx_refused']) == {'bad_crc'} and
    sum(h['uet_rx']['pds'].values()) == len(vecs) * per - want_bad))
print('ANSWERS %d' % want_answers)
print('SUMMARY %d %d %d' % (len(vecs), len(vecs) * per, sum(want_unused.values())))
PY
[ -s "$tmp/py" ] || { echo "FAIL no summary read"; exit 1; }
grep '^TABLE' "$tmp/py" | cut -c7-
while read -r tag what ok; do
	[ "$tag" = CHECK ] || continue
	check "${what//\~/ }" "[ '$ok' = 1 ]"
done <"$tmp/py"
# every answer host2 sent went out of the port, in both runs (the ARP announcement aside)
want_ans=$(awk '$1 == "ANSWERS" {print $2}' "$tmp/py")
for r in plain crc; do
	[ $r = crc ] && opt=--crc || opt=
	n=$("$classes" "$tmp/$r-tx.pcap" $opt | awk '$2 == "ok"' | wc -l)
	check "run $r: host2 sent its $want_ans answers out of the port ($n UET frames)" '[ "$n" = "$want_ans" ]'
done
grep -q '^SUMMARY' "$tmp/py" || { echo "FAIL summary check: $(cat "$tmp/py")"; fail=$((fail+1)); }
read -r _ nvec nframes nunused < <(grep '^SUMMARY' "$tmp/py")
echo "test_uet_vectors: ${nvec:-?} vectors, ${nframes:-?} frames per run, ${nunused:-?} valid but not used;" \
	"$pass passed, $fail failed"
[ "$fail" -eq 0 ]
