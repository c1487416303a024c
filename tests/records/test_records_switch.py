#!/usr/bin/env python3
"""The switches' records (docs/records.md, Switch records) on configs/incast.yaml (its trimming and PFC variants)
and configs/leaf-spine.yaml.

Checks, against spec/scala/simulation-output-files.md and switch-packet-handling.md: header columns exactly as the
pages list them (trimming-stats: the columns docs/records.md chose); columns on every row; switch rows after the
NICs' rows of each time in nd-stats and ecn-pfc-stats, every port (and class) every interval; identity columns
(nd_name, Switch, ifid, uldl, node_id, tier, subtier); final nd-stats totals against summary.json's link frames and
bytes (wire bytes = frame bytes + 4 B FCS per frame) and drops; ECN marks and PFC frames against summary.json's
links; trimming-stats trims against summary.json's trims of tor0's port to host0; the buffer record's series,
sample counts and percentages; the per-port buffer record (ReportPerPortBufferStats) against its limits and the
aggregate record; load-balancing members against the ports' nd-stats and their interval columns
adding up; records off when their switch is off; byte-identical records across two runs.
Usage: test_records_switch.py UETEMU REPO_ROOT
"""
import math
import os
import sys
import tempfile
from decimal import Decimal

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from checks import check, finish  # noqa: E402
from recfmt import (columns, ps_of_sec, quot, read_rows as read_csv, same_records,  # noqa: E402
                    schedule)
from runner import run  # noqa: E402

FCS = 4
ETH_HDR = 14          # a switch charges a packet's IP size: wire = charge + Ethernet header + FCS
# The writers' column tables; the number of columns each page (or docs/records.md) gives is checked in main().
UETEMU = sys.argv[1]
ND_COLUMNS = columns(UETEMU, 'nd-stats')  # simulation-output-files.md, Network Device Statistics: 22
EP_COLUMNS = columns(UETEMU, 'ecn-pfc-stats')  # simulation-output-files.md, ECN/PFC Statistics: 24
SB_COLUMNS = columns(UETEMU, 'scala-switch-agg-buff-stats')  # simulation-output-files.md, Switch Buffer Statistics
PB_COLUMNS = columns(UETEMU, 'scala-switch-buff-stats')  # Per-Port Switch Buffer Statistics: 16
PER_PORT = 'switch.ReportPerPortBufferStats=true'
LB_COLUMNS = columns(UETEMU, 'scala-switch-load-balancing-stats')  # switch-packet-handling.md: 28
TRIM_COLUMNS = columns(UETEMU, 'trimming-stats')  # docs/records.md, trimming-stats (the pages name none): 19
TRIMMING = ['switch.SharedBufferManager.UETPolicyEnabled=true', 'switch.PacketTrimmer.TrimmingEnabled=true',
            'switch.SharedBufferManager.EnablePFC=[0, 0, 0, 0, 0, 0, 0, 0]',
            'nic.TransportProcessingLayers.ScalaUETPdsManager.TrimmingEnabled=true',
            'switch.PacketTrimmer.TrimmingStatsEnabled=true']
PFC = ['switch.SharedBufferManager.StaticPoolXoffThreshold=100KB',
       'switch.SharedBufferManager.StaticPoolXonThreshold=50KB']
SCALA_TIER = {'tor': '2', 'leaf': '2', 'spine': '0'}  # docs/records.md: rack 2, fabric 1, spine 0






class Fabric:
    """The switch ports of a run, from summary.json: per (switch, port) its link, the direction it sends."""

    def __init__(self, summary):
        self.devs = summary['topology']['devices']
        self.links = {ln['name']: ln for ln in summary['links']}
        self.ports = []  # (node_id, name, port, link, sends 'ab' or 'ba', uldl, tier)
        for node, d in enumerate(self.devs):
            if d['tier'] == 0:
                continue
            for p in d['ports']:
                ln = self.links[p['link']]
                a_end = ln['a'] == d['name']  # a is the lower-tier end: a switch at a faces up
                kind = d['name'].rstrip('0123456789')
                self.ports.append((node, d['name'], p['port'], ln, 'ab' if a_end else 'ba',
                                   'ul' if a_end else 'dl', SCALA_TIER[kind]))

    def host_count(self):
        return sum(1 for d in self.devs if d['tier'] == 0)


