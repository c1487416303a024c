#!/usr/bin/env python3
"""Frames for the trimmer test (tests/lab/test_trim.sh): sends, as fast as the sockets take them, in this order

  N  UET over UDP to port 4793, DSCP 8 (trimmable), ECT(1)
  10 UET over UDP to port 4793, DSCP 46 (control: never trimmed)
  10 UDP to port 9999, DSCP 8 (not UET: never trimmed)
  10 native UET, IPv4 protocol 253 (a raw socket), DSCP 8, ECT(0)

each of PAYLOAD bytes: 2 bytes of index, then 0x5a... (the UET bytes a trim keeps are checked against them).

Usage: trim_send.py DST_IP N PAYLOAD
"""

import socket
import sys


def body(i, n):
    return bytes([i >> 8, i & 0xFF]) + bytes([0x5A]) * (n - 2)


def main():
    dst, n, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    ctl = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    raw = socket.socket(socket.AF_INET, socket.SOCK_RAW, 253)
    udp.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, (8 << 2) | 1)
    ctl.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, 46 << 2)
    raw.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, (8 << 2) | 2)
    i = 0
    for _ in range(n):
        udp.sendto(body(i, size), (dst, 4793))
        i += 1
    for _ in range(10):
        ctl.sendto(body(i, size), (dst, 4793))
        i += 1
    for _ in range(10):
        udp.sendto(body(i, size), (dst, 9999))
        i += 1
    for _ in range(10):
        raw.sendto(body(i, size), (dst, 0))
        i += 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
