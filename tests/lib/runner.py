"""One run of the uetemu binary for the Python tests and benches: a config, --set overrides, the outputs in a
folder, and summary.json read back."""
import collections
import json
import os
import shutil
import subprocess
import tempfile

from checks import workdir

Run = collections.namedtuple('Run', 'rc summary stdout out')
Run.__doc__ = """What run() gives back: rc, uetemu's exit status; summary, summary.json as a dict (None when the run
wrote none); stdout, what uetemu printed there; out, the output folder (gone with keep=False)."""


def run(uetemu, config, out=None, sets=(), root=None, mode=None, args=(), check=True, keep=True):
    """Run `uetemu run CONFIG --out OUT --quiet [--mode MODE] [--set S]... [ARGS...]` and return a Run.

    uetemu: the binary. config: the config's path, taken relative to root when root is given (an absolute path
    stays as it is). out: the output folder, made by uetemu if need be; None: a new folder in the test's scratch
    folder (checks.workdir()). sets: 'PATH=VALUE' overrides, one --set each, in order. mode: 'virtual' or
    'realtime'; None: the config's. args: more arguments, after the others. check: raise
    subprocess.CalledProcessError when uetemu fails (stderr goes to the test's own). keep: False removes the output
    folder once summary.json is read, for runs whose files nobody looks at."""
    if out is None:
        out = tempfile.mkdtemp(prefix='uetemu-run-', dir=workdir())
    cmd = [uetemu, 'run', os.path.join(root, config) if root else config, '--out', out, '--quiet']
    if mode is not None:
        cmd += ['--mode', mode]
    for s in sets:
        cmd += ['--set', s]
    cmd += list(args)
    p = subprocess.run(cmd, check=check, stdout=subprocess.PIPE, text=True)
    summary = None
    path = os.path.join(out, 'summary.json')
    if os.path.exists(path):
        with open(path) as f:
            summary = json.load(f)
    if not keep:
        shutil.rmtree(out, ignore_errors=True)
    return Run(p.returncode, summary, p.stdout, out)
