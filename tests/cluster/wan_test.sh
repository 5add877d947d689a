#!/usr/bin/env bash
# Tests `scripts/cluster up --sites` (root, network namespaces): two sites
# of two hosts per rail bridge, joined by the userspace delay line
# lb-wanlink (no netem on this kernel) at 5 ms each way and 200 Mbit/s, as
# a platform's site and wan lines give them (platform show --format sites
# | up --sites-from -).
# The round trip across the WAN is at least 2 x 5 ms, its minimum within
# MIN_SLACK_MS of that and its median within MEDIAN_SLACK_MS (the delay line's
# wake-up and the veths' forwarding add a little, never less) on both
# rails; within a site it is not delayed (minimum below 2 ms); TCP across
# the WAN reaches TCP_FLOOR of its rate and never more than the rate; the
# delay lines' counts are printed for the log; a real `lanebench bcast --site-sizes 2,2`
# over TCP across the two sites verifies every byte; bad --sites input is
# refused (exit 2), so are a sites file with a gap or a wan line to no
# site, and --wan-delay over wan lines that differ (tests/cluster/
# wan_pairs_test.sh runs those); `down` ends the delay lines with the
# namespaces.
# Exit 0: all passed; 1: some assertion failed (each printed); 77: skipped
# (not root, or network namespaces unavailable).
set -uo pipefail
usage="usage: wan_test.sh path/to/tests/lib.sh path/to/scripts/cluster path/to/lb-wanlink path/to/lanebench"
# shellcheck source=SCRIPTDIR/../lib.sh
source "${1:?$usage}"
shift
# Its own prefix (lbw) and the PID's last three digits.
use_cluster "${1:?$usage}" lbw
wanlink=$(realpath "${2:?$usage}")
use_lanebench "${3:?$usage}"
# Bounds with margin over what the line holds since it runs SCHED_FIFO
# (2026-11-24, beside two busy loops on a 2-core machine at load average
# 15-40; docs/benchmarks/bench-wanlink.md): minimum 2 x 5 ms + 0.14-0.61 ms.  Before,
# the line waited for a CPU: a CI run's minimum was 72.8 ms.  The median,
# not the mean: one ping of 20 still comes back ~50 ms late now and then.
# TCP's floor is a sanity check, not the line's ceiling: with the line on
# time, the hosts' own network processing (softirqs, iperf3: ordinary
# priority) took TCP down to 0.12-0.16 of the rate at load average 20
# (0.49-0.54 with iperf3 at SCHED_FIFO), 0.93-0.96 when the machine had a
# CPU to spare.  Each check takes up to 3 attempts (tests/lib.sh,
# wan_rtt_check, wan_tcp_check).  The slack is 5 ms on the minimum and 10 on
# the median: on a near-idle machine (load average 2, 2026-11-24 22:13) all
# three attempts once read minima of 11.4-14.0 ms and medians of 18-30 ms
# (the hypervisor's steal, /proc/stat, was ~12 % of the CPUs in the passing
# rerun right after: no priority inside the guest wins that back); a line that did
# not delay (< 10 ms) or delayed twice (>= 20 ms) still fails.
readonly DELAY_MS=5 MIN_SLACK_MS=5 MEDIAN_SLACK_MS=10 TCP_FLOOR=0.1
needs_tools iperf3 ping
trap 'exit 1' INT TERM

# refused WANT ARGS...: `cluster up ARGS` exits 2 naming WANT, builds nothing
refused() {
	local want=$1 rc=0
	shift
	"$cluster" up "$@" --name "$name" --wanlink "$wanlink" >/dev/null 2>"$tmp/err" || rc=$?
	if [ "$rc" = 2 ] && grep -qF -- "$want" "$tmp/err" && ! ip netns list | grep -q "^$name-"; then
		ok "up $*: refused ($(cat "$tmp/err"))"
	else
		fail "up $*: exit $rc, want 2 and '$want': $(cat "$tmp/err")"
	fi
}
refused "holds 5 hosts, but the cluster has 4" 4 --rate 1gbit --sites 2,3
refused "bad site size 'x'" 4 --rate 1gbit --sites 2,x
refused "bad time '5'" 4 --rate 1gbit --sites 2,2 --wan-delay 5
refused "need --sites" 4 --rate 1gbit --wan-delay 5ms

refused "stdin:2: '2': site 1 must start at rank 1" 4 --rate 1gbit --sites-from - <<<"$(printf 'site 0 0 0\nsite 1 2 3\n')"
refused "cannot override wan lines that differ" 6 --rate 1gbit --wan-delay 1ms --sites-from - \
	<<<"$(printf 'site 0 0 1\nsite 1 2 3\nsite 2 4 5\nwan 0 1 0.005 25e6\nwan 1 2 0.01 25e6\n')"
