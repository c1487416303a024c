#!/usr/bin/env python3
"""Signals that always work (README, exit status; docs/summary.md, stop): SIGINT or SIGTERM at a random moment
(seeded) into a run that would go on for long ends it within 1 s with exit 3 and a summary.json that parses and says
"stop": "signal"; 20 of 20 tries over three runs:

- a re-run of a tampered session log: tests/scenario/rerun's log played 400 times over, each copy shifted in time
  (its frames renumbered, one end record at the end), so the re-run runs for seconds;
- a replay looped 4,000,000,000 times (configs/replay-pair.yaml);
- a long Chakra run: two data-parallel steps of 2 GB AllReduces over 8 ranks (scripts/chakra-gen; skipped without
  python3-protobuf and protoc-c);
- a capture read for replay: a 2 GiB sparse pcap (a header, then zeros: 134 million empty records, each read and
  refused), so the signal comes while it is read (a short summary.json: "started": false);
- a rank file's trace decode: rank 0 of a Chakra traceset with 10 million copies of one compute node (90 MB), so the
  signal comes while it is decoded (also "started": false; were it let finish, the duplicate node ids refuse it).

The two inputs are made in /dev/shm (a tmpfs) when there is one.

Every run has simulation.OutputSizeLimit 30 MB. Then two SIGINTs 20 ms apart: the second ends the process at once,
exit 130 (or 3 when the first had already ended it).
Usage: test_signals.py UETEMU REPO_ROOT
"""
import json
import os
import random
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from checks import check, finish, workdir  # noqa: E402

HDR, REC = 56, 24
PASS, TX, END = 1, 3, 4
LIMIT = 'simulation.OutputSizeLimit=30MB'


def long_session(root):
    """The recorded session's log played 400 times over: a session directory of the test's."""
    src = os.path.join(root, 'tests', 'scenario', 'rerun')
    log = open(os.path.join(src, 'session.bin'), 'rb').read()
    recs, off = [], HDR
    while off + REC <= len(log):
        n = struct.unpack_from('<I', log, off + 4)[0]
        recs.append((log[off], off, n))
        off += REC + n
    last_x = max(struct.unpack_from('<Q', log, o + 16)[0] for t, o, n in recs if t != TX)
    shift, tx, out = last_x + 10**9, 0, bytearray(log[:HDR])
    for k in range(400):
        for t, o, n in recs:
            if t == END and k < 399:
                continue
            r = bytearray(log[o:o + REC + n])
            ts, x = struct.unpack_from('<QQ', r, 8)
            if t == TX:
                x, tx = tx, tx + 1
            else:
                x += k * shift
            struct.pack_into('<QQ', r, 8, ts + k * shift, x)
            out += r
    d = os.path.join(workdir(), 'long-session')
    os.makedirs(d)
    shutil.copy(os.path.join(src, 'config.yaml'), d)
    with open(os.path.join(d, 'sets'), 'w') as f:
        f.write(LIMIT + '\n')
    with open(os.path.join(d, 'session.bin'), 'wb') as f:
        f.write(out)
    return d