def split_time(rows):
    out = {}
    for r in rows:
        out.setdefault(ps_of_sec(r['sim_time_sec']), []).append(r)
    return out


# simulation.RecordStartTime (0 by default for a message workload): the NICs' periodic rows, and the switch ports'
# rows that share nd-stats and ecn-pfc-stats (and go with them: trimming-stats), start one interval after it
ORIGIN = ['simulation.RecordStartTime=5us']
ORIGIN_PS = 5 * 10**6


def check_nd(out, sim, summary, fab, interval_ps, name):
    rows = read_csv(os.path.join(out, sim + '-nd-stats-0.csv'), ND_COLUMNS, name + ' nd-stats')
    end = summary['sim_time_ps']
    by_t = split_time(rows)
    want_ids = [(str(n), nm, str(p), u, tr) for n, nm, p, _, _, u, tr in fab.ports]
    ok_order = list(by_t) == schedule(interval_ps, end, ORIGIN_PS)
    ok_ids = True
    for t, rs in by_t.items():
        kinds = [r['component_type'] for r in rs]
        ok_order &= kinds == ['ScalaUETNic'] * fab.host_count() + ['Switch'] * len(fab.ports)
        sw = [r for r in rs if r['component_type'] == 'Switch']
        ok_ids &= [(r['node_id'], r['component_name'], r['ifid'], r['uldl'], r['tier']) for r in sw] == want_ids
        ok_ids &= all(r['nd_name'] == 'scala_switch::ScalaSwitchEthNetDevice' and r['subtier'] == '4294967295'
                      for r in sw)
    check(ok_order, '%s nd-stats: each interval (%d times), the NICs\' rows then every switch port\'s'
          % (name, len(by_t)))
    check(ok_ids, '%s nd-stats: switch rows in device, port order: node_id, name, ifid, uldl (dl facing down), '
          'tier (%s), nd_name, subtier' % (name, sorted({p[6] for p in fab.ports})))
    last = by_t[end][fab.host_count():]
    good = bad = 0
    for r, (_, nm, p, ln, d, _, _) in zip(last, fab.ports):
        tx, rx = ln[d], ln['ba' if d == 'ab' else 'ab']
        got = (int(r['total_packets_tx']), int(Decimal(r['total_bytes_tx_GB']) * 10**9) + FCS * int(
            r['total_packets_tx']), int(r['total_packets_rx']),
            int(Decimal(r['total_bytes_rx_GB']) * 10**9) + FCS * int(r['total_packets_rx']), int(r['tx_drops']))
        want = (tx['frames'], tx['bytes'], rx['frames'], rx['bytes'], tx['drops'])
        if got == want:
            good += 1
        else:
            bad += 1
            print('     %s port %d: %s != summary %s' % (nm, p, got, want))
    check(bad == 0 and good == len(fab.ports), '%s nd-stats: final switch tx/rx frames, bytes (+ FCS) and tx_drops '
          '= summary.json links, %d ports' % (name, good))
    # interval columns add up and rates follow from them
    ok = True
    prev_t, prev = 0, {}
    for t, rs in sorted(by_t.items()):
        for r in rs[fab.host_count():]:
            k = (r['node_id'], r['ifid'])
            ptx, prx = prev.get(k, (0, 0))
            tx, rx = int(Decimal(r['total_bytes_tx_GB']) * 10**9), int(Decimal(r['total_bytes_rx_GB']) * 10**9)
            ok &= int(Decimal(r['interval_bytes_tx_MB']) * 10**6) == tx - ptx
            ok &= int(Decimal(r['interval_bytes_rx_MB']) * 10**6) == rx - prx
            ok &= Decimal(r['tx_rate_Gbps']) == quot((tx - ptx) * 8000, t - prev_t, 6)
            prev[k] = (tx, rx)
        prev_t = t
    check(ok, '%s nd-stats: switch interval bytes are the differences of the totals, rates their Gb/s' % name)
    util = [Decimal(r['tx_link_percent_util']) for r in rows if r['component_type'] == 'Switch']
    # a frame counts when it starts: one that runs past a row time can take an interval a little over 100 %
    check(101 >= max(util) > 50, '%s nd-stats: link utilization in percent of the link, up to %s'
          % (name, max(util)))
    return rows


