"""The check list every Python test of uetemu prints: one 'ok   ' or 'FAIL ' line per check, failures kept; one
scratch folder per test process for its outputs, removed when every check passed and kept for a look otherwise."""
import shutil
import sys
import tempfile

failures = []
_passed = [0]
_work = []


def check(cond, what):
    """Print @p what as passed or failed; a failure is remembered in failures. Returns cond."""
    print(('ok   ' if cond else 'FAIL ') + what)
    if cond:
        _passed[0] += 1
    else:
        failures.append(what)
    return cond


def workdir():
    """The test's scratch folder, made on first use: make run outputs under it (tempfile.mkdtemp(dir=workdir()))."""
    if not _work:
        _work.append(tempfile.mkdtemp(prefix='uetemu-test-'))
    return _work[0]


def finish(name):
    """Print '<name>: N passed, M failed' over every check so far; remove the scratch folder when all passed, else
    say where it is. Returns 0 when every check passed; on any failure the process exits 1 here, so a test that
    forgets sys.exit(finish(...)) still fails."""
    print('%s: %d passed, %d failed' % (name, _passed[0], len(failures)))
    if failures:
        if _work:
            print('outputs kept in %s' % _work[0])
        sys.exit(1)
    if _work:
        shutil.rmtree(_work[0], ignore_errors=True)
    return 0
