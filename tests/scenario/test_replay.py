#!/usr/bin/env python3
"""Replay into the fabric in virtual time (docs/replay.md), on configs/replay-pair.yaml.

- 10,000 frames (host0's data frames of configs/pair.yaml's capture, stamped with seeded random gaps of 1 ns to
  5 us) played into host1: the capture of the injection link holds every one of them, byte for byte, each at its
  own stamp to the nanosecond (the capture's epoch is the file's first stamp), and host1 takes them in.
- host1's frames of configs/incast.yaml's capture replayed into switch port tor0:1: each enters the switch at its
  own stamp (a capture of the port), and the switch forwards them to host0.
- speed 2.0 with loop 3: frame i of loop n at n x period + (stamp - first) / 2 (period: the last deadline plus the
  mean gap); rate 1000000: frame k at k us.
- rewrite: the MAC and IPv4 maps change the addresses, the IPv4 header checksum stays right, nothing else moves.
- Bad captures: a truncated file plays what it holds and counts the rest; a file that is no capture, an empty
  selection and a corrupt record length are clear errors (exit 1, naming the file), also from `uetemu validate`;
  snap-cut frames and pcapng blocks of an unknown type are counted, not played. Config errors name their key.
Usage: test_replay.py UETEMU REPO_ROOT
"""
import os
import random
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import uetpcap  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from checks import check, finish, workdir  # noqa: E402
from runner import run  # noqa: E402

FIRST_NS = (1767225600 + 1) * 1_000_000_000  # 2026-01-01T00:00:01Z
HOST0_MAC = bytes.fromhex('020000000001')