def check_ep(out, sim, summary, fab, interval_ps, name, want_pauses):
    rows = read_csv(os.path.join(out, sim + '-ecn-pfc-stats-0.csv'), EP_COLUMNS, name + ' ecn-pfc-stats')
    end = summary['sim_time_ps']
    sw = [r for r in rows if r['component_type'] == 'Switch']
    by_t = split_time(sw)
    want = [(str(n), nm, str(p), u, tr, str(c)) for n, nm, p, _, _, u, tr in fab.ports for c in range(8)]
    check(list(by_t) == schedule(interval_ps, end, ORIGIN_PS) and all(
        [(r['node_id'], r['component_name'], r['ifid'], r['uldl'], r['tier'], r['priority']) for r in rs] == want
        for rs in by_t.values()), '%s ecn-pfc-stats: every switch port and class every interval (%d rows each)'
        % (name, len(want)))
    ok = True
    for rs in split_time(rows).values():
        kinds = [r['component_type'] for r in rs]
        ok &= kinds == sorted(kinds, key=lambda k: k == 'Switch')
    check(ok, '%s ecn-pfc-stats: the switches\' rows after the NICs\' rows of each time' % name)
    last = by_t[end]
    ok, pauses = True, 0
    for i, (_, nm, p, ln, d, _, _) in enumerate(fab.ports):
        rs = last[8 * i:8 * i + 8]
        tx, rx = ln[d], ln['ba' if d == 'ab' else 'ab']
        ecn = sum(int(r['pkts_ecn_marked']) for r in rs)
        xoff_tx = sum(int(r['pfcxoff_tx']) for r in rs)
        xoff_rx = sum(int(r['pfcxoff_rx']) for r in rs)
        pauses += xoff_tx
        if (ecn, xoff_tx, xoff_rx) != (tx['ecn_marks'], tx['pauses'], rx['pauses']):
            ok = False
            print('     %s port %d: ecn %d, xoff tx %d rx %d != summary %d %d %d' % (
                nm, p, ecn, xoff_tx, xoff_rx, tx['ecn_marks'], tx['pauses'], rx['pauses']))
    check(ok, '%s ecn-pfc-stats: final pkts_ecn_marked and pfcxoff_tx / pfcxoff_rx summed over the classes = '
          'summary.json links\' ecn_marks and pauses, each port' % name)
    # the PFC variant lowers the Xoff threshold to 100KB so the switch pauses; the others (trimming: EnablePFC all
    # 0; leaf-spine at the defaults) never do
    check((pauses > 0) == want_pauses, '%s: the switch %s its senders (%d pause frames)'
          % (name, 'paused' if want_pauses else 'never paused', pauses))
    ok = True
    for k in range(len(want)):
        series = [by_t[t][k] for t in sorted(by_t)]
        tot = [int(Decimal(r['pfc_time_paused_usec']) * 10**6) for r in series]
        ivl = [int(Decimal(r['interval_total_time_xoff_usec']) * 10**6) for r in series]
        ok &= ivl == [b - a for a, b in zip([0] + tot, tot)]
    check(ok, '%s ecn-pfc-stats: switch interval paused time = differences of pfc_time_paused_usec' % name)
    return rows


