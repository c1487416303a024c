#!/usr/bin/env bash
# Preflight checks (docs/realtime.md, Preflight checks): `uetemu validate --mode realtime` refuses what a real-time
# run would trip on, each with its own plain message and exit 1, and `uetemu run` says the same when it trips.
#
# Usage: tests/lab/test_preflight.sh UETEMU REPO_ROOT     (as root; LAB_KEEP=1 keeps the work directory)
#
#   namespace preflight-<pid>: veth preflight-a ==== preflight-b, MTU 9000 (tests/lab/preflight.yaml binds a)
#
# 1. the config as it is: valid (exit 0);
# 2. a bogus PMD (net_bogus0): "no PMD driver", from validate and from run (which today said "Bad address");
# 3. a missing interface (iface=preflight-none): "interface preflight-none does not exist"; `uetemu conform --dev`
#    says the same as validate for 2 and 3;
# 4. not root (uid 65534, a copy of the binary it may read): "net_af_packet needs root or CAP_NET_RAW", from
#    validate and run;
# 5. a busy EAL prefix: a uetemu real-time run on a net_tap port holds --file-prefix preflight-<pid>; validate and
#    run with it name the holder's pid; validate refuses to share its tap ("held by another process");
# 6. an MSS too big for the MTU (preflight-a at 1500, RdmaDataMSS 4096): the MTU message;
# 7. a devargs typo (net_tap0,ifcae=...): warned about, the config still valid;
# 8. --out naming a file: "--out must be a directory".
# Each message is checked to be that case's own (not another case's). Exit 0, 1, or 77 when not root.
set -u
LAB_NAME=test_preflight
. "$(dirname "${BASH_SOURCE[0]}")/lablib.sh"
lab_init "$@"
lab_need setpriv
NS=preflight-$$ BUSY=preflight-$$
CFG=$ROOT/tests/lab/preflight.yaml
ns() { ip netns exec "$NS" "$@"; }
MSG_DRV='no PMD driver for "net_bogus0" in this DPDK build'
MSG_IF='interface preflight-none does not exist'
MSG_PRIV='net_af_packet needs root or CAP_NET_RAW'
MSG_BUSY="EAL file prefix \"$BUSY\" is in use by process"
MSG_MTU='MTU 1500 (/sys/class/net/preflight-a/mtu)'
MSG_TAP='tap preflight-t is held by another process'
ALL=("$MSG_DRV" "$MSG_IF" "$MSG_PRIV" "$MSG_BUSY" "$MSG_MTU" "$MSG_TAP")

if ! { ns_add "$NS" && veth "$NS" preflight-a "$NS" preflight-b; }; then
	fail "namespace $NS, veth preflight-a/preflight-b"
	finish
fi

# expect LABEL LOG RC WANT: RC is 1, LOG says WANT and none of the other cases' messages
expect() {
	local other n=0
	for other in "${ALL[@]}"; do
		[[ "$4" == "$other"* ]] || ! grep -qF -- "$other" "$2" || n=$((n + 1))
	done
	check "$1: exit 1 ($3), says '$4', no other case's message" \
		"[ $3 -eq 1 ] && grep -qF -- '$4' '$2' && [ $n -eq 0 ]"
	grep -qF -- "$4" "$2" || sed 's/^/  /' "$2"
}
validate() { ns timeout 20 "$UETEMU" validate -m realtime "$CFG" "$@" >"$WORK/v.log" 2>&1; }
# run_rt OUT ARGS...: a real-time run that should fail before it starts
run_rt() {
	local out=$1
	shift
	ns timeout -k 5 30 "$UETEMU" run -m realtime -q -o "$WORK/$out" "$CFG" "$@" >"$WORK/r.log" 2>&1
}

# 1. valid as it is
validate
rc=$?
check "the config is valid in $NS ($rc: $(tail -n 1 "$WORK/v.log"))" '[ $rc -eq 0 ]'

# 2. a PMD this DPDK build does not have
validate -s 'ports.0.dev=net_bogus0,iface=preflight-a'
expect "validate, bogus PMD" "$WORK/v.log" $? "$MSG_DRV"
run_rt drv -s 'ports.0.dev=net_bogus0,iface=preflight-a' -- --no-huge --no-pci -m 256 --file-prefix "$PREFIX"
expect "run, bogus PMD" "$WORK/r.log" $? "$MSG_DRV"
check "run, bogus PMD: DPDK's 'Bad address' no longer the message" '! grep -q "probe failed: Bad address" "$WORK/r.log"'

# 3. an interface that is not there
validate -s 'ports.0.dev=net_af_packet0,iface=preflight-none'
expect "validate, missing interface" "$WORK/v.log" $? "$MSG_IF"
# conform --dev goes through the same checks before the EAL
conform() { ns timeout -k 5 30 "$UETEMU" conform --dev "$1" --dut-ip 10.99.0.2 --ip 10.99.0.1 -o "$WORK/cf" -w 5 \
	-- --no-huge --no-pci -m 256 --file-prefix "$PREFIX" >"$WORK/c.log" 2>&1; }
