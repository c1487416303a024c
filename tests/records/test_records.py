#!/usr/bin/env python3
"""The NIC records (docs/records.md): uet-transport-stats, nd-stats and uet-monitor of tests/records/records.yaml.

The records on configs/pfc.yaml (ecn-pfc-stats, net-buff-stats, pcie-stats) are test_records_pfc.py's.
Checks, against spec/scala/uet-nic-records.md and simulation-output-files.md: file names; header columns exactly
as the pages list them; 69 / 22 / 27 columns on every row; rows every NDStatsReportInterval in FEP id order and a
final row at the end of the run; total = write + ack + nack; ivl_ columns add up to the cumulative ones, which
never decrease and end equal to summary.json's counters; nd-stats bytes, rates and utilization; one monitor row
per packet sent and received, the cells each kind of row fills, ACK_bitmap_PSNs; FilterOnPdc (sender's and
receiver's id) selecting one connection at both ends; the RTT trigger's budget; byte-identical records across
two runs. The config's lab fixture (topology.links[].impair) adds trims, a drop and late frames, so the records
also show NACKs, retransmissions and selective ACKs.
Usage: test_records.py UETEMU REPO_ROOT
"""
import os
import re
import sys
from decimal import Decimal

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from checks import check, finish, workdir  # noqa: E402
from recfmt import columns, ps_of_sec, same_records, time_utc_of  # noqa: E402
from runner import run  # noqa: E402

SIM = 'records'
RECORDS = 'tests/records/records.yaml'  # the config, from the source root
INTERVAL_PS = 10 * 10**6  # NDStatsReportInterval 10us
ORIGIN_PS = 0            # a message workload's records start at 0 (RecordStartTime unset): first rows at 10 us
OLD_START = 'simulation.RecordStartTime=10us'  # StartTime 4us + ClientStartOffset 6us: the Scala pages' schedule
LINK_GBPS = 400           # the default DataRate
MON = 'nic.TransportProcessingLayers.ScalaUETMonitor.'

UETEMU = os.path.abspath(sys.argv[1])
TS_COLUMNS = columns(UETEMU, 'uet-transport-stats')  # the writer's column table
MON_COLUMNS = columns(UETEMU, 'uet-monitor')
ND_COLUMNS = columns(UETEMU, 'nd-stats')
# The counters (each with an ivl_ twin that adds up to it); the two gauges' ivl_ twins are interval maxima.
TS_COUNTERS = [c for c in TS_COLUMNS[4:46:2]]
TS_GAUGES = ['max_out_of_order_on_flow', 'max_tx_count']
NIC_COUNTER = {  # uet-transport-stats column -> summary.json counter (NIC_COUNTERS names)
    'write_pkts_sent': 'write_pkts_sent', 'write_pkts_rcvd': 'write_pkts_rcvd',
    'ack_pkts_sent': 'ack_pkts_sent', 'ack_pkts_rcvd': 'ack_pkts_rcvd',
    'nack_pkts_sent': 'nack_pkts_sent', 'nack_pkts_rcvd': 'nack_pkts_rcvd',
    'wqes_created': 'wqes_created', 'wqes_completed': 'wqes_completed',
    'num_out_of_order_events_on_nic': 'num_out_of_order_events_on_nic',
    'num_dup_events_on_nic': 'num_dup_events_on_nic', 'probe_sent': 'probe_sent',
    'probe_ack_rcvd': 'probe_ack_rcvd', 'num_rto': 'num_rto', 'num_rtx': 'num_rtx',
    'm_marked_pkts_sent': 'm_marked_pkts_sent', 'm_marked_pkts_rcvd': 'm_marked_pkts_rcvd',
    'num_quick_adapt': 'num_quick_adapt',
}
PORT_TX_FRAMES = 'port_tx_frames'
PORT_RX_FRAMES = 'port_rx_frames'
PORT_TX_BYTES = 'port_tx_frame_bytes'
PORT_RX_BYTES = 'port_rx_frame_bytes'
TX_DROPS = 'drop_tx_ctl_pool_full'
RX_DROPS = 'drop_rx_pool_full'