def check_trim(out, sim, summary, fab, interval_ps):
    rows = read_csv(os.path.join(out, sim + '-trimming-stats-0.csv'), TRIM_COLUMNS, 'trimming-stats')
    end = summary['sim_time_ps']
    by_t = split_time(rows)
    want = [(str(n), nm, str(p), u, tr) for n, nm, p, _, _, u, tr in fab.ports]
    check(list(by_t) == schedule(interval_ps, end, ORIGIN_PS) and all(
        [(r['node_id'], r['component_name'], r['ifid'], r['uldl'], r['tier']) for r in rs] == want
        for rs in by_t.values()), 'trimming-stats: every switch port every NDStatsReportInterval')
    port0 = [rs[0] for _, rs in sorted(by_t.items())]
    trims = int(port0[-1]['trims'])
    link = fab.links['host0-tor0']['ba']
    check(trims > 0 and trims == link['trims'], 'trimming-stats: tor0 port 0 (to host0) trims %d = summary.json '
          'host0-tor0 ba trims %d' % (trims, link['trims']))
    # incast.yaml's messages are 2 MiB, so every data packet is full: 4,184 B of IP (uet-nic-records.md) cut to
    # IPv4 + UDP + the PDS request header, 44 B of IP (62 B on the wire), so each trim cuts 4,140 B away.
    tb = int(port0[-1]['trimmed_bytes'])
    check(tb == trims * (4184 - 44), 'trimming-stats: tor0 port 0 trimmed_bytes %d = %d trims x 4,140 B' % (tb, trims))
    ok = True
    for c in ('trims', 'trimmed_bytes', 'egress_packets', 'tx_drops', 'trimmed_drops'):
        for k in range(len(want)):
            s = [by_t[t][k] for t in sorted(by_t)]
            ok &= sum(int(r['ivl_' + c]) for r in s) == int(s[-1][c])
    check(ok, 'trimming-stats: each ivl_ column adds up to its total')
    eg = int(port0[-1]['egress_packets'])
    check(eg == link['frames'], 'trimming-stats: tor0 port 0 egress_packets %d = frames sent to host0 %d '
          '(no PFC frames)' % (eg, link['frames']))


