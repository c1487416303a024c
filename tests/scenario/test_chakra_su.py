#!/usr/bin/env python3
"""Chakra scale-up groups end to end (docs/chakra.md, Scale-up groups) on configs/chakra-dp8.yaml with
tests/chakra/map-dp8-scaleup.csv: ranks 0-3 in group 0 (800 Gbps, 100 ns per switch hop, 20 ns per cable;
subgroups {0,1} and {2,3}), ranks 4-7 in group 1 (400 Gbps, 150 ns, 10 ns; subgroups {4,5} and {6,7}).

Checks: every rank completes; chakra-perf has all 252 transfers; the ring's 125,000 B transfers within a group
have the scale-up fabric's exact FCT (31 packets, 125,744 B with headers, at the group bandwidth, plus one round
trip: 1 hop + 2 cables within a subgroup, 3 hops + 4 cables between), the ones between groups go through the NIC;
chakra-mapping has ScaleUpGroupId,ScaleUpSubgroupId; with ScaleUpStatsEnabled nd-stats has a
ChakraScaleUpNetDevice row per rank every NDStatsReportInterval whose packets and bytes match the scale-up rows of
chakra-perf (and none without it); bad mapping files stop uetemu naming the file and the line.
"""
import csv
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from checks import check, finish, workdir  # noqa: E402
from runner import run  # noqa: E402

