#!/usr/bin/env python3
"""Watching a run while it goes on (docs/metrics.md). Usage: test_metrics.py UETEMU REPO_ROOT vt|rt

vt (scenario suite):
  - configs/incast.yaml with --stats-interval 20us: one "flow" object per interval per message from its first
    interval to the one it completes in, consecutive intervals, one "interval" object per interval whose bytes are
    its flows'; each message's bytes sum to its size; cwnd and RTT given for the UET NIC; summary.json stats_stream
    counts the objects and bytes of the file; the other outputs are those of a run without the option;
  - simulation.RecordSizeLimit 3000: the stream stops at whole lines under 3,000 B, summary.json says cut;
  - --stats-out -: the stream on stdout; usage errors (--stats-out alone, a bad interval, a bad --metrics);
  - --metrics on 127.0.0.1 (a free port) during a virtual-time run of the default scenario: two curl scrapes
    0.5 s apart, parsed by prometheus_client (0.0.4 text, and OpenMetrics with Accept), counters moved between
    them; a port already taken is an error naming it.
rt (lab suite, root): --metrics during a real-time run on two net_null ports (tests/lab/rt-tx.yaml, 4 s): two
  scrapes, 1 s apart; emulated time, events, passes and the port's frames sent moved; per-lcore lateness present.
Exit status: 0 passed, 1 failed, 77 skipped (rt: not root; curl missing).
"""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from checks import check, finish, workdir  # noqa: E402
from runner import run  # noqa: E402

try:
    from prometheus_client.parser import text_string_to_metric_families as parse_text
    from prometheus_client.openmetrics.parser import text_string_to_metric_families as parse_om
except ImportError:  # Debian's python3-prometheus-client, when python3 is another interpreter
    sys.path.append('/usr/lib/python3/dist-packages')
    from prometheus_client.parser import text_string_to_metric_families as parse_text
    from prometheus_client.openmetrics.parser import text_string_to_metric_families as parse_om

UETEMU, ROOT, WHICH = sys.argv[1], sys.argv[2], sys.argv[3]


def free_port():
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    port = s.getsockname()[1]
    s.close()
    return port


def scrape(port, om=False):
    """curl GET /metrics: {name: {labels-tuple: value}} for every sample, the content type, and the text."""
    cmd = ['curl', '-sS', '--max-time', '10', '-D', '-', 'http://127.0.0.1:%d/metrics' % port]
    if om:
        cmd += ['-H', 'Accept: application/openmetrics-text; version=1.0.0']
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, check=True)
    head, text = p.stdout.split('\n\n', 1)  # text mode: the header lines' CRLF read as LF
    ctype = [h.split(':', 1)[1].strip() for h in head.split('\n') if h.lower().startswith('content-type:')][0]
    out = {}
    for fam in (parse_om if om else parse_text)(text):
        for s in fam.samples:
            out.setdefault(s.name, {})[tuple(sorted(s.labels.items()))] = s.value
    return out, ctype, text


def wait_listening(port, proc, secs=30):
    end = time.time() + secs
    while time.time() < end and proc.poll() is None:
        try:
            socket.create_connection(('127.0.0.1', port), timeout=1).close()
            return True
        except OSError:
            time.sleep(0.05)
    return False


