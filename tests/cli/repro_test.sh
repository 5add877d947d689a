#!/usr/bin/env bash
# lanebench repro seed000-table3 at CI size (2 platforms of 30 nodes): the
# generator line, one row per Table 3 column with the paper's cell beside
# it, the CSV and JSON, and bad input (unknown experiment, a node count
# without a preset, an option of another experiment) refused with exit 2
# and no file; repro seed004's rows and verdicts; every experiment's table
# ends with a legend naming each of its headings.
set -u
usage="usage: repro_test.sh path/to/tests/lib.sh path/to/lanebench"
# shellcheck source=SCRIPTDIR/../lib.sh
source "${1:?$usage}"
shift
use_lanebench "${1:?$usage}"

"$B" repro seed000-table3 -p 30 -n 2 -q -o "$tmp/t3.csv" --json "$tmp/t3.json" \
	>"$tmp/out" 2>"$tmp/err" || fail "repro failed: $(cat "$tmp/err")"
grep -q '^# 30 nodes: generator: tiers-like seed=1 nodes=30 sw=10 ' "$tmp/out" ||
	fail "no generator line: $(head -2 "$tmp/out")"
for h in topo-prune-simple topo-prune-degree topo-grow lp-grow lp-prune binomial-routed; do
	grep -qE "^ +30 $h " "$tmp/out" || fail "table lacks $h"
done
# Prune Simple's paper cell at 30 nodes is 46 (+-12), Binomial's 11 (+-2).
grep -E '^ +30 topo-prune-simple .* 46 +12 ' "$tmp/out" >/dev/null || fail "prune-simple row: $(grep prune-simple "$tmp/out")"
grep -E '^ +30 binomial-routed .* 11 +2 ' "$tmp/out" >/dev/null || fail "binomial row: $(grep binomial "$tmp/out")"
rows=$(grep -vc '^#' "$tmp/t3.csv")
[ "$rows" -eq 7 ] || fail "CSV: $rows lines without '#', want a header and 6 rows"
head -c1 "$tmp/t3.json" | grep -q '{' || fail "JSON: $(head -c 80 "$tmp/t3.json")"
# Every percentage is in (0, 100]: a tree never beats the LP bound.
awk -F, 'NR > 1 && !/^#/ { if ($5 <= 0 || $5 > 100.0001) bad++ } END { exit bad > 0 }' \
	<(grep -v '^#' "$tmp/t3.csv") || fail "a mean outside (0, 100]"

"$B" repro seed000-table4 -o "$tmp/never" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "no such experiment" "$tmp/err" || fail "unknown experiment: $(cat "$tmp/err")"
"$B" repro seed000-table3 -p 40 -o "$tmp/never" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "'40': no tiers-like preset" "$tmp/err" || fail "40 nodes: $(cat "$tmp/err")"
# An option of another experiment is refused, not ignored: one line naming
# it and the experiment, before anything is computed or written.
use_lanebench "$B" repro
refused() { # EXPERIMENT OPTION-LABEL ARGS...
	expect_status 2 "lanebench repro: $2: not an option of $1 " "$1" "${@:3}" -o "$tmp/never"
	[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "repro $1 ${*:3}: more than one line: $err"
	[ -z "$out" ] || fail "repro $1 ${*:3}: wrote to stdout: $out"
}
refused seed000-table3 --clock --clock v2
refused seed000-table3 --clusters --clusters 5
refused seed002 -p/--nodes -p 65
refused seed002 --lp-phase2 --lp-phase2 sum
refused seed002 --ids --ids hierarchical
refused seed003-fig8 -n/--platforms -n 3
refused seed003-fig8 --seed --seed 7
refused seed003-fig8 --clock --clock v3
refused seed004 --ids --ids hierarchical
refused seed004 --tr-count --tr-count n
refused seed001 -p/--nodes -p 30
refused seed001 --full --full
refused seed002 --tr-count --tr-count n-1
[ ! -e "$tmp/never" ] || fail "a refused run wrote its -o file"

# Seed 004 in the simulator: every broadcast row within 2 % of 2r/(1+r),
# the gather's T_s/T_f growing with p; the CSV has a row per r_s and p.
"$B" repro seed004 -o "$tmp/s4.csv" >"$tmp/out" 2>"$tmp/err" || fail "repro seed004: $(cat "$tmp/err")"
[ "$(grep -c '^bcast .* within' "$tmp/out")" -eq 5 ] || fail "seed004 bcast rows: $(cat "$tmp/out")"
[ "$(grep -c '^gather .* trend' "$tmp/out")" -eq 6 ] || fail "seed004 gather rows: $(cat "$tmp/out")"
awk -F, '!/^#/ && $1 == "bcast" { d = $14 < 0 ? -$14 : $14; if (d > 2) bad++ } END { exit bad > 0 }' \
	"$tmp/s4.csv" || fail "seed004: a broadcast row beyond 2 %: $(cat "$tmp/s4.csv")"
[ "$(grep -vc '^#' "$tmp/s4.csv")" -eq 13 ] || fail "seed004 CSV: want a header and 12 rows"

# unnamed HEADINGS-LINE LEGEND-HEADINGS-FILE: what of the heading line no
# legend entry names (nothing when each heading has one), then "unused: H"
# for an entry naming no heading.  Each entry takes one occurrence, the
# longest first ("dev s" before "dev"), bounded by spaces; text, not regex
# ("% of LP", "sim/hbsp").
unnamed() {
	awk '{ print length($0) "\t" $0 }' "$2" | sort -rn | cut -f2- |
		awk -v line=" $1 " '
		function take(h,   at) {
			if (!(at = index(line, " " h " ")))
				return ""
			return substr(line, 1, at) substr(line, at + 1 + length(h))
		}
		{ rest = take($0); if (rest == "") print "unused: " $0; else line = rest }
		END { gsub(/ +/, " ", line); if (line != " ") print "unnamed:" line }'
}

# legend_check NAME FILE: FILE (a repro's stdout) ends with a legend, after
# a blank line, that names every heading of its table and no other.
legend_check() {
	local heading
	heading=$(grep -v '^#' "$2" | head -1)
	# the entries' headings, not the empty marker's
	awk 'p && /^  [^ ]/ { sub(/^  /, ""); sub(/  .*/, ""); if ($0 != "-") print }
	     /^columns:$/ { p = 1 }' \
		"$2" >"$tmp/named"
	grep -B1 -x 'columns:' "$2" | head -1 | grep -qx '' ||
		fail "$1: no blank line above the legend: $(tail -5 "$2")"
	tail -1 "$2" | grep -qE '^  -  +no value' || fail "$1: the output does not end with the legend: $(tail -3 "$2")"
	local left
	left=$(unnamed "$heading" "$tmp/named")
	[ -z "$left" ] && ok "$1: a legend names its $(wc -l <"$tmp/named") headings" ||
		fail "$1: legend and headings differ: $left (headings: $heading)"
}
for e in "seed000-table3 -p 30 -n 1 -q" seed001 "seed002 -n 2 --clusters 10 -q" seed003-fig8 seed004; do
	# shellcheck disable=SC2086 # the experiment and its options
	"$B" repro $e >"$tmp/legend.out" 2>"$tmp/err" || fail "repro $e: $(cat "$tmp/err")"
	legend_check "repro ${e%% *}" "$tmp/legend.out"
done

finish repro
