#!/usr/bin/env python3
"""ecn-pfc-stats' interval_max_time_xoff_usec is the longest single pause inside the interval, on the switches'
port rows as on the NICs': an incast whose receiver has 2 PCIe lanes pauses its switch port with PFC several times
per 20 us interval, so some rows show a longest pause below the interval's total, and none above it.
Usage: test_records_xoff.py UETEMU REPO_ROOT"""
import csv
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from checks import check, finish  # noqa: E402
from runner import run  # noqa: E402

uetemu, root = sys.argv[1], sys.argv[2]
SETS = ['simulation.StartTime=0', 'simulation.ClientStartOffset=0', 'simulation.NDStatsReportInterval=20us',
        'nic.NetworkInterface.IngressBufferManager.PFCEnableVector=[1, 0, 0, 0, 0, 0, 0, 0]',
        'nic.HostInterface.NICSide.PCIeGen3.0.NicDeviceLayer.NicPCIeInterface.PhysicalLayer.LaneCount=2',
        'nic.TransportProcessingLayers.ScalaUETCongestionControl.PassThrough=true',
        'nic.TransportProcessingLayers.ScalaUETPdsManager.InitialRetransmitTimeout=10ms']
r = run(uetemu, 'configs/incast.yaml', sets=SETS, root=root)
rows = list(csv.DictReader(open(os.path.join(r.out, 'incast-ecn-pfc-stats-0.csv'))))
for ct in ('Switch', 'ScalaUETNic'):
    paused = [x for x in rows if x['component_type'] == ct and float(x['interval_total_time_xoff_usec']) > 0]
    below = sum(float(x['interval_max_time_xoff_usec']) < float(x['interval_total_time_xoff_usec']) for x in paused)
    above = sum(float(x['interval_max_time_xoff_usec']) > float(x['interval_total_time_xoff_usec']) for x in paused)
    check(paused and below > 0 and above == 0,
          '%s rows: %d paused, %d with a longest pause below the interval total, %d above it' %
          (ct, len(paused), below, above))
sys.exit(finish('test_records_xoff'))
