#!/usr/bin/env python3
"""The flows and stream applications (docs/config.md, flows and stream; docs/records.md, flow-fct).

configs/flows-websearch.yaml (web-search flows at 50 % load on a 16-host leaf-spine at 100 Gb/s): the offered load
measured from the generated flows within 2 % of 50 %, flow-fct with every flow (each completed, its slowdown its FCT
over its ideal FCT), summary.json's slowdown percentiles by size bucket equal to the record's, and scripts/plot's
slowdown figure drawn and matching. The ideal FCT against one-flow runs on the empty fabric, in a rack and across
the spines, from 1 B to 10 MB: within 0.2 %. configs/stream.yaml: host1's payload over the first second of
simulated time within 0.1 % of 10 Gb/s; on/off periods halving it. Config errors named.
Usage: test_flows.py UETEMU SRCDIR"""
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile

fails = []


def check(cond, what):
    if not cond:
        fails.append(what)


def run(uetemu, cfg, out, *sets, ok=(0,)):
    args = [uetemu, 'run', cfg, '--out', out, '-q']
    for s in sets:
        args += ['--set', s]
    r = subprocess.run(args, capture_output=True, text=True, timeout=120)
    check(r.returncode in ok, '%s %s: exit %d: %s' % (cfg, sets, r.returncode, r.stderr[-800:]))
    try:
        return r, json.load(open(os.path.join(out, 'summary.json')))
    except (OSError, ValueError):
        return r, {}


