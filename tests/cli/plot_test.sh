#!/usr/bin/env bash
# scripts/plot renders a PNG per view for a bcast CSV (with a provenance
# head and the "incomplete" trailer), a sim CSV, a p2p and a check record
# and a comparison, without a gnuplot warning (a warning there meant a
# series drawn empty); a plot reads (issue 30): one key entry per algorithm
# whatever slices auto chose, at most 8 in all, units a reader uses, the
# bound only where the run had one; and nothing in a CSV it plots ever
# runs, however hostile (issue 28).
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

# key_entries SVG: the entries of gnuplot's key, one a line: a plot's group
# whose first element is its title's text (a plot without a title starts
# with its path or points).
key_entries() {
	awk '/id="gnuplot_plot_[0-9]+"/ { match($0, /gnuplot_plot_[0-9]+/); id = substr($0, RSTART, RLENGTH); look = 1; next }
		look && /<text/ { if (!(id in seen)) { seen[id] = 1; t = $0; sub(/^[^>]*>/, "", t); sub(/<.*/, "", t); print t }; look = 0; next }
		look && /<path|<use|<image/ { look = 0 }' "$1"
}

# A bcast file as the provenance contract writes it, stopped early: an
# older demo's rows (a fixed 64 KiB slice).
old_demo=$SRC/tests/data/demo-tcp-p8-k2-50mbit.csv
{
	printf '# format: lanebench-csv 2\n# version: v0.1.0-test\n# transport: tcp\n# ranks: 8\n# lanes: 2\n'
	printf '# lane.0.0: nic=rail0 port=1 speed_bps=50000000 mtu=1500 numa=-1 core=0 addr=10.10.0.1\n'
	head -21 "$old_demo"
	echo "# lanebench: incomplete after 20 rows: interrupted (SIGINT)"
} >"$tmp/bcast.csv"
plot "plot: note: '$tmp/bcast.csv' is incomplete after 20 rows: interrupted (SIGINT)" "$tmp/bcast.csv" "$tmp/b"
is_png "$tmp/b-time.png" "$tmp/b-bw.png"
grep -q "^plot: $tmp/b-time.png $tmp/b-bw.png$" "$tmp/out" || fail "bcast: output names: $(cat "$tmp/out")"
PLOT_FORMAT=svg plot "plot: note: '$tmp/bcast.csv' is incomplete after 20 rows: interrupted (SIGINT)" "$tmp/bcast.csv" "$tmp/b"
svg_texts "$tmp/b-time.svg" >"$tmp/texts"
has_text "$tmp/texts" exact "INCOMPLETE: incomplete after 20 rows: interrupted (SIGINT)" ||
	fail "bcast: the trailer not under the title: $(tr '\n' '|' <"$tmp/texts")"

# The committed example: today's demo, every slice chosen by auto (a dozen
# of them).  One key entry per algorithm, then "dashed: predicted" and the
# bound: 8; rates in Mbit/s or Gbit/s, times in us/ms/s, sizes in KiB/MiB,
# no number with an exponent anywhere.
demo=$SRC/results/example-demo-tcp-p8-k2-700mbit.csv
PLOT_FORMAT=svg plot "" "$demo" "$tmp/d"
for v in time bw; do
	key_entries "$tmp/d-$v.svg" >"$tmp/keys"
	[ "$(wc -l <"$tmp/keys")" -le 8 ] || fail "demo $v: $(wc -l <"$tmp/keys") key entries: $(tr '\n' '|' <"$tmp/keys")"
	for want in chain binary binomial vandegeijn multilane klane "dashed: predicted (sim, same colour)" "bound: 2 lanes x 700 Mbit/s"; do
		grep -qxF "$want" "$tmp/keys" || fail "demo $v: no key entry '$want': $(tr '\n' '|' <"$tmp/keys")"
	done
	svg_texts "$tmp/d-$v.svg" >"$tmp/texts"
	has_text "$tmp/texts" prefix "lanebench bcast (tcp): 8 ranks x 2 lanes, lane rate 700 Mbit/s, slice auto (1 KiB..2 MiB) -- " ||
		fail "demo $v: title: $(tr '\n' '|' <"$tmp/texts")"
	for want in "4 KiB" "1 MiB" "16 MiB" "One line per algorithm; slice auto: per size the slice the run chose (the row it reported)." \
		"Bound (black dotted): k x B = 2 lanes x 700 Mbit/s, --lane-rate; time M / (kB)."; do
		has_text "$tmp/texts" exact "$want" || fail "demo $v: no '$want': $(tr '\n' '|' <"$tmp/texts")"
	done
	! grep -E '[0-9]e[-+]?[0-9]' "$tmp/texts" || fail "demo $v: a number with an exponent"
