#!/usr/bin/env bash
# lanebench check's command line: bad input is refused with exit 2 and a
# message naming the option; --help explains every option, the phases, the
# verdict rules and the exit statuses; outside a job it refuses to run.
# Then small jobs on loopback (2 ranks, 1 s each): the record is always
# kept -- CSV and JSON under results/ by default, beside -o, none but the
# CSV with -o - -- by rank 0 alone, and a failure list far beyond 256
# characters (32 ports, every one failing an impossible --lane-rate) is
# printed whole, on the FAIL lines and in the verdict.
set -u
usage="usage: check_cli.sh path/to/tests/lib.sh path/to/lanebench"
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
LANEBENCH_RANK=0 LANEBENCH_SIZE=1 expect_status 2 "needs a job of at least 2 ranks"

"$B" check --help >"$tmp/help" 2>&1 || fail "check --help: exit $?"
for word in --nics --transport --tp-opt --idle --lane-rate --min-bw --max-lat \
	--max-model-ratio --max-bound-ratio allgathers "receive bound" --algorithm --message-size --bw-size --window --iterations \
	--lat-iterations --timeout --output --json "Phase 1" "Phase 2" "Phase 3" "median" \
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
$(basename "${csv%.csv}").json" ] && ok "one record, CSV and JSON: $(ls "$tmp/many/results")" ||
	fail "results/ holds: $(ls "$tmp/many/results" 2>&1)"
grep -qxF "record: $csv, ${csv%.csv}.json" "$tmp/many.out" &&
	ok "the record named: $csv" || fail "no 'record: $csv, ...json' line: $(grep record "$tmp/many.out")"
# where the time went: every part, in order, and their total
grep -qE '^time: setup [0-9.]+ s, ports [0-9.]+ s, aggregate [0-9.]+ s, gather [0-9.]+ s, collectives [0-9.]+ s, report [0-9.]+ s \(total [0-9.]+ s\)$' "$tmp/many.out" &&
	ok "the time line: $(grep '^time:' "$tmp/many.out")" ||
	fail "no 'time: setup ... (total ...)' line: $(grep '^time' "$tmp/many.out")"
[ "$(csv_awk '$c["phase"] == "port" && $c["verdict"] == "FAIL"' "$tmp/many/$csv" | wc -l)" = 32 ] &&
	grep -q '"phase": "port"' "$tmp/many/${csv%.csv}.json" && ok "the record holds the rows" ||
	fail "the record lacks the 32 failing port rows"

# -o FILE: the JSON beside it; -o -: the CSV on stdout, no file at all.
check_job named 1 -o run.csv
[ -s "$tmp/named/run.csv" ] && [ -s "$tmp/named/run.json" ] && [ ! -e "$tmp/named/results" ] &&
	grep -qxF "record: run.csv, run.json" "$tmp/named.out" && ok "-o run.csv: run.json beside it" ||
	fail "-o run.csv: $(ls "$tmp/named") / $(grep record "$tmp/named.out")"
check_job stdout 1 -o -
[ -z "$(ls "$tmp/stdout")" ] && grep -q '^phase,transport,rank,' "$tmp/stdout.out" &&
	! grep -q '^record:' "$tmp/stdout.out" && ok "-o -: the CSV on stdout, no file" ||
	fail "-o -: $(ls "$tmp/stdout") / $(grep -c '^phase,' "$tmp/stdout.out") headers"
finish check-cli
