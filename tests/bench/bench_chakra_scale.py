#!/usr/bin/env python3
"""How a Chakra run's cost grows with its width: n and 2n independent compute nodes on one rank, n and 2n concurrent
sends (rank pairs 0-1, 2-3, 4-5, 6-7 in turn, each with its receive), on the 8-host leaf-spine. Figures only.

  python3 tests/bench/bench_chakra_scale.py UETEMU [ROOT]          (BENCH_N=25000 by default)
  meson test -C build --benchmark --suite bench chakra-scale --verbose

For each case: the run's wall time as summary.json gives it (the simulation, without reading and preparing the
traceset), the whole process's wall time and peak RSS, and the ratio 2n / n of the run's wall time. With a cost per
step that does not grow with the number of nodes in flight (the NPU's jobs in a heap, the NIC's PDC tables growing
with its PDCs, its PDC ring linked both ways, its transmit scheduler skipping the PDCs a full window holds back)
both ratios are about 2 (docs/performance.md).
BASE=/path/to/an/earlier/uetemu runs it too, for a before/after row.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from chakra_cfg import chakra_8host  # noqa: E402



def one(uetemu, cfg, work):
    """The run's wall (summary.json), the process's wall and peak RSS (KB, its own rusage), ranks ended."""
    out = tempfile.mkdtemp(prefix='out-', dir=work)
    t = time.monotonic()
    p = subprocess.Popen([uetemu, 'run', cfg, '--out', out, '--quiet'], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit('bench_chakra_scale: %s exited %d' % (cfg, p.returncode))
    with open(os.path.join(out, 'summary.json')) as f:
        s = json.load(f)
    shutil.rmtree(out, ignore_errors=True)
    return s['wall_s'], wall, ru.ru_maxrss, s['chakra']['ranks_ended']


def main():
    uetemu = sys.argv[1]
    root = sys.argv[2] if len(sys.argv) > 2 else '.'
    n = int(os.environ.get('BENCH_N', '25000'))
    bins = [('uetemu', uetemu)] + ([('base', os.environ['BASE'])] if os.environ.get('BASE') else [])
    work = tempfile.mkdtemp(prefix='bench-chakra-scale-')
    try:
        for what in ('comp', 'send'):
            cfgs = []
            for k in (n, 2 * n):
                d = os.path.join(work, '%s%d' % (what, k))
                subprocess.run(['/usr/bin/python3', os.path.join(root, 'scripts', 'chakra-gen'), 'wide', d,
                                '--ranks', '8', '--nodes', str(k), '--what', what, '--size', '1000',
                                '--compute', '1'], check=True, stdout=subprocess.DEVNULL)
                cfgs.append(os.path.join(work, '%s%d.yaml' % (what, k)))
                with open(cfgs[-1], 'w') as f:
                    f.write(chakra_8host('chakra-scale', d))
            for name, b in bins:
                r = [one(b, c, work) for c in cfgs]
                for k, (run_s, wall, rss, ended) in zip((n, 2 * n), r):
                    print('%-6s %-4s n=%-7d run %7.3f s  process %7.3f s  peak RSS %7.1f MB  ranks ended %d' %
                          (name, what, k, run_s, wall, rss / 1024, ended))
                print('%-6s %-4s ratio 2n/n: run %.2f, process %.2f (2 is linear, 4 quadratic)' %
                      (name, what, r[1][0] / max(r[0][0], 1e-9), r[1][1] / max(r[0][1], 1e-9)))
                sys.stdout.flush()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
