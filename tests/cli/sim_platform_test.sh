#!/usr/bin/env bash
# lanebench sim on a platform, with latency in flight and port models:
# --platform, --lat/--wan-lat, --model, the period and throughput columns,
# and the errors naming what is wrong (exit 2).
set -u
usage="usage: sim_platform_test.sh path/to/tests/lib.sh path/to/lanebench"
source "${1:?$usage}"
shift
use_lanebench "${1:?$usage}"

# rows: the last run's CSV without its provenance head, as messages show it
rows() { grep -v '^# ' "$tmp/out"; }

# awk: relative closeness within the CSV's printed precision
near='function near(a, b) { return (a - b) ^ 2 <= 1e-16 * b * b }'

# Four nodes, one lane, 1 Gbit/s and 1 us everywhere but 1 <-> 2: 500 Mbit/s
# and 200 us in flight.  A chain 0 -> 1 -> 2 -> 3 of 16 slices of 64 KiB
# streams at the slow link's pace: period = 1us + 65536 / 62.5e6 s, and the
# throughput is a slice per period.
cat >"$tmp/p4" <<'PLATFORM'
# lanebench platform 1
nodes 4
lanes 1
default lat 0 occ 1us bw 1gbit
link 1 2 bw 500mbit lat 200us
PLATFORM
expect_ok sim -a chain --platform "$tmp/p4" -m 1M -s 64K
grep -qx '# option.ranks: 4' "$tmp/out" || fail "sim --platform: -p is not its 4 nodes: $(grep option.ranks "$tmp/out")"
grep -qx '# option.lanes: 1' "$tmp/out" || fail "sim --platform: -k is not its 1 lane"
[ "$(csv_column "$tmp/out" ranks),$(csv_column "$tmp/out" lanes)" = "4,1" ] || fail "sim --platform: ranks, lanes: $(rows)"
awk -v p="$(csv_column "$tmp/out" period_seconds)" -v t="$(csv_column "$tmp/out" throughput_bytes_per_second)" 'BEGIN {
	want = 1e-6 + 65536 / 62.5e6
	exit !(near(p, want) && near(t, 65536 / want)) }
	'"$near"' ' ||
	fail "sim --platform: period/throughput: $(rows)"
# fill: hops 0->1 and 2->3 fast, 1->2 slow and 200 us late, then 15 periods
awk -v s="$(csv_column "$tmp/out" sim_seconds)" 'BEGIN {
	fast = 1e-6 + 65536 / 125e6; slow = 1e-6 + 65536 / 62.5e6
	want = fast + slow + 200e-6 + fast + 15 * slow
	exit !near(s, want) }
	'"$near"' ' || fail "sim --platform chain: sim_seconds: $(rows)"
[ -z "$(csv_column "$tmp/out" table_seconds)$(csv_column "$tmp/out" refined_seconds)" ] ||
	fail "sim --platform: the closed forms know no platform, want them empty: $(rows)"
# a heterogeneous algorithm builds on the platform it is given
expect_ok sim -a topo-grow --platform "$tmp/p4" -m 1M -s 64K
[ "$(rows | wc -l)" -eq 2 ] || fail "sim -a topo-grow --platform: $(rows)"

expect_status 2 "8 ranks, but the platform $tmp/p4 has 4 nodes" sim -a chain --platform "$tmp/p4" -p 8
expect_status 2 "2 lanes, but the platform $tmp/p4 has 1" sim -a chain --platform "$tmp/p4" -k 2
expect_status 2 "multi-port needs --platform" sim -a chain --model multi-port
expect_status 2 "bounded needs --platform" sim -a chain --model bounded
# bcast's --sim-model likewise, before any rank starts
for m in multi-port bounded; do
	LANEBENCH_RANK=0 LANEBENCH_SIZE=1 expect_status 2 "--sim-model: $m needs --platform FILE" \
		bcast -a chain -m 1K --sim-model "$m"
done
# bounded multi-port: the root's two sends share its 1gbit cap (2 M / cap),
# where multi-port overlaps them (M / 1gbit)
printf 'nodes 3\nlanes 1\ndefault none\nlink 0 1 bw 1gbit\nlink 0 2 bw 1gbit\nnode 0 rate 1gbit\n' >"$tmp/capped"
expect_ok sim -a topo-grow --platform "$tmp/capped" -m 1M -s 1M --no-lp --model bounded
awk -v s="$(csv_column "$tmp/out" sim_seconds)" 'BEGIN { exit !(s > 0 && (s - 2 * 1048576 / 125e6) ^ 2 < 1e-18) }' ||
	fail "sim --model bounded: two sends sharing the root's cap, want 2 M / 125 MB/s: $out"
expect_ok sim -a topo-grow --platform "$tmp/capped" -m 1M -s 1M --no-lp --model multi-port
awk -v s="$(csv_column "$tmp/out" sim_seconds)" 'BEGIN { exit !(s > 0 && (s - 1048576 / 125e6) ^ 2 < 1e-18) }' ||
	fail "sim --model multi-port: the root's two sends overlap, want M / 125 MB/s: $out"
expect_status 2 "$tmp/nothing" sim -a chain --platform "$tmp/nothing"
expect_status 2 "'two-port'" sim -a chain --model two-port
# a schedule over a missing link is refused before any output (exit 2, no
# file), naming the algorithm, rank, lane and peer
printf 'nodes 3\nlanes 1\ndefault none\nlink 0 1 bw 1gbit\nlink 0 2 bw 1gbit\n' >"$tmp/star"
expect_status 2 "chain on the platform: rank 1 lane 0: no link to peer 2" \
	sim -a chain --platform "$tmp/star" -m 4K -o "$tmp/never"
