#!/usr/bin/env bash
# uetemu conform against a second uetemu: the device under test (tests/lab/conform-dut.yaml, one emulated host on
# a veth bound with net_af_packet, in real time) in one namespace, the suite on the veth's other end in another.
#
# Usage: tests/lab/lab_conform.sh UETEMU REPO_ROOT     (as root; LAB_KEEP=1 keeps the work directory)
#
#   namespace cnfc<pid> (the suite)                          namespace cnfd<pid> (the DUT)
#     uetemu conform 10.79.0.1  net_af_packet0 cnfc ======== cnfd  net_af_packet0: host dut 10.79.0.2
#
# Checks: every case passes against the DUT as it is (UDP, then native IPv4 on both sides); with each of the
# DUT's nic.TestFaults switches on (a uetemu that breaks UET 1.0 on purpose), exactly the cases that check what
# the switch breaks fail, read from conform.json; every case leaves its pcapng; conform exits 0 or 1 as it should.
set -u
LAB_NAME=lab_conform
. "$(dirname "${BASH_SOURCE[0]}")/lablib.sh"
lab_init "$@"
C=cnfc$$ D=cnfd$$
ALL="pdc_establish sack_out_of_order duplicate rod_gap_nack trimmed_nack retransmit_after_loss ecn_echo \
invalid_dpdcid ses_response pdc_close bad_frames"

if ! { ns_add "$C" && ns_add "$D" && veth "$D" cnfd "$C" cnfc; }; then
	fail "namespaces $C and $D, veth cnfc-cnfd"
	finish
fi
pass "namespaces $C and $D, veth cnfc-cnfd"

# one NAME WANT_FAILED DUT-RUN-OPTIONS...: a DUT with those options, the suite against it into $WORK/NAME; checks
# that the cases failed are exactly WANT_FAILED (space-separated, "" for none).
one() {
	local name=$1 want=$2 encap=udp
	shift 2
	[[ "$*" == *NativeIPv4* ]] && encap=native
	run_uetemu "$D" "$ROOT/tests/lab/conform-dut.yaml" "$WORK/dut-$name" --quiet "$@"
	sleep 1.5 # the DUT's port up (its EAL and the AF_PACKET socket) before the suite's ARP
	ip netns exec "$C" timeout -s TERM -k 5 60 "$UETEMU" conform --dev net_af_packet0,iface=cnfc \
		--dut-ip 10.79.0.2 --ip 10.79.0.1 --encap $encap --out "$WORK/$name" -- --log-level='lib.*:error' \
		>"$WORK/$name.log" 2>&1
	local rc=$?
	stop_pid "$UPID"
	local got
	got=$(python3 -c "import json, sys
r = json.load(open(sys.argv[1]))
print(' '.join(c['case'] for c in r['cases'] if c['verdict'] != 'pass'), '|', len(r['cases']))" \
		"$WORK/$name/conform.json" 2>/dev/null)
	local failed=${got% |*} n=${got##*| }
	local wrc=1
	[ -z "$want" ] && wrc=0
	check "$name: conform exits $wrc ($rc), $n cases run, failed: '${failed}' (expected '$want')" \
		'[ "$rc" = "$wrc" ] && [ "$n" = 11 ] && [ "$failed" = "$want" ]'
	[ "$rc" = "$wrc" ] && [ "$failed" = "$want" ] || sed 's/^/  conform: /' "$WORK/$name.log"
	local missing=""
	for k in $ALL; do [ -s "$WORK/$name/$k.pcapng" ] || missing="$missing $k"; done
	check "$name: a pcapng per case${missing:+ (missing:$missing)}" '[ -z "$missing" ]'
}

one clean ""
grep -E '^(pass|FAIL)' "$WORK/clean.log" | sed 's/^/  /'
one native "" --set nic.UETEncapsulation.Encapsulation=NativeIPv4
one nosack "sack_out_of_order" --set nic.TestFaults.NoSack=true
one wrongnack "rod_gap_nack trimmed_nack invalid_dpdcid pdc_close" --set nic.TestFaults.WrongNackCode=true
one noses "ses_response" --set nic.TestFaults.NoSesResponse=true
one noecn "ecn_echo" --set nic.TestFaults.NoEcnEcho=true
# the frames of a case are its evidence: the sack case's capture holds the three requests and the three ACKs
n=$(python3 - "$WORK/clean/sack_out_of_order.pcapng" <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read()
i = n = 0
while i + 12 <= len(b):
    t, l = struct.unpack_from('<II', b, i)
    if l < 12:
        break
    n += t == 6
    i += l
print(n)
PY
)
check "clean: sack_out_of_order.pcapng holds the 3 requests and the 3 ACKs, at least 6 frames ($n)" '[ "${n:-0}" -ge 6 ]'
finish
