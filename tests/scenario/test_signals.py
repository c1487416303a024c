#!/usr/bin/env python3
"""Signals that always work (README, exit status; docs/summary.md, stop): SIGINT or SIGTERM at a random moment
(seeded) into a run that would go on for long ends it within 1 s with exit 3 and a summary.json that parses and says
"stop": "signal"; 20 of 20 tries over three runs:

- a re-run of a tampered session log: tests/scenario/rerun's log played 400 times over, each copy shifted in time
  (its frames renumbered, one end record at the end), so the re-run runs for seconds;
- a replay looped 4,000,000,000 times (configs/replay-pair.yaml);
- a long Chakra run: two data-parallel steps of 2 GB AllReduces over 8 ranks (scripts/chakra-gen; skipped without
  python3-protobuf and protoc-c).

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


def attempt(cmd, out, delay, sig):
    """Start @p cmd, send @p sig after @p delay s: (exit status or None, seconds from the signal to the exit)."""
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
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
    else:
        print('note: no Chakra traces (scripts/chakra-gen needs python3-protobuf and protoc-c): two runs only')
    good = 0
    for i in range(20):
        what, cmd = runs[i % len(runs)]
        out = os.path.join(workdir(), 'try%d' % i)
        delay, sig = rnd.uniform(0.15, 0.6), (signal.SIGINT, signal.SIGTERM)[rnd.randrange(2)]
        rc, took = attempt(cmd(out), out, delay, sig)
        try:
            s = json.load(open(os.path.join(out, 'summary.json')))
        except (OSError, ValueError) as e:
            s = {'stop': 'no summary: %s' % e}
        ok = rc == 3 and took < 1.0 and s.get('stop') == 'signal'
        good += ok
        check(ok, '%s, %s after %.3f s: exit %s %.3f s later, summary stop %s'
              % (what, signal.Signals(sig).name, delay, rc, took, s.get('stop')))
    check(good == 20, '%d of 20 tries ended within 1 s, exit 3, summary.json well formed' % good)

    # a second signal: at once
    out = os.path.join(workdir(), 'twice')
    p = subprocess.Popen(runs[1][1](out), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
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
