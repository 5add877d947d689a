#!/usr/bin/env bash
# The bootstrap's rendezvous at a size a quick suite affords: 128 local
# processes over loopback TCP (no root), each tools/lb-rendezvous -- open,
# one allgather of a 64-byte record, the agreement that every record
# arrived right.  Every rank must exit 0 and rank 0 report the job whole,
# also when its soft open-files limit is below a connection per rank (it
# raises it; a hard limit too low fails at once, named); then one rank that
# contributes another record size must fail every rank, named, at once.  scripts/bench-rendezvous times 64 .. 1,024.
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

# job NAME ODD_RANK ODD_RECORD: $ranks ranks, each with a 64-byte record
# but ODD_RANK (-1: none), whose record is ODD_RECORD bytes; the bootstrap's
# timeout 15 s, so that a broken case ends well within meson's 120.  Rank
# R's stderr in $tmp/NAME.errR (rank 0's: NAME.err); returns rank 0's
# status; sets failed: how many other ranks did not exit 0.
job() {
	local name=$1 odd=$2 odd_record=$3 port r record p pids=() rc=0
	port=$(free_port)
	for ((r = 0; r < ranks; r++)); do
		record=64
		[ "$r" = "$odd" ] && record=$odd_record
		LANEBENCH_RANK=$r LANEBENCH_SIZE=$ranks LANEBENCH_COORD=127.0.0.1:$port \
			LANEBENCH_TOKEN="test$$-$port" LANEBENCH_TIMEOUT=15 \
			"$B" --record "$record" >"$tmp/$name.out$r" 2>"$tmp/$name.err$r" &
		pids+=($!)
		test_pids+=($!)
	done
	wait "${pids[0]}" || rc=$?
	mv "$tmp/$name.err0" "$tmp/$name.err"
	failed=0
	for p in "${pids[@]:1}"; do wait "$p" || failed=$((failed + 1)); done
	return "$rc"
}

# Rank 0 holds a connection per rank: under a soft open-files limit of 64
# it raises its own (to the hard one) and the job meets; a hard limit below
# what it needs fails at once, naming both limits.
rc=0
(ulimit -Sn 64 && job low -1 64) || rc=$?
[ "$rc" = 0 ] && ok "soft limit of 64 open files: $ranks ranks meet" ||
	fail "soft limit of 64: exit $rc: $(cat "$tmp/low.err")"
SECONDS=0
(ulimit -Sn 100 && ulimit -Hn 200 && local_rank 0 "$ranks" "$(free_port)" --record 64 >/dev/null 2>"$tmp/hard.err") &&
	fail "hard limit of 200: rank 0 exit 0"
grep -q "a job of $ranks ranks needs 256 open files at rank 0 (one per rank): the limit is [0-9]*, hard limit 200 (ulimit -n)" "$tmp/hard.err" &&
	[ "$SECONDS" -lt 10 ] && ok "hard limit of 200: rank 0 fails at once: $(cat "$tmp/hard.err")" ||
	fail "hard limit of 200 (${SECONDS} s): $(cat "$tmp/hard.err")"

# Rank 5 contributes 32 bytes where the others contribute 64: the
# allgather must fail on every rank (rank 0 names rank 5) at once, not
# by waiting out the 15 s timeout.
SECONDS=0
job odd 5 32 && fail "a record of another size: rank 0 exit 0"
[ "$failed" = $((ranks - 1)) ] && ok "a record of another size: every other rank failed too" ||
	fail "a record of another size: $failed of $((ranks - 1)) other ranks failed"
grep -q "rank 5 called allgather(32 bytes) but rank 0 called allgather(64 bytes)" "$tmp/odd.err" &&
	ok "rank 0 names rank 5's allgather" || fail "rank 0 said: $(cat "$tmp/odd.err")"
grep -q "rank 5 called allgather" "$tmp/odd.err77" &&
	ok "another rank is told the same reason" || fail "rank 77 said: $(cat "$tmp/odd.err77")"
[ "$SECONDS" -lt 10 ] && ok "the failure took ${SECONDS} s, no timeout waited out" ||
	fail "the failure took ${SECONDS} s"

finish rendezvous
