#!/usr/bin/env python3
"""A build without DPDK (-Ddpdk=disabled) links: every function dataplane/dp.h declares is defined by
dataplane/dp_none.c or by dp_eal_args.c (the plain-C part both builds compile), and dp_none.c defines nothing
else. Usage: test_dp_none.py REPO_ROOT"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from checks import check, finish  # noqa: E402

dp = os.path.join(sys.argv[1], 'dataplane')
fn = re.compile(r'^(?!typedef|static)[a-z][\w \t*]*?\b(dp_\w+)\(', re.M)


def names(f):
    return set(fn.findall(open(os.path.join(dp, f)).read()))


declared = names('dp.h')
shared = names('dp_eal_args.c')
none = names('dp_none.c')
check(len(declared) > 20, 'dp.h declares the dataplane: %d functions' % len(declared))
check(declared - shared - none == set(), 'dp_none.c defines every function of dp.h: missing %s'
      % sorted(declared - shared - none))
check(none - declared == set(), 'dp_none.c defines only functions of dp.h: %s' % sorted(none - declared))
sys.exit(finish('test_dp_none'))
