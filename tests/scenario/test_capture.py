#!/usr/bin/env python3
"""Captures (docs/capture.md) on tests/scenario/capture.yaml, an incast that trims and ECN-marks, in virtual time.

- A filtered capture holds exactly the frames the same BPF filter selects from the unfiltered capture of the same
  run, frame for frame (time and bytes). The selection is made three ways, none through uetemu: libpcap itself
  from Python (ctypes: pcap_open_offline, pcap_compile, pcap_offline_filter, the program tcpdump would run),
  tshark with the equivalent display filter (udp.dstport == 4793 && ip.dsfield.ecn == 3), and the filter's
  meaning on the bytes (UDP destination port 4793, IPv4 ECN bits 3).
- The pcapng capture of the device port tor0:0 reads clean in capinfos and tshark, with its interface name, speed,
  and tsresol; it holds the frames of the link capture; directions and comments say what the model knows
  (ECN CE, trimmed), and uetemu pcap-info agrees with summary.json.
- Rotation keeps the last files, oldest first in summary.json; a byte limit cuts and counts; snaplen cuts frames
  and keeps their length; stamps start at 2026-01-01T00:00:00Z, or at the epoch given.
- configs/impair.yaml as pcapng writes the frame its fixture drops, with "dropped here (impair_drop)".
- Config errors name the capture key: a bad filter with libpcap's words, a port a device does not have, rotate
  without a limit, two capture points, dev in virtual time.
Usage: test_capture.py UETEMU REPO_ROOT
"""
import ctypes
import ctypes.util
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import uetpcap  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from checks import check, finish, workdir  # noqa: E402
from runner import run  # noqa: E402

FILTER = 'udp dst port 4793 and ip[1] & 3 == 3'
DISPLAY = 'udp.dstport == 4793 && ip.dsfield.ecn == 3'
EPOCH_S = 1767225600


class PktHdr(ctypes.Structure):
    _fields_ = [('tv_sec', ctypes.c_long), ('tv_usec', ctypes.c_long), ('caplen', ctypes.c_uint32),
                ('len', ctypes.c_uint32)]


class BpfProgram(ctypes.Structure):
    _fields_ = [('bf_len', ctypes.c_uint), ('bf_insns', ctypes.c_void_p)]


def libpcap_select(path, expr):
    """(ns since 1970, frame bytes) of each frame of @path that libpcap's BPF program for @expr accepts."""
    lib = ctypes.CDLL(ctypes.util.find_library('pcap') or 'libpcap.so.0.8')
    lib.pcap_open_offline_with_tstamp_precision.restype = ctypes.c_void_p
    lib.pcap_open_offline_with_tstamp_precision.argtypes = [ctypes.c_char_p, ctypes.c_uint, ctypes.c_char_p]
    lib.pcap_compile.argtypes = [ctypes.c_void_p, ctypes.POINTER(BpfProgram), ctypes.c_char_p, ctypes.c_int,
                                 ctypes.c_uint32]
    lib.pcap_next_ex.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.POINTER(PktHdr)),
                                 ctypes.POINTER(ctypes.POINTER(ctypes.c_ubyte))]
    lib.pcap_offline_filter.argtypes = [ctypes.POINTER(BpfProgram), ctypes.POINTER(PktHdr),
                                        ctypes.POINTER(ctypes.c_ubyte)]
    lib.pcap_close.argtypes = [ctypes.c_void_p]
    err = ctypes.create_string_buffer(256)
    p = lib.pcap_open_offline_with_tstamp_precision(path.encode(), 1, err)  # PCAP_TSTAMP_PRECISION_NANO
    assert p, err.value
    prog = BpfProgram()
    assert lib.pcap_compile(p, ctypes.byref(prog), expr.encode(), 1, 0xffffffff) == 0
    hdr, data, out = ctypes.POINTER(PktHdr)(), ctypes.POINTER(ctypes.c_ubyte)(), []
    while lib.pcap_next_ex(p, ctypes.byref(hdr), ctypes.byref(data)) == 1:
        if lib.pcap_offline_filter(ctypes.byref(prog), hdr, data):
            h = hdr.contents
            out.append((h.tv_sec * 10**9 + h.tv_usec, bytes(data[:h.caplen])))
    lib.pcap_close(p)
    return out


