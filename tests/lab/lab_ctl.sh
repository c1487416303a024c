#!/usr/bin/env bash
# Control of a running real-time session (docs/realtime.md, Control) with `uetemu ctl`. In a namespace ctl-<pid>: a
# veth pair uetctl0/uetctl1 with host0 and host1 bound to its ends (net_af_packet, tests/lab/ctl.yaml: no message of
# their own), the session recorded (--record).
#
# Usage: tests/lab/lab_ctl.sh UETEMU REPO_ROOT     (as root; LAB_KEEP=1 keeps the work directory)
#
# Checks: `uetemu ctl PREFIX list` names the control commands; `pause host0`, then `post host0 host1 256KiB`: while
# paused, host0's NIC sends nothing (its tx_bytes stays 0 over a second) and the message stays open; `resume host0`:
# the message completes; bad commands (an unknown host, a bad size, a missing argument, a bad rate, a message the
# host has not) exit 1 or 2 with the reason named and are counted by `status`; `rate host0 200Mbps`: host0's frames
# leave paced at 200 Mb/s (the link is 1 Gb/s), as the session log's TX records show in emulated time; `pause host0 2` holds message 2 (32 MiB) while message 3 (64 KiB)
# completes, `resume host0 2` lets it complete; `rate host0 off`; `stop`: uetemu exits 0 (the work done) with
# "stop": "ctl" and its outputs written, the messages in summary.json, and its "control" lists the 11 commands
# applied and the 4 refused; then `uetemu rerun` of the session says identical, with the 11 control commands
# applied, and its summary has the same messages; without the control records (the session's log with them
# dropped) the re-run differs; a control record of a newer encoding, or naming a host the config lacks, is refused
# by name. Then hosts on two lcores (tests/lab/ctl-lcores.yaml, -l 0-1: host1 on the second): `pause host1`, a
# message posted from host1 stays unsent over a second, `resume host1` completes it, `rate host1` is applied, `stop`
# ends the run with "stop": "ctl".
set -uo pipefail
LAB_NAME=lab_ctl
. "$(dirname "${BASH_SOURCE[0]}")/lablib.sh"
lab_init "$@"
NS=ctl-$$
ctl() { "$UETEMU" ctl "$PREFIX" "$@"; }

if ! { ns_add "$NS" && ip netns exec "$NS" ip link add uetctl0 type veth peer name uetctl1 &&
	ip netns exec "$NS" ip link set uetctl0 up && ip netns exec "$NS" ip link set uetctl1 up; }; then
	fail "namespace $NS with the veth pair uetctl0/uetctl1"
	finish
fi
pass "namespace $NS with the veth pair uetctl0/uetctl1"

run_uetemu "$NS" "$ROOT/tests/lab/ctl.yaml" "$WORK/out" --record "$WORK/rec"
wait_running || { fail "uetemu did not start"; tail -n 20 "$WORK/uetemu.log"; finish; }
wait_log "$WORK/uetemu.log" "telemetry: dpdk-telemetry.py -f $PREFIX" "$UPID" 100

