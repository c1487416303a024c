#!/usr/bin/env python3
"""Garbage on a link between two uetemu processes (tests/lab/lab_peers.sh): frames no uetemu sends, from a raw
AF_PACKET socket on IFACE, COUNT rounds of: random bytes (random lengths, a random or a broadcast destination),
IPv4/UDP frames to the UET port cut inside their headers, IPv4 with impossible fields (version 5, IHL 3, total
length past the frame, UDP length past the packet), UET over UDP and native IPv4 with random headers to hosts of
the fabric, and hellos of the processes' ethertype (0x88b5) with another
magic, another version, an unknown kind. Prints "sent N bad-hellos M" (frames the socket took). Fixed seed."""
import random, socket, struct, sys, time

iface, rounds = sys.argv[1], int(sys.argv[2])
rnd = random.Random(7)
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((iface, 0))
bcast, src = b'\xff' * 6, bytes.fromhex('020000aaaaaa')


def ipv4(payload, ver_ihl=0x45, tot=None, proto=17, dst=(10, 1, 0, 2)):
    tot = 20 + len(payload) if tot is None else tot
    h = struct.pack('!BBHHHBBH4s4s', ver_ihl, 0, tot, 1, 0, 64, proto, 0, bytes([10, 1, 0, 1]), bytes(dst))
    c = sum(struct.unpack('!10H', h))
    c = (c & 0xffff) + (c >> 16)
    c = (c & 0xffff) + (c >> 16)
    return h[:10] + struct.pack('!H', ~c & 0xffff) + h[12:] + payload


def udp(dport, body, ulen=None):
    return struct.pack('!HHHH', 4793, dport, 8 + len(body) if ulen is None else ulen, 0) + body


sent = bad = 0
for r in range(rounds):
    frames = []
    for _ in range(4):  # random bytes
        n = rnd.randint(14, 300)
        b = bytes(rnd.getrandbits(8) for _ in range(n))
        frames.append((bcast + b[6:]) if rnd.random() < 0.5 else b)
    uet = bcast + src + b'\x08\x00' + ipv4(udp(4793, bytes(40)))
    frames += [uet[:rnd.randint(15, 45)] for _ in range(3)]  # cut inside the IPv4 or UDP header
    frames.append(bcast + src + b'\x08\x00' + ipv4(udp(4793, bytes(40)), ver_ihl=0x55))    # IPv4 version 5
    frames.append(bcast + src + b'\x08\x00' + ipv4(udp(4793, bytes(40)), ver_ihl=0x43))    # IHL 3
    frames.append(bcast + src + b'\x08\x00' + ipv4(udp(4793, bytes(40)), tot=1400))       # past the frame
    frames.append(bcast + src + b'\x08\x00' + ipv4(udp(4793, bytes(40), ulen=900)))      # UDP past the packet
    # well-formed IPv4 and UDP, random UET headers, to hosts of the fabric (10.0.0.1 and .2, partition a's)
    for dst in ((10, 0, 0, 1), (10, 0, 0, 2)):
        body = bytes(rnd.getrandbits(8) for _ in range(rnd.randint(1, 120)))
        frames.append(bcast + src + b'\x08\x00' + ipv4(udp(4793, body), dst=dst))
    frames.append(bcast + src + b'\x08\x00' + ipv4(bytes(rnd.getrandbits(8) for _ in range(64)), proto=253,
                                                     dst=(10, 0, 0, 1)))  # native UET, random headers
    hello = b'UETP' + bytes([1, 1]) + struct.pack('!III', r, 1000, 1)
    for h in (b'XXXX' + hello[4:], hello[:4] + b'\x09' + hello[5:], hello[:5] + b'\x07' + hello[6:]):
        frames.append((bcast + src + b'\x88\xb5' + h).ljust(60, b'\0'))
        bad += 1
    frames.append(bcast + src + b'\x88\xb5' + b'UE')  # a hello cut short
    bad += 1
    for f in frames:
        s.send(f)
        sent += 1
    time.sleep(0.05)
print('sent %d bad-hellos %d' % (sent, bad))