done
has_text "$tmp/texts" exact "algorithm bandwidth M / time (Gbit/s), median; bars min..p99" || fail "demo bw: the unit: $(tr '\n' '|' <"$tmp/texts")"
svg_texts "$tmp/d-time.svg" >"$tmp/texts"
for want in "100 us" "1 ms" "100 ms"; do has_text "$tmp/texts" exact "$want" || fail "demo time: no tick '$want'"; done
# The emulated link's burst: medians above k x B, circled and explained.
has_text "$tmp/texts" prefix "Circled: " && has_text "$tmp/texts" part "tbf passes 64 KiB + 1 ms of traffic" ||
	fail "demo: the medians beyond the bound not explained: $(tr '\n' '|' <"$tmp/texts")"

# Several slices swept per size: still one line per algorithm, the fastest
# row, said in the caption.
"$B" sim -a multilane,chain -p 8 -k 2 -m 64K:4M -s 4K,64K,1M --bw 10gbit -o "$tmp/slices.csv" >/dev/null || fail "sim -s failed"
PLOT_FORMAT=svg plot "" "$tmp/slices.csv"
key_entries "$tmp/slices-bw.svg" >"$tmp/keys"
[ "$(tr '\n' '|' <"$tmp/keys")" = "multilane|chain|bound: 2 lanes x 10 Gbit/s|" ] || fail "slices: key: $(tr '\n' '|' <"$tmp/keys")"
svg_texts "$tmp/slices-bw.svg" >"$tmp/texts"
has_text "$tmp/texts" exact "One line per algorithm: of the 3 slices swept per size, the fastest (least median time)." &&
	has_text "$tmp/texts" part ", slice 4 KiB,64 KiB,1 MiB, alpha 5 us -- bandwidth" ||
	fail "slices: caption or title: $(tr '\n' '|' <"$tmp/texts")"

# More algorithms than the key holds: pages of 7 lines (and the bound).
"$B" sim --platform "$SRC/tests/data/seed000_vector1.platform" -m 4K:64K -o "$tmp/many.csv" \
	-a chain,binary,binomial,vandegeijn,topo-prune-simple,topo-prune-degree,topo-grow,lp-grow,lp-prune,mp-grow,binomial-routed >/dev/null ||
	fail "sim of 11 algorithms failed"
PLOT_FORMAT=svg plot "" "$tmp/many.csv"
grep -qx "plot: $tmp/many-time.svg $tmp/many-bw.svg $tmp/many-time-2.svg $tmp/many-bw-2.svg" "$tmp/out" || fail "pages: $(cat "$tmp/out")"
for f in many-time many-time-2; do
	key_entries "$tmp/$f.svg" >"$tmp/keys"
	[ "$(wc -l <"$tmp/keys")" -le 8 ] || fail "$f: $(wc -l <"$tmp/keys") key entries"
done
key_entries "$tmp/many-bw-2.svg" | grep -qx binomial-routed || fail "pages: the last algorithm not on page 2"
svg_texts "$tmp/many-bw-2.svg" | grep -q ' -- bandwidth -- page 2 of 2: lines 8-11 of 11$' || fail "pages: page 2 not said"

"$B" sim -a all -p 8,16 -k 2 -m 4K:4M --bw 100mbit -o "$tmp/sim.csv" >/dev/null || fail "sim failed"
plot "" "$tmp/sim.csv"
is_png "$tmp/sim-time.png" "$tmp/sim-bw.png"

# A platform sim: no lane rate, so no "--bw" bound (its unused default was
# once drawn as "lane 1e+04 Mbit/s"): the LP bound, or none and said.
platform=$SRC/tests/data/seed000_vector1.platform
"$B" sim --platform "$platform" -a all -m 4K:1M -o "$tmp/plat.csv" >/dev/null || fail "sim --platform failed"
PLOT_FORMAT=svg plot "" "$tmp/plat.csv"
key_entries "$tmp/plat-bw.svg" >"$tmp/keys"
grep -qxF "bound: LP steady state TP*" "$tmp/keys" || fail "platform: no LP bound: $(tr '\n' '|' <"$tmp/keys")"
svg_texts "$tmp/plat-bw.svg" >"$tmp/texts"
! grep -q "Gbit/s\|10000" "$tmp/texts" || fail "platform: the unused --bw shown: $(tr '\n' '|' <"$tmp/texts")"
"$B" sim --platform "$platform" --no-lp -a all -m 4K:1M -o "$tmp/plat.csv" >/dev/null || fail "sim --platform --no-lp failed"
PLOT_FORMAT=svg plot "" "$tmp/plat.csv"
for v in time bw; do
	key_entries "$tmp/plat-$v.svg" >"$tmp/keys"
	! grep -q '^bound' "$tmp/keys" || fail "platform --no-lp $v: a bound: $(tr '\n' '|' <"$tmp/keys")"
	svg_texts "$tmp/plat-$v.svg" >"$tmp/texts"
	has_text "$tmp/texts" prefix "No bound line: the platform has no one lane rate" ||
		fail "platform --no-lp $v: no bound not said: $(tr '\n' '|' <"$tmp/texts")"
