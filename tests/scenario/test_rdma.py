#!/usr/bin/env python3
"""configs/rdma-rack.yaml: the Scala RDMA application alone on a rack of 4 hosts (spec seeds/003).

Checks: 0.5 / 0.5 on 4 hosts gives 2 Initiators, 2 Responders, 2 pairs; the rdma-perf record has the page's 13
columns and rows, every latency above 0 and every row before the stop time; the same seed gives a byte-identical
rdma-perf, another seed (7) may give other pairs (printed); with MaxPendingWQEs 1 and NumConnections 1 each WQE's
perf_metric_usec equals, to the picosecond, the lone-WQE time lone_wqe_ps() computes from the model's parameters,
through one switch and through leaf0-spine0-leaf1; on configs/default.yaml each Initiator's goodput is within 10 %
of 250,000 B per lone-WQE time on its own path (printed). The beacon record
(BeaconReportInterval 20us): a row every 20 us up to the stop time, rx_client equal to the rdma-perf rows completed
by then, tx_client ahead of it by the WQEs outstanding (2 pairs x MaxPendingWQEs 10) at the end.
"""
import csv
import filecmp
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from checks import check, finish, workdir  # noqa: E402
from recfmt import columns  # noqa: E402
from runner import run  # noqa: E402
import uetpcap  # noqa: E402

HEADER = ['job_id', 'time_utc', 'sim_time_sec', 'metric_name', 'perf_metric_usec', 'transfer_size', 'start_time_sec',
          'application_name', 'node_id', 'rdma_verb', 'wqe_id', 'num_wqe_sent', 'num_wqe_complete']
BEACON_HEADER = ['job_id', 'time_utc', 'sim_time_sec', 'interval_duration_sec', 'tx_client', 'rx_client', 'tx_server',
                 'rx_server', 'rx_bytes_reader', 'rx_bytes_writer', 'goodput_reader_MB_per_sec',
                 'goodput_writer_MB_per_sec']  # simulation-output-files.md, Beacon
BEACON = 'simulation.BeaconReportInterval=20us'
STOP_S = 260e-6  # the config's stop time: 10 + 10 + 10 + 20 + 200 + 10 us


def rack(uetemu, root, out, sets=(), cfg=None):
    """Run configs/rdma-rack.yaml (or @p cfg) into @p out: (summary, the rdma-perf rows, the rdma-perf path)."""
    s = run(uetemu, cfg or 'configs/rdma-rack.yaml', out, sets, root=root).summary
    perf = os.path.join(out, 'rdma-rack-rdma-perf-0.csv')
    with open(perf, newline='') as f:
        rows = list(csv.reader(f))
    return s, rows, perf


def pairs(s):
    return sorted((p['initiator'], p['responder']) for p in s['rdma']['pairs'])


PCIE_BPS = 16 * 31_520_000_000   # the NIC's PCIe link: LaneCount 16 x LaneBps 31.52 Gb/s
WIRE_BPS = 400_000_000_000      # the NIC's and the switches' DataRate
NIC_DELAY_PS = 100_000          # nic TransmissionMedium Delay: the host links
LEAF_DELAY_PS = 500_000         # topology Delay of the leaf tier: the leaf-spine links (docs/topology.md)


