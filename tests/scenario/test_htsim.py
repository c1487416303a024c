#!/usr/bin/env python3
"""htsim's input files (issue 28, docs/topology.md, Coming from htsim).

tests/scenario/htsim/k4-cm.yaml runs htsim's k4.topo (k = 4 fat tree, 100 Gb/s) and k4.cm (six connections, one
start with a fraction htsim drops); k4-yaml.yaml is the same work written in YAML. The two runs give the same
messages (count, pairs, sizes, starts, as the .cm says, host N being hostN) and every record byte for byte, and
summary.json alike but for its wall time. A two-tier .topo builds the leaf-spine it describes. Every bad line of a
.cm or a .topo, and each htsim feature uetemu cannot express (triggers, msg, failures, queue sizes, switch
latency, bundles, oversubscribed fat trees), is refused naming FILE:LINE.

Usage: test_htsim.py UETEMU ROOT"""
import glob
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from checks import check, finish, workdir  # noqa: E402
from runner import run  # noqa: E402

uetemu, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
here = os.path.join(root, 'tests', 'scenario', 'htsim')

# The same work from htsim's files and from YAML.
a = run(uetemu, os.path.join(here, 'k4-cm.yaml'))
b = run(uetemu, os.path.join(here, 'k4-yaml.yaml'))
want = [('host0', 'host5', 100000, 0.0), ('host3', 'host12', 65536, 2.0), ('host7', 'host1', 300000, 5.0),
        ('host15', 'host0', 4096, 10.0), ('host1', 'host7', 1, 0.0), ('host9', 'host14', 1000000, 3.0)]
got = [(m['src'], m['dst'], m['bytes'], m['start_us']) for m in a.summary['messages']['list']]
check(got == want, 'the .cm gives its six messages in order (pairs, sizes, starts): %s' % got)
check(a.summary['messages']['completed'] == 6, 'all six complete: %s' % a.summary['messages'])
names = sorted(os.path.basename(p) for p in glob.glob(os.path.join(a.out, '*.csv')))
check(names and names == sorted(os.path.basename(p) for p in glob.glob(os.path.join(b.out, '*.csv'))),
      'the same record files: %s' % names)
for n in names:
    same = open(os.path.join(a.out, n), 'rb').read() == open(os.path.join(b.out, n), 'rb').read()
    check(same, '%s byte for byte the YAML run\'s' % n)
for s in (a.summary, b.summary):
    s.pop('wall_s')
check(a.summary == b.summary, 'summary.json the same but for wall_s')
check(a.summary['hosts'] and len(a.summary['hosts']) == 16, '16 hosts')

tmp = tempfile.mkdtemp(prefix='uetemu-htsim-', dir=workdir())


