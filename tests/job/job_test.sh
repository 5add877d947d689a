#!/usr/bin/env bash
# Jobs of plain processes on this host (no root, no namespaces): ranks meet
# at 127.0.0.1 and use loopback lanes.  Start-up obeys --timeout: a rank
# whose peer never shows up stops within seconds, naming the missing rank.
#   job_test.sh LANEBENCH
set -uo pipefail
lanebench=${1:?usage: job_test.sh path/to/lanebench}
tmp=$(mktemp -d)
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
fails=0

ok() { echo "ok: $*"; }
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# rank RANK SIZE PORT CMD ARGS...: one rank of a job at 127.0.0.1:PORT
rank() {
	local r=$1 n=$2 port=$3
	shift 3
	env -u LANEBENCH_TIMEOUT -u LANEBENCH_LANES LANEBENCH_RANK="$r" LANEBENCH_SIZE="$n" \
		LANEBENCH_TOKEN="job$$-$port" LANEBENCH_COORD="127.0.0.1:$port" "$lanebench" "$@"
}

# alone RANK WANT1 WANT2 ARGS...: a rank of a 2-rank job started without
# its peer, with --timeout 3s: it must fail within 10 s, with both texts
# in its last line.
alone() {
	local r=$1 want1=$2 want2=$3 start=$SECONDS rc=0 took last
	shift 3
	rank "$r" 2 "$(free_port)" "$@" --lanes 127.0.0.1 --timeout 3s >"$tmp/alone.out" 2>&1 &
	pids+=($!)
	wait $! || rc=$?
	took=$((SECONDS - start))
	last=$(tail -1 "$tmp/alone.out")
	if [ "$rc" != 0 ] && [ "$took" -le 10 ] && [[ $last == *"$want1"* && $last == *"$want2"* ]]; then
		ok "$1 rank $r alone, --timeout 3s: exit $rc after $took s: $last"
	else
		fail "$1 rank $r alone, --timeout 3s: exit $rc after $took s, want '$want1' and '$want2': $last"
	fi
}

# --- start-up obeys --timeout ------------------------------------------------
alone 0 "rank(s) 1 never connected" "timeout after 3 s" bcast --no-pin
alone 1 "coordinator (rank 0)" "timeout after 3 s" bcast --no-pin
alone 0 "rank(s) 1 never connected" "timeout after 3 s" p2p

# --- one rank, explicitly: it runs, but reports no bandwidth ------------------
# (nothing moves: bytes over an empty iteration would be terabytes per second)
if rank 0 1 "$(free_port)" bcast --lanes 127.0.0.1 --no-pin -a chain,binary -m 4K,1M -i 2 -x 0 \
	--lane-rate 1gbit -o "$tmp/one.csv" >"$tmp/one.out" 2>&1; then
	if awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["ranks"] != 1 || $c["algbw_bytes_per_second"] != "" || $c["efficiency_ratio"] != "" ||
		$c["time_median_seconds"] == "" { bad++ } END { exit !(NR == 5 && !bad) }' "$tmp/one.csv"; then
		ok "LANEBENCH_SIZE=1 bcast: 4 rows, times but empty bandwidth and efficiency"
	else
		fail "LANEBENCH_SIZE=1 bcast: CSV: $(cut -d, -f3,4,19-21 "$tmp/one.csv" | tr '\n' ' ')"
	fi
else
	fail "LANEBENCH_SIZE=1 bcast failed: $(tail -2 "$tmp/one.out")"
fi

echo "job: $fails failure(s)"
[ "$fails" = 0 ]
