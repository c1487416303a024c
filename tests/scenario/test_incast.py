#!/usr/bin/env python3
"""configs/incast.yaml (issue 4): 8 senders -> 1 receiver on one rack switch, 2 MiB each, in four cases. All 8
messages complete in every case and nothing is lost for good:
  defaults (PFC on, 256 MB shared buffer, dynamic thresholds): no drop, no pause;
  UET policy + trimming, PFC off: trims happen, every trimmed packet is NACKed and retransmitted;
  UET policy, no trimming, PFC off: the 5 x PlaneBDP queue limit overflows, drops recovered by timeouts;
  PFC with StaticPoolXoffThreshold 100KB (Xon 50KB): real 802.1Qbb pauses in the capture, no drop.
Then trimmed packets dropped (docs/records.md, trimming-stats): eight senders cannot overflow TC1, since a 62 B
trimmed frame leaves 67 times faster than its 4,202 B packet arrives and TC1 goes ahead of TC0; so the same rack
with 96 senders of 256 KiB and PlaneBDP 50KB (TC0 and TC1 limits alike) drops trimmed packets at tor0's port to
host0. Per-port trimmed_drops, summed over the ports, equals the switch-wide DROP_TRIMMED_LIMIT count and
summary.json's per-link trimmed_drops; every switch trim either reaches host0 or is one of those drops; the drops
are recovered by timeouts and all 96 messages complete.
"""
import csv
import os
import subprocess
import sys
import tempfile
from decimal import Decimal

sys.path.insert(0, os.path.dirname(__file__))
import uetpcap  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from checks import check, finish, workdir  # noqa: E402
from runner import run  # noqa: E402

NO_PFC = 'switch.SharedBufferManager.EnablePFC=[0, 0, 0, 0, 0, 0, 0, 0]'
UET = 'switch.SharedBufferManager.UETPolicyEnabled=true'
INCAST = 'configs/incast.yaml'


def wide_incast(root, senders, nbytes):
    """configs/incast.yaml with @senders senders of @nbytes each and no captures, in a new folder: its path."""
    text = open(os.path.join(root, INCAST)).read()
    head, _ = text.split('    list:\n')
    head = head.replace('hosts_per_rack: 9', 'hosts_per_rack: %d' % (senders + 1))
    msgs = ''.join('      - {src: host%d, dst: host0, bytes: %s, start: 0us}\n' % (h, nbytes)
                   for h in range(1, senders + 1))
    path = os.path.join(tempfile.mkdtemp(prefix='uetemu-incast-wide-', dir=workdir()), 'incast-wide.yaml')
    with open(path, 'w') as f:
        f.write(head + '    list:\n' + msgs)
    return path


def check_trimmed_drops(uetemu, root):
    senders = 96
    cfg = wide_incast(root, senders, '256KiB')
    out = os.path.join(os.path.dirname(cfg), 'out')
    s = run(uetemu, cfg, out, [UET, NO_PFC, 'switch.PacketTrimmer.TrimmingEnabled=true',
                               'switch.PacketTrimmer.TrimmingStatsEnabled=true',
                               'nic.TransportProcessingLayers.ScalaUETPdsManager.TrimmingEnabled=true',
                               'switch.SharedBufferManager.PlaneBDP=50KB']).summary
    c = s['counters']
    limit = s['drop_reasons'].get('switch_drop_trimmed_limit', 0)
    rows = list(csv.DictReader(open(os.path.join(out, 'incast-trimming-stats-0.csv'))))
    end = max(Decimal(r['sim_time_sec']) for r in rows)
    last = [r for r in rows if Decimal(r['sim_time_sec']) == end]
    per_port = [int(r['trimmed_drops']) for r in last]
    link = [l for l in s['links'] if l['name'] == 'host0-tor0'][0]
    links = sum(l[d]['trimmed_drops'] for l in s['links'] for d in ('ab', 'ba'))
    check(s['messages']['completed'] == senders, 'trimmed drops: %d of %d complete' % (s['messages']['completed'],
                                                                                      senders))
    check(limit > 0 and sum(per_port) == limit == c['drops'],
          'trimmed drops: trimming-stats trimmed_drops summed over the %d ports %d = switch DROP_TRIMMED_LIMIT %d '
          '(the only drops, %d)' % (len(last), sum(per_port), limit, c['drops']))
    check(per_port[0] == limit and link['ba']['trimmed_drops'] == limit and links == limit,
          'trimmed drops: all at tor0 port 0, headed to host0 (%d); summary.json host0-tor0 ba trimmed_drops %d, '
          'all links %d' % (per_port[0], link['ba']['trimmed_drops'], links))
    ok = True
    for port in range(len(last)):
        series = [r for r in rows if r['ifid'] == str(port)]
        ok &= sum(int(r['ivl_trimmed_drops']) for r in series) == int(series[-1]['trimmed_drops'])
    check(ok, 'trimmed drops: ivl_trimmed_drops adds up to trimmed_drops on every port')
    sw_trims = sum(int(r['trims']) for r in last)
    check(sw_trims == c['trims'] + limit, 'trimmed drops: every switch trim (%d) reached host0 (%d) or was dropped '
          '(%d)' % (sw_trims, c['trims'], limit))
    check(c['timeouts'] >= limit and c['retransmits'] == c['nacks'] + c['timeouts'],
          'trimmed drops: recovered by %d timeouts (%d NACKed trims, %d retransmits)'
          % (c['timeouts'], c['nacks'], c['retransmits']))