# Which optional monitor columns each kind of row fills (uet-nic-records.md, "Which columns each kind of row
# fills"); every row fills the always-columns, job_ID reads 0 and ACK_bitmap_PSNs [] where they do not apply.
ALWAYS = {'sim_time_ns', 'component_name', 'FEP_ID', 'packet_UID', 'packet_size', 'local_PDC_ID', 'remote_PDC_ID',
          'direction', 'packet_type', 'DSCP_type', 'job_ID', 'ACK_bitmap_PSNs'}
SENDER = {'NIC_prefetched_bytes', 'PDC_prefetched_bytes', 'bytes_fetched', 'bytes_in_flight', 'congestion_window'}
ACK_SENT = {'entropy_value', 'receiver_congestion_window_penalty', 'M_Flag', 'PSN', 'CACK_PSN', 'SACK_base_PSN'}
FILLS = {
    ('RUD_REQUEST', 'sent'): {'entropy_value', 'AR_bit', 'PSN'} | SENDER,
    ('RUD_REQUEST', 'Rx'): {'entropy_value', 'AR_bit', 'ECN_marked', 'PSN'},
    ('ACK_CC', 'sent'): ACK_SENT,
    ('ACK_CC', 'Rx'): ACK_SENT | {'ECN_marked'} | SENDER,   # + RTT_ns when the ACK gave an RTT sample
    ('CTRL', 'sent'): {'PSN', 'entropy_value'} | SENDER,
    ('CTRL', 'Rx'): {'PSN', 'ECN_marked', 'entropy_value'},
    ('NACK', 'sent'): {'nack_code', 'PSN', 'M_Flag', 'entropy_value'},
    ('NACK', 'Rx'): {'nack_code', 'PSN', 'M_Flag', 'entropy_value'},
}
JOB_ROWS = {('RUD_REQUEST', 'sent'), ('ACK_CC', 'Rx'), ('CTRL', 'sent')}  # elsewhere job_ID reads 0
DSCP_TYPES = {'NO_TRIM', 'TRIMMABLE', 'TRIMMABLE_RTX', 'TRIMMED', 'TRIMMED_LAST_HOP', 'CONTROL', 'UNRECOGNIZED'}
PDC_RE = re.compile(r'^(\d+)\.(\d+)\.(\d+)\.(\d+):(\d+)$')
BITMAP_RE = re.compile(r'^\[(\d+(:\d+)*)?\]$')


def read_csv(path):
    with open(path) as f:
        lines = f.read().split('\n')
    check(lines[-1] == '', '%s ends with a newline' % os.path.basename(path))
    return lines[0].split(','), [line.split(',') for line in lines[1:-1]]



def check_time_utc(rows, name):
    bad = [r for r in rows
           if r[0] != time_utc_of(r[1])]
    check(not bad, '%s: time_utc is 2026-01-01T00:00:00Z + sim_time_sec, ISO 8601 (%d rows)' % (name, len(rows)))


def check_row_times(rows, name, end_ps, n_hosts):
    """Rows at the records' start (0) + k x interval, each time once per NIC in FEP id order (column 3), the
    last at the end of the run."""
    times = sorted({ps_of_sec(r[1]) for r in rows})
    periodic = times[:-1] if times and (times[-1] - ORIGIN_PS) % INTERVAL_PS else times
    check(periodic == [ORIGIN_PS + INTERVAL_PS * (k + 1) for k in range(len(periodic))],
          '%s: rows every NDStatsReportInterval from 0 + the interval, 10 us (%d times)'
          % (name, len(times)))
    check(times and times[-1] == end_ps, '%s: last rows at the end of the run, %s ps' % (name, end_ps))
    order = [(ps_of_sec(r[1]), int(r[3 if name == 'uet-transport-stats' else 7])) for r in rows]
    check(order == [(t, h) for t in times for h in range(n_hosts)], '%s: one row per NIC per time, FEP id order'
          % name)


