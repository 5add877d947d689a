# shellcheck shell=bash
# tests/lib.sh: what lanebench's shell tests have in common, sourced first:
#   usage="usage: NAME.sh path/to/tests/lib.sh ..."
#   source "${1:?$usage}"
#   shift
# meson passes this file's path as the first argument (tests/meson.build's
# test_lib), the way it passes the binaries, so a script runs from any build
# directory and by hand alike.  Sourcing it gives the script:
#   tmp             a scratch directory, removed however the script ends
#   test_pids       an array: background processes to kill at exit
#   at_exit FN      more clean-up (a cluster to take down ...) at exit
#   ok, fail, result, check, finish NAME   assertions and the verdict
#   use_lanebench, run, expect_ok, expect_status   the command under test
#   not_in_a_job, csv_column, csv_awk, free_port, local_rank, local_job,
#   use_cluster
# Each is explained where it is defined.  bash only (arrays, ${x//...}).
# Why one file: every script used to open with its own copy of these (a
# dozen fail() and tmp traps, three run()s, nine awk column readers), and
# the copies had drifted apart (stdout or stderr, 'fails' or 'failures',
# subshell failures lost).

# --- scratch space and clean-up ----------------------------------------------
# Every test writes files and most start processes; what they leave must go
# on every way out (an assertion, meson's SIGTERM on a timeout, Ctrl-C: bash
# runs the EXIT trap on those too), so one trap owns it all.
# shellcheck disable=SC2034 # for a test that runs another test script
test_lib=${BASH_SOURCE[0]}
tmp=$(mktemp -d)
test_failures_log=$(mktemp) # see fail
test_pids=()
test_exit_hooks=()

# at_exit FUNCTION: call FUNCTION at exit, after test_pids are killed and
# before $tmp is removed (hooks run in the order they were added).
at_exit() {
	test_exit_hooks+=("$1")
}

test_cleanup() {
	local p hook
	for p in "${test_pids[@]}"; do kill -9 "$p" 2>/dev/null; done
	for hook in "${test_exit_hooks[@]}"; do "$hook"; done
	rm -rf "$tmp" "$test_failures_log"
}
trap test_cleanup EXIT

# --- assertions ----------------------------------------------------------------
ok() { echo "ok: $*"; }

# fail WHY: prints it and counts a failure.  Counted in a file, not a
# variable: a check inside a subshell ($(...), a pipeline's loop, ( cd ... ),
# a background job) must fail the test too, and a subshell's variables die
# with it.  One line a failure, however many lines WHY has.
fail() {
	echo "FAIL: $*"
	printf '%s\n' "${*//$'\n'/ }" >>"$test_failures_log"
}

failure_count() { wc -l <"$test_failures_log"; }

# result STATUS OK_TEXT FAIL_TEXT: ok or fail by a command's exit status ($?).
result() {
	if [ "$1" = 0 ]; then ok "$2"; else fail "$3"; fi
}

# check WHAT CMD ARGS...: runs CMD, ok if it exits 0, else a failure with
# the last 20 lines of its output; that output (stdout and stderr) is left
# in $check_out either way, for further checks.
check() {
	local what=$1
	shift
	if check_out=$("$@" 2>&1); then
		ok "$what"
	else
		fail "$what (exit $?):"
		printf '%s\n' "$check_out" | tail -20 | sed 's/^/    /'
	fi
}

# finish NAME: the verdict line, and the script's exit status: 0 when every
# check passed, 1 when one failed.
finish() {
	local n
	n=$(failure_count)
	if [ "$n" -eq 0 ]; then
		echo "$1: all checks passed"
		exit 0
	fi
	echo "$1: $n failure(s)"
	exit 1
}

# --- the lanebench command under test ------------------------------------------
# use_lanebench PATH [SUBCOMMAND...]: what run and expect_* invoke.  Sets B
# to PATH made absolute (some checks cd) and LB to B and the subcommand.
use_lanebench() {
	B=$(realpath "$1")
	shift
	LB=("$B" "$@")
	LB_SHOWN="lanebench${*:+ $*}" # how failures name it
}

# run ARGS...: runs LB with ARGS; sets rc, out and err (its stdout and
# stderr, also left in $tmp/out and $tmp/err for grep, awk and head).
run() {
	"${LB[@]}" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	# shellcheck disable=SC2034 # for the caller's checks
	out=$(cat "$tmp/out")
	err=$(cat "$tmp/err")
}

# expect_ok ARGS...: run, and exit status 0.
expect_ok() {
	run "$@"
	[ "$rc" -eq 0 ] || fail "$LB_SHOWN $*: exit $rc: $err"
}

# expect_status STATUS NEEDLE ARGS...: run, that exit status, NEEDLE in
# its stderr.
expect_status() {
	local want=$1 needle=$2
	shift 2
	run "$@"
	[ "$rc" -eq "$want" ] || fail "$LB_SHOWN $*: exit $rc, want $want: $err"
	case $err in
	*"$needle"*) ;;
	*) fail "$LB_SHOWN $*: stderr lacks \"$needle\": $err" ;;
	esac
}