def frames(out, name):
    return [uetpcap.decode(f) for _, f in uetpcap.read_pcap(os.path.join(out, name + '.pcap'))]


def main():
    uetemu, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])

    s = run(uetemu, INCAST, os.path.join(workdir(), 'defaults'), root=root).summary
    c = s['counters']
    check(s['messages']['completed'] == 8, 'defaults: 8 of 8 complete')
    check(c['drops'] == 0 and c['pfc_pauses'] == 0,
          'defaults: no drop (%d), no pause (%d)' % (c['drops'], c['pfc_pauses']))
    h0 = [h for h in s['hosts'] if h['name'] == 'host0'][0]
    print('     defaults: receiver goodput %.3f Gb/s, FCT max %.3f us'
          % (h0['goodput_gbps'], s['messages']['fct_us']['max']))

    r = run(uetemu, INCAST, os.path.join(workdir(), 'trim'),
            [UET, NO_PFC, 'switch.PacketTrimmer.TrimmingEnabled=true',
             'nic.TransportProcessingLayers.ScalaUETPdsManager.TrimmingEnabled=true'], root=root)
    out, s = r.out, r.summary
    c = s['counters']
    check(s['messages']['completed'] == 8, 'trimming: 8 of 8 complete')
    check(c['trims'] > 0 and c['trims'] == c['nacks'] == c['retransmits'] and c['drops'] == 0 and c['timeouts'] == 0,
          'trimming: %d trims, each NACKed (%d) and retransmitted (%d); no drop, no timeout'
          % (c['trims'], c['nacks'], c['retransmits']))
    fr = frames(out, 'incast')
    trimmed = [d for d in fr if d['kind'] == 'trimmed']
    check(trimmed and all(d['dscp'] == 18 and d['len'] + 4 == 62 for d in trimmed),
          'trimming: %d trimmed frames to host0 in the capture, 62 B, DSCP 18 (trimmed on the last hop)' % len(trimmed))

    ts = ['tshark', '-n', '-o', 'udp.try_heuristic_first:TRUE', '-X',
          'lua_script:' + os.path.join(root, 'scripts/wireshark/uet.lua'), '-r', os.path.join(out, 'incast.pcap')]
    total = subprocess.run(ts, capture_output=True, text=True).stdout.count('\n')
    bad = subprocess.run(ts + ['-Y', '_ws.malformed || _ws.expert.severity >= error || _ws.lua.error || !uet'],
                         capture_output=True, text=True).stdout.count('\n')
    tr = subprocess.run(ts + ['-Y', 'uet.trimmed && ip.len == 44'], capture_output=True, text=True).stdout.count('\n')
    check(total > 0 and bad == 0 and tr == len(trimmed),
          'trimming: the switch-port capture decodes with uet.lua (%d frames, %d bad, %d trimmed at 44 B IP)'
          % (total, bad, tr))

    s = run(uetemu, INCAST, os.path.join(workdir(), 'drop'), [UET, NO_PFC], root=root).summary
    c = s['counters']
    check(s['messages']['completed'] == 8, 'UET policy without trimming: 8 of 8 complete')
    check(c['drops'] > 0 and c['timeouts'] >= c['drops'] and c['trims'] == 0,
          'UET policy without trimming: %d drops at the 1.5 MB queue limit, recovered by %d timeouts'
          % (c['drops'], c['timeouts']))

    r = run(uetemu, INCAST, os.path.join(workdir(), 'pfc'),
            ['switch.SharedBufferManager.StaticPoolXoffThreshold=100KB',
             'switch.SharedBufferManager.StaticPoolXonThreshold=50KB'], root=root)
    out, s = r.out, r.summary
    c = s['counters']
    check(s['messages']['completed'] == 8, 'PFC at 100KB: 8 of 8 complete')
    check(c['drops'] == 0 and c['pfc_pauses'] > 0, 'PFC at 100KB: %d pauses, no drop' % c['pfc_pauses'])
    pfc = [d for d in frames(out, 'incast-host1') if d['kind'] == 'pfc']
    check(pfc and all(d['opcode'] == 0x0101 and d['len'] + 4 == 64 for d in pfc) and any(d['quanta'][0] for d in pfc),
          'PFC at 100KB: %d 802.1Qbb frames on host1-tor0 in the capture' % len(pfc))
    link = [l for l in s['links'] if l['name'] == 'host1-tor0'][0]
    check(link['ba']['pauses'] > 0, 'summary links: tor0 paused host1 %d times' % link['ba']['pauses'])

    check_trimmed_drops(uetemu, root)
    return finish('test_incast')


if __name__ == '__main__':
    sys.exit(main())