def check_transport(a, summary):
    header, rows = read_csv(os.path.join(a, SIM + '-uet-transport-stats-0.csv'))
    check(header == TS_COLUMNS and len(header) == 69, 'uet-transport-stats: the 69 columns of the page, in order')
    check(all(len(r) == 69 for r in rows), 'uet-transport-stats: 69 columns on every row (%d rows)' % len(rows))
    hosts = summary['hosts']
    check_row_times(rows, 'uet-transport-stats', summary['sim_time_ps'], len(hosts))
    check_time_utc(rows, 'uet-transport-stats')
    col = {c: i for i, c in enumerate(header)}
    for h, host in enumerate(hosts):
        mine = [r for r in rows if r[3] == str(h)]
        check(all(r[2] == host['name'] for r in mine), 'host%d: component_name %s' % (h, host['name']))
        v = lambda r, c: int(r[col[c]])  # noqa: E731
        for p in ('', 'ivl_'):
            for d in ('sent', 'rcvd'):
                parts = [p + k + '_pkts_' + d for k in ('write', 'ack', 'nack')]
                check(all(v(r, p + 'total_pkts_' + d) == sum(v(r, k) for k in parts) for r in mine),
                      'host%d: %stotal_pkts_%s = write + ack + nack on every row' % (h, p, d))
        for c in TS_COUNTERS:
            if c in TS_GAUGES:
                check(all(v(r, 'ivl_' + c) <= v(r, c) for r in mine) and
                      all(v(x, c) <= v(y, c) for x, y in zip(mine, mine[1:])),
                      'host%d: gauge %s never decreases, ivl_ <= it' % (h, c))
                continue
            cum = [v(r, c) for r in mine]
            check(all(x <= y for x, y in zip(cum, cum[1:])), 'host%d: %s never decreases' % (h, c))
            check([v(r, 'ivl_' + c) for r in mine] == [y - x for x, y in zip([0] + cum, cum)],
                  'host%d: ivl_%s is the difference from the previous row, adding up to %d' % (h, c, cum[-1]))
        counters = host['counters']
        final = mine[-1]
        for c, n in NIC_COUNTER.items():
            check(v(final, c) == counters[n],
                  'host%d: final %s %d = summary.json %d' % (h, c, v(final, c), counters[n]))
        check(v(final, 'total_pkts_sent') == sum(counters[k + '_pkts_sent'] for k in ('write', 'ack', 'nack')),
              'host%d: final total_pkts_sent = summary.json write + ack + nack' % h)
        # Samples: a number everywhere, 0 for an interval without samples; ivl min <= mean <= max.
        ok = all(re.match(r'^\d+(\.\d+)?$', r[i]) for r in mine for i in range(46, 69))
        check(ok, 'host%d: every sample column is a non-negative number' % h)
        for blk in (('ivl_calc_min_rcvr_cwnd_pen', 'ivl_calc_mean_rcvr_cwnd_pen', 'ivl_calc_max_rcvr_cwnd_pen'),
                    ('ivl_calc_min_cwnd_bytes', 'ivl_calc_mean_cwnd_bytes', 'ivl_calc_max_cwnd_bytes'),
                    ('ivl_min_calc_avg_q_delay_usec', 'ivl_avg_calc_avg_q_delay_usec', 'ivl_max_calc_avg_q_delay_usec'),
                    ('ivl_min_calc_rtt_usec', 'ivl_avg_calc_rtt_usec', 'ivl_max_calc_rtt_usec'),
                    ('ivl_calc_min_bytes_in_flight', 'ivl_calc_mean_bytes_in_flight', 'ivl_calc_max_bytes_in_flight')):
            lo, mean, hi = [[Decimal(r[col[c]]) for r in mine] for c in blk]
            check(all(a <= b <= c for a, b, c in zip(lo, mean, hi)), 'host%d: %s <= mean <= max' % (h, blk[0]))
    return rows


