#!/usr/bin/env python3
"""configs/pfc.yaml (issue 3): host1's slow PCIe backs up its class-0 receive pool; with PFC on class 0 it pauses
host0 at Xoff, refreshes every half pause time (41.99 us) while at or above Xoff, else sends XON; host0 sends no
data while paused; nothing is dropped; every message completes."""
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
    out = tempfile.mkdtemp(prefix='uetemu-pfc-', dir=workdir())
    s = run(uetemu, 'configs/pfc.yaml', out, root=root).summary
    frames = [(t, uetpcap.decode(f)) for t, f in uetpcap.read_pcap(os.path.join(out, 'pfc.pcap'))]
    host0, host1 = bytes([2, 0, 0, 0, 0, 1]), bytes([2, 0, 0, 0, 0, 2])
    pfc = [(t, d) for t, d in frames if d['kind'] == 'pfc']
    check(len(pfc) > 10, '%d PFC frames' % len(pfc))
    check(all(d['src_mac'] == host1 and d['opcode'] == 0x0101 and d['enable'] == 1 and d['len'] + 4 == 64
              and d['quanta'][0] in (0, 65535) and d['quanta'][1:] == [0] * 7 for _, d in pfc),
          'every PFC frame from host1, class 0 only, quanta 65535 (pause) or 0 (XON), 64 B on the wire')
    # after each pause, the next PFC frame comes at the refresh, half the pause time later: 41.9924 us (the pcap
    # keeps whole ns), or sooner if the pool drains to Xon
    gaps = [t2 - t1 for (t1, d1), (t2, d2) in zip(pfc, pfc[1:]) if d1['quanta'][0] == 65535]
    check(gaps and all(g in (41992, 41993) for g in gaps),
          'next PFC frame 41.99 us after each pause (refresh at half of 83.985 us): %s' % sorted(set(gaps)))
    xoff = sum(1 for _, d in pfc if d['quanta'][0])
    xon = len(pfc) - xoff
    check(xon in (xoff, xoff - 1), 'pauses alternate with XON (%d pauses, %d XON)' % (xoff, xon))
    # host0 sends no data frame that starts while it is paused: from a pause's arrival (its start + 1.28 ns on
    # the wire + 100 ns) to the next XON's arrival
    ser_delay = 1 + 100  # ns, rounded down: 64 B at 400 Gb/s is 1.28 ns
    windows = []
    for (t1, d1), (t2, d2) in zip(pfc, pfc[1:]):
        if d1['quanta'][0] and not d2['quanta'][0]:
            windows.append((t1 + ser_delay + 1, t2 + ser_delay))
    sent = [t for t, d in frames if d['kind'] == 'data' and d['src'] == bytes([10, 0, 0, 1])]
    bad = [t for t in sent for a, b in windows if a < t < b]
    check(windows and not bad, 'no data from host0 while paused (%d pause windows, %d violations)'
          % (len(windows), len(bad)))
    c = s['counters']
    check(c['drops'] == 0, 'no drops: the headroom above Xoff holds what arrives after a pause')
    check(c['pfc_pauses'] == xoff, 'summary pfc_pauses = pauses host0 received (%d)' % c['pfc_pauses'])
    check(s['messages']['completed'] == 8, 'all 8 messages complete')
    h1 = [h for h in s['hosts'] if h['name'] == 'host1'][0]
    check(h1['counters']['pfc_pauses_sent'] == xoff, 'host1 sent %d pauses' % xoff)
    link = s['links'][0]
    check(link['name'] == 'l0' and link['ba']['pauses'] == xoff and link['ab']['pauses'] == 0,
          'summary links: %d pauses from host1 to host0 on l0' % link['ba']['pauses'])
    return finish('test_pfc')


if __name__ == '__main__':
    sys.exit(main())
