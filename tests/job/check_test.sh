#!/usr/bin/env bash
# lanebench check's command line: bad input is refused with exit 2 and a
# message naming the option; --help explains every option, the phases, the
# verdict rules and the exit statuses; outside a job it refuses to run.
# Then small jobs on loopback (2 ranks, 1 s each): the record is always
# kept -- CSV, JSON and the HTML page under results/ by default, beside
# -o, none but the CSV with -o - -- by rank 0 alone, --html FILE or none
# for the page, and a failure list far beyond 256
# characters (32 ports, every one failing an impossible --lane-rate) is
# printed whole, on the FAIL lines and in the verdict.  --pattern shift on
# loopback writes a link row per directed pair, every byte checked; a bad
# --pattern or --rerun RECORD is refused (exit 2) before any job starts,
# and a record with nothing to retest measures nothing (exit 0).
set -u
usage="usage: check_test.sh path/to/tests/lib.sh path/to/lanebench"
source "${1:?$usage}"
shift
use_lanebench "${1:?$usage}" check
not_in_a_job

expect_status 2 "--min-bw" --min-bw 0
expect_status 2 "--min-bw" --min-bw 101%
expect_status 2 "--min-bw" --min-bw ninety
expect_status 2 "--max-model-ratio" --max-model-ratio 0.5
expect_status 2 "--max-lat" --max-lat soon
expect_status 2 "--lane-rate" --lane-rate fast
expect_status 2 "-w/--window" --window 0
expect_status 2 "-i/--iterations" -i 0
# burn-in: a wall-clock time ("10m" minutes, never milliseconds), an
# interval only within a duration
expect_status 2 "--duration: bad time '10ms'" --duration 10ms
expect_status 2 "--duration" --duration 0
expect_status 2 "--interval: needs --duration" --interval 1m
expect_status 2 "--interval: 120s is longer than --duration 60s" --duration 1m --interval 2m
expect_status 2 "--max-spread" --duration 1m --max-spread lots
expect_status 2 "--timeout" --timeout 0
expect_status 2 "-a/--algorithm" -a nosuch
expect_status 2 "-a/--algorithm" -a allgathers,nosuch
expect_status 2 "--max-bound-ratio" --max-bound-ratio 0.5
# the keywords and names mix: parsed, then refused only for want of a job
expect_status 2 "not started as a rank of a job" -a all,allgathers
expect_status 2 "not started as a rank of a job" -a allgather-ring,binomial
expect_status 2 "-m/--message-size" -m 1Q
expect_status 2 "unknown option" --no-such-option
expect_status 2 "not started as a rank of a job" # outside a job
expect_status 2 "both want stdout" --json - -o -
LANEBENCH_RANK=0 LANEBENCH_SIZE=2 expect_status 2 "--html: not '-'" --html -
LANEBENCH_RANK=0 LANEBENCH_SIZE=2 expect_status 2 "--html: 'x.csv' is the record's file too" \
	-o x.csv --html x.csv
LANEBENCH_RANK=0 LANEBENCH_SIZE=2 expect_status 2 "--html: cannot create '$tmp/no/such/dir/p.html': its directory" \
	--html "$tmp/no/such/dir/p.html"
LANEBENCH_RANK=0 LANEBENCH_SIZE=1 expect_status 2 "needs a job of at least 2 ranks"

"$B" check --help >"$tmp/help" 2>&1 || fail "check --help: exit $?"
for word in --nics --transport --tp-opt --idle --lane-rate --min-bw --max-lat --pattern --rerun \
	--max-model-ratio --max-bound-ratio allgathers "receive bound" --algorithm --message-size --bw-size --window --iterations \
	--lat-iterations --timeout --output --json --html "Phase 1" "Phase 2" "Phase 3" "median" \
	"Exit status" "check: PASS" "check: FAIL"; do
	grep -qF -- "$word" "$tmp/help" || fail "check --help does not mention '$word'"
done
"$B" --help | grep -q "^  check " || fail "lanebench --help does not list check"

