#!/usr/bin/env bash
# lanebench compare on hand-made files: one rail vs two (B twice as fast),
# runs within noise, the --fail-if-slower gate, set-up differences from the
# provenance head, and the errors (missing column, duplicate rows, no row
# in common, mixed kinds, rows of different collectives); size intersections, old files without a head,
# p2p and sim files, --json and -o; untrusted files (long values, figures
# that cannot be judged, bad integers, 20,000 rows, bytes that are not UTF-8);
# two check records (tests/data/check: B a later run of A with its ranks
# numbered otherwise and more columns): a port slower, a new failure, a
# fixed port, a missing port, the gate's exit statuses, --json and -o.
set -u
usage="usage: compare_test.sh path/to/tests/lib.sh path/to/lanebench SOURCE_ROOT"
source "${1:?$usage}"
shift
use_lanebench "${1:?$usage}" compare
SRC=${2:?$usage}
CHK_A=$SRC/tests/data/check/a.csv CHK_B=$SRC/tests/data/check/b.csv

# want RC NEEDLE ARGS...: exit status RC, NEEDLE in stdout or stderr
want() {
	local status=$1 needle=$2
	shift 2
	run "$@"
	[ "$rc" -eq "$status" ] || fail "compare $*: exit $rc, want $status: $err"
	case "$out$err" in
	*"$needle"*) ;;
	*) fail "compare $*: output lacks \"$needle\": $out $err" ;;
	esac
}

COLS=label,transport,algorithm,ranks,lanes,root,message_bytes,slice_bytes,time_min_seconds,time_median_seconds,time_p99_seconds,time_max_seconds

# bcast_csv FILE LANES SCALE SPREAD SIZES...: a head for a 4-rank tcp run
# with LANES lanes, then multilane and binomial rows; median time =
# SCALE x size / 12.5e6 (size in KiB), spread median x (1 -/+ SPREAD).
bcast_csv() {
	local f=$1 lanes=$2 scale=$3 spread=$4
	shift 4
	{
		echo "# format: lanebench-csv 2"
		echo "# version: v0.1.0-test"
		echo "# command: lanebench bcast -a multilane,binomial"
		echo "# time_utc: 2026-11-24T03:40:11Z"
		echo "# transport: tcp"
		echo "# option.slice: 64K"
		echo "# ranks: 4"
		echo "# lanes: $lanes"
		for r in 0 1 2 3; do
			echo "# host.$r: lb-h$r"
			for ((l = 0; l < lanes; l++)); do
				echo "# lane.$r.$l: nic=rail$l port=1 speed_bps=100000000 mtu=1500 numa=-1 core=$l addr=10.1$l.0.$((r + 1))"
			done
		done
		echo "$COLS"
		for a in multilane binomial; do
			for kib in "$@"; do
				awk -v a="$a" -v k="$lanes" -v kib="$kib" -v s="$scale" -v d="$spread" 'BEGIN {
					t = s * kib * 1024 / 12.5e6
					printf "run-k%d,tcp,%s,4,%d,0,%d,65536,%.9g,%.9g,%.9g,%.9g\n",
						k, a, k, kib * 1024, t * (1 - d), t, t * (1 + d), t * (1 + 2 * d) }'
			done
		done
	} >"$f"
}

# --- one rail vs two: B twice as fast, beyond noise ---------------------------
bcast_csv "$tmp/one.csv" 1 2 0.02 64 256 1024 4096
bcast_csv "$tmp/two.csv" 2 1 0.02 64 256 1024 4096
want 0 "summary multilane: B/A 0.500 (speed-up 2.00x) over 4 sizes: 4 faster, 0 slower, 0 within noise" \
	"$tmp/one.csv" "$tmp/two.csv"
case $out in *"summary binomial: B/A 0.500"*) ;; *) fail "one vs two: no binomial summary: $out" ;; esac
for w in "lanes                          1  ->  2" "lanes.nic                      rail0  ->  rail0 + rail1" \
	"matched on: algorithm, root, message_bytes"$'\n' "ranks 4" "transport tcp" \
	"same in both: version v0.1.0-test" "A: $tmp/one.csv (8 rows, lanebench v0.1.0-test, 2026-11-24T03:40:11Z)" \
	"binomial 4M"; do
	case $out in *"$w"*) ;; *) fail "one vs two: output lacks '$w': $out" ;; esac
done
grep -Eq '^  (option.slice|hosts|time_utc|command|lanes.mtu|lanes.speed_bps) ' "$tmp/out" &&
	fail "one vs two: an equal or per-run item listed as a difference: $out"