# not_in_a_job: forget any job the caller's environment describes, so that
# lanebench does not take the test for one of its ranks.
not_in_a_job() {
	unset LANEBENCH_RANK LANEBENCH_SIZE SLURM_PROCID SLURM_NTASKS OMPI_COMM_WORLD_RANK \
		OMPI_COMM_WORLD_SIZE PMI_RANK PMI_SIZE LANEBENCH_NICS LANEBENCH_LANES
}

# --- CSV files -------------------------------------------------------------------
# csv_column FILE NAME: the values of column NAME, one a line, for every row
# of a lanebench CSV (FILE '-': stdin); lines starting with '#' (the
# provenance head, a trailer) are skipped and the first other line is the
# header.  A file without that column is a failure, not an empty column
# (an empty one is what some checks want), said on stderr: the values are
# mostly read through $(...).
csv_column() {
	awk -F, -v name="$2" '/^#/ { next }
		!header++ { for (i = 1; i <= NF; i++) if ($i == name) c = i
			if (!c) exit 1
			next }
		{ print $c }' "$1" || fail "csv_column: $1: no column '$2' (or no such file)" >&2
}

# csv_awk [-v VAR=VALUE]... PROGRAM FILE...: awk PROGRAM over the rows of
# lanebench CSVs, fields split at commas, with c[NAME] the index of column
# NAME ($c["message_bytes"]): the checks name columns, never count them, so
# that a column added to the schema breaks none.  '#' lines and the header
# never reach PROGRAM.
csv_awk() {
	local opts=()
	while [ "$1" = -v ]; do
		opts+=("$1" "$2")
		shift 2
	done
	local program=$1
	shift
	awk -F, "${opts[@]}" '/^#/ { next }
		!csv_header++ { for (i = 1; i <= NF; i++) c[$i] = i; next }
		'"$program" "$@"
}

# --- jobs of local processes -------------------------------------------------------
# free_port: a TCP port free on 127.0.0.1 now, for a job's coordinator.
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# local_rank [--exec] RANK SIZE PORT ARGS...: one rank of a job of SIZE
# ranks whose coordinator listens at 127.0.0.1:PORT, running lanebench ($B)
# ARGS; the caller's timeout and NIC variables are dropped (the test names
# its own).  --exec: lanebench replaces the (sub)shell, so that $! is its
# PID when a test signals it.
local_rank() {
	local how=()
	[ "$1" = --exec ] && how=(exec) && shift
	local r=$1 n=$2 port=$3
	shift 3
	"${how[@]}" env -u LANEBENCH_TIMEOUT -u LANEBENCH_NICS -u LANEBENCH_LANES \
		LANEBENCH_RANK="$r" LANEBENCH_SIZE="$n" LANEBENCH_TOKEN="test$$-$port" \
		LANEBENCH_COORD="127.0.0.1:$port" "$B" "$@"
}

# local_job NAME SIZE ARGS...: a job of SIZE ranks (local_rank, on a free
# port) running lanebench ARGS; rank 0's stdout and stderr in $tmp/NAME.out
# and .err, rank R's stderr in $tmp/NAME.errR, every rank's exit status in
# $statuses (rank order, space-separated).  Returns rank 0's exit status if
# not 0, else the first other rank's that is not.
local_job() {
	local name=$1 size=$2 port r rc=0 s p mine=()
	shift 2
	port=$(free_port)
	for ((r = 1; r < size; r++)); do
		local_rank "$r" "$size" "$port" "$@" >/dev/null 2>"$tmp/$name.err$r" &
		mine+=($!)
		test_pids+=($!)
	done
	local_rank 0 "$size" "$port" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" || rc=$?
	statuses=$rc
	for p in "${mine[@]}"; do
		s=0
		wait "$p" || s=$?
		statuses+=" $s"
		[ "$rc" != 0 ] || rc=$s
	done
	return "$rc"
}

# --- the emulated cluster (scripts/cluster) ------------------------------------------
# use_cluster SCRIPT PREFIX: sets cluster to SCRIPT and name to a cluster
# name of this test's own, taken down at exit; skips the test (exit 77)
# unless it runs as root and can make network namespaces.  The name is
# PREFIX and the PID's last three digits: two tests that meson runs side by
# side must not share a cluster (the first six characters of PREFIX$$
# could, when their PIDs were close: one's `up` would take the other's
# down), so each test has its own PREFIX.
use_cluster() {
	cluster=$1
	name=$2$(printf %03d $(($$ % 1000)))
	if [ "$(id -u)" != 0 ] || ! ip netns add "$name-probe" 2>/dev/null; then
		echo "SKIP: needs root and network namespaces"
		exit 77
	fi
	ip netns del "$name-probe"
	at_exit cluster_down
}

cluster_down() {
	"$cluster" down --name "$name" >/dev/null 2>&1
}

