#!/usr/bin/env python3
"""Write a k-ary fat-tree permutation config like configs/fat-tree-128.yaml, for any even k.

  python3 tests/bench/gen_fat_tree.py K [BYTES] > fat-tree-N.yaml

k^3/4 hosts at 100 Gb/s, 500 ns per switch tier, 100 ns at the NICs; every host sends BYTES (default 2MiB) to
one other host at time 0, the receivers a random derangement drawn from random.Random(18760) (shuffle until no
host sends to itself). configs/fat-tree-1024.yaml is `gen_fat_tree.py 16`; the 8,192-host bench config (k = 32)
is generated on the fly by tests/bench/bench.sh.
"""
import random
import sys


def derangement(n, seed=18760):
    rng = random.Random(seed)
    p = list(range(n))
    while True:
        rng.shuffle(p)
        if all(i != x for i, x in enumerate(p)):
            return p


def main():
    k = int(sys.argv[1])
    size = sys.argv[2] if len(sys.argv) > 2 else '2MiB'
    if k < 2 or k % 2:
        sys.exit('k must be even and >= 2')
    n = k ** 3 // 4
    out = sys.stdout
    out.write('# The k = %d three-tier fat tree of %d hosts at 100 Gb/s (tests/bench/gen_fat_tree.py %d): %d pods,\n'
              '# %d tors, %d aggs, %d cores, %d links; every host sends %s to another (a random derangement, '
              'seed 18760).\n' % (k, n, k, k, k * k // 2, k * k // 2, k * k // 4, 3 * n, size))
    out.write('simulation:\n  SimulationName: fat-tree-%d\ntopology:\n  type: fat-tree\n  k: %d\n'
              '  DataRate: 100Gbps\n  Delay: {tor: 500ns, agg: 500ns, core: 500ns}\n' % (n, k))
    out.write('nic:\n  NetworkInterface:\n    UplinkNetworkInterface: {DataRate: 100Gbps}\n'
              '    TransmissionMedium: {Delay: 100ns}\n  TransportProcessingLayers:\n'
              '    ScalaUETCongestionControl: {ReferenceNetworkLinkSpeed: 100Gbps}\n')
    out.write('applications:\n  - type: messages\n    list:\n')
    for src, dst in enumerate(derangement(n)):
        out.write('      - {src: host%d, dst: host%d, bytes: %s, start: 0us}\n' % (src, dst, size))


if __name__ == '__main__':
    main()