# --- collectives: rows of a bcast never match rows of an allgather ------------
# (the same algorithm name and sizes, a `collective` column appended)
with_collective() { # IN OUT NAME
	awk -F, -v OFS=, -v c="$3" '/^#/ { print; next } !h { h = 1; print $0, "collective"; next } { print $0, c }' "$1" >"$2"
}
with_collective "$tmp/one.csv" "$tmp/one-bcast.csv" bcast
with_collective "$tmp/two.csv" "$tmp/two-allgather.csv" allgather
with_collective "$tmp/two.csv" "$tmp/two-bcast.csv" bcast
want 2 "no row of A matches a row of B on (collective, algorithm" "$tmp/one-bcast.csv" "$tmp/two-allgather.csv"
want 0 "matched on: collective, algorithm" "$tmp/one-bcast.csv" "$tmp/two-bcast.csv"
# NIC A vs B: rank 2's NIC differs (and its name extends rank 0's).
sed 's/^# lane.2.0: nic=rail0 /# lane.2.0: nic=rail0x /' "$tmp/one.csv" >"$tmp/nic.csv"
want 0 "lanes.nic                      rail0  ->  rail0/rail0x" "$tmp/one.csv" "$tmp/nic.csv"
# The same comparison the other way round: B slower, and the gate says so.
want 1 "binomial 4M: B is 100.0% slower than A, beyond noise" --fail-if-slower 5% "$tmp/two.csv" "$tmp/one.csv"
case $out in *"8 rows slower by more than that beyond noise: FAILED"*) ;; *) fail "gate: no FAILED line: $out" ;; esac

# --- two runs within noise: 4% apart, overlapping spreads ---------------------
bcast_csv "$tmp/run1.csv" 2 1 0.05 64 256 1024
bcast_csv "$tmp/run2.csv" 2 1.04 0.05 64 256 1024
want 0 "summary multilane: B/A 1.040 (speed-up 0.96x) over 3 sizes: 0 faster, 0 slower, 3 within noise" \
	--fail-if-slower 1% "$tmp/run1.csv" "$tmp/run2.csv"
[ "$(grep -c 'x  within noise$' "$tmp/out")" = 6 ] || fail "within noise: $out"
case $out in *"set-up: no difference found"*) ;; *) fail "same set-up: $out" ;; esac
# 10% slower with 2% spreads: beyond noise; gated at 5%, not at 20%.
bcast_csv "$tmp/slow.csv" 2 1.1 0.02 64 256 1024
bcast_csv "$tmp/base.csv" 2 1 0.02 64 256 1024
want 1 "multilane 64K: B is 10.0% slower than A" --fail-if-slower 5 "$tmp/base.csv" "$tmp/slow.csv"
want 0 "0 of 6 rows slower by more than that beyond noise: passed" --fail-if-slower 20% \
	"$tmp/base.csv" "$tmp/slow.csv"
run --fail-if-slower 5x "$tmp/base.csv" "$tmp/slow.csv"
[ "$rc" = 2 ] && case $err in *"'5x' is not a percentage"*) true ;; *) false ;; esac ||
	fail "--fail-if-slower 5x: exit $rc: $err"

# --- different size sets: the intersection, and what was left out ------------
bcast_csv "$tmp/few.csv" 2 1 0.02 64 256
want 0 "only in A, not compared (4 of 8 rows): multilane 1M, multilane 4M, binomial 1M, binomial 4M" \
	"$tmp/one.csv" "$tmp/few.csv"
case $out in *"4 rows in both"*) ;; *) fail "intersection: $out" ;; esac

# --- errors --------------------------------------------------------------------
cut -d, -f1-6,8- "$tmp/two.csv" >"$tmp/nosize.csv"
want 2 "$tmp/nosize.csv: no column 'message_bytes' (a bcast CSV needs it to match rows)" \
	"$tmp/one.csv" "$tmp/nosize.csv"
cut -d, -f1-9,11- "$tmp/two.csv" >"$tmp/notime.csv"
want 2 "$tmp/notime.csv: not a lanebench bcast, p2p or sim CSV" "$tmp/one.csv" "$tmp/notime.csv"
{ cat "$tmp/two.csv"; grep '^run-k2,tcp,binomial,4,2,0,262144,' "$tmp/two.csv"; } >"$tmp/dup.csv"
dupline=$(grep -n '^run-k2,tcp,binomial,4,2,0,262144,' "$tmp/dup.csv" | head -1 | cut -d: -f1)
want 2 "$tmp/dup.csv: lines $dupline and $(wc -l <"$tmp/dup.csv") are both binomial 256K" \
	"$tmp/one.csv" "$tmp/dup.csv"
sed 's/multilane/chain/; s/binomial/binary/' "$tmp/two.csv" >"$tmp/other.csv"
want 2 "no row of A matches a row of B on (algorithm, root, message_bytes): A has multilane 64K..4M (4 rows); binomial 64K..4M (4 rows); B has chain 64K..4M (4 rows); binary 64K..4M (4 rows)" \
	"$tmp/one.csv" "$tmp/other.csv"
