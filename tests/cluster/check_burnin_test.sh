#!/usr/bin/env bash
# lanebench check --duration (burn-in) on the emulated cluster (root,
# network namespaces), 4 hosts x 2 rails at 100 Mbit/s:
#  1. healthy, --duration 6s --interval 2s: PASS; a progress line per
#     interval on rank 0's stderr, each read as it arrives (the launcher's
#     stdout is a pipe) about an interval after the one before; a row of
#     phase "interval" per port per interval, and every port's series.
#  2. a port that degrades while warm, made for real: when the first
#     progress line arrives, host 3's rail1 tbf (what it sends) is turned
#     down to 30 Mbit/s, and back to 100 Mbit/s when the third arrives
#     (events, not sleeps), over --duration 8s --interval 2s: that port
#     FAILs, its reason naming interval 3 of 4 (degraded throughout) and
#     the cause, not the healthy first and last intervals; every other
#     port passes.
# Small messages and one repetition keep a pass of phase 1 near 0.4 s, so
# an interval holds a few passes (best over them, as over partners); no
# collectives (-a none): phase 3 is not what burn-in repeats.  --max-lat
# 50ms: latency is not what is tested, and the last pass's median of 5 round
# trips read 1.9 ms against a 35 us median while a build ran beside it.
# Exit 0: all passed; 1: some check failed (each printed); 77: skipped.
#   check_burnin_test.sh path/to/tests/lib.sh LANEBENCH CLUSTER_SCRIPT
set -uo pipefail
usage="usage: check_burnin_test.sh path/to/tests/lib.sh LANEBENCH CLUSTER_SCRIPT"
source "${1:?$usage}"
shift
use_lanebench "${1:?$usage}"
use_cluster "${2:?$usage}" lbu
needs_tools python3 tc

"$cluster" up 4 --rails 2 --rate 100mbit --name "$name" >"$tmp/up" 2>&1 ||
	{ cat "$tmp/up"; fail "cluster up"; exit 1; }

