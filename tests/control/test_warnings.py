#!/usr/bin/env python3
"""`uetemu validate` on settings the configuration page accepts but warns about, or that leave part of the NIC idle:
each is valid (exit status 0) and draws one warning line on stderr naming the key (uet-nic-configuration.md,
Configuration rules that stop a simulation; uet-nic-buffers-and-pfc.md, Egress buffer).
  an egress data pool smaller than one data packet: a stall at run time, not a config error;
  PoolAllocationVector [0.5, 0, 0.5, ...]: two non-zero entries, the only pool rule that stops a run;
  Recycled Entropy Packet Spraying with flowlet switches: "The validation also warns".
Usage: test_warnings.py UETEMU REPO_ROOT
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from checks import check, finish  # noqa: E402

CASES = [
    ('configs/pair.yaml', ['nic.NetworkInterface.EgressBufferManager.TotalBufferSize=4KB'],
     'nic.NetworkInterface.EgressBufferManager.TotalBufferSize: egress data pool (class 0) holds 3600 bytes'),
    ('configs/pair.yaml',
     ['nic.NetworkInterface.IngressBufferManager.PoolAllocationVector=[0.5, 0, 0.5, 0, 0, 0, 0, 0]'],
     'nic.NetworkInterface.IngressBufferManager.PoolAllocationVector: entry 1 is 0 but entry 2 is not; class 1'),
    ('configs/leaf-spine.yaml', ['nic.TransportProcessingLayers.ScalaUETPdsManager.PacketSprayingType='
                                 'Recycled Entropy Packet Spraying', 'switch.LoadBalancingMethod=flowlet'],
     'nic.TransportProcessingLayers.ScalaUETPdsManager.PacketSprayingType: Recycled Entropy Packet Spraying with '
     'switch.LoadBalancingMethod flowlet'),
]


def main():
    uetemu, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    for config, sets, want in CASES:
        cmd = [uetemu, 'validate', os.path.join(root, config)]
        for s in sets:
            cmd += ['--set', s]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        warns = [line for line in p.stderr.splitlines() if line.startswith('uetemu: warning: ')]
        check(p.returncode == 0, '%s %s: valid (exit %d)' % (config, sets, p.returncode))
        check(len(warns) == 1 and want in warns[0], '%s: one warning naming %s (%s)'
              % (config, want.split(':')[0], p.stderr.strip()))
    p = subprocess.run([uetemu, 'validate', os.path.join(root, 'configs/pair.yaml')], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    check(p.returncode == 0 and p.stderr == '', 'configs/pair.yaml at the defaults: no warning')
    return finish('test_warnings')


if __name__ == '__main__':
    sys.exit(main())
