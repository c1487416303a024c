#!/usr/bin/env python3
"""Write a pcap of frames a real port might deliver to an emulated host: truncated at every header byte,
oversized, mis-checksummed, wrong ethertype/protocol/port, random bytes, and two well-formed UET frames that
name no open PDC. Prints "<total> <malformed>" (the frames the decoder must refuse)."""
import random
import struct
import sys

DST_MAC = bytes.fromhex('020000000003')  # host2 of tests/lab/badport.yaml
SRC_MAC = bytes.fromhex('02aabbccddee')


def csum(b):
    s = sum((b[i] << 8) | b[i + 1] for i in range(0, len(b), 2))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return (~s) & 0xffff


def write_pcap(path, frames):
    """A nanosecond pcap of Ethernet frames, 1 us apart."""
    with open(path, 'wb') as f:
        f.write(struct.pack('<IHHiIII', 0xa1b23c4d, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(frames):
            f.write(struct.pack('<IIII', 0, i * 1000, len(fr), len(fr)) + fr)


def frame(pds, dscp=46, src_ip=b'\x0a\x00\x00\x09', dst_ip=b'\x0a\x00\x00\x03', dport=4793, proto=17):
    udp = struct.pack('>HHHH', 300, dport, 8 + len(pds), 0) + pds
    ip = bytearray(struct.pack('>BBHHHBBH4s4s', 0x45, dscp << 2 | 1, 20 + len(udp), 0, 0x4000, 255, proto, 0,
                               src_ip, dst_ip))
    ip[10:12] = struct.pack('>H', csum(bytes(ip)))
    return DST_MAC + SRC_MAC + b'\x08\x00' + bytes(ip) + udp


def data_pds(payload=1024):
    req = struct.pack('>HhIHHI', (13 << 11) | (3 << 7) | 0x08 | 0x04, 0, 1000, 7, 0, 0)
    ses = bytearray(44)
    ses[0] = 5
    ses[1] = 0x03  # SOM | EOM
    struct.pack_into('>I', ses, 40, payload)
    return req + bytes(ses) + bytes(i & 0xff for i in range(payload))


def main(path):
    rng = random.Random(18760)
    good = frame(data_pds(), dscp=0)
    bad = []
    bad += [good[:n] for n in range(1, 102)]                  # cut inside every header
    bad += [good[:n] for n in range(102, len(good), 97)]      # cut inside the payload
    x = bytearray(good); x[24] ^= 0xff; bad.append(bytes(x))  # IPv4 checksum wrong
    x = bytearray(good); x[12:14] = b'\x08\x06'; bad.append(bytes(x))  # ARP ethertype
    bad.append(frame(data_pds(), proto=6))                    # TCP
    bad.append(frame(data_pds(), dport=4791))                 # RoCEv2 port, not UET
    bad.append(frame(struct.pack('>H', 31 << 11) + bytes(14)))  # unknown PDS type
    bad.append(bytes(rng.getrandbits(8) for _ in range(9216)))  # oversized: 9,216 random bytes
    bad += [bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 1600))) for _ in range(300)]
    ack = struct.pack('>HhIHH', 8 << 11, 0, 5, 40000, 9) + bytes(20)   # ACK_CC for no open PDC
    probe = struct.pack('>HHIHHI', (11 << 11) | (6 << 7) | 0x08, 1, 5, 9, 40000, 5)  # probe, no PDC
    wellformed = [frame(ack), frame(probe)]
    frames = bad[:]
    for i, w in enumerate(wellformed):
        frames.insert(10 + 50 * i, w)
    write_pcap(path, frames)
    print(len(frames), len(bad))


if __name__ == '__main__':
    main(sys.argv[1])