def tshark(args, what='fields'):
    p = subprocess.run(['tshark', '-n'] + args, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def filters(out):
    allf = list(uetpcap.read_pcap(os.path.join(out, 'all.pcap'), 0))
    ce = list(uetpcap.read_pcap(os.path.join(out, 'ce.pcap'), 0))
    lp = libpcap_select(os.path.join(out, 'all.pcap'), FILTER)
    by_bytes = [(t, f) for t, f in allf if f[12:14] == b'\x08\x00' and f[23] == 17
                and struct.unpack('>H', f[36:38])[0] == 4793 and f[15] & 3 == 3]
    check(len(ce) > 100 and ce == lp, 'filtered capture == libpcap BPF selection from the unfiltered one, frame for '
          'frame, time and bytes (%d of %d frames)' % (len(ce), len(allf)))
    check(ce == by_bytes, 'filtered capture == the filter\'s meaning on the bytes (%d)' % len(by_bytes))
    rc, sel, _ = tshark(['-r', os.path.join(out, 'all.pcap'), '-Y', DISPLAY, '-T', 'fields', '-e', 'frame.number'])
    nums = [int(x) for x in sel.split()]
    check(rc == 0 and [allf[n - 1] for n in nums] == ce,
          'tshark -Y "%s" on the unfiltered capture selects the same %d frames' % (DISPLAY, len(nums)))


def pcapng(out, s):
    port = os.path.join(out, 'port.pcapng')
    p = subprocess.run(['capinfos', port], capture_output=True, text=True)
    check(p.returncode == 0 and 'pcapng' in p.stdout and 'Name = tor0:0' in p.stdout
          and 'Speed = 400000000000' in p.stdout and 'Time precision = nanoseconds (9)' in p.stdout
          and 'Number of interfaces in file: 1' in p.stdout and 'Capture application: uetemu' in p.stdout,
          'capinfos reads port.pcapng clean: pcapng, interface tor0:0 at 400 Gb/s, ns resolution (rc %d%s)'
          % (p.returncode, ', ' + p.stderr.strip() if p.stderr.strip() else ''))
    rc, txt, err = tshark(['-r', port, '-T', 'fields', '-e', 'frame.interface_name', '-e', 'frame.time_epoch',
                           '-e', 'frame.len', '-e', 'frame.packet_flags_direction', '-e', 'ip.src', '-e',
                           'frame.comment', '-E', 'separator=|'])
    rows = [r.split('|') for r in txt.splitlines()]
    allf = list(uetpcap.read_pcap(os.path.join(out, 'all.pcap'), 0))
    check(rc == 0 and not err.replace('Running as user "root" and group "root". This could be dangerous.', '').strip()
          and len(rows) == len(allf) and all(r[0] == 'tor0:0' for r in rows),
          'tshark reads all %d frames, each on interface tor0:0, no error' % len(rows))
    check([int(r[2]) for r in rows] == [len(f) for _, f in allf] and
          [r[1] for r in rows] == ['%d.%09d' % (t // 10**9, t % 10**9) for t, _ in allf],
          'the pcapng port capture holds the link capture\'s frames, same stamps and lengths')
    inbound = [r for r in rows if r[3] == '0x00000001']
    check(len(inbound) > 0 and all(r[4] == '10.0.0.1' for r in inbound) and
          all(r[4] != '10.0.0.1' for r in rows if r[3] == '0x00000002'),
          'epb_flags: host0\'s frames inbound to tor0:0, the rest outbound (%d inbound)' % len(inbound))
    ce = sum(1 for _, f in allf if len(f) > 34 and f[12:14] == b'\x08\x00' and f[15] & 3 == 3)
    noted = sum(1 for r in rows if 'ECN CE' in r[5])
    trimmed = sum(1 for r in rows if 'trimmed' in r[5])
    c = s['counters']
    check(noted == ce == c['ecn_marks'] > 0 and trimmed == c['trims'] > 0,
          'comments: %d frames "ECN CE" (summary ecn_marks %d), %d "trimmed" (trims %d)'
          % (noted, c['ecn_marks'], trimmed, c['trims']))
    return rows


def pcap_info(uetemu, out, s):
    p = subprocess.run([uetemu, 'pcap-info', '--json', os.path.join(out, 'port.pcapng')], capture_output=True,
                       text=True)
    j = json.loads(p.stdout) if p.returncode == 0 else {}
    c = s['counters']
    pd = j.get('pdcs', [])
    check(p.returncode == 0 and j['format'] == 'pcapng' and j['interfaces'][0]['name'] == 'tor0:0'
          and j['frames'] == s['captures'][2]['written'] and j['first'].startswith('2026-01-01T00:00:00.'),
          'pcap-info --json: pcapng, tor0:0, %s frames from 2026-01-01T00:00:00Z' % j.get('frames'))
    u = j.get('uet', {})
    check(u.get('trimmed') == c['trims'] and u.get('nacks') == c['nacks'] and u.get('retransmissions') ==
          c['retransmits'] and j['ecn']['ce'] == c['ecn_marks'] and j['decode_errors']['total'] == 0
          and j['skipped']['total'] == 0,
          'pcap-info counts = summary.json: trimmed %s, NACKs %s, retransmissions %s, CE %s'
          % (u.get('trimmed'), u.get('nacks'), u.get('retransmissions'), j['ecn']['ce']))
    check(len(pd) == 4 and all(x['messages'] == 1 and x['completed'] == 1 and x['size_min'] == 262144 and
                               0 < x['completion_ns']['max'] < 30000 for x in pd),
          'pcap-info: 4 PDCs into 10.0.0.1, one 256 KiB message each, completed (%s ns)'
          % [x['completion_ns']['max'] for x in pd])
    t = subprocess.run([uetemu, 'pcap-info', os.path.join(out, 'all.pcap')], capture_output=True, text=True)
    check(t.returncode == 0 and t.stderr == '' and 'PDCs            4' in t.stdout,
          'pcap-info (table) on the pcap capture')


def limits(out, s):
    caps = {x['name']: x for x in s['captures']}
    total = caps['all']['written']
    ring = caps['ring']
    opened = (total + 99) // 100
    want = [os.path.join(out, 'ring%s.pcapng' % ('' if k == 0 else '-%d' % k)) for k in
            [(opened - 4 + i) % 4 for i in range(4)]]
    check(ring['files_opened'] == opened and ring['files'] == want,
          'rotation: %d files of 100 frames made, the last 4 kept, oldest first: %s'
          % (ring['files_opened'], [os.path.basename(f) for f in ring['files']]))
    kept = []
    for f in ring['files']:
        rc, txt, _ = tshark(['-r', f, '-T', 'fields', '-e', 'frame.time_epoch'])
        kept += txt.split()
    allf = list(uetpcap.read_pcap(os.path.join(out, 'all.pcap'), 0))
    tail = ['%d.%09d' % (t // 10**9, t % 10**9) for t, _ in allf[100 * (opened - 4):]]
    check(kept == tail, 'the ring holds the last %d frames in order' % len(tail))
    snap = list(uetpcap.read_pcap(os.path.join(out, 'snap.pcap'), 0))
    size = os.path.getsize(os.path.join(out, 'snap.pcap'))
    sc = caps['snap']
    check(size <= 65536 and sc['written'] == len(snap) and sc['cut'] == total - len(snap) > 0
          and all(len(f) <= 128 for _, f in snap) and sc['snapped'] > 0,
          'max_bytes 64 KiB without rotation: %d B, %d frames of at most 128 B, %d cut and counted'
          % (size, len(snap), sc['cut']))
    with open(os.path.join(out, 'snap.pcap'), 'rb') as f:
        hdr = f.read(24 + 16)
    check(struct.unpack('<I', hdr[16:20])[0] == 128 and struct.unpack('<I', hdr[36:40])[0] == len(allf[0][1]),
          'snaplen 128 in the file header; a record keeps its original length')
    old = list(uetpcap.read_pcap(os.path.join(out, 'old.pcap'), 0))
    check(allf[0][0] // 10**9 == EPOCH_S and old[0][0] == allf[0][0] - EPOCH_S * 10**9,
          'stamps: from 2026-01-01T00:00:00Z by default, from 1970 with epoch: 0 (%d ns)' % old[0][0])


def dropped(uetemu, root):
    out = tempfile.mkdtemp(prefix='impair-', dir=workdir())
    run(uetemu, 'configs/impair.yaml', out, root=root, sets=['captures.0.format=pcapng'])
    rc, txt, _ = tshark(['-r', os.path.join(out, 'impair.pcapng'), '-T', 'fields', '-e', 'frame.comment'])
    comments = txt.splitlines()
    check(rc == 0 and len(comments) == 521 and comments.count('dropped here (impair_drop)') == 1
          and sum(1 for x in comments if x.startswith('trimmed')) == 3,
          'impair.yaml as pcapng: 520 frames + the dropped one, "dropped here (impair_drop)", 3 "trimmed" (%d)'
          % len(comments))


def config_errors(uetemu):
    """Each bad capture entry, alone in a config on the rack: validate names its key and what is wrong."""
    head = 'topology: {type: rack, hosts_per_rack: 5}\ncaptures:\n  - '
    cases = [
        ('{name: x, link: host0-tor0, filter: "udp dst port banana"}',
         '3:41: captures.0.filter: bad filter \'udp dst port banana\': libpcap: unknown port \'banana\''),
        ('{name: x, link: host0-tor0, filter: "ip[1] & & 3"}', 'captures.0.filter: bad filter \'ip[1] & & 3\': '
         'libpcap: can\'t parse filter expression: syntax error'),
        ('{name: x, port: "tor0:9"}', 'captures.0.port: tor0 has no port \'9\'; its ports are 0 to 4'),
        ('{name: x, port: "leaf0:1"}', 'captures.0.port: unknown device \'leaf0\' in port \'leaf0:1\'; devices are '
         'host0..host4, tor0'),
        ('{name: x, port: "tor0"}', 'captures.0.port: bad port \'tor0\'; a device port is DEVICE:INDEX'),
        ('{name: x, link: host0-tor0, rotate: 3}', 'captures.0.rotate: rotate 3 without a limit'),
        ('{name: x, link: host0-tor0, port: "tor0:1"}', 'captures.0: more than one of link, port and dev'),
        ('{name: x}', 'captures.0: no link, port or dev'),
        ('{name: x, link: host0-tor0, format: pcapz}', 'captures.0.format: unknown format \'pcapz\'; use pcap or '
         'pcapng'),
        ('{name: x, link: host0-tor0, epoch: "2026-13-01T00:00:00Z"}', 'captures.0.epoch: bad epoch'),
        ('{name: x, link: host0-tor0, snaplen: 0}', 'captures.0.snaplen: '),
        ('{name: x, dev: net_tap0}', 'captures.0.dev: unknown dev \'net_tap0\'; the config has no ports section'),
    ]
    for entry, want in cases:
        path = os.path.join(workdir(), 'bad-capture.yaml')
        with open(path, 'w') as f:
            f.write(head + entry + '\n')
        p = subprocess.run([uetemu, 'validate', path], capture_output=True, text=True)
        check(p.returncode == 1 and want in p.stderr, '%s: %s' % (entry, p.stderr.strip().replace(path, 'X')))
    path = os.path.join(workdir(), 'dev.yaml')
    with open(path, 'w') as f:
        f.write('topology: {hosts: [{name: host0, ip: 10.0.0.1}, {name: host1, ip: 10.0.0.2}], links: '
                '[{name: l0, a: host0, b: host1}]}\nports: [{attach: host1, dev: "net_tap0,iface=uet0"}]\n'
                'captures: [{name: x, dev: net_tap0}]\n')
    for cmd in ('validate', 'run'):
        more = ['-q', '-o', os.path.join(workdir(), 'dev')] if cmd == 'run' else []
        p = subprocess.run([uetemu, cmd, path] + more, capture_output=True, text=True)
        check(p.returncode == 1 and 'captures.0: dev \'net_tap0,iface=uet0\' is a DPDK port, which only a real-time '
              'run has' in p.stderr, '%s, dev in virtual time: %s' % (cmd, p.stderr.strip().replace(path, 'X')))
    with open(path, 'w') as f:
        f.write('topology: {type: pair}\ncaptures: [%s]\n' % ', '.join('{name: c%d, link: host0-host1}' % i
                                                                       for i in range(9)))
    p = subprocess.run([uetemu, 'validate', path], capture_output=True, text=True)
    check(p.returncode == 1 and 'captures.8: link host0-host1 has 8 captures already, the most a link takes'
          in p.stderr, '9 captures of one link: %s' % p.stderr.strip().replace(path, 'X'))


def main():
    uetemu, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    if shutil.which('tshark') is None or shutil.which('capinfos') is None:
        print('SKIP: tshark and capinfos are needed')
        return 77
    out = tempfile.mkdtemp(prefix='capture-', dir=workdir())
    s = run(uetemu, 'tests/scenario/capture.yaml', out, root=root).summary
    filters(out)
    pcapng(out, s)
    pcap_info(uetemu, out, s)
    limits(out, s)
    dropped(uetemu, root)
    config_errors(uetemu)
    return finish('test_capture')


if __name__ == '__main__':
    sys.exit(main())