# The cluster's names, as scripts/cluster gives them (the one place that
# knows its layout): h I, the namespace of host I; sw, the switch's;
# port I R, the switch end of host I's veth on rail R.
h() { "$cluster" ns "$1" --name "$name"; }
sw() { "$cluster" ns sw --name "$name"; }
port() { "$cluster" port "$1" "$2" --name "$name"; }

# needs_tools TOOL...: the test fails at once (exit 1), naming the first
# TOOL not installed (scripts/deps installs them all).
needs_tools() {
	local tool
	for tool; do
		command -v "$tool" >/dev/null || { echo "FAIL: $tool not installed"; exit 1; }
	done
}

# --- measuring the emulated WAN (tests/cluster/wan*_test.sh) ---------------------
# The WAN shares a loaded 2-core machine with everything else: one
# measurement can land on a moment when the hosts' own network processing
# (softirqs, ksoftirqd: ordinary priority, unlike the delay line) waits for
# a CPU.  Measured 2026-11-24 beside two busy loops at load average 20-40:
# a round trip's median 3.4 ms over 2 x the delay, and TCP at 0.32 of the
# rate, in 3 of 14 runs, each with the line itself on time.  So a WAN
# check takes up to 3 attempts and holds when one does; each is printed.

# rtt_stats NS ADDR -> "min median max" in ms of 20 pings from namespace NS
# (one first, for ARP); empty when none came back.
rtt_stats() {
	ip netns exec "$1" ping -c 1 -W 2 "$2" >/dev/null 2>&1
	ip netns exec "$1" ping -c 20 -i 0.02 -W 2 "$2" 2>/dev/null |
		sed -n 's/.*time=\([0-9.]*\) ms/\1/p' | sort -g |
		awk '{ v[NR] = $1 } END { if (NR) print v[1], v[int((NR + 1) / 2)], v[NR] }'
}

# wan_rtt_check WHAT NS ADDR DELAY_MS MIN_SLACK_MS MEDIAN_SLACK_MS: the round
# trip NS -> ADDR is at least 2 x DELAY_MS, its minimum within MIN_SLACK_MS
# of that and its median within MEDIAN_SLACK_MS, in one of 3 attempts.
wan_rtt_check() {
	local what=$1 seen='' attempt lo median hi
	for attempt in 1 2 3; do
		read -r lo median hi <<<"$(rtt_stats "$2" "$3")"
		seen+="${seen:+; }min ${lo:-none}, median ${median:-none}, max ${hi:-none}"
		if awk -v lo="${lo:-0}" -v m="${median:-0}" -v d="$4" -v s="$5" -v ms="$6" \
			'BEGIN { exit !(lo >= 2 * d && lo <= 2 * d + s && m <= 2 * d + ms) }'; then
			ok "$what: rtt $seen ms (attempt $attempt; 2 x $4 ms + up to $5, median up to $6)"
			return
		fi
	done
	fail "$what: rtt $seen ms in 3 attempts, want 2 x $4 ms + up to $5, median up to $6"
}

# tcp_bits SERVER_NS CLIENT_NS ADDR PORT -> bit/s of 4 s of iperf3 from
# CLIENT_NS to the server it starts in SERVER_NS at ADDR:PORT; empty when it
# failed.  No omitted first second (-O): frames a stalled line held past it
# arrived inside the measured seconds, which then read up to 1.26 x a rate
# the line shapes.
tcp_bits() {
	local server bits
	ip netns exec "$1" iperf3 -s -1 -p "$4" >/dev/null 2>&1 &
	server=$!
	test_pids+=("$server")
	for _ in $(seq 50); do # up to 10 s: a loaded host starts it late
		ip netns exec "$1" ss -ltn 2>/dev/null | grep -q ":$4 " && break
		sleep 0.2
	done
	bits=$(ip netns exec "$2" iperf3 -c "$3" -p "$4" -t 4 -J 2>/dev/null |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"])' 2>/dev/null)
	[ -n "$bits" ] || kill "$server" 2>/dev/null # -s -1 waits for its one client
	wait "$server" 2>/dev/null
	echo "$bits"
}

# wan_tcp_check WHAT SERVER_NS CLIENT_NS ADDR PORT RATE FLOOR: TCP reaches
# FLOOR x RATE (bit/s) in one of 3 attempts, and no attempt exceeds 1.05 x
# RATE (the shaping).
wan_tcp_check() {
	local what=$1 seen='' attempt bits
	for attempt in 1 2 3; do
		bits=$(tcp_bits "$2" "$3" "$4" "$5")
		seen+="${seen:+, }${bits:-none}"
		if ! awk -v b="${bits:-0}" -v r="$6" 'BEGIN { exit !(b <= 1.05 * r) }'; then
			break
		elif awk -v b="${bits:-0}" -v r="$6" -v f="$7" 'BEGIN { exit !(b > f * r) }'; then
			ok "$what: TCP $seen bit/s (attempt $attempt; $7-1.05 x $6)"
			return
		fi
	done
	fail "$what: TCP $seen bit/s, want $7-1.05 x $6 in one of 3 attempts and none above"
}
