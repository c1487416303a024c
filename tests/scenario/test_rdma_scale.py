#!/usr/bin/env python3
"""The Scala RDMA application at scale (tests/scenario/rdma-scale.yaml: one pair, 1,024 connections): nothing in the
NIC caps what the application keeps outstanding (seed 003, Closed-loop generation: "it keeps exactly
MaxPendingWQEs WQEs outstanding").
  1,024 connections x MaxPendingWQEs 20: all 20,480 WQEs are taken by the Initiator's NIC (wqes_created), none
  refused (post_failed 0, no drop).
  configs/rdma-rack.yaml with NumConnections 512, all starting at once: each Initiator posts 512 connection requests
  at 20 us, more than its 25,600 B control pool holds (387 frames of 66 B); the rest wait for room (cm_deferred 125)
  and none is lost: no retry, and the last reply is back 4 x (1.32 + 100) ns + 511 x 1.32 ns after 20 us, the
  requests leaving back to back: setup ends at 21.0798 us.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from checks import check, finish  # noqa: E402
from runner import run  # noqa: E402

CFG = 'tests/scenario/rdma-scale.yaml'


def host(s, name):
    return next(h for h in s['hosts'] if h['name'] == name)


def check_wqes(uetemu, root):
    # RunTime ends before any of the 20,480 WQEs can complete (the test counts what the NIC took): work left open
    # by design, so --allow-incomplete, and the verdict says which pair
    s = run(uetemu, CFG, sets=['applications.0.MaxPendingWQEs=20'], root=root, keep=False,
            args=['--allow-incomplete']).summary
    r = s['rdma']
    check(s['verdict']['work'] == 'incomplete' and s['verdict']['incomplete']['rdma_pairs']['open'] == 1,
          'the verdict names the idle pair (%s)' % s['verdict'])
    ini = host(s, r['pairs'][0]['initiator'])['counters']
    check(r['setup']['set_up'] == 1024, 'MaxPendingWQEs 20: 1,024 connections set up (%d)' % r['setup']['set_up'])
    check(r['post_failed'] == 0, 'MaxPendingWQEs 20: no WQE refused (post_failed %d)' % r['post_failed'])
    check(ini['wqes_created'] == 1024 * 20, 'MaxPendingWQEs 20: the Initiator NIC took 1,024 x 20 = 20,480 WQEs '
          '(wqes_created %d)' % ini['wqes_created'])
    check(ini['drop_no_pdc'] == 0 and ini.get('drop_no_wqe', 0) == 0,
          'MaxPendingWQEs 20: no drop_no_pdc (%d), no drop_no_wqe (%d)' % (ini['drop_no_pdc'],
                                                                           ini.get('drop_no_wqe', 0)))


def check_setup(uetemu, root):
    # 512 connections a pair take the whole RunTime to set up: no WQE completes (work open by design, checked below)
    s = run(uetemu, 'configs/rdma-rack.yaml', sets=['applications.0.NumConnections=512'], root=root,
            keep=False, args=['--allow-incomplete']).summary
    check(s['verdict']['incomplete'].get('rdma_pairs', {}).get('open') == 2, 'the verdict: 2 pairs idle (%s)'
          % s['verdict']['incomplete'])
    st = s['rdma']['setup']
    check(st['set_up'] == 1024 and st['established'] == 1024, '512 connections x 2 pairs set up and established '
          '(%d, %d)' % (st['set_up'], st['established']))
    check(st['retries'] == 0 and st['send_failed'] == 0, 'no retry (%d), no send refused (%d)'
          % (st['retries'], st['send_failed']))
    last = [p['setup_last_s'] for p in s['rdma']['pairs']]
    check(last == [2.10798e-05, 2.10798e-05], 'setup ends at 21.0798 us on both pairs (%s)' % last)
    ini = [host(s, p['initiator'])['counters'] for p in s['rdma']['pairs']]
    check([c['cm_deferred'] for c in ini] == [125, 125] and all(c['drop_tx_ctl_pool_full'] == 0 for c in ini),
          'each Initiator: 125 of its 1,024 setup messages waited for control pool room, no ACK refused (%s)'
          % [c['cm_deferred'] for c in ini])


def main():
    uetemu, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    check_wqes(uetemu, root)
    check_setup(uetemu, root)
    return finish('test_rdma_scale')


if __name__ == '__main__':
    sys.exit(main())
