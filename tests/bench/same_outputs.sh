#!/usr/bin/env bash
# Same outputs, byte for byte: run every virtual-time scenario config (and the variants the scenario and record
# tests run) with two uetemu binaries and compare what they write: every pcap and CSV, and summary.json less its
# wall_s line. For changes that must leave every result unchanged (performance work).
#
#   tests/bench/same_outputs.sh BASE_BIN NEW_BIN [ROOT]     (ROOT: the source tree, default: this script's tree)
#   SAME_QUICK=1 ...: leave out the long runs (default.yaml, fat-tree-1024)
#   SAME_KEEP=DIR ...: keep the outputs in DIR instead of a temporary folder
#   SAME_REUSE=1 SAME_KEEP=DIR ...: take BASE_BIN's outputs from DIR where an earlier run left them
#   SAME_NEW_ARGS='--threads 2' ...: give NEW_BIN these arguments too (BASE_BIN and NEW_BIN may be one binary):
#   the summary's "parallel" line, the table's parallel lines and the one-thread note are left out of the comparison
#
# Prints one line per case and exits 1 if any output differs (or a file is missing on one side), else 0.
set -uo pipefail
base=$(realpath "$1") new=$(realpath "$2")
root=$(realpath "${3:-$(dirname "$0")/../..}")
tmp=${SAME_KEEP:-$(mktemp -d)}
[ -n "${SAME_KEEP:-}" ] || trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp"