def chakra_traces(root):
    """A traceset of 2 GB AllReduces (scripts/chakra-gen), or None when it cannot be made here."""
    d = os.path.join(workdir(), 'ck')
    try:
        p = subprocess.run(['/usr/bin/python3', os.path.join(root, 'scripts', 'chakra-gen'), 'dp', d, '--ranks', '8',
                            '--size', '2000000000', '--steps', '2'], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return d if p.returncode == 0 else None


def scratch():
    """A folder in a tmpfs for the large inputs (/dev/shm), else the test's own."""
    base = '/dev/shm' if os.path.isdir('/dev/shm') and os.access('/dev/shm', os.W_OK) else workdir()
    d = tempfile.mkdtemp(prefix='uetemu-signals-', dir=base)
    _scratch.append(d)
    return d


_scratch = []


def sparse_pcap(d):
    """A 2 GiB pcap: its file header, then a hole (zeros: empty records, refused one by one)."""
    path = os.path.join(d, 'sparse.pcap')
    with open(path, 'wb') as f:
        f.write(struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        f.truncate(2 << 30)
    return path


def huge_rank(root, d):
    """A traceset whose rank 0 holds 10 million copies of its one compute node, or None without chakra-gen."""
    ck = os.path.join(d, 'huge')
    try:
        p = subprocess.run(['/usr/bin/python3', os.path.join(root, 'scripts', 'chakra-gen'), 'wide', ck, '--ranks',
                            '8', '--nodes', '1', '--what', 'comp', '--compute', '1'], capture_output=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if p.returncode != 0:
        return None
    f0 = [f for f in os.listdir(ck) if f.endswith('.0.et')][0]
    b = open(os.path.join(ck, f0), 'rb').read()
    meta = b[0] + 1  # its GlobalMetadata: a one-byte length, then the message
    with open(os.path.join(ck, f0), 'wb') as f:
        f.write(b + b[meta:] * 10000000)
    return ck


def wait_handlers(p):
    """Until process @p catches SIGINT and SIGTERM (its main() installs the handlers first thing; before that, on a
    loaded machine tens of ms after exec while the dynamic loader maps DPDK, a signal takes its default action, which
    is not what is tested here): polls /proc/PID/status's SigCgt every ms, at most 10 s."""
    want = (1 << (signal.SIGINT - 1)) | (1 << (signal.SIGTERM - 1))
    for _ in range(10000):
        try:
            with open('/proc/%d/status' % p.pid) as f:
                cgt = next((int(l.split()[1], 16) for l in f if l.startswith('SigCgt:')), 0)
        except OSError:
            return
        if cgt & want == want or p.poll() is not None:
            return
        time.sleep(0.001)


def attempt(cmd, out, delay, sig):
    """Start @p cmd, send @p sig @p delay s after it catches signals: (exit status or None, seconds from the signal
    to the exit)."""
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_handlers(p)
    time.sleep(delay)
    if p.poll() is not None:
        return 'ended before the signal', 0.0
    t0 = time.monotonic()
    p.send_signal(sig)
    try:
        rc = p.wait(timeout=1.0)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        return None, time.monotonic() - t0
    return rc, time.monotonic() - t0


def main():
    uetemu, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    rnd = random.Random(20260101)
    runs = [('tampered re-run', lambda out: [uetemu, 'rerun', long_dir, '--out', out, '--quiet']),
            ('replay looped 4e9 times', lambda out: [uetemu, 'run', os.path.join(root, 'configs', 'replay-pair.yaml'),
                                                     '-q', '-o', out, '--set', 'replay.0.loop=4000000000',
                                                     '--set', LIMIT])]
    long_dir = long_session(root)
    ck = chakra_traces(root)
    if ck is not None:
        runs.append(('long Chakra run', lambda out: [uetemu, 'run', os.path.join(root, 'configs', 'chakra-dp8.yaml'),
                                                     '-q', '-o', out, '--set', 'applications.0.Traceset=' + ck,
                                                     '--set', LIMIT]))
    big = scratch()
    pcap = sparse_pcap(big)
    runs.append(('2 GiB capture read for replay', lambda out: [
        uetemu, 'run', os.path.join(root, 'configs', 'replay-pair.yaml'), '-q', '-o', out, '--set',
        'replay.0.file=' + pcap, '--set', LIMIT]))
    huge = huge_rank(root, big) if ck is not None else None
    if huge is not None:
        runs.append(('a 10-million-node rank file decoded', lambda out: [
            uetemu, 'run', os.path.join(root, 'configs', 'chakra-dp8.yaml'), '-q', '-o', out, '--set',
            'applications.0.Traceset=' + huge, '--set', LIMIT]))
    if ck is None:
        print('note: no Chakra traces (scripts/chakra-gen needs python3-protobuf and protoc-c): three runs only')
    # the re-run ends by itself once its log is played (about 0.4 s here): time it once, so that its signals come
    # while it runs on a machine of any speed
    p = subprocess.Popen(runs[0][1](os.path.join(workdir(), 'natural')), stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    wait_handlers(p)
    t0 = time.monotonic()
    p.wait(timeout=60)
    natural = time.monotonic() - t0
    print('note: the tampered re-run takes %.3f s unsignalled, from its handlers set' % natural)
    good = 0
    for i in range(20):
        what, cmd = runs[i % len(runs)]
        out = os.path.join(workdir(), 'try%d' % i)
        hi = 0.6 if i % len(runs) else max(0.06, min(0.6, 0.6 * natural))
        delay, sig = rnd.uniform(min(0.15, hi / 2), hi), (signal.SIGINT, signal.SIGTERM)[rnd.randrange(2)]
        rc, took = attempt(cmd(out), out, delay, sig)
        try:
            s = json.load(open(os.path.join(out, 'summary.json')))
        except (OSError, ValueError) as e:
            s = {'stop': 'no summary: %s' % e}
        # the two loads: the signal came while the file was read or decoded, before the run started
        ok = rc == 3 and took < 1.0 and s.get('stop') == 'signal' and (
            s.get('started') is False or what not in ('2 GiB capture read for replay',
                                                      'a 10-million-node rank file decoded'))
        good += ok
        check(ok, '%s, %s after %.3f s: exit %s %.3f s later, summary stop %s'
              % (what, signal.Signals(sig).name, delay, rc, took, s.get('stop')))
    check(good == 20, '%d of 20 tries ended within 1 s, exit 3, summary.json well formed' % good)
    for d in _scratch:
        shutil.rmtree(d, ignore_errors=True)

    # a second signal: at once
    out = os.path.join(workdir(), 'twice')
    p = subprocess.Popen(runs[1][1](out), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_handlers(p)
    time.sleep(0.3)
    t0 = time.monotonic()
    p.send_signal(signal.SIGINT)
    time.sleep(0.02)
    if p.poll() is None:
        p.send_signal(signal.SIGINT)
    try:
        rc = p.wait(timeout=1.0)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = p.wait()
    check(rc in (130, 3) and time.monotonic() - t0 < 1.0, 'two SIGINTs 20 ms apart: exit %s' % rc)
    return finish('test_signals')


if __name__ == '__main__':
    sys.exit(main())
