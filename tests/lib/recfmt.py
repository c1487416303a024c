"""How uetemu writes its CSV records, for the record tests: times, fixed-point quotients, the report schedule."""
import datetime
import filecmp
import os
import subprocess
from decimal import Decimal, ROUND_HALF_UP

from checks import check

EPOCH = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)  # virtual time: sim time 0
PS_PER_S = 10**12
PS_PER_US = 10**6



def columns(uetemu, record):
    """The columns of @p record as uetemu's column table declares them (`uetemu columns RECORD`): the one list the
    record's writer and these tests share, so a column added to the table shows here. The tests check the
    number of columns the Scala pages give, and read the columns they check by name."""
    out = subprocess.run([uetemu, 'columns', record], capture_output=True, text=True, check=True).stdout
    return out.rstrip('\n').split(',')


def ps_of_sec(text):
    return int(Decimal(text) * PS_PER_S)


def ps_of_us(text):
    return int(Decimal(text) * PS_PER_US)


def quot(num, den, digits=6):
    """num / den rounded half up to digits decimals, as the records write it (0 over 0 is 0)."""
    if den == 0:
        return Decimal(0).quantize(Decimal(1).scaleb(-digits))
    return (Decimal(num) / Decimal(den)).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP)


def schedule(interval_ps, end_ps, origin_ps=0):
    """The periodic rows' times: every interval from @p origin_ps (the NICs' records: StartTime +
    ClientStartOffset; uet-nic-records.md) up to the end, and one at the end if it is not on the grid."""
    times = list(range(origin_ps + interval_ps, end_ps + 1, interval_ps))
    return times + ([end_ps] if not times or times[-1] != end_ps else [])


def read_rows(path, columns, name):
    """The rows of a record as dicts, checking its header is exactly @p columns, every row as wide, and the last
    line ends with a newline."""
    with open(path) as f:
        lines = f.read().split('\n')
    check(lines[0] == ','.join(columns), '%s: the %d columns, in order' % (name, len(columns)))
    rows = [line.split(',') for line in lines[1:-1]]
    check(lines[-1] == '' and all(len(r) == len(columns) for r in rows),
          '%s: %d columns on every row (%d rows), a newline at the end' % (name, len(columns), len(rows)))
    return [dict(zip(columns, r)) for r in rows]


def time_utc_of(sim_time_sec):
    """The time_utc a row of simulated time @p sim_time_sec (text, seconds) carries: the epoch + whole seconds, in
    ISO 8601 as the Scala records write it (simulation-output-files.md: 2026-01-13T19:11:38Z)."""
    return (EPOCH + datetime.timedelta(seconds=ps_of_sec(sim_time_sec) // PS_PER_S)).strftime('%Y-%m-%dT%H:%M:%SZ')


def same_records(a, b):
    """Whether run directories @p a and @p b hold the same CSV records, byte for byte; prints any that differ."""
    names = sorted(f for f in os.listdir(a) if f.endswith('.csv'))
    if names != sorted(f for f in os.listdir(b) if f.endswith('.csv')):
        print('     record files differ: %s' % names)
        return False
    differ = [f for f in names if not filecmp.cmp(os.path.join(a, f), os.path.join(b, f), shallow=False)]
    for f in differ:
        print('     %s differs' % f)
    return not differ
