#!/usr/bin/env python3
"""Send 802.1Qbb PFC frames on an interface (scapy): COUNT pauses of PRIORITY at full quanta (65,535), INTERVAL
seconds apart, from the wall-clock time AT (seconds since the epoch; at once if past), then one resume (quanta 0) of
it. Untagged, to 01:80:C2:00:00:01, as 802.1Qbb sends them. Usage: send_pfc.py IFACE PRIORITY COUNT INTERVAL AT.
Prints the wall-clock time of every pause, first to last, and then of the resume, on one line."""
import struct
import sys
import time

from scapy.all import Ether, Raw, sendp  # noqa: E402


def pfc(src, prio, quanta):
    times = [0] * 8
    times[prio] = quanta
    body = struct.pack('>HH8H', 0x0101, 1 << prio, *times)
    return Ether(dst='01:80:c2:00:00:01', src=src, type=0x8808) / Raw(body + bytes(60 - 14 - len(body)))


def main(iface, prio, count, interval, at):
    src = open(f'/sys/class/net/{iface}/address').read().strip()
    time.sleep(max(0.0, at - time.time()))
    sent = []
    for i in range(count):
        sent.append(time.time())
        sendp(pfc(src, prio, 0xffff), iface=iface, verbose=False)
        time.sleep(interval)
    sent.append(time.time())
    sendp(pfc(src, prio, 0), iface=iface, verbose=False)
    print(' '.join(f'{t:.6f}' for t in sent))


if __name__ == '__main__':
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]))
