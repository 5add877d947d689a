#!/usr/bin/env bash
# scripts/benchlib.py, the bench scripts' analysis, on crafted CSVs:
# regret pools each configuration over the rounds (files) by the median,
# and sets auto against the best of the other rounds in its own round,
# keys an algorithm's first row at a size as its model slice ("ALGO/auto")
# unless that is the whole message, counts auto's rows at fixed slices only
# where they run its own configuration,
# and flags a miss; blank replaces a column's values and nothing else;
# link-figures prints a check CSV's link rows, and names a column a file of
# another kind lacks (no traceback).
set -u
usage="usage: benchlib_test.sh path/to/tests/lib.sh path/to/lanebench SOURCE_ROOT"
source "${1:?$usage}"
shift
SRC=${2:?$usage}
lib=$SRC/scripts/benchlib.py

head='# format: lanebench-csv 2
algorithm,message_bytes,slice_bytes,time_median_seconds,auto_source'
# round 0: auto first (its fixed-slice row must not count), round 1: auto last
printf '%s\n' "$head" 'binomial,1048576,65536,0.0012,table' 'binomial,1048576,32768,0.0001,table' \
	'chain,1048576,65536,0.0010,' 'chain,1048576,32768,0.00115,' \
	'binomial,8,8,0.0003,table' 'chain,8,8,0.0004,' 'chain,8,33554432,0.0002,' \
	'binomial,8,33554432,0.0005,table' >"$tmp/r0.csv"
printf '%s\n' "$head" 'chain,1048576,131072,0.0012,' 'chain,1048576,32768,0.00115,' \
	'binomial,1048576,65536,0.0014,table' 'binomial,1048576,32768,0.0001,table' \
	'chain,8,8,0.0006,' 'chain,8,33554432,0.0002,' 'binomial,8,8,0.0003,table' >"$tmp/r1.csv"
if python3 "$lib" regret tst 524288 "$tmp/r0.csv" "$tmp/r1.csv" >"$tmp/out" 2>"$tmp/err"; then
	ok "regret: exit 0"
else
	fail "regret: exit $?: $(cat "$tmp/err")"
fi
# 1 MiB: auto's median 1.3 ms (1.2, 1.4) against chain at its model slice's
# 1.1 ms (1.0, 1.2; at 32 KiB 1.15), not the 0.1 ms of auto's fixed-slice rows: 18.2 %.
# Held out: round 0's best chosen on round 1 (chain 32 KiB), 1.2 / 1.15;
# round 1's on round 0 (chain/auto), 1.4 / 1.2; the median 10.5 %, over
# the 5 % target.  8 B: chain in one slice pooled (0.4, 0.2, 0.6, 0.2: 0.3 ms),
# auto 0.3 ms (0.3, and at the 32 MiB slice its own configuration again,
# 0.5; 0.3): no regret; held out 0.4 / 0.3 and 0.3 / 0.4: 4.2 %.
if awk '$2 == 1048576 { big = ($3 == "18.2%" && $4 == "10.5%" && $6 == "chain/auto" && $7 == "binomial/65536" && $NF == "MISSED") }
	$2 == 8 { small = ($3 == "0.0%" && $4 == "4.2%" && $6 == "chain/8" && $(NF - 1) != "MISSED" && $NF != "MISSED") }
	END { exit !(big && small) }' "$tmp/out"; then
	ok "regret: pooled medians, held-out paired rounds, the model slice keyed apart, auto's fixed-slice rows its own configuration's only, the miss flagged"
else
	fail "regret: $(cat "$tmp/out")"
fi
# One file whose rows carry each round's label (bench-tune's kept CSV): the
# same rounds, the same table.
{
	printf '%s\n' '# format: lanebench-csv 2' "label,${head#*$'\n'}"
	for r in 0 1; do grep -v -e '^#' -e '^algorithm' "$tmp/r$r.csv" | sed "s/^/r$r,/"; done
} >"$tmp/both.csv"
if python3 "$lib" regret tst 524288 "$tmp/both.csv" | cmp -s - "$tmp/out"; then
	ok "regret: one file's rounds told apart by their labels"
else
	fail "regret of one labelled file: $(python3 "$lib" regret tst 524288 "$tmp/both.csv" 2>&1)"
fi
printf '%s\n' '# format: lanebench-csv 2' 'nodes,lp_seconds_mean,verdict' '30,0.66,within' '65,"5,6",outside' >"$tmp/b.csv"
python3 "$lib" blank "$tmp/b.csv" lp_seconds_mean
if [ "$(cat "$tmp/b.csv")" = "$(printf '%s\n' '# format: lanebench-csv 2' 'nodes,lp_seconds_mean,verdict' '30,-,within' '65,-,outside')" ]; then
	ok "blank: the column's values, quoted ones too, and nothing else"
else
	fail "blank: $(cat "$tmp/b.csv")"
fi
# link-figures: every link row of a check CSV, rate in Mbit/s and latency
# in us, "-" where a row has none (shift); port rows left out.
printf '%s\n' '# format: lanebench-csv 2' 'phase,lane,rank,peer,tx_bytes_per_second,latency_seconds' \
	'port,0,0,,1.25e8,2e-05' 'link,0,0,1,1.25e8,2e-05' 'link,1,1,0,6.25e7,' >"$tmp/chk.csv"
if [ "$(python3 "$lib" link-figures "$tmp/chk.csv")" = "each pair's best, Mbit/s/us: 0:0->1=1000/20 1:1->0=500/-" ]; then
	ok "link-figures: each link row's rate and latency, '-' for none"
else
	fail "link-figures: $(python3 "$lib" link-figures "$tmp/chk.csv" 2>&1)"
fi
# a file of another kind, or none: one line naming what is missing
printf '%s\n' 'size,seconds' '8,1e-05' >"$tmp/other.csv"
python3 "$lib" link-figures "$tmp/other.csv" >/dev/null 2>"$tmp/err"
[ $? = 1 ] && [ "$(cat "$tmp/err")" = "benchlib.py link-figures: no column 'phase' in $tmp/other.csv" ] &&
	ok "link-figures on another CSV: $(cat "$tmp/err")" || fail "link-figures on another CSV: $(cat "$tmp/err")"
python3 "$lib" link-figures "$tmp/none.csv" >/dev/null 2>"$tmp/err"
[ $? = 1 ] && grep -q "^benchlib.py link-figures: .*No such file or directory: '$tmp/none.csv'$" "$tmp/err" &&
	ok "link-figures on no file: $(cat "$tmp/err")" || fail "link-figures on no file: $(cat "$tmp/err")"
expect_usage() {
	python3 "$lib" "$@" >/dev/null 2>"$tmp/err"
	[ $? != 0 ] && grep -q usage "$tmp/err" && ok "benchlib $*: usage, non-zero" ||
		fail "benchlib $*: $(cat "$tmp/err")"
}
expect_usage regret tst
expect_usage nonsense
finish benchlib_test
