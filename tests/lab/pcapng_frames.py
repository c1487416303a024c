#!/usr/bin/env python3
"""Print the frames of a uetemu pcapng capture, one line each: direction, emulated time (its comment) and bytes in
hex. Used by lab_record.sh to compare a real-time session's port captures with its re-run's.
Usage: pcapng_frames.py FILE [out|in|all]"""
import struct
import sys


def frames(path):
    """(direction 'in'/'out'/'', comment, bytes) of each Enhanced Packet Block of a little-endian pcapng file."""
    data = open(path, 'rb').read()
    off = 0
    while off + 12 <= len(data):
        btype, blen = struct.unpack_from('<II', data, off)
        if blen < 12 or off + blen > len(data):
            break
        if btype == 6:
            caplen, = struct.unpack_from('<I', data, off + 20)
            frame = data[off + 28:off + 28 + caplen]
            opt = off + 28 + caplen + (-caplen % 4)
            comment, direction = '', ''
            while opt + 4 <= off + blen - 4:
                code, olen = struct.unpack_from('<HH', data, opt)
                if code == 0:
                    break
                val = data[opt + 4:opt + 4 + olen]
                if code == 1:
                    comment = val.decode('utf-8', 'replace')
                elif code == 2:
                    flags, = struct.unpack('<I', val[:4])
                    direction = {1: 'in', 2: 'out'}.get(flags & 3, '')
                opt += 4 + olen + (-olen % 4)
            yield direction, comment, frame
        off += blen


def main():
    want = sys.argv[2] if len(sys.argv) > 2 else 'all'
    for direction, comment, frame in frames(sys.argv[1]):
        if want in ('all', direction):
            print(direction, comment, frame.hex())


if __name__ == '__main__':
    main()