def write_pcap(path, frames, snaplen=65535, cut=None):
    """A nanosecond pcap of (ns since 1970, bytes) frames; @cut: keep this many bytes of each (caplen < len)."""
    with open(path, 'wb') as f:
        f.write(struct.pack('<IHHiIII', 0xa1b23c4d, 2, 4, 0, 0, snaplen, 1))
        for ts, fr in frames:
            kept = fr if cut is None else fr[:cut]
            f.write(struct.pack('<IIII', ts // 10**9, ts % 10**9, len(kept), len(fr)) + kept)


def pcapng_with_unknown_block(path, frames):
    """A pcapng file: SHB, IDB, an unknown block type, then the frames as EPBs (ns resolution)."""
    def block(t, body):
        body += b'\0' * (-len(body) % 4)
        return struct.pack('<II', t, len(body) + 12) + body + struct.pack('<I', len(body) + 12)
    out = block(0x0a0d0d0a, struct.pack('<IHHq', 0x1a2b3c4d, 1, 0, -1))
    out += block(1, struct.pack('<HHI', 1, 0, 65535) + struct.pack('<HHB3x', 9, 1, 9) + struct.pack('<HH', 0, 0))
    out += block(0x0badcafe, b'unknown!')
    for ts, fr in frames:
        out += block(6, struct.pack('<IIIII', 0, ts >> 32, ts & 0xffffffff, len(fr), len(fr)) + fr)
    with open(path, 'wb') as f:
        f.write(out)


def host0_frames(uetemu, root):
    """host0's frames in configs/pair.yaml's capture (data and control: what host1 receives)."""
    r = run(uetemu, 'configs/pair.yaml', root=root)
    return [fr for _, fr in uetpcap.read_pcap(os.path.join(r.out, 'pair.pcap')) if fr[6:12] == HOST0_MAC]


def injected(out):
    """(ns from the epoch, bytes) of the frames that crossed l0 from host0's side: the replayed ones."""
    return [(t, fr) for t, fr in uetpcap.read_pcap(os.path.join(out, 'l0.pcap'), epoch_ns=0)
            if fr[6:12] == HOST0_MAC or fr[12:14] != b'\x08\x00']


def replay(uetemu, root, path, *sets, check_rc=True):
    return run(uetemu, 'configs/replay-pair.yaml', root=root, check=check_rc,
               sets=('replay.0.file=' + path, 'captures.0.format=pcap', 'captures.0.epoch=2026-01-01T00:00:01Z')
               + sets)


def test_exact(uetemu, root, base):
    rng = random.Random(14)
    frames, t = [], FIRST_NS
    for i in range(10000):
        frames.append((t, base[i % len(base)]))
        t += rng.randint(1, 5000)
    path = os.path.join(workdir(), 'ten-thousand.pcap')
    write_pcap(path, frames)
    r = replay(uetemu, root, path)
    got = injected(r.out)
    rp = r.summary['replays'][0]
    check(rp['played'] == 10000 and rp['refused'] == 0 and rp['total'] == 10000,
          '10,000 frames played, none refused (%s of %s, %s refused)' % (rp['played'], rp['total'], rp['refused']))
    check(len(got) == 10000, 'the capture of the injection link holds 10,000 replayed frames (%d)' % len(got))
    same_t = sum(1 for a, b in zip(got, frames) if a[0] == b[0])
    same_b = sum(1 for a, b in zip(got, frames) if a[1] == b[1])
    check(same_t == 10000 and same_b == 10000,
          'every frame entered at its own stamp to the nanosecond (%d) with its own bytes (%d)' % (same_t, same_b))
    check(rp['span_ps'] == (frames[-1][0] - frames[0][0]) * 1000,
          'span_ps is the file\'s span (%d ps)' % rp['span_ps'])
    rx = [h for h in r.summary['hosts'] if h['name'] == 'host1'][0]
    check(r.summary['stop'] == 'completed', 'the run ends when the replay and what it caused are done (%s)' %
          r.summary['stop'])
    return rx


def test_pace(uetemu, root, base):
    frames = [(FIRST_NS + i * 997 + (i * i) % 13, base[i]) for i in range(100)]
    path = os.path.join(workdir(), 'hundred.pcap')
    write_pcap(path, frames)
    r = replay(uetemu, root, path, 'replay.0.speed=2.0', 'replay.0.loop=3')
    got = [t - FIRST_NS for t, _ in injected(r.out)]
    span_ps = (frames[-1][0] - FIRST_NS) * 1000 // 2
    period = span_ps + span_ps // 99
    want = [(n * period + (frames[i][0] - FIRST_NS) * 1000 // 2) // 1000 for n in range(3) for i in range(100)]
    check(got == want, 'speed 2.0, loop 3: frame i of loop n at n x period + (stamp - first) / 2 (%d of %d)'
          % (sum(1 for a, b in zip(got, want) if a == b), len(want)))
    r = replay(uetemu, root, path, 'replay.0.rate=1000000')
    got = [t - FIRST_NS for t, _ in injected(r.out)]
    check(got == [k * 1000 for k in range(100)], 'rate 1000000: frame k at k us (%s ...)' % got[:4])


def test_rewrite(uetemu, root, base):
    path = os.path.join(workdir(), 'rw.pcap')
    write_pcap(path, [(FIRST_NS + i * 1000, base[i]) for i in range(50)])
    # the maps' keys hold dots and colons, which --set paths cannot: a copy of the config with them written in
    text = open(os.path.join(root, 'configs/replay-pair.yaml')).read()
    text = text.replace('filter: "src host 10.0.0.1"}', 'rewrite: {mac: {"02:00:00:00:00:02": "0a:00:00:00:00:02"}, '
                        'ip: {10.0.0.1: 10.9.0.1}}}')
    cfg = os.path.join(workdir(), 'rewrite.yaml')
    open(cfg, 'w').write(text)
    r = run(uetemu, cfg, sets=('replay.0.file=' + path, 'captures.0.format=pcap'))
    got = [fr for _, fr in uetpcap.read_pcap(os.path.join(r.out, 'l0.pcap'), epoch_ns=0)
           if fr[26:30] == bytes([10, 9, 0, 1])]
    ok = len(got) == 50 and all(
        g[0:6] == bytes.fromhex('0a0000000002') and g[6:12] == b[6:12] and uetpcap.ipv4_csum_ok(g[14:34]) and
        g[12:24] == b[12:24] and g[30:] == b[30:] for g, b in zip(got, base))
    check(ok, 'rewrite: destination MAC and source IPv4 mapped, IPv4 checksum right, other bytes unchanged (%d)'
          % len(got))
    check(r.summary['replays'][0]['rewritten'] == 50, 'rewritten counts 50')


RACK = """simulation: {SimulationName: rack-replay}
topology: {type: rack, hosts_per_rack: 9}
replay:
  - {file: %s, port: "tor0:1"}
captures:
  - {name: p, port: "tor0:1", epoch: 0}
"""


def test_switch_port(uetemu, root):
    """host1's frames of configs/incast.yaml's capture replayed into switch port tor0:1 (host1's): the port's
    capture sees each enter at its own stamp, and the switch forwards them to host0, which takes their payload."""
    r = run(uetemu, 'configs/incast.yaml', root=root)
    ip1 = [h['ip'] for h in r.summary['hosts'] if h['name'] == 'host1'][0]
    src = bytes(int(x) for x in ip1.split('.'))
    frames = [(t, fr) for t, fr in uetpcap.read_pcap(os.path.join(r.out, 'incast-host1.pcap'), epoch_ns=0)
              if fr[12:14] == b'\x08\x00' and fr[26:30] == src][:3000]
    path = os.path.join(workdir(), 'host1.pcap')
    write_pcap(path, frames)
    cfg = os.path.join(workdir(), 'rack-replay.yaml')
    open(cfg, 'w').write(RACK % path)
    r = run(uetemu, cfg)
    got = [(t, fr) for t, fr in uetpcap.read_pcap(os.path.join(r.out, 'p.pcap'), epoch_ns=0) if fr[26:30] == src]
    t0 = frames[0][0]
    same = sum(1 for a, b in zip(got, frames) if a[0] == b[0] - t0 and a[1] == b[1])
    check(len(got) == len(frames) and same == len(frames),
          'port tor0:1: %d of %d frames entered the switch at their own stamps with their bytes' % (same, len(frames)))
    rx0 = [h['rx_payload_bytes'] for h in r.summary['hosts'] if h['name'] == 'host0'][0]
    check(rx0 > 0 and r.summary['replays'][0]['refused'] == 0,
          'the switch forwarded them: host0 took %d B of payload' % rx0)


def uetemu_err(uetemu, root, cmd, path):
    cfg = os.path.join(root, 'configs/replay-pair.yaml')
    args = [uetemu, cmd, cfg, '--set', 'replay.0.file=' + path]
    if cmd == 'run':
        args += ['--out', tempfile.mkdtemp(dir=workdir()), '--quiet']
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return p.returncode, p.stderr


def test_bad(uetemu, root, base):
    good = [(FIRST_NS + i * 1000, base[i]) for i in range(20)]
    w = workdir()
    write_pcap(os.path.join(w, 'whole.pcap'), good)
    data = open(os.path.join(w, 'whole.pcap'), 'rb').read()
    open(os.path.join(w, 'trunc.pcap'), 'wb').write(data[:len(data) - 30])
    r = replay(uetemu, root, os.path.join(w, 'trunc.pcap'))
    rp = r.summary['replays'][0]
    check(r.rc == 0 and rp['played'] == 19 and rp['file_skipped'] == 1,
          'a truncated file: its 19 whole frames played, the cut one counted (%s, %s)' % (rp['played'],
                                                                                        rp['file_skipped']))
    open(os.path.join(w, 'magic.pcap'), 'wb').write(b'\x01\x02\x03\x04' + data[4:])
    for cmd in ('run', 'validate'):
        rc, err = uetemu_err(uetemu, root, cmd, os.path.join(w, 'magic.pcap'))
        check(rc == 1 and 'replay.0' in err and 'not a pcap or pcapng file' in err,
              '%s: wrong magic is a clear error (%d: %s)' % (cmd, rc, err.strip()[:150]))
    bad = bytearray(data)
    bad[24 + 8:24 + 12] = struct.pack('<I', 0xfffffff0)
    open(os.path.join(w, 'caplen.pcap'), 'wb').write(bad)
    rc, err = uetemu_err(uetemu, root, 'run', os.path.join(w, 'caplen.pcap'))
    check(rc == 1 and 'over 262144' in err, 'a corrupt record length is a clear error (%d: %s)' % (rc, err.strip()[:150]))
    write_pcap(os.path.join(w, 'cut.pcap'), good, snaplen=40, cut=40)
    rc, err = uetemu_err(uetemu, root, 'run', os.path.join(w, 'cut.pcap'))
    check(rc == 1 and 'no frame to replay' in err and '20 cut by the snap length' in err,
          'snap-cut frames are counted, not played; none left is a clear error (%s)' % err.strip()[:160])
    path = os.path.join(w, 'mixed.pcap')
    with open(path, 'wb') as f:
        f.write(struct.pack('<IHHiIII', 0xa1b23c4d, 2, 4, 0, 0, 65535, 1))
        for ts, fr in good[:10]:
            f.write(struct.pack('<IIII', ts // 10**9, ts % 10**9, len(fr), len(fr)) + fr)
        f.write(struct.pack('<IIII', FIRST_NS // 10**9, 30000, 60, len(base[10])) + base[10][:60])
    r = replay(uetemu, root, path)
    rp = r.summary['replays'][0]
    check(rp['played'] == 10 and rp['snap_cut'] == 1, 'a snap-cut UET frame is counted (snap_cut %s), the rest '
          'played (%s)' % (rp['snap_cut'], rp['played']))
    pcapng_with_unknown_block(os.path.join(w, 'unk.pcapng'), good)
    r = replay(uetemu, root, os.path.join(w, 'unk.pcapng'))
    rp = r.summary['replays'][0]
    check(rp['played'] == 20 and rp['file_skipped'] == 1, 'pcapng: an unknown block is skipped and counted, the '
          'frames played (%s, %s)' % (rp['played'], rp['file_skipped']))


def config_errors(uetemu, root):
    cfg = os.path.join(root, 'configs/replay-pair.yaml')
    cases = [(['replay.0.speed=2', 'replay.0.rate=1000'], 'replay.0: both speed and rate'),
             (['replay.0.speed=0'], 'replay.0.speed=0: bad speed'),
             (['replay.0.rate=fast'], "replay.0.rate=fast: bad rate 'fast'"),
             (['replay.0.port=host1:0'], 'device ports are those of a generated topology'),
             (['replay.0.dev=net_pcap0'], "unknown dev 'net_pcap0'; the config has no ports section"),
             (['replay.0.rewrite.ip=banana'], 'replay.0.rewrite.ip=banana: not a map')]
    for sets, want in cases:
        args = [uetemu, 'validate', cfg]
        for s in sets:
            args += ['--set', s]
        p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        check(p.returncode != 0 and want in p.stderr, 'config error %s: "%s" (%s)' % (sets, want,
                                                                                     p.stderr.strip()[:160]))


def relative_paths(uetemu, root):
    """file: in a config is taken from the config file's folder (not the current directory), and the error on a
    missing one prints the path it resolved to; one given by --set is taken from the current directory."""
    cfg = os.path.join(root, 'configs/replay-pair.yaml')
    p = subprocess.run([uetemu, 'validate', cfg], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    check(p.returncode == 0, 'file: pair-host0.pcap found beside the config, from another directory (%d: %s)' %
          (p.returncode, p.stderr.strip()[:160]))
    d = tempfile.mkdtemp(dir=workdir())
    text = open(cfg).read().replace('file: pair-host0.pcap', 'file: missing.pcap')
    open(os.path.join(d, 'r.yaml'), 'w').write(text)
    p = subprocess.run([uetemu, 'validate', os.path.join(d, 'r.yaml')], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    want = '%s/missing.pcap (file: missing.pcap, relative to the config file\'s folder): No such file' % d
    check(p.returncode == 1 and want in p.stderr, 'a missing file: names the resolved path "%s" (%s)' %
          (want, p.stderr.strip()[:200]))
    rc, err = uetemu_err(uetemu, root, 'validate', 'missing.pcap')
    check(rc == 1 and 'replay.0 (host0-frames): missing.pcap: No such file' in err,
          'a --set file: taken from the current directory, said as given (%s)' % err.strip()[:160])


def main():
    uetemu, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    os.chdir(workdir())
    base = host0_frames(uetemu, root)
    check(len(base) > 2000, "host0's frames of pair.pcap (%d)" % len(base))
    test_exact(uetemu, root, base)
    test_switch_port(uetemu, root)
    test_pace(uetemu, root, base)
    test_rewrite(uetemu, root, base)
    test_bad(uetemu, root, base)
    config_errors(uetemu, root)
    relative_paths(uetemu, root)
    return finish('replay')


if __name__ == '__main__':
    sys.exit(main())