def check_nd(a, summary):
    header, rows = read_csv(os.path.join(a, SIM + '-nd-stats-0.csv'))
    check(header == ND_COLUMNS and len(header) == 22, 'nd-stats: the 22 columns of simulation-output-files.md, in order')
    check(all(len(r) == 22 for r in rows), 'nd-stats: 22 columns on every row (%d rows)' % len(rows))
    hosts = summary['hosts']
    check_row_times(rows, 'nd-stats', summary['sim_time_ps'], len(hosts))
    check_time_utc(rows, 'nd-stats')
    for h, host in enumerate(hosts):
        mine = [r for r in rows if r[7] == str(h)]
        check(all(r[2:10] == [host['name'], 'ScalaUETNicNetDevice', 'ScalaUETNic', '0', 'ul', str(h), '3', '4294967295']
                  for r in mine), 'host%d: nd-stats names, ifid 0, ul, node_id, tier 3, subtier' % h)
        c = host['counters']
        last = mine[-1]
        check([int(last[10]), int(last[11])] == [c[PORT_TX_FRAMES], c[PORT_RX_FRAMES]],
              'host%d: final packets tx/rx %s/%s = summary.json port frames' % (h, last[10], last[11]))
        check([Decimal(last[12]) * 10**9, Decimal(last[13]) * 10**9] == [c[PORT_TX_BYTES], c[PORT_RX_BYTES]],
              'host%d: final GB tx/rx = summary.json port bytes / 1e9' % h)
        check([int(last[20]), int(last[21])] == [c[TX_DROPS], c[RX_DROPS]], 'host%d: tx/rx drops' % h)
        prev_t, prev = 0, [Decimal(0), Decimal(0)]
        ok_ivl = ok_rate = True
        for r in mine:
            t = ps_of_sec(r[1])
            tot = [Decimal(r[12]) * 1000, Decimal(r[13]) * 1000]  # in MB
            ivl = [Decimal(r[14]), Decimal(r[15])]
            ok_ivl &= ivl == [tot[0] - prev[0], tot[1] - prev[1]]
            for k in range(2):
                gbps = float(ivl[k]) * 8e6 / ((t - prev_t) / 1e12) / 1e9
                ok_rate &= abs(float(r[16 + k]) - gbps) < 1e-5 and abs(float(r[18 + k]) - gbps / LINK_GBPS * 100) < 1e-5
            prev_t, prev = t, tot
        check(ok_ivl, 'host%d: interval MB are the differences of the totals' % h)
        check(ok_rate, 'host%d: rates are the interval bytes over the interval, utilization in %% of 400 Gb/s' % h)


def conn_of(row):
    """A connection by its sending end (PDC id < 32768), which both ends name from the first packet on."""
    local, remote = row[6], row[7]
    return local if 0 < int(local.split(':')[1]) < 32768 else remote