def check_buf(out, sim, summary, fab, interval_ps, name, pools):
    rows = read_csv(os.path.join(out, sim + '-scala-switch-agg-buff-stats-0.csv'), SB_COLUMNS,
                    name + ' scala-switch-agg-buff-stats')
    end = summary['sim_time_ps']
    by_t = split_time(rows)
    step = interval_ps // 1000
    switches = []
    for n, nm, _, _, _, u, tr in fab.ports:
        if not switches or switches[-1][0] != n:
            switches.append((n, nm, tr, set()))
        switches[-1][3].add(u)
    want = []
    for n, nm, tr, dirs in switches:
        for pool in pools:
            for b, u in (('egressQueue', 'ul'), ('egressQueue', 'dl'), ('ingressUsage', 'ul'),
                         ('ingressUsage', 'dl'), ('sharedBuffer', '-')):
                if u == '-' or u in dirs:
                    want.append((str(n), nm, tr, b, u, str(pool)))
    check(list(by_t) == schedule(interval_ps, end) and all(
        [(r['node_id'], r['component_name'], r['tier'], r['buff_id'], r['uldl'], r['pool_num']) for r in rs] ==
        want for rs in by_t.values()), '%s agg-buff-stats: per switch and pool (%s), the egress and ingress series '
        'of its ul / dl ports and the shared buffer, every BufferStatsReportInterval' % (name, pools))
    counts = [sum(int(by_t[t][k]['ivl_count']) for t in by_t) for k in range(len(want))]
    check(set(counts) == {math.ceil(end / step)}, '%s agg-buff-stats: %d samples over the run (one every '
          'interval / 1000, one at the end)' % (name, math.ceil(end / step)))
    ok = all(int(r['ivl_min_bytes']) <= Decimal(r['ivl_mean_bytes']) <= int(r['ivl_max_bytes']) and
             Decimal(r['ivl_max_pct_util']) == quot(int(r['ivl_max_bytes']) * 100, int(r['buffer_limit']), 9)
             for r in rows)
    check(ok, '%s agg-buff-stats: min <= mean <= max; ivl_max_pct_util = 100 x max / buffer_limit' % name)
    series = {}
    for r in rows:
        key = (r['component_name'], r['buff_id'], r['uldl'], r['pool_num'])
        series.setdefault(key, []).append(int(r['total_bytes']))
    check(all(v == sorted(v) for v in series.values()), '%s agg-buff-stats: total_bytes never decreases' % name)
    last = {k: v[-1] for k, v in series.items()}
    shared_ok = all(last[(c, 'sharedBuffer', '-', p)] ==
                    last.get((c, 'ingressUsage', 'ul', p), 0) + last.get((c, 'ingressUsage', 'dl', p), 0)
                    for (c, b, u, p) in last if b == 'sharedBuffer')
    check(shared_ok and max(last.values()) > 1000000,
          '%s agg-buff-stats: sharedBuffer total_bytes = ingress ul + dl; up to %d B passed'
          % (name, max(last.values())))
    peak = max(int(r['ivl_max_bytes']) for r in rows if r['buff_id'] == 'egressQueue')
    check(peak > 100000, '%s agg-buff-stats: the egress queues held up to %d B' % (name, peak))
    return rows


def pct_clamped(num, den):
    """The per-port record's percentages: 100 x num / den, 9 decimals, clamped at 100 (simulation-output-files.md)."""
    return quot(100, 1, 9) if num >= den and num > 0 else quot(num * 100, den, 9)


def check_portbuf(out, sim, summary, fab, interval_ps, name, limits, agg_rows):
    """scala-switch-buff-stats (ReportPerPortBufferStats): @p limits maps (buff_id, pool) to the buff_limit every
    port's row must carry; its keys say which series each port has, in row order."""
    rows = read_csv(os.path.join(out, sim + '-scala-switch-buff-stats-0.csv'), PB_COLUMNS,
                    name + ' scala-switch-buff-stats')
    end = summary['sim_time_ps']
    by_t = split_time(rows)
    want = [(str(n), nm, tr, str(p), u, b, str(pool), str(lim)) for n, nm, p, _, _, u, tr in fab.ports
            for (b, pool), lim in limits.items()]
    check(list(by_t) == schedule(interval_ps, end) and all(
        [(r['node_id'], r['component_name'], r['tier'], r['ifid'], r['uldl'], r['buff_id'], r['pool_num'],
          r['buff_limit']) for r in rs] == want for rs in by_t.values()),
        '%s buff-stats: per switch port and pool, %s, with buff_limit %s, every BufferStatsReportInterval'
        % (name, sorted({b for b, _ in limits}), sorted(set(limits.values()))))
    step = interval_ps // 1000
    counts = [sum(int(by_t[t][k]['ivl_count']) for t in by_t) for k in range(len(want))]
    check(set(counts) == {math.ceil(end / step)}, '%s buff-stats: %d samples over the run, as agg-buff-stats'
          % (name, math.ceil(end / step)))
    ok = all(int(r['ivl_min_bytes']) <= Decimal(r['ivl_mean_bytes']) <= int(r['ivl_max_bytes']) and
             Decimal(r['ivl_max_pct_util']) == pct_clamped(int(r['ivl_max_bytes']), int(r['buff_limit'])) and
             Decimal(r['ivl_mean_pct_util']) <= 100 for r in rows)
    check(ok, '%s buff-stats: min <= mean <= max; ivl_max_pct_util = 100 x max / buff_limit, clamped at 100'
          % name)
    # the same measurements as the aggregate record, per port: a direction's port means add up to its mean
    agg = {(r['sim_time_sec'], r['component_name'], r['buff_id'], r['uldl'], r['pool_num']): Decimal(
        r['ivl_mean_bytes']) for r in agg_rows if r['buff_id'] != 'sharedBuffer'}
    sums = {}
    for r in rows:
        if r['buff_id'] != 'hdrm':
            k = (r['sim_time_sec'], r['component_name'], r['buff_id'], r['uldl'], r['pool_num'])
            sums[k] = sums.get(k, 0) + Decimal(r['ivl_mean_bytes'])
    ports = max(sum(1 for p in fab.ports if p[1] == nm) for _, nm, _, _, _, _, _ in fab.ports)
    ok = set(sums) == set(agg) and all(abs(sums[k] - agg[k]) <= Decimal('0.0005') * (ports + 1) for k in agg)
    check(ok, '%s buff-stats: per port, egressQueue and ingressUsage means add up to agg-buff-stats\' (%d series)'
          % (name, len(agg)))
    return rows


