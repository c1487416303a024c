#!/usr/bin/env bash
# configs/impair.yaml (issue 3): a fixture trims frames 10, 11 and 20 and drops frame 30 of a 1 MiB message.
# The capture decodes cleanly with scripts/wireshark/uet.lua and shows 3 trimmed packets, 3 NACKs with their codes,
# 4 retransmissions marked RETX and TRIMMABLE_RTX (DSCP 10); the summary counts them; the message completes.
# Usage: test_impair.sh UETEMU REPO_ROOT
set -uo pipefail
uetemu=$(realpath "$1") root=$(realpath "$2")
command -v tshark >/dev/null || { echo "SKIP: tshark not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
check() { if eval "$2"; then echo "ok   $1"; pass=$((pass+1)); else echo "FAIL $1"; fail=$((fail+1)); fi; }

"$uetemu" run "$root/configs/impair.yaml" --out "$tmp" --quiet >/dev/null || { echo "FAIL uetemu run"; exit 1; }
ts=(tshark -n -o udp.try_heuristic_first:TRUE -X "lua_script:$root/scripts/wireshark/uet.lua" -r "$tmp/impair.pcap")
count() { "${ts[@]}" -Y "$1" 2>/dev/null | wc -l; }
total=$(count "frame"); uet=$(count uet)
check "every frame dissected as uet ($uet of $total)" '[ "$uet" -eq "$total" ] && [ "$total" -gt 500 ]'
# 256 data frames (252 delivered whole + 4 retransmissions; the dropped frame 30 never reaches the capture) + 3 trimmed
# + 3 NACKs + 256 ACKs (one per whole data frame) + 1 base-RTT probe + its ACK
check "520 frames: 256 data, 3 trimmed, 3 NACKs, 256 ACKs, probe, probe ACK ($total)" '[ "$total" -eq 520 ]'
bad=$(count '_ws.malformed || _ws.expert.severity >= error || _ws.lua.error')
check "no malformed frame ($bad)" '[ "$bad" -eq 0 ]'
tr=$(count 'uet.trimmed'); tr16=$(count 'uet.trimmed && ip.dsfield.dscp == 16'); tr18=$(count 'uet.trimmed && ip.dsfield.dscp == 18')
check "3 trimmed packets: 2 TRIMMED (16), 1 TRIMMED_LASTHOP (18) ($tr: $tr16, $tr18)" '[ "$tr" -eq 3 ] && [ "$tr16" -eq 2 ] && [ "$tr18" -eq 1 ]'
n1=$(count 'uet.pds.type == 10 && uet.pds.nack_code == 1'); n2=$(count 'uet.pds.type == 10 && uet.pds.nack_code == 2')
check "one NACK per trim: 2 UET_TRIMMED, 1 UET_TRIMMED_LASTHOP ($n1, $n2)" '[ "$n1" -eq 2 ] && [ "$n2" -eq 1 ]'
rtx=$(count 'uet.pds.type == 13 && uet.pds.flags.retx == 1 && ip.dsfield.dscp == 10')
check "4 retransmissions, RETX and TRIMMABLE_RTX ($rtx)" '[ "$rtx" -eq 4 ]'
data=$(count 'uet.pds.type == 13 && !uet.trimmed && uet.pds.flags.retx == 0')
check "252 first transmissions delivered whole (256 - 3 trimmed - 1 dropped) ($data)" '[ "$data" -eq 252 ]'
read -r done trims nacks rtxs tos drops < <(python3 -c '
import json,sys; s=json.load(open(sys.argv[1])); c=s["counters"]
print(s["messages"]["completed"], c["trims"], c["nacks"], c["retransmits"], c["timeouts"], c["drops"])' "$tmp/summary.json")
check "summary: completed 1, trims 3, nacks 3, retransmits 4, timeouts 1, drops 1 ($done $trims $nacks $rtxs $tos $drops)" \
	'[ "$done $trims $nacks $rtxs $tos $drops" = "1 3 3 4 1 1" ]'
read -r ldrops ltrims < <(python3 -c '
import json,sys; l=json.load(open(sys.argv[1]))["links"][0]; print(l["ab"]["drops"], l["ab"]["trims"])' "$tmp/summary.json")
check "summary links: l0 host0->host1 dropped 1, trimmed 3 ($ldrops, $ltrims)" '[ "$ldrops $ltrims" = "1 3" ]'
echo "test_impair: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
