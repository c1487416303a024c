#!/usr/bin/env python3
"""ecn-pfc-stats, net-buff-stats and pcie-stats (docs/records.md) on configs/pfc.yaml, where host1's 2-lane PCIe
backs up its class-0 receive pool and host1 pauses host0 on class 0 (82 pauses).

Checks, against spec/scala/uet-nic-records.md and simulation-output-files.md: file names; header columns exactly
as the pages list them (pcie-stats: the columns docs/records.md chose); columns on every row; row times (each
record at its own interval, a last set at the end of the run) and row order; ecn-pfc-stats rows only for a class
once the NIC has sent or received a PFC frame for it, its counters against summary.json and the capture, paused
time against the capture's pause windows; net-buff-stats pools, sizes, occupancy against the enqueue/dequeue
counts, interval columns adding up; pcie-stats payload against summary.json and the messages, its transfers and
bytes from the PCIe worked example (8 x (512 + 34) B a packet); the switches (no file when off, net-buff-stats
only with both of its switches); byte-identical records across two runs.
Usage: test_records_pfc.py UETEMU REPO_ROOT
"""
import os
import sys
from decimal import Decimal

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from checks import check, finish, workdir  # noqa: E402
from recfmt import (columns, PS_PER_US, ps_of_sec, ps_of_us, quot, read_rows as read_csv, same_records,  # noqa: E402
                    schedule, time_utc_of)
from runner import run  # noqa: E402

SIM = 'pfc'
MSG_BYTES = 8 * 4 * 2**20  # configs/pfc.yaml: 8 messages of 4 MiB from host0 to host1
WQE_BYTES = 92             # NIC_PCIE_WQE: the doorbell, 64 B + 28 B of UDP and IPv4 headers

# The writers' column tables; the number of columns each page (or docs/records.md) gives is checked on them.
UETEMU = os.path.abspath(sys.argv[1])
EP_COLUMNS = columns(UETEMU, 'ecn-pfc-stats')  # simulation-output-files.md, ECN/PFC Statistics: 24
NB_COLUMNS = columns(UETEMU, 'net-buff-stats')  # uet-nic-records.md, net-buff-stats: 21
PCIE_COLUMNS = columns(UETEMU, 'pcie-stats')  # docs/records.md, pcie-stats (the page gives none): 17
# The pools at the defaults (uet-nic-records.md, net-buff-stats table): receive pools first, then transmit pools.
POOLS = [('RX_TC0_BUFFER', 0, 3600000), ('RX_TC1_BUFFER', 1, 400000), ('TX_TC0_BUFFER', 0, 230400),
         ('TX_TC1_BUFFER', 1, 25600)]
XOFF_BYTES = 2880000  # 0.8 x 3,600,000: class 0's Xoff, which host1's pool reached
ND_ON = ['simulation.EnablePCIeStatsLogging=true', 'nic.EnableBufferStats=true',
         'simulation.EnableNetworkBufferStatsReporting=true']


def check_times(rows, name):
    bad = [r for r in rows if r['time_utc'] != time_utc_of(r['sim_time_sec'])]
    check(not bad, '%s: time_utc is 2026-01-01T00:00:00Z + sim_time_sec, ISO 8601' % name)


def pfc_frames(out):
    """PFC frames of the capture: (time in ps, from host1, pause (quanta > 0) or XON)."""
    sys.path.insert(0, os.path.join(ROOT, 'tests/scenario'))
    import uetpcap  # noqa: E402
    host1 = bytes([2, 0, 0, 0, 0, 2])
    frames = []
    for t, f in uetpcap.read_pcap(os.path.join(out, SIM + '.pcap')):
        d = uetpcap.decode(f)
        if d['kind'] == 'pfc':
            frames.append((t * 1000, d['src_mac'] == host1, d['quanta'][0] != 0))
    return frames


PAUSE_PS = 65535 * 512 * 1000 // 400 + 100 * 1000  # a pause at QuantaValue 65,535: 83.8848 us at 400 Gb/s + Delay
PFC_ARRIVE_PS = 1280 + 100 * 1000                   # a 64 B PFC frame's serialization + Delay: capture to arrival


