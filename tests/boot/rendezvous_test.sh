#!/usr/bin/env bash
# The bootstrap's rendezvous at a size a quick suite affords: 128 local
# processes over loopback TCP (no root), each tools/lb-rendezvous -- open,
# one allgather of a 64-byte record, the agreement that every record
# arrived right.  Every rank must exit 0 and rank 0 report the job whole;
# then one rank that contributes another record size must fail every rank,
# named, within the timeout.  scripts/bench-rendezvous times 64 .. 1,024.
set -uo pipefail
usage="usage: rendezvous_test.sh path/to/tests/lib.sh path/to/lb-rendezvous"
# shellcheck source=SCRIPTDIR/../lib.sh
source "${1:?$usage}"
shift
use_lanebench "${1:?$usage}" # local_rank runs $B: here the tool
not_in_a_job
ranks=128

rc=0
local_job whole "$ranks" --record 64 || rc=$?
[ "$rc" = 0 ] && ok "$ranks ranks: every rank exit 0" ||
	fail "$ranks ranks: exit $rc (statuses $statuses): $(sort "$tmp"/whole.err* | uniq -c | head -3)"
grep -q "^ranks=$ranks record=64 .* late=0\$" "$tmp/whole.out" &&
	ok "rank 0 reports the whole job: $(cat "$tmp/whole.out")" ||
	fail "rank 0's report: '$(cat "$tmp/whole.out")'"

# Rank 5 contributes 32 bytes where the others contribute 64: the
# allgather must fail on every rank (rank 0 names rank 5), none hang.
port=$(free_port)
pids=()
for ((r = 1; r < ranks; r++)); do
	size=64
	[ $r = 5 ] && size=32
	LANEBENCH_TIMEOUT=20 local_rank "$r" "$ranks" "$port" --record $size \
		>/dev/null 2>"$tmp/odd.err$r" &
	pids+=($!)
	test_pids+=($!)
done
SECONDS=0
LANEBENCH_TIMEOUT=20 local_rank 0 "$ranks" "$port" --record 64 >/dev/null 2>"$tmp/odd.err" &&
	fail "a record of another size: rank 0 exit 0"
failed=0
for p in "${pids[@]}"; do wait "$p" || failed=$((failed + 1)); done
[ "$failed" = $((ranks - 1)) ] && ok "a record of another size: every other rank failed too" ||
	fail "a record of another size: $failed of $((ranks - 1)) other ranks failed"
grep -q "rank 5 called allgather(32 bytes) but rank 0 called allgather(64 bytes)" "$tmp/odd.err" &&
	ok "rank 0 names rank 5's allgather" || fail "rank 0 said: $(cat "$tmp/odd.err")"
grep -q "rank 5 called allgather" "$tmp/odd.err77" &&
	ok "another rank is told the same reason" || fail "rank 77 said: $(cat "$tmp/odd.err77")"
[ "$SECONDS" -lt 20 ] && ok "the failure took ${SECONDS} s, under the 20 s timeout" ||
	fail "the failure took ${SECONDS} s"

finish rendezvous
