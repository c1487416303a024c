#!/usr/bin/env python3
"""docs/summary.md documents every key of summary.json.

Runs configs/pair.yaml (explicit hosts and links), configs/incast.yaml (a generated rack: switches, topology) and
configs/rdma-rack.yaml (the rdma member) in virtual time, walks every key path of each summary.json (the items of
a list merged) and checks that each key name appears in docs/summary.md as `key` (in backticks). The keys no
virtual run writes are taken from the sources: every "key": the JSON writers print (control/report/ctl_report.c,
ctl_report_verdict.c and ctl_report_flows.c,
ctl_rdma_json() in control/app/ctl_rdma.c: the real-time members too), the "stop" values (ctl_stop_name()), and
the X-macros: each NIC counter (emul/nic/nic.h, hosts[].counters and drop_reasons), switch counter
(emul/switch/sw.h; its drop_ ones also as switch_<key>), network counter (emul/net/net.h) and wire reason
(emul/wire/wire.h, port_rx_refused) must be on a line of the page that also carries its description.
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from checks import check, finish  # noqa: E402
from runner import run  # noqa: E402

CONFIGS = ['configs/pair.yaml', 'configs/incast.yaml', 'configs/rdma-rack.yaml', 'configs/chakra-dp8.yaml',
           'configs/stream.yaml']


def key_paths(obj, path=''):
    """Yield (path, key) for every key of @p obj, nested ones included; a list's items share the path 'x[]'."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield path, k
            yield from key_paths(v, path + '.' + k if path else k)
    elif isinstance(obj, list):
        for v in obj:
            yield from key_paths(v, path + '[]')


def xmacro(root, header, name):
    """The (key, description) pairs of X-macro @p name in @p header, the index-0 entry (none, ok) left out."""
    with open(os.path.join(root, header)) as f:
        src = f.read()
    m = re.search(r'#define %s\(X\)(.*?)\n\n' % name, src, re.S)
    rows = re.findall(r'X\(\w+,\s*"([^"]*)",\s*"((?:[^"\\]|\\.)*)"\)', m.group(1)) if m else []
    return rows[1:]


def source_keys(root):
    """Every "key": printed by the summary.json writers, as (file, key)."""
    out = []
    with open(os.path.join(root, 'control/report/ctl_report.c')) as f:
        report = f.read()
    with open(os.path.join(root, 'control/report/ctl_report_verdict.c')) as f:  # summary.json "verdict"
        report += f.read()
    with open(os.path.join(root, 'control/report/ctl_report_flows.c')) as f:  # summary.json "flows"
        report += f.read()
    with open(os.path.join(root, 'control/app/ctl_rdma.c')) as f:
        rdma = f.read()
    m = re.search(r'\nvoid ctl_rdma_json\(.*?\n}\n', rdma, re.S)
    for name, text in (('ctl_report.c', report), ('ctl_rdma_json()', m.group(0) if m else '')):
        out += [(name, k) for k in re.findall(r'\\"([a-z][a-z0-9_]*)\\":', text)]
    return out, report, m is not None


def main():
    uetemu, root = sys.argv[1], sys.argv[2]
    with open(os.path.join(root, 'docs/summary.md')) as f:
        doc = f.read()
    lines = doc.splitlines()
    ticked = set(re.findall(r'`([^`\n]+)`', doc))

    # 1. every key path a run writes
    for cfg in CONFIGS:
        r = run(uetemu, cfg, root=root, keep=False)
        s = r.summary
        if not check(s is not None, '%s: summary.json written' % cfg):
            continue
        check(s.get('schema') == 1, '%s: schema 1 (%s)' % (cfg, s.get('schema')))
        check(s.get('stop') == 'completed', '%s: stop "completed" (%s)' % (cfg, s.get('stop')))
        missing = sorted({'%s%s%s' % (p, '.' if p else '', k) for p, k in key_paths(s) if k not in ticked})
        n = len({(p, k) for p, k in key_paths(s)})
        check(not missing, '%s: all %d key paths documented%s' % (cfg, n, (': missing ' + ', '.join(missing))
                                                                   if missing else ''))
    # 2. the keys in the writers' sources, real-time members included
    keys, report, found = source_keys(root)
    check(found and len(keys) > 60, 'the sources name %d summary keys (ctl_rdma_json() found: %s)' % (len(keys), found))
    missing = sorted({'%s: %s' % (w, k) for w, k in keys if k not in ticked})
    check(not missing, 'every key the writers print is documented' + (': missing ' + '; '.join(missing)
                                                                       if missing else ''))
    m = re.search(r'ctl_stop_name\(.*?names\[\] = \{(.*?)\}', report, re.S)
    stops = re.findall(r'"([a-z]+)"', m.group(1)) if m else []
    missing = [v for v in stops if v not in ticked]
    check(len(stops) >= 4 and not missing, 'every stop value documented (%s)%s' % (
        ', '.join(stops), ': missing ' + ', '.join(missing) if missing else ''))

    # 3. the counter tables: each key on a line with its description
    def documented(key, desc):
        return any('`%s`' % key in ln and desc in ln for ln in lines)

    tables = [
        ('emul/nic/nic.h', 'NIC_COUNTERS', 'NIC counter', lambda k: [k]),
        ('emul/switch/sw.h', 'SW_COUNTERS', 'switch counter',
         lambda k: [k, 'switch_' + k] if k.startswith('drop_') else [k]),
        ('emul/net/net.h', 'NET_COUNTERS', 'network counter (drop_reasons)', lambda k: [k]),
        ('emul/wire/wire.h', 'WIRE_REASONS', 'wire reason (port_rx_refused)', lambda k: [k]),
    ]
    for header, macro, what, names in tables:
        rows = xmacro(root, header, macro)
        missing = [n for k, d in rows for n in names(k) if not documented(n, d)]
        check(len(rows) > 5 and not missing, 'every %s of %s (%d) documented with its description%s' % (
            what, macro, len(rows), ': missing ' + ', '.join(missing) if missing else ''))
    return finish('summary-doc')


if __name__ == '__main__':
    sys.exit(main())
