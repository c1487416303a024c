#!/usr/bin/env python3
"""Mutation fuzzing of the config loader: every good config and the bad-config corpus, mutated with a fixed seed
(bytes flipped, lines dropped, duplicated or swapped, values replaced by hostile ones, deep nesting, long keys,
huge numbers), fed to `uetemu validate`. Each must end with exit 0 (valid) or 1 (errors, each on its own line as
"uetemu: FILE:LINE:COL: ..." or "uetemu: FILE: ..."), never a crash, a sanitizer report or a hang.
Usage: fuzz_config.py UETEMU REPO_ROOT [MUTANTS]"""
import glob
import os
import random
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from checks import check, finish, workdir  # noqa: E402

uetemu, root = sys.argv[1], sys.argv[2]
n_mutants = int(sys.argv[3]) if len(sys.argv) > 3 else 400
rng = random.Random(18760)
seeds = sorted(glob.glob(os.path.join(root, 'configs', '*.yaml')) +
               glob.glob(os.path.join(root, 'tests', 'control', '*.yaml')) +
               glob.glob(os.path.join(root, 'tests', 'control', 'bad', '*.yaml')))
HOSTILE = ['', '~', '-1', '0', '18446744073709551616', '99999999999999999999999Gbps', '1e308', 'nan', '-0x1p-1',
           '0.5ps', '[]', '{}', '[1, [2, [3]]]', '&a x', '*a', '!!binary AAAA', '"\\x00"', "'", '"', '\t', 'null',
           'host0', '10.0.0.999', '1' * 300, 'K' * 5000, '1ps', '3600s', '[0.5, 0, 0.5, 0, 0, 0, 0, 0]']


def mutate(text):
    lines = text.split('\n')
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(8)
        i = rng.randrange(len(lines)) if lines else 0
        if op == 0 and lines:                        # drop a line
            del lines[i]
        elif op == 1 and lines:                      # duplicate a line (duplicate keys, repeated list items)
            lines.insert(i, lines[i])
        elif op == 2 and len(lines) > 1:             # swap two lines
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == 3 and lines and ':' in lines[i]:  # a hostile value
            k = lines[i].split(':', 1)[0]
            lines[i] = '%s: %s' % (k, rng.choice(HOSTILE))
        elif op == 4 and lines:                      # flip bytes
            b = bytearray(lines[i].encode())
            for _ in range(rng.randint(1, 3)):
                if b:
                    b[rng.randrange(len(b))] = rng.randrange(256)
            lines[i] = b.decode('latin-1')
        elif op == 5:                                # deep nesting
            d = rng.choice([10, 70, 500])
            lines.insert(i, 'nic: ' + '{a: ' * d + '1' + '}' * d)
        elif op == 6 and lines:                      # re-indent (moves keys between maps)
            lines[i] = ' ' * rng.choice([0, 1, 2, 4, 7]) + lines[i].lstrip()
        else:                                        # truncate the file
            return '\n'.join(lines)[:rng.randrange(len(text) + 1)]
    return '\n'.join(lines)


tmp = workdir()
crashes, bad_msgs, valid, invalid = [], [], 0, 0
for n in range(n_mutants):
    src = seeds[n % len(seeds)]
    text = mutate(open(src, encoding='latin-1').read())
    path = os.path.join(tmp, 'm%03d.yaml' % n)
    with open(path, 'w', encoding='latin-1') as f:
        f.write(text)
    try:
        p = subprocess.run([uetemu, 'validate', path], capture_output=True, timeout=30)
    except subprocess.TimeoutExpired:
        crashes.append('%s (from %s): hang' % (path, os.path.basename(src)))
        continue
    err = p.stderr.decode('latin-1')
    if p.returncode not in (0, 1) or 'Sanitizer' in err or 'runtime error' in err:
        crashes.append('%s (from %s): exit %d %s' % (path, os.path.basename(src), p.returncode, err[-300:]))
        continue
    if p.returncode == 0:
        valid += 1
        continue
    invalid += 1
    for line in err.rstrip('\n').split('\n'):
        if line.startswith('uetemu: warning: '):  # a warning the config also draws (e.g. no applications)
            continue
        if not (line.startswith('uetemu: %s' % path) or line.startswith('uetemu: --set')):
            bad_msgs.append('%s: %r' % (path, line[:200]))
            break
check(not crashes, '%d mutants of %d configs: no crash, sanitizer report or hang %s' % (n_mutants, len(seeds),
                                                                                       crashes[:3]))
check(not bad_msgs, 'every error line names the file (with line and column where the YAML has them) %s'
      % bad_msgs[:3])
check(valid + invalid == n_mutants - len(crashes), '%d valid, %d refused with errors' % (valid, invalid))
sys.exit(finish('fuzz_config'))