done

# p2p and check records from the emulated cluster (4 hosts x 2 rails at
# 200 Mbit/s): their own views.
data=$SRC/tests/data/plot
PLOT_FORMAT=svg plot "" "$data/p2p-4x2-200mbit.csv" "$tmp/p"
key_entries "$tmp/p-bw.svg" >"$tmp/keys"
[ "$(tr '\n' '|' <"$tmp/keys")" = "lane 0 (rail0)|lane 1 (rail1)|bound: lane rate 200 Mbit/s|" ] || fail "p2p: key: $(tr '\n' '|' <"$tmp/keys")"
svg_texts "$tmp/p-lat.svg" >"$tmp/texts"
has_text "$tmp/texts" prefix "lanebench p2p (tcp): ranks 0 and 1 (h4p-h0, h4p-h1), 2 lanes measured in turn, uni, lane rate 200 Mbit/s -- latency" &&
	has_text "$tmp/texts" exact "100 us" || fail "p2p: title or ticks: $(tr '\n' '|' <"$tmp/texts")"
plot "" "$data/p2p-4x2-200mbit.csv" "$tmp/p"
is_png "$tmp/p-lat.png" "$tmp/p-bw.png"

PLOT_FORMAT=svg plot "" "$data/check-4x2-200mbit-fail.csv" "$tmp/k"
key_entries "$tmp/k-ports.svg" >"$tmp/keys"
[ "$(tr '\n' '|' <"$tmp/keys")" = "PASS|FAIL|solid: tx, hatched: rx|expected rate|fails below (--min-bw)|" ] || fail "check: key: $(tr '\n' '|' <"$tmp/keys")"
svg_texts "$tmp/k-ports.svg" >"$tmp/texts"
has_text "$tmp/texts" exact "h4p-h0 rail0" && has_text "$tmp/texts" prefix "FAIL h4p-h" ||
	fail "check: port names or reasons: $(tr '\n' '|' <"$tmp/texts")"
plot "" "$data/check-4x2-200mbit-fail.csv" "$tmp/k"
is_png "$tmp/k-ports.png"

# compare: one line per algorithm, whatever slices auto chose in A and B.
PLOT_FORMAT=svg plot "" --compare "$old_demo" "$tmp/bcast.csv" "$tmp/c"
svg_texts "$tmp/c-compare.svg" >"$tmp/texts"
has_text "$tmp/texts" part "binary: geometric mean B/A 1.000 (speed-up 1.00x) over 7 sizes: 0 faster, 0 slower, 7 within noise" ||
	fail "compare: summary: $(tr '\n' '|' <"$tmp/texts")"
plot "" --compare "$old_demo" "$tmp/bcast.csv" "$tmp/c"
is_png "$tmp/c-compare.png"
PLOT_FORMAT=svg plot "" --compare "$demo" "$demo" "$tmp/dd"
[ "$(grep -c '^summary [a-z]*: geometric mean B/A 1.000 (speed-up 1.00x) over 13 sizes' "$tmp/out")" = 6 ] ||
	fail "compare of the demo: a summary per algorithm: $(cat "$tmp/out")"
key_entries "$tmp/dd-compare.svg" >"$tmp/keys"
[ "$(wc -l <"$tmp/keys")" = 7 ] || fail "compare of the demo: $(wc -l <"$tmp/keys") key entries: $(tr '\n' '|' <"$tmp/keys")"

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
plot_in_wd B_compare_label --compare "$old_demo" "$untrusted/B_compare_label.csv" "$o/cmp"
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

# hostile_p2p FILE TEXT: a two-row p2p file whose transport and lane name
# are TEXT.
hostile_p2p() {
	{
		printf '# command: lanebench p2p %s\n' "${2//$'\n'/ }"
		echo "transport,lane,lane_name,message_bytes,iterations,window,latency_min_seconds,latency_median_seconds,latency_p99_seconds,bandwidth_median_bytes_per_second,bandwidth_max_bytes_per_second,direction,lane_rate_bytes_per_second"
		echo "$(csv_cell "$2"),0,$(csv_cell "$2"),8,10,16,0.00001,0.000012,0.00002,100000,120000,uni,25000000"
		echo "$(csv_cell "$2"),0,$(csv_cell "$2"),4096,10,16,0.0002,0.00021,0.0003,24000000,30000000,uni,25000000"
	} >"$1"
}

