#!/usr/bin/env bash
# Bad input a new user meets (issue 30's leftovers), each refused at once
# with a message naming what is wrong:
#   - a file without end: /dev/zero and a FIFO fed without a line break,
#     as compare's CSV, a platform file (platform show, sim, plan, lp):
#     exit 2 naming the file (each hung, reading until memory ran out);
#   - -o X --json X (the JSON lost): exit 2 naming X, nothing written;
#   - an -o or --json that cannot be created (a directory, a missing
#     directory): exit 2 before the run (refused only after it);
#   - multilane alone on -k 3 or -d a,b,c (it runs as on 2 lanes, the table said 3):
#     exit 2 naming the lanes it uses; beside klane a note;
#   - plan of a schedule that cannot fit in memory: exit 4 at once, as sim
#     (it grew for minutes);
#   - -m A:B:F, a factor as nccl-tests' -f, and the factors refused.
# Every command is bounded by timeout: a hang fails, it does not block.
set -u
usage="usage: leftovers_test.sh path/to/tests/lib.sh path/to/lanebench SOURCE_ROOT"
source "${1:?$usage}"
shift
use_lanebench "${1:?$usage}"
SRC=${2:?$usage}
LB=(timeout -k 2 10 "$B")
not_in_a_job

# --- files without end ------------------------------------------------------------
"$B" sim -a binomial -p 4 -m 64K >"$tmp/sim.csv" 2>/dev/null || fail "sim: a CSV to compare"
PF=$SRC/tests/data/seed000_vector1.platform
for f in /dev/zero; do
	expect_status 2 "$f:1: a line longer than 1 MiB" compare "$f" "$tmp/sim.csv"
	expect_status 2 "$f:1: a line longer than 1 MiB" compare "$tmp/sim.csv" "$f"
	expect_status 2 "$f: cannot read: a line longer than 1 MiB" platform show "$f"
	expect_status 2 "$f: cannot read: a line longer than 1 MiB" sim --platform "$f" -a binomial -m 64K
	expect_status 2 "$f: cannot read: a line longer than 1 MiB" plan --platform "$f" -a binomial -m 64K
	expect_status 2 "$f: cannot read: a line longer than 1 MiB" lp --platform "$f"
done
printf 'nodes 2\n\0link 0 1 bw 1gbit\n' >"$tmp/nul.platform" # a NUL inside: the parser would stop there
expect_status 2 "$tmp/nul.platform: cannot read: not a text file (it holds a NUL byte)" \
	platform show "$tmp/nul.platform"
# feed_fifo NAME: a FIFO written 'a' without end (no NUL, no line break);
# the writer ends on SIGPIPE when lanebench stops reading, or at exit.
feed_fifo() {
	rm -f "$tmp/$1"
	mkfifo "$tmp/$1"
	tr '\0' a </dev/zero >"$tmp/$1" 2>/dev/null &
	test_pids+=($!)
}
feed_fifo csv
expect_status 2 "$tmp/csv:1: a line longer than 1 MiB (no line break): not a text file" \
	compare "$tmp/csv" "$tmp/sim.csv"
feed_fifo platform
expect_status 2 "$tmp/platform: cannot read: a line longer than 1 MiB" platform show "$tmp/platform"
feed_fifo platform
expect_status 2 "$tmp/platform: cannot read: a line longer than 1 MiB" \
	sim --platform "$tmp/platform" -a binomial -m 64K
# a platform file of many short lines past 256 MiB would be refused too
# (lib/textin.h): not run here, it reads 256 MiB.
expect_ok platform show "$PF" # an ordinary file still reads

# --- -o and --json ----------------------------------------------------------------
# one file for both: refused before anything is written (the JSON was lost)
for cmd in "sim -a binomial -p 4 -m 64K" "bcast -a binomial -m 64K" "check"; do
	# shellcheck disable=SC2086 # the command's words
	expect_status 2 "--json: '$tmp/both' is the -o file too" $cmd -o "$tmp/both" --json "$tmp/both"
	# shellcheck disable=SC2086
	expect_status 2 "--json: '$tmp/./both' is the -o file too" $cmd -o "$tmp/both" --json "$tmp/./both"
