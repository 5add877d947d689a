#!/usr/bin/env bash
# lanebench check's HTML page (report/check_html.c), rendered by lanebench
# report from records: tests/data/check/links.csv (a real 4-rank check
# record of the emulated cluster, a slow rail1 on host 2, with link rows
# added by hand in the agreed format, one pair left out, a WARN port and a
# grown drop counter), the same record with markup in its host names,
# reasons, firmware and counters, a made-up 64-rank record,
# tests/data/check/shift.csv (a real --pattern shift record of 8 hosts x 2
# rails: rank 6's rail0 port at 50 Mbit/s, its 14 links WARN; link 1->5 on
# rail1 slow) and tests/data/check/burnin.csv (a real burn-in, 4 hosts x 2
# rails, --duration 8s --interval 2s: host 3's rail1 sent at 30 Mbit/s in
# intervals 2 and 3, as tests/cluster/check_burnin_test.sh makes it) and
# tests/data/check/lossy.csv (a real check of 4 hosts x 2 rails, host 2's
# rail1 losing 2 % of what it receives: `scripts/cluster loss 2 1 20`; its
# partners' links into it WARN, pointing at its loss).
#   check_html_test.sh path/to/tests/lib.sh LANEBENCH DATA_DIR page|browser
#     page:    each page parses with every element closed in order, refers
#              to nothing outside itself, names every FAIL and WARN row
#              with its cause and frames every failing link in its matrix,
#              a slow port's links folded under its row; the burn-in
#              record's page shows every port's intervals, the low ones
#              red; the crafted record's texts are text, never markup; a
#              record as its own page refused; a rank beyond any job cheap
#     browser: Debian's headless chromium renders the pages: screenshots
#              that are no blank page (skip, 77, without chromium)
set -u
usage="usage: check_html_test.sh path/to/tests/lib.sh LANEBENCH DATA_DIR page|browser"
source "${1:?$usage}"
shift
use_lanebench "${1:?$usage}" report
data=${2:?$usage}
mode=${3:?$usage}
checker=$(dirname "$(realpath "${BASH_SOURCE[0]}")")/check_html.py

render() { # RECORD PAGE
	expect_ok --html "$2" "$1"
	[ "$out" = "report: $2" ] || fail "report $1: printed '$out'"
}

cp "$data/links.csv" "$tmp/links.csv"
render "$tmp/links.csv" "$tmp/links.html"
python3 "$checker" craft "$tmp/links.csv" "$tmp/crafted.csv" || fail "craft a record"
render "$tmp/crafted.csv" "$tmp/crafted.html"
python3 "$checker" synth 64 2 "$tmp/r64.csv" || fail "synth a 64-rank record"
render "$tmp/r64.csv" "$tmp/r64.html"
cp "$data/shift.csv" "$data/burnin.csv" "$data/lossy.csv" "$tmp/"
render "$tmp/shift.csv" "$tmp/shift.html"
render "$tmp/lossy.csv" "$tmp/lossy.html"
render "$tmp/burnin.csv" "$tmp/burnin.html"

