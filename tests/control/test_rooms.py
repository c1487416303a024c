#!/usr/bin/env python3
"""The tree shows the architecture, and the build enforces it.

control/ is split into rooms (config, records, app, report, run, cli), no file includes another room's private
header (*_pvt.h), the rooms depend on each other without a cycle, and main.c only hands off to the cli room.

emul/ is split into rooms too, each a library that sees only the rooms emul/meson.build declares for it
(emul_rooms): every room folder is declared, a room declares only rooms listed before it (no cycle), each file
includes only its own room's headers and its declared rooms' (the declared rooms of a declared room included),
never another room's *_pvt.h, and no DPDK, libpcap, YAML, protobuf or MPI header anywhere below emul/.

The top-level layers depend downward only: control -> runtime (when there) -> dataplane, pcap -> emul;
runtime/ (the engine, run_* files) includes nothing of control/, and control/ keeps none of the engine (MPI
calls, threads and barriers, rings).

With BUILD_ROOT (a configured build), the compiler is asked too: each emul room's own compile command (from
compile_commands.json) finds a header of every room it declares (and can include it) and of no other room;
emul/core/emu_rng.c with #include "nic.h" added must not compile.

Usage: test_rooms.py REPO_ROOT [BUILD_ROOT]"""
import json
import os
import re
import shlex
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from checks import check, finish, workdir  # noqa: E402

root = os.path.abspath(sys.argv[1])
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

# ---- emul/: the rooms emul/meson.build declares, and what each file includes ----
emul = os.path.join(root, 'emul')
build_text = open(os.path.join(emul, 'meson.build')).read()
decl_block = re.search(r'^emul_rooms = \[(.*?)^\]', build_text, re.M | re.S)
check(decl_block is not None, 'emul/meson.build declares emul_rooms')
declared = []   # [(room, [rooms it declares])], in build order
for name, deps_text in re.findall(r"\[\s*'(\w+)'\s*,\s*\[([^\]]*)\]\s*\]", decl_block.group(1) if decl_block else ''):
    declared.append((name, re.findall(r"'(\w+)'", deps_text)))
e_rooms = sorted(d for d in os.listdir(emul) if os.path.isdir(os.path.join(emul, d)))
check(sorted(r for r, _ in declared) == e_rooms, 'every emul/ room folder is declared once in emul_rooms: %s vs %s'
      % (sorted(r for r, _ in declared), e_rooms))
sees = {}   # room -> the rooms it may include: its declared rooms and theirs
for r, ds in declared:
    early = [d for d in ds if d not in sees]
    check(not early, 'emul room %s declares only rooms listed before it (no cycle): %s' % (r, early or ds))
    sees[r] = set(ds).union(*[sees.get(d, set()) for d in ds])


def sources(folder):
    return sorted(f for f in os.listdir(folder) if f.endswith(('.c', '.h')))


e_owner = {}    # header file name -> emul room
for r in e_rooms:
    for f in sources(os.path.join(emul, r)):
        if f.endswith('.h'):
            e_owner[f] = r
foreign = re.compile(r'^\s*#\s*include\s+<(rte_|pcap|yaml|protobuf-c|mpi\.h|bpf/|libbpf)', re.M)
e_used = {r: set() for r in e_rooms}
for r in e_rooms:
    bad_sys, bad_inc, bad_pvt = [], [], []
    for f in sources(os.path.join(emul, r)):
        text = open(os.path.join(emul, r, f)).read()
        bad_sys += ['%s: <%s...>' % (f, b) for b in foreign.findall(text)]
        for h in inc.findall(text):
            other = e_owner.get(h)
            if other == r:
                continue
            if other is None or other not in sees.get(r, set()):
                bad_inc.append('%s: %s (%s)' % (f, h, 'no room\'s' if other is None else other))
            if h.endswith('_pvt.h'):
                bad_pvt.append('%s: %s' % (f, h))
            if other is not None:
                e_used[r].add(other)
    check(not bad_sys, 'emul/%s includes no DPDK, libpcap, YAML, protobuf, MPI or BPF header %s' % (r, bad_sys))
    check(not bad_inc, 'emul/%s includes only its own headers and its declared rooms\' (%s) %s'
          % (r, ', '.join(sorted(sees.get(r, ()))) or 'none', bad_inc))
    check(not bad_pvt, 'emul/%s includes no other room\'s *_pvt.h %s' % (r, bad_pvt))
print('emul rooms (declared; [included]): ' + '; '.join(
    '%s -> %s [%s]' % (r, ', '.join(ds) or '-', ', '.join(sorted(e_used.get(r, ()))) or '-') for r, ds in declared))

