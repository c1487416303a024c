#!/usr/bin/env python3
"""Fidelity mends of issue 28, each against the page line it follows:

* RoCE nd-stats rx_drops counts "the packets dropped because their receive pool was full, and nothing else" (RoCE
  NIC buffers page): configs/impair.yaml on RoCE NICs drops one data frame, the packets behind the gap are the
  transport's (roce-transport-stats num_rx_drops_after_nak), the NIC's nd-stats rx_drops stays 0;
* uetemu keys names the types as the NIC configuration pages do: lists are string, the PCIe transaction layer's
  buffer sizes queuesize;
* the typed form of the pages' PATCH bodies, {value: 16, unit: ms, type: timeval}, is accepted (and means what the
  plain value means), a bad unit or type refused;
* Chakra's annotated trace keeps a collective's node type (7) and its real start, times in us to the ns;
* chakra-cdf writes 1.000000 (not 1) for a kind of node the run has none of;
* NumOfChakraFiles defaults to 256 as the configuration page says: left out, the traceset's rank count (what
  attaching it sets), refused naming both when the servers differ.
"""
import csv
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from checks import check, finish, workdir  # noqa: E402
from runner import run  # noqa: E402

uetemu, root = sys.argv[1], sys.argv[2]
TS = os.path.join(root, 'tests', 'chakra')


def rows(path):
    with open(path, newline='') as f:
        return list(csv.DictReader(f))


# 1. RoCE nd-stats rx_drops.
r = run(uetemu, 'configs/impair.yaml', root=root, sets=('server.nic=ScalaRoceNic',))
nd = [x for x in rows(os.path.join(r.out, 'impair-nd-stats-0.csv')) if x['component_name'] == 'host1']
rt = rows(os.path.join(r.out, 'impair-roce-transport-stats-0.csv'))
behind = max(int(x['num_rx_drops_after_nak']) for x in rt)
check(behind > 0 and nd and all(x['rx_drops'] == '0' for x in nd),
      'packets behind the gap (%d, roce-transport-stats) are not nd-stats rx_drops (%s)' %
      (behind, sorted({x['rx_drops'] for x in nd})))

# 2. uetemu keys: the pages' type names.
keys = {}
for line in subprocess.run([uetemu, 'keys'], stdout=subprocess.PIPE, text=True, check=True).stdout.splitlines()[2:]:
    cells = [c.strip() for c in line.split('|')]
    keys[cells[1].strip('`')] = cells[2]
pcie = 'nic.HostInterface.NICSide.PCIeGen3.0.NicDeviceLayer.NicPCIeInterface.TransactionLayer.'
check(all(keys[pcie + a] == 'queuesize' for a in ('RXHeaderBufferSize', 'TXHeaderBufferSize', 'RXDataBufferSize',
                                                    'TXDataBufferSize')), 'PCIe buffer sizes are queuesize')
check(keys['nic.NetworkInterface.IngressBufferManager.PoolAllocationVector'] == 'string' and
      keys['roce_nic.NetworkInterface.IngressBufferManager.PFCEnableVector'] == 'string' and
      'list' not in keys.values(), 'lists are string: %s' % sorted(set(keys.values())))
check(keys['nic.NetworkInterface.IngressBufferManager.TotalBufferSize'] == 'bytes', 'other sizes stay bytes')

# 3. The typed form.
BASE = """simulation: {SimulationName: typed}
server: {nic: ScalaRoceNic}
topology: {type: rack, hosts_per_rack: 2}
roce_nic:
  NetworkInterface:
    UplinkNetworkInterface: {DataRate: %s}
  TransportProcessingLayers:
    RoceTransportLayer: {RetransmitTimeout: %s}
applications:
  - type: messages
    list: [{src: host1, dst: host0, bytes: 1MiB, start: 0us}]
"""
sums = []
for rate, rto in (('100Gbps', '16ms'), ('{value: 100, unit: Gbps, type: datarate}',
                                        '{value: 16, unit: ms, type: timeval}')):
    path = os.path.join(workdir(), 'typed-%d.yaml' % len(sums))
    with open(path, 'w') as f:
        f.write(BASE % (rate, rto))
    s = run(uetemu, path, keep=False).summary
    sums.append((s['sim_time_ps'], s['hosts'], s['messages']))