[ ! -e "$tmp/never" ] || fail "sim over a missing link wrote its -o file"
# plan likewise: the user's platform, so exit 2 (not 1, a broken schedule)
expect_status 2 "chain on the platform: rank 1 lane 0: no link to peer 2" \
	plan -a chain --platform "$tmp/star" -m 4K --json "$tmp/never"
[ ! -e "$tmp/never" ] || fail "plan over a missing link wrote its --json file"
[ -z "$(rows)" ] || fail "plan over a missing link printed: $(rows)"

# Latency in flight: a chain of 4 pays --lat once per hop, not per slice:
# 3 (T + L) + 15 T; the same L as --alpha (occupation) is paid per slice.
expect_ok sim -a chain -p 4 -k 1 -m 1M -s 64K --alpha 5us --bw 1gbit --lat 1ms
awk -v s="$(csv_column "$tmp/out" sim_seconds)" 'BEGIN {
	T = 5e-6 + 65536 / 125e6; want = 3 * (T + 1e-3) + 15 * T
	exit !near(s, want) }
	'"$near"' ' || fail "sim --lat 1ms: $(rows)"
expect_ok sim -a chain -p 4 -k 1 -m 1M -s 64K --alpha 1005us --bw 1gbit
awk -v s="$(csv_column "$tmp/out" sim_seconds)" 'BEGIN {
	T = 1005e-6 + 65536 / 125e6; want = 18 * T
	exit !near(s, want) }
	'"$near"' ' || fail "sim --alpha 1005us: $(rows)"

# One port per lane: a 3-chain's middle rank receives and forwards every
# slice on the same port: 2 S T against (S + 1) T.
expect_ok sim -a chain -p 3 -k 1 -m 1M -s 64K --alpha 5us --bw 1gbit --model one-port-uni
awk -v s="$(csv_column "$tmp/out" sim_seconds)" 'BEGIN { T = 5e-6 + 65536 / 125e6
	exit !near(s, 32 * T) }
	'"$near"' ' || fail "sim --model one-port-uni: $(rows)"
grep -qx '# option.model: one-port-uni' "$tmp/out" || fail "sim --model: not in the provenance"

# --wan-lat: the time in flight between sites, once per path
expect_ok sim -a chain -p 8 -k 1 -m 1M -s 64K --alpha 5us --bw 1gbit --sites 2 --wan-lat 10ms
awk -v s="$(csv_column "$tmp/out" sim_seconds)" 'BEGIN { T = 5e-6 + 65536 / 125e6
	want = 7 * T + 10e-3 + 15 * T
	exit !near(s, want) }
	'"$near"' ' || fail "sim --wan-lat 10ms: $(rows)"

# Latency in flight (docs/papers.md#model-timing): over a 10 ms WAN given as
# occupation, every slice paid it (sim / two-site form 10.4); as time in flight,
# the stream pays it once.
expect_ok sim -a chain,multilane -p 32 -k 2 -m 256M --slice 128K --alpha 50us --bw 1gbit \
	--sites 2 --wan-lat 10ms
printf '%s\n' "$(csv_column "$tmp/out" sim_over_two_site_ratio)" | awk '$1 < 1 || $1 > 1.1 { exit 1 }' ||
	fail "sim --sites 2 --wan-lat 10ms: sim / two-site form not within [1, 1.1]: $(rows)"

# The LP bound beside every row (seed 000's test vector 1: TP* = 11/23 slices
# per second of 1 MB, so 11/23 MB/s at any slice): topo-grow's tree
# {0->1, 0->2, 1->3} has period 3 T-units, so 23/33 of the bound; lp-grow
# builds on the LP's loads (solved before the workers start).
cat >"$tmp/v1" <<'PLATFORM'
nodes 4
default none
link 0 1 bw 1MB/s
link 0 2 bw 500KB/s
link 0 3 bw 500KB/s
link 1 2 bw 333333.33333333331B/s
link 1 3 bw 333333.33333333331B/s
link 2 3 bw 500KB/s
PLATFORM
expect_ok sim -a topo-grow,lp-grow --platform "$tmp/v1" -m 64M -s 1M
printf '%s\n' "$(csv_column "$tmp/out" lp_bound_bytes_per_second)" | awk '{ if (($1 - 1e6 * 11 / 23) ^ 2 > 1) bad++ }
	END { exit bad > 0 || NR != 2 }' || fail "sim --platform: lp_bound_bytes_per_second: $(rows)"
printf '%s\n' "$(csv_column "$tmp/out" ratio_to_lp)" | awk '{ if (($1 - 23 / 33) ^ 2 > 1e-12) bad++ }
	END { exit bad > 0 || NR != 2 }' || fail "sim --platform: ratio_to_lp: $(rows)"
printf '%s\n' "$(csv_column "$tmp/out" platform)" | grep -qxE '[0-9a-f]{16}' || fail "sim --platform: platform: $(rows)"
expect_ok sim -a topo-grow --platform "$tmp/v1" -m 64M -s 1M --no-lp
[ -z "$(csv_column "$tmp/out" lp_bound_bytes_per_second)$(csv_column "$tmp/out" ratio_to_lp)" ] ||
	fail "sim --no-lp: the bound's columns are not empty: $(rows)"
expect_ok sim -a chain -m 1M -p 4 -k 1
[ -z "$(csv_column "$tmp/out" platform)$(csv_column "$tmp/out" lp_bound_bytes_per_second)" ] ||
	fail "sim without a platform: platform or bound columns not empty: $(rows)"

finish sim_platform_test
