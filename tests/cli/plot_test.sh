#!/usr/bin/env bash
# scripts/plot renders a PNG per view for a bcast CSV (with a provenance
# head and the "incomplete" trailer), a sim CSV and a comparison, without a
# gnuplot warning (a warning there meant a series drawn empty).
set -u
usage="usage: plot_test.sh path/to/tests/lib.sh path/to/lanebench SOURCE_ROOT"
source "${1:?$usage}"
shift
use_lanebench "${1:?$usage}"
SRC=${2:?$usage}

# plot WANT_STDERR ARGS...: runs scripts/plot; stderr must be WANT_STDERR.
plot() {
	local want=$1
	shift
	LANEBENCH=$B "$SRC/scripts/plot" "$@" >"$tmp/out" 2>"$tmp/err" || fail "scripts/plot $*: exit $?: $(cat "$tmp/err")"
	[ "$(cat "$tmp/err")" = "$want" ] || fail "scripts/plot $*: stderr: $(cat "$tmp/err")"
}

# is_png FILE...: exists, non-empty, PNG signature.
is_png() {
	for f in "$@"; do
		[ -s "$f" ] && [ "$(head -c 8 "$f" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
			fail "$f is not a PNG: $(ls -l "$f" 2>&1)"
	done
}

# A bcast file as the provenance contract writes it, stopped early.
demo=$SRC/results/example-demo-tcp-p8-k2-50mbit.csv
{
	printf '# format: lanebench-csv 2\n# version: v0.1.0-test\n# transport: tcp\n# ranks: 8\n# lanes: 2\n'
	printf '# lane.0.0: nic=rail0 port=1 speed_bps=50000000 mtu=1500 numa=-1 core=0 addr=10.10.0.1\n'
	head -21 "$demo"
	echo "# lanebench: incomplete after 20 rows: interrupted (SIGINT)"
} >"$tmp/bcast.csv"
plot "plot: note: '$tmp/bcast.csv' is incomplete after 20 rows: interrupted (SIGINT)" "$tmp/bcast.csv" "$tmp/b"
is_png "$tmp/b-time.png" "$tmp/b-bw.png"
grep -q "^plot: $tmp/b-time.png $tmp/b-bw.png$" "$tmp/out" || fail "bcast: output names: $(cat "$tmp/out")"

"$B" sim -a all -p 8,16 -k 2 -m 4K:4M --bw 100mbit -o "$tmp/sim.csv" >/dev/null || fail "sim failed"
plot "" "$tmp/sim.csv"
is_png "$tmp/sim-time.png" "$tmp/sim-bw.png"

plot "" --compare "$demo" "$tmp/bcast.csv" "$tmp/c"
is_png "$tmp/c-compare.png"
grep -q '^summary binary: B/A 1.000 (speed-up 1.00x) over 7 sizes' "$tmp/out" || fail "compare: summary: $(cat "$tmp/out")"

LANEBENCH=$B "$SRC/scripts/plot" "$tmp/out" >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q "not a lanebench bcast or sim CSV" "$tmp/err" || fail "not a CSV: $(cat "$tmp/err")"

finish plot_test