refused "stdin:3: 'wan 0 2': no site 2" 4 --rate 1gbit --sites-from - \
	<<<"$(printf 'site 0 0 1\nsite 1 2 3\nwan 0 2 0.005 25e6\n')"

# The sites and the WAN from a platform: two sites of two hosts, a WAN of
# DELAY_MS and 25 MB/s (200 Mbit/s), through `platform show --format sites`.
printf 'nodes 4\nlanes 2\ndefault bw 1gbit\nsite 0 ranks 0-1\nsite 1 ranks 2-3\nwan 0 1 lat %sms bw 25MB/s\n' \
	$DELAY_MS >"$tmp/two.platform"
if ! "$B" platform show --format sites "$tmp/two.platform" |
	"$cluster" up 4 --rails 2 --rate 1gbit --sites-from - --wanlink "$wanlink" --name "$name" >"$tmp/up" 2>&1; then
	fail "cluster up --sites-from (2,2): $(cat "$tmp/up")"
	finish wan
fi
ok "$(cat "$tmp/up")"

for rail in 0 1; do
	wan_rtt_check "rail $rail, host 0 -> host 2 across the WAN" "$(h 0)" "10.1$rail.0.3" \
		$DELAY_MS $MIN_SLACK_MS $MEDIAN_SLACK_MS
	# The minimum: one ping late behind a busy CPU says nothing of the path.
	read -r lo median hi <<<"$(rtt_stats "$(h 0)" "10.1$rail.0.2")"
	if awk -v lo="${lo:-99}" 'BEGIN { exit !(lo < 2) }'; then
		ok "rail $rail, host 0 -> host 1 within site 0: rtt min $lo ms (median $median, max $hi), not delayed"
	else
		fail "rail $rail, host 0 -> host 1 within site 0: rtt min ${lo:-none} ms, want below 2"
	fi
done

# TCP across the WAN, host 0 to host 3 on rail 0: near the WAN's rate and
# never faster (the shaping).
wan_tcp_check "TCP across the WAN" "$(h 3)" "$(h 0)" "$("$cluster" addr 3 0)" 5299 200e6 $TCP_FLOOR

# A real broadcast over both sites: every byte verified on every row
if "$cluster" run --name "$name" --timeout 240 -- "$B" bcast --no-pin --timeout 60 \
	--site-sizes 2,2 -a multilane,binary,binomial,chain -m 64K,2M -s 64K -i 2 -x 1 \
	--no-calibration -o "$tmp/bcast.csv" >"$tmp/bcast.out" 2>&1; then
	# (p - 1) x M x (i + x) bytes on every row
	if awk -F, '/^#/ { next } !h++ { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ rows++ } $c["verified_bytes"] != 3 * $c["message_bytes"] * 3 { bad++ }
		END { exit bad > 0 || rows != 8 }' "$tmp/bcast.csv"; then
		ok "bcast --site-sizes 2,2 across the WAN: 8 rows, every byte verified"
	else
		fail "bcast --site-sizes 2,2: verified_bytes: $(grep -v '^#' "$tmp/bcast.csv")"
	fi
else
	fail "bcast --site-sizes 2,2: $(tail -5 "$tmp/bcast.out")"
fi

pids=$(ip netns pids "$(sw)" 2>/dev/null)
# For the log: the delay lines' counts (drops, lateness), which they print
# on SIGUSR1, before `down` removes their logs.
# shellcheck disable=SC2086 # one pid per word
kill -USR1 $pids 2>/dev/null
for log in /run/lanebench-cluster/"$name".wan{0,1}.log; do
	for _ in $(seq 50); do grep -q "released after due" "$log" 2>/dev/null && break; sleep 0.1; done
	sed "s|^|${log##*/}: |" "$log"
done
"$cluster" down --name "$name" >/dev/null 2>&1
left=0
for p in $pids; do # alive and not a zombie waiting for init to reap it
	state=$(awk '{ print $3 }' "/proc/$p/stat" 2>/dev/null)
	[ -z "$state" ] || [ "$state" = Z ] || left=$((left + 1))
done
if [ -n "$pids" ] && [ "$left" = 0 ] && ! ip netns list | grep -q "^$name-"; then
	ok "down: namespaces and delay lines gone"
else
	fail "down: $left of the switch's processes ($pids) left, namespaces: $(ip netns list | grep "^$name-")"
fi

finish wan
