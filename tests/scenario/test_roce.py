#!/usr/bin/env python3
"""The Scala RoCE NIC in runs (issue 19).

configs/default.yaml with one --set (server.nic=ScalaRoceNic): every Initiator completes WQEs; summary.json names the
model; roce-transport-stats has exactly the 74 columns of simulation-output-files.md; nd-stats rows are ScalaRoceNic.
configs/roce-incast.yaml: all 8 messages complete, nothing dropped; the switch's ECN marks all reach host0, which
sends one CNP per CE packet, every CNP reaches its sender; rate cuts in roce-rate-events, never below the 40 Gb/s
floor; the switch pauses senders with PFC (ecn-pfc-stats rows of the NICs). Its capture decodes under tshark's own
RoCEv2 dissector with no malformed frame: full data frames 4,150 B (4,154 on the wire), ACKs 122, CNPs 118, as many
CNPs as host0 sent. With RoCEEncapsulation.ICRC every frame is 4 B longer and scapy finds each ICRC right.
configs/roce-leaf-spine.yaml: the 16 messages of the permutation complete. Seed 003's traffic classes: data in
RdmaDataPacketTC's class (DSCP 8 x class, ECT(0)), ACKs in RdmaControlPacketTC's (Not-ECT); EnableECN false sends
data Not-ECT. Config errors name their key. scripts/roce-compare prints a UET and a RoCE row.
"""
import csv
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from checks import check, finish, workdir  # noqa: E402
from recfmt import columns  # noqa: E402
from runner import run  # noqa: E402

ROCE = 'server.nic=ScalaRoceNic'


def rows(out, name, record):
    with open(os.path.join(out, '%s-%s-0.csv' % (name, record))) as f:
        return list(csv.DictReader(f))


def total(s, key):
    return sum(h['counters'].get(key, 0) for h in s['hosts'])


def tshark(pcap, fields, flt=None):
    cmd = ['tshark', '-r', pcap, '-T', 'fields'] + sum((['-e', f] for f in fields), [])
    if flt:
        cmd += ['-Y', flt]
    p = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return [ln.split('\t') for ln in p.stdout.splitlines()]


def check_default(uetemu, root):
    r = run(uetemu, 'configs/default.yaml', root=root, sets=[ROCE])
    s = r.summary
    done = [p['wqes_completed'] for p in s['rdma']['pairs']]
    check(len(done) == 8 and min(done) > 0, 'default + one --set: 8 pairs on RoCE NICs, each completes WQEs (%s)'
          % done)
    check(all(h.get('nic') == 'ScalaRoceNic' for h in s['hosts']), 'summary.json: every host is a ScalaRoceNic')
    lat = s['rdma']['wqe_latency_us']
    check(0 < lat['p50'] <= lat['p99'] <= lat['max'],
          'WQE latency p50 <= p99 <= max (%s): the outputs are closed, the latencies sorted, as with UET NICs' % lat)
    with open(os.path.join(r.out, 'default-roce-transport-stats-0.csv')) as f:
        header = f.readline().strip().split(',')
    want = columns(uetemu, 'roce-transport-stats')  # the writer's column table
    check(header == want and len(header) == 74, 'roce-transport-stats: the 74 columns of simulation-output-files.md')
    rt = rows(r.out, 'default', 'roce-transport-stats')
    last = {x['component_name']: x for x in rt}
    check(sum(int(x['num_wqe_completed']) for x in last.values()) >= sum(done),
          'num_wqe_completed covers the rdma-perf WQEs')
    nd = [x for x in rows(r.out, 'default', 'nd-stats') if x['component_type'] == 'ScalaRoceNic']
    check(len(nd) > 0 and all(x['nd_name'] == 'ScalaRoceNicNetDevice' for x in nd), 'nd-stats: ScalaRoceNic rows')