conform net_bogus0,iface=preflight-a
expect "conform --dev, bogus PMD" "$WORK/c.log" $? "$MSG_DRV"
conform net_af_packet0,iface=preflight-none
expect "conform --dev, missing interface" "$WORK/c.log" $? "$MSG_IF"
check "conform --dev: DPDK's 'probe failed' no longer the message" '! grep -q "probe failed" "$WORK/c.log"'

# 4. not root: a copy of the binary uid 65534 may read and run, in a directory it may write
mkdir -p "$WORK/nobody" && cp "$UETEMU" "$CFG" "$WORK/nobody/" && chmod 755 "$WORK" && chmod 777 "$WORK/nobody" &&
	chmod 755 "$WORK/nobody/uetemu" && chmod 644 "$WORK/nobody/preflight.yaml"
(cd "$WORK/nobody" && ns setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
	timeout 20 ./uetemu validate -m realtime preflight.yaml) >"$WORK/v.log" 2>&1
expect "validate as uid 65534" "$WORK/v.log" $? "$MSG_PRIV"
(cd "$WORK/nobody" && ns setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
	timeout -k 5 30 ./uetemu run -m realtime -q -o out preflight.yaml -- --no-huge --no-pci -m 256) \
	>"$WORK/r.log" 2>&1
expect "run as uid 65534" "$WORK/r.log" $? "$MSG_PRIV"

# 5. a busy EAL prefix: a real-time run on a net_tap port holds it while validate and run try it (its
# SimulationDuration bounds it); and its tap, which validate refuses to share
ns "$UETEMU" run -m realtime -q -o "$WORK/holder" "$CFG" -s ports.0.dev=net_tap0,iface=preflight-t \
	-s simulation.SimulationDuration=20s -- --no-huge --no-pci -m 256 --file-prefix "$BUSY" \
	>"$WORK/holder.log" 2>&1 &
HOLDER=$!
PIDS+=("$HOLDER")
if wait_log "$WORK/holder.log" 'port net_tap0' "$HOLDER"; then
	validate -- --file-prefix "$BUSY"
	expect "validate, busy prefix" "$WORK/v.log" $? "$MSG_BUSY"
	pid=$(sed -n 's/.* is in use by process \([0-9]*\) .*/\1/p' "$WORK/v.log")
	check "validate, busy prefix: names the holder, pid ${pid:-none} ($(tr '\0' ' ' <"/proc/${pid:-0}/cmdline" 2>/dev/null | cut -c1-60))" \
		"[ -n '$pid' ] && tr '\0' ' ' <'/proc/$pid/cmdline' | grep -qF -- '--file-prefix $BUSY'"
	run_rt busy -- --no-huge --no-pci -m 256 --file-prefix "$BUSY"
	expect "run, busy prefix" "$WORK/r.log" $? "$MSG_BUSY ${pid:-none} "
	validate -s 'ports.0.dev=net_tap0,iface=preflight-t'
	expect "validate, a tap another run holds" "$WORK/v.log" $? "$MSG_TAP"
else
	fail "the holder run with --file-prefix $BUSY did not start"
	sed 's/^/  /' "$WORK/holder.log"
fi
stop_pid "$HOLDER"
rm -rf "/var/run/dpdk/$BUSY"
validate -- --file-prefix "$BUSY"
rc=$?
check "validate, the prefix free again once the holder ended ($rc)" '[ $rc -eq 0 ]'

# 6. an MSS too big for the interface's MTU
ns ip link set preflight-a mtu 1500
validate
expect "validate, RdmaDataMSS 4096 over MTU 1500" "$WORK/v.log" $? "$MSG_MTU"
ns ip link set preflight-a mtu 9000

# 7. a devargs typo: warned, still valid
validate -s 'ports.0.dev=net_tap0,ifcae=preflight-t'
rc=$?
check "validate, devargs typo: warned ('takes no devarg \"ifcae\"'), still valid ($rc)" \
	"[ $rc -eq 0 ] && grep -q 'warning: .*net_tap takes no devarg \"ifcae\"' '$WORK/v.log'"
validate -s 'ports.0.dev=net_af_packet0,iface=preflight-a,qpairs=1,framesz=2048'
rc=$?
check "validate, known devargs: no warning ($rc)" "[ $rc -eq 0 ] && ! grep -q warning '$WORK/v.log'"

# 8. --out naming a file
: >"$WORK/afile"
"$UETEMU" run -q -o "$WORK/afile" "$ROOT/configs/pair.yaml" >"$WORK/o.log" 2>&1
rc=$?
check "run --out FILE: exit 1 ($rc), 'must be a directory'" \
	"[ $rc -eq 1 ] && grep -qF -- '--out must be a directory: $WORK/afile is a file' '$WORK/o.log'"
finish
