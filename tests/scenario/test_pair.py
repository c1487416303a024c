#!/usr/bin/env python3
"""configs/pair.yaml (issue 2): ten 1 MiB messages host0 -> host1 in virtual time.

Checks: 256 data frames per message; consecutive full data frames 84.04 ns apart on average (4,202 B at
400 Gb/s); every data frame acknowledged; the first frame of each message 85.845 ns after its doorbell (the pcap
keeps whole ns: 85); frame sizes, DSCP, ECN, TTL, checksums; two runs give byte-identical pcaps and records.
"""
import filecmp
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
import uetpcap  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from checks import check, finish, workdir  # noqa: E402
from runner import run  # noqa: E402


def main():
    uetemu, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    tmp = tempfile.mkdtemp(prefix='uetemu-pair-', dir=workdir())
    a, b = os.path.join(tmp, 'a'), os.path.join(tmp, 'b')
    sj = run(uetemu, 'configs/pair.yaml', a, root=root).summary
    run(uetemu, 'configs/pair.yaml', b, root=root)
    for name in ('pair.pcap', 'pair-uet-events-0.csv'):
        check(filecmp.cmp(os.path.join(a, name), os.path.join(b, name), shallow=False),
              '%s byte-identical across two runs' % name)

    frames = [(t, uetpcap.decode(f)) for t, f in uetpcap.read_pcap(os.path.join(a, 'pair.pcap'))]
    host0 = bytes([10, 0, 0, 1])
    data = [(t, d) for t, d in frames if d['kind'] == 'data']
    acks = [(t, d) for t, d in frames if d['kind'] == 'ack' and not d['probe']]
    per_pdc = {}
    for t, d in data:
        per_pdc.setdefault(d['spdcid'], []).append((t, d))
    check(len(per_pdc) == 10, '10 messages, one PDC each (saw %d)' % len(per_pdc))
    check(all(len(v) == 256 for v in per_pdc.values()), '256 data frames per message')

    # consecutive full data frames with nothing else between them on host0's direction
    out0 = [(t, d) for t, d in frames if d['src'] == host0]
    gaps = [t2 - t1 for (t1, d1), (t2, d2) in zip(out0, out0[1:])
            if d1['kind'] == 'data' and d2['kind'] == 'data' and d1['payload'] == d2['payload'] == 4096
            and t2 - t1 < 1000]
    avg = sum(gaps) / len(gaps)
    check(abs(avg - 84.04) < 0.01, 'consecutive full data frames %.4f ns apart on average (%d pairs)'
          % (avg, len(gaps)))

    # every data frame acknowledged: its PSN at or below a CACK, or in a SACK bitmap, of its PDC
    acked = {}
    for _, d in acks:
        s = acked.setdefault(d['dpdcid'], [0, set()])
        s[0] = max(s[0], d['cack'])
        base = (d['cack'] + d['sack_off']) & 0xffffffff
        for i in range(64):
            if d['sack'] >> i & 1:
                s[1].add((base + i) & 0xffffffff)
    unacked = [d['psn'] for _, d in data if not (d['spdcid'] in acked and (
        ((acked[d['spdcid']][0] - d['psn']) & 0xffffffff) < 0x80000000 or d['psn'] in acked[d['spdcid']][1]))]
    check(not unacked, 'every data frame acknowledged (%d not)' % len(unacked))
    check(len(acks) == 2560, '2560 ACKs for 2560 data frames (saw %d)' % len(acks))

    # first frame of each message: doorbell at k x 30 us, on the wire 85.845 ns later (85 in whole ns)
    firsts = sorted(v[0][0] for v in per_pdc.values())
    check(firsts == [k * 30000 + 85 for k in range(10)], 'first data frame of message k at k*30us + 85 ns: %s'
          % firsts[:3])

    sizes = {d['kind']: set() for _, d in frames}
    for _, d in frames:
        sizes[d['kind']].add(d['len'] + 4)
    check(sizes['data'] == {4202}, 'data frames 4,202 B on the wire: %s' % sizes['data'])
    check(sizes['ack'] == {78}, 'ACK 78 B on the wire: %s' % sizes['ack'])
    check(sizes.get('cp', {62}) == {62}, 'probe 62 B on the wire')
    # uet-nic-transport.md "Base-RTT probe": each message on a PDC draws one probe (62 B) and one probe ACK (78 B)
    probes = [d for _, d in frames if d['kind'] == 'cp' and d['len'] + 4 == 62]
    probe_acks = [d for _, d in frames if d['kind'] == 'ack' and d['probe'] and d['len'] + 4 == 78]
    check(len(probes) == 10 and len(probe_acks) == 10,
          '10 probes of 62 B and 10 probe ACKs of 78 B, one each per message (saw %d, %d)'
          % (len(probes), len(probe_acks)))
    check(len(frames) == 2560 + 2560 + 10 + 10,
          '5140 frames: 2560 data, 2560 ACKs, 10 probes, 10 probe ACKs (saw %d)' % len(frames))
    check(all(d['csum_ok'] for _, d in frames), 'every IPv4 header checksum valid')
    check(all(d['ttl'] == 255 and d['ecn'] == 1 and d['udp_csum'] == 0 and d['dport'] == 4793
              for _, d in frames), 'TTL 255, ECT(1), UDP checksum 0, port 4793 on every frame')
    check({d['dscp'] for _, d in data} == {0}, 'data DSCP 0 (no-trim: TrimmingEnabled false)')
    check({d['dscp'] for _, d in frames if d['kind'] != 'data'} == {46}, 'control DSCP 46')
    check({d['sport'] for _, d in data} == set(range(256, 384)), 'entropy sprayed over ports 256..383')
    one = per_pdc[min(per_pdc)]
    uses = {}
    for _, d in one:
        uses[d['sport']] = uses.get(d['sport'], 0) + 1
    check(sorted(uses) == list(range(256, 384)) and set(uses.values()) == {2},
          'a lone 1 MiB message uses each port 256..383 exactly twice (uet-nic-multipath.md)')

    check(sj['messages']['posted'] == 10 and sj['messages']['completed'] == 10,
          'summary: 10 posted, 10 completed')
    check(sj['seed'] == 18760 and sj['mode'] == 'virtual', 'summary: seed 18760, virtual')
    h1 = [h for h in sj['hosts'] if h['name'] == 'host1'][0]
    check(h1['rx_payload_bytes'] == 10 * 1048576, 'host1 received 10 MiB of payload')
    rows = open(os.path.join(a, 'pair-uet-events-0.csv')).read().splitlines()
    check(rows[0] == 'time_utc,sim_time_ns,component_name,FEP_ID,local_PDC_ID,remote_PDC_ID,wqe_ID,'
          'wqe_size_bytes,ev_type', 'uet-events header')
    evs = [r.split(',')[-1] for r in rows[1:]]
    check(evs.count('WQE_COMPLETE') == 10 and evs.count('RECV_COMPLETE') == 10, '10 WQE_COMPLETE, 10 RECV_COMPLETE')
    return finish('test_pair')


if __name__ == '__main__':
    sys.exit(main())
