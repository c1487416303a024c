"""The check list every Python test of uetemu prints: one 'ok   ' or 'FAIL ' line per check, failures kept."""

failures = []
_passed = [0]


def check(cond, what):
    """Print @p what as passed or failed; a failure is remembered in failures. Returns cond."""
    print(('ok   ' if cond else 'FAIL ') + what)
    if cond:
        _passed[0] += 1
    else:
        failures.append(what)
    return cond


def summary(name):
    """Print '<name>: N passed, M failed' over every check so far; returns the exit status (1 on any failure)."""
    print('%s: %d passed, %d failed' % (name, _passed[0], len(failures)))
    return 1 if failures else 0
