#!/usr/bin/env bash
# Test of the Wireshark dissector scripts/wireshark/uet.lua with tshark.
#
# Usage: tests/wire/test_lua_dissector.sh [REPO_ROOT]   (default: two directories above this script)
#
# Generates captures with tests/wire/gen_uet_pcap.py into a temporary directory, runs tshark with the script and
# checks that:
#   (a) every frame of uet_good.pcap is dissected by the script's protocol, with no malformed packet, no expert info
#       of severity warning or above, and no script error (neither the _ws.lua.error field nor "Lua" in any output);
#   (b) the field values and Info column summaries are the ones the generator wrote (expect.json);
#   (c) every frame of uet_truncated.pcap gets the expected expert info (<proto>.expert.short, or .snaplen for the
#       frame cut by the capture snaplen) and is still dissected by the protocol, with no script error;
#   (d) the udp_port preference moves the port, frames to the UET port from a source port another protocol
#       registered (53, 269, 319, 320) are UET with no option (and with udp.try_heuristic_first), and the fallback
#       protocol name "uetemu" works;
#   (e) native IPv4 (protocol 253 + entropy header) frames and CRC trailers (uet_crc.pcap, with the crc_trailer
#       preference: every trailer checked, a wrong one flagged) decode as expect.json says;
#   (f) with python3-scapy, every frame of tests/wire/gen_uet_vectors.py (every UET 1.0 PDS type and SES form, UDP
#       and native, with and without trailer) is dissected with no script error, nothing malformed, no warning,
#       and the PDS type the generator wrote.
# Exit status: 0 on success, 1 on a failed check, 77 (skip) when tshark or python3 is missing.

set -u

ROOT=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
LUA="$ROOT/scripts/wireshark/uet.lua"
GEN="$ROOT/tests/wire/gen_uet_pcap.py"

