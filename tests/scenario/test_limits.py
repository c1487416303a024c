#!/usr/bin/env python3
"""What an input may not make uetemu do (docs/security.md, Inputs that cannot run away): wrap time, run for ever,
take memory or output past a budget, or report an impossible run as completed. Each case failed before.

Config: SimulationDuration, or the timeline's sum, at 2^64 - 1 ps: refused, naming the time range (exit 1).
Replay (docs/replay.md, The time range):
- two frames 18,446,745 s apart: the second is past the emulated time range (2^63 ps) after the first: counted
  (time_range 1), not played; a pcapng whose 19 last stamps saturate at 2^63 - 1 ns: 19 counted;
- start 2^64 - 1 ps: a config error naming start (run and validate, exit 1); a loop count, a speed or a rate that
  takes the last frame past the range: refused at load naming the field (exit 1; validate too);
- SIGINT into a replay of 2^32 - 1 loops: exit 3 within 1 s.
Chakra (docs/chakra.md, Limits), each refused before the simulation (exit 1) naming the rank and the node, by
uetemu run and by uetemu validate:
- duration_micros 2^64 - 1; two durations whose sum passes the range; a 4 TiB send at 1 Mb/s (its wire time
  passes it); comm_size 2^60 (an AllReduce whose transfers pass the NIC's largest message); a 1 GiB send into a
  receive of 10 B;
- 1,000 AllReduces over 8 ranks with simulation.ChakraMemoryLimit 1 MB: refused naming the figure; dp8 with
  simulation.RecordSizeLimit 10,000 B: its annotated traces refused naming the limit;
- profiling every 1 us with simulation.RecordSizeLimit 100,000 B: its blocks stop at the limit, with a warning;
- a rank that cannot end by the stop time: stop "incomplete", exit 4 (never "completed");
- SIGINT into a run of a 10^12 us compute node with RunTime 10^5 s: exit 3 within 1 s.
The traces are written by scripts/chakra-gen; every output goes to the test's scratch folder.
Usage: test_limits.py UETEMU REPO_ROOT
"""
import json
import os
import signal
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
import uetpcap  # noqa: E402
from chakra_cfg import chakra_8host  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from checks import check, finish, workdir  # noqa: E402
from runner import run  # noqa: E402

UETEMU, ROOT = sys.argv[1], sys.argv[2]
GEN = os.path.join(ROOT, 'scripts', 'chakra-gen')
T0 = 1767225601 * 10**9
U64 = 2**64 - 1


def frame(i):
    """A UDP frame from 10.0.0.1 to 10.0.0.2 (what the decoder makes of it does not matter here)."""
    eth = bytes.fromhex('020000000002020000000001') + b'\x08\x00'
    ip = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 46, i & 0xffff, 0, 64, 17, 0, bytes([10, 0, 0, 1]),
                     bytes([10, 0, 0, 2]))
    return eth + ip + struct.pack('!HHHH', 1000, 2000, 26, 0) + bytes(18)


