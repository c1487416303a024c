#!/usr/bin/env python3
"""NSCC and multipath spraying, the scenario set (issue 5): figures only, no assertion.

  meson test -C build --benchmark --suite bench cc-scenarios --verbose
  python3 tests/bench/bench_cc.py build/uetemu .

incast (configs/incast.yaml, UET policy + trimming, PFC off) with NSCC on and off: completion times, their spread,
trims, the receiver's switch queue peak; then the spread over 16 RandomSeed values (the switches' ECN draws).
leaf-spine (configs/leaf-spine.yaml) with None, Default and REPS: per-host goodput and the leaf uplinks' data-byte
spread. gray failure (configs/gray-failure.yaml) with REPS and Default: frames lost on the failed link, timeouts,
the last completion. The tests (tests/scenario/test_nscc_reps.py, test_fabrics.py) assert the goals; this prints
the same figures side by side in one table per scenario.
"""
import csv
import os
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from checks import finish  # noqa: E402
from runner import run  # noqa: E402

TRIM = ['switch.SharedBufferManager.UETPolicyEnabled=true', 'switch.PacketTrimmer.TrimmingEnabled=true',
        'switch.SharedBufferManager.EnablePFC=[0, 0, 0, 0, 0, 0, 0, 0]',
        'nic.TransportProcessingLayers.ScalaUETPdsManager.TrimmingEnabled=true']
NSCC = 'nic.TransportProcessingLayers.ScalaUETCongestionControl.NSCCEnable='
SPRAY = 'nic.TransportProcessingLayers.ScalaUETPdsManager.PacketSprayingType='
MODES = ('None', 'Default Packet Spraying', 'Recycled Entropy Packet Spraying')
LINE_GOODPUT = 400 * 4096 / 4202  # Gb/s of payload at 400 Gb/s


def queue_peak(out, name):
    with open(os.path.join(out, name + '-scala-switch-agg-buff-stats-0.csv'), newline='') as f:
        return max(int(r['ivl_max_bytes']) for r in csv.DictReader(f)
                   if r['buff_id'] == 'egressQueue' and r['uldl'] == 'dl' and r['pool_num'] == '0')


def uplink_spread(s):
    """Worst leaf's (max - min) / max of leaf -> spine data bytes."""
    worst = 0.0
    leaves = sorted({l['a'] for l in s['links'] if l['a'].startswith('leaf') and l['b'].startswith('spine')})
    for leaf in leaves:
        b = [l['ab']['bytes'] for l in s['links'] if l['a'] == leaf and l['b'].startswith('spine')]
        worst = max(worst, (max(b) - min(b)) / max(b) if max(b) else 0.0)
    return worst


def main():
    uetemu, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])

    print('incast, 8 x 2 MiB -> host0 (UET policy, trimming, PFC off); ideal %.1f us'
          % (8 * 2 * 1048576 * 8 / (LINE_GOODPUT * 1e3) + 6.0))
    print('  %-10s %9s %9s %9s %8s %7s %12s' % ('NSCC', 'FCT min', 'p50', 'max us', 'spread', 'trims', 'queue peak B'))
    for on in ('true', 'false'):
        r = run(uetemu, 'configs/incast.yaml', sets=TRIM + [NSCC + on], root=root)
        s = r.summary
        f = s['messages']['fct_us']
        print('  %-10s %9.1f %9.1f %9.1f %7.1f%% %7d %12d' % (on, f['min'], f['p50'], f['max'],
                                                           100 * (f['max'] - f['min']) / f['max'],
                                                           s['counters']['trims'], queue_peak(r.out, 'incast')))
        shutil.rmtree(r.out)
    spreads = []
    for seed in range(1, 17):
        s = run(uetemu, 'configs/incast.yaml', sets=TRIM + ['simulation.RandomSeed=%d' % seed], root=root,
                keep=False).summary
        f = s['messages']['fct_us']
        spreads.append(100 * (f['max'] - f['min']) / f['max'])
    spreads.sort()
    print('  NSCC on, RandomSeed 1-16: spread min %.1f / median %.1f / max %.1f %%, %d of 16 within 10 %%'
          % (spreads[0], (spreads[7] + spreads[8]) / 2, spreads[-1], sum(x <= 10 for x in spreads)))

    print('leaf-spine, 16 hosts, permutation of 4 MiB; line rate %.1f Gb/s of payload' % LINE_GOODPUT)
    print('  %-34s %9s %9s %9s %9s %14s' % ('spraying', 'min Gb/s', 'mean', 'max', 'min %', 'uplink spread'))
    for mode in MODES:
        s = run(uetemu, 'configs/leaf-spine.yaml', sets=[SPRAY + mode], root=root, keep=False).summary
        g = [h['goodput_gbps'] for h in s['hosts']]
        print('  %-34s %9.1f %9.1f %9.1f %8.1f%% %13.1f%%' % (mode, min(g), sum(g) / len(g), max(g),
                                                             100 * min(g) / LINE_GOODPUT, 100 * uplink_spread(s)))

    print('gray failure: leaf0-spine1 drops everything from 20 us on and stays up')
    print('  %-34s %9s %9s %12s %9s' % ('spraying', 'complete', 'lost', 'timeouts', 'FCT max us'))
    for mode in MODES[1:]:
        s = run(uetemu, 'configs/gray-failure.yaml', sets=[SPRAY + mode], root=root, keep=False).summary
        link = [l for l in s['links'] if l['name'] == 'leaf0-spine1'][0]
        print('  %-34s %9d %9d %12d %9.1f' % (mode, s['messages']['completed'], link['ab']['drops'],
                                              s['counters']['timeouts'], s['messages']['fct_us']['max']))
    return finish('bench_cc')  # no checks: it removes the runs' scratch folder


if __name__ == '__main__':
    sys.exit(main())
