#!/usr/bin/env python3
"""Check one phase of the CE marker's lab test against its capture and the marker's counters.

Usage: ecn_check.py FIELDS STATS_BEFORE STATS_AFTER COUNT FRAME RATE_BPS MIN MAX PMAX SEND_S
FIELDS: tshark -T fields -e ip.dsfield.ecn -e ip.checksum.status -e udp.payload of the phase's datagrams (seen on
the far side of the veth); STATS_*: `uetemu-ecn stats --json` before and after the phase. Prints one line per
check, "ok ..." or "FAIL ...", and the numbers.
"""
import json
import math
import sys

from ecn_send import ecn_of


def main():
    fields, before, after = sys.argv[1], json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
    count, frame, rate = int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
    qmin, qmax, pmax, send_s = int(sys.argv[7]), int(sys.argv[8]), float(sys.argv[9]), float(sys.argv[10])
    got = {}
    bad_sum = 0
    for line in open(fields):
        ecn, status, payload = line.rstrip("\n").split("\t")
        seq = int(bytes.fromhex(payload.replace(":", ""))[7:13])
        got[seq] = int(ecn)
        bad_sum += status != "1"  # 1 = Good with ip.check_checksum:TRUE
    # The virtual queue after packet i holds at most (i+1) frames, and at least that less what drained while
    # the sender ran (send_s at most, plus 2 ms for scheduling): slack in frames.
    slack = math.ceil((send_s + 0.002) * rate / 8 / frame)
    fails = 0

    def check(name, ok):
        nonlocal fails
        print(("ok   " if ok else "FAIL ") + name)
        fails += not ok

    marked = [i for i, e in got.items() if e == 3]
    check("all %d datagrams captured (%d)" % (count, len(got)), len(got) == count)
    check("IP header checksum good on every datagram, %d marked (%d not good)" % (len(marked), bad_sum), bad_sum == 0)
    check("no Not-ECT datagram marked", all(ecn_of(i) != 0 for i in marked))
    check("unmarked datagrams keep their ECN field",
          all(e == ecn_of(i) for i, e in got.items() if e != 3))
    below = [i for i in marked if (i + 1) * frame < qmin]
    check("no mark below min: first mark at datagram %s, queue <= %d B there" %
          (min(marked) if marked else None, (min(marked) + 1) * frame if marked else 0), not below)
    over = [i for i in range(count) if ecn_of(i) != 0 and (i + 1 - slack) * frame >= qmax]
    check("every ECT datagram marked at or above max (%d of them, slack %d frames)" % (len(over), slack),
          all(got.get(i) == 3 for i in over))
    # The band: expected marks between the queue with no drain and with the most drain.
    band = [i for i in range(count) if ecn_of(i) != 0 and (i + 1 - slack) * frame < qmax]

    def p(q):
        return 0.0 if q < qmin else 1.0 if q >= qmax else pmax * (q - qmin) / (qmax - qmin)
    hi = sum(p((i + 1) * frame) for i in band)
    lo = sum(p((i + 1 - slack) * frame) for i in band)
    var = sum(p((i + 1) * frame) * (1 - p((i + 1) * frame)) for i in band)
    n_band = sum(1 for i in band if got.get(i) == 3)
    sd = math.sqrt(var)
    check("band: %d of %d ECT datagrams below max marked, expected %.1f..%.1f (sd %.1f)" %
          (n_band, len(band), lo, hi, sd), lo - 4 * sd - 1 <= n_band <= hi + 4 * sd + 1)
    d = {k: after["counters"][k] - before["counters"].get(k, 0) for k in after["counters"]}
    n_ect = sum(1 for i in range(count) if ecn_of(i) != 0)
    check("counters: packets %d == datagrams %d" % (d["packets"], count), d["packets"] == count)
    check("counters: bytes %d == %d" % (d["bytes"], count * frame), d["bytes"] == count * frame)
    check("counters: ect %d, not_ect %d == sent %d, %d" % (d["ect"], d["not_ect"], n_ect, count - n_ect),
          d["ect"] == n_ect and d["not_ect"] == count - n_ect)
    check("counters: marked %d == CE in the capture %d" % (d["marked"], len(marked)), d["marked"] == len(marked))
    peak = after["counters"]["vq_peak"]
    check("counters: vq_peak %d within [%d, %d]" % (peak, (count - slack) * frame, count * frame),
          (count - slack) * frame <= peak <= count * frame)
    wd = [i for i in range(count) if ecn_of(i) == 0 and (i + 1 - slack) * frame >= qmax]
    check("counters: would_drop %d >= %d Not-ECT datagrams surely above max" % (d["would_drop"], len(wd)),
          len(wd) <= d["would_drop"] <= count - n_ect)
    print("numbers: datagrams %d ect %d marked %d band_marked %d/%d would_drop %d vq_peak %d slack %d" %
          (count, n_ect, len(marked), n_band, len(band), d["would_drop"], peak, slack))
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