def check_lb(out, sim, summary, fab, nd_rows, interval_ps, flowlet):
    rows = read_csv(os.path.join(out, sim + '-scala-switch-load-balancing-stats-0.csv'), LB_COLUMNS,
                    'load-balancing-stats')
    end = summary['sim_time_ps']
    by_t = split_time(rows)
    check(list(by_t) == schedule(interval_ps, end), 'load-balancing: rows every LoadBalancingStatsReportInterval '
          'and at the end (%d times)' % len(by_t))
    leaves = sorted({r['component_name'] for r in rows})
    check(leaves == ['leaf0', 'leaf1', 'leaf2', 'leaf3'] and all(
        r['ecmp_group_ifids'] == '[4:5:6:7]' and r['group_size'] == '4' and r['tier'] == '2' and
        r['component_type'] == 'Switch' for r in rows),
        'load-balancing: one set per leaf, its 4 uplinks [4:5:6:7]; no spine (single-port routes only)')
    check(all(len(rs) == 16 and [r['ifid'] for r in rs] == ['4', '5', '6', '7'] * 4 for rs in by_t.values()),
          'load-balancing: each member of each set every time')
    slots = '512' if flowlet else '0'
    check(all(r['flow_table_slots'] == slots for r in rows), 'load-balancing: flow_table_slots %s' % slots)
    series = {}
    for r in rows:
        series.setdefault((r['component_name'], r['ifid']), []).append(r)
    ok = True
    for s in series.values():
        for c in ('bytes', 'packets', 'assignments', 'movements_in', 'movements_out', 'paused_skips',
                  'paused_selections'):
            ok &= sum(int(r['ivl_' + c]) for r in s) == int(s[-1][c])
    check(ok, 'load-balancing: each ivl_ column adds up to its total')
    ok = True
    for t, rs in by_t.items():
        for k in range(4):
            sh = [Decimal(r['ivl_share']) for r in rs[4 * k:4 * k + 4]]
            ib = sum(int(r['ivl_bytes']) for r in rs[4 * k:4 * k + 4])
            ok &= (abs(sum(sh) - 1) <= Decimal('0.000002')) if ib else sum(sh) == 0
    check(ok, 'load-balancing: a set\'s ivl_share adds up to 1 (0 for an idle interval)')
    nd_last = {(r['component_name'], r['ifid']): r for r in nd_rows if ps_of_sec(r['sim_time_sec']) == end}
    ok = True
    for (nm, p), s in series.items():
        nd = nd_last[(nm, p)]
        link = next(ln for n_, nm_, p_, ln, d, _, _ in fab.ports if nm_ == nm and str(p_) == p)
        d = next(d for n_, nm_, p_, ln, d, _, _ in fab.ports if nm_ == nm and str(p_) == p)
        pk, by = int(s[-1]['packets']), int(s[-1]['bytes'])
        ok &= link[d]['pauses'] == 0 and pk == int(nd['total_packets_tx']) == link[d]['frames']
        # a packet is charged its IP size, at least 46 B (an unpadded 44 B one on the wire: 16 B less)
        ok &= by + (ETH_HDR + FCS - 2) * pk <= link[d]['bytes'] <= by + (ETH_HDR + FCS) * pk
    check(ok, 'load-balancing: each member\'s packets = its port\'s nd-stats total_packets_tx and summary.json '
          'frames; bytes (as charged: IP size, at least 46) + 18 B each = the link\'s wire bytes (16 B for a '
          '44 B packet)')
    tot = sum(int(series[k][-1]['packets']) for k in series)
    sent = sum(fab.links[n]['ab']['frames'] for n in fab.links if 'spine' in n)
    check(tot == sent, 'load-balancing: members\' packets add up to every leaf-to-spine frame (%d)' % sent)
    if flowlet:
        assigned = sum(int(series[k][-1]['assignments']) for k in series)
        check(assigned > 0, 'load-balancing (flowlet): %d flows assigned to members' % assigned)
    return rows


