#!/usr/bin/env bash
# Virtual time over MPI ranks (docs/parallel.md): `mpirun -np N uetemu run CONFIG` writes, across its ranks' shards
# (<SimulationName>-<record>-<rank>.csv, captures <name>-<rank>.pcap), exactly the rows and frames one process
# writes, and rank 0 writes the summary and the table one process writes (less "parallel", "wall_s" and the
# captures' file names and sizes); what a run over ranks cannot do is refused by every rank, none left waiting.
# Skipped (77) without mpirun or in a build without MPI.
# Usage: test_mpi.sh UETEMU REPO_ROOT
set -uo pipefail
uetemu=$(realpath "$1") root=$(realpath "$2")
cd "$root"
command -v mpirun >/dev/null || { echo "SKIP: no mpirun (Debian: openmpi-bin)"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
check() { if eval "$2"; then echo "ok   $1"; pass=$((pass+1)); else echo "FAIL $1"; fail=$((fail+1)); fi; }
mpi() { local n=$1; shift; timeout 300 mpirun --oversubscribe -np "$n" "$uetemu" "$@"; }

# the probe for MPI in the build is also the first refusal check below (2 ranks for configs/pair.yaml's 1 partition)
probe=$(mpi 2 run configs/pair.yaml -q --out "$tmp/p" 2>&1); probe_rc=$?
if [[ "$probe" == *"built without MPI"* ]]; then echo "SKIP: $uetemu was built without MPI"; exit 77; fi

# same ONE SHARDED: the sharded run's outputs are the one-process run's
same() {
	python3 - "$1" "$2" <<'PY'
import glob, json, os, struct, sys
a, b = sys.argv[1], sys.argv[2]
bad = []
A, B = json.load(open(a + '/summary.json')), json.load(open(b + '/summary.json'))
for k in sorted(set(A) | set(B)):
    if k in ('wall_s', 'parallel'):
        continue
    x, y = A.get(k), B.get(k)
    if k == 'captures':  # the files differ (a shard per rank); what they saw and wrote does not
        strip = lambda l: [{f: v for f, v in c.items() if f not in ('files', 'files_opened', 'bytes')} for c in l]
        x, y = strip(x or []), strip(y or [])
    if x != y:
        bad.append('summary.json ' + k)
def frames(path):  # (seconds, fraction, bytes) of every record of a pcap
    d = open(path, 'rb').read()
    out, off = [], 24
    while off + 16 <= len(d):
        s, f, n, _ = struct.unpack_from('<IIII', d, off)
        out.append((s, f, d[off + 16:off + 16 + n]))
        off += 16 + n
    return out
for f in glob.glob(a + '/*-0.csv'):
    base = os.path.basename(f)[:-6]
    shards = sorted(glob.glob(b + '/' + base + '-*.csv'))
    rows = []
    for s in shards:
        lines = open(s).read().splitlines()
        if lines[:1] != open(f).read().splitlines()[:1]:
            bad.append(s + ': header')
        rows += lines[1:]
    if sorted(open(f).read().splitlines()[1:]) != sorted(rows):
        bad.append(base + ' rows')
for f in glob.glob(a + '/*.pcap'):
    name = os.path.basename(f)[:-5]
    got = []
    for s in glob.glob(b + '/' + name + '-*.pcap'):
        got += frames(s)
    if sorted(frames(f)) != sorted(got):
        bad.append(name + '.pcap frames')
print('; '.join(bad) if bad else 'same')
sys.exit(1 if bad else 0)
PY
}

for cfg in configs/fat-tree-128.yaml configs/leaf-spine.yaml tests/parallel/parallel.yaml; do
	name=$(basename "$cfg" .yaml)
	"$uetemu" run "$cfg" -q -s nic.EnableEventLogging=true --out "$tmp/$name-1" >"$tmp/$name-1.out" 2>&1
	for n in 2 3; do
		mpi $n run "$cfg" -q -s nic.EnableEventLogging=true --out "$tmp/$name-$n" >"$tmp/$name-$n.out" 2>&1
		rc=$?
		res=$(same "$tmp/$name-1" "$tmp/$name-$n")
		shards=$(ls "$tmp/$name-$n" | grep -c -- "-nd-stats-")
		check "$name on $n MPI ranks: exit $rc, $shards nd-stats shards, every row, frame and summary key as one process's ($res)" \
			'[ $rc -eq 0 ] && [ "$shards" = $n ] && [ "$res" = same ]'
		check "$name on $n MPI ranks: rank 0 prints one process's table (but for the files it names)" \
			'cmp -s <(grep -v "^outputs: " "$tmp/$name-1.out" | sed -e "1s/in [0-9.]* s wall//") \
				<(grep -v "^parallel: \|^  rank \|^Running as user\|^outputs: " "$tmp/$name-$n.out" |
				  sed -e "1s/in [0-9.]* s wall//")'
	done
done
ranks=$(python3 -c "import json; print(json.load(open('$tmp/leaf-spine-2/summary.json'))['parallel']['mpi_ranks'])")
# busy_s + wait_s of each rank (tests/lib/busy_wait.py)
bw() { python3 "$root/tests/lib/busy_wait.py" "$1" "$2"; }
res=$(bw "$tmp/leaf-spine-2" 2)
check "leaf-spine on 2 MPI ranks: busy_s/wait_s of each rank within its wall time ($res)" '[[ "$res" == *" ok" ]]'
check "summary.json parallel.mpi_ranks is 2 ($ranks)" '[ "$ranks" = 2 ]'
# each rank builds only its own partitions' devices in full, the others as shells: every device is full on exactly
# one rank (the counts add up to the fabric's devices), so no rank holds the whole fabric
for n in 2 3; do
	full=$(python3 - "$tmp/fat-tree-128-$n/summary.json" "$n" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
t = s['parallel']['threads_detail']
full = [d.get('full_devices', -1) for d in t]
devs = len(s['topology']['devices'])
ok = len(full) == int(sys.argv[2]) and sum(full) == devs and max(full) < devs and \
    all(d.get('max_rss_kib', 0) > 0 for d in t)
print(('ok ' if ok else 'bad ') + '+'.join(map(str, full)) + ' of ' + str(devs))
PY
	)
	check "fat-tree-128 on $n MPI ranks: each device built in full on one rank only, the rest shells ($full)" \
		'[[ "$full" == ok* ]]'
done

# refused by every rank, none left waiting
out=$probe rc=$probe_rc
check "2 ranks for 1 partition: exit $rc, '$(echo "$out" | grep -m1 uetemu:)'" \
	'[ $rc -ne 0 ] && [[ "$out" == *"2 MPI ranks for 1 partitions"* ]]'
out=$(mpi 2 run configs/leaf-spine.yaml -q --threads 2 --out "$tmp/t" 2>&1); rc=$?
check "--threads with MPI ranks: exit $rc" '[ $rc -ne 0 ] && [[ "$out" == *"each rank runs one thread"* ]]'
out=$(mpi 2 run configs/rdma-rack.yaml -q --out "$tmp/r" 2>&1); rc=$?
check "the ScalaRdma application under mpirun: exit $rc" '[ $rc -ne 0 ] && [[ "$out" == *"runs in one process"* ]]'

echo "test_mpi: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