def pause_stretches(frames):
    """The times host0 is paused, from host1's PFC frames in the capture: from a pause's arrival while not paused to
    an XON's arrival or the end of the last pause's time, whichever comes first."""
    out, start, until = [], None, None
    for t, _, pause in frames:
        a = t + PFC_ARRIVE_PS
        if start is not None and a >= until:
            out.append((start, until))
            start = None
        if pause:
            start = a if start is None else start
            until = a + PAUSE_PS
        elif start is not None:
            out.append((start, a))
            start = None
    return out + ([(start, until)] if start is not None else [])


def longest_pause(frames, t0, t1):
    """The longest single pause within (t0, t1], the part of it in the interval."""
    return max([0] + [min(e, t1) - max(s, t0) for s, e in pause_stretches(frames) if s < t1 and e > t0])


# simulation.RecordStartTime: the NICs' periodic rows start one interval after it (0 by default for a message
# workload; docs/records.md)
ORIGIN = ['simulation.RecordStartTime=5us']
ORIGIN_PS = 5 * PS_PER_US


def check_ecn_pfc(out, summary, interval_ps, origin_ps=ORIGIN_PS):
    rows = read_csv(os.path.join(out, SIM + '-ecn-pfc-stats-0.csv'), EP_COLUMNS, 'ecn-pfc-stats')
    check_times(rows, 'ecn-pfc-stats')
    end = summary['sim_time_ps']
    times = schedule(interval_ps, end, origin_ps)
    hosts = summary['hosts']
    check(all(r['job_id'] == SIM and r['component_name'] == hosts[int(r['node_id'])]['name'] and
              [r['component_type'], r['ifid'], r['uldl'], r['tier'], r['subtier']] ==
              ['ScalaUETNic', '0', 'ul', '3', '4294967295'] for r in rows),
          'ecn-pfc-stats: job_id, node_id, component_name, ScalaUETNic, ifid 0, ul, tier 3, subtier')
    check({r['priority'] for r in rows} == {'0'}, 'ecn-pfc-stats: rows for class 0 only (no PFC on class 1)')
    order = [(ps_of_sec(r['sim_time_sec']), int(r['node_id']), int(r['priority'])) for r in rows]
    check(order == sorted(order), 'ecn-pfc-stats: rows in time, FEP id, class order')
    frames = pfc_frames(out)
    pauses = sum(1 for _, _, p in frames if p)
    xons = len(frames) - pauses
    check(frames and all(f[1] for f in frames), 'capture: %d PFC frames, all from host1' % len(frames))
    first_pfc = frames[0][0]
    sent = hosts[1]['counters']['pfc_pauses_sent']
    check(sent == pauses == 82, 'capture: %d pauses, summary.json host1 sent %d' % (pauses, sent))
    for h in (0, 1):
        mine = [r for r in rows if r['node_id'] == str(h)]
        t = [ps_of_sec(r['sim_time_sec']) for r in mine]
        first = next(x for x in times if x >= first_pfc)
        # a row appears once a counter is non-zero and every interval after: host1 counts its first pause when
        # it queues it, host0 when it arrives 101.28 ns after the capture saw it start
        check(t == [x for x in times if x >= first] and t[0] - interval_ps < first_pfc,
              'host%d: rows from the first row time after the first PFC frame (%.3f us), every interval on (%d)'
              % (h, first_pfc / 1e6, len(t)))
        v = lambda r, c: int(r[c])  # noqa: E731
        cnt = ['pfcxoff_tx', 'pfcxoff_rx', 'pfcxon_tx', 'pfcxon_rx']
        check(all(all(v(x, c) <= v(y, c) for c in cnt) for x, y in zip(mine, mine[1:])),
              'host%d: the PFC counters never decrease' % h)
        last = mine[-1]
        want = [pauses, 0, xons, 0] if h == 1 else [0, pauses, 0, xons]
        check([v(last, c) for c in cnt] == want, 'host%d: final pfcxoff_tx/rx, pfcxon_tx/rx %s = %s'
              % (h, [v(last, c) for c in cnt], want))
        paused = [ps_of_us(r['pfc_time_paused_usec']) for r in mine]
        ivl = [ps_of_us(r['interval_total_time_xoff_usec']) for r in mine]
        check(all(x <= y for x, y in zip(paused, paused[1:])), 'host%d: pfc_time_paused_usec never decreases' % h)
        check(ivl == [y - x for x, y in zip([0] + paused, paused)],
              'host%d: interval_total_time_xoff_usec is the difference from the previous row, adding up to %s us'
              % (h, last['pfc_time_paused_usec']))
        longest = [longest_pause(frames if h == 0 else [], tp, tt) for tp, tt in zip([t[0] - interval_ps] + t, t)]
        got = [ps_of_us(r['interval_max_time_xoff_usec']) for r in mine]
        check(all(abs(g - w) <= 1000 and g <= i for g, w, i in zip(got, longest, ivl)),
              'host%d: interval_max_time_xoff_usec is the longest single pause in the interval (within the '
              'capture\'s 1 ns), at most the interval total' % h)
        if h == 0:
            check(sum(g < i for g, i in zip(got, ivl)) >= 2, 'host0: %d rows whose interval holds more than one '
                  'pause: longest < total' % sum(g < i for g, i in zip(got, ivl)))
        ok = all(Decimal(r['percent_xon']) == quot(100 * (tt - tp - i), tt - tp)
                 for r, tt, tp, i in zip(mine, t, [t[0] - interval_ps] + t, ivl))
        check(ok, 'host%d: percent_xon = 100 x (1 - paused in the interval / interval)' % h)
        check(all(r[c] == '0.000000' for r in mine for c in ('interval_total_time_xoff_egr_occ_usec',
                  'interval_max_time_xoff_egr_occ_usec', 'total_xoff_time_egr_occ_usec', 'xoff_egr_occ_ratio')),
              'host%d: the egress-occupancy columns read 0' % h)
        ce = hosts[h]['counters']['ecn_ce_rcvd']
        check(v(last, 'pkts_ecn_marked') == ce, 'host%d: pkts_ecn_marked = summary.json ECN CE received (%d)'
              % (h, ce))
        if h == 1:
            check(paused[-1] == 0, 'host1: never paused (it pauses host0)')
            continue
        # host0 is paused from each pause that finds it running to the next XON; both frames reach it 101.28 ns
        # after the capture sees them start, so the windows are the capture's (whole ns: 1 ns per window)
        windows, start = [], None
        for tf, _, p in frames:
            if p and start is None:
                start = tf
            elif not p and start is not None:
                windows.append(tf - start)
                start = None
        cap = sum(windows) + (end - start if start is not None else 0)
        check(paused[-1] > 0 and abs(paused[-1] - cap) <= 1000 * (len(windows) + 1),
              'host0: pfc_time_paused_usec %s = the capture\'s %d pause windows, %.3f us'
              % (last['pfc_time_paused_usec'], len(windows), cap / 1e6))
    return rows


