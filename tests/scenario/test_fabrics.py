#!/usr/bin/env python3
"""Generated fabrics (issue 4): configs/leaf-spine.yaml (16 hosts, 4 racks, 4 spines, a permutation of 4 MiB)
with Default Packet Spraying and with None, printing each leaf's uplink loads; configs/fat-tree-128.yaml
(k = 8, 128 hosts, 100 Gb/s, a permutation of 2 MiB) runs in virtual time and completes, printing its wall time
and event count.

Addressing hop by hop (docs/topology.md, Addresses): the leaf-spine run also captures host0-leaf0; on it and on
leaf0-spine0 every frame, each way, data and ACKs, carries as source the MAC of the port that sent it and as
destination the MAC of the port at the link's other end, both as summary.json's topology lists them."""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
import uetpcap  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from checks import check, finish, workdir  # noqa: E402
from runner import run  # noqa: E402

DEFAULT = 'Default Packet Spraying'  # sprays every flow over the 4 uplinks: leaf0-spine0 carries data both ways
SPRAY = 'nic.TransportProcessingLayers.ScalaUETPdsManager.PacketSprayingType='


def with_host_capture(root):
    """configs/leaf-spine.yaml with host0-leaf0 captured too, written into a new folder: (config, folder)."""
    out = tempfile.mkdtemp(prefix='uetemu-fabric-mac-', dir=workdir())
    text = open(os.path.join(root, 'configs/leaf-spine.yaml')).read()
    old = '  - {name: leaf0-spine0, link: leaf0-spine0}\n'
    assert old in text
    cfg = os.path.join(out, 'leaf-spine-macs.yaml')
    with open(cfg, 'w') as f:
        f.write(text.replace(old, old + '  - {name: host0-leaf0, link: host0-leaf0}\n'))
    return cfg, out


def link_macs(s, link):
    """The MACs of the two ends of @link from summary.json's topology: (a end's, b end's); a is named first."""
    ends = {}
    for d in s['topology']['devices']:
        for p in d['ports']:
            if p['link'] == link:
                ends[d['name']] = bytes(int(x, 16) for x in p['mac'].split(':'))
    a, b = link.split('-')
    return ends[a], ends[b]


def check_macs(out, s, link, up_ips):
    """Every frame captured on @link: up (a -> b) when its source IP is in @up_ips, else down (b -> a); source
    MAC the sender's port, destination the receiver's. PFC frames: a sender's port, to 01:80:c2:00:00:01."""
    a, b = link_macs(s, link)
    seen, bad = {}, []
    for _, f in uetpcap.read_pcap(os.path.join(out, link + '.pcap')):
        d = uetpcap.decode(f)
        if d['kind'] == 'pfc':
            ok = d['src_mac'] in (a, b) and d['dst_mac'] == bytes([1, 0x80, 0xc2, 0, 0, 1])
            way = 'pfc'
        else:
            up = d['src'] in up_ips
            way = 'up' if up else 'down'
            ok = (d['src_mac'], d['dst_mac']) == ((a, b) if up else (b, a))
        seen[(way, d['kind'])] = seen.get((way, d['kind']), 0) + 1
        if not ok and len(bad) < 3:
            bad.append((way, d['kind'], d['src_mac'].hex(':'), d['dst_mac'].hex(':')))
    counts = ', '.join('%s %s %d' % (w, k, n) for (w, k), n in sorted(seen.items()))
    check(all(seen.get((w, k), 0) > 0 for w in ('up', 'down') for k in ('data', 'ack')) and not bad,
          '%s: every frame up from %s to %s, down the reverse (%s); wrong: %s'
          % (link, a.hex(':'), b.hex(':'), counts, bad))


def uplink_spread(s):
    """Per leaf: the leaf -> spine bytes of its uplinks and (max - min) / max."""
    res = []
    for leaf in range(4):
        b = [l['ab']['bytes'] for l in s['links'] if l['name'].startswith('leaf%d-spine' % leaf)]
        res.append((b, (max(b) - min(b)) / max(b)))
    return res


def main():
    uetemu, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    spread = {}
    cfg, out = with_host_capture(root)
    for mode in (DEFAULT, 'None'):
        s = run(uetemu, cfg, out if mode == DEFAULT else None, [SPRAY + mode], root=root).summary
        check(s['messages']['completed'] == 16, 'leaf-spine, %s: 16 of 16 complete' % mode)
        spread[mode] = uplink_spread(s)
        gp = [h['goodput_gbps'] for h in s['hosts']]
        print('     %s: per-host goodput min %.1f / max %.1f Gb/s' % (mode, min(gp), max(gp)))
        for leaf, (b, sp) in enumerate(spread[mode]):
            print('     %s: leaf%d uplinks %s bytes, spread %.1f %%' % (mode, leaf, b, 100 * sp))
        if mode == DEFAULT:
            host0 = bytes([10, 0, 0, 1])
            check_macs(out, s, 'host0-leaf0', {host0})
            check_macs(out, s, 'leaf0-spine0', {bytes([10, 0, 0, 1 + h]) for h in range(4)})
    worst_default = max(sp for _, sp in spread['Default Packet Spraying'])
    worst_none = max(sp for _, sp in spread['None'])
    check(worst_none > 0.5,
          'None: flows collide, an uplink carries far more than another (%.0f %%)' % (100 * worst_none))
    check(worst_default < 0.1 and worst_default < worst_none / 3,
          'Default spraying: every leaf\'s uplinks carry data bytes within 10 %% of each other (worst spread %.1f %%)'
          % (100 * worst_default))

    s = run(uetemu, 'configs/fat-tree-128.yaml', root=root).summary
    check(s['messages']['completed'] == 128, 'fat-tree-128: 128 of 128 complete')
    print('     fat-tree-128: %.3f s wall, %d events, %.3f us simulated, FCT p50 %.3f us, max %.3f us'
          % (s['wall_s'], s['events'], s['sim_time_ps'] / 1e6, s['messages']['fct_us']['p50'],
             s['messages']['fct_us']['max']))
    s = run(uetemu, 'tests/scenario/faults.yaml', root=root).summary
    links = {l['name']: l for l in s['links']}
    lossy, down = links['host0-tor0'], links['host3-tor0']
    lost = lossy['ab']['drops'] + lossy['ba']['drops']
    frames = lossy['ab']['frames'] + lossy['ba']['frames']
    check(s['messages']['completed'] == 2, 'faults: both messages complete')
    check(0.002 < lost / frames < 0.03, 'faults: host0-tor0 at 1 %% loss lost %d of %d frames' % (lost, frames))
    check(down['ba']['drops'] > 10 and s['counters']['timeouts'] > 0,
          'faults: host3-tor0 down 20..60 us lost %d frames to host3, recovered by %d timeouts'
          % (down['ba']['drops'], s['counters']['timeouts']))
    return finish('test_fabrics')


if __name__ == '__main__':
    sys.exit(main())