def validate(topo, cm=None, extra=''):
    """uetemu validate on a config of the .topo text (and .cm text): (exit status, stderr + stdout)."""
    with open(os.path.join(tmp, 't.topo'), 'w') as f:
        f.write(topo)
    cfg = 'topology: {type: htsim, file: t.topo%s}\n' % extra
    if cm is not None:
        with open(os.path.join(tmp, 't.cm'), 'w') as f:
            f.write(cm)
        cfg += 'applications:\n  - {type: connection_matrix, file: t.cm}\n'
    with open(os.path.join(tmp, 't.yaml'), 'w') as f:
        f.write(cfg)
    p = subprocess.run([uetemu, 'validate', os.path.join(tmp, 't.yaml')], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    return p.returncode, p.stdout


K4 = open(os.path.join(here, 'k4.topo')).read()
rc, out = validate(K4)
check(rc == 0, 'k4.topo validates: %s' % out)

# A two-tier .topo: 4 leaves of 8 hosts, 2 spines (htsim's leaf_spine_tiny), at 100 Gb/s and 1 us.
LS = ('Nodes 32\nTiers 2\nPodsize 32\n\nTier 0\nDownlink_speed_Gbps 100\nRadix_Down 8\nRadix_Up 2\n'
      'Downlink_Latency_ns 1000\nSwitch_Latency_ns 0\nOversubscribed 4\n\nTier 1\nDownlink_speed_Gbps 100\n'
      'Radix_Down 4\nDownlink_Latency_ns 1000\nSwitch_Latency_ns 0\n')
rc, out = validate(LS, 'Nodes 32\nConnections 1\n31->0 id 1 start 0 size 1000\n')
check(rc == 0 and '32 hosts' in out and '40 links' in out, 'a two-tier .topo is a leaf-spine of 32 hosts, 40 links: '
      '%s' % out)

CM = 'Nodes 16\nConnections 1\n'
bad_cm = [
    ('3->7 id 1 start 0 size 100 send_done_trigger 1', 't.cm:3: send_done_trigger: a connection started by'),
    ('3->7 id 1 trigger 1 size 100', 't.cm:3: trigger: a connection started by'),
    ('3->7 id 1 start 0 size 100 msg 2', 't.cm:3: msg: messages reusing one connection'),
    ('3->7 id 1 start 0 size 100 colour 2', "t.cm:3: unknown word 'colour'"),
    ('3->3 id 1 start 0 size 100', 't.cm:3: 3->3: a message goes between two different hosts'),
    ('3->16 id 1 start 0 size 100', 't.cm:3: host 16: the matrix has Nodes 16'),
    ('3->7 id 1 start 0', 't.cm:3: no size'),
    ('3->7 id 1 start 0 size 0', 't.cm:3: size 0: htsim runs a connection without a size'),
    ('3->7 id 1 size 100', 't.cm:3: no start'),
    ('3->7 id 1 start soon size 100', 't.cm:3: start needs a time in microseconds'),
    ('3->7 id 0 start 0 size 100', 't.cm:3: id 0'),
    ('3->7 id 1 start 0 size 1e6', "t.cm:3: size '1e6': expected a whole number"),
    ('3-7 id 1 start 0 size 100', "t.cm:3: unknown line '3-7'"),
    ('3->7 id 1 start 0 size 100\n4->8 id 1 start 0 size 100', 't.cm: id 1 is given to two connections'),
    ('3->7 id 1 start 0 size 100\n4->8 id 2 start 0 size 100', 't.cm:2: Connections 1, but the file has 2'),
    ('trigger id 1 oneshot', 't.cm:3: trigger: htsim\'s triggers are not supported'),
]
for line, msg in bad_cm:
    rc, out = validate(K4, CM + line + '\n')
    check(rc != 0 and msg in out, 'bad .cm line %r: %r in %s' % (line, msg, out.strip()))
for cm, msg in [('Nodes 32\nConnections 1\n0->1 id 1 start 0 size 10\n', 't.cm:1: Nodes 32, but the topology has 16'),
                ('Connections 1\n0->1 id 1 start 0 size 10\n', 't.cm:2: a connection before Nodes'),
                ('Nodes 16\nTriggers 2\n', 't.cm:2: Triggers 2: htsim\'s triggers are not supported'),
                ('Nodes 16\nFlows 2\n', "t.cm:2: unknown line 'Flows'")]:
    rc, out = validate(K4, cm)
    check(rc != 0 and msg in out, 'bad .cm %r: %r in %s' % (cm, msg, out.strip()))

bad_topo = [
    (('Radix_Up 2\nDownlink_Latency_ns 100', 'Radix_Up 2\nQueue_Down 100000\nDownlink_Latency_ns 100'),
     't.topo:11: Queue_Down: per-port queue sizes are not imported'),
    (('Downlink_Latency_ns 100\nSwitch_Latency_ns 0', 'Downlink_Latency_ns 100\nSwitch_Latency_ns 500'),
     't.topo:12: Switch_Latency_ns 500 in Tier 0'),
    (('Radix_Down 2\nRadix_Up 2\nDownlink_Latency_ns 100', 'Radix_Down 2\nRadix_Up 1\nDownlink_Latency_ns 100'),
     't.topo:10: Radix_Up 1 in Tier 0'),
    (('Downlink_Latency_ns 500\nSwitch_Latency_ns 0\nBundle 1', 'Downlink_Latency_ns 500\nSwitch_Latency_ns 0\n'
      'Bundle 2'), 't.topo:21: Bundle 2 in Tier 1'),
    (('Oversubscribed 1', 'Oversubscribed 2'), 't.topo:13: Oversubscribed 2 in Tier 0'),
    (('Tier 2\n', 'Tier 2\nColour 3\n'), "t.topo:24: unknown attribute 'Colour'"),
    (('Nodes 16', 'Nodes 17'), 't.topo: Nodes 17, Podsize 4; the k = 4 fat tree'),
    (('Radix_Down 4', 'Radix_Down 4\nRadix_Down 4'), 't.topo:26: Radix_Down a second time in Tier 2 (first at line 25)'),
    (('Tier 2', 'Tier 3'), 't.topo:23: Tier 3: tiers are 0'),
    (('Downlink_speed_Gbps 100\nRadix_Down 2\nRadix_Up 2\nDownlink_Latency_ns 500',
      'Downlink_speed_Gbps 400\nRadix_Down 2\nRadix_Up 2\nDownlink_Latency_ns 500'), None),
    (('Podsize 4', 'Podsize four'), "t.topo:5: Podsize 'four': expected a whole number"),
]
for (old, new), msg in bad_topo:
    check(old in K4, 'the case %r edits k4.topo' % old)
    rc, out = validate(K4.replace(old, new, 1))
    if msg is None:  # tor-agg links at 400 Gb/s between 100 Gb/s hosts and cores: expressible
        check(rc == 0 and 'error' not in out, 'a faster middle tier validates: %s' % out.strip())
        continue
    check(rc != 0 and msg in out, 'bad .topo %r: %r in %s' % (new, msg, out.strip()))
# Host links faster than the tors' uplinks, the cores' links faster again: no DataRate per tier gives that.
rc, out = validate(K4.replace('Downlink_speed_Gbps 100', 'Downlink_speed_Gbps 400', 1)
                   .replace('Tier 2\nDownlink_speed_Gbps 100', 'Tier 2\nDownlink_speed_Gbps 400'))
check(rc != 0 and 'no DataRate per tier gives these' in out, 'inexpressible speeds refused: %s' % out.strip())
rc, out = validate(K4, extra=', k: 4')
check(rc != 0 and "k" in out, 'a fat-tree key in an htsim topology refused: %s' % out.strip())
finish('htsim')