if [ "$mode" = page ]; then
	check "links.csv's page" python3 "$checker" page "$tmp/links.html" "$tmp/links.csv"
	echo "$check_out"
	check "the crafted record's page" python3 "$checker" page "$tmp/crafted.html" "$tmp/crafted.csv"
	check "the crafted texts are text" python3 "$checker" escaped "$tmp/crafted.html"
	echo "$check_out"
	check "the 64-rank page" python3 "$checker" page "$tmp/r64.html" "$tmp/r64.csv"
	echo "$check_out"
	check "the shift record's page" python3 "$checker" page "$tmp/shift.html" "$tmp/shift.csv"
	echo "$check_out"
	check "the lossy record's page" python3 "$checker" page "$tmp/lossy.html" "$tmp/lossy.csv"
	echo "$check_out"
	check "the burn-in record's page" python3 "$checker" page "$tmp/burnin.html" "$tmp/burnin.csv"
	check "the burn-in section" python3 "$checker" burnin "$tmp/burnin.html" "$tmp/burnin.csv"
	echo "$check_out"
	# no burn-in, no section
	! grep -q 'id="burnin"' "$tmp/shift.html" && ok "no Burn-in section without intervals" ||
		fail "a Burn-in section in a record without intervals"
	# a fact no port reported is named, not a column of "-"; one port's is a column
	grep -q 'No port reported its speed, width, firmware, PCIe link, NUMA.' "$tmp/shift.html" &&
		! grep -q '<th>firmware</th>' "$tmp/shift.html" && grep -q '<th>firmware</th>' "$tmp/crafted.html" &&
		ok "inventory: facts no port reported named, not drawn" ||
		fail "inventory columns: $(grep -o 'No port reported[^<]*' "$tmp/shift.html")"
	# collectives' sizes as check prints them (report/table.h)
	grep -q '<td>bcast</td><td>chain</td><td class="num">64 KiB</td>' "$tmp/shift.html" &&
		ok "a collective's size: 64 KiB" ||
		fail "collective sizes: $(grep -o '<td>bcast</td><td>chain</td><td class="num">[^<]*' "$tmp/shift.html")"
	# the matrix keeps its size at 64 ranks: 12 px cells, 768 px a side
	# (and the labels beside it)
	grep -q '<svg role="img" width="842" height="827"' "$tmp/r64.html" &&
		ok "64 ranks: a matrix of 768 px a side" ||
		fail "64 ranks: matrix size $(grep -o '<svg role="img" width="[0-9]*" height="[0-9]*"' "$tmp/r64.html" | sort -u)"
	# the record's own name by default, beside it; not a check record: 2
	expect_ok "$tmp/links.csv"
	[ -s "$tmp/links.html" ] && [ "$out" = "report: $tmp/links.html" ] &&
		ok "the page beside the record by default" || fail "default page: $out"
	printf 'a,b\n1,2\n' >"$tmp/other.csv"
	expect_status 2 "not a check record" --html "$tmp/other.html" "$tmp/other.csv"
	[ ! -e "$tmp/other.html" ] && ok "no page for another CSV" || fail "a page for another CSV"
	expect_status 2 "no-such.csv" "$tmp/no-such.csv"
	# the record itself as the page: refused, the record kept
	sum=$(cksum <"$tmp/links.csv")
	expect_status 2 "is the record itself" --html "$tmp/links.csv" "$tmp/links.csv"
	[ "$(cksum <"$tmp/links.csv")" = "$sum" ] && ok "the record is not replaced by its page" ||
		fail "--html RECORD RECORD changed the record"
	# a crafted rank and lane far beyond any job: no index of ranks x lanes
	# sized by them (1,048,575 x 1,023 was 8.6 GB); 1 GB of address space
	# is plenty for the page
	awk -F, 'BEGIN { OFS = "," } NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }
		NR > 1 && $c["phase"] == "port" && !done { $c["rank"] = 1048575; $c["lane"] = 1023; done = 1 }
		{ print }' "$tmp/links.csv" >"$tmp/far.csv"
	# (ASan maps terabytes of shadow: there its allocator's own bound, 1 GB
	# an allocation, stands in for the address-space limit)
	if grep -q __asan_init "${LB[0]}"; then
		limit=(env ASAN_OPTIONS=max_allocation_size_mb=1024:allocator_may_return_null=1)
	else
		limit=(sh -c 'ulimit -v 1048576 && exec "$@"' limit)
	fi
	"${limit[@]}" "${LB[@]}" --html "$tmp/far.html" "$tmp/far.csv" >/dev/null 2>&1 &&
		[ -s "$tmp/far.html" ] && ok "a rank and lane beyond any job: rendered in 1 GB" ||
		fail "a record with rank 1048575, lane 1023 failed under 1 GB"
	finish check-html
fi

chromium=$(command -v chromium || command -v chromium-browser) || {
	echo "SKIP: no chromium (scripts/deps installs it)"
	exit 77
}
shot() { # PAGE PNG [HEIGHT]
	# --no-sandbox: as root the sandbox refuses to start; a profile of its
	# own in $tmp, so nothing is left in the user's home
	timeout 60 "$chromium" --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--user-data-dir="$tmp/chromium" --screenshot="$2" --window-size="1280,${3:-2000}" \
		"file://$1" >"$tmp/chromium.log" 2>&1
	[ -s "$2" ] || { fail "chromium wrote no screenshot of $1: $(tail -3 "$tmp/chromium.log")"; return 1; }
	check "screenshot of $(basename "$1")" python3 "$checker" png "$2"
	echo "$check_out"
}
shot "$tmp/links.html" "$tmp/links.png"
shot "$tmp/r64.html" "$tmp/r64.png"
shot "$tmp/shift.html" "$tmp/shift.png"
shot "$tmp/burnin.html" "$tmp/burnin.png"
# the failing links are drawn where the page says: the DOM chromium built
# holds every framed cell
timeout 60 "$chromium" --headless --no-sandbox --disable-gpu --user-data-dir="$tmp/chromium" \
	--dump-dom "file://$tmp/links.html" >"$tmp/dom.html" 2>/dev/null
n=$(grep -o 'class="link-fail"' "$tmp/dom.html" | wc -l)
[ "$n" = 6 ] && ok "chromium's DOM: 6 framed failing links" || fail "chromium's DOM: $n framed failing links, want 6"
finish check-html-browser