def ser_ps(nbytes, bps):
    """Serialization time in ps, rounded up to a whole ps (emu_ser_ps: one round-up rule everywhere)."""
    return -(-nbytes * 8 * 10**12 // bps)


def lone_wqe_ps(link_delays_ps):
    """perf_metric_usec of one 250,000 B WQE alone on an idle path, in ps, from the model's parameters.

    The path is the list of its links' delays, sender to receiver (2 links through one switch). Terms:
    doorbell -> first frame: the transmit process starts 15 ns after the doorbell (uet-nic-transport.md), issues
        a 64 B read request (+34 B TLP overhead) on the NIC-to-host PCIe direction, and the first 4,096 B arrive as
        8 completions of 512 B (+34 B each): 4,368 B on the host-to-NIC direction. The doorbell's own 92 B (+34)
        ride the host-to-NIC direction before that and delay nothing. Later fetches (69 ns) hide behind the wire.
    serialization: 62 packets, 61 of 4,096 B (4,202 B with the 106 B of headers and FCS) and one of 144 B (250 B);
        the message's base-RTT probe (a 62 B control packet) goes out between them. Frames leave back to back.
    propagation: store and forward at each switch, so the 61st frame reaches the receiver (4,202 B + delay) per
        link after it left; the 62nd follows it on every link, 250 B behind.
    ACK return: every packet is ACKed after the receiver's PCIe service time (its 4,184 B IP datagram over the
        NIC-to-host direction, the pool being empty); the ACKs leave in order, so the 62nd packet's ACK (78 B)
        leaves right behind the 61st's, and crosses each link in 78 B + delay.
    """
    full, last, probe, ack = 4096 + 106, 144 + 106, 62, 78
    first = 15_000 + ser_ps(64 + 34, PCIE_BPS) + ser_ps(4096 + 8 * 34, PCIE_BPS)
    left61 = first + 60 * ser_ps(full, WIRE_BPS) + ser_ps(probe, WIRE_BPS)
    arrive61 = left61 + sum(ser_ps(full, WIRE_BPS) + d for d in link_delays_ps)
    arrive62 = arrive61 + ser_ps(last, WIRE_BPS)
    ack61 = arrive61 + ser_ps(4096 + 88, PCIE_BPS)
    ack62 = max(arrive62 + ser_ps(144 + 88, PCIE_BPS), ack61 + ser_ps(ack, WIRE_BPS))
    return ack62 + sum(ser_ps(ack, WIRE_BPS) + d for d in link_delays_ps)


def path_delays(s, a, b):
    """Link delays from host @a to host @b in summary @s's leaf-spine or rack: one switch if they share it."""
    up = {}
    for dev in s['topology']['devices']:
        if dev['tier'] == 0:
            up[dev['name']] = dev['ports'][0]['link'].split('-', 1)[1]
    if up[a] == up[b]:
        return [NIC_DELAY_PS, NIC_DELAY_PS]
    return [NIC_DELAY_PS, LEAF_DELAY_PS, LEAF_DELAY_PS, NIC_DELAY_PS]


def setup_checks(uetemu, root, tmp, s, capture):
    """Connection setup as three real frames (docs/wire.md, connection setup): times, fields, retries."""
    st = s['rdma']['setup']
    check(st['connections'] == st['set_up'] == st['established'] == 2 and st['requests'] == st['replies']
          == st['ready_to_use'] == 2 and st['retries'] == st['failed'] == st['invalid'] == 0,
          'setup: 2 connections set up with 2 requests, 2 replies, 2 ready-to-use, no retry (%s)' % st)
    # The request leaves at the client start window's start (20 us); request and reply each cross two links of
    # 66 B (1.32 ns) + 100 ns, and the Responder answers at once: the reply is back 405.28 ns later.
    setup_s = (20_000_000 + 4 * (ser_ps(66, WIRE_BPS) + NIC_DELAY_PS)) / 1e12
    check(all(abs(p['setup_first_s'] - setup_s) < 1e-13 and p['setup_last_s'] == p['setup_first_s']
              for p in s['rdma']['pairs']),
          'setup: every connection set up at 20 us + 4 x (1.320 + 100) ns = %.5f us (%s)'
          % (setup_s * 1e6, [p['setup_first_s'] for p in s['rdma']['pairs']]))
    ini, resp = [p for p in pairs(s) if p[0] == 'host1'][0]
    ip = {d['name']: bytes(int(x) for x in d['ip'].split('.')) for d in s['topology']['devices'] if d['tier'] == 0}
    cms = [(t, uetpcap.decode(f)) for t, f in uetpcap.read_pcap(capture)]
    cms = [(t, d) for t, d in cms if d['kind'] == 'cm']
    kinds = [(d['cm_type'], d['src'], d['dst'], d['len'], d['dscp'], d['ecn'], d['cm_conn']) for _, d in cms]
    want = [(1, ip[ini], ip[resp], 62, 46, 0, 0), (2, ip[resp], ip[ini], 62, 46, 0, 0),
            (3, ip[ini], ip[resp], 62, 46, 0, 0)]
    check(kinds == want, 'capture on %s-tor0: ConnectRequest, ConnectReply, ReadyToUse, 62 B frames to UDP 4794, '
          'CONTROL codepoint 46, not ECN-capable (%s)' % (ini, kinds))
    if len(cms) == 3:
        req, rep, rtu = (d for _, d in cms)
        check(req['cm_local'] != 0 and req['cm_remote'] == 0 and rep['cm_remote'] == req['cm_local']
              and rtu['cm_remote'] == rep['cm_local'] and rtu['cm_local'] == req['cm_local'] and rtu['cm_qpn'] != 0,
              'setup ids: the reply names the request\'s id, the ready-to-use the reply\'s, with the Initiator\'s '
              'PDC id as its QPN (%d)' % rtu['cm_qpn'])
        check(cms[0][0] == 20_000, 'the request leaves %s at 20 us (the client start window) (%d ns)'
              % (ini, cms[0][0]))

    # Setup ending after the client start window (1 ns long): the first WQEs go at the setup's end.
    s2, rows2, _ = rack(uetemu, root, os.path.join(tmp, 'late'), ['simulation.ClientStartInterval=1ns'])
    first = [r for r in rows2[1:] if r[10] == '1']
    check(len(first) == 2 and all(abs(float(r[6]) - setup_s) < 1e-12 for r in first),
          'ClientStartInterval 1 ns: setup ends at %.5f us, after the window (20.001 us): the first WQE\'s '
          'doorbell then (%s)' % (setup_s * 1e6, [r[6] for r in first]))

    # The Initiator's link down while the request crosses it: one request lost, sent again 100 us later.
    cfg = os.path.join(tmp, 'lost.yaml')
    with open(os.path.join(root, 'configs/rdma-rack.yaml')) as f:
        text = f.read()
    with open(cfg, 'w') as f:
        f.write(text.replace('topology:\n', 'topology:\n  faults: [{link: %s-tor0, down: 15us, up: 25us}]\n' % ini))
    s3 = run(uetemu, cfg, os.path.join(tmp, 'lost')).summary
    st = s3['rdma']['setup']
    lost = [p for p in s3['rdma']['pairs'] if p['initiator'] == ini][0]
    retry_s = setup_s + 100e-6
    check(st['requests'] == 3 and st['retries'] == 1 and st['set_up'] == 2 and st['failed'] == 0,
          'request lost on a down link: 3 requests, 1 retry, both connections set up (%s)' % st)
    check(abs(lost['setup_first_s'] - retry_s) < 1e-12 and lost['wqes_completed'] > 0,
          '%s set up by the retry at %.5f us (%.5f us), and its WQEs complete (%d)'
          % (ini, retry_s * 1e6, lost['setup_first_s'] * 1e6, lost['wqes_completed']))


def lone_wqe_checks(uetemu, root, tmp):
    """The lone-WQE time, exactly, on the rack and through a spine; the default scenario's goodput against it."""
    _, rows1, _ = rack(uetemu, root, os.path.join(tmp, 'lone'),
                       ['applications.0.MaxPendingWQEs=1', 'applications.0.NumConnections=1'])
    want = lone_wqe_ps([NIC_DELAY_PS, NIC_DELAY_PS])
    lat = sorted({r[4] for r in rows1[1:]})
    check(lat == ['%.6f' % (want / 1e6)],
          'lone WQE through one switch: perf_metric_usec = %.6f us computed (doorbell + fetch + serialization + '
          'propagation + ACK return), measured %s' % (want / 1e6, lat))
    check(all(r[11] == r[10] == r[12] for r in rows1[1:]), 'MaxPendingWQEs 1: wqe_id = num_wqe_sent = num_wqe_complete')

    out = os.path.join(tmp, 'spine')
    run(uetemu, 'configs/default.yaml', out, ['topology.hosts_per_rack=1', 'topology.racks=2', 'topology.spines=1',
                                              'simulation.RunTime=100us', 'applications.0.MaxPendingWQEs=1'], root=root)
    with open(os.path.join(out, 'default-rdma-perf-0.csv'), newline='') as f:
        lat = sorted({r['perf_metric_usec'] for r in csv.DictReader(f)})
    want = lone_wqe_ps([NIC_DELAY_PS, LEAF_DELAY_PS, LEAF_DELAY_PS, NIC_DELAY_PS])
    check(lat == ['%.6f' % (want / 1e6)],
          'lone WQE through leaf0-spine0-leaf1 (100 + 500 + 500 + 100 ns): perf_metric_usec = %.6f us computed, '
          'measured %s' % (want / 1e6, lat))

    s = run(uetemu, 'configs/default.yaml', os.path.join(tmp, 'default'), root=root).summary
    check(len(s['rdma']['pairs']) == 8, 'default scenario: 8 pairs')
    hg = {h['name']: h['goodput_gbps'] for h in s['hosts']}
    check(all(abs(hg[p['responder']] - p['goodput_gbps']) < 1e-9 and hg[p['initiator']] == 0
              for p in s['rdma']['pairs']),
          'hosts[].goodput_gbps: each Responder shows its pair\'s goodput, each Initiator 0')
    print('     default scenario, each Initiator against 250,000 B per lone-WQE time on its path:')
    for p in s['rdma']['pairs']:
        d = path_delays(s, p['initiator'], p['responder'])
        lone = lone_wqe_ps(d)
        ideal = 250_000 * 8 / (lone / 1e12) / 1e9
        ratio = p['goodput_gbps'] / ideal
        print('       %-6s -> %-6s %d links, lone WQE %.6f us = %.1f Gb/s, goodput %.1f Gb/s (%.1f %%)'
              % (p['initiator'], p['responder'], len(d), lone / 1e6, ideal, p['goodput_gbps'], 100 * ratio))
        check(0.9 <= ratio <= 1.0 + 1e-3, '%s: goodput within 10 %% of the lone-WQE rate (%.1f %%)'
              % (p['initiator'], 100 * ratio))


def main():
    uetemu, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    tmp = tempfile.mkdtemp(prefix='uetemu-rdma-', dir=workdir())

    cap_cfg = os.path.join(tmp, 'capture.yaml')  # the config with a capture on host1's link
    with open(os.path.join(root, 'configs/rdma-rack.yaml')) as f:
        text = f.read()
    with open(cap_cfg, 'w') as f:
        f.write(text + 'captures: [{name: setup, link: host1-tor0}]\n')
    s, rows, perf_a = rack(uetemu, root, os.path.join(tmp, 'a'), [BEACON], cap_cfg)
    rd = s['rdma']
    check(rd['initiators'] == 2 and rd['responders'] == 2 and len(rd['pairs']) == 2,
          '0.5 / 0.5 on 4 hosts: 2 Initiators, 2 Responders, 2 pairs (%s)' % pairs(s))
    hosts = [h for p in pairs(s) for h in p]
    check(len(set(hosts)) == 4, 'each host runs one component')
    check(rows[0] == columns(uetemu, 'rdma-perf') == HEADER,
          'rdma-perf header is its column table (uetemu columns), the page\'s 13 columns')
    body = rows[1:]
    check(len(body) > 0, 'rdma-perf has rows (%d)' % len(body))
    check(all(len(r) == len(HEADER) for r in body), 'every row has %d columns' % len(HEADER))
    lone_us = lone_wqe_ps([NIC_DELAY_PS, NIC_DELAY_PS]) / 1e6
    check(all(float(r[4]) >= lone_us for r in body),
          'every perf_metric_usec at least the lone-WQE time through tor0, %.6f us (min %.6f us)'
          % (lone_us, min(float(r[4]) for r in body) if body else 0))
    check(all(float(r[2]) < STOP_S for r in body), 'every completion before the stop time (260 us)')
    check(all(r[3] == 'RDMA-WRITE' and r[5] == '250000' and r[9] == 'RDMA_VERB_POST_WRITE' for r in body),
          'metric_name RDMA-WRITE, transfer_size 250000, rdma_verb RDMA_VERB_POST_WRITE')
    check(sum(p['wqes_completed'] for p in rd['pairs']) == len(body), 'summary wqes_completed = rdma-perf rows')
    print('     pairs %s, WQE latency p50 %.3f us, p99 %.3f us, max %.3f us'
          % (pairs(s), rd['wqe_latency_us']['p50'], rd['wqe_latency_us']['p99'], rd['wqe_latency_us']['max']))

    with open(os.path.join(tmp, 'a', 'rdma-rack-beacon-0.csv'), newline='') as f:
        bea = list(csv.reader(f))
    check(bea[0] == columns(uetemu, 'beacon') == BEACON_HEADER,
          'beacon header is its column table (uetemu columns), the page\'s 12 columns')
    bea = bea[1:]
    check([round(float(r[2]) * 1e6) for r in bea] == list(range(20, 261, 20)) and all(r[3] == '0.000020000000'
                                                                                     for r in bea),
          'beacon: a row every BeaconReportInterval (20 us) up to the stop time, 13 rows')
    done_at = [float(r[2]) for r in body]
    check(all(int(r[5]) == sum(1 for t in done_at if t <= float(r[2]) + 1e-12) for r in bea),
          'beacon: rx_client = WQEs completed by the row (rdma-perf rows), at every row')
    check(all(int(a[4]) <= int(b[4]) for a, b in zip(bea, bea[1:])), 'beacon: tx_client never decreases')
    check(int(bea[-1][4]) - int(bea[-1][5]) == 2 * 10 and rd['post_failed'] == 0,
          'beacon: at the stop tx_client %s - rx_client %s = 20 WQEs outstanding (2 connections x 10)'
          % (bea[-1][4], bea[-1][5]))
    check(all(r[6:] == ['0'] * 6 for r in bea), 'beacon: the columns the application does not add to are 0')

    _, _, perf_b = rack(uetemu, root, os.path.join(tmp, 'b'), [BEACON])
    check(filecmp.cmp(perf_a, perf_b, shallow=False), 'same seed: rdma-perf byte-identical')

    s7, _, _ = rack(uetemu, root, os.path.join(tmp, 'seed7'), ['simulation.RandomSeed=7'])
    check(len(s7['rdma']['pairs']) == 2, 'seed 7: 2 pairs')
    print('     seed 18760 pairs %s; seed 7 pairs %s (%s)'
          % (pairs(s), pairs(s7), 'same' if pairs(s) == pairs(s7) else 'different'))

    setup_checks(uetemu, root, tmp, s, os.path.join(tmp, 'a', 'setup.pcap'))
    lone_wqe_checks(uetemu, root, tmp)

    return finish('test_rdma')


if __name__ == '__main__':
    sys.exit(main())
