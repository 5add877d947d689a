#!/usr/bin/env bash
# A rank that dies (KILL) or freezes (STOP) in the middle of a broadcast:
# every other rank must exit with status 3 (another rank failed), naming
# rank 2, within --timeout (10 s).  The signal is sent once rank 2 says
# its second iteration's data phase started (bcast --verbose), never after
# a fixed sleep, so it cannot land in set-up.  Prints each survivor's
# kill-to-exit latency.  Emulated cluster, 4 ranks x 2 rails (root).
# Exit 0 all passed, 1 some check failed, 77 skipped (no namespaces).
set -uo pipefail
usage="usage: killed_rank_test.sh path/to/tests/lib.sh LANEBENCH CLUSTER_SCRIPT TRANSPORT SIGNAL..."
source "${1:?$usage}"
shift
readonly VICTIM=2 SURVIVORS="0 1 3" TIMEOUT=10
runner='' victim='' rundir='' started=0
# stop_case: the run in progress, before the cluster goes down (at_exit
# hooks run in the order added)
stop_case() {
	[ -n "$victim" ] && kill -KILL "$victim" 2>/dev/null
	[ -n "$runner" ] && kill "$runner" 2>/dev/null && wait "$runner" 2>/dev/null
	# EAL's runtime directory of a killed dpdk rank (the others remove theirs)
	[ -n "$rundir" ] && rm -rf "$rundir"
	return 0
}
at_exit stop_case
use_lanebench "${1:?$usage}"
use_cluster "${2:?$usage}" lbk
transport=${3:?$usage}
shift 3

# Bounded wait (60 s) for rank 2's "iteration 2/N started"; 1 if the run
# ended or the line never came.
wait_data_phase() {
	local deadline=$((SECONDS + 60))
	while [ $SECONDS -lt $deadline ] && kill -0 "$runner" 2>/dev/null; do
		grep -qE "rank $VICTIM: .* iteration 2/[0-9]+ started" "$tmp/logs/rank$VICTIM.log" 2>/dev/null &&
			return 0
		sleep 0.02
	done
	return 1
}

gone() { # pid: exited (or a zombie not reaped yet)
	local state=''
	[ -r "/proc/$1/stat" ] || return 0
	read -r _ _ state _ <"/proc/$1/stat" 2>/dev/null || return 0
	[ "$state" = Z ]
}