# The tbf of what host 3 sends on rail1, as `cluster up` made it: its
# burst and its queue (as a latency) kept when the rate changes.
read -r burst lat < <(ip netns exec "$(h 3)" tc -j qdisc show dev rail1 | python3 -c '
import json, sys
q = [q for q in json.load(sys.stdin) if q["kind"] == "tbf"][0]["options"]
print(q["burst"], q["lat"])')
[ -n "${lat:-}" ] || { fail "no tbf on host 3 rail1"; exit 1; }
tbf_rate() { # RATE
	ip netns exec "$(h 3)" tc qdisc change dev rail1 root handle 1: tbf rate "$1" \
		burst "${burst}b" latency "${lat}us" && ok "host 3 rail1 at $1" ||
		fail "tc: host 3 rail1 at $1"
}

# burn_in LOG ACTION [options]: runs the check on every rank and reads the
# launcher's output line by line as it comes; at every progress line it
# notes when the line came (LOG.times: index, seconds since the launch) and
# calls ACTION with the interval's index.  Sets rc.
burn_in() {
	local log=$1 action=$2 line k t0=$EPOCHREALTIME
	shift 2
	: >"$log.times"
	"$cluster" run --name "$name" --timeout 90 -- "$B" check --timeout 20 --min-bw 70% \
		-a none --lane-rate 100mbit --max-lat 50ms --bw-size 64K --iterations 1 --lat-iterations 5 \
		-o "$log.csv" "$@" >"$log" 2>&1 &
	local pid=$!
	test_pids+=("$pid")
	local progress='^\[rank 0\] burn-in ([0-9]+)/[0-9]+ '
	while IFS= read -r line; do
		[[ $line =~ $progress ]] || continue
		k=${BASH_REMATCH[1]}
		echo "$k $(python3 -c "print(round($EPOCHREALTIME - $t0, 2))")" >>"$log.times"
		"$action" "$k"
	done < <(timeout 100 tail -n +1 -f --pid="$pid" "$log")
	wait "$pid"
	rc=$?
	echo "--- rank 0 (exit $rc):"
	grep '^\[rank 0\]' "$log" | grep -v 'unknown to hwloc' | grep -v '^\[rank 0\]  *[0-9]  *[0-9]  *rail'
}

nothing() { :; }

# Progress lines 1..N, one per interval, in order, read as they were
# written: each a good part of an interval after the one before (held in a
# buffer they would come together at the end).  Not a whole interval: a
# pass that overruns a boundary ends its interval late, and the last
# interval ends with the duration, whatever its length.
progress_arrived() { # log intervals interval-seconds
	python3 - "$1.times" "$2" "$3" <<'PY' && ok "$2 progress lines, one per interval, as they came" ||
import sys
rows = [l.split() for l in open(sys.argv[1])]
n, interval = int(sys.argv[2]), float(sys.argv[3])
idx = [int(r[0]) for r in rows]
t = [float(r[1]) for r in rows]
print("progress lines (interval, seconds):", rows)
assert idx == list(range(1, n + 1)), idx
assert all(b - a >= interval / 4 for a, b in zip(t, t[1:])), t
assert t[-1] - t[0] >= (n - 1) * interval * 0.75, t
PY
		fail "progress lines: $(cat "$1.times" | tr '\n' ' ')"
}

# Port and interval rows of a record: "rank:lane verdict reason" per port,
# and the count of interval rows per interval index.
rows() { # csv
	python3 - "$1" <<'PY'
import csv, sys
rows = list(csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#")))
per = {}
for r in rows:
    if r["phase"] == "interval":
        per[r["interval"]] = per.get(r["interval"], 0) + 1
        assert r["tx_bytes_per_second"] and r["rx_bytes_per_second"], r
print("intervals", " ".join(f"{k}:{v}" for k, v in sorted(per.items())))
for r in rows:
    if r["phase"] == "port":
        print("port", r["rank"] + ":" + r["lane"], r["intervals"], r["verdict"], r["reason"])
PY
}

# --- 1. healthy ------------------------------------------------------------------
burn_in "$tmp/healthy" nothing --duration 6s --interval 2s
[ "$rc" = 0 ] && ok "healthy burn-in: exit 0" || fail "healthy burn-in: exit $rc"
grep -q '^\[rank 0\] check: PASS (8 ports' "$tmp/healthy" && ok "verdict PASS" ||
	fail "verdict: $(grep 'check:' "$tmp/healthy")"
progress_arrived "$tmp/healthy" 3 2
# the time is the burn-in's elapsed: a pass that overruns the last
# interval's end shows (7s of 6s) on a busy machine -- the form is tested
grep -q '^\[rank 0\] burn-in 3/3 ([0-9]*s of 6s): 8 ports, lowest rank [0-3] lane [01] at [0-9]*% of expected, 0 failing$' \
	"$tmp/healthy" && ok "progress line's form" || fail "progress line: $(grep 'burn-in 3/' "$tmp/healthy")"
rows "$tmp/healthy.csv" >"$tmp/healthy.rows"
cat "$tmp/healthy.rows"
grep -qx 'intervals 1:8 2:8 3:8' "$tmp/healthy.rows" && ok "8 interval rows per interval, 3 intervals" ||
	fail "interval rows: $(head -1 "$tmp/healthy.rows")"
[ "$(grep -c '^port [0-3]:[01] 3 PASS' "$tmp/healthy.rows")" = 8 ] &&
	ok "every port: 3 intervals, PASS" || fail "port rows: $(grep '^port' "$tmp/healthy.rows")"

# --- 2. one port degrades warm -----------------------------------------------------
degrade() { # interval index just ended
	case $1 in
	1) tbf_rate 30mbit ;;
	3) tbf_rate 100mbit ;;
	esac
}
burn_in "$tmp/warm" degrade --duration 8s --interval 2s
[ "$rc" = 1 ] && ok "degraded in intervals 2-3: exit 1" || fail "degraded: exit $rc, want 1"
# the verdict is rank 0's exit 1; the others ended well (a sanitizer's
# report would fail them)
grep -q '^cluster run: 1 of 4 rank(s) failed: 0$' "$tmp/warm" &&
	grep -q 'rank 0 failed: exit status 1$' "$tmp/warm" && ok "only rank 0 exited non-zero, with 1" ||
	fail "ranks' exits: $(grep 'cluster run' "$tmp/warm")"
progress_arrived "$tmp/warm" 4 2
grep -q '^\[rank 0\] burn-in 3/4 (.*): 8 ports, lowest rank 3 lane 1 at [0-9]*% of expected, 1 failing$' \
	"$tmp/warm" && ok "progress names the degraded port" ||
	fail "progress line 3: $(grep 'burn-in 3/' "$tmp/warm")"
rows "$tmp/warm.csv" >"$tmp/warm.rows"
cat "$tmp/warm.rows"
reason=$(grep '^port 3:1 4 FAIL' "$tmp/warm.rows")
case $reason in
*"burn-in: "*"interval 3 of 4: tx at "*"% of expected"*"a flapping link or a port that degrades warm"*)
	ok "port 3:1 fails, naming interval 3 and the cause" ;;
*) fail "port 3:1: $(grep '^port 3:1' "$tmp/warm.rows")" ;;
esac
case $reason in
*"interval 1 of 4"* | *"interval 4 of 4"*) fail "a healthy interval named: $reason" ;;
*) ok "intervals 1 and 4 (healthy) not named" ;;
esac
[ "$(grep -c '^port [0-3]:[01] 4 PASS' "$tmp/warm.rows")" = 7 ] && ok "the 7 other ports pass" ||
	fail "other ports: $(grep '^port' "$tmp/warm.rows" | grep -v '^port 3:1 ')"
grep -q '^\[rank 0\] check: FAIL (1 of 8 ports: rank 3 lane 1)' "$tmp/warm" &&
	ok "verdict names rank 3 lane 1" || fail "verdict: $(grep 'check:' "$tmp/warm")"

finish check_burnin
