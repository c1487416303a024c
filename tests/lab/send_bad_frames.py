#!/usr/bin/env python3
"""Send, from the kernel side of a veth, frames an emulated host on the other end must count and not take
(tests/lab/lab_badframes.sh): truncated, oversized, a wrong IP checksum, UDP to other ports, random bytes, IPv6, ARP
for other addresses, other ethertypes, frames for another MAC or address, other protocols, ICMP other than echo,
then echo requests and a well-formed UET ACK for a PDC that does not exist.

Usage: send_bad_frames.py IFACE OUT_JSON. Writes to OUT_JSON what each frame must be counted as: the port's reasons
(summary.json ports[].rx_drops), "refused" (the decoders' refusals: port_rx_refused, all reasons together) and
a few of them by name, "icmp_echo_answered", and "late_no_pdc" (host0's NIC counter, at least)."""
import json
import random
import struct
import sys
import time

from scapy.all import ARP, ICMP, IP, IPv6, TCP, UDP, Dot1Q, Ether, Raw, conf

HOST0_MAC, HOST0 = '02:00:00:00:00:01', '10.88.0.1'   # host0 of tests/lab/badframes.yaml
SRC_MAC, SRC = '02:aa:bb:cc:dd:ee', '10.88.0.200'     # an address nobody has: nothing is answered to it by ARP
UET = 4793


def uet(pds, dst_mac=HOST0_MAC, dst=HOST0, dport=UET):
    """pds after Ethernet / IPv4 (TTL 64, DF) / UDP to dport, checksum 0 as UET sends."""
    return bytes(Ether(dst=dst_mac, src=SRC_MAC) / IP(src=SRC, dst=dst, ttl=64, flags='DF') /
                 UDP(sport=300, dport=dport, chksum=0) / Raw(pds))


def data_pds(payload):
    """A RUD_CC request with SYN and AR, and a standard SES header with SOM and EOM (docs/wire.md)."""
    req = struct.pack('>HhIHHI', (13 << 11) | (3 << 7) | 0x08 | 0x04, 0, 1000, 7, 0, 0)
    ses = bytearray(44)
    ses[0], ses[1] = 5, 0x03
    struct.pack_into('>I', ses, 40, payload)
    return req + bytes(ses) + bytes(i & 0xff for i in range(payload))


def ack_pds(dpdcid):
    """An ACK_CC (32 B) to PDC dpdcid."""
    return struct.pack('>HhIHH', 8 << 11, 0, 5, 9, dpdcid) + bytes(20)


