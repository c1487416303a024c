#!/usr/bin/env python3
"""uetemu pcap-info on bad captures: a corpus made here from a good pcap and pcapng of tests/golden/small.yaml
(a truncated file at several points, a wrong magic, an empty file, a directory, snaplen-cut UET frames, pcapng
blocks of unknown types, a huge caplen, a block length that is none, a caplen over its original length), each
with the error or the counted skip it must give; then mutants of both files (fixed seed: bytes flipped, lengths
corrupted, spans cut, duplicated or inserted). Nothing may crash, hang or draw a sanitizer report; exit 0 gives
JSON that parses, exit 1 one line "uetemu: pcap-info: FILE: ...".
Usage: test_pcapinfo_bad.py UETEMU REPO_ROOT [MUTANTS]"""
import json
import os
import random
import struct
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from checks import check, finish, workdir  # noqa: E402

uetemu, root = sys.argv[1], sys.argv[2]
n_mutants = int(sys.argv[3]) if len(sys.argv) > 3 else 300
tmp = workdir()


def info(path, *args):
    """(exit status, JSON or None, stderr) of pcap-info --json @path; a crash, hang or sanitizer report fails."""
    try:
        p = subprocess.run([uetemu, 'pcap-info', '--json', path] + list(args), capture_output=True, timeout=30)
    except subprocess.TimeoutExpired:
        return -1, None, 'hang'
    err = p.stderr.decode('latin-1')
    if p.returncode not in (0, 1) or 'Sanitizer' in err or 'runtime error' in err:
        return -2, None, 'exit %d: %s' % (p.returncode, err[-300:])
    j = None
    if p.returncode == 0:
        try:
            j = json.loads(p.stdout)
        except ValueError as e:
            return -3, None, 'JSON: %s' % e
    return p.returncode, j, err


def write(name, data):
    path = os.path.join(tmp, name)
    with open(path, 'wb') as f:
        f.write(data)
    return path


def records(pcap):
    """(offset, caplen) of each record of a little-endian pcap."""
    out, at = [], 24
    while at + 16 <= len(pcap):
        caplen = struct.unpack('<I', pcap[at + 8:at + 12])[0]
        out.append((at, caplen))
        at += 16 + caplen
    return out


def recut(pcap, snap):
    """The pcap with every record cut to @snap bytes (its original length kept): a snap length after the fact."""
    out = bytearray(pcap[:24])
    out[16:20] = struct.pack('<I', snap)
    for at, caplen in records(pcap):
        c = min(caplen, snap)
        out += pcap[at:at + 8] + struct.pack('<I', c) + pcap[at + 12:at + 16] + pcap[at + 16:at + 16 + c]
    return bytes(out)


def expect(name, data, rc, what, test=lambda j, e: True):
    got, j, err = info(write(name, data))
    ok = got == rc and test(j, err)
    if rc == 1:
        ok = ok and err.startswith('uetemu: pcap-info: ') and err.count('\n') == 1
    check(ok, '%s: exit %d, %s (%s)' % (name, got, what, err.strip()[:160] or 'counts ok'))


