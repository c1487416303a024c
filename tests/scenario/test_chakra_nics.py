#!/usr/bin/env python3
"""The Chakra workload on both NIC models through the CLI (docs/chakra.md): configs/chakra-dp8.yaml (UET NICs) and
configs/chakra-dp8-roce.yaml (the same traceset and leaf-spine on Scala RoCE NICs).

Checks, on each: every rank completes (summary.json and the printed per-rank table); every transfer has its
chakra-perf row and every collective its valid chakra-comm-collective-stats row; the percentiles row reports actual
vs ideal time (ratio above 1, the run time over the records page's 35 us); on RoCE NICs every receive is matched
exactly (recv_unmatched 0) and the NICs' roce-transport-stats count one work request posted and completed per
transfer. A send finishes at its last byte sent, before its acknowledgment: on pipeline4 with rank 1 in the other
rack, rank 0's next compute starts (its s in the annotated trace) before the send's e (the acknowledgment), on both
NICs. UseMaxAsCommCollectiveStartTime false: a warning, the column 0, and each collective's start the earliest
participant's (not after the default's latest).
"""
import csv
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from checks import check, finish, workdir  # noqa: E402
from runner import run  # noqa: E402

uetemu, root = sys.argv[1], sys.argv[2]
TS = os.path.abspath(os.path.join(root, 'tests', 'chakra'))
NICS = (('uet', 'configs/chakra-dp8.yaml', 'chakra-dp8'), ('roce', 'configs/chakra-dp8-roce.yaml', 'chakra-dp8-roce'))


def rows(out, name, record):
    with open(os.path.join(out, '%s-%s-0.csv' % (name, record)), newline='') as f:
        return list(csv.DictReader(f))


def annotated(out, rank):
    import json
    with open(os.path.join(out, 'post_annotated', 'trace.%d.json' % rank)) as f:
        return {n['id']: n for n in json.load(f)['nodes']}


# 1. The DP8 traceset on each NIC model.
starts = {}
for nic, cfg, name in NICS:
    r = run(uetemu, cfg, root=root)
    ck = r.summary['chakra']
    check(ck['ranks'] == 8 and ck['ranks_ended'] == 8, '%s: every rank ended: %s' % (nic, ck))
    check(all(t is not None and 200 < t < 300 for t in ck['completion_us']),
          '%s: completion times %s us' % (nic, ck['completion_us']))
    check(ck['post_errors'] == 0 and ck['recv_unmatched'] == 0, '%s: no post error, every receive matched' % nic)
    table = [ln.split() for ln in r.stdout.splitlines() if ln.split()[:1] and ln.split()[0].isdigit()
             and len(ln.split()) == 8]
    check(len(table) == 8 and all(float(t[2]) > 0 for t in table),
          '%s: the summary prints each rank\'s completion_us: %s' % (nic, [t[2] for t in table]))
    perf = rows(r.out, name, 'chakra-perf')
    check(len(perf) == 252, '%s: chakra-perf %d rows (2 x (112 + 14))' % (nic, len(perf)))
    colls = rows(r.out, name, 'chakra-comm-collective-stats')
    check(len(colls) == 2 and all(c['is_valid'] == '1' and c['use_max_as_collective_start_time'] == '1'
                                  for c in colls), '%s: collective stats %s' % (nic, colls))
    starts[nic] = [float(c['simulation_start_time_us']) for c in colls]
    pct = rows(r.out, name, 'chakra-comm-collective-percentiles-stats')
    check(len(pct) == 1 and pct[0]['count'] == '2' and float(pct[0]['p50_run_time_us']) > 0
          and float(pct[0]['p50_ideal_ratio']) > 1.0,
          '%s: actual %s us vs ideal: ratio %s' % (nic, pct[0]['p50_run_time_us'], pct[0]['p50_ideal_ratio']))
    # the ideal of an AllReduce ring (records page): 2 x S x 8 x (N - 1) / (N x B) = 35 us at 400 Gbps, both NICs
    bad = [st for st in ('mean', 'p50', 'p99', 'p99_9', 'p100')
           if abs(float(pct[0][st + '_ideal_ratio']) - float(pct[0][st + '_run_time_us']) / 35.0) > 1.01e-6]
    check(not bad, '%s: ratios are the run times over the 35 us ideal: %s' % (nic, bad))
    if nic == 'roce':
        rt = rows(r.out, name, 'roce-transport-stats')
        last = {}
        for x in rt:
            last[x['component_name']] = x
        wq = [(int(x['num_wqe_created']), int(x['num_wqe_completed'])) for x in last.values()]
        check(len(wq) == 8 and sum(c for c, _ in wq) == 252 and sum(d for _, d in wq) == 252,
              'roce: one RDMA WRITE per transfer, each completed: %s' % wq)

# 2. A send ends at its last byte sent, before its acknowledgment (the annotated trace's e of a send).
mapping = os.path.join(tempfile.mkdtemp(dir=workdir()), 'map.csv')
with open(mapping, 'w') as f:
    f.write('0,host0\n1,host2\n2,host1\n3,host3\n')  # rank 0 -> rank 1 crosses the spines
for nic, cfg, name in NICS:
    r = run(uetemu, cfg, root=root, sets=('topology.hosts_per_rack=2', 'applications.0.Traceset=' +
                                          os.path.join(TS, 'pipeline4'),
                                          'applications.0.ChakraConfiguration.NumOfChakraFiles=4',
                                          'applications.0.MappingFile=' + mapping))
    check(r.summary['chakra']['ranks_ended'] == 4, '%s pipeline4: every rank ended' % nic)
    n = annotated(r.out, 0)
    # rank 0: compute 0, send 1, compute 2 (after send 1), send 3, compute 4 (after send 3), send 5
    ok = all(n[s]['type'] == 5 and n[c]['type'] == 4 and float(n[c]['s']) < float(n[s]['e'])
             for s, c in ((1, 2), (3, 4)))
    check(ok, '%s: the compute after a send starts before the send\'s acknowledgment: %s' %
          (nic, [(n[i]['s'], n[i]['e']) for i in range(5)]))
    perf = rows(r.out, name, 'chakra-perf')
    check(len(perf) == 9 and all(float(p['perf_metric_usec']) > 2 for p in perf),
          '%s: chakra-perf rows at the acknowledgment (FCT %s us)' % (nic, perf[0]['perf_metric_usec']))

# 3. UseMaxAsCommCollectiveStartTime false: accepted with a warning; the earliest participant's start.
for nic, cfg, name in NICS:
    out = tempfile.mkdtemp(dir=workdir())
    p = subprocess.run([uetemu, 'run', os.path.join(root, cfg), '--out', out, '--quiet', '--set',
                        'applications.0.ChakraConfiguration.UseMaxAsCommCollectiveStartTime=false'],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    check(p.returncode == 0 and 'warning' in p.stderr and 'UseMaxAsCommCollectiveStartTime' in p.stderr,
          '%s: UseMax false runs, with a warning: %s' % (nic, p.stderr.strip().splitlines()[:1]))
    colls = rows(out, name, 'chakra-comm-collective-stats') if p.returncode == 0 else []
    got = [float(c['simulation_start_time_us']) for c in colls]
    check(len(colls) == 2 and all(c['use_max_as_collective_start_time'] == '0' and c['is_valid'] == '1'
                                  for c in colls), '%s: column use_max_as_collective_start_time 0' % nic)
    check(len(got) == 2 and all(g < m for g, m in zip(got, starts[nic])),
          '%s: collective starts %s (earliest) before %s (latest)' % (nic, got, starts[nic]))

sys.exit(finish('chakra-nics'))
