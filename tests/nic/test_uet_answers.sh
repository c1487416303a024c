#!/usr/bin/env bash
# What a UET NIC answers to every UET 1.0 form: the vectors of tests/wire/gen_uet_vectors.py (scapy, from the spec
# layouts, independent of uetemu's encoder) handed one by one to a NIC (tests/nic/pcap_answers), and each answer
# checked against what UET 1.0 prescribes (the generator's answer_of(); docs/wire.md, What the NIC model does with
# them), printed as a table:
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
            w = v['answer'][mode]
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
