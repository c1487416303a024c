#!/usr/bin/env python3
"""Write a pcap of connection-management frames (docs/wire.md, Connection setup frames) that a real port might
deliver to host1 of tests/lab/badport-cm.yaml, from host0's address unless noted. Prints one line per frame:
"<name> <what it is counted as when host1 is the Responder> <... when host1 is the Initiator>", where a count is
"invalid", "not_listening" or "refused" (the decoder's BAD_CM, before the application sees it)."""
import struct
import sys

from gen_bad_frames import csum, write_pcap

DST_MAC = bytes.fromhex('020000000002')  # host1
SRC_MAC = bytes.fromhex('02aabbccddee')
HOST0, HOST1 = b'\x0a\x00\x00\x01', b'\x0a\x00\x00\x02'
REQ, REP, RTU = 1, 2, 3
RESP = 1 << 31  # a Responder's id has bit 31 set


def cm(kind, connection, local_id, remote_id, src_ip=HOST0, version=1):
    hdr = struct.pack('>BBHIIII', kind, version, connection, local_id, remote_id, 0, 0)
    udp = struct.pack('>HHHH', 0xC000 | (local_id & 0x3FFF), 4794, 8 + len(hdr), 0) + hdr
    ip = bytearray(struct.pack('>BBHHHBBH4s4s', 0x45, 46 << 2, 20 + len(udp), 0, 0x4000, 255, 17, 0, src_ip, HOST1))
    ip[10:12] = struct.pack('>H', csum(bytes(ip)))
    return DST_MAC + SRC_MAC + b'\x08\x00' + bytes(ip) + udp


# The pair has one connection: the Initiator's id for it is 1, the Responder's RESP | 1.
FRAMES = [
    ('request', cm(REQ, 0, 1, 0), 'not_listening', 'invalid'),           # good, but before StartTime / wrong side
    ('request-unknown-id', cm(REQ, 0, 7, 0), 'invalid', 'invalid'),      # no connection 7
    ('request-id-0', cm(REQ, 0, 0, 0), 'invalid', 'invalid'),            # ids are never 0
    ('request-from-elsewhere', cm(REQ, 0, 1, 0, src_ip=b'\x0a\x00\x00\x09'), 'invalid', 'invalid'),
    ('request-other-connection', cm(REQ, 3, 1, 0), 'invalid', 'invalid'),  # the pair's connection 0 only
    ('reply-responder-id', cm(REP, 0, RESP | 1, RESP | 1), 'invalid', 'invalid'),  # names the Responder's id
    ('ready-initiator-id', cm(RTU, 0, 1, 1), 'invalid', 'invalid'),      # a ReadyToUse names the Responder's id
    ('request-version-2', cm(REQ, 0, 1, 0, version=2), 'refused', 'refused'),
]


def main(path):
    write_pcap(path, [fr for _, fr, _, _ in FRAMES])
    for name, _, as_resp, as_init in FRAMES:
        print(name, as_resp, as_init)


if __name__ == '__main__':
    main(sys.argv[1])