def check_net_buff(out, summary, interval_ps, name, origin_ps=ORIGIN_PS):
    rows = read_csv(os.path.join(out, SIM + '-net-buff-stats-0.csv'), NB_COLUMNS, name)
    check_times(rows, name)
    end = summary['sim_time_ps']
    hosts = summary['hosts']
    times = schedule(interval_ps, end, origin_ps)
    want = [(t, h, pool) for t in times for h in range(len(hosts)) for pool in POOLS]
    got = [(ps_of_sec(r['sim_time_sec']), int(r['node_id']), (r['buffer_id'], int(r['tc']),
            int(r['buffer_max_size_B']))) for r in rows]
    check(got == want, '%s: 4 pools per NIC (sizes 3,600,000 / 400,000 / 230,400 / 25,600) at every interval, '
          'FEP id order, receive pools first (%d times)' % (name, len(times)))
    check(all(r['job_id'] == SIM and r['component_name'] == hosts[int(r['node_id'])]['name'] for r in rows),
          '%s: job_id, component_name' % name)
    v = lambda r, c: int(r[c])  # noqa: E731
    ok_occ = ok_held = ok_sum = ok_ivl = ok_rate = True
    for h in range(len(hosts)):
        for pool, _, size in POOLS:
            mine = [r for r in rows if r['node_id'] == str(h) and r['buffer_id'] == pool]
            prev_t, prev = 0, {c: 0 for c in ('num_enq', 'num_deq')}
            enq_b = deq_b = max_seen = 0
            for r in mine:
                t = ps_of_sec(r['sim_time_sec'])
                occ = v(r, 'occupancy_B')
                ok_occ &= occ <= v(r, 'interval_max_occupancy_B') <= v(r, 'max_occupancy_B') <= size
                ok_occ &= v(r, 'max_occupancy_B') >= max_seen
                max_seen = v(r, 'max_occupancy_B')
                ok_held &= v(r, 'num_enq') >= v(r, 'num_deq') and (occ > 0) == (v(r, 'num_enq') > v(r, 'num_deq'))
                ok_ivl &= all(v(r, 'interval_' + c) == v(r, c) - prev[c] for c in prev)
                enq_b += v(r, 'interval_enq_B')
                deq_b += v(r, 'interval_deq_B')
                ok_sum &= enq_b - deq_b == occ
                ok_rate &= (Decimal(r['enq_Gbps']) == quot(8000 * v(r, 'interval_enq_B'), t - prev_t) and
                            Decimal(r['deq_Gbps']) == quot(8000 * v(r, 'interval_deq_B'), t - prev_t) and
                            Decimal(r['percent_occupancy']) == quot(100 * occ, size) and r['overflow'] == '0')
                prev_t, prev = t, {c: v(r, c) for c in prev}
    check(ok_occ, '%s: occupancy <= interval max <= max <= size, max never decreases' % name)
    check(ok_held, '%s: occupancy > 0 exactly while num_enq > num_deq' % name)
    check(ok_ivl, '%s: interval_num_enq/deq are the differences, adding up to num_enq/deq' % name)
    check(ok_sum, '%s: the interval bytes enqueued less dequeued add up to the occupancy' % name)
    check(ok_rate, '%s: enq/deq Gbps over the interval, percent_occupancy, no overflow' % name)
    rx0 = [r for r in rows if r['node_id'] == '1' and r['buffer_id'] == 'RX_TC0_BUFFER']
    check(v(rx0[-1], 'max_occupancy_B') >= XOFF_BYTES and v(rx0[-1], 'num_enq') == 8192 and
          v(rx0[-1], 'occupancy_B') == 0,
          "host1's RX_TC0_BUFFER: max occupancy %s >= Xoff 2,880,000, 8192 data packets, empty at the end"
          % rx0[-1]['max_occupancy_B'])
    tx0 = [r for r in rows if r['node_id'] == '0' and r['buffer_id'] == 'TX_TC0_BUFFER']
    check(v(tx0[-1], 'num_enq') == v(tx0[-1], 'num_deq') == 8192 and v(tx0[-1], 'max_occupancy_B') == 54 * 4202,
          "host0's TX_TC0_BUFFER: 8192 data packets, at most 54 x 4,202 B reserved")
    return rows


