#!/usr/bin/env bash
# Control of a running real-time session (docs/realtime.md, Control) with `uetemu ctl`. In a namespace ctl-<pid>: a
# veth pair uetctl0/uetctl1 with host0 and host1 bound to its ends (net_af_packet, tests/lab/ctl.yaml: no message of
# their own), the session recorded (--record).
#
# Usage: tests/lab/lab_ctl.sh UETEMU REPO_ROOT     (as root; LAB_KEEP=1 keeps the work directory)
#
# Checks: `uetemu ctl PREFIX list` names the control commands; `pause host0`, then `post host0 host1 256KiB`: while
# paused, host0's NIC sends nothing (its tx_bytes stays 0 over a second) and the message stays open; `resume host0`:
# the message completes; bad commands (an unknown host, a bad size, a missing argument) exit 1 or 2 with the reason
# named and are counted by `status`; `stop`: uetemu exits 3 with "stop": "signal" and its outputs written, the
# message in summary.json, and its "control" lists the 4 commands applied and the 2 refused; then `uetemu rerun` of the session says identical, with the 4 control commands applied,
# and its summary has the same message; without the control records (the session's log with them dropped) the
# re-run differs; a control record of a newer encoding, or naming a host the config lacks, is refused by name.
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
check "ctl list exits 0 ($rc) and names the 5 control commands ($n)" '[ $rc = 0 ] && [ "$n" = 5 ]'

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
check "bad commands: unknown host exits $rc1 ($(cat "$WORK/bad1.err")), bad size $rc2, no host $rc3 (usage)" \
	'[ $rc1 = 1 ] && grep -q unknown_host "$WORK/bad1.json" && [ $rc2 = 1 ] && grep -q bad_size "$WORK/bad2.json" && [ $rc3 = 2 ]'
ctl status >"$WORK/status.json"
acc=$(j "$WORK/status.json" /uetemu/ctl/status applied) ref=$(j "$WORK/status.json" /uetemu/ctl/status refused)
check "ctl status: ${acc:-?} applied, ${ref:-?} refused" '[ "${acc:-}" = 3 ] && [ "${ref:-}" = 2 ]'

ctl stop >"$WORK/stop.json"
rc=$?
check "ctl stop: exit $rc" '[ $rc = 0 ]'
for _ in $(seq 100); do kill -0 "$UPID" 2>/dev/null || break; sleep 0.1; done
wait "$UPID"
rc=$?
check "uetemu stopped by ctl stop: exit $rc (3, as on SIGINT)" '[ $rc = 3 ]'
[ $rc = 3 ] || tail -n 20 "$WORK/uetemu.log" | sed 's/^/  uetemu: /'
m=$(python3 -c "import json, sys
s = json.load(open(sys.argv[1])); m = s['messages']
print(s['stop'], m['posted'], m['completed'], s['record']['passes'])" "$WORK/out/summary.json" 2>/dev/null)
read -r stop p c passes <<<"$m"
check "summary.json: stop ${stop:-?}, messages ${c:-?} of ${p:-?} completed, ${passes:-?} passes logged" \
	'[ "${stop:-}" = signal ] && [ "${p:-}" = 1 ] && [ "${c:-}" = 1 ]'

timeout -k 5 120 "$UETEMU" rerun "$WORK/rec" >"$WORK/rerun.out" 2>"$WORK/rerun.err"
rc=$?
check "uetemu rerun: exit $rc, identical, 4 control commands applied" \
	'[ $rc = 0 ] && grep -q "identical to the recorded session" "$WORK/rerun.err" && grep -q "rerun: 4 control commands applied" "$WORK/rerun.err"'
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
	'[ "${applied:-}" = 4 ] && [ "${refused:-}" = 2 ] && [ "${kinds:-}" = pause,post,resume,stop ] && [ "${rapplied:-}" = 4 ] && [ "${samecmds:-}" = True ]'
grep -q '^\[uetemu\] control: #1 post host0 -> host1 at ' "$WORK/uetemu.log"
check "the session's stderr says each command as it is applied ($(grep -c '^\[uetemu\] control: #' "$WORK/uetemu.log") lines)" \
	"[ \$(grep -c '^\[uetemu\] control: #' '$WORK/uetemu.log') = 4 ]"

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
finish
