#!/usr/bin/env bash
# lanebench check's command line: bad input is refused with exit 2 and a
# message naming the option; --help explains every option, the phases, the
# verdict rules and the exit statuses; outside a job it refuses to run.
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
LANEBENCH_RANK=0 LANEBENCH_SIZE=1 expect_status 2 "needs a job of at least 2 ranks"

"$B" check --help >"$tmp/help" 2>&1 || fail "check --help: exit $?"
for word in --nics --transport --tp-opt --idle --lane-rate --min-bw --max-lat \
	--max-model-ratio --max-bound-ratio allgathers "receive bound" --algorithm --message-size --bw-size --window --iterations \
	--lat-iterations --timeout --output --json "Phase 1" "Phase 2" "Phase 3" "median" \
	"Exit status" "check: PASS" "check: FAIL"; do
	grep -qF -- "$word" "$tmp/help" || fail "check --help does not mention '$word'"
done
"$B" --help | grep -q "^  check " || fail "lanebench --help does not list check"
finish check-cli
