#!/usr/bin/env python3
"""configs/rdma-rack.yaml: the Scala RDMA application alone on a rack of 4 hosts (spec seeds/003).

Checks: 0.5 / 0.5 on 4 hosts gives 2 Initiators, 2 Responders, 2 pairs; the rdma-perf record has the page's 13
columns and rows, every latency above 0 and every row before the stop time; the same seed gives a byte-identical
rdma-perf, another seed (7) may give other pairs (printed); with MaxPendingWQEs 1 and NumConnections 1 each WQE
takes at least the lone-WQE time computed below from the page's worked example. The beacon record
(BeaconReportInterval 20us): a row every 20 us up to the stop time, rx_client equal to the rdma-perf rows completed
by then, tx_client ahead of it by the WQEs outstanding (2 pairs x MaxPendingWQEs 10) at the end.
"""
import csv
import filecmp
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from checks import check, failures  # noqa: E402

HEADER = ['job_id', 'time_utc', 'sim_time_sec', 'metric_name', 'perf_metric_usec', 'transfer_size', 'start_time_sec',
          'application_name', 'node_id', 'rdma_verb', 'wqe_id', 'num_wqe_sent', 'num_wqe_complete']
BEACON_HEADER = ['job_id', 'time_utc', 'sim_time_sec', 'interval_duration_sec', 'tx_client', 'rx_client', 'tx_server',
                 'rx_server', 'rx_bytes_reader', 'rx_bytes_writer', 'goodput_reader_MB_per_sec',
                 'goodput_writer_MB_per_sec']  # simulation-output-files.md, Beacon
BEACON = 'simulation.BeaconReportInterval=20us'
STOP_S = 260e-6  # the config's stop time: 10 + 10 + 10 + 20 + 200 + 10 us


def run(uetemu, root, out, sets=()):
    cmd = [uetemu, 'run', os.path.join(root, 'configs/rdma-rack.yaml'), '--out', out, '--quiet']
    for s in sets:
        cmd += ['--set', s]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    perf = os.path.join(out, 'rdma-rack-rdma-perf-0.csv')
    with open(perf, newline='') as f:
        rows = list(csv.reader(f))
    return json.load(open(os.path.join(out, 'summary.json'))), rows, perf


def pairs(s):
    return sorted((p['initiator'], p['responder']) for p in s['rdma']['pairs'])


def lone_wqe_ns():
    """Doorbell to completion of one WQE alone on its connection, lower bound (spec seeds/003, WQEs and the worked
    example on the Scala RoCE NIC; the NIC's PCIe defaults: 16 lanes of 31.52 Gb/s)."""
    pcie = 16 * 31.52e9
    doorbell = (64 + 28) * 8 / pcie * 1e9             # 92 B over PCIe
    start = 15.0                                       # the transmit process starts 15 ns after the doorbell
    fetch = (64 + 34) * 8 / pcie * 1e9 + 4368 * 8 / pcie * 1e9  # read request, then 4 KiB in 8 TLPs (+8 x 34 B)
    wire = 253596 * 8 / 400e9 * 1e9                    # 62 packets, 250,000 + 62 x 58 B at 400 Gb/s: 5.07 us
    prop = 2 * 100.0                                   # host -> tor0 -> host, 100 ns per link (nic Delay)
    ack = prop + 2 * 64 * 8 / 400e9 * 1e9              # the last ACK back: propagation and two 64 B hops
    return doorbell + start + fetch + wire + prop + ack


def main():
    uetemu, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    tmp = tempfile.mkdtemp(prefix='uetemu-rdma-')

    s, rows, perf_a = run(uetemu, root, os.path.join(tmp, 'a'), [BEACON])
    rd = s['rdma']
    check(rd['initiators'] == 2 and rd['responders'] == 2 and len(rd['pairs']) == 2,
          '0.5 / 0.5 on 4 hosts: 2 Initiators, 2 Responders, 2 pairs (%s)' % pairs(s))
    hosts = [h for p in pairs(s) for h in p]
    check(len(set(hosts)) == 4, 'each host runs one component')
    check(rows[0] == HEADER, 'rdma-perf header is the page\'s 13 columns')
    body = rows[1:]
    check(len(body) > 0, 'rdma-perf has rows (%d)' % len(body))
    check(all(len(r) == len(HEADER) for r in body), 'every row has %d columns' % len(HEADER))
    check(all(float(r[4]) > 0 for r in body), 'every perf_metric_usec > 0')
    check(all(float(r[2]) < STOP_S for r in body), 'every completion before the stop time (260 us)')
    check(all(r[3] == 'RDMA-WRITE' and r[5] == '250000' and r[9] == 'RDMA_VERB_POST_WRITE' for r in body),
          'metric_name RDMA-WRITE, transfer_size 250000, rdma_verb RDMA_VERB_POST_WRITE')
    check(sum(p['wqes_completed'] for p in rd['pairs']) == len(body), 'summary wqes_completed = rdma-perf rows')
    print('     pairs %s, WQE latency p50 %.3f us, p99 %.3f us, max %.3f us'
          % (pairs(s), rd['wqe_latency_us']['p50'], rd['wqe_latency_us']['p99'], rd['wqe_latency_us']['max']))

    with open(os.path.join(tmp, 'a', 'rdma-rack-beacon-0.csv'), newline='') as f:
        bea = list(csv.reader(f))
    check(bea[0] == BEACON_HEADER, 'beacon header is the page\'s 12 columns')
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

    _, _, perf_b = run(uetemu, root, os.path.join(tmp, 'b'), [BEACON])
    check(filecmp.cmp(perf_a, perf_b, shallow=False), 'same seed: rdma-perf byte-identical')

    s7, _, _ = run(uetemu, root, os.path.join(tmp, 'seed7'), ['simulation.RandomSeed=7'])
    check(len(s7['rdma']['pairs']) == 2, 'seed 7: 2 pairs')
    print('     seed 18760 pairs %s; seed 7 pairs %s (%s)'
          % (pairs(s), pairs(s7), 'same' if pairs(s) == pairs(s7) else 'different'))

    s1, rows1, _ = run(uetemu, root, os.path.join(tmp, 'lone'),
                       ['applications.0.MaxPendingWQEs=1', 'applications.0.NumConnections=1'])
    lone = lone_wqe_ns() / 1e3
    lat = [float(r[4]) for r in rows1[1:]]
    check(len(lat) > 0 and min(lat) >= lone,
          'MaxPendingWQEs 1: every WQE >= the lone-WQE time %.3f us (measured min %.6f us, max %.6f us)'
          % (lone, min(lat) if lat else 0, max(lat) if lat else 0))
    check(all(r[11] == r[10] == r[12] for r in rows1[1:]), 'MaxPendingWQEs 1: wqe_id = num_wqe_sent = num_wqe_complete')

    if failures:
        print('%d check(s) failed' % len(failures))
        sys.exit(1)


if __name__ == '__main__':
    main()