want 2 "$tmp/nonexistent.csv: No such file" "$tmp/one.csv" "$tmp/nonexistent.csv"

# --- slices differ: rows matched on the size, the slices shown -----------------
awk -F, -v OFS=, '!/^#/ && NR > 1 && $8 == 65536 { $8 = 262144 } 1' "$tmp/two.csv" >"$tmp/slice.csv"
want 0 "note: slice_bytes differs in 8 of 8 rows (column 'slice A -> B'): rows are matched on the size" \
	"$tmp/one.csv" "$tmp/slice.csv"
case $out in *"slice_bytes                    64K  ->  256K"*) ;; *) fail "slice difference not listed: $out" ;; esac
grep -q '^multilane 64K .*  faster        64K -> 256K$' "$tmp/out" || fail "slice column: $out"
# --slice auto chose other slices in B for some sizes (as another
# calibration does): every row pairs, one summary per algorithm (it was
# one per algorithm and slice, the rows of other slices unmatched).
awk -F, -v OFS=, '$7 ~ /^[0-9]+$/ && $7 >= 1048576 { $8 = $7 / 4 } 1' "$tmp/base.csv" >"$tmp/auto-a.csv"
awk -F, -v OFS=, '$7 ~ /^[0-9]+$/ && $7 >= 262144 { $8 = $7 / 8 } 1' "$tmp/base.csv" >"$tmp/auto-b.csv"
want 0 "summary multilane: B/A 1.000 (speed-up 1.00x) over 3 sizes" "$tmp/auto-a.csv" "$tmp/auto-b.csv"
[ "$(grep -c '^summary' "$tmp/out")" = 2 ] || fail "auto slices: not one summary per algorithm: $out"
case $out in *"only in"*) fail "auto slices: rows left unpaired: $out" ;; esac
grep -q '^binomial 1M .*within noise  256K -> 128K$' "$tmp/out" || fail "auto slices: slice column: $out"
# the demo against itself: one summary per algorithm (whatever slices)
demo_sim=$tmp/demo-sim.csv
"$B" sim -a multilane,binomial,chain -p 8 -k 2 -m 4K:16M --bw 100mbit >"$demo_sim" 2>/dev/null
want 0 "summary bcast chain: B/A 1.000 (speed-up 1.00x) over 13 sizes" "$demo_sim" "$demo_sim"
[ "$(grep -c '^summary' "$tmp/out")" = 3 ] || fail "auto sim vs itself: not 3 summaries: $out"
# an explicit slice sweep (two slices per size in one file) matches on the
# slice too: the rows differ by nothing else
"$B" sim -a multilane -p 8 -k 2 -m 64K:1M -s 16K,64K --bw 100mbit >"$tmp/sweep.csv" 2>/dev/null
want 0 "matched on: collective, algorithm, root, message_bytes, slice_bytes" "$tmp/sweep.csv" "$tmp/sweep.csv"
case $out in *"10 rows in both"*"summary bcast slice 16K"*"summary bcast slice 64K"*) ;;
*) fail "slice sweep: $out" ;; esac

# --- an incomplete run and an old file without a head ---------------------------
{ cat "$tmp/few.csv"; echo "# lanebench: incomplete after 4 rows: interrupted (SIGINT)"; } >"$tmp/part.csv"
want 0 "B: $tmp/part.csv (4 rows, lanebench v0.1.0-test, 2026-11-24T03:40:11Z)  (incomplete after 4 rows: interrupted (SIGINT))" \
	"$tmp/one.csv" "$tmp/part.csv"
demo=$SRC/tests/data/demo-tcp-p8-k2-50mbit.csv
want 0 "summary vandegeijn: B/A 1.000 (speed-up 1.00x) over 13 sizes: 0 faster, 0 slower, 13 within noise" "$demo" "$demo"
grep -v '^#' "$tmp/two.csv" >"$tmp/nohead.csv"
want 0 "note: B has no provenance head (an older file)" "$tmp/one.csv" "$tmp/nohead.csv"
case $out in *"lanes                          1  ->  2"*"same in both: transport tcp, ranks 4"*) ;;
*) fail "no head: lanes, ranks, transport not from the columns: $out" ;; esac
case $out in *"(none)"*|*version*) fail "no head: items it did not record listed: $out" ;; esac