def write_pcap(path, stamps, frames=None):
    with open(path, 'wb') as f:
        f.write(struct.pack('<IHHiIII', 0xa1b23c4d, 2, 4, 0, 0, 65535, 1))
        for i, ts in enumerate(stamps):
            fr = frame(i) if frames is None else frames[i % len(frames)]
            f.write(struct.pack('<IIII', ts // 10**9, ts % 10**9, len(fr), len(fr)) + fr)


def write_pcapng(path, stamps):
    def block(t, body):
        body += b'\0' * (-len(body) % 4)
        return struct.pack('<II', t, len(body) + 12) + body + struct.pack('<I', len(body) + 12)
    out = block(0x0a0d0d0a, struct.pack('<IHHq', 0x1a2b3c4d, 1, 0, -1))
    out += block(1, struct.pack('<HHI', 1, 0, 65535) + struct.pack('<HHB3x', 9, 1, 9) + struct.pack('<HH', 0, 0))
    for i, ts in enumerate(stamps):
        fr = frame(i)
        out += block(6, struct.pack('<IIIII', 0, ts >> 32, ts & 0xffffffff, len(fr), len(fr)) + fr)
    with open(path, 'wb') as f:
        f.write(out)


REPLAY_CFG = """simulation: {SimulationName: limits-replay}
topology:
  hosts: [{name: host0, ip: 10.0.0.1}, {name: host1, ip: 10.0.0.2}]
  links: [{name: l0, a: host0, b: host1}]
replay:
  - {name: r, file: %s, host: host1}
"""



def uetemu(*args, timeout=120):
    p = subprocess.run([UETEMU] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=timeout)
    return p.returncode, p.stderr


def out_dir():
    return tempfile.mkdtemp(prefix='limits-', dir=workdir())


def run_cfg(cfg, *sets):
    out = out_dir()
    args = ['run', cfg, '--out', out, '--quiet']
    for s in sets:
        args += ['--set', s]
    rc, err = uetemu(*args)
    summary = None
    if os.path.exists(os.path.join(out, 'summary.json')):
        with open(os.path.join(out, 'summary.json')) as f:
            summary = json.load(f)
    return rc, err, summary


def sigint_after(args, wait_s):
    """Start uetemu with @p args, SIGINT it after @p wait_s: (exit status, seconds from the signal to the exit)."""
    p = subprocess.Popen([UETEMU] + args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(wait_s)
    if p.poll() is not None:
        return p.returncode, -1.0
    t = time.monotonic()
    p.send_signal(signal.SIGINT)
    try:
        rc = p.wait(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        return 'no exit', 20.0
    return rc, time.monotonic() - t


def replay_config(w, name, capture, extra=''):
    path = os.path.join(w, name + '.yaml')
    with open(path, 'w') as f:
        f.write(REPLAY_CFG % capture + extra)
    return path


def test_replay(w):
    write_pcap(os.path.join(w, 'far.pcap'), [T0, T0 + 18446745 * 10**9])
    write_pcapng(os.path.join(w, 'ng63.pcapng'), [T0] + [2**63 - 1] * 19)
    write_pcap(os.path.join(w, 'onesec.pcap'), [T0, T0 + 10**9])
    # host0's frames of configs/pair.yaml's capture, 1 us apart: host1 takes them in, so the run makes progress
    r = run(UETEMU, 'configs/pair.yaml', root=ROOT)
    host0 = [fr for _, fr in uetpcap.read_pcap(os.path.join(r.out, 'pair.pcap'))
             if fr[6:12] == bytes.fromhex('020000000001')]
    write_pcap(os.path.join(w, 'us.pcap'), [T0 + 1000 * i for i in range(16)], host0)
    for cap, skipped in (('far.pcap', 1), ('ng63.pcapng', 19)):
        rc, err, s = run_cfg(replay_config(w, cap, cap))
        r = s['replays'][0] if s else {}
        check(rc == 0 and r.get('total') == 1 and r.get('time_range') == skipped and r.get('span_ps') == 0,
              'replay %s: %d frames past the time range counted (time_range), 1 played, span 0: %s' %
              (cap, skipped, {k: r.get(k) for k in ('total', 'time_range', 'span_ps')}))
    cfg = replay_config(w, 'us', 'us.pcap')
    one = 'replay.0.file=' + os.path.join(w, 'onesec.pcap')
    for what, sets, words in (
            ('start 2^64-1 ps', ['replay.0.start=%dps' % U64], 'start 18446744073709551615 ps is past the emulated'),
            ('loop 2^32-1 of a 1 s capture', [one, 'replay.0.loop=4294967295'], 'loop 4294967295 x'),
            ('speed 0.000001 of a 1 s capture looped 10^4 times',
             [one, 'replay.0.loop=10000', 'replay.0.speed=0.000001'], 'speed 0.000001'),
            ('rate 1 frame/s looped 2^32-1 times', ['replay.0.rate=1', 'replay.0.loop=4294967295'],
             'rate 1 frames/s')):
        rc, err, _ = run_cfg(cfg, *sets)
        check(rc == 1 and words in err and 'emulated time range' in err,
              'replay %s: refused, exit 1, naming it: %s' % (what, err.strip()[-220:]))
    args = ['validate', cfg, '--set', 'replay.0.start=%dps' % U64]
    rc, err = uetemu(*args)
    check(rc == 1 and 'start' in err, 'validate: start 2^64-1 ps refused (exit 1): %s' % err.strip()[-160:])
    rc, err = uetemu('validate', cfg, '--set', one, '--set', 'replay.0.loop=4294967295')
    check(rc == 1 and 'loop 4294967295 x' in err, 'validate: loop 2^32-1 of a 1 s capture refused (exit 1)')
    rc, dt = sigint_after(['run', cfg, '--out', out_dir(), '--quiet', '--set', 'replay.0.loop=4294967295'], 1.5)
    check(rc == 3 and dt < 1.0, 'SIGINT into a replay of 2^32-1 loops: exit %s after %.3f s (3 within 1 s)' % (rc, dt))


def gen(w, name, *args):
    d = os.path.join(w, name)
    subprocess.run(['/usr/bin/python3', GEN, args[0], d] + list(args[1:]), check=True, stdout=subprocess.DEVNULL)
    cfg = os.path.join(w, name + '.yaml')
    with open(cfg, 'w') as f:
        f.write(chakra_8host('limits-chakra', d))
    return cfg


def test_chakra(w):
    cases = (
        ('duration_micros 2^64-1', ('wide', '--ranks', '8', '--nodes', '1', '--compute', str(U64)), (),
         ['rank 0: node 0: duration_micros 18446744073709551615 is past the emulated time range']),
        ('two durations summing past the range', ('wide', '--ranks', '8', '--nodes', '2', '--compute',
                                                  str(5 * 10**12)), (),
         ['rank 0: node 1: its duration_micros 5000000000000 takes the sum']),
        ('a 4 TiB send at 1 Mb/s', ('wide', '--ranks', '8', '--nodes', '1', '--what', 'send', '--size', str(2**42)),
         ('nic.NetworkInterface.UplinkNetworkInterface.DataRate=1Mbps',),
         ['rank 0: node 0: its send of 4398046511104 B at 1000000 bit/s takes', 'past the emulated time range']),
        ('comm_size 2^60', ('dp', '--ranks', '8', '--size', str(2**60)), (),
         ['rank 0: node 3: its AllReduce of 1152921504606846976 B', 'more than a message the NIC can carry']),
        ('a 1 GiB send into a 10 B receive', ('wide', '--ranks', '8', '--nodes', '1', '--what', 'send', '--size',
                                             str(2**30), '--recv-size', '10'), (),
         ['rank 0: node 0: a send of 1073741824 B', 'larger than its receive, node 0', 'of 10 B']),
        ('1000 AllReduces with ChakraMemoryLimit 1 MB', ('allreduces', '--ranks', '8', '--nodes', '1000', '--size',
                                                         '64'), ('simulation.ChakraMemoryLimit=1MB',),
         ['more than simulation.ChakraMemoryLimit (1000000 B)', 'nodes (collectives expanded']),
        ('dp8 with RecordSizeLimit 10,000 B', ('dp', '--ranks', '8', '--steps', '20'),
         ('simulation.RecordSizeLimit=10000',), ['annotated traces', 'more than simulation.RecordSizeLimit (10000 B)']),
    )
    for i, (what, g, sets, words) in enumerate(cases):
        cfg = gen(w, 'ck%d' % i, *g)
        rc, err, _ = run_cfg(cfg, *sets)
        check(rc == 1 and all(x in err for x in words),
              'chakra %s: refused before the run, exit 1, naming it: %s' % (what, err.strip()[-260:]))
        args = ['validate', cfg]
        for s in sets:
            args += ['--set', s]
        rc, err = uetemu(*args)
        check(rc == 1 and all(x in err for x in words), 'chakra %s: uetemu validate refuses it too' % what)
    # the same trace with the default budget passes: the estimate is no false alarm
    rc, err, s = run_cfg(os.path.join(w, 'ck5.yaml'))
    check(rc == 0 and s['chakra']['ranks_ended'] == 8, 'the 1000 AllReduces run within the default budget: %d' % rc)
    # profiling every 1 us: its blocks stop at RecordSizeLimit, with a warning
    cfg = gen(w, 'prof', 'dp', '--ranks', '8', '--steps', '2')
    with open(cfg, 'a') as f:
        f.write('      ProfilingEnabled: true\n      ProfilingInterval: 0.000001\n')
    sizes = []
    for limit in ('0', '100000'):
        out = out_dir()
        rc, err = uetemu('run', cfg, '--out', out, '--quiet', '--set', 'simulation.RecordSizeLimit=' + limit)
        sizes.append(sum(os.path.getsize(os.path.join(out, x)) for x in os.listdir(out) if 'profiling' in x))
    check(rc == 0 and sizes[0] > 300000 and 100000 <= sizes[1] < 150000 and
          'profiling files reached simulation.RecordSizeLimit (100000 B)' in err,
          'profiling blocks stop at RecordSizeLimit 100,000 B with a warning: %s B unlimited, %s B' % tuple(sizes))
    cfg = gen(w, 'long', 'wide', '--ranks', '8', '--nodes', '1', '--compute', str(10**12))
    rc, err, s = run_cfg(cfg)
    check(rc == 4 and s and s['stop'] == 'incomplete' and s['chakra']['ranks_ended'] == 7,
          'a rank still computing at the stop time: stop "incomplete", exit 4: %s %s' % (rc, s and s['stop']))
    rc, dt = sigint_after(['run', cfg, '--out', out_dir(), '--quiet', '--set', 'simulation.RunTime=100000s',
                           '--set', 'simulation.NDStatsReportInterval=1s'], 1.5)
    check(rc == 3 and dt < 1.0, 'SIGINT into a Chakra run of 10^5 s: exit %s after %.3f s (3 within 1 s)' % (rc, dt))


def test_config():
    for key in ('SimulationDuration', 'RunTime'):
        rc, err = uetemu('validate', os.path.join(ROOT, 'configs', 'pair.yaml'), '--set',
                         'simulation.%s=%dps' % (key, U64))
        check(rc == 1 and 'emulated time range (2^63 ps, 106 days)' in err,
              'simulation.%s 2^64-1 ps: refused (exit 1): %s' % (key, err.strip()[-200:]))


def main():
    w = workdir()
    test_config()
    test_replay(w)
    test_chakra(w)
    return finish('limits')


if __name__ == '__main__':
    sys.exit(main())