def corpus(pcap, ng):
    good = info(write('good.pcap', pcap))[1]
    frames = good['frames']
    recs = records(pcap)
    expect('truncated-header.pcap', pcap[:10], 1, 'a cut file header is an error', lambda j, e: 'truncated' in e)
    expect('truncated-record.pcap', pcap[:recs[3][0] + 20], 0, 'a cut record is counted, the 3 before it read',
           lambda j, e: j['frames'] == 3 and j['skipped']['truncated'] == 1 and 'truncated' in e)
    # 301: blocks are 4-byte aligned, so the cut lands inside one whatever the frames
    expect('truncated-block.pcapng', ng[:len(ng) - 301], 0, 'a cut block is counted',
           lambda j, e: j['frames'] < frames and j['skipped']['truncated'] == 1)
    expect('truncated-shb.pcapng', ng[:20], 1, 'a cut section header is an error', lambda j, e: 'truncated' in e)
    expect('wrong-magic.pcap', b'\x00\x01\x02\x03' + pcap[4:], 1, 'a wrong magic is an error',
           lambda j, e: 'not a pcap or pcapng file' in e and '00 01 02 03' in e)
    expect('empty.pcap', b'', 1, 'an empty file is an error', lambda j, e: 'not a pcap or pcapng file (0 bytes' in e)
    got, _, err = info(tmp)
    check(got == 1 and 'Is a directory' in err, 'a directory: exit %d, %s' % (got, err.strip()))
    # every record longer than the snap length is cut: after its headers at 102, inside them at 60
    longer = {snap: sum(1 for _, caplen in recs if caplen > snap) for snap in (102, 60)}
    expect('snap-102.pcap', recut(pcap, 102), 0, 'UET frames cut after their headers are decoded and counted',
           lambda j, e: j['frames'] == frames and j['cut'] == longer[102] > 0 and j['cut_in_headers'] == 0
           and j['uet']['data'] == good['uet']['data'] and j['decode_errors']['total'] == 0)
    expect('snap-60.pcap', recut(pcap, 60), 0, 'UET frames cut inside their headers are counted, not decoded',
           lambda j, e: j['cut_in_headers'] == longer[60] > 0 and j['cut'] == 0 and j['uet']['data'] == 0
           and j['decode_errors']['total'] == 0)
    # a block of an unknown type after the IDB, and a custom block: skipped, the first counted
    shb_len = struct.unpack('<I', ng[4:8])[0]
    idb_end = shb_len + struct.unpack('<I', ng[shb_len + 4:shb_len + 8])[0]
    odd = struct.pack('<III', 0x12345678, 16, 0xdeadbeef) + struct.pack('<I', 16)
    expect('unknown-block.pcapng', ng[:idb_end] + odd + odd + ng[idb_end:], 0, 'unknown blocks are skipped, counted',
           lambda j, e: j['frames'] == frames and j['skipped']['unknown_block'] == 2)
    huge = bytearray(pcap)
    huge[recs[0][0] + 8:recs[0][0] + 12] = struct.pack('<I', 0xfffffff0)
    expect('huge-caplen.pcap', bytes(huge), 1, 'a huge caplen is an error, not an allocation',
           lambda j, e: 'captured length 4294967280 is over 262144' in e)
    over = bytearray(pcap)
    over[recs[1][0] + 12:recs[1][0] + 16] = struct.pack('<I', 10)
    expect('caplen-over-len.pcap', bytes(over), 0, 'a caplen over its original length is skipped, counted',
           lambda j, e: j['frames'] == frames - 1 and j['skipped']['bad_caplen'] == 1)
    blen = bytearray(ng)
    blen[idb_end + 4:idb_end + 8] = struct.pack('<I', 0x7ffffffc)
    expect('huge-block.pcapng', bytes(blen), 1, 'a block length that is none is an error naming its offset',
           lambda j, e: 'offset %d' % idb_end in e and 'not a block length' in e)


def mutate(data, rng):
    b = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(6)
        i = rng.randrange(len(b)) if b else 0
        if op == 0 and b:                                   # flip bytes
            for _ in range(rng.randint(1, 8)):
                b[rng.randrange(len(b))] = rng.randrange(256)
        elif op == 1 and len(b) > 8:                        # a 32-bit field made hostile (a length, most often)
            j = rng.randrange(len(b) - 4) & ~3
            b[j:j + 4] = struct.pack('<I', rng.choice([0, 1, 3, 12, 0x7fffffff, 0xffffffff, 0x10000, len(b)]))
        elif op == 2:                                       # cut the file
            del b[rng.randrange(len(b) + 1):]
        elif op == 3 and b:                                 # drop a span
            del b[i:i + rng.randint(1, 64)]
        elif op == 4 and b:                                 # duplicate a span
            b[i:i] = b[i:i + rng.randint(1, 200)]
        else:                                               # insert random bytes
            b[i:i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 40)))
    return bytes(b)


def fuzz(pcap, ng):
    rng = random.Random(18760)
    bad, ok, refused = [], 0, 0
    for n in range(n_mutants):
        src = (pcap, ng)[n % 2]
        path = write('m%03d.%s' % (n, ('pcap', 'pcapng')[n % 2]), mutate(src, rng))
        got, _, err = info(path)
        if got < 0:
            bad.append('%s: %s' % (path, err))
        elif got == 0:
            ok += 1
        else:
            refused += 1
    check(not bad, '%d mutants of a pcap and a pcapng: no crash, hang, sanitizer report or bad JSON %s'
          % (n_mutants, bad[:3]))
    check(ok + refused == n_mutants, '%d read (skips counted), %d refused with an error' % (ok, refused))


def main():
    out = os.path.join(tmp, 'run')
    subprocess.run([uetemu, 'run', os.path.join(root, 'tests/golden/small.yaml'), '-q', '-o', out, '--set',
                    'captures.0.snaplen=65535'], check=True, stdout=subprocess.DEVNULL)
    subprocess.run([uetemu, 'run', os.path.join(root, 'tests/golden/small.yaml'), '-q', '-o', out + '-ng', '--set',
                    'captures.0.format=pcapng'], check=True, stdout=subprocess.DEVNULL)
    pcap = open(os.path.join(out, 'golden.pcap'), 'rb').read()
    ng = open(os.path.join(out + '-ng', 'golden.pcapng'), 'rb').read()
    corpus(pcap, ng)
    fuzz(pcap, ng)
    return finish('test_pcapinfo_bad')


if __name__ == '__main__':
    sys.exit(main())