def main():
    uetemu, root = sys.argv[1], sys.argv[2]
    check([len(c) for c in (ND_COLUMNS, EP_COLUMNS, SB_COLUMNS, PB_COLUMNS, LB_COLUMNS, TRIM_COLUMNS)] ==
          [22, 24, 16, 16, 28, 19], 'the column tables: nd-stats 22, ecn-pfc-stats 24, agg-buff 16, buff 16, '
          'load-balancing 28, trimming-stats 19 columns')
    incast = os.path.join(root, 'configs/incast.yaml')
    leaf_spine = os.path.join(root, 'configs/leaf-spine.yaml')
    nd_ivl = 50 * 10**6
    with tempfile.TemporaryDirectory() as tmp:
        sets = TRIMMING + ORIGIN + ['simulation.NDStatsReportInterval=50us',
                                    'switch.SharedBufferManager.BufferStatsReportInterval=50us', PER_PORT]
        out = os.path.join(tmp, 'trim')
        s = run(uetemu, incast, out, sets).summary
        fab = Fabric(s)
        print('-- incast, trimming (sim %d ps)' % s['sim_time_ps'])
        check_nd(out, 'incast', s, fab, nd_ivl, 'trimming')
        check_ep(out, 'incast', s, fab, nd_ivl, 'trimming', False)
        check_trim(out, 'incast', s, fab, nd_ivl)
        agg = check_buf(out, 'incast', s, fab, nd_ivl, 'trimming', [0, 1, 2])  # UET policy: three pools
        # UET policy, trimming: every egress queue's limit is PlaneBDP (300 KB); PFC off, so no pool has headroom and
        # the ingress limit is the pool: tor0's 9 ports leave 256,000,000 - 9 x 256,000 = 253,696,000 B, split
        # 3/7, 2/7 and the rest (Shared buffer manager, Buffer under the UET policy)
        check_portbuf(out, 'incast', s, fab, nd_ivl, 'trimming',
                      {('egressQueue', 0): 300000, ('ingressUsage', 0): 108726857,
                       ('egressQueue', 1): 300000, ('ingressUsage', 1): 72484571,
                       ('egressQueue', 2): 300000, ('ingressUsage', 2): 72484572}, agg)
        check(os.path.exists(os.path.join(out, 'incast-scala-switch-load-balancing-stats-0.csv')),
              'trimming: the load-balancing record is written by default (header only: a tor has no set)')
        out2 = os.path.join(tmp, 'trim2')
        run(uetemu, incast, out2, sets)
        check(same_records(out, out2), 'trimming: every record byte-identical across two runs')

        print('-- incast, PFC at 100KB')
        out = os.path.join(tmp, 'pfc')
        s = run(uetemu, incast, out, PFC + ORIGIN + ['simulation.NDStatsReportInterval=50us', PER_PORT,
                                                   # the pages' default, which configs/incast.yaml shortens
                                                   'switch.SharedBufferManager.BufferStatsReportInterval=1ms']).summary
        fab = Fabric(s)
        check_nd(out, 'incast', s, fab, nd_ivl, 'pfc')
        check_ep(out, 'incast', s, fab, nd_ivl, 'pfc', True)
        agg = check_buf(out, 'incast', s, fab, 10**9, 'pfc', [0, 1])  # 1 ms, pools 0 and 1
        # the defaults' dynamic limit with nothing at egress is LossyAlpha 1.0 x the pool: 0.9 and the rest of
        # 253,696,000 B; pools 0 and 1 carry the lossless TC0 and TC1, so their ingress limit is Xoff (100 KB here)
        # and each port has HeadRoomPerPortLimit (256 KB) of headroom in them
        pb = check_portbuf(out, 'incast', s, fab, 10**9, 'pfc',
                           {('egressQueue', 0): 228326400, ('ingressUsage', 0): 100000, ('hdrm', 0): 256000,
                            ('egressQueue', 1): 25369600, ('ingressUsage', 1): 100000, ('hdrm', 1): 256000}, agg)
        over = [r for r in pb if r['buff_id'] == 'ingressUsage' and int(r['ivl_max_bytes']) > 100000]
        check(over and all(r['ivl_max_pct_util'] == '100.000000000' for r in over),
              'pfc buff-stats: a sender\'s port passes Xoff before it pauses (up to %d B): its row reads 100, clamped'
              % max(int(r['ivl_max_bytes']) for r in over))
        check(any(r['buff_id'] == 'hdrm' and int(r['ivl_max_bytes']) > 0 for r in pb),
              'pfc buff-stats: paused senders\' frames in flight land in headroom')
        check(not os.path.exists(os.path.join(out, 'incast-trimming-stats-0.csv')),
              'pfc: no trimming-stats without TrimmingStatsEnabled')

        lb_ivl = 20 * 10**6
        for method in ('none', 'flowlet'):
            print('-- leaf-spine, LoadBalancingMethod %s' % method)
            sets = ORIGIN + ['simulation.NDStatsReportInterval=20us', 'switch.EnableLoadBalancingStats=true',
                    'switch.LoadBalancingStatsReportInterval=20us', 'switch.LoadBalancingMethod=' + method]
            out = os.path.join(tmp, 'ls-' + method)
            s = run(uetemu, leaf_spine, out, sets).summary
            fab = Fabric(s)
            nd = check_nd(out, 'leaf-spine', s, fab, lb_ivl, 'leaf-spine')
            check_ep(out, 'leaf-spine', s, fab, lb_ivl, 'leaf-spine', False)
            check_lb(out, 'leaf-spine', s, fab, nd, lb_ivl, method == 'flowlet')
            if method == 'none':
                out2 = os.path.join(tmp, 'ls2')
                run(uetemu, leaf_spine, out2, sets)
                check(same_records(out, out2), 'leaf-spine: every record byte-identical across two runs')
        out = os.path.join(tmp, 'ls-off')
        run(uetemu, leaf_spine, out, ['switch.EnableLoadBalancingStats=false'])
        check(not os.path.exists(os.path.join(out, 'leaf-spine-scala-switch-load-balancing-stats-0.csv')),
              'leaf-spine: no load-balancing record with EnableLoadBalancingStats false')
        check(not os.path.exists(os.path.join(out, 'leaf-spine-scala-switch-buff-stats-0.csv')),
              'leaf-spine: no per-port buffer record by default (ReportPerPortBufferStats false)')
    sys.exit(finish('test_records_switch'))


if __name__ == '__main__':
    main()
