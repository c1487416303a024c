#!/usr/bin/env python3
"""Session logs a re-run cannot trust, and the output budget (docs/capture.md, re-run verdicts; docs/summary.md,
output_cut). tests/scenario/rerun holds a real-time session recorded on two net_null ports (no SimulationDuration,
stopped by SIGINT): its config, its --set overrides, and its session log of 1,019 passes and 340 frames sent.

- the log as recorded re-runs identically: exit 0;
- a pass, a frame sent or the end record stamped 2^64-1 ps; a pass whose time goes backwards; a frame shorter than an
  Ethernet header: "corrupt session log", exit 1, before the models see a record;
- 8 random bit flips (12 seeds): each exit is a documented one (1 corrupt or not the session's, 6 differs), within
  20 s without SIGKILL, and the outputs stay under simulation.OutputSizeLimit (8 MB, set in the session's sets);
- a log cut to its header, and a log cut before its first port frame (one pass, no end record): "nothing to re-run",
  exit 12;
- the end record removed and a last pass stamped 2^62 ps with a wall clock to match (a valid-looking cut log): the
  re-run stops once its models sent more frames than the log holds (plus the slack of a cut log), by itself;
- a replay whose outputs would pass 2 MB by its stop time: the warning after its first rows;
- OutputSizeLimit 200 KB on the re-run and 300 KB on configs/pair.yaml (a capture of every frame): summary.json
  "output_cut" names the file, the emulated time and the bytes; every file is whole (CSV rows, pcap records, pcapng
  blocks) and all of them together within the limit; the run without the limit has no output_cut;
- as root: the re-run of the forged log into a 1 MB tmpfs: exit 1 naming the file and "No space left on device",
  within 20 s, every file left whole.
Usage: test_rerun_bad.py UETEMU REPO_ROOT
"""
import glob
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from checks import check, finish, workdir  # noqa: E402

HDR, REC = 56, 24
PASS, RX, TX, END = 1, 2, 3, 4


def records(data):
    """(offset, type, length, t, x) of every whole record of a session log."""
    out, off = [], HDR
    while off + REC <= len(data):
        t, n, ts, x = data[off], struct.unpack_from('<I', data, off + 4)[0], *struct.unpack_from('<QQ', data, off + 8)
        if off + REC + n > len(data):
            break
        out.append((off, t, n, ts, x))
        off += REC + n
    return out


def session(uetemu, src, name, data, sets=('simulation.OutputSizeLimit=8MB',)):
    """A copy of the session @p src with the log @p data and the overrides @p sets: its directory."""
    d = os.path.join(workdir(), name)
    os.makedirs(d)
    shutil.copy(os.path.join(src, 'config.yaml'), d)
    with open(os.path.join(d, 'sets'), 'w') as f:
        f.write(''.join(s + '\n' for s in sets))
    with open(os.path.join(d, 'session.bin'), 'wb') as f:
        f.write(data)
    return d


def rerun(uetemu, d, out=None, timeout=20):
    """uetemu rerun D: (exit status or 'timeout', stderr, out dir)."""
    out = out or d + '-out'
    try:
        p = subprocess.run([uetemu, 'rerun', d, '--out', out, '--quiet'], capture_output=True, text=True,
                           timeout=timeout)
        return p.returncode, p.stderr, out
    except subprocess.TimeoutExpired:
        return 'timeout', '', out


def whole(out):
    """What in @p out is not whole: CSV files ending inside a row, pcap records or pcapng blocks cut."""
    bad = []
    for p in glob.glob(os.path.join(out, '*.csv')):
        data = open(p, 'rb').read()
        if data and not data.endswith(b'\n'):
            bad.append(os.path.basename(p))
    for p in glob.glob(os.path.join(out, '*.pcap')):
        data, at = open(p, 'rb').read(), 24
        while at + 16 <= len(data):
            at += 16 + struct.unpack_from('<I', data, at + 8)[0]
        if len(data) and at != len(data):
            bad.append(os.path.basename(p))
    for p in glob.glob(os.path.join(out, '*.pcapng')):
        data, at = open(p, 'rb').read(), 0
        while at + 12 <= len(data):
            n = struct.unpack_from('<I', data, at + 4)[0]
            if n < 12:
                break
            at += n
        if at != len(data):
            bad.append(os.path.basename(p))
    return bad


