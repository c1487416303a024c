#!/usr/bin/env python3
"""The pingpong and responder applications (docs/pingpong.md).

configs/pingpong.yaml: 1,000 round trips of 4,096 B each way on an idle 100 Gb/s link with 1 us delay. The first
round trip, by hand: each way a 4,198 B data frame, 4,202 B on the wire with the FCS, serializes in
4,202 x 8 / 100 Gb/s = 336,160 ps and crosses the link in 1,000,000 ps; the NICs add their doorbell, the PCIe fetch
of the payload at the sender and its PCIe write at the receiver, 225,980 ps for the two ways at the default PCIe
attributes (a constant: the same at 400 Gb/s and 2 us, checked). So the first RTT is
2 x (336,160 + 1,000,000) + 225,980 = 2,898,300 ps. Checks too: 1,000 round trips and replies, min <= p50 <= p90
<= p99 <= max, the table line, 2,000 data frames of 4,198 B in the capture; a responder answering each message of a messages workload; a ping-pong with host0 on the
reference provider's profile completing; config errors named.
Usage: test_pingpong.py UETEMU SRCDIR"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import uetpcap  # noqa: E402

fails = []
NIC_PS = 225_980  # both NICs' doorbell, PCIe fetch and PCIe delivery of a 4,096 B message, both ways


def check(cond, what):
    if not cond:
        fails.append(what)


def run(uetemu, cfg_text, out, expect_ok=True):
    path = os.path.join(out, 'cfg.yaml')
    with open(path, 'w') as f:
        f.write(cfg_text)
    r = subprocess.run([uetemu, 'run', path, '--out', os.path.join(out, 'o')], capture_output=True, text=True,
                       timeout=120)
    if expect_ok:
        check(r.returncode == 0, 'run failed: %s' % r.stderr[-1500:])
        return r, json.load(open(os.path.join(out, 'o', 'summary.json')))
    return r, None


def wire_ps(frame_wire_bytes, bps):
    return frame_wire_bytes * 8 * 10**12 // bps


def main():
    uetemu, src = sys.argv[1], sys.argv[2]
    out = tempfile.mkdtemp(prefix='pingpong-')
    base = open(os.path.join(src, 'configs', 'pingpong.yaml')).read()

    for rate, bps, delay, dps in (('100Gbps', 100 * 10**9, '1us', 10**6), ('400Gbps', 400 * 10**9, '2us', 2 * 10**6)):
        text = base.replace('100Gbps', rate).replace('Delay: 1us', 'Delay: ' + delay)
        r, s = run(uetemu, text, out)
        pp = s['pingpong'][0]
        t = pp['rtt_ps']
        want = 2 * (wire_ps(4096 + 106, bps) + dps) + NIC_PS
        check(pp['count'] == 1000 and pp['replies'] == 1000 and pp['post_fail'] == 0, 'pingpong %s' % pp)
        check(t['first'] == want, '%s %s: first RTT %d ps, by hand %d' % (rate, delay, t['first'], want))
        check(t['min'] <= t['p50'] <= t['p90'] <= t['p99'] <= t['max'] and t['min'] > 0, 'percentiles %s' % t)
        check('pingpong host0 -> host1: 1000/1000 round trips' in r.stdout, 'table line missing: %s' % r.stdout)
        print('%s, %s: first RTT %d ps (by hand %d), p50 %d, p90 %d, p99 %d, max %d' %
              (rate, delay, t['first'], want, t['p50'], t['p90'], t['p99'], t['max']))
        if rate == '100Gbps':  # the capture: the round trips' 2,000 data frames of 4,198 B
            frames = [f for _, f in uetpcap.read_pcap(os.path.join(out, 'o', 'l0.pcap')) if len(f) == 4096 + 102]
            check(len(frames) == 2000, '%d data frames of 4,198 B captured' % len(frames))

    # a responder answers every message a messages workload sends its host
    text = base.replace('  - {type: pingpong, client: host0, server: host1, size: 4096, iterations: 1000}',
                        '  - {type: responder, server: host1, reply: 512}\n'
                        '  - type: messages\n    list:\n'
                        '      - {src: host0, dst: host1, bytes: 64KiB, start: 0us}\n'
                        '      - {src: host0, dst: host1, bytes: 4KiB, start: 20us}\n'
                        '      - {src: host0, dst: host1, bytes: 1000, start: 40us}')
    r, s = run(uetemu, text, out)
    rs = s['pingpong'][0]
    check(rs['type'] == 'responder' and rs['replies'] == 3, 'responder %s' % rs)
    check(s['messages']['completed'] == 3, 'messages %s' % s['messages'])
    check(s['hosts'][0]['rx_payload_bytes'] == 3 * 512, 'host0 received %s' % s['hosts'][0]['rx_payload_bytes'])

    # the reference provider's profile on the client: RUD_REQ out, plain ACKs with SES responses back
    text = base.replace('{name: host0, ip: 10.0.0.1}', '{name: host0, ip: 10.0.0.1, profile: uec-ref-prov}') \
        .replace('nic:\n', 'nic:\n  UETEncapsulation: {AckSesResponse: WhenAsked}\n')
    r, s = run(uetemu, text, out)
    pp = s['pingpong'][0]
    check(pp['count'] == 1000, 'refprov pingpong %s' % pp)
    check(s['hosts'][1]['uet_rx']['pds'].get('rud_req', 0) >= 1000, 'host1 uet_rx %s' % s['hosts'][1]['uet_rx'])
    print('refprov client: %d round trips, p50 %d ps' % (pp['count'], pp['rtt_ps']['p50']))

    # config errors, each named
    for bad, msg in (
            ('{type: pingpong, server: host1}', 'a ping-pong needs client'),
            ('{type: pingpong, client: host0, server: host0}', 'client and server are both'),
            ('{type: pingpong, client: host0, server: host1, iterations: 0}', 'iterations'),
            ('{type: pingpong, client: host0, server: host1, size: 0}', 'a message here is 1 B to 1 GiB'),
            ('{type: responder, server: host1, iterations: 5}', 'a responder has no iterations'),
            ('{type: pingpong, client: host9, server: host1}', "unknown host 'host9'"),
            ('{type: pingpong, client: host0, server: host1, colour: red}', 'colour')):
        text = base.replace('{type: pingpong, client: host0, server: host1, size: 4096, iterations: 1000}', bad)
        r, _ = run(uetemu, text, out, expect_ok=False)
        check(r.returncode != 0 and msg in r.stderr, '%s: rc %d, %s' % (bad, r.returncode, r.stderr.strip()))
    if fails:
        for f in fails[:20]:
            print('FAIL:', f)
        sys.exit(1)
    shutil.rmtree(out)
    print('ok')


main()
