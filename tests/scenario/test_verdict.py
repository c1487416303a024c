#!/usr/bin/env python3
"""The run verdict in virtual time (docs/summary.md, verdict): work done, or left open at the stop time.

- configs/pair.yaml as it is: verdict complete, timing n/a, exit 0;
- its SimulationDuration cut to 15 us (the first of the ten 1 MiB messages, one after the other, needs 22): exit 10, stderr names the open
  messages (the first five, then "and 5 more"), summary.json verdict.incomplete.messages open 10 of 10; with
  --allow-incomplete exit 0 and the same verdict; the table prints n/a for the FCT percentiles of no message;
- configs/pingpong.yaml stopped after 50 us: the ping-pong short of its 1,000 round trips, named;
- configs/chakra-dp8.yaml stopped at 100 us: ranks not ended, named;
- configs/rack.yaml (no application): a warning on stderr, work complete;
- validate counts a generated fabric's links (configs/leaf-spine.yaml: 32).
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from checks import check, finish, workdir  # noqa: E402


def run(uetemu, root, cfg, *args):
    out = tempfile.mkdtemp(prefix='verdict-', dir=workdir())
    p = subprocess.run([uetemu, 'run', os.path.join(root, cfg), '--out', out, '--quiet'] + list(args),
                       capture_output=True, text=True, timeout=120)
    path = os.path.join(out, 'summary.json')
    s = json.load(open(path)) if os.path.exists(path) else None
    return p, s


def main():
    uetemu, root = sys.argv[1], sys.argv[2]

    p, s = run(uetemu, root, 'configs/pair.yaml')
    v = s['verdict']
    check(p.returncode == 0 and v['work'] == 'complete' and v['incomplete'] == {} and v['timing'] == 'n/a',
          'pair: exit %d, verdict %s' % (p.returncode, v))
    check('verdict: work complete; timing n/a (virtual time)' in p.stdout, 'pair: the table says it')

    cut = '--set=simulation.SimulationDuration=15us'
    p, s = run(uetemu, root, 'configs/pair.yaml', cut)
    m = s['verdict']['incomplete'].get('messages', {})
    check(p.returncode == 10, 'pair cut to 15 us: exit 10 (%d)' % p.returncode)
    check(s['stop'] == 'duration' and s['verdict']['work'] == 'incomplete' and m.get('open') == 10 and
          m.get('of') == 10 and len(m.get('first', [])) == 5, 'verdict: 10 of 10 messages open, 5 named (%s)' % m)
    check(m.get('first', [''])[0] == '#0 host0->host1 1048576 B', 'the first named by id, ends, size (%s)'
          % m.get('first'))
    check('10 of 10 messages not completed: #0 host0->host1 1048576 B; #1 host0->host1 1048576 B' in p.stderr
          and '; and 5 more' in p.stderr and 'exit 10' in p.stderr, 'stderr names them: %s' % p.stderr.strip())
    check('FCT p50 n/a, p99 n/a, max n/a' in p.stdout, 'the table: n/a for percentiles of no message')
    check(s['messages']['fct_us']['p50'] == 0.0, 'summary.json keeps fct_us 0.000 (unchanged key and value)')
    p, s2 = run(uetemu, root, 'configs/pair.yaml', cut, '--allow-incomplete')
    check(p.returncode == 0 and s2['verdict'] == s['verdict'],
          '--allow-incomplete: exit 0 (%d), the same verdict written' % p.returncode)

    p, s = run(uetemu, root, 'configs/pingpong.yaml', '--set=simulation.SimulationDuration=50us')
    pp = s['verdict']['incomplete'].get('pingpongs', {})
    check(p.returncode == 10 and pp.get('open') == 1 and pp.get('first', [''])[0].startswith('host0->host1 ')
          and pp['first'][0].endswith('/1000 round trips'), 'pingpong cut: exit %d, %s' % (p.returncode, pp))

    p, s = run(uetemu, root, 'configs/chakra-dp8.yaml', '--set=simulation.SimulationDuration=100us')
    ck = s['verdict']['incomplete'].get('chakra_ranks', {})
    ended = s['chakra']['ranks_ended']
    check(p.returncode == 10 and ck.get('open') == 8 - ended and ck.get('of') == 8 and ended < 8 and
          ck['first'][0].startswith('rank '), 'Chakra cut: exit %d, %d ranks ended, %s' % (p.returncode, ended, ck))

    p, s = run(uetemu, root, 'configs/rack.yaml')
    check(p.returncode == 0 and 'has no applications and no replays' in p.stderr and
          s['verdict']['work'] == 'complete', 'rack (no application): exit %d, warning: %s' % (
              p.returncode, p.stderr.strip()))

    p = subprocess.run([uetemu, 'validate', os.path.join(root, 'configs/leaf-spine.yaml')], capture_output=True,
                       text=True, timeout=60)
    check('(16 hosts, 32 links,' in p.stdout, 'validate counts a generated fabric\'s links: %s' % p.stdout.strip())
    return finish('verdict')


if __name__ == '__main__':
    sys.exit(main())