def check_pcie(out, summary, interval_ps, nic_link='63.040', nic_lanes='2', name='pcie-stats',
               origin_ps=ORIGIN_PS):
    rows = read_csv(os.path.join(out, summary['simulation'] + '-pcie-stats-0.csv'), PCIE_COLUMNS, name)
    check_times(rows, name)
    end = summary['sim_time_ps']
    hosts = summary['hosts']
    times = schedule(interval_ps, end, origin_ps)
    got = [(ps_of_sec(r['sim_time_sec']), int(r['node_id']), r['side']) for r in rows]
    check(got == [(t, h, s) for t in times for h in range(len(hosts)) for s in ('NIC', 'Host')],
          '%s: two rows per NIC (NIC side, Host side) every interval, FEP id order (%d times)' % (name, len(times)))
    check(all(r['component_name'] == hosts[int(r['node_id'])]['name'] for r in rows), '%s: component_name' % name)
    check(all([r['lane_count'], r['lane_Gbps'], r['link_Gbps']] ==
              ([nic_lanes, '31.520', nic_link] if r['side'] == 'NIC' else ['16', '31.520', '504.320']) for r in rows),
          '%s: NIC side %s lanes, link_Gbps %s; Host side 16 lanes, 504.320' % (name, nic_lanes, nic_link))
    v = lambda r, c: int(r[c])  # noqa: E731
    ok_ivl = ok_rate = True
    for h in range(len(hosts)):
        for side in ('NIC', 'Host'):
            mine = [r for r in rows if r['node_id'] == str(h) and r['side'] == side]
            prev_t, prev = 0, {'tlps': 0, 'bytes': 0, 'payload_bytes': 0}
            for r in mine:
                t = ps_of_sec(r['sim_time_sec'])
                ok_ivl &= all(v(r, 'interval_' + c) == v(r, 'total_' + c) - prev[c] for c in prev)
                ib = v(r, 'interval_bytes')
                ok_rate &= (Decimal(r['tx_rate_Gbps']) == quot(8000 * ib, t - prev_t) and
                            Decimal(r['payload_rate_Gbps']) == quot(8000 * v(r, 'interval_payload_bytes'), t - prev_t))
                # percent_util counts only link time already spent in the interval (backlog drains included), not
                # the interval's own transfers' time, which may still lie ahead (docs/records.md): only <= 100
                pu = Decimal(r['percent_util'])
                ok_rate &= Decimal(0) <= pu <= Decimal(100)
                prev_t, prev = t, {c: v(r, 'total_' + c) for c in prev}
    check(ok_ivl, '%s: interval tlps/bytes/payload are the differences, adding up to the totals' % name)
    check(ok_rate, '%s: rates over the interval; percent_util = link time spent in the interval, <= 100'
          % name)
    return rows


