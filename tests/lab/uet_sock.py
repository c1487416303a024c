#!/usr/bin/env python3
"""A UET peer that is nothing but a Linux UDP socket (tests/lab/lab_sock.sh): it sends one message as RUD_CC
requests to an emulated host, as uetemu's own NIC sends them, and reads the host's ACKs from the same socket.

Usage: uet_sock.py SRC_IP DST_IP [--packets N] [--payload B] [--timeout S]

The socket is bound to SRC_IP:4793 (UET's port: the ACKs come back to it) and sends to DST_IP:4793 with the
kernel's defaults, so on a veth with TX checksum offload on (the default) every frame leaves with a partial UDP
checksum: the pseudo-header sum only, the device being left to finish it. Each request is a RUD_CC_REQ (PDS type
13, 16 B: SYN and AR set, psn_offset from the first PSN in the DPCID slot, ccc_id 1) followed by a standard SES
header (44 B, RDMA WRITE, SOM on the first, EOM on the last, request_length the message's length) and the payload,
laid out as in the UET 1.0 specification (tests/wire/gen_uet_vectors.py builds the same headers). Prints one JSON
line: the packets sent, the ACKs read (PDS type, CACK PSN, DPDCID), and whether the last PSN was acknowledged.
Exit 0 when it was, 1 when not (within --timeout), 2 on a usage error.
"""

import argparse
import json
import socket
import struct
import sys
import time

UET_PORT = 4793
RUD_CC, ACK, ACK_CC = 13, 7, 8
NH_STD = 3
F_AR, F_SYN = 0x08, 0x04
SOM, EOM = 0x01, 0x02
OP_WRITE = 1
SPDCID = 0x2101
FIRST_PSN = 0x1000


def pds_rud_cc(flags, psn, psn_offset):
    """RUD_CC request, 16 B: prologue (type, next_hdr, flags), clear_psn_offset, PSN, SPDCID, psn_offset (SYN),
    ccc_id, credit_target."""
    prologue = (RUD_CC << 11) | (NH_STD << 7) | flags
    return struct.pack(">HhIHHB", prologue, 0, psn, SPDCID, psn_offset & 0x0FFF, 1) + b"\x00\x00\x00"


def ses_std(flags, msg_id, req_len, payload_len, msg_off):
    """Standard SES request, 44 B: opcode, flags, message_id, RI generation, job_id, pid_on_fep, resource_index,
    buffer_offset, initiator, memory_key, header_data (SOM) or payload_length + message_offset, request_length."""
    h = struct.pack(">BBHB", OP_WRITE, flags, msg_id, 0) + (0).to_bytes(3, "big") + struct.pack(">HH", 0, 0)
    h += struct.pack(">QIQ", msg_off, 0, 0)
    h += struct.pack(">Q", 0) if flags & SOM else struct.pack(">II", payload_len & 0x3FFF, msg_off)
    return h + struct.pack(">I", req_len)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("src_ip")
    ap.add_argument("dst_ip")
    ap.add_argument("--packets", type=int, default=4)
    ap.add_argument("--payload", type=int, default=1024)
    ap.add_argument("--timeout", type=float, default=5.0)
    a = ap.parse_args()
    total = a.packets * a.payload
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((a.src_ip, UET_PORT))
    s.settimeout(0.2)
    last = FIRST_PSN + a.packets - 1
    acks, sent, acked = [], 0, False
    deadline = time.monotonic() + a.timeout
    for i in range(a.packets):
        flags = (SOM if i == 0 else 0) | (EOM if i == a.packets - 1 else 0)
        body = bytes((i * a.payload + k) & 0xFF for k in range(a.payload))
        frame = pds_rud_cc(F_SYN | F_AR, FIRST_PSN + i, i) + \
            ses_std(flags, 0x77, total, a.payload, i * a.payload) + body
        s.sendto(frame, (a.dst_ip, UET_PORT))
        sent += 1
    while time.monotonic() < deadline and not acked:
        try:
            data, peer = s.recvfrom(65536)
        except socket.timeout:
            continue
        if len(data) < 12:
            continue
        ptype = data[0] >> 3
        _, cack, spdcid, dpdcid = struct.unpack(">HIHH", data[2:12])
        acks.append({"from": peer[0], "type": ptype, "cack_psn": cack, "spdcid": spdcid, "dpdcid": dpdcid})
        if ptype in (ACK, ACK_CC) and dpdcid == SPDCID and cack == last:
            acked = True
    print(json.dumps({"sent": sent, "last_psn": last, "acks": acks, "acked": acked}))
    return 0 if acked else 1


if __name__ == "__main__":
    sys.exit(main())
