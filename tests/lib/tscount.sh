# shellcheck shell=bash
# tscount: the frames of a capture each display filter selects, counted in one tshark pass (-z io,stat,0,...)
# instead of one `tshark -Y FILTER | wc -l` pass per filter.
#
# Usage (sourced):  . "$root/tests/lib/tscount.sh"
#                   read -r all data err < <(tscount 'frame' 'uet.pds.type == 13' -- tshark -n -r F.pcap [OPTIONS])
# Prints one line: the count of each filter in the filters' order, then the number of lines tshark wrote to stderr
# but for its "Running as user" notice (a Lua script error, a bad filter), so that a check of
# `tshark -Y F 2>&1 | grep -v 'Running as user' | wc -l` becomes "count + stderr lines". 'frame' counts every frame.
# A filter must not hold a comma (-z io,stat splits on them). Prints "x" for every value and returns 1 when
# tshark fails or its table does not have one count per filter, so the caller's numeric check fails.
tscount() {
	local filters=() f
	while [ $# -gt 0 ] && [ "$1" != -- ]; do filters+=("$1"); shift; done
	[ "${1:-}" = -- ] && shift
	local z="io,stat,0" bad=0
	for f in "${filters[@]}"; do
		[[ "$f" == *,* ]] && { echo "tscount: a filter with a comma: '$f'" >&2; bad=1; }
		z+=",$f"
	done
	local err out rc counts
	err=$(mktemp) || return 1
	out=$("$@" -q -z "$z" 2>"$err"); rc=$?
	# the table's one row: "| 0.000 <> 0.000 |  N1 | B1 |  N2 | B2 | ... |": the frame counts are every second cell
	counts=$(printf '%s\n' "$out" | awk -F'|' '/<>/ { s = ""; for (i = 3; i < NF; i += 2) if ($i ~ /^ *[0-9]+ *$/) { gsub(/ /, "", $i); s = s (s == "" ? "" : " ") $i }; print s; exit }')
	local nerr
	nerr=$(grep -vc 'Running as user' "$err")
	rm -f "$err"
	local n
	n=$(wc -w <<<"$counts")
	if [ "$rc" -ne 0 ] || [ "$bad" -ne 0 ] || [ "$n" -ne ${#filters[@]} ]; then
		echo "tscount: tshark exit $rc, $n counts for ${#filters[@]} filters" >&2
		printf 'x %.0s' "${filters[@]}"; echo x
		return 1
	fi
	echo "$counts $nerr"
}