# --- p2p and sim files; kinds do not mix ------------------------------------------
p2p_csv() {
	echo "transport,lane,lane_name,message_bytes,iterations,window,latency_min_seconds,latency_median_seconds,latency_p99_seconds,bandwidth_median_bytes_per_second"
	echo "tcp,0,$2,4096,100,16,$(awk -v s="$3" 'BEGIN { printf "%g,%g,%g", 1e-4 * s, 1.1e-4 * s, 1.3e-4 * s }'),3.7e7"
	echo "tcp,0,$2,1048576,100,16,$(awk -v s="$3" 'BEGIN { printf "%g,%g,%g", 1e-2 * s, 1.1e-2 * s, 1.2e-2 * s }'),9.1e7"
}
p2p_csv x rail0 1 >"$tmp/p2pa.csv"
p2p_csv x ens1f0 0.5 >"$tmp/p2pb.csv"
want 0 "summary lane 0: B/A 0.500 (speed-up 2.00x) over 2 sizes: 2 faster, 0 slower, 0 within noise" \
	"$tmp/p2pa.csv" "$tmp/p2pb.csv"
case $out in *"lane_name                      rail0  ->  ens1f0"*) ;; *) fail "p2p: NIC name not a difference: $out" ;; esac
"$B" sim -a multilane,binomial -p 8 -k 1 -m 64K:4M -s 64K --bw 100mbit >"$tmp/sim1.csv" 2>/dev/null
"$B" sim -a multilane,binomial -p 4,8 -k 2 -m 64K:4M -s 64K --bw 100mbit >"$tmp/sim2.csv" 2>/dev/null
want 0 "summary bcast multilane ranks 8: B/A 0." "$tmp/sim1.csv" "$tmp/sim2.csv"
case $out in *"matched on: collective, algorithm, root, ranks, message_bytes"*"only in B, not compared (14 of 28 rows): bcast multilane ranks 4 64K"*) ;;
*) fail "sim: keys or intersection: $out" ;; esac
case $out in *"lanes                          1  ->  2"*) ;; *) fail "sim: lanes not a difference: $out" ;; esac
want 2 "$tmp/one.csv is a bcast CSV, $tmp/sim1.csv a sim CSV" "$tmp/one.csv" "$tmp/sim1.csv"

# --- --json and -o ---------------------------------------------------------------
want 0 "summary multilane" --json "$tmp/c.json" -o "$tmp/c.csv" "$tmp/one.csv" "$tmp/two.csv"
python3 - "$tmp/c.json" <<'PY' || fail "compare --json: $(cat "$tmp/c.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["kind"] == "bcast" and d["a"]["provenance"]["lanes"] == "1", d["a"]
assert {"name": "lanes", "a": "1", "b": "2"} in d["setup_differences"], d["setup_differences"]
assert len(d["rows"]) == 8 and d["rows"][0]["verdict"] == "faster", d["rows"][0]
assert abs(d["rows"][0]["b_over_a"] - 0.5) < 1e-6 and d["rows"][0]["a"]["low_seconds"] > 0
assert [s["group"] for s in d["summary"]] == ["multilane", "binomial"]
assert abs(d["summary"][0]["geomean_b_over_a"] - 0.5) < 1e-6 and d["summary"][0]["faster"] == 4
assert d["fail_if_slower_percent"] is None and d["failed_rows"] == 0
PY
[ "$(grep -vc '^#' "$tmp/c.csv")" = 9 ] && grep -q '^# setup: lanes 1 -> 2;' "$tmp/c.csv" &&
	grep -q '^multilane,multilane 64K,65536,.*,faster,65536,65536$' "$tmp/c.csv" || fail "compare -o: $(cat "$tmp/c.csv")"
# refused before anything is read (exit 2), naming the option and path
want 2 "--json: cannot create '$tmp/missing/c.json': its directory '$tmp/missing': No such file" \
	--json "$tmp/missing/c.json" "$tmp/one.csv" "$tmp/two.csv"
want 2 "--json: cannot create '$tmp': a directory" --json "$tmp" "$tmp/one.csv" "$tmp/two.csv"
want 2 "--json: '$tmp/same' is the -o file too" -o "$tmp/same" --json "$tmp/same" "$tmp/one.csv" "$tmp/two.csv"
want 2 "--json: '$tmp/./same' is the -o file too" -o "$tmp/same" --json "$tmp/./same" "$tmp/one.csv" "$tmp/two.csv"
[ -e "$tmp/same" ] && fail "-o X --json X: a file written"
# '-' is stdout (it wrote a file named '-'), the printout then on stderr;
# both '-' at once: refused
(cd "$tmp" && "$B" compare -o - one.csv two.csv >"$tmp/o-out" 2>"$tmp/o-err")
[ $? = 0 ] && [ ! -e "$tmp/-" ] && grep -q '^multilane,multilane 64K,65536,' "$tmp/o-out" &&
	grep -q '^summary multilane' "$tmp/o-err" && ! grep -q '^summary' "$tmp/o-out" ||
	fail "compare -o -: $(ls "$tmp"): $(cat "$tmp/o-out")"