NO_PFC='switch.SharedBufferManager.EnablePFC=[0, 0, 0, 0, 0, 0, 0, 0]'
UET='switch.SharedBufferManager.UETPolicyEnabled=true'
TRIM="switch.PacketTrimmer.TrimmingEnabled=true|nic.TransportProcessingLayers.ScalaUETPdsManager.TrimmingEnabled=true"
SPRAY='nic.TransportProcessingLayers.ScalaUETPdsManager.PacketSprayingType='
MON='nic.TransportProcessingLayers.ScalaUETMonitor.'
NSCC_OFF='nic.TransportProcessingLayers.ScalaUETCongestionControl.NSCCEnable=false'
XOFF='switch.SharedBufferManager.StaticPoolXoffThreshold=100KB|switch.SharedBufferManager.StaticPoolXonThreshold=50KB'
ND='simulation.NDStatsReportInterval'
NB='simulation.NetworkBufferStatsReportingInterval=25us|simulation.EnableNetworkBufferStatsReporting=true'
RTT="${MON}EnableUETMonitor=false|${MON}TriggerLoggingOnRttEnable=true|${MON}TriggerLoggingOnRttThreshold=0"
FLOWLET='switch.LoadBalancingMethod=flowlet|switch.LoadBalancingFlowlet.Gap=2us|switch.EnableLoadBalancingStats=true'
TRIMST='switch.PacketTrimmer.TrimmingStatsEnabled=true'
NATIVE='nic.UETEncapsulation.Encapsulation=NativeIPv4'
CRC='nic.UETEncapsulation.CrcTrailer=true'
EVENTS='nic.EnableEventLogging=true'
# every record at once: periodic NIC and switch records, buffers, PCIe, events, per-port buffers, load balancing
ALL="$ND=10us|$NB|simulation.EnablePCIeStatsLogging=true|nic.EnableBufferStats=true|$EVENTS"
ALL="$ALL|switch.ReportPerPortBufferStats=true|switch.EnableLoadBalancingStats=true"
# the Scala RoCE NIC's periodic records at once (its attributes are under roce_nic)
ROCE_ALL="$ND=10us|$NB|simulation.EnablePCIeStatsLogging=true|roce_nic.EnableBufferStats=true"
# One case a line: name;config;--set values separated by |
cases="
default;configs/default.yaml;
fat-tree-128;configs/fat-tree-128.yaml;
gray-failure;configs/gray-failure.yaml;
gray-default;configs/gray-failure.yaml;${SPRAY}Default Packet Spraying|switch.LoadBalancingStatsReportInterval=10us
impair;configs/impair.yaml;
incast;configs/incast.yaml;
incast-trim;configs/incast.yaml;$UET|$NO_PFC|$TRIM|$TRIMST
incast-trim-nonscc;configs/incast.yaml;$UET|$NO_PFC|$TRIM|$NSCC_OFF
incast-drop;configs/incast.yaml;$UET|$NO_PFC
incast-pfc;configs/incast.yaml;$XOFF|$ND=50us|switch.ReportPerPortBufferStats=true
incast-seed7;configs/incast.yaml;$UET|$NO_PFC|$TRIM|simulation.RandomSeed=7
leaf-spine;configs/leaf-spine.yaml;
leaf-spine-none;configs/leaf-spine.yaml;${SPRAY}None|$ND=20us|switch.EnableLoadBalancingStats=true
leaf-spine-reps;configs/leaf-spine.yaml;${SPRAY}Recycled Entropy Packet Spraying
pair;configs/pair.yaml;
pfc;configs/pfc.yaml;
pfc-nd;configs/pfc.yaml;$ND=10us|$NB|simulation.EnablePCIeStatsLogging=true|nic.EnableBufferStats=true
rack;configs/rack.yaml;
rdma-rack;configs/rdma-rack.yaml;
rdma-beacon;configs/rdma-rack.yaml;simulation.BeaconReportInterval=20us
pairs;tests/bench/pairs.yaml;
good-fat-tree;tests/control/good-fat-tree.yaml;
good-full;tests/control/good-full.yaml;
good-min;tests/control/good-min.yaml;
small;tests/golden/small.yaml;
badport-cm;tests/lab/badport-cm.yaml;
badport;tests/lab/badport.yaml;
records;tests/records/records.yaml;
records-rtt;tests/records/records.yaml;$RTT|${MON}TriggeredLoggingPDCLimit=2
records-pcie;tests/records/records.yaml;simulation.EnablePCIeStatsLogging=true
faults;tests/scenario/faults.yaml;
leaf-spine-flowlet;configs/leaf-spine.yaml;$FLOWLET
leaf-spine-crc32;configs/leaf-spine.yaml;switch.EcmpHashMethod=crc32|${SPRAY}None
leaf-spine-hash;configs/leaf-spine.yaml;switch.EcmpHashMethod=hashWithSalt|${SPRAY}None
leaf-spine-dpr;configs/leaf-spine.yaml;switch.EcmpHashMethod=dprWithFallback
fat-tree-1024;configs/fat-tree-1024.yaml;
capture;tests/scenario/capture.yaml;
capture-native-crc;tests/scenario/capture.yaml;$NATIVE|$CRC
rdma-scale;tests/scenario/rdma-scale.yaml;
warn-pool-gap;tests/control/warn-pool-gap.yaml;
incast-native;configs/incast.yaml;$NATIVE
incast-crc;configs/incast.yaml;$CRC
incast-native-crc-trim;configs/incast.yaml;$NATIVE|$CRC|$UET|$NO_PFC|$TRIM|$TRIMST
leaf-spine-native-crc32;configs/leaf-spine.yaml;$NATIVE|switch.EcmpHashMethod=crc32|${SPRAY}None
leaf-spine-native-hash;configs/leaf-spine.yaml;$NATIVE|$CRC|switch.EcmpHashMethod=hashWithSalt|${SPRAY}None
leaf-spine-native-reps;configs/leaf-spine.yaml;$NATIVE|${SPRAY}Recycled Entropy Packet Spraying|$FLOWLET
records-events;tests/records/records.yaml;$EVENTS|$NB|nic.EnableBufferStats=true|$CRC
records-native;tests/records/records.yaml;$NATIVE|$RTT|${MON}TriggeredLoggingPDCLimit=2
pfc-all;configs/pfc.yaml;$ALL
incast-pfc-all;configs/incast.yaml;$XOFF|$ALL
incast-trim-all;configs/incast.yaml;$UET|$NO_PFC|$TRIM|$TRIMST|$ALL
leaf-spine-all;configs/leaf-spine.yaml;$ALL|$NATIVE
rdma-all;configs/rdma-rack.yaml;simulation.BeaconReportInterval=20us|$ALL
pfc-limit;configs/pfc.yaml;$ALL|simulation.RecordSizeLimit=40KB
roce-incast;configs/roce-incast.yaml;
roce-incast-all;configs/roce-incast.yaml;$ROCE_ALL|switch.ReportPerPortBufferStats=true
roce-leaf-spine;configs/roce-leaf-spine.yaml;$ND=20us|$NB|roce_nic.EnableBufferStats=true
rdma-rack-roce-all;configs/rdma-rack.yaml;server.nic=ScalaRoceNic|$ROCE_ALL
chakra-dp8;configs/chakra-dp8.yaml;
chakra-dp8-roce-all;configs/chakra-dp8-roce.yaml;$ROCE_ALL
"

