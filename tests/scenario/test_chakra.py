#!/usr/bin/env python3
"""The Chakra workload end to end (docs/chakra.md) on configs/chakra-dp8.yaml: 8 ranks on a leaf-spine of 2 racks
of 4 hosts with UET NICs.

Checks: every rank completes (summary.json and the printed per-rank table: 3,500,000 B and 28 transfers each way
per rank); chakra-perf has the records page's columns and one row per transfer (2 steps x (112 ring + 14 barrier) =
252), every collective valid in chakra-comm-collective-stats, its percentiles row reporting actual vs ideal time
(each ratio the run time over the records page's ideal, 35 us); the execution page's worked example visible in the
records: one AllReduce of 1,000 B over 8 ranks gives 112 transfers of 125 B (ring, 14 per rank), 14 of 1,000 B
(tree, one each way per edge), 48 totalling 14,000 B (halving-doubling, 16 each of 500, 250 and 125 B, 6 per rank);
a mapping file places the ranks; the
profiling file lists running sends, receives and computations; bad
tracesets (wrong rank count, a dependency cycle under StrictDependencies, a truncated file, not a trace) and bad
attributes stop uetemu with a clear error before the simulation (no summary.json), never a crash or a hang.
"""
import collections
import csv
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from checks import check, finish, workdir  # noqa: E402
from recfmt import columns  # noqa: E402
from runner import run  # noqa: E402

uetemu, root = sys.argv[1], sys.argv[2]
CFG = 'configs/chakra-dp8.yaml'
TS = os.path.abspath(os.path.join(root, 'tests', 'chakra'))
PERF = ['time_utc', 'metric_name', 'sim_time_sec', 'perf_metric_usec', 'metric_path', 'metric_aggregation_id',
        'start_time_sec', 'is_added_synchronization_flow', 'comm_tag', 'group_size', 'flow_comm_size',
        'sending_app_name', 'receiving_app_name']


def rows(out, record):
    with open(os.path.join(out, 'chakra-dp8-%s-0.csv' % record), newline='') as f:
        return list(csv.DictReader(f))


# 1. The config as it is: every rank completes.
r = run(uetemu, CFG, sets=(), root=root)
ck = r.summary['chakra']
check(ck['ranks'] == 8 and ck['ranks_ended'] == 8, 'every rank ended: %s' % ck)
check(all(t is not None and t > 0 for t in ck['completion_us']), 'completion times %s' % ck['completion_us'])
check('completion_us' in r.stdout and r.stdout.count(' host') >= 8, 'the summary prints per-rank completion')
# Each rank's row of the printed table: its completion as in summary.json; two ring AllReduces of 1,000,000 B over
# 8 ranks send and receive 2 x 14 transfers of 125,000 B per rank (the execution page's ring).
table = [ln.split() for ln in r.stdout.splitlines() if len(ln.split()) == 8 and ln.split()[0].isdigit()]
check(table == [[str(i), 'host%d' % i, '%.3f' % ck['completion_us'][i], '3500000', '3500000', '28', '28',
                                  '6'] for i in range(8)], 'the printed per-rank table: %s' % table)
with open(os.path.join(r.out, 'chakra-dp8-chakra-perf-0.csv'), newline='') as f:
    check(next(csv.reader(f)) == columns(uetemu, 'chakra-perf') == PERF,
          'chakra-perf columns: its column table (uetemu columns), the records page\'s')
for rec in ('chakra-capable-hosts', 'chakra-mapping', 'chakra-apps', 'chakra-completion-stats', 'chakra-cdf'):
    with open(os.path.join(r.out, 'chakra-dp8-%s-0.csv' % rec), newline='') as f:
        got = list(csv.reader(f))
    want = columns(uetemu, rec)
    if rec == 'chakra-mapping':  # no scale-up group in this run: the table less its two ScaleUp columns
        want = want[:-2]
    check(got and got[0] == want and all(len(x) == len(want) for x in got[1:]),
          '%s: the header is its column table, every row its %d columns' % (rec, len(want)))
perf = rows(r.out, 'chakra-perf')
check(len(perf) == 252, 'chakra-perf: %d rows (2 x (112 + 14))' % len(perf))
check(sum(p['is_added_synchronization_flow'] == 'true' for p in perf) == 28, 'barrier rows flagged')
check(all(float(p['perf_metric_usec']) > 0 for p in perf if p['flow_comm_size'] != '0'), 'FCTs above 0')
colls = rows(r.out, 'chakra-comm-collective-stats')
check(len(colls) == 2 and all(c['is_valid'] == '1' for c in colls), 'collective stats %s' % colls)
check(all(c['metric_aggregation_id'] in ('0', '1') for c in perf), 'aggregation ids name the collectives')
pct = rows(r.out, 'chakra-comm-collective-percentiles-stats')
check(len(pct) == 1 and pct[0]['expansion_algo'] == 'ring' and pct[0]['count'] == '2', 'percentiles %s' % pct)
check(float(pct[0]['p50_ideal_ratio']) > 1.0, 'actual vs ideal: ratio %s' % pct[0]['p50_ideal_ratio'])
# The records page's ideal time of an AllReduce ring, 2 x S x 8 x (N - 1) / (N x B) = 2 x 1,000,000 x 8 x 7 /
# (8 x 400 Gbps) = 35 us; each ratio is its run-time statistic over it. The run times are the collectives' end minus
# start (nearest rank over two: p50 the shorter, p99 and up the longer).
runs = sorted(float(c['simulation_end_time_us']) - float(c['simulation_start_time_us']) for c in colls)
want = {'mean': sum(runs) / 2, 'p50': runs[0], 'p99': runs[1], 'p99_9': runs[1], 'p100': runs[1]}
bad = [(st, pct[0][st + '_run_time_us'], pct[0][st + '_ideal_ratio']) for st, t in want.items()
       if abs(float(pct[0][st + '_run_time_us']) - t) > 2e-6
       or abs(float(pct[0][st + '_ideal_ratio']) - float(pct[0][st + '_run_time_us']) / 35.0) > 1.01e-6]