(cd "$tmp" && "$B" compare --json - one.csv two.csv >"$tmp/j-out" 2>/dev/null)
[ ! -e "$tmp/-" ] && python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$tmp/j-out" ||
	fail "compare --json -: $(cat "$tmp/j-out")"
want 2 "'-' and -o - both want stdout" -o - --json - "$tmp/one.csv" "$tmp/two.csv"
(cd "$tmp" && "$B" compare --json - "$CHK_A" "$CHK_B" >"$tmp/cj-out" 2>/dev/null)
python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["kind"] == "check"' "$tmp/cj-out" ||
	fail "compare --json - on check records: $(cat "$tmp/cj-out")"

# --- the gate fails a run that died halfway ------------------------------------
# B lacks rows of A: they fail --fail-if-slower, each named (it passed:
# only the rows B had were judged); B cut short (its trailer) fails too.
want 1 "multilane 1M: missing from B" --fail-if-slower 5 "$tmp/one.csv" "$tmp/few.csv"
case $out in *"0 of 4 rows slower by more than that beyond noise, 4 of A's rows missing from B: FAILED"*) ;;
*) fail "gate, rows missing: $out" ;; esac
case $err in *"binomial 4M: missing from B"*) ;; *) fail "gate: binomial 4M not named: $err" ;; esac
{ cat "$tmp/base.csv"; echo "# lanebench: incomplete after 6 rows: interrupted (SIGINT)"; } >"$tmp/cut.csv"
want 1 "B is incomplete after 6 rows: interrupted (SIGINT)" --fail-if-slower 5 "$tmp/base.csv" "$tmp/cut.csv"
case $out in *", B incomplete: FAILED"*) ;; *) fail "gate, B incomplete: $out" ;; esac
want 0 "passed" --fail-if-slower 5 "$tmp/cut.csv" "$tmp/base.csv"
# rows of B only (B ran more sizes): not a failure
want 0 "passed" --fail-if-slower 5 "$tmp/few.csv" "$tmp/two.csv"
case $out in *"only in B"*) ;; *) fail "gate, rows of B only: $out" ;; esac

# --- untrusted files ------------------------------------------------------------
DATA=$SRC/tests/data/untrusted/compare
# Long set-up values, 20 and 400 distinct: shown whole (the list was a
# fixed 40 bytes per value, overrun by longer ones: issue 28).
long=LLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLL
want 0 "same in both: label ${long}00000, ${long}00001," "$DATA/joined-values-A.csv" "$DATA/joined-values-B.csv"
case $out in *"${long}00019 "*|*"${long}00019"$'\n'*) ;; *) fail "joined values: last label not whole: $out" ;; esac
want 0 "${long}00399" "$DATA/joined-values-400.csv" "$DATA/joined-values-400.csv"
# Names longer than a label buffer: two algorithms stay two groups, and a
# NIC name differing after 256 bytes is a difference.
x70=$(printf 'x%.0s' $(seq 70))
sed "s/multilane/${x70}1/; s/binomial/${x70}2/" "$tmp/base.csv" >"$tmp/longalgo.csv"
want 0 "summary ${x70}2: B/A 1.000" "$tmp/longalgo.csv" "$tmp/longalgo.csv"
n300=$(printf 'n%.0s' $(seq 300))
sed "s/nic=rail1 /nic=${n300}a /" "$tmp/base.csv" >"$tmp/nica.csv"
sed "s/nic=rail1 /nic=${n300}b /" "$tmp/base.csv" >"$tmp/nicb.csv"
want 0 "rail0 + ${n300}a  ->  rail0 + ${n300}b" "$tmp/nica.csv" "$tmp/nicb.csv"

# Keys that differ only in where a byte 0x1f falls are different keys
# (they were joined by 0x1f: two rows of one file taken for duplicates).
printf 'collective,algorithm,message_bytes,sim_seconds\nbcast\037x,y,4096,1\nbcast,x\037y,4096,2\n' >"$tmp/sep.csv"
want 0 "2 rows in both" "$tmp/sep.csv" "$tmp/sep.csv"

