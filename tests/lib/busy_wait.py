#!/usr/bin/env python3
"""summary.json's parallel.threads_detail of an output folder: busy_s + wait_s per thread or MPI rank
(docs/summary.md). Usage: busy_wait.py DIR N. With N > 1: N entries, each one's wait the barrier_wait_s, busy
above 0, the two within the run's wall time. With N = 1: neither key (one thread's would be its wall time, which
would make every run's summary differ). Prints the figures and 'ok' or 'bad'."""
import json
import sys

d = json.load(open(sys.argv[1] + '/summary.json'))
n = int(sys.argv[2])
p = d['parallel']['threads_detail']
if n == 1:
    ok = len(p) == 1 and 'busy_s' not in p[0] and 'wait_s' not in p[0]
    print('keys %s' % sorted(k for k in p[0] if k.endswith('_s')) + (' ok' if ok else ' bad'))
else:
    ok = len(p) == n and all(t['wait_s'] == t['barrier_wait_s'] and t['busy_s'] > 0 and t['wait_s'] >= 0 and
                             t['busy_s'] + t['wait_s'] <= d['wall_s'] * 1.01 + 0.01 for t in p)
    print(' '.join('%.3f/%.3f' % (t['busy_s'], t['wait_s']) for t in p) + (' ok' if ok else ' bad'))