def metrics_built():
    """Whether this uetemu has --metrics (a build with libmicrohttpd): else the option is refused, exit 1."""
    p = subprocess.run([UETEMU, 'run', '--metrics', '127.0.0.1:1'], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    if p.returncode == 1 and 'without libmicrohttpd' in p.stderr:
        print('--metrics: %s' % p.stderr.strip())
        return False
    return True


def total(m, name):
    return sum(m.get(name, {}).values())


def stream_checks():
    ivl = 20_000_000  # 20 us
    a = run(UETEMU, 'configs/incast.yaml', root=ROOT, args=['--stats-interval', '20us'])
    b = run(UETEMU, 'configs/incast.yaml', root=ROOT)
    lines = open(os.path.join(a.out, 'stats.jsonl')).read().splitlines()
    objs = [json.loads(x) for x in lines]
    flows = [o for o in objs if o['type'] == 'flow']
    ivls = [o for o in objs if o['type'] == 'interval']
    check(a.rc == 0 and len(flows) > 0 and len(ivls) > 1,
          'incast --stats-interval 20us: %d flow objects, %d intervals' % (len(flows), len(ivls)))
    ends = [o['time_ps'] for o in ivls]
    check(all(e == (i + 1) * ivl for i, e in enumerate(ends[:-1])) and ends[-1] <= len(ends) * ivl and
          all(o['interval_ps'] == ivl for o in ivls[:-1]) and ivls[-1]['interval_ps'] == ends[-1] - ivl * (len(ends) - 1),
          'intervals end at 20, 40, ... us, the last one at the run\'s end (%.3f us)' % (ends[-1] / 1e6))
    by = {}
    for o in flows:
        by.setdefault(o['flow'], []).append(o)
    ok_consec = all([o['time_ps'] for o in v] == ends[ends.index(v[0]['time_ps']):ends.index(v[0]['time_ps']) + len(v)]
                    for v in by.values())
    check(len(by) == 8 and ok_consec and all(v[-1]['completed'] and not any(o['completed'] for o in v[:-1])
                                             for v in by.values()),
          'one object per interval per message, consecutive, the last one completed (%d messages)' % len(by))
    sums = {k: sum(o['bytes'] for o in v) for k, v in by.items()}
    check(all(sums[k] == by[k][0]['message_bytes'] == 2 * 1024 * 1024 for k in sums),
          'each message\'s bytes sum to its 2 MiB: %s' % sorted(set(sums.values())))
    per_ivl = {}
    for o in flows:
        per_ivl[o['time_ps']] = per_ivl.get(o['time_ps'], 0) + o['bytes']
    check(all(o['bytes'] == per_ivl.get(o['time_ps'], 0) and o['flows'] == sum(1 for f in flows if f['time_ps'] == o['time_ps'])
              for o in ivls), 'each interval\'s totals are its flows\' bytes and count')
    sane = all(o['bits_per_second'] == round(o['bytes'] * 8e12 / o['interval_ps']) or
               abs(o['bits_per_second'] - o['bytes'] * 8e12 / o['interval_ps']) <= 1 for o in flows)
    sane = sane and all(o['bits_per_second'] <= 400e9 * 1.01 for o in flows)
    check(sane, 'throughput = bytes x 8 / interval, under the 400 Gb/s line rate (max %.1f Gb/s)'
          % (max(o['bits_per_second'] for o in flows) / 1e9))
    open_objs = [o for o in flows if not o['completed']]
    check(all(o['cwnd_bytes'] and o['cwnd_bytes'] > 0 and o['rtt_ps'] and o['rtt_ps'] > 0 for o in open_objs),
          'open messages give the NSCC window and an RTT (e.g. cwnd %s B, rtt %s ps)'
          % (open_objs[0]['cwnd_bytes'] if open_objs else '-', open_objs[0]['rtt_ps'] if open_objs else '-'))
    ss = a.summary.get('stats_stream', {})
    size = os.path.getsize(os.path.join(a.out, 'stats.jsonl'))
    check(ss.get('objects') == len(objs) and ss.get('bytes') == size and ss.get('cut') is False and
          ss.get('interval_ps') == ivl and ss.get('clock') == 'emulated',
          'summary.json stats_stream: %s objects, %s bytes, not cut' % (ss.get('objects'), ss.get('bytes')))
    same = all(open(os.path.join(a.out, f), 'rb').read() == open(os.path.join(b.out, f), 'rb').read()
               for f in os.listdir(b.out) if f.endswith(('.csv', '.pcap')))
    check(same and 'stats_stream' not in b.summary, 'records and captures are those of the run without it; '
          'without it summary.json has no stats_stream')
    check(all(o['kind'] == 'message' for o in flows), 'the incast\'s flows are its messages')
    # the ScalaRdma application: one flow per connection, its WQEs and bytes
    d = run(UETEMU, 'configs/default.yaml', root=ROOT, args=['--stats-interval', '100us'])
    df = [json.loads(x) for x in open(os.path.join(d.out, 'stats.jsonl'))]
    df = [o for o in df if o['type'] == 'flow']
    conns = {o['flow'] for o in df}
    wqes = sum(o['wqes'] for o in df)
    want = sum(p['wqes_completed'] for p in d.summary['rdma']['pairs'])
    nbytes = sum(o['bytes'] for o in df)
    check(d.rc == 0 and all(o['kind'] == 'connection' for o in df) and len(conns) == 8 and wqes == want and
          wqes * 250000 <= nbytes < (wqes + 8 * 10) * 250000 and all(o['cwnd_bytes'] for o in df if o['bytes']),
          'default (ScalaRdma): %d connections, %d WQEs as rdma.pairs[].wqes_completed (%d), %d bytes'
          % (len(conns), wqes, want, nbytes))
    # the RoCE NIC: its queue pairs' rate, go-back-N rewinds
    r = run(UETEMU, 'configs/roce-incast.yaml', root=ROOT, args=['--stats-interval', '50us'])
    rf = [json.loads(x) for x in open(os.path.join(r.out, 'stats.jsonl'))]
    rf = [o for o in rf if o['type'] == 'flow']
    rs = {}
    for o in rf:
        rs[o['flow']] = rs.get(o['flow'], 0) + o['bytes']
    check(r.rc == 0 and len(rs) == 8 and all(v == 2 * 1024 * 1024 for v in rs.values()) and
          all(o['rate_bps'] > 0 and o['cwnd_bytes'] is None for o in rf if not o['completed']),
          'roce-incast: 8 queue pairs, each 2 MiB in all, DCQCN rate given, no window')
    # the size limit
    c = run(UETEMU, 'configs/incast.yaml', root=ROOT, args=['--stats-interval', '20us'],
            sets=['simulation.RecordSizeLimit=3000'])
    data = open(os.path.join(c.out, 'stats.jsonl')).read()
    ss = c.summary.get('stats_stream', {})
    check(c.rc == 0 and len(data) <= 3000 and data.endswith('\n') and all(json.loads(x) for x in data.splitlines())
          and ss.get('cut') is True and ss.get('cut_at_ps') and ss.get('bytes') == len(data),
          'RecordSizeLimit 3000: %d B of whole lines, summary.json cut at %s ps' % (len(data), ss.get('cut_at_ps')))
    # stdout
    p = subprocess.run([UETEMU, 'run', os.path.join(ROOT, 'configs/pair.yaml'), '-q', '--out',
                        tempfile.mkdtemp(dir=workdir()), '--stats-interval', '50us', '--stats-out', '-'],
                       stdout=subprocess.PIPE, text=True)
    js = [json.loads(x) for x in p.stdout.splitlines() if x.startswith('{"type"')]
    check(p.returncode == 0 and len(js) > 0 and
          sum(o['bytes'] for o in js if o['type'] == 'flow') == 10 * 1024 * 1024,
          '--stats-out -: %d objects on stdout, 10 MiB in all' % len(js))
    for args, want, what in ((['--stats-out', 'x.jsonl'], 2, '--stats-out without --stats-interval'),
                             (['--stats-interval', 'often'], 2, 'a bad --stats-interval'),
                             (['--stats-interval', '0'], 2, '--stats-interval 0'),
                             (['--metrics', 'nowhere'], 2, '--metrics without a port')):
        p = subprocess.run([UETEMU, 'run', os.path.join(ROOT, 'configs/pair.yaml'), '-q', '--out',
                            tempfile.mkdtemp(dir=workdir())] + args, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        check(p.returncode == want and 'uetemu:' in p.stderr, '%s: exit %d (%s)' % (what, p.returncode,
                                                                                    p.stderr.splitlines()[0]))
    p = subprocess.run([UETEMU, 'validate', os.path.join(ROOT, 'configs/pair.yaml'), '--stats-interval', '1us'],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    check(p.returncode == 2, 'validate refuses --stats-interval (run only): exit %d' % p.returncode)


def metrics_checks(mode):
    port = free_port()
    out = tempfile.mkdtemp(dir=workdir())
    if mode == 'vt':
        cmd = [UETEMU, 'run', os.path.join(ROOT, 'configs/default.yaml'), '-q', '--out', out,
               '--set', 'simulation.RunTime=10s', '--metrics', '127.0.0.1:%d' % port]
        gap = 0.5  # the run is far longer than the scrapes (on any machine) and is stopped by SIGINT after them
    else:
        prefix = 'uetemu-test-metrics-%d' % os.getpid()
        # net_null ports: nothing comes back, so the messages stay open (the verdict's exit 10 without the flag)
        cmd = [UETEMU, 'run', os.path.join(ROOT, 'tests/lab/rt-tx.yaml'), '--mode', 'realtime', '-q', '--out', out,
               '--allow-incomplete',
               '--set', 'simulation.SimulationDuration=4s', '--metrics', '127.0.0.1:%d' % port,
               '--stats-interval', '500ms', '--',
               '--no-huge', '--no-pci', '-m', '256', '--file-prefix', prefix, '--log-level=lib.*:error']
        gap = 1.0
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        up = wait_listening(port, proc)
        check(up, '%s run: the endpoint listens on 127.0.0.1:%d' % (mode, port))
        if not up:
            return
        time.sleep(0.2)
        m1, ct1, _ = scrape(port)
        time.sleep(gap)
        m2, ct2, _ = scrape(port)
        om, ct3, text3 = scrape(port, om=True)
        alive = proc.poll() is None
    finally:
        if mode == 'vt' and proc.poll() is None:
            proc.send_signal(signal.SIGINT)
        try:
            rc = proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            proc.kill()
            rc = proc.wait()
    check(alive, 'the run was still going after the scrapes')
    check(ct1.startswith('text/plain; version=0.0.4') and ct3.startswith('application/openmetrics-text') and
          text3.endswith('# EOF\n'), 'content types: %s; with Accept: %s, ending # EOF' % (ct1, ct3))
    moved = [n for n in ('uetemu_emulated_time_seconds', 'uetemu_wall_time_seconds', 'uetemu_events_total',
                         'uetemu_host_tx_bytes_total', 'uetemu_lcore_events_total')
             if total(m2, n) > total(m1, n)]
    if mode == 'vt':
        moved += [n for n in ('uetemu_rdma_wqes_completed_total', 'uetemu_link_bytes_total',
                              'uetemu_switch_port_tx_bytes_total') if total(m2, n) > total(m1, n)]
        want = 8
    else:
        moved += [n for n in ('uetemu_lcore_passes_total', 'uetemu_port_tx_frames_total',
                              'uetemu_lcore_emulated_time_seconds') if total(m2, n) > total(m1, n)]
        want = 8
    check(len(moved) == want, '%d of %d counters moved between two scrapes %.1f s apart: %s'
          % (len(moved), want, gap, ', '.join(moved)))
    hosts = {dict(k)['host'] for k in m2.get('uetemu_host_tx_bytes_total', {})}
    nic = {dict(k)['counter'] for k in m2.get('uetemu_nic_counter_total', {})}
    check(len(hosts) == (16 if mode == 'vt' else 2) and 'num_rtx' in nic,
          'per host: %d hosts, %d NIC counters by name' % (len(hosts), len(nic)))
    check(all(n in om for n in ('uetemu_events_total', 'uetemu_host_tx_bytes_total', 'uetemu_fabric_drops_total')),
          'OpenMetrics answer parses with the same counters')
    if mode == 'vt':
        s = socket.socket()
        s.bind(('127.0.0.1', 0))
        s.listen()
        p = subprocess.run([UETEMU, 'run', os.path.join(ROOT, 'configs/pair.yaml'), '-q', '--out',
                            tempfile.mkdtemp(dir=workdir()), '--metrics', '127.0.0.1:%d' % s.getsockname()[1]],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        s.close()
        check(p.returncode == 1 and 'cannot listen there' in p.stderr,
              'a port already taken: exit %d (%s)' % (p.returncode, p.stderr.strip()))
    # OpenMetrics: a counter family NAME's samples are all NAME_total
    counters = re.findall(r'^# TYPE (\S+) counter$', text3, re.M)
    bad = [ln.split()[0] for ln in text3.splitlines() if not ln.startswith('#') and
           any(re.match(re.escape(c) + r'(\{| )', ln) for c in counters)]
    check(counters and not bad, 'OpenMetrics: every sample of the %d counter families ends in _total%s'
          % (len(counters), (': not ' + ', '.join(bad[:5])) if bad else ''))
    if mode == 'rt':
        st = [n for n in ('uetemu_stalls_total', 'uetemu_stalls_charged_total', 'uetemu_stalls_idle_total',
                          'uetemu_stall_seconds_total', 'uetemu_stall_held_seconds_total',
                          'uetemu_timeouts_after_stall_total', 'uetemu_lcore_stalls_total') if n not in m2]
        check(not st, 'the stall counters (docs/realtime.md, Stalls)%s' % (': missing ' + ', '.join(st) if st else ''))
        lat = m2.get('uetemu_lcore_lateness_p99_seconds', {})
        check(len(lat) == 1 and 'uetemu_port_drops_total' in m2 and len(m2.get('uetemu_lcore_info', {})) == 1,
              'per lcore lateness and EAL lcore, per port drops present')
    if mode == 'vt':
        check(rc == 3 and json.load(open(os.path.join(out, 'summary.json')))['stop'] == 'signal',
              'the run stopped by SIGINT after the scrapes: exit %d, summary.json written' % rc)
    else:
        check(rc == 0, 'the run ends as configured: exit %d' % rc)
    if mode == 'rt':
        shutil.rmtree('/var/run/dpdk/' + prefix, ignore_errors=True)
        objs = [json.loads(x) for x in open(os.path.join(out, 'stats.jsonl'))]
        ivls = [o for o in objs if o['type'] == 'interval']
        ss = json.load(open(os.path.join(out, 'summary.json'))).get('stats_stream', {})
        full = [o for o in ivls if o['interval_ps'] == 500_000_000_000]
        check(len(full) == 8 and len(ivls) - len(full) <= 1 and ivls[:8] == full and
              ss.get('clock') == 'wall' and ss.get('objects') == len(objs),
              'real time --stats-interval 500ms: %d intervals of 0.5 s wall time in 4 s, clock %s'
              % (len(full), ss.get('clock')))


if shutil.which('curl') is None:
    print('test_metrics: curl missing, skipped')
    sys.exit(77)
if WHICH == 'vt':
    stream_checks()
    if metrics_built():
        metrics_checks('vt')
else:
    if os.geteuid() != 0 or not metrics_built():
        print('test_metrics rt: not root, or no --metrics in this build: skipped')
        sys.exit(77)
    metrics_checks('rt')
sys.exit(finish('test_metrics ' + WHICH))