done
[ -e "$tmp/both" ] && fail "-o X --json X: X written"
# a target that cannot be created: refused before the run (no CSV row on
# stdout: sim never started)
mkdir "$tmp/dir"
for cmd in "sim -a binomial -p 4 -m 64K" "plan -a binomial -p 4 -m 64K" "lp --platform $PF" \
	"compare $tmp/sim.csv $tmp/sim.csv" "topo"; do
	# shellcheck disable=SC2086
	expect_status 2 "--json: cannot create '$tmp/dir': a directory, not a file name" $cmd --json "$tmp/dir"
	[ -z "$out" ] || fail "$cmd --json DIR: output before the refusal: $out"
	# shellcheck disable=SC2086
	expect_status 2 "--json: cannot create '$tmp/none/x.json': its directory '$tmp/none': No such file" \
		$cmd --json "$tmp/none/x.json"
done
expect_status 2 "-o/--output: cannot create '$tmp/dir': a directory" sim -a binomial -p 4 -m 64K -o "$tmp/dir"
expect_status 2 "-o/--output: cannot create '$tmp/none/p': its directory" platform show -o "$tmp/none/p" "$PF"
expect_status 2 "-o/--output: cannot create '$tmp/dir': a directory" bcast -a binomial -m 64K -o "$tmp/dir"
# '-' is stdout; both '-' at once is refused
expect_status 2 "'-' and -o - both want stdout" sim -a binomial -p 4 -m 64K -o - --json -
expect_ok sim -a binomial -p 4 -m 64K -o /dev/null --json /dev/null # one device, two writes: fine
(cd "$tmp" && "${LB[@]}" sim -a binomial -p 4 -m 64K -o - --json x.json >/dev/null 2>&1)
[ -e "$tmp/-" ] && fail "sim -o -: a file named '-'"
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$tmp/x.json" || fail "sim --json beside -o -"

# --- multilane's lanes --------------------------------------------------------------
for k in 3 5; do
	expect_status 2 "multilane on $k lanes runs as on $((k - 1))" sim -a multilane -p 8 -k "$k" -m 1M
	expect_status 2 "multilane on $k lanes runs as on $((k - 1))" plan -a multilane -p 8 -k "$k" -m 1M
done
case $err in *"-a klane"*) ;; *) fail "multilane -k 5: klane not suggested: $err" ;; esac
expect_ok sim -a multilane,klane -p 8 -k 3 -m 1M
case $err in *"multilane on 3 lanes runs as on 2"*) ;; *) fail "multilane,klane -k 3: no note: $err" ;; esac
case $out in *"klane,8,3,"*) ;; *) fail "multilane,klane -k 3: no klane row: $out" ;; esac
# the note is true: -k 3 takes exactly the time of -k 2, -k 4 less
t() { "$B" sim -a multilane,klane -p 8 -k "$1" -m 1M -s 32K 2>/dev/null | awk -F, '$1 == "multilane" { print $11 }'; }
[ "$(t 3)" = "$(t 2)" ] && [ "$(t 4)" != "$(t 2)" ] || fail "multilane: -k 2 $(t 2), -k 3 $(t 3), -k 4 $(t 4)"
expect_ok sim -a multilane -p 8 -k 4 -m 1M
expect_ok plan -a multilane -p 8 -k 1 -m 1M
# bcast: the lanes are its -d list, one NIC each, known before any rank runs
expect_status 2 "-d/--nics: multilane on 3 lanes runs as on 2" bcast -a multilane -d a,b,c -m 1M
expect_status 2 "name an even number of NICs" bcast -a multilane -d a,b,c -m 1M

# --- plan refuses what cannot fit, at once, as sim ------------------------------------
expect_status 4 "binomial with 1048576 ranks x 2 lanes, 16M in slices of 1K" \
	plan -a binomial -p 1048576 -m 16M -s 1K
expect_status 4 "binomial with 1048576 ranks x 2 lanes, 16M in slices of 1K" \
	sim -a binomial -p 1048576 -m 16M -s 1K

# --- -m A:B:F ---------------------------------------------------------------------------
expect_ok sim -a binomial -p 4 -m 4K:16M:4
sizes=$(csv_column "$tmp/out" message_bytes | tr '\n' ' ')
[ "$sizes" = "4096 16384 65536 262144 1048576 4194304 16777216 " ] || fail "-m 4K:16M:4: $sizes"
for bad in 4K:16M:1 4K:16M:1.5 4K:16M:x 4K:16M:0; do
	expect_status 2 "bad range '$bad': the factor '${bad##*:}' is not a whole number of at least 2" \
		sim -a binomial -p 4 -m "$bad"
done

finish leftovers_test