check(sums[0] == sums[1], 'the typed form runs as the plain value does (%s ps)' % sums[1][0])
for rto, want in (('{value: 16, unit: parsec, type: timeval}', "bad unit 'parsec'"),
                  ('{value: 16, unit: ms, type: time}', "type 'time' is none of bool, uint, double, datarate"),
                  ('{value: 16, unit: ms, kind: timeval}', 'unknown key in a typed value')):
    path = os.path.join(workdir(), 'typed-bad.yaml')
    with open(path, 'w') as f:
        f.write(BASE % ('100Gbps', rto))
    p = subprocess.run([uetemu, 'validate', path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    check(p.returncode == 1 and 'RoceTransportLayer.RetransmitTimeout' in p.stderr and want in p.stderr,
          'refused: %s' % p.stderr.strip())

# 4. The annotated trace: a collective's type and real start, at ns resolution.
r = run(uetemu, 'configs/chakra-dp8.yaml', root=root)
with open(os.path.join(r.out, 'post_annotated', 'trace.0.json')) as f:
    nodes = {n['id']: n for n in json.load(f)['nodes']}
# dp8's rank 0: node 2 (grad_load0) then node 3 (allreduce0, its one dependency), node 4 (update0) after it
ar, dep, nxt = nodes[3], nodes[2], nodes[4]
check(ar['type'] == 7, 'the AllReduce keeps type 7 (COMM_COLL_NODE): %s' % ar['type'])
check(ar['s'] == dep['e'] and float(ar['e']) > float(ar['s']) and ar['e'] == nxt['s'],
      'its s is when its dependency ended (%s), its e when its dependents start (%s)' % (ar['s'], ar['e']))
check(all(re.fullmatch(r'\d{9}\.\d{3}', n[k]) for n in nodes.values() for k in ('s', 'e')) and
      any(not n['e'].endswith('.000') for n in nodes.values()), 'times in us to the ns, 13 characters')

# 5. chakra-cdf: 1.000000 for a kind the run has none of (this traceset has no COMP_NODE).
wide = os.path.join(workdir(), 'wide')
subprocess.run(['/usr/bin/python3', os.path.join(root, 'scripts', 'chakra-gen'), 'wide', wide, '--ranks', '8',
                '--nodes', '8', '--what', 'send', '--size', '1000'], check=True, stdout=subprocess.DEVNULL)
r = run(uetemu, 'configs/chakra-dp8.yaml', root=root, sets=('applications.0.Traceset=' + wide,))
cdf = rows(os.path.join(r.out, 'chakra-dp8-chakra-cdf-0.csv'))
check(cdf and cdf[-1]['CDF_chakra_computations_completed'] == '1.000000' and
      all(v == '1.000000' for k, v in cdf[-1].items() if k != 'sim_time_sec'), 'chakra-cdf last row: %s' % cdf[-1:])

# 6. NumOfChakraFiles left out: 256 until the traceset is read, then its rank count.
cfg = os.path.join(workdir(), 'nf.yaml')
for ts, want in (('dp8', None), ('pipeline4', 'has 4 ranks, which NumOfChakraFiles (not given: 256, the page\'s '
                                               'default) takes as the traceset is attached, but the topology has 8 '
                                               'servers')):
    with open(cfg, 'w') as f:
        f.write('simulation: {SimulationName: nf}\ntopology: {type: leaf-spine, hosts_per_rack: 4, racks: 2, '
                'spines: 2}\napplications:\n  - type: Chakra\n    Traceset: %s\n' % os.path.join(TS, ts))
    p = subprocess.run([uetemu, 'run', cfg, '--out', os.path.join(workdir(), 'nf-' + ts), '--quiet'],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
    if want is None:
        check(p.returncode == 0, 'dp8 runs without NumOfChakraFiles (%d)' % p.returncode)
    else:
        check(p.returncode == 1 and want in p.stderr, 'pipeline4 on 8 servers refused: %s' % p.stderr.strip())

sys.exit(finish('mends'))