# set_cell IN OUT ALGO SIZE COLUMN VALUE: one row's cell replaced.
set_cell() {
	awk -F, -v OFS=, -v a="$3" -v m="$4" -v c="$5" -v v="$6" \
		'!/^#/ && $3 == a && $7 == m { $c = v } 1' "$1" >"$2"
}
row=$(grep -n '^run-k2,tcp,multilane,4,2,0,65536,' "$tmp/base.csv" | cut -d: -f1)
# Figures that cannot be judged fail the gate (never "within noise"),
# naming the row, file:line:column and why: B's multilane 64K 10x slower
# with a min of 0, a p99 of inf; its median nan, empty, negative.
set_cell "$tmp/base.csv" "$tmp/x10.csv" multilane 65536 10 0.0524288
for bad in "9 0 time_min_seconds: not above 0" "11 inf time_p99_seconds: 'inf' is not a finite number" \
	"10 nan time_median_seconds: 'nan' is not a finite number" "10 '' time_median_seconds: empty" \
	"10 -1 time_median_seconds: not above 0" "9 0.06 time_min_seconds: above the median" \
	"12 x time_max_seconds"; do
	set -- $bad
	col=$1 value=$2
	shift 2
	[ "$value" = "''" ] && value=
	set_cell "$tmp/x10.csv" "$tmp/bad.csv" multilane 65536 "$col" "$value"
	if [ "$col" = 12 ]; then # no p99 column: the spread is min..max
		cut -d, -f1-10,12 "$tmp/bad.csv" >"$tmp/bad2.csv" && mv "$tmp/bad2.csv" "$tmp/bad.csv"
		cut -d, -f1-10,12 "$tmp/base.csv" >"$tmp/base-max.csv"
		set_cell "$tmp/bad.csv" "$tmp/bad2.csv" multilane 65536 11 x && mv "$tmp/bad2.csv" "$tmp/bad.csv"
		want 1 "multilane 64K: cannot judge: $tmp/bad.csv:$row:11: $*" --fail-if-slower 5 "$tmp/base-max.csv" "$tmp/bad.csv"
		continue
	fi
	want 1 "multilane 64K: cannot judge: $tmp/bad.csv:$row:$col: $*" --fail-if-slower 5 "$tmp/base.csv" "$tmp/bad.csv"
	case $out in *"0 of 6 rows slower by more than that beyond noise, 1 cannot be judged: FAILED"*) ;;
	*) fail "unjudged ($bad): no FAILED line: $out" ;; esac
	want 0 "summary multilane: B/A 1.000 (speed-up 1.00x) over 3 sizes: 0 faster, 0 slower, 2 within noise, 1 cannot be judged" \
		"$tmp/base.csv" "$tmp/bad.csv"
done
# ... in A as well, and in --json and -o (no number where there is none).
set_cell "$tmp/base.csv" "$tmp/bad.csv" binomial 262144 10 nan
want 1 "binomial 256K: cannot judge: $tmp/bad.csv:" --fail-if-slower 5 "$tmp/bad.csv" "$tmp/base.csv"
want 0 "cannot judge binomial 256K: $tmp/bad.csv:" --json "$tmp/bad.json" -o "$tmp/bad-o.csv" "$tmp/bad.csv" "$tmp/base.csv"
python3 - "$tmp/bad.json" <<'PY' || fail "compare --json, a row not judged: $(cat "$tmp/bad.json")"
import json, sys
d = json.load(open(sys.argv[1]))
r = [r for r in d["rows"] if r["label"] == "binomial 256K"][0]
assert r["verdict"] == "cannot judge" and "time_median_seconds" in r["why"] and r["b_over_a"] is None, r
assert d["summary"][1]["cannot_judge"] == 1 and d["rows"][0]["why"] is None, d["summary"]
PY
grep -q '^binomial,binomial 256K,262144,,' "$tmp/bad-o.csv" && grep -q ',cannot judge,65536,65536$' "$tmp/bad-o.csv" ||
	fail "compare -o, a row not judged: $(cat "$tmp/bad-o.csv")"

# Integer columns are whole numbers in range where they are read (exit 2,
# file:line:column), not cast from whatever strtod made of them.
for bad in "7 -5" "7 1e300" "7 nan" "7 ''" "7 65536.5" "7 9223372036854775808" "8 0x10" "6 -1" "5 0"; do
	set -- $bad
	[ "$2" = "''" ] && set -- "$1" ""
	set_cell "$tmp/base.csv" "$tmp/bad.csv" multilane 65536 "$1" "$2"
	want 2 "$tmp/bad.csv:$row:$1: " "$tmp/base.csv" "$tmp/bad.csv"
	case $err in *"bad number '$2'"*|*"empty, expected a whole number"*) ;; *) fail "integer '$2': $err" ;; esac
done

# 20,000 rows against the same rows in reverse order: every row matched
# (matching sorts the keys; it was quadratic, 10 s here).
awk 'BEGIN { print "algorithm,message_bytes,time_min_seconds,time_median_seconds,time_p99_seconds"
	for (i = 1; i <= 20000; i++) printf "a%d,%d,0.9,1,1.1\n", i % 7, i * 8 }' >"$tmp/big-a.csv"
{ head -1 "$tmp/big-a.csv"; tail -n +2 "$tmp/big-a.csv" | sort -r; } >"$tmp/big-b.csv"
want 0 "20000 rows in both" "$tmp/big-a.csv" "$tmp/big-b.csv"
case $out in *"only in"*) fail "20,000 rows: a row left unmatched" ;; esac
[ "$(grep -c 'x  within noise$' "$tmp/out")" = 20000 ] || fail "20,000 rows: not every row compared"

