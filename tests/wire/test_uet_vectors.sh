#!/usr/bin/env bash
# Interop without a port: the vectors of tests/wire/gen_uet_vectors.py (every UET 1.0 PDS type and SES form, built
# with scapy from the spec layouts, over UDP and native IPv4) decoded by wire_decode_cfg() (tests/wire/pcap_classes):
# no frame refused, each decoded as the PDS and SES class the generator meant, the model's kind where it acts, both
# encapsulations; with the CRC trailer under --crc; and without a trailer under --crc every frame refused as bad_crc
# but the trimmed and TSS ones, which carry none; the refprov trailer (from the IPv4 source address) under
# --crc-refprov, and refused as bad_crc read with uetemu's coverage. The same vectors go through a net_pcap port in
# tests/lab/test_uet_vectors.sh. Usage: test_uet_vectors.sh PCAP_CLASSES REPO_ROOT
set -uo pipefail
tool=$(realpath "$1") root=$(realpath "$2")
py=""
for p in python3 /usr/bin/python3; do
	if command -v "$p" >/dev/null && "$p" -c 'import scapy.all' 2>/dev/null; then py=$p; break; fi
done
[ -n "$py" ] || { echo "SKIP: no python3 with scapy (python3-scapy)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$py" "$root/tests/wire/gen_uet_vectors.py" "$tmp" || { echo "FAIL the generator failed"; exit 1; }
"$tool" "$tmp/uet_vectors.pcap" >"$tmp/plain.txt" || { echo "FAIL pcap_classes"; exit 1; }
"$tool" "$tmp/uet_vectors_crc.pcap" --crc >"$tmp/crc.txt" || { echo "FAIL pcap_classes --crc"; exit 1; }
"$tool" "$tmp/uet_vectors.pcap" --crc >"$tmp/nocrc.txt" || { echo "FAIL pcap_classes --crc (no trailer)"; exit 1; }
"$tool" "$tmp/uet_vectors_crc_refprov.pcap" --crc-refprov >"$tmp/refprov.txt" || { echo "FAIL pcap_classes --crc-refprov"; exit 1; }
"$tool" "$tmp/uet_vectors_crc_refprov.pcap" --crc >"$tmp/refprov-uetemu.txt" || { echo "FAIL pcap_classes --crc"; exit 1; }
"$py" - "$tmp/uet_vectors.json" "$tmp/plain.txt" "$tmp/crc.txt" "$tmp/nocrc.txt" "$tmp/refprov.txt" \
	"$tmp/refprov-uetemu.txt" <<'PY'
import json, sys
man = json.load(open(sys.argv[1]))
vecs = man['vectors']
fail = 0
def check(name, ok, detail=''):
    global fail
    print(('ok   ' if ok else 'FAIL ') + name + (' (%s)' % detail if detail else ''))
    fail += 0 if ok else 1
for label, path, crc in (('no trailer', sys.argv[2], False), ('CRC trailer', sys.argv[3], True),
                         ('refprov CRC trailer', sys.argv[5], 'refprov')):
    rows = [l.split() for l in open(path)]
    check('%s: %d frames decoded (2 per vector)' % (label, len(rows)), len(rows) == 2 * len(vecs))
    bad = []
    for i, r in enumerate(rows):
        v = vecs[i // 2]
        native = i % 2 == 1
        _, reason, kind, pds, ses, ext, encap = r
        want_ses = v['ses'][0]
        want_ext = v['ses'][1] if len(v['ses']) > 1 else '-'
        trailer = crc and not v['trimmed'] and v['pds'] != 'tss'
        want_encap = (1 if native else 0) | (2 if trailer else 0) | (32 if trailer and crc == 'refprov' else 0)
        used = kind not in ('uet',)
        if (reason, pds, ses, ext, int(encap), used) != ('ok', v['pds'], want_ses, want_ext, want_encap, v['used']):
            bad.append('%s%s: %s' % (v['name'], ' native' if native else '', ' '.join(r[1:])))
    check('%s: every vector decoded as its PDS/SES class, UDP and native, used where the model acts' % label,
          not bad, '; '.join(bad[:6]))
    refused = sum(1 for r in rows if r[1] != 'ok')
    check('%s: no frame refused (%d)' % (label, refused), refused == 0)
rows = [l.split() for l in open(sys.argv[4])]
want = sum(2 for v in vecs if not v['trimmed'] and v['pds'] != 'tss')
got = sum(1 for r in rows if r[1] == 'bad_crc')
check('CRC required, none sent: %d of %d frames refused as bad_crc (all but trimmed and TSS)' % (got, want),
      got == want and all(r[1] in ('ok', 'bad_crc') for r in rows))
rows = [l.split() for l in open(sys.argv[6])]
got = sum(1 for r in rows if r[1] == 'bad_crc')
check('refprov trailer read as uetemu coverage: %d of %d frames refused as bad_crc' % (got, want),
      got == want and all(r[1] in ('ok', 'bad_crc') for r in rows))
print('test_uet_vectors (decoder): %d vectors, %d classes of PDS, %d failed' %
      (len(vecs), len({v['pds'] for v in vecs}), fail))
sys.exit(1 if fail else 0)
PY
