#!/usr/bin/env python3
"""configs/interop-refprov.yaml (docs/wire.md, Peer profiles): host0 with the UEC reference provider's profile,
host1 default, messages both ways on one captured link. Checks every message completed; host0's frames are native
IPv4 protocol 253 with TTL 64, DF, ID 0, ECN 00, DSCP 0 on data and 46 on the rest; its data RUD_REQ (2) with a
12-byte PDS header, SYN on every packet until the first ACK reached it, Start_PSN in [2^16, 2^31), AR on EOM,
SES job 1, pid_on_fep 0, resource index 15, initiator 16; every
ACK host1 sends host0 a plain ACK (7) with a 12-byte SES response RC_OK; every frame of host0's ends in the refprov
CRC-32C (computed by tests/lib/crc32c.py, independently of uetemu: from the IPv4 source address to the end of the payload,
big-endian, counted in the IPv4 total length); host1's own requests stay RUD_CC_REQ over UDP; tshark with the
shipped dissector finds 0 malformed frames and 0 errors (skipped without tshark).
Usage: test_interop_refprov.py UETEMU SRCDIR"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
import uetpcap  # noqa: E402
from crc32c import crc32c  # noqa: E402

fails = []


def check(cond, what):
    if not cond:
        fails.append(what)


def main():
    uetemu, src = sys.argv[1], sys.argv[2]
    out = tempfile.mkdtemp(prefix='interop-refprov-')
    cfg = os.path.join(src, 'configs', 'interop-refprov.yaml')
    r = subprocess.run([uetemu, 'run', cfg, '--out', out], capture_output=True, text=True, timeout=120)
    check(r.returncode == 0, 'run failed: %s' % r.stderr[-2000:])
    s = json.load(open(os.path.join(out, 'summary.json')))
    msgs = s['messages']
    check(msgs['posted'] == 6 and msgs['completed'] == 6, 'messages: %s' % msgs)

    h0, h1 = b'\x0a\x00\x00\x01', b'\x0a\x00\x00\x02'
    n = {'data0': 0, 'syn0': 0, 'ack10': 0, 'crc0': 0, 'req1': 0}
    start_psn = set()
    acked = {}  # host0's sending PDC (SPDCID) -> an ACK of host1's has named it
    frames = list(uetpcap.read_pcap(os.path.join(out, 'l0.pcap')))
    for ts, f in frames:
        ip = f[14:34]
        proto, ttl, tos = ip[9], ip[8], ip[1]
        tot = struct.unpack('>H', ip[2:4])[0]
        if ip[12:16] == h0:
            check(proto == 253, 'host0 frame not native: proto %d' % proto)
            check(ttl == 64 and tos & 3 == 0 and struct.unpack('>H', ip[4:6])[0] == 0 and ip[6] & 0x40,
                  'host0 IPv4: ttl %d tos %#x' % (ttl, tos))
            check(tot == len(f) - 14, 'host0 IPv4 total length %d, frame %d' % (tot, len(f)))
            cov = f[14 + 12:len(f) - 4]
            ok = crc32c(cov) == struct.unpack('>I', f[-4:])[0]
            check(ok, 'host0 frame at %d ns: refprov CRC wrong' % ts)
            n['crc0'] += ok
            pds = f[38:]
            ptype = pds[0] >> 3
            flags = struct.unpack('>H', pds[0:2])[0] & 0x7f
            if ptype in (2, 13):
                check(ptype == 2, 'host0 data is PDS type %d, not RUD_REQ' % ptype)
                check(tos >> 2 == 0, 'host0 data DSCP %d' % (tos >> 2))
                n['data0'] += 1
                psn = struct.unpack('>I', pds[4:8])[0]
                ses = pds[12:]
                eom = ses[1] & 0x2  # opcode byte, then ver(2) + flags(6): EOM 0x02
                job = struct.unpack('>I', b'\0' + ses[5:8])[0]
                pid, ri = struct.unpack('>HH', ses[8:12])
                ini = struct.unpack('>I', ses[20:24])[0]
                check(ses[0] == 5 and job == 1 and pid & 0xfff == 0 and ri & 0xfff == 15 and ini == 16,
                      'host0 SES: opcode %d job %d pid %d ri %d initiator %d' % (ses[0], job, pid, ri, ini))
                spdcid = struct.unpack('>H', pds[8:10])[0]
                if flags & 0x04:  # SYN: DPDCID slot = pdc_info(4) + psn_offset(12)
                    n['syn0'] += 1
                    off = struct.unpack('>H', pds[10:12])[0] & 0xfff
                    start_psn.add((psn - off) & 0xffffffff)
                    if off == 0:  # a PDC's first packet: it has had no ACK yet
                        acked[spdcid] = False
                else:
                    check(acked.get(spdcid), 'PDC %d: data without SYN before its first ACK' % spdcid)
                if eom:  # AR on EOM (and on a packet that fills the window, or a retransmission)
                    check(flags & 0x08, 'EOM without AR')
            else:
                check(tos >> 2 == 46, 'host0 control DSCP %d' % (tos >> 2))
        elif ip[12:16] == h1:
            pds = f[42:] if proto == 17 else f[38:]
            ptype = pds[0] >> 3
            nh = (struct.unpack('>H', pds[0:2])[0] >> 7) & 0xf
            if ptype in (7, 8):
                acked[struct.unpack('>H', pds[10:12])[0]] = True  # DPDCID: host0's PDC
                # ACKs to host0's RUD_REQ requests: plain with the SES response; ACK_CC only for probes
                if ptype == 7:
                    n['ack10'] += 1
                    check(nh == 4 and len(pds) == 12 + 12, 'host1 ACK without SES response: nh %d' % nh)
                    rc = pds[12 + 1] & 0x3f
                    check(rc == 1, 'SES response return code %d' % rc)
            if ptype in (2, 13):
                n['req1'] += 1
                check(ptype == 13 and proto == 17, 'host1 request type %d proto %d' % (ptype, proto))
    check(n['data0'] > 0 and n['syn0'] > 0 and n['ack10'] > 0 and n['req1'] > 0, 'counts %s' % n)
    check(len(start_psn) >= 1 and all(1 << 16 <= p < 1 << 31 for p in start_psn),
          'Start_PSNs %s not in [2^16, 2^31)' % sorted(start_psn))
    print('frames %d, host0 data %d (SYN %d), host1 plain ACKs to host0 %d, refprov CRCs verified %d, '
          'Start_PSNs %s' % (len(frames), n['data0'], n['syn0'], n['ack10'], n['crc0'], sorted(start_psn)))

    tshark = shutil.which('tshark')
    if tshark:
        lua = os.path.join(src, 'scripts', 'wireshark', 'uet.lua')
        r = subprocess.run([tshark, '-r', os.path.join(out, 'l0.pcap'), '-X', 'lua_script:' + lua, '-Y',
                            '_ws.malformed || _ws.expert.severity == error'], capture_output=True, text=True,
                           timeout=120)
        bad = [ln for ln in r.stdout.splitlines() if ln.strip()]
        check(r.returncode == 0 and not bad, 'tshark: %d malformed or error frames: %s' % (len(bad), bad[:3]))
        r = subprocess.run([tshark, '-r', os.path.join(out, 'l0.pcap'), '-X', 'lua_script:' + lua, '-Y',
                            'uet.crc.refprov == 1 && uet.crc.status == 1'], capture_output=True, text=True,
                           timeout=120)
        good = len([ln for ln in r.stdout.splitlines() if ln.strip()])
        check(good == n['crc0'], 'tshark verified %d refprov CRCs, the test %d' % (good, n['crc0']))
        print('tshark: 0 malformed, %d refprov CRCs good' % good)
    else:
        print('tshark not found: dissector check skipped')
    if fails:
        for f in fails[:20]:
            print('FAIL:', f)
        sys.exit(1)
    shutil.rmtree(out)
    print('ok')


main()
