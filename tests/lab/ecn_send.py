#!/usr/bin/env python3
"""Send COUNT UDP datagrams as fast as a socket takes them, for the CE marker's lab test (test_ecn.sh).

Usage: ecn_send.py DST_IP PORT COUNT FRAME_BYTES
Datagram i carries "uetecn %06d" % i, padded so the Ethernet frame is FRAME_BYTES long (14 + 20 + 8 + payload),
and the ECN field of its IP header is the test's pattern: i % 3 == 2 Not-ECT, else ECT(0) for even i and ECT(1)
for odd i (IP_TOS set before each send). Prints the wall time the sending took, in seconds, on stdout.
"""
import socket
import sys
import time


def ecn_of(i):
    if i % 3 == 2:
        return 0
    return 2 if i % 2 == 0 else 1


def main():
    dst, port, count, frame = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    pad = frame - 14 - 20 - 8
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    t0 = time.monotonic()
    for i in range(count):
        s.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, ecn_of(i))
        s.sendto(("uetecn %06d" % i).encode().ljust(pad, b"."), (dst, port))
    print("%.6f" % (time.monotonic() - t0))


if __name__ == "__main__":
    main()