# hostile_check FILE TEXT: a check record of two ports, one failed, whose
# host, NIC and reason are TEXT.
hostile_check() {
	{
		printf '# command: lanebench check %s\n# option.min-bw: %s\n' "${2//$'\n'/ }" "${2//$'\n'/ }"
		echo "phase,transport,rank,host,lane,nic,tx_bytes_per_second,rx_bytes_per_second,expected_bytes_per_second,expected_from,verdict,reason"
		echo "port,tcp,0,$(csv_cell "$2"),0,$(csv_cell "$2"),24000000,24000000,25000000,$(csv_cell "$2"),PASS,"
		echo "port,tcp,1,$(csv_cell "$2"),0,$(csv_cell "$2"),12000000,24000000,25000000,$(csv_cell "$2"),FAIL,$(csv_cell "$2")"
	} >"$1"
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
	has_text "$tmp/texts" exact "lanebench bcast ($s): 8 ranks x 2 lanes, lane rate 50 Mbit/s, slice 64 KiB -- time" ||
		fail "hostile $n: the transport in the title: $(tr '\n' '|' <"$tmp/texts")"
	has_text "$tmp/texts" exact "label $s, median of 5 iterations, bars min..p99; lanebench $s" ||
		fail "hostile $n: the label and version in the subtitle: $(tr '\n' '|' <"$tmp/texts")"
	# The key cuts a long name at 30 characters with "...".
	has_text "$tmp/texts" exact "$s" || { [ ${#s} -gt 30 ] && has_text "$tmp/texts" exact "${s:0:27}..."; } ||
		fail "hostile $n: the algorithm in the key: $(tr '\n' '|' <"$tmp/texts")"
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
	hostile_p2p "$tmp/p$n.csv" "$h"
	PLOT_FORMAT=svg plot_in_wd "hostile $n (p2p)" "$tmp/p$n.csv" "$o/p$n"
	svg_texts "$o/p$n-bw.svg" >"$tmp/texts"
	has_text "$tmp/texts" prefix "lanebench p2p ($s): ranks 0 and 1, 1 lane, uni, lane rate 200 Mbit/s" ||
		fail "hostile $n: p2p title: $(tr '\n' '|' <"$tmp/texts")"
	hostile_check "$tmp/k$n.csv" "$h"
	PLOT_FORMAT=svg plot_in_wd "hostile $n (check)" "$tmp/k$n.csv" "$o/k$n"
	svg_texts "$o/k$n-ports.svg" >"$tmp/texts"
	has_text "$tmp/texts" prefix "FAIL ${s:0:20}" || fail "hostile $n: check reason: $(tr '\n' '|' <"$tmp/texts")"
done
ok "scripts/plot ran nothing from ${#hostile[@]} hostile strings and the reproducers"

# Bytes that are not UTF-8 show as "?" (cairo would warn on stderr).
hostile_csv "$tmp/u.csv" v1 "a"$'\xff'"b"$'\xc3' tcp chain
PLOT_FORMAT=svg plot_in_wd "not UTF-8" "$tmp/u.csv" "$o/u"
svg_texts "$o/u-time.svg" >"$tmp/texts"
has_text "$tmp/texts" prefix "label a?b?, median" || fail "not UTF-8: $(tr '\n' '|' <"$tmp/texts")"
plot_in_wd "not UTF-8 (png)" "$tmp/u.csv" "$o/u"

# Numbers beyond a double ("1e999") are no numbers: as inf they made the
# tick loop endless (it filled the disk); the file still plots, bounded.
{
	echo "label,transport,algorithm,ranks,lanes,message_bytes,slice_bytes,iterations,time_min_seconds,time_median_seconds,time_p99_seconds,lane_rate_bytes_per_second"
	echo "x,tcp,chain,8,2,4096,4096,5,0.001,1e999,1e999,6250000"
	echo "x,tcp,chain,8,2,8192,4096,5,0.001,0.002,0.003,6250000"
} >"$tmp/inf.csv"
hostile_p2p "$tmp/infp.csv" tcp
sed -i 's/0.000012,/1e999,/' "$tmp/infp.csv"
for f in inf infp; do
	(cd "$wd" && ulimit -f 65536 && LANEBENCH=$B timeout 60 "$SRC/scripts/plot" "$tmp/$f.csv" "$o/$f") \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc = 0 ] || fail "1e999 ($f): scripts/plot exit $rc: $(head -c 300 "$tmp/err")"
	rm -rf "$wd" && mkdir "$wd"
done
ok "1e999 in a time: plotted, bounded"

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
[ $? = 2 ] && grep -q "not a lanebench bcast, sim, p2p or check CSV" "$tmp/err" || fail "not a CSV: $(cat "$tmp/err")"

finish plot_test
