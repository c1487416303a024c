#!/usr/bin/env python3
"""The far end of a VLAN on IFACE, with scapy, where the kernel has no 802.1Q support (no `ip link add ... type
vlan`): an ARP request for DST_IP from SRC_IP tagged with VID, then COUNT ICMP echo requests to the MAC that
answered, each tagged; then one ARP request for DST_IP in VLAN OTHER_VID and one untagged, which must go
unanswered. Prints one line: `MAC ARP_PCP ECHO_REPLIES ECHO_PCPS OTHER_ANSWERS UNTAGGED_ANSWERS` (MAC `none` when
the ARP request went unanswered). Usage: vlan_ping.py IFACE VID SRC_IP DST_IP COUNT OTHER_VID"""
import sys

from scapy.all import ARP, ICMP, IP, Dot1Q, Ether, srp1  # noqa: E402

BCAST = 'ff:ff:ff:ff:ff:ff'
# Not IFACE's own MAC: on a bridge port that MAC is the bridge's local address, and a reply to it would stay in the
# bridge instead of coming back out of IFACE.
MAC = '02:77:00:00:00:fe'


def arp(iface, mac, vid, src_ip, dst_ip, timeout=1.0, retry=1):
    """The answer to an ARP request in VLAN vid (None: untagged), or None."""
    tag = Dot1Q(vlan=vid) if vid is not None else None
    req = Ether(dst=BCAST, src=mac) / ARP(op=1, hwsrc=mac, psrc=src_ip, pdst=dst_ip)
    if tag is not None:
        req = Ether(dst=BCAST, src=mac) / tag / ARP(op=1, hwsrc=mac, psrc=src_ip, pdst=dst_ip)
    return srp1(req, iface=iface, timeout=timeout, retry=retry, verbose=False)


def main(iface, vid, src_ip, dst_ip, count, other_vid):
    mac = MAC
    r = arp(iface, mac, vid, src_ip, dst_ip)
    if r is None or Dot1Q not in r or ARP not in r:
        print('none 0 0 - 0 0')
        return
    peer, arp_pcp = r[ARP].hwsrc, r[Dot1Q].prio
    replies, pcps = 0, set()
    for seq in range(count):
        q = Ether(dst=peer, src=mac) / Dot1Q(vlan=vid) / IP(src=src_ip, dst=dst_ip) / ICMP(id=0x77, seq=seq)
        a = srp1(q, iface=iface, timeout=1, verbose=False)
        if a is not None and ICMP in a and a[ICMP].type == 0 and Dot1Q in a and a[Dot1Q].vlan == vid:
            replies += 1
            pcps.add(a[Dot1Q].prio)
    other = arp(iface, mac, other_vid, src_ip, dst_ip, 0.5, 0)
    untagged = arp(iface, mac, None, src_ip, dst_ip, 0.5, 0)
    print(peer, arp_pcp, replies, ','.join(str(p) for p in sorted(pcps)) or '-', int(other is not None),
          int(untagged is not None))


if __name__ == '__main__':
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6]))
