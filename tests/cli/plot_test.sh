#!/usr/bin/env bash
# scripts/plot renders a PNG per view for a bcast CSV (with a provenance
# head and the "incomplete" trailer), a sim CSV and a comparison, without a
# gnuplot warning (a warning there meant a series drawn empty); and nothing
# in a CSV it plots ever runs, however hostile (issue 28).
set -u
usage="usage: plot_test.sh path/to/tests/lib.sh path/to/lanebench SOURCE_ROOT"
source "${1:?$usage}"
shift
use_lanebench "${1:?$usage}"
SRC=${2:?$usage}

# plot WANT_STDERR ARGS...: runs scripts/plot; stderr must be WANT_STDERR.
plot() {
	local want=$1
	shift
	LANEBENCH=$B "$SRC/scripts/plot" "$@" >"$tmp/out" 2>"$tmp/err" || fail "scripts/plot $*: exit $?: $(cat "$tmp/err")"
	[ "$(cat "$tmp/err")" = "$want" ] || fail "scripts/plot $*: stderr: $(cat "$tmp/err")"
}

# is_png FILE...: exists, non-empty, PNG signature.
is_png() {
	for f in "$@"; do
		[ -s "$f" ] && [ "$(head -c 8 "$f" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
			fail "$f is not a PNG: $(ls -l "$f" 2>&1)"
	done
}

# A bcast file as the provenance contract writes it, stopped early.
demo=$SRC/results/example-demo-tcp-p8-k2-50mbit.csv
{
	printf '# format: lanebench-csv 2\n# version: v0.1.0-test\n# transport: tcp\n# ranks: 8\n# lanes: 2\n'
	printf '# lane.0.0: nic=rail0 port=1 speed_bps=50000000 mtu=1500 numa=-1 core=0 addr=10.10.0.1\n'
	head -21 "$demo"
	echo "# lanebench: incomplete after 20 rows: interrupted (SIGINT)"
} >"$tmp/bcast.csv"
plot "plot: note: '$tmp/bcast.csv' is incomplete after 20 rows: interrupted (SIGINT)" "$tmp/bcast.csv" "$tmp/b"
is_png "$tmp/b-time.png" "$tmp/b-bw.png"
grep -q "^plot: $tmp/b-time.png $tmp/b-bw.png$" "$tmp/out" || fail "bcast: output names: $(cat "$tmp/out")"

"$B" sim -a all -p 8,16 -k 2 -m 4K:4M --bw 100mbit -o "$tmp/sim.csv" >/dev/null || fail "sim failed"
plot "" "$tmp/sim.csv"
is_png "$tmp/sim-time.png" "$tmp/sim-bw.png"

plot "" --compare "$demo" "$tmp/bcast.csv" "$tmp/c"
is_png "$tmp/c-compare.png"
grep -q '^summary binary: B/A 1.000 (speed-up 1.00x) over 7 sizes' "$tmp/out" || fail "compare: summary: $(cat "$tmp/out")"

# --- untrusted input: nothing read from a CSV runs (issue 28) ------------------
# Files a reader may be sent: cells and provenance lines that once ran as
# shell (scripts/plot sourced its awk output) or as gnuplot (their text was
# pasted into the script).  Every run happens in the empty directory $wd,
# where the reproducers' "touch ./PWNED_*" land; the table's payloads name
# $wd by its full path, so a command gnuplot runs in the script's own
# scratch directory is caught too.
untrusted=$SRC/tests/data/untrusted/plot-injection
wd=$tmp/wd
o=$tmp/o
mkdir "$wd" "$o"

# plot_in_wd NAME ARGS...: scripts/plot ARGS in $wd: exit 0, an empty
# stderr (a gnuplot error there meant a string broke the script), and
# nothing created in $wd.
plot_in_wd() {
	local name=$1 made
	shift
	(cd "$wd" && LANEBENCH=$B "$SRC/scripts/plot" "$@") >"$tmp/out" 2>"$tmp/err" ||
		fail "$name: scripts/plot $*: exit $?: $(cat "$tmp/err")"
	[ ! -s "$tmp/err" ] || fail "$name: stderr: $(cat "$tmp/err")"
	made=$(ls -A "$wd")
	[ -z "$made" ] || fail "$name: created in the working directory: $made"
	rm -rf "$wd" && mkdir "$wd"
}

for f in evil_label evil_prov evil_gp evil_gp3; do
	plot_in_wd "$f" "$untrusted/$f.csv" "$o/$f"
	is_png "$o/$f-time.png" "$o/$f-bw.png"
done
plot_in_wd B_compare_label --compare "$demo" "$untrusted/B_compare_label.csv" "$o/cmp"
is_png "$o/cmp-compare.png"

# Each string goes into the label, transport and algorithm cells and the
# version line at once, then must read back from the SVG's text as it is,
# control characters (newline, tab) shown as spaces.
hostile=(
	"x'\$(touch $wd/PWNED_dollar)'y"
	"x\`touch $wd/PWNED_backtick\`y \$(touch $wd/PWNED_dollar2)"
	"a'; system 'touch $wd/PWNED_single'; #"
	"a\"; system \"touch $wd/PWNED_double\"; #"
	"two"$'\n'"lines'; system 'touch $wd/PWNED_newline'; #"
	"@ARG0 @x macros; set output '$wd/PWNED_macro'"
	'back\slash \n \" \'"' and a last \\"
	'EOD'
	'>EOD'
	"tab"$'\t'"and"$'\001'"bell"$'\177'
	'%s %d %n formats, commas; semicolons # hash'
	'.*/touch PWNED_sed/e;#'
	'<tag> & entities &amp;'
	'café ünïcode'
)

# csv_cell TEXT: TEXT as one RFC 4180 cell.
csv_cell() { printf '"%s"' "${1//\"/\"\"}"; }
# shown TEXT: TEXT as the plot shows it.
shown() { printf '%s' "$1" | tr '\001-\037\177' ' '; }

# hostile_csv FILE VERSION LABEL TRANSPORT ALGORITHM: a two-row bcast file.
hostile_csv() {
	local file=$1 m
	{
		printf '# version: %s\n' "${2//$'\n'/ }"
		echo "label,transport,algorithm,ranks,lanes,message_bytes,slice_bytes,iterations,time_min_seconds,time_median_seconds,time_p99_seconds,lane_rate_bytes_per_second"
		for m in 4096 8192; do
			echo "$(csv_cell "$3"),$(csv_cell "$4"),$(csv_cell "$5"),8,2,$m,65536,5,0.001,0.002,0.003,6250000"
		done
	} >"$file"
}

# svg_texts FILE: the text of each <text> element of an SVG, one a line.
svg_texts() {
	sed -n 's/.*<text[^>]*>\(.*\)<\/text>.*/\1/p' "$1" |
		sed 's/&lt;/</g; s/&gt;/>/g; s/&quot;/"/g; s/&apos;/'"'"'/g; s/&amp;/\&/g'
}

# has_text FILE exact|prefix|part WANT: a line of FILE is WANT, starts with
# it, or holds it (compared as text; awk -v would read backslashes).
has_text() {
	want=$3 awk -v how="$2" '{ i = index($0, ENVIRON["want"]) }
		how == "exact" && $0 == ENVIRON["want"] || how == "prefix" && i == 1 || how == "part" && i { found = 1 }
		END { exit !found }' "$1"
}

n=0
for h in "${hostile[@]}"; do
	n=$((n + 1))
	s=$(shown "$h")
	hostile_csv "$tmp/h$n.csv" "$h" "$h" "$h" "$h"
	plot_in_wd "hostile $n" "$tmp/h$n.csv" "$o/h$n"
	is_png "$o/h$n-time.png" "$o/h$n-bw.png"
	PLOT_FORMAT=svg plot_in_wd "hostile $n (svg)" "$tmp/h$n.csv" "$o/h$n"
	svg_texts "$o/h$n-time.svg" >"$tmp/texts"
	has_text "$tmp/texts" exact "lanebench bcast ($s): 8 ranks x 2 lanes, lane rate 50 Mbit/s, slice 64K -- time" ||
		fail "hostile $n: the transport in the title: $(tr '\n' '|' <"$tmp/texts")"
	has_text "$tmp/texts" exact "label $s, median of 5 iterations, bars min..p99; lanebench $s" ||
		fail "hostile $n: the label and version in the subtitle: $(tr '\n' '|' <"$tmp/texts")"
	has_text "$tmp/texts" exact "$s" || fail "hostile $n: the algorithm in the key: $(tr '\n' '|' <"$tmp/texts")"
	# compare: the same algorithm in A, the rest of the set-up differs in B
	# (on one line: lanebench compare writes its set-up line as it is).  The
	# set-up line is compare's, which shortens long values; the key starts
	# with the algorithm, as much of it as compare keeps.
	hostile_csv "$tmp/a$n.csv" v1 base tcp "$h"
	hostile_csv "$tmp/b$n.csv" "$h" "${h//$'\n'/ }" "${h//$'\n'/ }" "$h"
	PLOT_FORMAT=svg plot_in_wd "hostile $n (compare)" --compare "$tmp/a$n.csv" "$tmp/b$n.csv" "$o/c$n"
	svg_texts "$o/c$n-compare.svg" >"$tmp/texts"
	"$B" compare -o "$tmp/c.csv" "$tmp/a$n.csv" "$tmp/b$n.csv" >/dev/null
	setup=$(shown "$(sed -n 's/^# setup: //p' "$tmp/c.csv")")
	has_text "$tmp/texts" exact "set-up (A -> B): $setup" && [[ $setup = *"label base -> "* ]] ||
		fail "hostile $n: compare: the set-up line '$setup': $(tr '\n' '|' <"$tmp/texts")"
	has_text "$tmp/texts" prefix "${s:0:30}" || fail "hostile $n: compare: the key: $(tr '\n' '|' <"$tmp/texts")"
done
ok "scripts/plot ran nothing from ${#hostile[@]} hostile strings and the reproducers"

# Bytes that are not UTF-8 show as "?" (cairo would warn on stderr).
hostile_csv "$tmp/u.csv" v1 "a"$'\xff'"b"$'\xc3' tcp chain
PLOT_FORMAT=svg plot_in_wd "not UTF-8" "$tmp/u.csv" "$o/u"
svg_texts "$o/u-time.svg" >"$tmp/texts"
has_text "$tmp/texts" prefix "label a?b?, median" || fail "not UTF-8: $(tr '\n' '|' <"$tmp/texts")"
plot_in_wd "not UTF-8 (png)" "$tmp/u.csv" "$o/u"

# File names are text from outside too: the default output prefix comes from
# the CSV's name, the compare title names both files.
name="n'; system 'touch PWNED_name'; '\`touch PWNED_tick\`\$(touch PWNED_sh)\"x"
mkdir "$o/names"
cp "$tmp/h1.csv" "$o/names/$name.csv"
cp "$tmp/a1.csv" "$o/names/$name-a.csv"
plot_in_wd "hostile file name" "$o/names/$name.csv"
is_png "$o/names/$name-time.png" "$o/names/$name-bw.png"
PLOT_FORMAT=svg plot_in_wd "hostile file names (compare)" --compare "$o/names/$name-a.csv" "$o/names/$name.csv"
svg_texts "$o/names/$name-vs-$name-a-compare.svg" >"$tmp/texts"
has_text "$tmp/texts" exact "lanebench compare: B/A of the median time per size -- A = $name-a.csv, B = $name.csv" ||
	fail "hostile file names: the compare title: $(tr '\n' '|' <"$tmp/texts")"

LANEBENCH=$B "$SRC/scripts/plot" "$tmp/out" >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q "not a lanebench bcast or sim CSV" "$tmp/err" || fail "not a CSV: $(cat "$tmp/err")"

finish plot_test