# a field of a JSON answer: j FILE COMMAND KEY[.KEY...]
j() { python3 -c "import json, sys
v = json.load(open(sys.argv[1]))[sys.argv[2]]
for k in sys.argv[3].split('.'): v = v[k]
print(v)" "$@" 2>/dev/null; }

ctl list >"$WORK/list.json"
rc=$?
n=$(grep -o '/uetemu/ctl/[a-z]*' "$WORK/list.json" | sort -u | wc -l)
check "ctl list exits 0 ($rc) and names the 7 control commands ($n)" '[ $rc = 0 ] && [ "$n" = 7 ]'

ctl pause host0 >"$WORK/pause.json"
rc=$?
check "ctl pause host0: exit $rc, $(cat "$WORK/pause.json")" '[ $rc = 0 ] && grep -q "\"queued\":\"pause\"" "$WORK/pause.json"'
ctl post host0 host1 256KiB >"$WORK/post.json"
rc=$?
check "ctl post host0 host1 256KiB: exit $rc, $(cat "$WORK/post.json")" '[ $rc = 0 ] && grep -q "\"queued\":\"post\"" "$WORK/post.json"'
sleep 0.3
ctl hosts host0 >"$WORK/h1.json"
ctl stats >"$WORK/s1.json"
sleep 1
ctl hosts host0 >"$WORK/h2.json"
ctl stats >"$WORK/s2.json"
tx1=$(j "$WORK/h1.json" /uetemu/hosts tx_bytes) tx2=$(j "$WORK/h2.json" /uetemu/hosts tx_bytes)
q=$(j "$WORK/h2.json" /uetemu/hosts counters.write_pkts_sent)
posted=$(j "$WORK/s2.json" /uetemu/summary messages.posted) done1=$(j "$WORK/s2.json" /uetemu/summary messages.completed)
check "paused: host0 sent ${tx1:-?} then ${tx2:-?} bytes over 1 s (its NIC queued ${q:-?} packets); message posted ${posted:-?}, completed ${done1:-?}" \
	'[ "${tx1:-x}" = 0 ] && [ "${tx2:-x}" = 0 ] && [ "${q:-0}" -gt 0 ] && [ "${posted:-0}" = 1 ] && [ "${done1:-x}" = 0 ]'

ctl resume host0 >"$WORK/resume.json"
rc=$?
check "ctl resume host0: exit $rc" '[ $rc = 0 ]'
done2=0
for _ in $(seq 50); do
	ctl stats >"$WORK/s3.json"
	done2=$(j "$WORK/s3.json" /uetemu/summary messages.completed)
	[ "${done2:-0}" = 1 ] && break
	sleep 0.1
done
ctl hosts host0 >"$WORK/h3.json"
tx3=$(j "$WORK/h3.json" /uetemu/hosts tx_bytes)
check "resumed: the message completed (${done2:-?}), host0 sent ${tx3:-?} bytes" \
	'[ "${done2:-0}" = 1 ] && [ "${tx3:-0}" -gt 262144 ]'

ctl post nohost host1 4096 >"$WORK/bad1.json" 2>"$WORK/bad1.err"
rc1=$?
ctl post host0 host1 12XB >"$WORK/bad2.json" 2>"$WORK/bad2.err"
rc2=$?
ctl pause >/dev/null 2>"$WORK/bad3.err"
rc3=$?
ctl rate host0 fast >"$WORK/bad4.json" 2>/dev/null
rc4=$?
ctl pause host0 9 >"$WORK/bad5.json" 2>/dev/null
rc5=$?
check "bad commands: unknown host exits $rc1 ($(cat "$WORK/bad1.err")), bad size $rc2, no host $rc3 (usage), bad rate $rc4, no such message $rc5" \
	'[ $rc1 = 1 ] && grep -q unknown_host "$WORK/bad1.json" && [ $rc2 = 1 ] && grep -q bad_size "$WORK/bad2.json" && [ $rc3 = 2 ] &&
	 [ $rc4 = 1 ] && grep -q bad_rate "$WORK/bad4.json" && [ $rc5 = 1 ] && grep -q unknown_message "$WORK/bad5.json"'
ctl status >"$WORK/status.json"
acc=$(j "$WORK/status.json" /uetemu/ctl/status applied) ref=$(j "$WORK/status.json" /uetemu/ctl/status refused)
check "ctl status: ${acc:-?} applied, ${ref:-?} refused" '[ "${acc:-}" = 3 ] && [ "${ref:-}" = 4 ]'

# state MSG: message MSG's state as `ctl messages` says it (waiting, sending, done)
state() { ctl messages host0 >"$WORK/msgs.json" 2>/dev/null && j "$WORK/msgs.json" /uetemu/ctl/messages "$1.state"; }
# wait_state MSG STATE [TRIES]: until message MSG is in STATE, every 0.1 s (default 100 tries)
wait_state() { for _ in $(seq "${3:-100}"); do [ "$(state "$1")" = "$2" ] && return 0; sleep 0.1; done; return 1; }

# the rate limit: a 1 MiB message at 200 Mb/s on a 1 Gb/s link (its FCT read from summary.json at the end)
ctl rate host0 200Mbps >"$WORK/rate.json"
rc=$?
check "ctl rate host0 200Mbps: exit $rc, $(cat "$WORK/rate.json")" '[ $rc = 0 ] && grep -q "\"queued\":\"rate\"" "$WORK/rate.json"'
ctl post host0 host1 1MiB >/dev/null
wait_state 1 done 150
check "the 1 MiB message at 200 Mb/s completed ($(state 1))" '[ "$(state 1)" = done ]'

# one message held while the host's others go on
ctl post host0 host1 32MiB >/dev/null
wait_state 2 sending
ctl pause host0 2 >"$WORK/fpause.json"
rc=$?
check "ctl pause host0 2 (message 2 sending): exit $rc, $(cat "$WORK/fpause.json")" '[ $rc = 0 ] && grep -q "\"queued\":\"pause\"" "$WORK/fpause.json"'
ctl post host0 host1 64KiB >/dev/null
wait_state 3 done 100
sleep 0.5
s2=$(state 2) s3=$(state 3)
check "message 2 held: message 3 completed (${s3:-?}) while message 2 is still ${s2:-?} (32 MiB at 200 Mb/s is 1.3 s, so the pause lands while it sends even on a loaded machine)" \
	'[ "${s3:-}" = done ] && [ "${s2:-}" = sending ]'
ctl resume host0 2 >/dev/null
wait_state 2 done 150
check "ctl resume host0 2: message 2 completed ($(state 2))" '[ "$(state 2)" = done ]'
ctl rate host0 off >"$WORK/rateoff.json"
rc=$?
check "ctl rate host0 off: exit $rc" '[ $rc = 0 ]'

ctl stop >"$WORK/stop.json"
rc=$?
check "ctl stop: exit $rc" '[ $rc = 0 ]'
for _ in $(seq 100); do kill -0 "$UPID" 2>/dev/null || break; sleep 0.1; done
wait "$UPID"
rc=$?
check "uetemu stopped by ctl stop: exit $rc (0: its work was done)" '[ $rc = 0 ]'
[ $rc = 0 ] || tail -n 20 "$WORK/uetemu.log" | sed 's/^/  uetemu: /'
grep -q '^uetemu: stopped by uetemu ctl (stop: ctl)' "$WORK/uetemu.log"
check "stderr says the run was stopped by uetemu ctl" '[ $? = 0 ]'
m=$(python3 -c "import json, sys
s = json.load(open(sys.argv[1])); m = s['messages']
print(s['stop'], m['posted'], m['completed'], s['record']['passes'])" "$WORK/out/summary.json" 2>/dev/null)
read -r stop p c passes <<<"$m"
check "summary.json: stop ${stop:-?}, messages ${c:-?} of ${p:-?} completed, ${passes:-?} passes logged" \
	'[ "${stop:-}" = ctl ] && [ "${p:-}" = 4 ] && [ "${c:-}" = 4 ]'
# the rate limit in the session log: host0's frames on its port (TX records of port 0) between `rate host0 200Mbps`
# and `rate host0 off`, each no sooner after the one before than that one's bytes (FCS included) take at 200 Mb/s,
# in emulated time (1 Gb/s, the link, would send them 5 times as close)
pace=$(python3 - "$WORK/rec/session.bin" <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read()
off, rates, tx = 56, [], []
while off + 24 <= len(b):
    typ, port, n = b[off], b[off + 1], struct.unpack_from('<I', b, off + 4)[0]
    t = struct.unpack_from('<Q', b, off + 8)[0]
    if typ == 5 and b[off + 24 + 1] == 5:  # CTL, kind rate
        rates.append(t)
    if typ == 3 and port == 0:  # TX on host0's port
        tx.append((t, n))
    off += 24 + n
on, off_ = rates[0], rates[1]
w = [x for x in tx if on <= x[0] <= off_]
ratio = min((w[i][0] - w[i - 1][0]) / ((w[i - 1][1] + 4) * 8 / 200e6 * 1e12) for i in range(1, len(w)))
print(len(w), '%.3f' % ratio)
PY
)
read -r nf ratio <<<"$pace"
check "rate 200Mbps in the session log: host0 sent ${nf:-?} frames under it, spaced at least ${ratio:-?} x their time at 200 Mb/s (>= 0.999)" \
	'[ "${nf:-0}" -gt 1000 ] && python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) >= 0.999 else 1)" "${ratio:-0}"'

timeout -k 5 120 "$UETEMU" rerun "$WORK/rec" >"$WORK/rerun.out" 2>"$WORK/rerun.err"
rc=$?
check "uetemu rerun: exit $rc, identical, 11 control commands applied" \
	'[ $rc = 0 ] && grep -q "identical to the recorded session" "$WORK/rerun.err" && grep -q "rerun: 11 control commands applied" "$WORK/rerun.err"'
[ $rc = 0 ] || sed 's/^/  rerun: /' "$WORK/rerun.err" | tail -n 5
m2=$(python3 -c "import json, sys
m = json.load(open(sys.argv[1]))['messages']; print(m['posted'], m['completed'], m['fct_us']['max'])" "$WORK/rec/rerun/summary.json" 2>/dev/null)
m1=$(python3 -c "import json, sys
m = json.load(open(sys.argv[1]))['messages']; print(m['posted'], m['completed'], m['fct_us']['max'])" "$WORK/out/summary.json" 2>/dev/null)
check "the re-run's message: ${m2:-?} (posted, completed, FCT us) as the session's: ${m1:-?}" \
	'[ -n "$m1" ] && [ "$m1" = "$m2" ]'

c=$(python3 -c "import json, sys
a, b = (json.load(open(p))['control'] for p in sys.argv[1:3])
print(a['applied'], a['refused'], ','.join(c['kind'] for c in a['commands']), b['applied'], a['commands'] == b['commands'])" \
	"$WORK/out/summary.json" "$WORK/rec/rerun/summary.json" 2>/dev/null)
read -r applied refused kinds rapplied samecmds <<<"$c"
check "summary.json control: ${applied:-?} applied (${kinds:-?}), ${refused:-?} refused; the re-run's: ${rapplied:-?} applied, the same commands at the same times: ${samecmds:-?}" \
	'[ "${applied:-}" = 11 ] && [ "${refused:-}" = 4 ] && [ "${kinds:-}" = pause,post,resume,rate,post,post,pause,post,resume,rate,stop ] &&
	 [ "${rapplied:-}" = 11 ] && [ "${samecmds:-}" = True ]'
grep -q '^\[uetemu\] control: #1 post host0 -> host1 at ' "$WORK/uetemu.log"
check "the session's stderr says each command as it is applied ($(grep -c '^\[uetemu\] control: #' "$WORK/uetemu.log") lines)" \
	"[ \$(grep -c '^\[uetemu\] control: #' '$WORK/uetemu.log') = 11 ]"

# the same session without its control records: the re-run must differ (the test can fail)
mkdir -p "$WORK/noctl"
cp "$WORK/rec/config.yaml" "$WORK/rec/sets" "$WORK/noctl/"
python3 - "$WORK/rec/session.bin" "$WORK/noctl/session.bin" <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read()
out, off = bytearray(b[:56]), 56
while off + 24 <= len(b):
    typ, n = b[off], struct.unpack_from('<I', b, off + 4)[0]
    if typ != 5:  # CAP_SES_CTL
        out += b[off:off + 24 + n]
    off += 24 + n
open(sys.argv[2], 'wb').write(out)
PY
timeout -k 5 120 "$UETEMU" rerun "$WORK/noctl" >/dev/null 2>"$WORK/noctl.err"
rc=$?
check "the log without its control records re-runs differently: exit $rc (6)" \
	'[ $rc = 6 ] && grep -q "DIFFERS" "$WORK/noctl.err"'

# a control record of a newer encoding, and one naming a host the config has not: refused by name (exit 1)
for what in version host; do
	mkdir -p "$WORK/bad-$what"
	cp "$WORK/rec/config.yaml" "$WORK/rec/sets" "$WORK/bad-$what/"
	python3 - "$WORK/rec/session.bin" "$WORK/bad-$what/session.bin" "$what" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
off = 56
while off + 24 <= len(b):
    typ, n = b[off], struct.unpack_from('<I', b, off + 4)[0]
    if typ == 5:  # the first CTL record: its encoding's version, or its host a
        if sys.argv[3] == 'version':
            b[off + 24] = 2
        else:
            struct.pack_into('<I', b, off + 24 + 4, 7)
        break
    off += 24 + n
open(sys.argv[2], 'wb').write(b)
PY
	timeout -k 5 120 "$UETEMU" rerun "$WORK/bad-$what" >/dev/null 2>"$WORK/bad-$what.err"
	rc=$?
	want="of encoding version 2; this uetemu reads version 1"
	[ $what = host ] && want="is not one this session's config can apply"
	check "a log whose first control record has a bad $what: rerun exits $rc (1): $(grep -o 'control command #0.*' "$WORK/bad-$what.err" | head -c 120)" \
		'[ $rc = 1 ] && grep -q "$want" "$WORK/bad-$what.err"'
done

# hosts on two lcores: host1 on the second (its own partition), its commands done by that lcore
ip netns exec "$NS" timeout -s TERM -k 5 "${LAB_TIMEOUT:-40}" "$UETEMU" run "$ROOT/tests/lab/ctl-lcores.yaml" \
	--mode realtime --out "$WORK/out-lc" -- -l 0-1 --no-huge --no-pci -m 256 --file-prefix "$PREFIX" \
	--log-level='lib.*:warning' >"$WORK/uetemu-lc.log" 2>&1 &
UPID=$!
PIDS+=("$UPID")
wait_log "$WORK/uetemu-lc.log" "telemetry: dpdk-telemetry.py -f $PREFIX" "$UPID" 100 ||
	{ fail "uetemu on two lcores did not start"; tail -n 20 "$WORK/uetemu-lc.log"; finish; }
ctl pause host1 >"$WORK/lc-pause.json"
rc=$?
ctl post host1 host0 64KiB >/dev/null
sleep 1
ctl hosts host1 >"$WORK/lc-h1.json"
tx1=$(j "$WORK/lc-h1.json" /uetemu/hosts tx_bytes)
ctl messages host1 >"$WORK/lc-m1.json"
st1=$(j "$WORK/lc-m1.json" /uetemu/ctl/messages 0.state)
check "two lcores: ctl pause host1 (lcore 1) exit $rc; host1 sent ${tx1:-?} bytes over 1 s, its message ${st1:-?}" \
	'[ $rc = 0 ] && [ "${tx1:-x}" = 0 ] && [ "${st1:-}" = sending ]'
ctl resume host1 >/dev/null
st2=
for _ in $(seq 100); do
	ctl messages host1 >"$WORK/lc-m2.json" 2>/dev/null
	st2=$(j "$WORK/lc-m2.json" /uetemu/ctl/messages 0.state)
	[ "$st2" = done ] && break
	sleep 0.1
done
check "two lcores: ctl resume host1: its message ${st2:-?}" '[ "${st2:-}" = done ]'
ctl rate host1 300Mbps >/dev/null
ctl status >"$WORK/lc-status.json"
rated=$(j "$WORK/lc-status.json" /uetemu/ctl/status rated) lost=$(j "$WORK/lc-status.json" /uetemu/ctl/status lost)
check "two lcores: ctl rate host1 applied (rated ${rated:-?}, lost ${lost:-?})" '[ "${rated:-}" = 1 ] && [ "${lost:-}" = 0 ]'
ctl stop >/dev/null
for _ in $(seq 100); do kill -0 "$UPID" 2>/dev/null || break; sleep 0.1; done
wait "$UPID"
rc=$?
lcs=$(python3 -c "import json, sys
s = json.load(open(sys.argv[1])); print(s['stop'], len(s['realtime']['lcores']))" "$WORK/out-lc/summary.json" 2>/dev/null)
read -r stop nlc <<<"$lcs"
check "two lcores: stopped by ctl stop, exit $rc (0), stop ${stop:-?}, ${nlc:-?} lcores" \
	'[ $rc = 0 ] && [ "${stop:-}" = ctl ] && [ "${nlc:-}" = 2 ]'
[ $rc = 0 ] || tail -n 20 "$WORK/uetemu-lc.log" | sed 's/^/  uetemu: /'
finish