def check_incast(uetemu, root, icrc):
    sets = ['roce_nic.RoCEEncapsulation.ICRC=true'] if icrc else []
    tag = ' (ICRC)' if icrc else ''
    r = run(uetemu, 'configs/roce-incast.yaml', root=root, sets=sets)
    s, c = r.summary, r.summary['counters']
    check(s['messages']['completed'] == 8, 'roce-incast%s: 8 of 8 messages complete' % tag)
    check(c['drops'] == 0 and c['retransmits'] == 0, 'roce-incast%s: no drop, no retransmission' % tag)
    cnp_sent, cnp_recvd = total(s, 'num_cnp_sent'), total(s, 'num_cnp_recvd')
    check(c['ecn_marks'] > 0 and cnp_sent == c['ecn_marks'] and cnp_recvd == cnp_sent,
          'roce-incast%s: %d ECN marks, one CNP each sent and received (%d, %d)' % (tag, c['ecn_marks'], cnp_sent,
                                                                                   cnp_recvd))
    check(total(s, 'rate_cuts') > 0 and total(s, 'rate_episodes') == 8,
          'roce-incast%s: rate cuts (%d) in 8 episodes' % (tag, total(s, 'rate_cuts')))
    ev = rows(r.out, 'roce-incast', 'roce-rate-events')
    rates = [float(x['rate_Gbps']) for x in ev]
    check(len(ev) > 0 and min(rates) >= 40.0 and max(rates) <= 400.0,
          'roce-rate-events: %d rows, rates %.1f..%.1f Gb/s within floor and line rate' %
          (len(ev), min(rates or [0]), max(rates or [0])))
    ep = [x for x in rows(r.out, 'roce-incast', 'ecn-pfc-stats') if x['component_type'] == 'ScalaRoceNic']
    check(c['pfc_pauses'] > 0 and any(int(x['pfcxoff_rx']) > 0 for x in ep),
          'roce-incast%s: the switch pauses senders (%d pauses; the NICs\' ecn-pfc-stats rows show them)' %
          (tag, c['pfc_pauses']))
    pcap = os.path.join(r.out, 'roce-incast.pcap')
    frames = tshark(pcap, ['frame.len', 'infiniband.bth.opcode', 'ip.dsfield.ecn', '_ws.malformed'])
    check(len(frames) > 0 and all(f[1] != '' and f[3] == '' for f in frames),
          'capture%s: %d frames, every one RoCEv2 under tshark, none malformed' % (tag, len(frames)))
    extra = 4 if icrc else 0
    full = [f for f in frames if f[1] in ('6', '7') and int(f[0]) == 4150 + extra]
    data = [f for f in frames if f[1] in ('6', '7', '8', '10')]
    check(len(full) > 0 and all(int(f[0]) <= 4150 + extra for f in data),
          'capture%s: full data frames %d B (4,154 B on the wire)' % (tag, 4150 + extra))
    acks = [f for f in frames if f[1] == '17']
    cnps = [f for f in frames if f[1] == '129']
    check(acks and all(int(f[0]) == 122 + extra and f[2] == '0' for f in acks),
          'capture%s: ACKs %d B, Not-ECT' % (tag, 122 + extra))
    check(len(cnps) == cnp_sent and all(int(f[0]) == 118 + extra for f in cnps),
          'capture%s: the %d CNPs host0 sent, %d B each' % (tag, len(cnps), 118 + extra))
    check(all(f[2] in ('2', '3') for f in data), 'capture%s: data ECT(0) or CE' % tag)
    if icrc and subprocess.run(['/usr/bin/python3', '-c', 'import scapy.contrib.roce'],
                               stderr=subprocess.DEVNULL).returncode == 0:
        prog = ('import sys\nfrom scapy.all import rdpcap, Ether\nfrom scapy.contrib.roce import BTH\nbad = 0\n'
                'for p in rdpcap(sys.argv[1])[:400]:\n    raw = bytes(p); q = Ether(raw); q[BTH].icrc = None\n'
                '    bad += bytes(q) != raw\nprint(bad)\n')
        p = subprocess.run(['/usr/bin/python3', '-c', prog, pcap], stdout=subprocess.PIPE, text=True)
        check(p.returncode == 0 and p.stdout.strip() == '0', 'capture (ICRC): scapy computes every ICRC the same')


def check_netbuff(uetemu, root):
    r = run(uetemu, 'configs/roce-incast.yaml', root=root,
            sets=['roce_nic.EnableBufferStats=true', 'simulation.EnableNetworkBufferStatsReporting=true'])
    nb = rows(r.out, 'roce-incast', 'net-buff-stats')
    host0 = {x['buffer_id']: x for x in nb if x['component_name'] == 'host0'}
    rx0 = host0.get('RX_TC0_BUFFER', {})
    check(set(host0) == {'RX_TC0_BUFFER', 'RX_TC1_BUFFER', 'TX_TC0_BUFFER', 'TX_TC1_BUFFER'},
          'net-buff-stats: host0 has a row for each pool of the defaults (%s)' % sorted(host0))
    check(rx0.get('buffer_max_size_B') == '3600000' and int(rx0.get('num_enq', 0)) == 8 * 512 and
          rx0.get('max_occupancy_B') == '4136',
          'net-buff-stats: host0 RX_TC0 3,600,000 B, 4,096 data packets charged 4,136 B each (%s)' %
          {k: rx0.get(k) for k in ('buffer_max_size_B', 'num_enq', 'max_occupancy_B')})


def check_leaf_spine(uetemu, root):
    r = run(uetemu, 'configs/roce-leaf-spine.yaml', root=root)
    check(r.summary['messages']['completed'] == 16, 'roce-leaf-spine: the 16 messages of the permutation complete')


def rack_with_capture(root, extra):
    text = open(os.path.join(root, 'configs/rdma-rack.yaml')).read()
    text = text.replace('applications:\n  - type: ScalaRdma', 'applications:\n  - type: ScalaRdma' + extra)
    text += 'server: {nic: ScalaRoceNic}\ncaptures: [{name: h0, link: host0-tor0}]\n'
    path = os.path.join(tempfile.mkdtemp(prefix='uetemu-roce-', dir=workdir()), 'rack.yaml')
    with open(path, 'w') as f:
        f.write(text)
    return path


