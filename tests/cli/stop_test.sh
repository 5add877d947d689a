#!/usr/bin/env bash
# Stopping and losing output: SIGTERM ends sim within seconds even in the
# middle of one long configuration (exit 143, the finished rows kept with
# the incomplete trailer); SIGKILL leaves no temporary file; a command
# whose stdout is /dev/full fails (1); a full disk is said, not a file
# "kept" that is gone.
set -u
usage="usage: stop_test.sh path/to/tests/lib.sh path/to/lanebench"
source "${1:?$usage}"
shift
use_lanebench "${1:?$usage}"
not_in_a_job

# A fast configuration (2 ranks: its row comes at once), then one that
# runs about 10 s alone (fluid, 1,024 ranks x 16,384 blocks; minutes under
# ASan), so a stop lands inside it.
slow_sim=(sim -a chain -p 2,1024 -m 1G --model fluid)
# The bound on SIGTERM to exit: 5 s, generous for ASan on a busy machine;
# without the stop polls it is the slow configuration's whole run.
bound_ms=5000

mkfifo "$tmp/table"

# start_slow DIR: runs slow_sim -o f.csv in DIR in the background (pid in
# $pid), its table on the FIFO, and returns once the first row is out
# (its CSV row is on disk then): a bounded read, never a sleep.
start_slow() {
	mkdir -p "$1"
	(cd "$1" && exec "$B" "${slow_sim[@]}" -o f.csv >"$tmp/table" 2>"$tmp/slow.err") &
	pid=$!
	test_pids+=("$pid")
	exec {table}<"$tmp/table"
	local line
	while read -r -t 60 -u "$table" line; do
		case $line in chain*) return 0 ;; esac
	done
	fail "${slow_sim[*]}: no first row within 60 s: $(cat "$tmp/slow.err")"
	return 1
}

stop_slow() {
	timeout 60 cat <&"$table" >/dev/null # drain until it exits (bounded)
	exec {table}<&-
}

# --- SIGTERM inside a long configuration ----------------------------------------
if start_slow "$tmp/term"; then
	t0=$(date +%s%N)
	kill -TERM "$pid"
	rc=0
	wait "$pid" || rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	stop_slow
	echo "SIGTERM to exit: $ms ms"
	[ "$rc" = 143 ] || fail "sim, SIGTERM: exit $rc, want 143: $(cat "$tmp/slow.err")"
	[ "$ms" -le "$bound_ms" ] || fail "sim, SIGTERM: exit after $ms ms, want at most $bound_ms"
	f=$tmp/term/f.csv
	if [ -f "$f" ]; then
		# every row as long as the header, one trailer, last
		csv_awk 'NF != length(c) { print "short row: " $0; bad = 1 } END { exit bad }' "$f" ||
			fail "sim, SIGTERM: a row cut short in $f"
		[ "$(grep -c '^# lanebench: incomplete' "$f")" = 1 ] &&
			tail -n 1 "$f" | grep -q '^# lanebench: incomplete after [1-9][0-9]* rows: terminated (SIGTERM)' ||
			fail "sim, SIGTERM: no incomplete trailer last: $(tail -n 2 "$f")"
	else
		fail "sim, SIGTERM: no file $f: $(cat "$tmp/slow.err")"
	fi
	[ -z "$(ls "$tmp/term" | grep -v '^f.csv$')" ] || fail "sim, SIGTERM: left $(ls "$tmp/term")"
fi

# --- SIGTERM inside GLPK ------------------------------------------------------------------
# lp-prune solves the LP bound before its first row: a minute on 45 nodes.
# Synchronised on the output file being open (the run is armed then; a
# signal before that kills it at once, 143 too), whatever its name.
"$B" platform gen random --nodes 45 --density 0.2 --seed 1 -o "$tmp/r45.platform" ||
	fail "platform gen failed"
mkdir "$tmp/lp"
(cd "$tmp/lp" && exec "$B" sim --platform "$tmp/r45.platform" -a lp-prune -m 1M -o f.csv \
	>/dev/null 2>"$tmp/lp.err") &
pid=$!
test_pids+=("$pid")
for _ in $(seq 600); do # at most 60 s
	ls -l "/proc/$pid/fd" 2>/dev/null | grep -q " -> $tmp/lp/" && break
	sleep 0.1