# check_job NAME LANES [options]: check on a job of 2 local ranks, NICs
# lo x LANES, every measurement as short as it goes, run in $tmp/NAME.
check_job() {
	local name=$1 nics
	nics=$(printf 'lo,%.0s' $(seq "$2"))
	shift 2
	mkdir -p "$tmp/$name"
	(cd "$tmp/$name" && local_job "$name" 2 check -d "${nics%,}" --timeout 10 -a binomial \
		-m 4K --bw-size 8K -i 1 --lat-iterations 2 "$@")
}

# Every port fails: 32 named in the verdict, 32 FAIL lines; the record in
# results/, named as bcast names its runs, its names on the line before
# the verdict.
check_job many 16 --lane-rate 10tbit
[ $? = 1 ] || fail "check, every port failing: exit $?, want 1: $(tail -3 "$tmp/many.err")"
verdict=$(tail -1 "$tmp/many.out")
want=$(for r in 0 1; do for l in $(seq 0 15); do printf 'rank %s lane %s, ' $r $l; done; done)
[ "$verdict" = "check: FAIL (32 of 32 ports: ${want%, }; 2 aggregates; 1 collective)" ] &&
	ok "the verdict names all 32 failing ports (${#verdict} characters)" ||
	fail "verdict line: $verdict"
