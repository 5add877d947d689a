#!/usr/bin/env bash
# Tests a WAN whose site pairs differ (root, network namespaces): three
# sites of one host, one rail, from a platform's site and wan lines
# (platform show --format sites | cluster up --sites-from -), each pair
# with its own delay and rate: 0-1 2 ms at 200 Mbit/s, 0-2 5 ms at 100,
# 1-2 8 ms at 50.  The line (lb-wanlink --pair) delays and shapes each
# pair on its own: every pair's round trip is at least 2 x its delay, the
# minimum within MIN_SLACK_MS of that and the median within MEDIAN_SLACK_MS;
# TCP on pairs 0-1 and 1-2 reaches TCP_FLOOR of that pair's rate and never
# more.  Seed 002's g5k-like platform (three sites whose wan lines all
# differ, refused before) comes up with its pairs' delays in the line.
# Exit 0: all passed; 1: some assertion failed (each printed); 77: skipped.
set -uo pipefail
usage="usage: wan_pairs_test.sh path/to/tests/lib.sh path/to/scripts/cluster path/to/lb-wanlink path/to/lanebench"
# shellcheck source=SCRIPTDIR/../lib.sh
source "${1:?$usage}"
shift
use_cluster "${1:?$usage}" lbp
wanlink=$(realpath "${2:?$usage}")
use_lanebench "${3:?$usage}"
# As tests/cluster/wan_test.sh's bounds (the same line, the same margins).
# (the pairs' windows, 4-9, 10-15 and 16-21 ms on the minimum, do not overlap:
# a pair given another's delay still fails)
readonly MIN_SLACK_MS=5 MEDIAN_SLACK_MS=10 TCP_FLOOR=0.1
needs_tools iperf3 ping
trap 'exit 1' INT TERM

# up PLATFORM: the cluster from PLATFORM's sites and wan lines, one rail
up() {
	"$B" platform show --format sites "$1" |
		"$cluster" up 3 --rate 1gbit --sites-from - --wanlink "$wanlink" --name "$name" >"$tmp/up" 2>&1
}

printf '%s\n' 'nodes 3' 'lanes 1' 'default bw 1gbit' 'site 0 ranks 0-0' 'site 1 ranks 1-1' \
	'site 2 ranks 2-2' 'wan 0 1 lat 2ms bw 25MB/s' 'wan 0 2 lat 5ms bw 12.5MB/s' \
	'wan 1 2 lat 8ms bw 6.25MB/s' >"$tmp/three.platform"
if ! up "$tmp/three.platform"; then
	fail "cluster up --sites-from (1,1,1, pairs differ): $(cat "$tmp/up")"
	finish wan_pairs
fi
ok "$(cat "$tmp/up")"

for pair in "0 1 2" "0 2 5" "1 2 8"; do
	read -r a b delay <<<"$pair"
	wan_rtt_check "sites $a-$b" "$(h "$a")" "$("$cluster" addr "$b" 0)" "$delay" $MIN_SLACK_MS $MEDIAN_SLACK_MS
done
wan_tcp_check "sites 0-1" "$(h 1)" "$(h 0)" "$("$cluster" addr 1 0)" 5296 200e6 $TCP_FLOOR
wan_tcp_check "sites 1-2" "$(h 2)" "$(h 1)" "$("$cluster" addr 2 0)" 5296 50e6 $TCP_FLOOR

# Seed 002's g5k-like clusters of clusters: every wan line differs
"$B" platform gen g5k --clusters 3 --site-ranks 1 -o "$tmp/g5k.platform" >/dev/null
"$B" platform show --format sites "$tmp/g5k.platform" | grep '^wan' >"$tmp/g5k.wan"
if up "$tmp/g5k.platform"; then
	# The line's log: each pair's delay and rate, as the wan line's s and B/s
	want=$(awk '{ printf " %d-%d %.6g ms %.6g Mbit/s", $2, $3, $4 * 1e3, $5 * 8e-6 }' "$tmp/g5k.wan")
	if grep -qF "per site pair:$want" /run/lanebench-cluster/"$name".wan0.log; then
		ok "g5k (3 sites): up, the line holds each pair's delay and rate:$want"
	else
		fail "g5k: the line's pairs are not the wan lines' ($want): $(cat /run/lanebench-cluster/"$name".wan0.log)"
	fi
else
	fail "g5k (3 sites): up failed: $(cat "$tmp/up")"
fi
finish wan_pairs