check(not bad, 'run times %s us from the collective stats, ratios over the 35 us ideal: %s' % (runs, bad))
comp = rows(r.out, 'chakra-completion-stats')
check(len(comp) == 8 and all(c['num_chakra_sends_fully_acked'] == '28' and c['chakra_full_payload_bytes_sent'] ==
                             '3500000' and c['chakra_full_payload_bytes_received'] == '3500000' for c in comp),
      'completion stats')
check(os.path.exists(os.path.join(r.out, 'post_annotated', 'trace.0.json')), 'annotated trace of rank 0')

# 2. The worked example of the execution page, in the records: one AllReduce of 1,000 B over 8 ranks. Exact counts
# per size, and what the page gives per rank (ring: 14 of 125 B; halving-doubling: 6 totalling 1,750 B) or per tree
# edge (one transfer up and one down on each of the 7).
for algo, sizes, per_rank in (('ring', {125: 112}, (14, 1750)), ('tree', {1000: 14}, None),
                              ('halving-doubling', {125: 16, 250: 16, 500: 16}, (6, 1750))):
    r = run(uetemu, CFG, root=root, sets=('applications.0.Traceset=' + os.path.join(TS, 'ar1000x8'),
                                          'applications.0.ChakraConfiguration.AllReduceAlgorithm=' + algo))
    data = [p for p in rows(r.out, 'chakra-perf') if p['is_added_synchronization_flow'] == 'false']
    got = collections.Counter(int(p['flow_comm_size']) for p in data)
    check(got == sizes and sum(k * n for k, n in got.items()) == 14000,
          '%s: transfers by size %s, %d B in all' % (algo, dict(got), sum(k * n for k, n in got.items())))
    if per_rank:
        by_rank = {}
        for p in data:
            n, b = by_rank.get(p['sending_app_name'], (0, 0))
            by_rank[p['sending_app_name']] = (n + 1, b + int(p['flow_comm_size']))
        check(by_rank == {'ChakraApp-%d' % i: per_rank for i in range(8)},
              '%s: every rank sends %d transfers, %d B: %s' % ((algo,) + per_rank + (by_rank,)))
    else:
        pairs = collections.Counter((p['sending_app_name'], p['receiving_app_name']) for p in data)
        check(len(pairs) == 14 and set(pairs.values()) == {1} and all((b, a) in pairs for a, b in pairs),
              '%s: one transfer each way on 7 edges: %s' % (algo, sorted(pairs)))
    check(r.summary['chakra']['ranks_ended'] == 8, '%s: every rank ended' % algo)

# 3. Placement by a mapping file: rank r on host 7 - r.
r = run(uetemu, CFG, root=root, sets=('applications.0.MappingFile=' + os.path.join(TS, 'map-dp8-reversed.csv'),))
m = rows(r.out, 'chakra-mapping')
check([x['Hostname'] for x in m] == ['host%d' % (7 - i) for i in range(8)], 'mapping record %s' % m[:2])

# 4. Profiling: a block of running nodes every ProfilingInterval.
r = run(uetemu, CFG, root=root, sets=('applications.0.ChakraConfiguration.ProfilingEnabled=true',
                                      'applications.0.ChakraConfiguration.ProfilingInterval=0.00005'))
with open(os.path.join(r.out, 'chakra-dp8-chakra-profiling-3-0.txt')) as f:
    prof = f.read()
check(prof.startswith('CHAKRA PROFILING\n') and prof.count('sim_time_sec: ') >= 4 and '    S(' in prof and
      '    R(' in prof and '    C(' in prof, 'profiling file of rank 3: %d blocks' % prof.count('sim_time_sec'))

# 5. Bad tracesets and attributes: a clear error before the simulation, no crash, no hang.
for sets, want in (
        (('applications.0.Traceset=' + os.path.join(TS, 'pipeline4'),), 'has 4 ranks; NumOfChakraFiles'),
        (('applications.0.Traceset=' + os.path.join(TS, 'bad-cycle'),
          'applications.0.ChakraConfiguration.StrictDependencies=true'), 'is on a dependency cycle'),
        (('applications.0.Traceset=' + os.path.join(TS, 'bad-truncate'),), 'trace.0.et: truncated: node message'),
        (('applications.0.Traceset=' + os.path.join(TS, 'bad-wrong-kind'),), 'trace.0.et: not a Chakra trace'),
        (('applications.0.ChakraConfiguration.AllGatherAlgorithm=tree',), "AllGatherAlgorithm 'tree' is not "
         "allowed; use ring"),
        (('applications.0.ChakraConfiguration.NumOfChakraFiles=4',), 'NumOfChakraFiles is 4 but the topology has '
         '8 servers'),
        (('applications.0.ChakraConfiguration.ProfilingInterval=0',), 'ProfilingInterval must be greater than 0')):
    out = os.path.join(workdir(), 'bad')
    cmd = [uetemu, 'run', os.path.join(root, CFG), '--out', out, '--quiet']
    for s in sets:
        cmd += ['--set', s]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
    check(p.returncode not in (0,) and p.returncode > 0 and want in p.stderr,
          'refused (%d): %s' % (p.returncode, p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ''))
    check(not os.path.exists(os.path.join(out, 'summary.json')), 'no simulation ran')

sys.exit(finish('chakra'))