# run BIN CONFIG OUT SETS: one run, its exit status in OUT.rc
run_one() {
	local bin=$1 cfg=$2 out=$3 sets=$4 extra=${5:-} args=()
	local IFS='|'
	for s in $sets; do args+=(--set "$s"); done
	IFS=' '
	for s in $extra; do args+=("$s"); done
	rm -rf "$out"
	(cd "$root" && "$bin" run "$cfg" --out "$out" --quiet "${args[@]}" >"$out.out" 2>"$out.err")
	echo $? >"$out.rc"
}

# norm OUT out|err: a run's stdout or stderr with its output folder and its wall time taken out
norm() {
	sed -E -e "s#$1#OUT#g" -e 's/in [0-9.]+ s wall/in - s wall/' -e '/^parallel: /d' -e '/^  thread [0-9]+: /d' \
		-e '/^\[uetemu\] one thread: /d' "$1.$2"
}

# compare A B: 0 when every output matches (summary.json without wall_s)
compare() {
	local a=$1 b=$2 f bad=0
	cmp -s "$a.rc" "$b.rc" || { echo "  exit status $(cat "$a.rc") vs $(cat "$b.rc")"; bad=1; }
	cmp -s <(norm "$a" out) <(norm "$b" out) || { echo "  stdout differs"; bad=1; }
	cmp -s <(norm "$a" err) <(norm "$b" err) || { echo "  stderr differs"; bad=1; }
	for f in $( (ls "$a"; ls "$b") 2>/dev/null | sort -u); do
		[ "$f" = .uetemu.lock ] && continue
		if [ ! -e "$a/$f" ] || [ ! -e "$b/$f" ]; then
			echo "  $f: only on one side"; bad=1
		elif [ "$f" = summary.json ]; then
			cmp -s <(grep -v '"wall_s"\|"parallel"' "$a/$f" | sed "s#$a#OUT#g") \
				<(grep -v '"wall_s"\|"parallel"' "$b/$f" | sed "s#$b#OUT#g") ||
				{ echo "  $f differs"; bad=1; }
		elif [ -d "$a/$f" ]; then # a folder of outputs (Chakra's post_annotated traces)
			diff -r "$a/$f" "$b/$f" >/dev/null || { echo "  $f differs"; bad=1; }
		else
			cmp -s "$a/$f" "$b/$f" || { echo "  $f differs"; bad=1; }
		fi
	done
	return $bad
}

fail=0
while IFS=';' read -r name cfg sets; do
	[ -z "$name" ] && continue
	case "$name" in default | fat-tree-1024) [ -n "${SAME_QUICK:-}" ] && continue ;; esac
	[ -n "${SAME_REUSE:-}" ] && [ -e "$tmp/$name.base.rc" ] || run_one "$base" "$cfg" "$tmp/$name.base" "$sets"
	run_one "$new" "$cfg" "$tmp/$name.new" "$sets" "${SAME_NEW_ARGS:-}"
	n=$(ls "$tmp/$name.base" 2>/dev/null | wc -l)
	brc=$(cat "$tmp/$name.base.rc")
	# 10: the run's verdict says work was left open at its stop time (badport-cm, rdma-scale by design); its
	# outputs are whole, and they are compared as any other's
	if { [ "$brc" != 0 ] && [ "$brc" != 10 ]; } || [ "$n" = 0 ]; then
		echo "BASE FAILED $name: $(head -c 300 "$tmp/$name.base.err")"; fail=1; continue
	fi
	if compare "$tmp/$name.base" "$tmp/$name.new"; then
		echo "same $name ($n files)"
	else
		echo "DIFF $name"; fail=1
	fi
done <<<"$cases"
[ $fail = 0 ] && echo "same_outputs: all identical" || echo "same_outputs: DIFFERENCES"
exit $fail
