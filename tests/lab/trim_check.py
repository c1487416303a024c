#!/usr/bin/env python3
"""Check a capture of trim_send.py's frames after the trimmer (tests/lab/test_trim.sh) against what uetemu-trim
must do, and its counters (uetemu-trim stats --json before and after) against the capture.

Usage: trim_check.py PCAP STATS0 STATS1 N PAYLOAD MIN DSCP_TRIMMED

Prints one line per check (PASS: / FAIL: ...); exit 0 when every check passed.
"""

import json
import struct
import sys

MIN_TRIM_UET = 16  # UET bytes after the UDP or entropy header


def frames(path):
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack("<I", data[:4])[0]
    end = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
    off = 24
    while off + 16 <= len(data):
        _, _, incl, _ = struct.unpack(end + "IIII", data[off:off + 16])
        yield data[off + 16:off + 16 + incl]
        off += 16 + incl


def csum(b):
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def main():
    pcap, s0, s1 = sys.argv[1:4]
    n, size, mn, dscp_t = (int(x) for x in sys.argv[4:8])
    c0 = json.load(open(s0))["counters"]
    c1 = json.load(open(s1))["counters"]
    d = {k: c1[k] - c0[k] for k in c0 if k not in ("vq_bytes", "vq_now", "vq_peak")}
    fails = []

    def check(cond, text):
        print(("PASS: " if cond else "FAIL: ") + text)
        if not cond:
            fails.append(text)

    seen = {}  # index -> (kind, frame)
    ip_frames = 0
    for fr in frames(pcap):
        if len(fr) < 34 or fr[12:14] != b"\x08\x00":
            continue
        ip_frames += 1
        ip = fr[14:34]
        proto = ip[9]
        if proto == 17:
            idx = struct.unpack("!H", fr[42:44])[0]
        elif proto == 253:
            idx = struct.unpack("!H", fr[34:36])[0]
        else:
            continue
        seen[idx] = fr
    total = n + 30
    check(len(seen) == total and ip_frames == total, f"every frame captured once ({len(seen)} of {total})")
    udp_len = 14 + 20 + 8 + size
    whole_first = mn // udp_len  # these fit under min whatever the queue drained
    trimmed_idx, cut = [], 0
    for i in range(total):
        fr = seen.get(i)
        if fr is None:
            continue
        native = fr[23] == 253
        sent_len = 14 + 20 + (0 if native else 8) + size
        tos = fr[15]
        trimmable = i < n or i >= n + 20
        tr = len(fr) < sent_len
        if not tr:
            ok = len(fr) == sent_len and (tos >> 2) == (46 if n <= i < n + 10 else 8)
            if not ok:
                check(False, f"frame {i}: whole and as sent ({len(fr)} B, DSCP {tos >> 2})")
            continue
        trimmed_idx.append(i)
        cut += sent_len - len(fr)
        l4 = 4 if native else 8
        want_ip = 20 + l4 + MIN_TRIM_UET
        body = bytes([i >> 8, i & 0xFF]) + bytes([0x5A]) * (size - 2)
        ip = fr[14:34]
        kept = 34 + l4 + MIN_TRIM_UET  # the frame's end: what is left of the IP payload is l4 + 16 bytes
        good = (trimmable and len(fr) == kept and struct.unpack("!H", ip[2:4])[0] == want_ip and
                (tos >> 2) == dscp_t and (tos & 3) == (2 if native else 1) and ip[8] == 64 and csum(ip) == 0xFFFF)
        if native:  # the payload (entropy header, then UET) as sent, cut
            good = good and fr[34:kept] == body[:l4 + MIN_TRIM_UET]
        else:  # UDP ports as sent, length 24, checksum 0, then the UET bytes as sent, cut
            good = (good and struct.unpack("!HHH", fr[36:42]) == (4793, 8 + MIN_TRIM_UET, 0) and
                    fr[42:kept] == body[:MIN_TRIM_UET])
        if not good:
            check(False, f"frame {i} trimmed as UET 1.0 says: {fr.hex()}")
    if not fails:
        check(True, f"{len(trimmed_idx)} trimmed frames: IPv4 length 44 (40 native), DSCP {dscp_t}, ECN and TTL as "
              "sent, IP checksum good, UDP length 24 and checksum 0, the first 16 UET bytes kept; the rest whole")
    udp_tr = [i for i in trimmed_idx if i < n]
    k = min(udp_tr) if udp_tr else n
    check(whole_first <= k <= whole_first + 2 and udp_tr == list(range(k, n)),
          f"the first {k} trimmable UDP frames whole (the queue below --min: {whole_first} of {udp_len} B "
          f"fit), every one after trimmed ({len(udp_tr)})")
    check(all(i in trimmed_idx for i in range(n + 20, n + 30)), "every native (protocol 253) frame trimmed "
          "(the queue above --min by then)")
    check(not any(n <= i < n + 20 for i in trimmed_idx), "no DSCP 46 frame and no UDP 9999 frame trimmed")
    check(d["packets"] == total and d["uet"] == n + 20 and d["trimmable"] == n + 10,
          f"stats: packets {d['packets']}, uet {d['uet']}, trimmable {d['trimmable']}")
    check(d["trimmed"] == len(trimmed_idx) and d["trimmed_bytes"] == cut and d["trim_failed"] == 0,
          f"stats: trimmed {d['trimmed']} (capture {len(trimmed_idx)}), trimmed_bytes {d['trimmed_bytes']} "
          f"(capture {cut}), trim_failed {d['trim_failed']}")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