# ---- the layers: control -> runtime -> dataplane, pcap -> emul (runtime/ when the tree has it) ----
below = {'emul': set(), 'pcap': {'emul'}, 'bpf': {'emul'}, 'dataplane': {'emul', 'bpf'}}
below['runtime'] = {'dataplane', 'pcap', 'emul', 'bpf'}
below['control'] = {'runtime', 'dataplane', 'pcap', 'emul', 'bpf'}
layers = [ly for ly in below if os.path.isdir(os.path.join(root, ly))]
check({'emul', 'pcap', 'dataplane', 'control'} <= set(layers), 'the layers are there: %s' % layers)
generated = {'chakra_et.pb-c.h'}   # protoc-c's output, in the build tree
l_owner = {}
files = {}
for ly in layers:
    files[ly] = []
    for d, _, fs in os.walk(os.path.join(root, ly)):
        for f in sorted(fs):
            if f.endswith(('.c', '.h')):
                files[ly].append(os.path.join(d, f))
                if f.endswith('.h'):
                    l_owner[f] = ly
l_used = {ly: set() for ly in layers}
for ly in layers:
    bad = []
    for path in files[ly]:
        for h in inc.findall(open(path).read()):
            other = l_owner.get(h)
            if other == ly or (other is None and h in generated):
                continue
            if other not in below[ly]:
                bad.append('%s: %s (%s)' % (os.path.relpath(path, root), h, other or 'not the tree\'s'))
            l_used[ly].add(other)
    check(not bad, '%s includes only its own headers and those of the layers below it (%s) %s'
          % (ly, ', '.join(sorted(x for x in below[ly] if x in layers)) or 'none', bad))
print('layers (included): ' + '; '.join('%s -> %s' % (ly, ', '.join(sorted(l_used[ly])) or '-') for ly in layers))

# ---- the compiler: each room's own flags see its declared rooms' headers and no other room's ----
if len(sys.argv) > 2:
    build = sys.argv[2]
    ccj = os.path.join(build, 'compile_commands.json')
    commands = json.load(open(ccj)) if os.path.exists(ccj) else []
    check(commands != [], 'the build has compile_commands.json: %s' % ccj)
    by_file = {os.path.normpath(os.path.join(c['directory'], c['file'])): c for c in commands}
    probe_dir = workdir()

    def compile_with(c, src_text, name, mode):
        """Run @p c's command on @p src_text (written to the scratch folder as @p name): -E or -fsyntax-only, no
        object, no depfile. Returns (exit code, stderr)."""
        args = shlex.split(c['command'])
        probe = os.path.join(probe_dir, name)
        with open(probe, 'w') as o:
            o.write(src_text)
        out, skip = [], 0
        for a in args:
            if skip:
                skip -= 1
            elif a in ('-o', '-MQ', '-MF', '-MT'):
                skip = 1
            elif a in ('-c', '-MD', '-MMD') or a == c['file'] or a.startswith('-fdiagnostics-color'):
                continue
            else:
                out.append(a)
        p = subprocess.run(out + [mode, probe], cwd=c['directory'], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, universal_newlines=True, timeout=120)
        return p.returncode, p.stderr

    rng = os.path.normpath(os.path.join(emul, 'core', 'emu_rng.c'))
    if check(rng in by_file, 'emul/core/emu_rng.c has a compile command'):
        text = open(rng).read()
        rc, _ = compile_with(by_file[rng], text, 'emu_rng_as_is.c', '-fsyntax-only')
        check(rc == 0, 'emul/core/emu_rng.c as it is compiles with its own command')
        rc, why = compile_with(by_file[rng], '#include "nic.h"\n' + text, 'emu_rng_nic.c', '-fsyntax-only')
        check(rc != 0 and 'nic.h' in why, 'emul/core/emu_rng.c with #include "nic.h" added does not compile: %s'
              % (why.strip().splitlines() or ['it compiled'])[0])
    # one public header of each room, the first by name
    face = {r: next((f for f in sources(os.path.join(emul, r)) if f.endswith('.h') and not f.endswith('_pvt.h')),
                    None) for r in e_rooms}
    for r in e_rooms:
        cmd = next((by_file[f] for f in sorted(by_file)
                    if os.path.dirname(f) == os.path.normpath(os.path.join(emul, r))), None)
        if not check(cmd is not None, 'emul room %s has a compile command' % r):
            continue
        seen, broken = [], []
        for s_room in e_rooms:
            if face[s_room] is None:
                continue
            rc, _ = compile_with(cmd, '#if !__has_include("%s")\n#error not seen\n#endif\n' % face[s_room],
                                 'probe_%s_%s.c' % (r, s_room), '-E')
            if rc != 0:
                continue
            seen.append(s_room)
            rc, why = compile_with(cmd, '#include "%s"\n' % face[s_room], 'probe_%s_%s.c' % (r, s_room), '-E')
            if rc != 0:
                first = next((ln for ln in why.splitlines() if 'error' in ln), why.strip())
                broken.append('%s: %s' % (face[s_room], first))
        want = sorted(sees.get(r, set()) | {r})
        check(seen == want, 'emul room %s, with its own flags, sees the headers of %s and no other room%s' % (
            r, ', '.join(want), '' if seen == want else ' (it sees %s)' % ', '.join(seen)))
        check(not broken, 'emul room %s, with its own flags, can include the headers it sees %s' % (r, broken))
sys.exit(finish('test_rooms'))