def main():
    global ROOT
    uetemu, ROOT = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    config = os.path.join(ROOT, 'configs/pfc.yaml')
    tmp = workdir()
    check([len(EP_COLUMNS), len(NB_COLUMNS), len(PCIE_COLUMNS)] == [24, 21, 17],
          'the column tables: ecn-pfc-stats 24, net-buff-stats 21, pcie-stats 17 columns')

    # 1. ecn-pfc-stats (on by default) every 10 us, so rows fall before the first pause too; pcie-stats on; and
    # net-buff-stats every 25 us, its own interval.
    ivl, nb_ivl = 10 * PS_PER_US, 25 * PS_PER_US
    sets = ['simulation.NDStatsReportInterval=10us', 'simulation.NetworkBufferStatsReportingInterval=25us'] + ND_ON + \
        ORIGIN
    a, b = os.path.join(tmp, 'a'), os.path.join(tmp, 'b')
    summary = run(uetemu, config, a, sets).summary
    run(uetemu, config, b, sets)
    names = ['%s-%s-0.csv' % (SIM, r) for r in ('uet-transport-stats', 'nd-stats', 'ecn-pfc-stats', 'pcie-stats',
                                                 'net-buff-stats')]
    check(sorted(n for n in os.listdir(a) if n.endswith('.csv')) == sorted(names), 'record files: %s' % names)
    check(same_records(a, b), 'every record byte-identical across two runs: %s' % names)
    check(summary['messages']['completed'] == 8, 'all 8 messages complete')
    check_ecn_pfc(a, summary, ivl)
    check_net_buff(a, summary, nb_ivl, 'net-buff-stats (25 us)')
    pcie = check_pcie(a, summary, ivl)
    last = {(r['node_id'], r['side']): r for r in pcie}
    rx = summary['hosts'][1]['rx_payload_bytes']
    check(int(last[('1', 'NIC')]['total_payload_bytes']) == rx == MSG_BYTES,
          "host1's NIC side carried the payload it received, %d B (summary.json rx_payload_bytes)" % rx)
    wqes = summary['hosts'][0]['counters']['wqes_created']
    check(int(last[('0', 'Host')]['total_payload_bytes']) == MSG_BYTES + WQE_BYTES * wqes and wqes == 8,
          "host0's Host side carried the payload it sent, 8 x 4 MiB = %d B, and 8 work requests of 64 B"
          % MSG_BYTES)
    check(int(last[('0', 'NIC')]['total_payload_bytes']) == 0 and int(last[('0', 'NIC')]['total_tlps']) == 8192,
          "host0's NIC side carried 8192 read requests and no payload")
    # uet-nic-buffers-and-pfc.md, "Worked example: PCIe and network rates" and the default configuration's:
    # a 4,096 B packet moves as 4,096 / 512 = 8 transfers of 512 B + 34 B overhead; its fetch is one 64 B read
    # request + 34 B; each doorbell is a 92 B write + 34 B (docs/records.md, pcie-stats).
    pkts, per_pkt = MSG_BYTES // 4096, 4096 // 512
    tot = lambda h, side: (int(last[(h, side)]['total_tlps']), int(last[(h, side)]['total_bytes']))  # noqa: E731
    want = {('1', 'NIC'): (pkts * per_pkt, pkts * per_pkt * (512 + 34)),  # writes: 65,536 TLPs, 35,782,656 B
            ('0', 'NIC'): (pkts, pkts * (64 + 34)),                       # read requests: 8,192, 802,816 B
            ('0', 'Host'): (pkts * per_pkt + wqes, pkts * per_pkt * (512 + 34) + wqes * (WQE_BYTES + 34)),
            ('1', 'Host'): (0, 0)}                                        # host1 sends no data
    for (h, side), (tlps, nbytes) in sorted(want.items()):
        check(tot(h, side) == (tlps, nbytes), "host%s's %s side: total_tlps %d, total_bytes %d (got %s)"
              % (h, side, tlps, nbytes, tot(h, side)))
    nd = [line.split(',')[1] for line in open(os.path.join(a, SIM + '-nd-stats-0.csv')).read().split('\n')[1:-1]]
    check(sorted({ps_of_sec(t) for t in nd}) == schedule(ivl, summary['sim_time_ps'], ORIGIN_PS),
          'nd-stats keeps NDStatsReportInterval beside the net-buff-stats interval')

    # 2. The two switches that turn net-buff-stats on, at the default intervals (1 ms), from a message workload's
    # default start, 0: rows at 1 ms, 2 ms, ... up to the run's end, and at the end.
    out = os.path.join(tmp, 'nb')
    nb = run(uetemu, config, out, ['nic.EnableBufferStats=true', 'simulation.EnableNetworkBufferStatsReporting=true'])
    check_net_buff(out, nb.summary, 10**9, 'net-buff-stats (1 ms)', 0)
    check(not os.path.exists(os.path.join(out, SIM + '-pcie-stats-0.csv')), 'pcie-stats is off by default')

    # 3. Switches off: no file. net-buff-stats needs both of its switches.
    for what, s in (('EnableBufferStats only', ['nic.EnableBufferStats=true']),
                    ('EnableNetworkBufferStatsReporting only', ['simulation.EnableNetworkBufferStatsReporting=true'])):
        out = os.path.join(tmp, 'one-' + s[0].split('.')[1].split('=')[0])
        run(uetemu, config, out, s)
        check(not os.path.exists(os.path.join(out, SIM + '-net-buff-stats-0.csv')),
              'net-buff-stats with %s: no file' % what)
    out = os.path.join(tmp, 'off')
    run(uetemu, config, out, ['simulation.EnablePFCECNStatsLogging=false'])
    check(not os.path.exists(os.path.join(out, SIM + '-ecn-pfc-stats-0.csv')),
          'EnablePFCECNStatsLogging false: no ecn-pfc-stats file')

    # 4. pcie-stats at the default lanes: 16 x 31.52 Gb/s = 504.320 on both sides.
    out = os.path.join(tmp, 'lanes')
    s2 = run(uetemu, 'tests/records/records.yaml', out, ['simulation.EnablePCIeStatsLogging=true'], root=ROOT).summary
    check_pcie(out, s2, 10 * PS_PER_US, nic_link='504.320', nic_lanes='16', name='pcie-stats (default lanes)',
               origin_ps=0)  # a message workload: records.yaml's StartTime and ClientStartOffset do not move it

    return finish('test_records_pfc')


if __name__ == '__main__':
    sys.exit(main())