def check_monitor(a, summary):
    header, rows = read_csv(os.path.join(a, SIM + '-uet-monitor-0.csv'))
    check(header == MON_COLUMNS and len(header) == 27, 'uet-monitor: the 27 columns of the page, in order')
    check(all(len(r) == 27 for r in rows), 'uet-monitor: 27 columns on every row (%d rows)' % len(rows))
    col = {c: i for i, c in enumerate(header)}
    hosts = summary['hosts']
    times = [Decimal(r[0]) for r in rows]
    check(all(x <= y for x, y in zip(times, times[1:])), 'uet-monitor: rows in time order')
    bad_cells, bad_fmt = [], []
    for r in rows:
        h = int(r[2])
        kind = (r[col['packet_type']], 'Rx' if r[col['direction']] == 'Rx' else 'sent')
        fills = FILLS.get(kind)
        if fills is None or r[col['direction']] not in ('Tx', 'ReTx', 'Rx'):
            bad_fmt.append(r)
            continue
        for c in MON_COLUMNS:
            want = c in ALWAYS or c in fills or (c == 'RTT_ns' and kind == ('ACK_CC', 'Rx') and r[col[c]] != '')
            if want != (r[col[c]] != ''):
                bad_cells.append((c, r))
        if kind not in JOB_ROWS and r[col['job_ID']] != '0':
            bad_cells.append(('job_ID', r))
        bm = r[col['ACK_bitmap_PSNs']]
        if not BITMAP_RE.match(bm) or (kind[0] != 'ACK_CC' and bm != '[]'):
            bad_fmt.append(r)
        elif bm != '[]':
            base = int(r[col['SACK_base_PSN']])
            if any((int(p) - base) % 2**32 >= 64 for p in bm[1:-1].split(':')):
                bad_fmt.append(r)
        lm, rm = PDC_RE.match(r[6]), PDC_RE.match(r[7])
        if (not lm or not rm or r[1] != hosts[h]['name'] or r[6].split(':')[0] != hosts[h]['ip']
                or r[col['DSCP_type']] not in DSCP_TYPES):
            bad_fmt.append(r)
        if kind[0] == 'NACK' and r[col['nack_code']] not in ('UET_TRIMMED', 'UET_TRIMMED_LASTHOP'):
            bad_fmt.append(r)
    check(not bad_cells, 'uet-monitor: every row fills exactly the columns of its kind%s'
          % ('' if not bad_cells else ' (first: %s in %s)' % (bad_cells[0][0], ','.join(bad_cells[0][1]))))
    check(not bad_fmt, 'uet-monitor: names, PDC ids, direction, packet_type, DSCP_type, nack_code, ACK_bitmap_PSNs'
          '%s' % ('' if not bad_fmt else ' (first bad: %s)' % ','.join(bad_fmt[0])))
    # The fixture's trims, drop and delays (records.yaml) show in the rows.
    codes = {r[col['nack_code']] for r in rows if r[col['packet_type']] == 'NACK'}
    check(codes == {'UET_TRIMMED', 'UET_TRIMMED_LASTHOP'}, 'uet-monitor: NACK rows of both codes (%s)' % codes)
    retx = [r for r in rows if r[col['direction']] == 'ReTx']
    check(len(retx) > 0, 'uet-monitor: %d ReTx rows' % len(retx))
    # records.yaml: frames 10 and 20 trimmed (one NACK each) and frame 30 dropped (its timer): 3 retransmissions
    check(len(retx) == 3, 'uet-monitor: 3 ReTx rows, for trimmed frames 10, 20 and dropped 30 (%d)' % len(retx))
    sacks = [r for r in rows if r[col['ACK_bitmap_PSNs']] != '[]']
    check(sacks and all(0 < (int(p) - int(r[col['CACK_PSN']])) % 2**32 < 2**31
                        for r in sacks for p in r[col['ACK_bitmap_PSNs']][1:-1].split(':')),
          'uet-monitor: %d ACK rows list SACKed PSNs, each above CACK_PSN' % len(sacks))
    for h, host in enumerate(hosts):
        c = host['counters']
        mine = [r for r in rows if r[2] == str(h)]
        n = lambda t, dirs: sum(1 for r in mine if r[11] == t and r[10] in dirs)  # noqa: E731
        check(n('RUD_REQUEST', ('Tx', 'ReTx')) == c['write_pkts_sent'] > 0,
              'host%d: one Tx/ReTx row per data packet sent (%d)' % (h, c['write_pkts_sent']))
        check(n('RUD_REQUEST', ('Tx', 'ReTx')) - n('RUD_REQUEST', ('Tx',)) == c['num_rtx'],
              'host%d: one ReTx row per retransmission (%d)' % (h, c['num_rtx']))
        check(n('RUD_REQUEST', ('Rx',)) == c['write_pkts_rcvd'], 'host%d: one Rx row per data packet received (%d)'
              % (h, c['write_pkts_rcvd']))
        check(n('ACK_CC', ('Rx',)) == c['ack_pkts_rcvd'] > 0, 'host%d: one Rx row per ACK received (%d)'
              % (h, c['ack_pkts_rcvd']))
        check(n('ACK_CC', ('Tx',)) == c['ack_pkts_sent'],
              'host%d: one Tx row per ACK sent (%d)' % (h, c['ack_pkts_sent']))
        check(n('CTRL', ('Tx',)) == c['probe_sent'], 'host%d: one Tx row per probe sent (%d)' % (h, c['probe_sent']))
        check(n('NACK', ('Tx',)) == c['nack_pkts_sent'] and n('NACK', ('Rx',)) == c['nack_pkts_rcvd'],
              'host%d: one row per NACK sent and received' % h)
    return rows


def check_filter(root, uetemu, tmp, rows, value, expect, what):
    out = os.path.join(tmp, 'f-' + value.replace(':', '-').replace('.', '-'))
    run(uetemu, RECORDS, out, [MON + 'FilterOnPdc=' + value], root=root)
    _, got = read_csv(os.path.join(out, SIM + '-uet-monitor-0.csv'))
    check(got == expect and len(got) > 0,
          'FilterOnPdc=%s: %s (%d rows, expected %d)' % (value, what, len(got), len(expect)))
    check({r[2] for r in got} == {'0', '1'}, 'FilterOnPdc=%s: rows at both ends' % value)