def out_bytes(out):
    """Bytes of every output file but summary.json (and the lock)."""
    n = 0
    for root, _, files in os.walk(out):
        n += sum(os.path.getsize(os.path.join(root, f)) for f in files if f not in ('summary.json', '.uetemu.lock'))
    return n


def summary(out):
    try:
        return json.load(open(os.path.join(out, 'summary.json')))
    except (OSError, ValueError):
        return None


def main():
    uetemu, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    src = os.path.join(root, 'tests', 'scenario', 'rerun')
    log = open(os.path.join(src, 'session.bin'), 'rb').read()
    recs = records(log)
    passes = [r for r in recs if r[1] == PASS]
    txs = [r for r in recs if r[1] == TX]

    rc, err, out = rerun(uetemu, session(uetemu, src, 'asis', log))
    check(rc == 0 and 'identical to the recorded session' in err and 'DIFFERS' not in err,
          'the log as recorded: exit %s, identical' % rc)

    def stamped(rec, t=None, x=None, length=None):
        d = bytearray(log)
        if t is not None:
            struct.pack_into('<Q', d, rec[0] + 8, t)
        if x is not None:
            struct.pack_into('<Q', d, rec[0] + 16, x)
        if length is not None:
            struct.pack_into('<I', d, rec[0] + 4, length)
        return bytes(d)

    bad = [('a pass stamped 2^64-1 ps', stamped(passes[5], t=2**64 - 1)),
           ('a pass and its wall clock stamped 2^64-1 ps', stamped(passes[5], t=2**64 - 1, x=2**64 - 1)),
           ('a frame sent stamped 2^64-1 ps', stamped(txs[3], t=2**64 - 1)),
           ('the end record stamped 2^64-1 ps', stamped(recs[-1], t=2**64 - 1)),
           ('a pass whose time goes backwards', stamped(passes[40], t=passes[39][3] - 1)),
           ('a frame shorter than an Ethernet header', stamped(txs[0], length=0))]
    for i, (what, data) in enumerate(bad):
        rc, err, out = rerun(uetemu, session(uetemu, src, 'bad%d' % i, data))
        check(rc == 1 and 'corrupt session log' in err, '%s: exit %s, %s' % (what, rc, err.strip()[-150:]))

    # the end record and its wall clock both 2^62 ps (in the time range, a wall clock to match): a valid-looking log
    # whose models would run to it; they stop once they sent more frames than the log holds: it differs
    rc, err, out = rerun(uetemu, session(uetemu, src, 'endfar', stamped(recs[-1], t=2**62, x=2**62)))
    check(rc == 6 and 'stops there' in err and 'DIFFERS' in err and out_bytes(out) <= 8_000_000,
          'the end record and its wall clock stamped 2^62 ps: exit %s by itself (differs), %d B written'
          % (rc, out_bytes(out)))
    rc, err, out = rerun(uetemu, session(uetemu, src, 'endmax', stamped(recs[-1], t=2**64 - 1, x=2**64 - 1)))
    check(rc == 1 and 'past the emulated range' in err, 'the end record and its wall clock stamped 2^64-1 ps: '
          'exit %s, %s' % (rc, err.strip()[-100:]))

    said = []
    for seed in range(1, 13):
        rnd, d = random.Random(seed), bytearray(log)
        for _ in range(8):
            k = rnd.randrange(len(d))
            d[k] ^= 1 << rnd.randrange(8)
        rc, err, out = rerun(uetemu, session(uetemu, src, 'flip%d' % seed, bytes(d)))
        n = out_bytes(out) if os.path.isdir(out) else 0
        said.append('%s:%s' % (rc, 'corrupt' if 'corrupt' in err else 'DIFFERS' if 'DIFFERS' in err else
                               'config' if 'not the session' in err else 'other'))
        check(rc in (1, 6, 12) and n <= 8_000_000 and not whole(out) if os.path.isdir(out) else rc in (1, 6, 12),
              '8 bit flips, seed %d: exit %s (%s), %d B written, files whole' % (seed, rc, said[-1], n))

    rc, err, out = rerun(uetemu, session(uetemu, src, 'header', log[:HDR]))
    check(rc == 12 and 'holds no pass' in err, 'cut to its header: exit %s, %s' % (rc, err.strip()[-100:]))
    one_pass = log[:HDR] + struct.pack('<BBHIQQ', PASS, 0, 0, 0, 0, 0)
    rc, err, out = rerun(uetemu, session(uetemu, src, 'noframe', one_pass))
    check(rc == 12 and 'before its first port frame' in err,
          'cut before its first port frame: exit %s, %s' % (rc, err.strip()[-100:]))

    assert recs[-1][1] == END
    forged = log[:recs[-1][0]] + struct.pack('<BBHIQQ', PASS, 0, 0, 0, 2**62, 2**62)
    rc, err, out = rerun(uetemu, session(uetemu, src, 'forged', forged))
    check(rc in (0, 6) and 'stops there' in err and out_bytes(out) <= 8_000_000 and not whole(out),
          'no end record, a last pass at 2^62 ps: exit %s by itself, %d B written (%s)'
          % (rc, out_bytes(out), err.strip().splitlines()[0][-90:] if err.strip() else ''))

    # the budget: the re-run, and a capture-heavy virtual-time run
    rc, err, out = rerun(uetemu, session(uetemu, src, 'budget', log, sets=('simulation.OutputSizeLimit=200KB',)))
    s = summary(out)
    cut = s.get('output_cut') if s else None
    check(rc == 0 and cut is not None and cut['limit_bytes'] == 200000 and out_bytes(out) <= 200000
          and not whole(out), 're-run, OutputSizeLimit 200 KB: exit %s, output_cut %s, %d B in all, files whole'
          % (rc, cut, out_bytes(out)))
    pair = os.path.join(root, 'configs', 'pair.yaml')
    out = os.path.join(workdir(), 'pair-cut')
    p = subprocess.run([uetemu, 'run', pair, '-q', '-o', out, '--set', 'simulation.OutputSizeLimit=300KB'],
                       capture_output=True, text=True, timeout=60)
    s = summary(out)
    cut = s.get('output_cut') if s else None
    check(p.returncode == 0 and cut is not None and cut['output'].endswith('pair.pcap') and 0 < cut['at_ps'] <
          s['sim_time_ps'] and cut['bytes'] <= 300000 and out_bytes(out) <= 300000 and not whole(out)
          and 'OutputSizeLimit' in p.stderr,
          'pair.yaml, OutputSizeLimit 300 KB: exit %d, output_cut %s, %d B in all, files whole'
          % (p.returncode, cut, out_bytes(out)))
    out = os.path.join(workdir(), 'replay-warn')
    p = subprocess.run([uetemu, 'run', os.path.join(root, 'configs', 'replay-pair.yaml'), '-q', '-o', out, '--set',
                        'replay.0.loop=20', '--set', 'simulation.SimulationDuration=20ms', '--set',
                        'simulation.OutputSizeLimit=2MB'], capture_output=True, text=True, timeout=60)
    check(p.returncode == 0 and 'the outputs would take about' in p.stderr and out_bytes(out) <= 2_000_000,
          'a replay that would pass a 2 MB OutputSizeLimit: warned after its first rows (%s)'
          % p.stderr.strip().splitlines()[0][:100] if p.stderr.strip() else 'no warning')
    out = os.path.join(workdir(), 'pair')
    p = subprocess.run([uetemu, 'run', pair, '-q', '-o', out], capture_output=True, text=True, timeout=60)
    s = summary(out)
    check(p.returncode == 0 and s is not None and 'output_cut' not in s, 'pair.yaml as it is: no output_cut')

    if os.geteuid() == 0:
        mnt = tempfile.mkdtemp(dir=workdir())
        if subprocess.run(['mount', '-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', mnt]).returncode == 0:
            try:
                rc, err, out = rerun(uetemu, session(uetemu, src, 'full', forged, sets=()), os.path.join(mnt, 'o'))
                check(rc == 1 and 'No space left on device' in err and not whole(out),
                      'the forged log into a 1 MB tmpfs: exit %s, %s; files whole' % (rc, err.strip()[-120:]))
            finally:
                subprocess.run(['umount', mnt])
    return finish('test_rerun_bad')


if __name__ == '__main__':
    sys.exit(main())