def classes(uetemu, root, extra, sets=()):
    r = run(uetemu, rack_with_capture(root, extra), sets=list(sets))
    fr = tshark(os.path.join(r.out, 'h0.pcap'), ['infiniband.bth.opcode', 'ip.dsfield.dscp', 'ip.dsfield.ecn'])
    data = {(f[1], f[2]) for f in fr if f[0] in ('6', '7', '8', '10')}
    ctl = {(f[1], f[2]) for f in fr if f[0] == '17'}
    return data, ctl


def check_classes(uetemu, root):
    data, ctl = classes(uetemu, root, '')
    check(data == {('0', '2')} and ctl == {('8', '0')},
          'seed 003 defaults: data CS0 ECT(0), ACKs CS1 Not-ECT (%s, %s)' % (sorted(data), sorted(ctl)))
    data, ctl = classes(uetemu, root, '\n    RdmaDataPacketTC: 1\n    RdmaControlPacketTC: 0')
    check(data == {('8', '2')} and ctl == {('0', '0')},
          'RdmaDataPacketTC 1, RdmaControlPacketTC 0: data CS1, ACKs CS0 (%s, %s)' % (sorted(data), sorted(ctl)))
    data, _ = classes(uetemu, root, '', ['roce_nic.ECNHandler.EnableECN=false'])
    check(data == {('0', '0')}, 'EnableECN false: data Not-ECT (%s)' % sorted(data))


def check_errors(uetemu, root):
    cases = [
        (['roce_nic.ScalaRoceQpManager.MSS=4200B'], 'roce_nic.ScalaRoceQpManager.MSS'),
        (['server.nic=ScalaRoce'], 'unknown NIC model'),
        (['switch.SharedBufferManager.UETPolicyEnabled=true'], 'UETPolicyEnabled'),
        (['roce_nic.NetworkInterface.IngressBufferManager.PFCEnableVector=[1, x, 0, 0, 0, 0, 0, 0]'],
         'PFCEnableVector'),
        (['roce_nic.NetworkInterface.EgressBufferManager.WRRQueueWeights=[1, 2.5, 0, 0, 0, 0, 0, 0]'],
         'WRRQueueWeights'),
        (['roce_nic.NetworkInterface.IngressBufferManager.PoolAllocationVector=[0, 0, 0, 0, 0, 0, 0, 0]'],
         'PoolAllocationVector'),
        (['roce_nic.HostInterface.NICSide.PCIeGen3.0.NicDeviceLayer.NicPCIeInterface.PhysicalLayer.LaneCount=17'],
         'LaneCount'),
        (['roce_nic.TransportProcessingLayers.RoceTransportLayer.RetransmitTimeout=1.5ps'], 'RetransmitTimeout'),
        (['roce_nic.ECNHandler.MinimumRatePercentage=1.5'], 'MinimumRatePercentage'),
        (['roce_nic.NumDownLinks=2'], 'NumDownLinks'),
    ]
    for sets, key in cases:
        extra = [] if sets[0].startswith('server.nic') else [ROCE]
        cmd = [uetemu, 'validate', os.path.join(root, 'configs/default.yaml')]
        for s in extra + sets:
            cmd += ['--set', s]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        check(p.returncode != 0 and key in p.stderr, 'config error for %s names %s' % (sets[0].split('=')[0], key))
    p = subprocess.run([uetemu, 'validate', os.path.join(root, 'configs/default.yaml'), '--set', ROCE,
                        '--set', 'roce_nic.ScalaRoceQpManager.MSS=4125B'], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    check(p.returncode == 0, 'MSS 4125 B (+ 58 = 4,183 B, under the 4,184 B Mtu) is accepted')


def check_compare(uetemu, root):
    out = tempfile.mkdtemp(prefix='uetemu-cmp-', dir=workdir())
    p = subprocess.run([os.path.join(root, 'scripts', 'roce-compare'), os.path.join(root, 'configs/roce-incast.yaml'),
                        '--uetemu', uetemu, '--out', out], stdout=subprocess.PIPE, text=True)
    lines = p.stdout.splitlines()
    print('\n'.join('    ' + ln for ln in lines))
    check(p.returncode == 0 and any(ln.startswith('UET ') for ln in lines) and
          any(ln.startswith('RoCE ') and ' 8/8 ' in ln for ln in lines),
          'scripts/roce-compare: FCTs and goodput of UET and RoCE NICs side by side')


def main():
    uetemu, root = sys.argv[1], sys.argv[2]
    check_default(uetemu, root)
    check_incast(uetemu, root, False)
    check_incast(uetemu, root, True)
    check_netbuff(uetemu, root)
    check_leaf_spine(uetemu, root)
    check_classes(uetemu, root)
    check_errors(uetemu, root)
    check_compare(uetemu, root)
    return finish('roce')


if __name__ == '__main__':
    sys.exit(main())