uetemu, root = sys.argv[1], sys.argv[2]
CFG = 'configs/chakra-dp8.yaml'
MAP = os.path.abspath(os.path.join(root, 'tests', 'chakra', 'map-dp8-scaleup.csv'))
GROUP = {r: r // 4 for r in range(8)}
SUB = {r: (r % 4) // 2 for r in range(8)}
BW = {0: 100, 1: 50}                      # bytes per ns
HOP = {0: (100, 20), 1: (150, 10)}        # switch, cable latency in ns


def rows(out, record):
    with open(os.path.join(out, 'chakra-dp8-%s-0.csv' % record), newline='') as f:
        return list(csv.DictReader(f))


def rank(app):
    return int(app.split('-')[1])


def fct_ns(src, dst, size):
    """The scale-up FCT of a transfer sent alone: every packet at the full bandwidth, then one round trip."""
    g = GROUP[src]
    pkts = max(1, -(-size // 4096))
    sw, cab = HOP[g]
    one_way = sw + 2 * cab if SUB[src] == SUB[dst] else 3 * sw + 4 * cab
    return (size + 24 * pkts) / BW[g] + 2 * one_way


# 1. dp8 in two scale-up groups, with the scale-up devices in nd-stats.
r = run(uetemu, CFG, root=root, sets=('applications.0.MappingFile=' + MAP,
                                      'applications.0.ChakraConfiguration.ScaleUpStatsEnabled=true',
                                      'simulation.NDStatsReportInterval=0.00005'))
ck = r.summary['chakra']
check(ck['ranks_ended'] == 8 and ck['post_errors'] == 0 and ck['scaleup_errors'] == 0, 'every rank ended: %s' % ck)
perf = rows(r.out, 'chakra-perf')
check(len(perf) == 252, 'chakra-perf: %d rows (2 x (112 + 14))' % len(perf))
su = [p for p in perf if GROUP[rank(p['sending_app_name'])] == GROUP[rank(p['receiving_app_name'])]]
nic = [p for p in perf if p not in su]
check(len(su) > 0 and len(nic) > 0, '%d scale-up transfers, %d through the NIC' % (len(su), len(nic)))
ring = [p for p in su if p['flow_comm_size'] == '125000']
check(len(ring) == 2 * 14 * 6, 'ring transfers within a group: %d (6 of the 8 ring edges, 14 steps, 2 steps)'
      % len(ring))
# A rank's first ring transfer of a collective is sent alone (later ones may queue behind the previous step's):
# its FCT is the model's, exactly.
first = {}
for p in ring:
    k = (p['sending_app_name'], p['metric_aggregation_id'])
    if k not in first or float(p['start_time_sec']) < float(first[k]['start_time_sec']):
        first[k] = p
bad = [(p['sending_app_name'], p['receiving_app_name'], p['perf_metric_usec']) for p in first.values()
       if abs(float(p['perf_metric_usec']) * 1000 - fct_ns(rank(p['sending_app_name']),
                                                           rank(p['receiving_app_name']), 125000)) > 1e-3]
check(len(first) == 12 and not bad, 'first scale-up FCTs exact (1537.44 ns within a subgroup, 2017.44 between, '
      'in group 0; 2854.88 and 3494.88 in group 1): %s' % bad[:3])
kinds = {(rank(p['sending_app_name']), rank(p['receiving_app_name'])): float(p['perf_metric_usec'])
         for p in first.values()}
check(kinds[(5, 6)] > kinds[(4, 5)] and kinds[(1, 2)] > kinds[(0, 1)],
      'between subgroups takes longer than within: %s vs %s' % (kinds[(5, 6)], kinds[(4, 5)]))
check(all(float(p['perf_metric_usec']) * 1000 >= fct_ns(rank(p['sending_app_name']), rank(p['receiving_app_name']),
                                                        int(p['flow_comm_size'])) - 1e-3 for p in su),
      'no scale-up transfer is faster than the model alone')
check(all(float(p['perf_metric_usec']) > 0 for p in nic), 'NIC transfers completed')
m = rows(r.out, 'chakra-mapping')
check([(x['ScaleUpGroupId'], x['ScaleUpSubgroupId']) for x in m] ==
      [(str(GROUP[i]), str(SUB[i])) for i in range(8)], 'mapping record groups %s' % m[:2])
nd = [x for x in rows(r.out, 'nd-stats') if x['nd_name'] == 'ChakraScaleUpNetDevice']
hosts = sorted({x['component_name'] for x in nd})
check(hosts == ['host%d' % i for i in range(8)] and all(x['component_type'] == 'ChakraScaleUpNic' for x in nd),
      'nd-stats scale-up rows for every rank: %s' % hosts)
times = sorted({x['sim_time_sec'] for x in nd})
check(len(times) >= 2 and len(nd) == 8 * len(times), '%d rows at %d times' % (len(nd), len(times)))
for h in range(8):
    last = [x for x in nd if x['component_name'] == 'host%d' % h][-1]
    sent = [p for p in su if rank(p['sending_app_name']) == h]
    pkts = sum(max(1, -(-int(p['flow_comm_size']) // 4096)) for p in sent)
    byts = sum(int(p['flow_comm_size']) for p in sent) + 24 * pkts
    check(int(last['total_packets_tx']) == pkts and abs(float(last['total_bytes_tx_GB']) * 1e9 - byts) < 0.5,
          'host%d: %s packets, %s GB sent; chakra-perf says %d, %d B' % (h, last['total_packets_tx'],
                                                                         last['total_bytes_tx_GB'], pkts, byts))
util = max(float(x['tx_link_percent_util']) for x in nd)
check(0 < util <= 100, 'utilization against the group bandwidth: max %.3f %%' % util)

# 2. Without ScaleUpStatsEnabled: no scale-up rows, same transfers.
r = run(uetemu, CFG, root=root, sets=('applications.0.MappingFile=' + MAP,))
check(r.summary['chakra']['ranks_ended'] == 8, 'every rank ended without the stats')
check(not [x for x in rows(r.out, 'nd-stats') if x['nd_name'] == 'ChakraScaleUpNetDevice'], 'no scale-up rows')

# 3. Bad mapping files: one line each, refused naming the file and the line, before the simulation.
GOOD = ['group,0,bandwidth=800Gbps,switch_latency=100ns,cable_latency=20ns'] + \
       ['%d,host%d,0,%d' % (i, i, i % 2) for i in range(8)]
for lines, line, want in (
        (GOOD[:1] + ['0,host0,0'] + GOOD[2:], 2, 'a rank line is rank,host or rank,host,group,subgroup'),
        (GOOD + ['9,host0'], 10, "rank '9' is not a rank of the traceset (0 to 7)"),
        (GOOD + ['3,host3,0,0'], 10, 'rank 3 is placed twice (first on line 5)'),
        (GOOD[:1] + ['0,hostX,0,0'] + GOOD[2:], 2, "host 'hostX' is not a host of the topology"),
        (GOOD[:1] + ['0,host1,0,0'] + GOOD[2:], 3, 'host host1 already has a rank (line 2)'),
        (GOOD[:1] + ['0,host0,7,0'] + GOOD[2:], 2, 'scale-up group 7 has no group line'),
        (GOOD[:1] + ['0,host0,a,0'] + GOOD[2:], 2, "scale-up group 'a' is not a whole number"),
        (GOOD[:1] + ['0,host0,0,-1'] + GOOD[2:], 2, "scale-up subgroup '-1' is not a whole number"),
        (['group,0,bandwidth=fast,switch_latency=100ns,cable_latency=20ns'] + GOOD[1:], 1, 'group 0: bandwidth:'),
        (['group,0,bandwidth=800Gbps,switch_latency=1parsec,cable_latency=20ns'] + GOOD[1:], 1,
         'group 0: switch_latency:'),
        (['group,0,bandwidth=800Gbps,hops=3,cable_latency=20ns'] + GOOD[1:], 1,
         "group 0: 'hops=3' is not bandwidth=, switch_latency= or cable_latency="),
        (['group,0,bandwidth=800Gbps,switch_latency=100ns'] + GOOD[1:], 1, 'a group line has 5 fields'),
        (GOOD + [GOOD[0]], 10, 'scale-up group 0 is declared twice (first on line 1)'),
        (GOOD[:-1], None, 'places 7 of the 8 ranks')):
    path = os.path.join(workdir(), 'bad-map.csv')
    with open(path, 'w') as f:
        f.write('\n'.join(lines) + '\n')
    where = '%s:%d: ' % (path, line) if line else '%s: ' % path
    out = os.path.join(workdir(), 'bad')
    p = subprocess.run([uetemu, 'run', os.path.join(root, CFG), '--out', out, '--quiet', '--set',
                        'applications.0.MappingFile=' + path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=60)
    check(p.returncode > 0 and (where + want) in p.stderr,
          'refused (%d): %s' % (p.returncode, p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ''))
    check(not os.path.exists(os.path.join(out, 'summary.json')), 'no simulation ran')

sys.exit(finish('chakra-su'))