# 20,000 provenance lines, one of them different, a key given twice (the
# last line counts): the difference found (keys grouped by sorting; the
# head was quadratic too, 5 s here).
awk 'BEGIN { for (i = 0; i < 20000; i++) printf "# k%d: v%d\n", i, i; print "# k5: twice"
	print "algorithm,message_bytes,sim_seconds"; print "a,1,1" }' >"$tmp/prov-a.csv"
sed 's/^# k7: v7$/# k7: other/' "$tmp/prov-a.csv" >"$tmp/prov-b.csv"
want 0 "set-up differences (A -> B):
  k7                             v7  ->  other
same in both: k0 v0," "$tmp/prov-a.csv" "$tmp/prov-b.csv"
case $out in *"k5 twice, k6 v6, k8 v8"*"k19999 v19999"*) ;; *) fail "20,000 provenance lines: $out" ;; esac

# --json is valid JSON (UTF-8) whatever bytes the files hold: not UTF-8,
# escapes, a cut sequence.
printf '# version: v1\377\033[2J\n' >"$tmp/utf-a.csv"
sed '/^# version/d; s/^run-k2,/caf\xc3\xa9\xff\x01,/; s/multilane/multi\xe2\x82lane/' "$tmp/base.csv" >>"$tmp/utf-a.csv"
sed 's/multilane/multi\xe2\x82lane/' "$tmp/base.csv" >"$tmp/utf-b.csv"
want 0 "summary binomial" --json "$tmp/utf.json" "$tmp/utf-a.csv" "$tmp/utf-b.csv"
python3 - "$tmp/utf.json" <<'PY' || fail "compare --json: not valid UTF-8 JSON"
import json, sys
d = json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))
assert d["a"]["provenance"]["version"] == "v1\ufffd\x1b[2J", d["a"]["provenance"]
assert d["rows"][0]["label"] == "multi\ufffd\ufffdlane 64K", d["rows"][0]["label"]
assert {"name": "label", "a": "caf\u00e9\ufffd\x01", "b": "run-k2"} in d["setup_differences"], d["setup_differences"]
PY

# --- two check records -----------------------------------------------------------
CHK=$SRC/tests/data/check
want 0 "ports matched on host and lane" "$CHK/a.csv" "$CHK/b.csv"
# each port by host and lane, whatever its rank in B (lb-h1 is rank 3 there)
for line in \
	'lb-h1 lane 0 (rail0)         97.7 -> 78.4   0.80   0.81    0.98  PASS -> WARN' \
	'lb-h3 lane 1 (rail1)         97.8 -> 48.0   0.49   0.50    0.96  PASS -> FAIL' \
	'lb-h2 lane 0 (rail0)         48.8 -> 97.6   2.02   1.97    0.96  FAIL -> PASS' \
	'lb-h0 lane 1 (rail1)            97.6 -> -      -      -       -  PASS -> (none)' \
	'lb-h1 lane 1 (rail1)         97.7 -> 97.6   1.00   1.00    0.98  PASS' \
	'allgather allgather-ring 1M        50.2 ms     90.4 ms   1.80  PASS -> FAIL' \
	'NEW FAILURES (failing in B, not in A): 2' \
	'  port lb-h3 lane 1 (rail1): PASS -> FAIL: tx 48 Mbit/s, expected 100 Mbit/s (48 %, min 90 %)' \
	'FIXED (failing in A, passing in B): 2' '  port lb-h2 lane 0 (rail0): FAIL -> PASS' \
	'  aggregate lb-h2: FAIL -> PASS' '  port lb-h1 lane 0 (rail0): PASS -> WARN: tx 78.4 Mbit/s: 78 % of expected' \
	'ONLY IN A (missing from B): 1' '  port lb-h0 lane 1 (rail1): PASS -> (none)' \
	'2 new failures, 2 fixed, 1 other verdict change, 1 only in A, 0 only in B'; do
	grep -qxF -- "$line" "$tmp/out" || fail "check records: no line '$line' in: $out"
done
awk 'length > 80 && !/^  [a-z]* .*: / && !/^[AB]: / { print; bad = 1 } END { exit bad }' "$tmp/out" ||
	fail "check records: a line of the table wider than 80 columns"
# the gate: a new failure, a missing port, a rate 20 % lower each fail it,
# named on stderr; the same record against itself, or a fix alone, passes
want 1 "port lb-h3 lane 1 (rail1): new failure (PASS -> FAIL)" --fail-if-slower 5 "$CHK/a.csv" "$CHK/b.csv"
for needle in "port lb-h0 lane 1 (rail1): missing from B" \
	"port lb-h1 lane 0 (rail0): tx B/A 0.80, rx B/A 0.81: below 0.95" \
	"collective allgather allgather-ring 1M: new failure (PASS -> FAIL)"; do
	case $err in *"$needle"*) ;; *) fail "gate: stderr lacks '$needle': $err" ;; esac