def websearch(uetemu, src, tmp):
    out = os.path.join(tmp, 'ws')
    r, s = run(uetemu, os.path.join(src, 'configs', 'flows-websearch.yaml'), out)
    fl = s['flows'][0]
    check(abs(fl['offered_load'] - 0.5) <= 0.01, 'offered load %.6f, not within 2 %% of 0.5' % fl['offered_load'])
    check(fl['load'] == 0.5 and fl['senders'] == 16 and fl['pattern'] == 'uniform', 'flows %s' % fl)
    rows = list(csv.DictReader(open(os.path.join(out, 'flows-websearch-flow-fct-0.csv'))))
    check(len(rows) == fl['generated_flows'] == fl['flows'] == fl['completed'] == s['messages']['posted'],
          'flow-fct has %d rows; %d flows generated, %d completed, %d posted'
          % (len(rows), fl['generated_flows'], fl['completed'], s['messages']['posted']))
    check(sum(int(x['size_bytes']) for x in rows) == fl['generated_bytes'], 'flow-fct bytes')
    check(sorted(int(x['flow']) for x in rows) == list(range(len(rows))), 'flow ids')
    sd = []
    for x in rows:
        fct, ideal, slow = float(x['fct_us']), float(x['ideal_fct_us']), float(x['slowdown'])
        check(abs(fct / ideal - slow) < 1e-5, 'flow %s: slowdown %s, fct/ideal %.6f' % (x['flow'], slow, fct / ideal))
        sd.append((int(x['size_bytes']), round(slow * 1e6)))
    check(min(v for _, v in sd) >= 999000, 'a flow faster than its ideal: slowdown %.6f' % (min(v for _, v in sd) / 1e6))
    for b in fl['slowdown']:
        v = sorted(x for size, x in sd if size >= b['min_bytes'] and (b['max_bytes'] is None or size <= b['max_bytes']))
        if not v:
            check(b['flows'] == 0 and b['p50'] is None, 'bucket %s' % b)
            continue
        p50, p99 = v[max((50 * len(v) + 99) // 100, 1) - 1], v[max((99 * len(v) + 99) // 100, 1) - 1]
        check(b['flows'] == len(v) and round(b['p50'] * 1e6) == p50 and round(b['p99'] * 1e6) == p99,
              'bucket %s: the record gives %d flows, p50 %d, p99 %d ppm' % (b, len(v), p50, p99))
    check(sum(b['flows'] for b in fl['slowdown']) == len(rows), 'the buckets cover every flow')
    check('flows 0 (uniform' in r.stdout and 'offered' in r.stdout, 'table line: %s' % r.stdout[-600:])
    print('flows-websearch: %d flows, offered load %.3f %%, slowdown p50/p99 %s' % (
        len(rows), fl['offered_load'] * 100,
        ', '.join('%s %.2f/%.2f' % (b['bucket'], b['p50'], b['p99']) for b in fl['slowdown'] if b['p50'])))
    p = subprocess.run([os.path.join(src, 'scripts', 'plot'), out, os.path.join(tmp, 'png'), '--describe'],
                       capture_output=True, text=True, timeout=120)
    figs = {os.path.basename(json.loads(x)['png']): json.loads(x) for x in p.stdout.splitlines() if x.startswith('{')}
    sl = figs.get('fct-slowdown.png')
    check(p.returncode == 0 and sl is not None and os.path.getsize(sl['png']) > 10000,
          'scripts/plot drew no slowdown figure: %s %s' % (p.stdout[-400:], p.stderr[-400:]))
    if sl:
        ax = sl['axes'][0]
        check([ln['label'] for ln in ax['lines']] == ['p50', 'p99'] and
              any('= summary.json flows[].slowdown' in t for t in ax['texts']), 'slowdown figure %s' % ax)
    check('fct-cdf.png' in figs and 'link-util.png' in figs, 'FCT CDF or link utilisation not drawn: %s' % list(figs))


def one_flow_cfg(src, tmp):
    """flows-websearch.yaml's fabric with a single-message stream: one flow alone on the empty fabric."""
    text = open(os.path.join(src, 'configs', 'flows-websearch.yaml')).read().split('applications:')[0]
    path = os.path.join(tmp, 'one.yaml')
    with open(path, 'w') as f:
        f.write(text + 'applications:\n  - {type: stream, src: host0, dst: host1, size: 4096, pps: 1, stop: 1ms}\n')
    return path


def ideal(uetemu, src, tmp):
    cfg = one_flow_cfg(src, tmp)
    worst = 0.0
    for dst in ('host1', 'host5'):  # in host0's rack (one switch), across the spines (three)
        for size in (1, 1000, 4096, 4097, 65536, 1000000, 10000000):
            out = os.path.join(tmp, 'one')
            run(uetemu, cfg, out, 'applications.0.dst=' + dst, 'applications.0.size=%d' % size)
            rows = list(csv.DictReader(open(os.path.join(out, 'flows-websearch-flow-fct-0.csv'))))
            check(len(rows) == 1 and rows[0]['slowdown'] != '', '%s %d: %s' % (dst, size, rows))
            if len(rows) == 1 and rows[0]['slowdown']:
                d = abs(float(rows[0]['slowdown']) - 1)
                worst = max(worst, d)
                check(d <= 0.002, 'host0 -> %s, %d B: FCT %s us, ideal %s us' %
                      (dst, size, rows[0]['fct_us'], rows[0]['ideal_fct_us']))
                check(rows[0]['retransmissions'] == '0', 'retransmissions on an empty fabric: %s' % rows[0])
    print('ideal FCT against one-flow runs, 1 B to 10 MB, in a rack and across the spines: within %.4f %%'
          % (worst * 100))


def stream(uetemu, src, tmp):
    cfg = os.path.join(src, 'configs', 'stream.yaml')
    out = os.path.join(tmp, 'st')
    # the first second of simulated time: what host1 received by then
    _, s = run(uetemu, cfg, out, 'simulation.SimulationDuration=1s', ok=(0, 10))
    got = s['hosts'][1]['rx_payload_bytes'] * 8 / 1.0
    check(abs(got / 10e9 - 1) <= 0.001, '10 Gb/s stream: host1 received %.6f Gb/s over 1 s' % (got / 1e9))
    print('stream: host1 received %.6f Gb/s over 1 s of simulated time (10 Gb/s configured)' % (got / 1e9))
    _, s = run(uetemu, cfg, out)
    st = s['flows'][0]
    check(st['type'] == 'stream' and st['completed'] == st['flows'] and
          abs(st['completed_bps'] / 10e9 - 1) <= 0.001, 'stream %s' % st)
    # on/off: 100 us on, 100 us off for 10 ms: 50 on periods of 2 messages (at 0 and 52.4288 us into each)
    _, s = run(uetemu, cfg, out, 'applications.0.on=100us', 'applications.0.off=100us',
               'applications.0.stop=10ms')
    st = s['flows'][0]
    check(st['flows'] == st['completed'] == 100 and st['completed_bps'] == 100 * 65536 * 8 * 100,
          'on/off 100 us: %s' % st)


def errors(uetemu, src, tmp):
    cfg = os.path.join(src, 'configs', 'flows-websearch.yaml')
    for sets, msg in (
            (['applications.0.load=0'], 'bad load'),
            (['applications.0.cdf=cdf/none.txt'], 'No such file'),
            (['applications.0.pattern=ring'], 'unknown pattern'),
            (['applications.0.receiver=host0'], 'receiver and senders apply to pattern: incast'),
            (['applications.0.pattern=incast'], 'an incast needs its receiver'),
            (['applications.0.rate=10Gbps'], 'rate applies to a stream application'),
            (['applications.0.stop=1000s'], 'more than')):
        r = subprocess.run([uetemu, 'validate', cfg] + sum((['--set', x] for x in sets), []), capture_output=True,
                           text=True, timeout=60)
        check(r.returncode != 0 and msg in r.stderr, '%s: exit %d, %s' % (sets, r.returncode, r.stderr.strip()))
    # a few flows of a heavy tail (data mining, 5 ms: about 40 flows) offer another load: warned of, still valid
    r = subprocess.run([uetemu, 'validate', cfg, '--set', 'applications.0.cdf=cdf/datamining.txt', '--set',
                        'applications.0.stop=5ms'], capture_output=True, text=True, timeout=60)
    check(r.returncode == 0 and 'too few flows for the size distribution' in r.stderr, 'few flows: %s' % r.stderr)
    bad = os.path.join(tmp, 'bad-cdf.txt')
    with open(bad, 'w') as f:
        f.write('100 0.5\n50 1\n')
    r = subprocess.run([uetemu, 'validate', cfg, '--set', 'applications.0.cdf=' + bad], capture_output=True,
                       text=True, timeout=60)
    check(r.returncode != 0 and 'line 2: the size goes down' in r.stderr, 'bad CDF: %s' % r.stderr.strip())


def main():
    uetemu, src = sys.argv[1], sys.argv[2]
    tmp = tempfile.mkdtemp(prefix='flows-')
    websearch(uetemu, src, tmp)
    ideal(uetemu, src, tmp)
    stream(uetemu, src, tmp)
    errors(uetemu, src, tmp)
    if fails:
        for f in fails[:20]:
            print('FAIL:', f)
        sys.exit(1)
    shutil.rmtree(tmp)
    print('ok')


main()