def frames():
    """(frame, what it counts as) in sending order."""
    rng = random.Random(18760)
    out = []
    data = uet(data_pds(1024))                               # 1,126 B, the data frame of a 1,024 B MSS
    for cut in (14, 20, 33):                                 # cut inside the IPv4 header
        out.append((data[:cut], 'short_ip'))
    for cut in (34, 41, 42, 57, 58, 101, 102, 600, 1125):   # cut after it: the datagram is longer than the frame
        out.append((data[:cut], 'bad_ip_len'))
    # oversized: 8,974 B (the veths' MTU is 9,000), more than the port's 2,048 B af_packet frames: cut there; whole,
    # an ACK with 8,900 trailing bytes. Refused either way
    out.append((uet(ack_pds(40000) + bytes(8900)), 'refused'))
    bad = bytearray(uet(ack_pds(40000)))
    bad[24] ^= 0xff                                          # the IPv4 checksum
    out.append((bytes(bad), 'bad_ip_csum'))
    out.append((uet(ack_pds(40000), dport=4791), 'udp_other_port'))     # RoCEv2
    out.append((uet(b'\x00' * 12, dport=53), 'udp_other_port'))
    for _ in range(40):                                      # random bytes after an Ethernet header to host0
        n = rng.randint(1, 1400)
        out.append((bytes(Ether(dst=HOST0_MAC, src=SRC_MAC, type=0x0800)) + rng.randbytes(n), 'refused'))
    out.append((bytes(Ether(dst='33:33:00:00:00:01', src=SRC_MAC) / IPv6(src='fe80::1', dst='ff02::1') /
                      ICMP()), 'ipv6'))
    out.append((bytes(Ether(dst=HOST0_MAC, src=SRC_MAC) / IPv6(src='fd00::1', dst='fd00::2') /
                      UDP(dport=UET)), 'ipv6'))
    out.append((bytes(Ether(dst=HOST0_MAC, src=SRC_MAC, type=0x86dd) / Raw(b'\x60' + bytes(50))), 'ipv6'))
    for last in range(77, 81):                               # who has 10.88.0.77 .. 80
        out.append((bytes(Ether(dst='ff:ff:ff:ff:ff:ff', src=SRC_MAC) /
                          ARP(op=1, hwsrc=SRC_MAC, psrc=SRC, pdst='10.88.0.%d' % last)), 'arp_other_target'))
    out.append((bytes(Ether(dst='ff:ff:ff:ff:ff:ff', src=SRC_MAC) /
                      ARP(op=1, hwsrc=SRC_MAC, psrc=SRC, pdst=HOST0, plen=16)), 'bad_arp'))
    lldp = bytes(Ether(dst='01:80:c2:00:00:0e', src=SRC_MAC, type=0x88cc) / Raw(bytes(46)))
    out += [(lldp, 'other_ethertype'), (lldp, 'other_ethertype')]
    out.append((bytes(Ether(dst=HOST0_MAC, src=SRC_MAC) / Dot1Q(vlan=7) / IP(src=SRC, dst=HOST0) /
                      UDP(sport=300, dport=UET) / Raw(ack_pds(40000))), 'other_ethertype'))
    out.append((uet(ack_pds(40000), dst_mac='02:00:00:00:00:99'), 'not_our_mac'))
    out.append((uet(ack_pds(40000), dst_mac='02:00:00:00:00:99'), 'not_our_mac'))
    out.append((bytes(Ether(dst='ff:ff:ff:ff:ff:ff', src=SRC_MAC) / IP(src='0.0.0.0', dst='255.255.255.255') /
                      UDP(sport=68, dport=67) / Raw(bytes(240))), 'not_our_mac'))
    out.append((uet(ack_pds(40000), dst='10.88.0.99'), 'ip_other_host'))
    out.append((bytes(Ether(dst=HOST0_MAC, src=SRC_MAC) / IP(src=SRC, dst=HOST0) / TCP(dport=80, flags='S')),
                'ip_other_proto'))
    out.append((bytes(Ether(dst=HOST0_MAC, src=SRC_MAC) / IP(src=SRC, dst=HOST0) / ICMP(type=13)), 'icmp_other'))
    out.append((bytes(Ether(dst=HOST0_MAC, src=SRC_MAC) / IP(src=SRC, dst=HOST0) / ICMP(type=3, code=3) /
                      Raw(bytes(28))), 'icmp_other'))
    for seq in (1, 2):
        out.append((bytes(Ether(dst=HOST0_MAC, src=SRC_MAC) / IP(src=SRC, dst=HOST0) /
                          ICMP(type=8, id=0x4242, seq=seq) / Raw(bytes(56))), 'icmp_echo_answered'))
    out.append((uet(ack_pds(40000)), 'late_no_pdc'))        # well-formed, for no PDC: the NIC ignores it
    return out


def main(iface, path):
    fs = frames()
    want = {}
    refused = {'short_ip', 'bad_ip_len', 'bad_ip_csum', 'bad_arp', 'refused'}
    for _, what in fs:
        want[what] = want.get(what, 0) + 1
        if what in refused and what != 'refused':
            want['refused'] = want.get('refused', 0) + 1
    sock = conf.L2socket(iface=iface)
    for frame, _ in fs:
        sock.send(frame)
        time.sleep(0.005)
    sock.close()
    with open(path, 'w') as f:
        json.dump(want, f)
    print(len(fs), 'frames sent')


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2])