command -v tshark >/dev/null 2>&1 || { echo "SKIP: tshark not found"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found"; exit 77; }
[ -r "$LUA" ] || { echo "FAIL: $LUA not found"; exit 1; }
[ -r "$GEN" ] || { echo "FAIL: $GEN not found"; exit 1; }

TMP=$(mktemp -d "${TMPDIR:-/tmp}/uet_lua_test.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
FAILS=0
fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }
pass() { echo "ok:   $*"; }

# tshark with the script. Its stderr goes to $TMP/stderr.last (this call) and $TMP/stderr.all (every call), so it
# can be searched for script errors even when ts runs in a command substitution.
ts() {
	local rc
	tshark -n -X "lua_script:$LUA" "$@" 2>"$TMP/stderr.last"
	rc=$?
	cat "$TMP/stderr.last" >>"$TMP/stderr.all"
	return $rc
}
# Lines of the last stderr that are not the harmless "running as root" banner.
stderr_of_last() { grep -v 'Running as user "root"' "$TMP/stderr.last" || true; }

python3 "$GEN" "$TMP" || { echo "FAIL: the generator failed"; exit 1; }
GOOD="$TMP/uet_good.pcap"
TRUNC="$TMP/uet_truncated.pcap"
LOW="$TMP/uet_lowport.pcap"
CRC="$TMP/uet_crc.pcap"

# The protocol name the script registered: "uet", or "uetemu" when a built-in "uet" exists. (tshark -G does not
# load -X lua_script, so read it from the PDML of the first frame.)
P=$(ts -r "$GOOD" -c 1 -T pdml |
	sed -n 's/.*<proto name="\([a-z0-9_]*\)" showname="Ultra Ethernet Transport (uetemu).*/\1/p')
if [ -z "$P" ]; then
	echo "FAIL: the script did not register its protocol (is Lua enabled in tshark?)"
	stderr_of_last
	exit 1
fi
pass "script loaded; protocol '$P' (fields '$P.*')"

# ---- (a) every good frame is ours, nothing malformed, no expert warning/error, no script error ----
for cap in "$GOOD" "$TRUNC" "$LOW" "$CRC"; do
	name=$(basename "$cap")
	total=$(ts -r "$cap" -T fields -e frame.number | wc -l)
	notours=$(ts -r "$cap" -Y "!$P" -T fields -e frame.number | tr '\n' ' ')
	if [ "$total" -gt 0 ] && [ -z "$notours" ]; then
		pass "$name: all $total frames dissected as $P"
	else
		fail "$name: frames not dissected as $P: '${notours}' (of $total)"
	fi
	# _ws.malformed.expert marks a dissection exception (e.g. a read past the end). _ws.malformed alone is also set,
	# hidden, by expert infos of group Malformed such as <proto>.expert.short, which the truncated frames must have.
	luaerr=$(ts -r "$cap" -Y "_ws.lua.error || _ws.malformed.expert" -T fields -e frame.number | tr '\n' ' ')
	[ -z "$luaerr" ] && pass "$name: no script error and no dissection exception" ||
		fail "$name: script error or dissection exception in frames: $luaerr"
	# Full detail output and stderr must not mention Lua (a script error prints "Lua Error").
	out=$(ts -r "$cap" -V; stderr_of_last)
	out+=$'\n'$(grep -v 'Running as user "root"' "$TMP/stderr.all")
	if printf '%s\n' "$out" | grep -qi 'lua'; then
		fail "$name: 'Lua' in tshark output:"
		printf '%s\n' "$out" | grep -i 'lua' | head -5
	else
		pass "$name: no 'Lua' in tshark -V output or stderr"
	fi
done

bad=$(ts -r "$GOOD" -Y "_ws.malformed || _ws.expert.severity >= error" -T fields -e frame.number | tr '\n' ' ')
[ -z "$bad" ] && pass "uet_good.pcap: no malformed frame, no expert error" ||
	fail "uet_good.pcap: malformed or expert error in frames: $bad"
warn=$(ts -r "$GOOD" -Y "_ws.expert.severity >= warning" -T fields -e frame.number | tr '\n' ' ')
[ -z "$warn" ] && pass "uet_good.pcap: no expert warning" || {
	fail "uet_good.pcap: expert warnings in frames: $warn"
	ts -r "$GOOD" -q -z expert
}

# The generator's IPv4 header checksums are right (status 1 = good) in both captures.
for cap in "$GOOD" "$TRUNC"; do
	badsum=$(ts -r "$cap" -o ip.check_checksum:TRUE -Y "ip.checksum.status != 1" -T fields -e frame.number |
		tr '\n' ' ')
	[ -z "$badsum" ] && pass "$(basename "$cap"): IPv4 header checksums verify" ||
		fail "$(basename "$cap"): bad IPv4 checksum in frames: $badsum"
done

# ---- (b) and (c): field values, Info summaries and expert infos against expect.json ----
# Writes, for a capture: fields.tsv (one line per frame, the fields named in expect.json) and expert.<abbr>
# (frame numbers carrying that expert info); then compares.
check_capture() {
	local cap=$1 name
	shift
	local opts=("$@")
	name=$(basename "$cap")
	python3 - "$TMP/expect.json" "$name" "$P" >"$TMP/fields.list" <<-'EOF'
		import json, sys
		exp = json.load(open(sys.argv[1]))[sys.argv[2]]
		names = set()
		for e in exp:
		    for k, v in e.items():
		        if k == "@absent":
		            names.update(v)
		        elif not k.startswith("@"):
		            names.add(k)
		for n in sorted(names):
		    print(sys.argv[3] + "." + n)
	EOF
	local args=(-T fields -E header=y -E separator=/t -E occurrence=a -E aggregator=, -e frame.number
		-e _ws.col.Info)
	local fld
	while read -r fld; do args+=(-e "$fld"); done <"$TMP/fields.list"
	if ! ts -r "$cap" ${opts[@]+"${opts[@]}"} "${args[@]}" >"$TMP/fields.tsv"; then
		fail "$name: tshark -T fields failed (unknown field name?)"
		stderr_of_last
		return
	fi
	rm -f "$TMP"/expert.*
	local abbr
	for abbr in $(python3 -c 'import json,sys
print(" ".join(sorted({e["@expert"] for e in json.load(open(sys.argv[1]))[sys.argv[2]] if "@expert" in e})))' \
		"$TMP/expect.json" "$name"); do
		ts -r "$cap" ${opts[@]+"${opts[@]}"} -Y "$P.$abbr" -T fields -e frame.number >"$TMP/expert.$abbr"
	done
	python3 - "$TMP/expect.json" "$name" "$P" "$TMP/fields.tsv" "$TMP" <<-'EOF'
		import glob, json, os, sys
		exp_all, name, proto, tsv, tmp = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
		exp = exp_all[name]
		lines = open(tsv).read().rstrip("\n").split("\n")
		header = lines[0].split("\t")
		rows = [dict(zip(header, l.split("\t"))) for l in lines[1:]]
		experts = {}
		for path in glob.glob(os.path.join(tmp, "expert.*")):
		    experts[os.path.basename(path)[len("expert."):]] = {int(x) for x in open(path).read().split()}

		def num(s):
		    s = s.strip()
		    if s in ("True", "TRUE", "true"):
		        return 1
		    if s in ("False", "FALSE", "false"):
		        return 0
		    return int(s, 0)

		bad = 0
		if len(rows) != len(exp):
		    print("FAIL: %s: %d frames, expected %d" % (name, len(rows), len(exp)))
		    bad += 1
		for i, (row, e) in enumerate(zip(rows, exp), 1):
		    problems = []
		    for k, want in e.items():
		        if k == "@info":
		            if want not in row.get("_ws.col.Info", ""):
		                problems.append("Info %r does not contain %r" % (row.get("_ws.col.Info"), want))
		        elif k == "@expert":
		            if i not in experts.get(want, set()):
		                problems.append("expert info %s.%s missing" % (proto, want))
		        elif k == "@absent":
		            for a in want:
		                if row.get(proto + "." + a, "") != "":
		                    problems.append("%s.%s present (%r), expected absent" % (proto, a, row[proto + "." + a]))
		        else:
		            got = row.get(proto + "." + k, "")
		            try:
		                vals = [num(x) for x in got.split(",")] if got != "" else []
		            except ValueError:
		                problems.append("%s.%s = %r is not a number" % (proto, k, got))
		                continue
		            wantl = want if isinstance(want, list) else [want]
		            if vals != wantl:
		                problems.append("%s.%s = %r, expected %r" % (proto, k, got, want))
		    if problems:
		        bad += 1
		        print("FAIL: %s frame %d: %s" % (name, i, "; ".join(problems)))
		nchecks = sum(len(e) for e in exp)
		if bad == 0:
		    print("ok:   %s: %d frames, %d expected values / summaries / expert infos all match" % (name, len(exp), nchecks))
		sys.exit(1 if bad else 0)
	EOF
	[ $? -eq 0 ] || FAILS=$((FAILS + 1))
}

check_capture "$GOOD"
check_capture "$TRUNC"
check_capture "$LOW"
check_capture "$CRC" -o "$P.crc_trailer:TRUE"
bad=$(ts -r "$CRC" -o "$P.crc_trailer:TRUE" \
	-Y "_ws.malformed.expert || _ws.lua.error || ($P.crc && !$P.crc.status)" -T fields -e frame.number | tr '\n' ' ')
[ -z "$bad" ] && pass "uet_crc.pcap: every trailer checked (crc.status set), no exception" ||
	fail "uet_crc.pcap: unchecked trailer or exception in frames: $bad"

# Every truncated frame carries an expert info of ours (short or snaplen).
noexp=$(ts -r "$TRUNC" -Y "!($P.expert.short || $P.expert.snaplen)" -T fields -e frame.number | tr '\n' ' ')
[ -z "$noexp" ] && pass "uet_truncated.pcap: every frame has a $P.expert.short or $P.expert.snaplen note" ||
	fail "uet_truncated.pcap: frames without a short/snaplen expert info: $noexp"

# ---- (d) preferences, heuristic, fallback name ----
n=$(ts -r "$GOOD" -o "$P.udp_port:5000" -Y "$P && udp" -T fields -e frame.number | wc -l)
[ "$n" -eq 0 ] && pass "$P.udp_port:5000 moves the dissector off 4793 (native frames stay $P)" ||
	fail "$P.udp_port:5000: still $n frames dissected on 4793"
psn=$(ts -r "$LOW" -T fields -e "$P.pds.psn" | tr '\n' ' ')
[ "$psn" = "55 55 55 55 " ] && pass "frames to 4793 from source ports 53, 269, 319, 320 are UET with no option" ||
	fail "low source ports: expected $P.pds.psn 55 four times, got '$psn'"
psn=$(ts -r "$LOW" -o udp.try_heuristic_first:TRUE -T fields -e "$P.pds.psn" | tr '\n' ' ')
[ "$psn" = "55 55 55 55 " ] && pass "... and with udp.try_heuristic_first (the UDP heuristic)" ||
	fail "UDP heuristic: expected $P.pds.psn 55 four times, got '$psn'"
other=$(ts -r "$GOOD" -Y "udp.srcport == 53 || udp.srcport == 319" -T fields -e frame.number | wc -l)
[ "$other" -eq 0 ] && pass "no frame of uet_good.pcap is taken by another protocol" ||
	fail "uet_good.pcap: $other frames from a low source port"
if [ "$P" = "uet" ]; then
	psn=$(UETEMU_WS_PROTO=uetemu ts -r "$GOOD" -c 1 -T fields -e uetemu.pds.psn)
	[ "$psn" = "123" ] && pass "fallback protocol name 'uetemu' (UETEMU_WS_PROTO) works" ||
		fail "fallback protocol name 'uetemu': expected uetemu.pds.psn 123, got '$psn'"
fi

# ---- (f) the interop vectors, if scapy is there ----
py=""
for p in python3 /usr/bin/python3; do
	if command -v "$p" >/dev/null && "$p" -c 'import scapy.all' 2>/dev/null; then py=$p; break; fi
done
if [ -z "$py" ]; then
	echo "note: no python3 with scapy; interop vectors (gen_uet_vectors.py) not checked"
else
	"$py" "$ROOT/tests/wire/gen_uet_vectors.py" "$TMP/vec" >/dev/null || fail "gen_uet_vectors.py failed"
	for run in "uet_vectors.pcap" "uet_vectors_crc.pcap" "uet_vectors_crc.pcap -o $P.crc_trailer:TRUE" \
		"uet_vectors_crc_refprov.pcap" "uet_vectors_crc_refprov.pcap -o $P.crc_trailer:TRUE"; do
		read -r -a a <<<"$run"
		cap="$TMP/vec/${a[0]}" opts=("${a[@]:1}")
		total=$(ts -r "$cap" ${opts[@]+"${opts[@]}"} -T fields -e frame.number | wc -l)
		bad=$(ts -r "$cap" ${opts[@]+"${opts[@]}"} \
			-Y "!$P || _ws.lua.error || _ws.malformed || _ws.expert.severity >= warning" \
			-T fields -e frame.number | tr '\n' ' ')
		if [ "$total" -gt 0 ] && [ -z "$bad" ]; then
			pass "vectors $run: all $total frames $P, no script error, no malformed, no warning"
		else
			fail "vectors $run: frames not dissected, malformed or warned: $bad"
		fi
		ts -r "$cap" ${opts[@]+"${opts[@]}"} -T fields -e "$P.pds.type" >"$TMP/vec/types"
		"$py" - "$TMP/vec/uet_vectors.json" "$TMP/vec/types" <<-'EOF' || fail "vectors $run: PDS types differ"
			import json, sys
			code = {'tss': 1, 'rud_req': 2, 'rod_req': 3, 'rudi_req': 4, 'rudi_resp': 5, 'uud_req': 6, 'ack': 7,
			        'ack_cc': 8, 'ack_ccx': 9, 'nack': 10, 'nack_ccx': 12, 'rud_cc_req': 13, 'rod_cc_req': 14}
			vecs = json.load(open(sys.argv[1]))['vectors']
			got = [int(x, 0) for x in open(sys.argv[2]).read().split()]
			want = [code.get(v['pds'], 11) for v in vecs for _ in (0, 1)]
			bad = [(vecs[i // 2]['name'], g, w) for i, (g, w) in enumerate(zip(got, want)) if g != w]
			print("ok:   vectors: %d frames, each the PDS type the generator wrote" % len(got) if not bad and
			      len(got) == len(want) else "FAIL: vectors: %r" % bad[:5])
			sys.exit(1 if bad or len(got) != len(want) else 0)
		EOF
	done
fi

if [ "$FAILS" -ne 0 ]; then
	echo "FAILED: $FAILS check(s) failed"
	exit 1
fi
echo "PASSED: all Wireshark dissector checks"
exit 0