done
case $out in *"--fail-if-slower 5%: 4 of 14 rows failed"*"FAILED"*) ;; *) fail "gate line: $out" ;; esac
want 0 "--fail-if-slower 5%: 0 of 14 rows failed" --fail-if-slower 5 "$CHK/a.csv" "$CHK/a.csv"
# A's failing port fixed, nothing else changed: the gate passes
sed '/^port,tcp,2,lb-h2,0,/s/,FAIL,"[^"]*",/,PASS,,/' "$CHK/a.csv" >"$tmp/fixed.csv"
want 0 "--fail-if-slower 5%: 0 of 14 rows failed (new failures, missing from B, tx or rx more than that lower): passed" \
	--fail-if-slower 5 "$CHK/a.csv" "$tmp/fixed.csv"
grep -qxF "  port lb-h2 lane 0 (rail0): FAIL -> PASS" "$tmp/out" || fail "a fix alone: $out"
# without hosts (or a host holding two ranks): matched on rank and lane
csv_blank_hosts() { awk -F, -v OFS=, '/^#/ || !n++ { print; next } { $4 = ""; print }' "$1"; }
csv_blank_hosts "$CHK/a.csv" >"$tmp/nohost.csv"
want 0 "ports matched on rank and lane" "$tmp/nohost.csv" "$CHK/b.csv"
grep -qF "rank 3 lane 0 (rail0)" "$tmp/out" || fail "matched on rank: $out"
# errors: a check record against a bcast CSV, a port twice, a bad lane
want 2 "is a check record, $tmp/one.csv is not" "$CHK/a.csv" "$tmp/one.csv"
want 2 "is a check record" "$tmp/one.csv" "$CHK/a.csv"
sed 's/^port,tcp,1,,1,/port,tcp,1,,0,/' "$tmp/nohost.csv" >"$tmp/twice.csv"
want 2 "are the same port (rank 1, lane 0" "$tmp/twice.csv" "$CHK/a.csv"
sed 's/^port,tcp,1,lb-h1,1,/port,tcp,1,lb-h1,x,/' "$CHK/a.csv" >"$tmp/badlane.csv"
want 2 "$tmp/badlane.csv:" "$tmp/badlane.csv" "$CHK/a.csv"
# a check record cut short fails the gate too
{ cat "$CHK/a.csv"; echo "# lanebench: incomplete after 9 rows: rank 3 lost"; } >"$tmp/chk-cut.csv"
want 1 "B is incomplete after 9 rows: rank 3 lost" --fail-if-slower 5 "$CHK/a.csv" "$tmp/chk-cut.csv"
case $out in *"rows failed (new failures, missing from B, tx or rx more than that lower), B incomplete: FAILED"*) ;;
*) fail "check gate, B incomplete: $out" ;; esac
# --json and -o
want 1 "FAILED" --fail-if-slower 5 --json "$tmp/chk.json" -o "$tmp/chk.csv" "$CHK/a.csv" "$CHK/b.csv"
python3 - "$tmp/chk.json" "$tmp/chk.csv" <<'PY' || fail "check records: --json or -o: $(cat "$tmp/chk.json")"
import csv, json, sys
d = json.load(open(sys.argv[1]))
assert d["kind"] == "check" and d["matched_on"] == "host", d
assert d["counts"] == {"same": 8, "new failure": 2, "fixed": 2, "changed": 1, "only in A": 1,
                       "only in B": 0}, d["counts"]
assert d["failed_rows"] == 4 and d["fail_if_slower_percent"] == 5, d
rows = {r["label"]: r for r in d["rows"]}
slow = rows["lb-h3 lane 1 (rail1)"]
assert slow["change"] == "new failure" and slow["a"]["verdict"] == "PASS", slow
assert abs(slow["rx_b_over_a"] - 6.1e6 / 12.231e6) < 1e-6, slow
assert rows["lb-h0 lane 1 (rail1)"]["b"] is None, rows["lb-h0 lane 1 (rail1)"]
lines = [l for l in open(sys.argv[2]) if not l.startswith("#")]
r = {x["label"]: x for x in csv.DictReader(lines)}
assert r["lb-h2 lane 0 (rail0)"]["change"] == "fixed", r["lb-h2 lane 0 (rail0)"]
assert r["lb-h0 lane 1 (rail1)"]["b_verdict"] == "" and r["lb-h0 lane 1 (rail1)"]["b_tx_bytes_per_second"] == ""
assert r["allgather allgather-ring 1M"]["time_b_over_a_ratio"].startswith("1.80"), r
PY

finish compare_test
