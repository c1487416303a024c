#!/usr/bin/env python3
"""The Scala RDMA application's beacon record on configs/rdma-rack.yaml (seed 003, Beacon; docs/records.md): 2 pairs,
one connection each, WQEs from the end of the client start window (30 us) to the stop time (260 us).
  BeaconReportInterval 10 us: the row at 30 us, the WQEs' start, counts the 2 x 10 WQEs posted at 30 us
  (tx_client 20): a row covers everything up to its time.
  BeaconReportInterval 1 ms (the default), past the 260 us stop: one row at the stop time, covering 260 us.
  BeaconReportInterval 25 us: rows at 25, 50, ..., 250 us, and a last one at the 260 us stop covering 10 us.
"""
import csv
import os
import sys
from decimal import Decimal

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from checks import check, finish  # noqa: E402
from recfmt import columns  # noqa: E402
from runner import run  # noqa: E402

CFG = 'configs/rdma-rack.yaml'
US = Decimal('0.000001')


def beacon(uetemu, root, interval):
    """Run with BeaconReportInterval @p interval (None: the default): summary.json and the beacon rows as
    (sim_time_sec, interval_duration_sec, tx_client, rx_client)."""
    sets = ['simulation.BeaconReportInterval=%s' % interval] if interval else []
    r = run(uetemu, CFG, sets=sets, root=root)
    with open(os.path.join(r.out, 'rdma-rack-beacon-0.csv'), newline='') as f:
        rows = list(csv.reader(f))
    table = columns(uetemu, 'beacon')
    check(rows[0] == table and len(table) == 12, 'beacon: the header is its column table, 12 columns')
    check(all(len(x) == len(table) for x in rows[1:]), 'beacon: every row has its %d columns' % len(table))
    rows = rows[1:]
    return r.summary, [(Decimal(x[2]), Decimal(x[3]), int(x[4]), int(x[5])) for x in rows]


def completed(s):
    return sum(p['wqes_completed'] for p in s['rdma']['pairs'])


def main():
    uetemu, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    _, rows = beacon(uetemu, root, '10us')
    at30 = [r for r in rows if r[0] == 30 * US]
    check(len(at30) == 1 and at30[0][2:] == (20, 0), 'BeaconReportInterval 10us: the row at 30 us counts the '
          '2 x 10 WQEs posted at 30 us (tx_client, rx_client %s)' % (at30[0][2:] if at30 else None,))

    s, rows = beacon(uetemu, root, None)
    check([r[:2] for r in rows] == [(260 * US, 260 * US)], 'default 1 ms interval, stop at 260 us: one row, at the '
          'stop time, covering 260 us (%s)' % [(str(a), str(b)) for a, b, _, _ in rows])
    check(rows and rows[-1][3] == completed(s) and rows[-1][2] - rows[-1][3] == 20,
          'the stop row: rx_client = WQEs completed (%d), 20 outstanding' % completed(s))

    s, rows = beacon(uetemu, root, '25us')
    want = [(k * 25 * US, 25 * US) for k in range(1, 11)] + [(260 * US, 10 * US)]
    check([r[:2] for r in rows] == want, 'BeaconReportInterval 25us: rows at 25 .. 250 us, then at the 260 us stop '
          'covering 10 us (%d rows)' % len(rows))
    check(rows and rows[-1][3] == completed(s), 'the last row: rx_client = WQEs completed (%d)' % completed(s))
    return finish('test_records_rdma')


if __name__ == '__main__':
    sys.exit(main())
