#!/usr/bin/env python3
"""Chakra traces as Chakra's PyTorch converter writes them (docs/chakra.md, "Traces from Chakra's converter"), on
configs/chakra-dp8.yaml: scripts/chakra-gen pytorch writes 8 ranks the way pytorch_converter.py does (the
GlobalMetadata attribute schema and no version, no pg:<name>, the "## process_group:init ##" communicator records,
pg_name strings, ctrl_deps naming absent nodes, their own node and cycles, gzip).

Checks: the gzipped traceset runs unedited and every rank ends; the warnings name each file's dropped ctrl_deps with
their counts and the first of each kind, summary.json counts them and what was read and not replayed; the same
traceset uncompressed gives the same completion times; StrictDependencies: true refuses it naming the first bad
dependency; AbortOnChakraWarning: true refuses it; a group named only by pg_name is every rank, with a warning;
PyTorch's older schema 1.0.1 is read, a Chakra ET schema major uetemu cannot read is refused naming it; the
tracesets bad-cycle (a ctrl_dep closing a cycle) and bad-undeclared-pg (a group one file names by pg_name only) run.
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from checks import check, finish, workdir  # noqa: E402
from runner import run  # noqa: E402

uetemu, root = sys.argv[1], sys.argv[2]
CFG = 'configs/chakra-dp8.yaml'
GEN = os.path.join(root, 'scripts', 'chakra-gen')
TS = os.path.join(root, 'tests', 'chakra')


def gen(name, *args):
    out = os.path.join(workdir(), name)
    subprocess.run(['/usr/bin/python3', GEN, 'pytorch', out, '--ranks', '8', '--steps', '2', '--size', '1000000']
                   + list(args), check=True, stdout=subprocess.DEVNULL)
    return out


def attempt(ts, *sets):
    """uetemu run on traceset @p ts with more --set; (returncode, stderr, summary or None)."""
    out = os.path.join(workdir(), 'run-%d' % attempt.n)
    attempt.n += 1
    cmd = [uetemu, 'run', os.path.join(root, CFG), '--out', out, '--quiet', '--set', 'applications.0.Traceset=' + ts]
    for s in sets:
        cmd += ['--set', s]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
    path = os.path.join(out, 'summary.json')
    summary = None
    if os.path.exists(path):
        import json
        with open(path) as f:
            summary = json.load(f)
    return p.returncode, p.stderr, summary


attempt.n = 0

# 1. Gzipped, as the converter writes it: runs unedited, every rank ends, the warnings name what was dropped.
gz = gen('pt-gz', '--gzip')
with open(os.path.join(gz, 'trace.0.et'), 'rb') as f:
    check(f.read(2) == b'\x1f\x8b', 'the traceset is gzip-compressed')
rc, err, s = attempt(gz)
ck = (s or {}).get('chakra', {})
check(rc == 0 and ck.get('ranks') == 8 and ck.get('ranks_ended') == 8, 'every rank ended (%d): %s' % (rc, ck))
check(ck.get('collectives') == 8, 'two steps of an AllReduce over pg 0, a sub-group collective (pg 1 from the '
      'communicator records, pg 2 from involved_ranks) and a Broadcast without pg_name: %s' % ck.get('collectives'))
for r in range(8):
    f = 'pt-gz/trace.%d.et: ' % r
    for want in ('7 ctrl_deps name nodes the trace does not have, dropped (the first: node 2 on node 1)',
                 '2 ctrl_deps name their own node, dropped (the first: node 9)',
                 '4 ctrl_deps close a dependency cycle, dropped (the first: node 5 on node 6)'):
        check(f + want in err, 'rank %d warns: %s' % (r, want))
tr = ck.get('trace', {})
check(tr.get('ctrl_deps_dropped') == {'absent': 56, 'self': 16, 'cycle': 32} and tr.get('gzip_files') == 8 and
      tr.get('schema') == '1.0.2-chakra.0.0.4' and tr.get('pg_world') == 0, 'summary.json chakra.trace: %s' %
      {k: v for k, v in tr.items() if k != 'ignored'})
ign = tr.get('ignored', {})
check(ign.get('rf_id') == 184 and ign.get('op_schema') == 184 and ign.get('stream') == 64 and
      ign.get('GlobalMetadata.pid') == 8 and ign.get('Node.inputs') == 176 and 'comm_size' not in ign and
      'pg_name' not in ign, 'what was read and not replayed, counted: %s' % ign)

# 2. The same traceset uncompressed: the same run.
plain = gen('pt-plain')
rc2, _, s2 = attempt(plain)
check(rc2 == 0 and s2 and s2['chakra']['completion_us'] == ck.get('completion_us'),
      'uncompressed, the same completion times: %s' % (s2 or {}).get('chakra', {}).get('completion_us'))

# 3. The strict option (the Scala page's both lists alike) refuses it, naming the first bad dependency.
rc, err, s = attempt(gz, 'applications.0.ChakraConfiguration.StrictDependencies=true')
check(rc == 1 and 'pt-gz/trace.0.et: node 2 depends on node 1, which the trace does not have' in err and s is None,
      'StrictDependencies refuses (%d): %s' % (rc, err.strip().splitlines()[-1:]))
rc, err, s = attempt(gz, 'applications.0.ChakraConfiguration.AbortOnChakraWarning=true')
check(rc == 1 and 'AbortOnChakraWarning: trace preparation logged 24 warnings' in err and s is None,
      'AbortOnChakraWarning refuses (%d): %s' % (rc, err.strip().splitlines()[-1:]))

# 4. A group named only by pg_name: every rank, with a warning.
rc, err, s = attempt(gen('pt-bare', '--no-records'))
check(rc == 0 and s and s['chakra']['ranks_ended'] == 8 and s['chakra']['trace']['pg_world'] == 1 and
      'process group 0: named by pg_name, with no communicator record, pg:0 declaration or involved_ranks: taken '
      'as every rank (8)' in err, 'pg 0 without a record is every rank (%d): %s' % (rc, err.splitlines()[-1:]))

# 5. Schema versions: PyTorch's 1.0.1 (the converter of 2023) read; a Chakra major uetemu cannot read refused.
rc, _, s = attempt(gen('pt-101', '--schema', '1.0.1'))
check(rc == 0 and s and s['chakra']['trace']['schema'] == '1.0.1', 'schema 1.0.1 read (%d)' % rc)
for args, want in ((('--schema', '1.0.2-chakra.2.0.0'), 'Chakra ET schema version 2.0.0 (the chakra part of '
                    'GlobalMetadata attribute schema): uetemu reads Chakra ET schema versions 0.x and 1.x'),
                   (('--version', '3.1'), 'Chakra ET schema version 3.1 (GlobalMetadata version): uetemu reads')):
    rc, err, s = attempt(gen('pt-v%d' % attempt.n, *args))
    check(rc == 1 and 'trace.0.et: ' + want in err and s is None, 'refused (%d): %s' % (rc, err.strip()[-160:]))

# 6. uetemu's own broken tracesets that Chakra's feeder replays: both run, every rank ends.
for name, want in (('bad-cycle', 'bad-cycle/trace.0.et: 1 ctrl_deps close a dependency cycle, dropped (the first: '
                                 'node 0 on node 4)'), ('bad-undeclared-pg', '')):
    r = run(uetemu, CFG, root=root, sets=('applications.0.Traceset=' + os.path.join(TS, name),), keep=False)
    check(r.summary['chakra']['ranks_ended'] == 8, '%s: every rank ended' % name)
    rc, err, _ = attempt(os.path.join(TS, name))
    check(want in err, '%s warns %s' % (name, want or 'nothing needed'))

sys.exit(finish('chakra-pytorch'))
