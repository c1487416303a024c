#!/usr/bin/env python3
"""uetemu's egress shaper (docs/config.md, EgressShaper; emul/port/port_shape.h) in virtual time, on configs/pair.yaml.

With nic.EgressShaper.RateLimit at 10 Gb/s on the 400 Gb/s link, host0's ten 1 MiB messages (posted 30 us apart, so
they overlap) go at the limit: the goodput over the run (payload bytes over the time from the first post to the
last completion) is within 5 % below the limit, and host0's bytes on the wire are never above the limit over the
time they took (one frame of slack, and the bucket). The same on Scala RoCE NICs (roce_nic.EgressShaper.RateLimit). 2.5 Gb/s with a
64 KiB bucket: within 5 % of 2.5 Gb/s. RateLimit off, 0 or absent: the run's outputs are the same as without the
shaper (byte for byte, the summary less its wall time). A rate that is not one, and a negative burst, stop the run
naming the key.
"""
import filecmp
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from checks import check, finish  # noqa: E402
from runner import run  # noqa: E402

PAIR = 'configs/pair.yaml'
ROCE = 'server.nic=ScalaRoceNic'


def figures(s):
    """(goodput bit/s from the first post to the last completion, host0's wire bit/s over that time, completed)."""
    m = s['messages']
    t0 = min(x['start_us'] for x in m['list'])
    t1 = max(x['start_us'] + x['fct_us'] for x in m['list'])
    payload = sum(x['bytes'] for x in m['list'])
    tx = next(h['tx_bytes'] for h in s['hosts'] if h['name'] == 'host0')
    return payload * 8 / ((t1 - t0) * 1e-6), tx * 8 / ((t1 - t0) * 1e-6), m['completed'], t1 - t0


def limited(uetemu, root, what, sets, bps, burst=0, slack=0.05):
    r = run(uetemu, PAIR, root=root, sets=sets)
    good, wire, done, dur = figures(r.summary)
    frame = (burst + 4202) * 8 / (dur * 1e-6)  # the bucket and one full data frame over the run's time
    check(done == 10 and (1 - slack) * bps <= good <= bps and wire <= bps + frame,
          '%s: 10 of %d messages done in %.1f us; goodput %.3f Gb/s, wire %.3f Gb/s, limit %.3f Gb/s'
          % (what, done, dur, good / 1e9, wire / 1e9, bps / 1e9))
    return r


def same_outputs(a, b):
    def files(d):  # the outputs (not the run's lock file, which holds its pid)
        return sorted(n for n in os.listdir(d) if n != 'summary.json' and not n.startswith('.'))
    names = files(a)
    diff = [n for n in names if not filecmp.cmp(os.path.join(a, n), os.path.join(b, n), shallow=False)]

    def summary(d):
        with open(os.path.join(d, 'summary.json')) as f:
            return [ln.replace(d, 'OUT') for ln in f if '"wall_s"' not in ln]  # captures name their file
    return names == files(b) and not diff and summary(a) == summary(b)


def main():
    uetemu, root = sys.argv[1], sys.argv[2]
    limited(uetemu, root, 'UET NICs at RateLimit 10Gbps', ['nic.EgressShaper.RateLimit=10Gbps'], 10e9)
    limited(uetemu, root, 'RoCE NICs at RateLimit 10Gbps', [ROCE, 'roce_nic.EgressShaper.RateLimit=10Gbps'], 10e9)
    limited(uetemu, root, 'UET NICs at 2.5Gbps, BurstSize 64KiB',
            ['nic.EgressShaper.RateLimit=2.5Gbps', 'nic.EgressShaper.BurstSize=64KiB'], 2.5e9, 65536)

    base = run(uetemu, PAIR, root=root)
    good, _, _, _ = figures(base.summary)
    check(good > 50e9, 'without a limit the same messages go at %.1f Gb/s (the shaper is what limits)' % (good / 1e9))
    for v in ('off', '0'):
        r = run(uetemu, PAIR, root=root, sets=['nic.EgressShaper.RateLimit=' + v])
        check(same_outputs(base.out, r.out), 'RateLimit %s: every output as without the shaper, byte for byte' % v)
    r = run(uetemu, PAIR, root=root, sets=[ROCE, 'roce_nic.EgressShaper.RateLimit=off'])
    rb = run(uetemu, PAIR, root=root, sets=[ROCE])
    check(same_outputs(rb.out, r.out), 'RoCE, RateLimit off: every output as without the shaper, byte for byte')

    for key, val, want in (('nic.EgressShaper.RateLimit', 'fast', "bad datarate 'fast'"),
                           ('roce_nic.EgressShaper.RateLimit', '-1Gbps', 'negative datarate'),
                           ('nic.EgressShaper.BurstSize', '-4KiB', 'negative size')):
        p = subprocess.run([uetemu, 'validate', os.path.join(root, PAIR), '--set', '%s=%s' % (key, val)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        check(p.returncode == 1 and key in p.stderr and want in p.stderr,
              '%s=%s refused (exit %d): %s' % (key, val, p.returncode, p.stderr.strip()[:160]))
    return finish('rate-limit')


if __name__ == '__main__':
    sys.exit(main())
