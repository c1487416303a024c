"""The check list every Python test of uetemu prints: one 'ok   ' or 'FAIL ' line per check, failures kept."""

failures = []


def check(cond, what):
    """Print @p what as passed or failed; a failure is remembered in failures. Returns cond."""
    print(('ok   ' if cond else 'FAIL ') + what)
    if not cond:
        failures.append(what)
    return cond
