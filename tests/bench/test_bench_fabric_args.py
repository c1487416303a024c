#!/usr/bin/env python3
"""bench_fabric.py's htsim arguments: matched by default, HTSIM_ARGS replaces the matching flags (empty: none),
BENCH_SET becomes uetemu --set arguments. Needs no simulator.

  python3 tests/bench/test_bench_fabric_args.py
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_fabric as bf  # noqa: E402

WORK = ['-tm', 'bench.cm', '-topo', 'bench.topo', '-mtu', '4160', '-linkspeed', '100000']
FAILS = []


def check(what, got, want):
    if got != want:
        FAILS.append('%s: got %r, want %r' % (what, got, want))


def inputs(env):
    for k in ('HTSIM_ARGS', 'BENCH_SET'):
        os.environ.pop(k, None)
    os.environ.update(env)
    with tempfile.TemporaryDirectory() as tmp:
        cfg = os.path.join(tmp, 'c.yaml')
        with open(cfg, 'w') as f:
            f.write('    - {src: host0, dst: host1, bytes: 2MiB, start: 0us}\n'
                    '    - {src: host1, dst: host0, bytes: 2MiB, start: 0us}\n')
        args = bf.htsim_inputs(cfg, ('fat-tree', 4), 100, tmp)
        cm = open(os.path.join(tmp, 'bench.cm')).read()
    return args, cm


def main():
    args, cm = inputs({})
    check('default args', args, WORK + ['-sack_threshold', '1', '-load_balancing_algo', 'oblivious', '-paths', '128'])
    check('.cm', cm, 'Nodes 16\nConnections 2\n0->1 id 1 start 0 size 2097152\n1->0 id 2 start 0 size 2097152\n')
    args, _ = inputs({'HTSIM_ARGS': ''})
    check('HTSIM_ARGS empty', args, WORK)
    args, _ = inputs({'HTSIM_ARGS': '-sack_threshold 16384  -load_balancing_algo reps'})
    check('HTSIM_ARGS set', args, WORK + ['-sack_threshold', '16384', '-load_balancing_algo', 'reps'])
    inputs({})
    check('no BENCH_SET', bf.uetemu_sets(), [])
    inputs({'BENCH_SET': 'a.B=Recycled Entropy Packet Spraying; c.D=7;'})
    check('BENCH_SET', bf.uetemu_sets(), ['--set', 'a.B=Recycled Entropy Packet Spraying', '--set', 'c.D=7'])
    for f in FAILS:
        print('FAIL', f)
    print('bench_fabric args: %s' % ('FAILED' if FAILS else 'ok'))
    return 1 if FAILS else 0


if __name__ == '__main__':
    sys.exit(main())