def check_filters(root, uetemu, tmp, rows):
    conns = {}
    for r in rows:
        conns.setdefault(conn_of(r), []).append(r)
    check(len(conns) >= 4, 'uet-monitor: %d connections in the unfiltered run' % len(conns))
    # host0's second message, by the sender's PDC id: selected from its first packet on.
    snd = sorted({r[6] for r in rows if r[2] == '0' and r[11] == 'RUD_REQUEST' and r[10] == 'Tx'},
                 key=lambda p: int(p.split(':')[1]))[1]
    check_filter(root, uetemu, tmp, rows, snd, conns[snd], "that connection's rows, all of them")
    # The same connection by the receiver's PDC id: selected from the first row that names it, and it stays
    # selected at the sender although the sender's rows named the remote end :0 before its first ACK.
    rcv = next(r[7] for r in conns[snd] if r[2] == '0' and not r[7].endswith(':0'))
    first = next(i for i, r in enumerate(conns[snd]) if rcv in (r[6], r[7]))
    check_filter(root, uetemu, tmp, rows, rcv, conns[snd][first:], "that connection's rows from its first naming")


def check_triggers(root, uetemu, tmp, rows):
    # RTT trigger, threshold 0, budget 2, EnableUETMonitor off: the first two connections whose sender
    # measured an RTT, each from that ACK row on.
    out = os.path.join(tmp, 'rtt')
    run(uetemu, RECORDS, out, [MON + 'EnableUETMonitor=false', MON + 'TriggerLoggingOnRttEnable=true',
                               MON + 'TriggerLoggingOnRttThreshold=0', MON + 'TriggeredLoggingPDCLimit=2'], root=root)
    _, got = read_csv(os.path.join(out, SIM + '-uet-monitor-0.csv'))
    picked, start = [], {}
    for i, r in enumerate(rows):
        if r[11] == 'ACK_CC' and r[10] == 'Rx' and r[9] != '' and conn_of(r) not in start and len(picked) < 2:
            picked.append(conn_of(r))
            start[conn_of(r)] = i
    expect = [r for i, r in enumerate(rows) if conn_of(r) in start and i >= start[conn_of(r)]]
    check(got == expect, 'RTT trigger, budget 2: connections %s from their first RTT sample (%d rows)'
          % (picked, len(got)))
    # Receiver-penalty trigger, threshold 0, budget 1: at most one connection, logged from some row to its end.
    out = os.path.join(tmp, 'pen')
    run(uetemu, RECORDS, out, [MON + 'EnableUETMonitor=false', MON + 'TriggerLoggingOnCWindPen=true',
                               MON + 'TriggerLoggingOnCWindPenThreshold=0', MON + 'TriggeredLoggingPDCLimit=1'],
        root=root)
    _, got = read_csv(os.path.join(out, SIM + '-uet-monitor-0.csv'))
    sel = {conn_of(r) for r in got}
    whole = [r for r in rows if conn_of(r) in sel]
    check(len(sel) <= 1 and (not got or whole[len(whole) - len(got):] == got),
          'penalty trigger, budget 1: at most one connection, logged from its trigger on (%d rows)' % len(got))
    # Threshold 0: any penalty meets it, so the first ACK sent (uet-nic-records.md, Triggers: "the penalty an ACK
    # carries") selects its connection, and the budget of 1 is spent on it.
    first = next(i for i, r in enumerate(rows) if r[11] == 'ACK_CC' and r[10] == 'Tx')
    expect = [r for i, r in enumerate(rows) if conn_of(r) == conn_of(rows[first]) and i >= first]
    check(len(sel) == 1 and got == expect,
          'penalty trigger, threshold 0: connection %s from the first ACK sent (%d rows, expected %d)'
          % (conn_of(rows[first]), len(got), len(expect)))


