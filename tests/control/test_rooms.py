#!/usr/bin/env python3
"""The tree shows the architecture: control/ is split into rooms (config, records, app, report, run, cli), no
file includes another room's private header (*_pvt.h), the rooms depend on each other without a cycle, and
main.c only hands off to the cli room; runtime/ (the engine) includes nothing of control/, and control/ keeps none
of the engine (MPI calls, threads and barriers, rings). Usage: test_rooms.py REPO_ROOT"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from checks import check, finish  # noqa: E402

root = sys.argv[1]
ctl = os.path.join(root, 'control')
rooms = sorted(d for d in os.listdir(ctl) if os.path.isdir(os.path.join(ctl, d)))
check(set(rooms) >= {'config', 'records', 'app', 'report', 'run', 'cli'}, 'control/ rooms: %s' % rooms)
loose = sorted(f for f in os.listdir(ctl) if f.endswith(('.c', '.h')) and f != 'main.c')
check(not loose, 'no source beside main.c at control/ top level: %s' % loose)

owner = {}   # header file name -> room
for room in rooms:
    for f in os.listdir(os.path.join(ctl, room)):
        if f.endswith('.h'):
            owner[f] = room
inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
deps = {room: set() for room in rooms}
for room in rooms:
    for f in sorted(os.listdir(os.path.join(ctl, room))):
        if not f.endswith(('.c', '.h')):
            continue
        text = open(os.path.join(ctl, room, f)).read()
        for h in inc.findall(text):
            other = owner.get(h)
            if other is None or other == room:
                continue
            check(not h.endswith('_pvt.h'), '%s/%s includes %s, the public face of %s' % (room, f, h, other))
            deps[room].add(other)

# a cycle between rooms: depth-first search over the room graph
state, cycle = {}, []


def visit(r, path):
    state[r] = 1
    for d in sorted(deps[r]):
        if state.get(d) == 1:
            cycle.append(' -> '.join(path + [r, d]))
        elif d not in state:
            visit(d, path + [r])
    state[r] = 2


for r in rooms:
    if r not in state:
        visit(r, [])
check(not cycle, 'no include cycle spans rooms %s' % cycle)
print('room dependencies: ' + '; '.join('%s -> %s' % (r, ', '.join(sorted(deps[r])) or '-') for r in rooms))
main_inc = [h for h in inc.findall(open(os.path.join(ctl, 'main.c')).read())]
check(main_inc == ['ctl_cli.h'], 'main.c includes only ctl_cli.h: %s' % main_inc)

# runtime/: the engine, between control/ and dataplane/, pcap/, emul/. Its files are run_*; it includes no header of
# control/ (no config), and control/ keeps none of the engine: no MPI call, no thread or barrier, no ring.
rt = os.path.join(root, 'runtime')
rt_files = sorted(f for f in os.listdir(rt) if f.endswith(('.c', '.h')))
check(rt_files and all(f.startswith('run') for f in rt_files), 'runtime/ files are run_*: %s' % rt_files)
ctl_headers = set(owner)
for f in rt_files:
    for h in inc.findall(open(os.path.join(rt, f)).read()):
        check(h not in ctl_headers and not h.startswith('ctl_'), 'runtime/%s includes %s, of control/' % (f, h))
engine = re.compile(r'\bMPI_\w+|\bpthread_(create|barrier)\w*|__builtin_ia32_pause|sched_yield|\b(emu|run)_spsc_\w+\s*\(')
for room in rooms:
    for f in sorted(os.listdir(os.path.join(ctl, room))):
        if f.endswith(('.c', '.h')):
            hit = engine.search(open(os.path.join(ctl, room, f)).read())
            check(hit is None, 'control/%s/%s keeps engine code (%s): it is runtime/\'s' % (room, f,
                                                                                       hit and hit.group(0)))
sys.exit(finish('test_rooms'))