done
t0=$(date +%s%N)
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
echo "SIGTERM to exit, in the LP: $ms ms"
[ "$rc" = 143 ] || fail "sim -a lp-prune, SIGTERM: exit $rc, want 143: $(cat "$tmp/lp.err")"
[ "$ms" -le "$bound_ms" ] || fail "sim -a lp-prune, SIGTERM: exit after $ms ms, want at most $bound_ms"
[ -z "$(ls -A "$tmp/lp")" ] || fail "sim -a lp-prune, SIGTERM: left $(ls -A "$tmp/lp") (no row was done)"

# --- SIGKILL leaves no temporary file ----------------------------------------------
if start_slow "$tmp/kill"; then
	kill -KILL "$pid"
	wait "$pid"
	stop_slow
	[ -z "$(ls -A "$tmp/kill")" ] || fail "sim, SIGKILL: left $(ls -A "$tmp/kill")"
fi

# --- stdout lost: /dev/full -----------------------------------------------------------
# full_stdout ARGS...: lanebench ARGS >/dev/full exits 1, saying so.
full_stdout() {
	local rc=0
	"$B" "$@" >/dev/full 2>"$tmp/full.err" || rc=$?
	[ "$rc" = 1 ] || fail "lanebench $* >/dev/full: exit $rc, want 1: $(cat "$tmp/full.err")"
	grep -q 'No space left on device' "$tmp/full.err" ||
		fail "lanebench $* >/dev/full: stderr does not say so: $(cat "$tmp/full.err")"
}
printf 'nodes 2\ndefault bw 1gbit\n' >"$tmp/two.platform"
full_stdout --help
full_stdout --version
full_stdout sim --help
full_stdout compare --help
full_stdout lp --platform "$tmp/two.platform"
full_stdout plan -a chain -p 4 -m 4K
full_stdout topo
"$B" sim -a chain -p 4 -m 4K -o "$tmp/a.csv" >/dev/null || fail "sim -o a.csv failed"
full_stdout compare "$tmp/a.csv" "$tmp/a.csv"
full_stdout sim -a chain -p 4 -m 4K

# --- a full disk: no file, and no claim of one ---------------------------------------
# In a private mount namespace, over a 64 KiB tmpfs; skipped without root.
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
	rc=0
	unshare -m bash -c 'mount -t tmpfs -o size=64k lbfull "$1" && cd "$1" &&
		exec "$2" sim -a all -p 2:256 -m 4K:64M -o f.csv' _ "$tmp/kill" "$B" \
		>/dev/null 2>"$tmp/disk.err" || rc=$?
	[ "$rc" = 1 ] || fail "sim on a full disk: exit $rc, want 1: $(tail -3 "$tmp/disk.err")"
	grep -q 'No space left on device' "$tmp/disk.err" ||
		fail "sim on a full disk: ENOSPC not said: $(tail -3 "$tmp/disk.err")"
	grep -q 'kept' "$tmp/disk.err" && fail "sim on a full disk claims a file: $(grep kept "$tmp/disk.err")"
	# No /proc (a chroot, a bare container): an unnamed file could never
	# be named, so the run writes a named temporary file instead.  Not
	# under ASan: its runtime reads its options and maps from /proc.
	if ldd "$B" 2>/dev/null | grep -q libasan; then
		echo "skip: no /proc (an ASan build needs /proc)"
	else
		mkdir "$tmp/noproc"
		rc=0
		unshare -m bash -c 'mount -t tmpfs -o size=1m lbnoproc /proc && cd "$1" &&
			exec "$2" sim -a chain -p 4 -m 4K,64K -o f.csv' _ "$tmp/noproc" "$B" \
			>/dev/null 2>"$tmp/noproc.err" || rc=$?
		[ "$rc" = 0 ] || fail "sim without /proc: exit $rc: $(tail -3 "$tmp/noproc.err")"
		[ "$(grep -vc '^#' "$tmp/noproc/f.csv" 2>/dev/null)" = 3 ] ||
			fail "sim without /proc: want f.csv with a header and 2 rows, have: $(ls "$tmp/noproc")"
	fi
else
	echo "skip: full disk, no /proc (need root and unshare -m)"
fi

finish stop_test