def check_stop(uetemu, root, tmp):
    """SimulationDuration past the model's last event (~153 us): rows every interval up to it, then at it."""
    out = os.path.join(tmp, 'stop')
    stop_ps = 205 * 10**6
    s = run(uetemu, RECORDS, out, ['simulation.SimulationDuration=205us'], root=root).summary
    check(s['sim_time_ps'] == stop_ps, 'SimulationDuration 205us: the run ends at it')
    expect = [ORIGIN_PS + INTERVAL_PS * k for k in range(1, 21)] + [stop_ps]
    for name in ('uet-transport-stats', 'nd-stats'):
        _, rows = read_csv(os.path.join(out, '%s-%s-0.csv' % (SIM, name)))
        times = sorted({ps_of_sec(r[1]) for r in rows})
        check(times == expect, '%s: with SimulationDuration 205us past the last event, rows at 10, 20, ..., 200 us '
              'and 205 us (%d times, last %s ps)' % (name, len(times), times[-1] if times else None))
        check_row_times(rows, name, stop_ps, 2)


def check_old_schedule(uetemu, root, tmp):
    """simulation.RecordStartTime = StartTime + ClientStartOffset (10 us) restores the Scala pages' schedule: the
    rows are byte for byte those written before the start moved to 0 (tests/records/golden, by the previous
    release), first rows at 20 us; a record start past the run's end leaves only the last rows."""
    out = os.path.join(tmp, 'old')
    run(uetemu, RECORDS, out, [OLD_START], root=root)
    for name in ('nd-stats', 'uet-transport-stats', 'ecn-pfc-stats'):
        f = '%s-%s-0.csv' % (SIM, name)
        with open(os.path.join(out, f), 'rb') as got, \
                open(os.path.join(root, 'tests', 'records', 'golden', f), 'rb') as want:
            check(got.read() == want.read(), '%s: RecordStartTime 10us gives the StartTime + ClientStartOffset '
                  'rows byte for byte (tests/records/golden/%s)' % (name, f))
    _, rows = read_csv(os.path.join(out, SIM + '-nd-stats-0.csv'))
    check(min(ps_of_sec(r[1]) for r in rows) == 20 * 10**6, 'nd-stats: RecordStartTime 10us: first rows at 20 us')
    out = os.path.join(tmp, 'late')
    s = run(uetemu, RECORDS, out, ['simulation.RecordStartTime=1ms'], root=root).summary
    _, rows = read_csv(os.path.join(out, SIM + '-nd-stats-0.csv'))
    check(sorted({ps_of_sec(r[1]) for r in rows}) == [s['sim_time_ps']],
          'nd-stats: RecordStartTime 1ms past the end: only the last rows, at the end (%d rows)' % len(rows))


def main():
    uetemu, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    tmp = workdir()
    a, b = os.path.join(tmp, 'a'), os.path.join(tmp, 'b')
    summary = run(uetemu, RECORDS, a, root=root).summary
    run(uetemu, RECORDS, b, root=root)
    names = ['%s-%s-0.csv' % (SIM, r) for r in ('uet-transport-stats', 'nd-stats', 'uet-monitor', 'ecn-pfc-stats')]
    check(sorted(n for n in os.listdir(a) if n.endswith('.csv')) == sorted(names), 'record files: %s' % names)
    check(same_records(a, b), 'every record byte-identical across two runs: %s' % names)
    check_transport(a, summary)
    check_nd(a, summary)
    # ecn-pfc-stats is on by default; without PFC frames (PFCEnableVector all 0, nothing pauses) it has no row.
    # Its rows are checked on configs/pfc.yaml by test_records_pfc.py.
    with open(os.path.join(a, SIM + '-ecn-pfc-stats-0.csv')) as f:
        check(f.read().split('\n')[1:] == [''], 'ecn-pfc-stats: the header only, no PFC frame in this run')
    rows = check_monitor(a, summary)
    check_filters(root, uetemu, tmp, rows)
    check_triggers(root, uetemu, tmp, rows)
    check_stop(uetemu, root, tmp)
    check_old_schedule(uetemu, root, tmp)
    # Turned off: no file.
    out = os.path.join(tmp, 'off')
    run(uetemu, RECORDS, out, ['nic.EnableTransportStats=false', 'simulation.EnableNetDeviceStatLogging=false',
                               MON + 'EnableUETMonitor=false', 'simulation.EnablePFCECNStatsLogging=false'], root=root)
    check(not [n for n in os.listdir(out) if n.endswith('.csv')], 'records turned off: no CSV written')
    return finish('test_records')


if __name__ == '__main__':
    sys.exit(main())