n=$(grep -c '^FAIL rank [01] (host [^)]*) lane [0-9]* (lo): tx ' "$tmp/many.out")
[ "$n" = 32 ] && ok "32 FAIL lines, one a port" || fail "$n FAIL lines for 32 failing ports"
csv=$(cd "$tmp/many" && ls results/*-check-tcp-p2-k16.csv 2>/dev/null)
[ "$(cd "$tmp/many" && ls results)" = "$(basename "$csv")
$(basename "${csv%.csv}").html
$(basename "${csv%.csv}").json" ] && ok "one record, CSV, JSON and page: $(ls "$tmp/many/results")" ||
	fail "results/ holds: $(ls "$tmp/many/results" 2>&1)"
grep -qxF "record: $csv, ${csv%.csv}.json, ${csv%.csv}.html" "$tmp/many.out" &&
	ok "the record named: $csv" || fail "no 'record: $csv, ...json' line: $(grep record "$tmp/many.out")"
# where the time went: every part, in order, and their total
grep -qE '^time: setup [0-9.]+ s, ports [0-9.]+ s, aggregate [0-9.]+ s, gather [0-9.]+ s, collectives [0-9.]+ s, report [0-9.]+ s \(total [0-9.]+ s\)$' "$tmp/many.out" &&
	ok "the time line: $(grep '^time:' "$tmp/many.out")" ||
	fail "no 'time: setup ... (total ...)' line: $(grep '^time' "$tmp/many.out")"
[ "$(csv_awk '$c["phase"] == "port" && $c["verdict"] == "FAIL"' "$tmp/many/$csv" | wc -l)" = 32 ] &&
	grep -q '"phase": "port"' "$tmp/many/${csv%.csv}.json" && ok "the record holds the rows" ||
	fail "the record lacks the 32 failing port rows"

# the page names every failing port (tests/cli/check_html_test.sh checks the
# page itself)
n=$(grep -c '<td class="where">port rank [01] ([^)]*), lane [0-9]* (lo)</td>' \
	"$tmp/many/${csv%.csv}.html")
[ "$n" = 32 ] && ok "the page lists the 32 failing ports" || fail "the page lists $n failing ports"

# -o FILE: the JSON and page beside it; --html FILE elsewhere, or none;
# -o -: the CSV on stdout, no file at all.
check_job named 1 -o run.csv
[ -s "$tmp/named/run.csv" ] && [ -s "$tmp/named/run.json" ] && [ -s "$tmp/named/run.html" ] &&
	[ ! -e "$tmp/named/results" ] &&
	grep -qxF "record: run.csv, run.json, run.html" "$tmp/named.out" &&
	ok "-o run.csv: run.json and run.html beside it" ||
	fail "-o run.csv: $(ls "$tmp/named") / $(grep record "$tmp/named.out")"
# the rows kept while the run went make the page the record read back
# makes: lanebench report on the CSV writes the same bytes
(cd "$tmp/named" && "$B" report --html again.html run.csv >/dev/null) &&
	cmp -s "$tmp/named/run.html" "$tmp/named/again.html" &&
	ok "report run.csv: the page check wrote, byte for byte" ||
	fail "report run.csv: another page than check's: $(diff "$tmp/named/run.html" "$tmp/named/again.html" | head -5)"
check_job paged 1 -o run.csv --html page.html
[ "$(ls "$tmp/paged")" = "page.html
run.csv
run.json" ] && grep -qxF "record: run.csv, run.json, page.html" "$tmp/paged.out" &&
	ok "--html page.html: the page there" ||
	fail "--html page.html: $(ls "$tmp/paged") / $(grep record "$tmp/paged.out")"
check_job unpaged 1 -o run.csv --html none
[ "$(ls "$tmp/unpaged")" = "run.csv
run.json" ] && grep -qxF "record: run.csv, run.json" "$tmp/unpaged.out" &&
	ok "--html none: no page" || fail "--html none: $(ls "$tmp/unpaged")"
check_job stdout 1 -o -
[ -z "$(ls "$tmp/stdout")" ] && grep -q '^phase,transport,rank,' "$tmp/stdout.out" &&
	! grep -q '^record:' "$tmp/stdout.out" && ok "-o -: the CSV on stdout, no file" ||
	fail "-o -: $(ls "$tmp/stdout") / $(grep -c '^phase,' "$tmp/stdout.out") headers"
# --pattern shift on loopback: a verdict (loopback's rates are too noisy
# to pass or fail on), every directed pair a row of phase link, every byte
# of its (iterations + 1) windows of 8 x 8 KiB checked.
check_job shift 2 --pattern shift -o shift.csv
rc=$?
[ "$rc" -le 1 ] && [ "$(csv_awk '$c["phase"] == "link" && $c["pattern"] == "shift" && $c["verified_bytes"] == 131072' "$tmp/shift/shift.csv" | wc -l)" = 4 ] &&
	ok "--pattern shift, 2 ranks x 2 lanes: a verdict, 4 link rows, every byte checked" ||
	fail "--pattern shift: exit $rc: $(tail -3 "$tmp/shift.out") / $(tail -3 "$tmp/shift.err")"
expect_status 2 "--pattern" --pattern everyone

# --rerun RECORD, read before any job starts: refused with exit 2 naming
# what is wrong; nothing to retest: said, exit 0.
record() { # name, then port rows "rank,host,lane,verdict[,pattern]"
	local name=$1 row
	shift
	echo "phase,rank,host,lane,verdict,reason,expected_bytes_per_second,pattern" >"$tmp/$name.csv"
	for row in "$@"; do
		IFS=, read -r k h l v p <<<"$row"
		echo "port,$k,$h,$l,$v,why,1000,${p:-shift}" >>"$tmp/$name.csv"
	done
}
export LANEBENCH_RANK=0 LANEBENCH_SIZE=2 LANEBENCH_TOKEN=never-started LANEBENCH_COORD=127.0.0.1:1
expect_status 2 "--rerun" --rerun "$tmp/nosuch.csv"
echo "a,b" >"$tmp/other.csv"
expect_status 2 "no column 'phase': not a record of lanebench check" --rerun "$tmp/other.csv"
record rerun "0,h0,0,FAIL,rerun" "1,h1,0,PASS,rerun"
expect_status 2 "a rerun's record" --rerun "$tmp/rerun.csv"
record alone "0,h0,0,FAIL" "1,h1,0,FAIL"
expect_status 2 "rank 0 lane 0: no port of lane 0 on another host passed" --rerun "$tmp/alone.csv"
record gap "0,h0,0,PASS" "2,h2,0,PASS"
expect_status 2 "no port row of rank 1" --rerun "$tmp/gap.csv"
record fine "0,h0,0,PASS" "1,h1,0,PASS" "2,h2,0,SKIP"
expect_ok --rerun "$tmp/fine.csv"
[ "$out" = "rerun: nothing failed or warned in $tmp/fine.csv: nothing to measure" ] &&
	ok "--rerun of a record with nothing failed (a SKIP is no suspect): nothing measured" ||
	fail "--rerun of a passing record: $out"
unset LANEBENCH_RANK LANEBENCH_SIZE LANEBENCH_TOKEN LANEBENCH_COORD
finish check-cli
