#!/usr/bin/env bash
# What a UET NIC answers to every UET 1.0 form: the vectors of tests/wire/gen_uet_vectors.py (scapy, from the spec
# layouts, independent of uetemu's encoder) handed one by one to a NIC (tests/nic/pcap_answers), and each answer
# checked against what UET 1.0 prescribes (docs/wire.md, What the NIC model does with them), printed as a table:
#   as sent (a stranger: no PDC anywhere): a request with SYN opens a PDC and is ACKed, one without is NACKed
#     INV_DPDCID (uetemu's own RUD_CC data keeps the Scala pages' silent drop), RUDI gets RUDI_RESP, UUD nothing,
#     ACKs and NACKs for no PDC nothing, CPs for no PDC INV_DPDCID, CREDIT / CREDIT_REQ / NEGOTIATION UNEXP_EVENT;
#   --open (each with the state it is meant for): every request ACKed (a trimmed one NACKed UET_TRIMMED), every
#     ACK form matching the outstanding PDC completes its message (and draws uetemu's one probe), a trim NACK a
#     retransmission, a PDC_FATAL NACK a retransmission with SYN, ACK_REQ / CLEAR / CLOSE an ACK, CLEAR_REQ a CLEAR;
#   --open --ses-rsp: the ACKs of requests carry the SES response.
# Both encapsulations, with and without the CRC trailer. Usage: test_uet_answers.sh PCAP_ANSWERS REPO_ROOT
set -uo pipefail
tool=$(realpath "$1") root=$(realpath "$2")
py=""
for p in python3 /usr/bin/python3; do
	if command -v "$p" >/dev/null && "$p" -c 'import scapy.all' 2>/dev/null; then py=$p; break; fi
done
[ -n "$py" ] || { echo "SKIP: no python3 with scapy (python3-scapy)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$py" "$root/tests/wire/gen_uet_vectors.py" "$tmp" >/dev/null || { echo "FAIL the generator failed"; exit 1; }
for m in asis open rsp; do
	args=(); [ $m = open ] && args=(--open); [ $m = rsp ] && args=(--open --ses-rsp)
	"$tool" "$tmp/uet_vectors.pcap" "${args[@]}" >"$tmp/$m.txt" || { echo "FAIL pcap_answers $m"; exit 1; }
	"$tool" "$tmp/uet_vectors_crc.pcap" --crc "${args[@]}" >"$tmp/$m-crc.txt" || { echo "FAIL pcap_answers $m --crc"; exit 1; }
done
"$py" - "$tmp" <<'PY'
import json, os, sys
tmp = sys.argv[1]
vecs = json.load(open(os.path.join(tmp, 'uet_vectors.json')))['vectors']
REQ = ('rud_req', 'rod_req', 'rud_cc_req', 'rod_cc_req')
TRIM = '0x01'  # the generator's trimmed frames carry DSCP 16, TRIMMED (not the last hop's 18)

def scala_data(v):
    # uetemu's own form: RUD_CC_REQ + standard SEND or WRITE, or its trim (the Scala pages' paths)
    return v['pds'] == 'rud_cc_req' and (v['trimmed'] or v['ses'] == ['std'] and not v['name'].endswith('read'))

def want(v, mode):
    n, pds, syn = v['name'], v['pds'], '_syn' in v['name']
    ack = 'ack_cc+rsp' if mode == 'rsp' else 'ack_cc'
    if pds in REQ:
        if mode == 'asis' and not syn:
            return '-' if scala_data(v) else 'nack:0x0e'
        if v['trimmed']:
            return 'nack:' + TRIM
        return ack if mode == 'rsp' and v['ses'][0] in ('std', 'medium', 'small') else 'ack_cc'
    if pds == 'rudi_req':
        return 'nack:' + TRIM if v['trimmed'] else 'rudi_resp+rsp'
    if pds in ('uud_req', 'rudi_resp', 'tss'):
        return '-'
    if pds in ('ack', 'ack_cc', 'ack_ccx'):
        if mode == 'asis' or n == 'ack_cc_nscc_probe':
            return '-'
        return 'cp_probe done'
    if pds in ('nack', 'nack_ccx'):
        if mode == 'asis' or n == 'nack_rudi_nt':
            return '-'
        return 'data_retx' if n == 'nack_trimmed' else 'data_syn_retx'
    ctl = pds[3:]
    if ctl == 'noop':
        return '-'
    if ctl == 'probe':
        return 'ack_cc'
    if ctl in ('credit', 'credit_req', 'negotiation'):
        return 'nack:0x19'
    if mode == 'asis':
        return 'nack:0x0e'
    return {'ack_req': 'ack_cc', 'clear': 'ack_cc', 'close': 'ack_cc', 'clear_req': 'cp_clear',
            'close_req': '-'}[ctl]

fail = 0
rows = {}
for mode in ('asis', 'open', 'rsp'):
    for crc in ('', '-crc'):
        lines = [l.split(None, 2) for l in open(os.path.join(tmp, mode + crc + '.txt'))]
        if len(lines) != 2 * len(vecs):
            print('FAIL %s%s: %d lines for %d frames' % (mode, crc, len(lines), 2 * len(vecs)))
            fail += 1
            continue
        for i, l in enumerate(lines):
            v = vecs[i // 2]
            got = l[2].strip() if len(l) > 2 else '?'
            w = want(v, mode)
            rows.setdefault(v['name'], {})[mode] = got
            if got != w or l[1] != v['pds']:
                print('FAIL %s%s %s%s: answered %s (%s), want %s' % (mode, crc, v['name'],
                      ' native' if i % 2 else '', got, l[1], w))
                fail += 1
print('%-36s %-14s %-16s %-18s %s' % ('vector', 'pds', 'as sent', 'with its state', 'with SES response'))
for v in vecs:
    r = rows.get(v['name'], {})
    print('%-36s %-14s %-16s %-18s %s' % (v['name'], v['pds'], r.get('asis'), r.get('open'), r.get('rsp')))
print('test_uet_answers: %d vectors x 2 encapsulations x 2 trailers x 3 modes, %d failed' % (len(vecs), fail))
sys.exit(1 if fail else 0)
PY