# Polls the survivors until all exited (bounded: 30 s after the signal);
# their exit times go to exited[rank].
declare -A exited
watch_survivors() { # t0, then rank=pid...
	local t0=$1 deadline=$((SECONDS + 30)) left rp r p
	shift
	while [ $SECONDS -lt $deadline ]; do
		left=0
		for rp in "$@"; do
			r=${rp%=*} p=${rp#*=}
			if [ -z "${exited[$r]:-}" ] && gone "$p"; then exited[$r]=$EPOCHREALTIME; fi
			[ -n "${exited[$r]:-}" ] || left=1
		done
		[ $left = 0 ] && return 0
		sleep 0.01
	done
}

# The error line a rank printed last (not a progress line), or nothing.
error_line() { grep -v ' started$' "$tmp/logs/rank$1.log" | grep 'lanebench bcast:' | tail -1; }

one_case() { # signal
	local sig=$1 r pids=() t0 elapsed worst=0 report=''
	rm -rf "$tmp/logs" "$tmp/run.log"
	exited=() started=$SECONDS
	"$cluster" run --name "$name" --timeout 120 --log-dir "$tmp/logs" -- \
		"$B" bcast -t "$transport" --no-pin --timeout "$TIMEOUT" --verbose -a chain \
		-m 16M -s 256K -i 500 -x 0 --no-calibration -o "$tmp/k.csv" >"$tmp/run.log" 2>&1 &
	runner=$!
	if ! wait_data_phase; then
		local how='had exited' rc
		if kill -0 "$runner" 2>/dev/null; then how='was still running: ended it'; kill "$runner"; fi
		wait "$runner"
		rc=$? runner=''
		fail "$transport $sig: rank $VICTIM never reported its second iteration after $((SECONDS - started)) s (cluster run $how, status $rc)"
		# Everything the run said: which rank ended it, and why.
		echo "run.log:"; sed 's/^/    /' "$tmp/run.log" 2>/dev/null | tail -20
		ls -l "$tmp/logs" 2>&1 | sed 's/^/    /'
		for r in 0 1 2 3; do echo "rank $r log:"; tail -5 "$tmp/logs/rank$r.log" 2>&1 | sed 's/^/    /'; done
		return
	fi
	victim=$(ip netns pids "$name-h$VICTIM")
	for r in $SURVIVORS; do pids+=("$r=$(ip netns pids "$name-h$r")"); done
	rundir=$(readlink /proc/"$victim"/fd/* 2>/dev/null | grep -m1 -E '^/(var/)?run/dpdk/' | xargs -r dirname)
	t0=$EPOCHREALTIME
	kill -s "$sig" "$victim"
	watch_survivors "$t0" "${pids[@]}"
	[ "$sig" = KILL ] || kill -KILL "$victim" # a frozen rank's turn to go
	wait "$runner"
	runner='' victim=''
	[ -z "$rundir" ] || rm -rf "$rundir"
	rundir=''
	for r in $SURVIVORS; do
		local st line
		st=$(sed -n "s/^cluster run: rank $r failed: exit status //p" "$tmp/run.log")
		[ -n "$st" ] || { echo "run.log:"; sed "s/^/    /" "$tmp/run.log" | tail -12; }
		line=$(error_line "$r")
		if [ -z "${exited[$r]:-}" ]; then
			fail "$transport $sig: rank $r still running 30 s after rank $VICTIM got $sig"
			continue
		fi
		elapsed=$(awk -v a="$t0" -v b="${exited[$r]}" 'BEGIN { printf "%.2f", b - a }')
		report="$report rank $r ${elapsed} s,"
		awk -v e="$elapsed" -v w="$worst" 'BEGIN { exit !(e > w) }' && worst=$elapsed
		[ "$st" = 3 ] || fail "$transport $sig: rank $r exit status '$st', want 3"
		[[ $line =~ rank\ $VICTIM([^0-9]|$) ]] || fail "$transport $sig: rank $r does not name rank $VICTIM: '$line'"
		awk -v e="$elapsed" -v t="$TIMEOUT" 'BEGIN { exit !(e < t) }' ||
			fail "$transport $sig: rank $r exited $elapsed s after the signal (limit: --timeout $TIMEOUT s)"
	done
	# The signal landed in the data phase: rank 2's last words are an iteration's start.
	tail -1 "$tmp/logs/rank$VICTIM.log" | grep -qE 'iteration ([2-9]|[1-9][0-9]+)/[0-9]+ started$' ||
		fail "$transport $sig: rank $VICTIM was not in its data phase: '$(tail -1 "$tmp/logs/rank$VICTIM.log")'"
	# Rows finished before the kill are kept, marked incomplete (none here:
	# the first configuration outlasts the kill); never a complete-looking
	# file, never a temporary one.
	if [ -e "$tmp/k.csv" ] && ! tail -n 1 "$tmp/k.csv" | grep -q '^# lanebench: incomplete'; then
		fail "$transport $sig: a failed run left a CSV that looks complete"
	fi
	! ls "$tmp" | grep -q '\.tmp\.' || fail "$transport $sig: a temporary CSV was left behind"
	echo "kill-to-exit ($transport, $sig, --timeout $TIMEOUT s):${report%,}; slowest $worst s"
	for r in $SURVIVORS; do echo "  rank $r: $(error_line "$r")"; done
}

# 50 Mbit/s: one 16M iteration takes about 1.3 s, so the signal lands in
# its data phase even when this script is starved for a few hundred ms
# after rank 2's "started" line (at 200 Mbit/s, 0.33 s, a loaded 2-core
# machine once let the iteration end first: the survivors then waited in
# the next collective for the frozen rank until --timeout).
"$cluster" up 4 --rails 2 --rate 50mbit --name "$name" >/dev/null || {
	fail "cluster up"
	finish "killed-rank ($transport)"
}
for sig in "$@"; do
	before=$(failure_count)
	one_case "$sig"
	[ "$(failure_count)" = "$before" ] && ok "$transport, rank $VICTIM got $sig mid-broadcast: the others exit 3 naming it"
done
finish "killed-rank ($transport)"
