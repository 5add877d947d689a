#!/usr/bin/env bash
# Tests `scripts/cluster up --sites` (root, network namespaces): two sites
# of two hosts per rail bridge, joined by the userspace delay line
# lb-wanlink (no netem on this kernel) at 5 ms each way and 200 Mbit/s, as
# a platform's site and wan lines give them (platform show --format sites
# | up --sites-from -).
# The round trip across the WAN is at least 2 x 5 ms and within TOLERANCE_MS (the delay
# line's wake-up and the veths' forwarding add a little, never less) on
# both rails; within a site it is not delayed (minimum below 2 ms); TCP across the
# WAN carries traffic and at most its rate (how close it gets is not
# asserted: see below); a real `lanebench bcast --site-sizes 2,2`
# over TCP across the two sites verifies every byte; bad --sites input is
# refused (exit 2), so are a sites file with a gap and wan lines that
# differ; `down` ends the delay lines with the namespaces.
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
# TOLERANCE_MS is loose on purpose: runs here give 2 x 5 ms + 0.3-0.6 ms,
# but a fresh-clone CI run of the ASan build once measured a minimum of
# 72.8 ms on one rail (cause open, README's cluster section).  The test
# asserts the delay line delays (never under 2 x DELAY_MS) and stays bounded.
readonly DELAY_MS=5 TOLERANCE_MS=150
for tool in iperf3 ping; do
	command -v $tool >/dev/null || { fail "$tool not installed"; finish wan; }
done
trap 'exit 1' INT TERM

h() { echo "$name-h$1"; } # host -> namespace

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
refused "every wan line must give the same" 6 --rate 1gbit --sites-from - \
	<<<"$(printf 'site 0 0 1\nsite 1 2 3\nsite 2 4 5\nwan 0 1 0.005 25e6\nwan 1 2 0.01 25e6\n')"

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

# rtt SRC DST-ADDR -> "min max" in ms of 10 pings (one first for ARP)
rtt() {
	ip netns exec "$(h "$1")" ping -c 1 -W 2 "$2" >/dev/null 2>&1
	ip netns exec "$(h "$1")" ping -c 10 -i 0.05 -W 2 "$2" 2>/dev/null |
		awk -F'[/ ]+' '/^rtt/ { print $7, $9 }'
}
for rail in 0 1; do
	read -r lo hi <<<"$(rtt 0 "10.1$rail.0.3")"
	if awk -v lo="${lo:-0}" -v d=$DELAY_MS -v t=$TOLERANCE_MS 'BEGIN { exit !(lo >= 2 * d && lo <= 2 * d + t) }'; then
		ok "rail $rail, host 0 -> host 2 across the WAN: rtt min $lo ms, max $hi ms (2 x $DELAY_MS ms + up to $TOLERANCE_MS)"
	else
		fail "rail $rail, host 0 -> host 2 across the WAN: rtt min ${lo:-none} ms, want 2 x $DELAY_MS ms + up to $TOLERANCE_MS"
	fi
	# The minimum: one ping late behind a busy CPU says nothing of the path.
	read -r lo hi <<<"$(rtt 0 "10.1$rail.0.2")"
	if awk -v lo="${lo:-99}" 'BEGIN { exit !(lo < 2) }'; then
		ok "rail $rail, host 0 -> host 1 within site 0: rtt min $lo ms (max $hi), not delayed"
	else
		fail "rail $rail, host 0 -> host 1 within site 0: rtt min ${lo:-none} ms, want below 2"
	fi
done

# TCP across the WAN: 4 s of iperf3 from host 0 to host 3 on rail 0
ip netns exec "$(h 3)" iperf3 -s -1 -p 5299 >/dev/null 2>&1 &
server=$!
test_pids+=("$server")
for _ in $(seq 50); do # up to 10 s: a loaded host starts it late
	ip netns exec "$(h 3)" ss -ltn 2>/dev/null | grep -q ':5299 ' && break
	sleep 0.2
done
bits=$(ip netns exec "$(h 0)" iperf3 -c 10.10.0.4 -p 5299 -t 4 -O 1 -J 2>/dev/null |
	python3 -c 'import json, sys; print(json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"])' 2>/dev/null)
# -1 ends the server after one client; with none it would wait forever
[ -n "$bits" ] || kill "$server" 2>/dev/null
wait "$server" 2>/dev/null
# Asserted: traffic crosses, and never faster than the WAN's rate (the
# shaping).  Not asserted: how close to the rate it gets -- an idle
# fresh-clone CI run measured 0.23 of it where runs here gave 0.55-0.95
# (the delay line's throughput is an open question, README's cluster
# section; scripts/bench-sites measures it), so a floor would be a flaky test.
if awk -v b="${bits:-0}" 'BEGIN { exit !(b > 0 && b <= 1.05 * 200e6) }'; then
	ok "TCP across the WAN: $bits bit/s, at most the 200 Mbit/s it is shaped to"
else
	fail "TCP across the WAN: ${bits:-no} bit/s, want some and at most 1.05 x 200 Mbit/s"
fi

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

pids=$(ip netns pids "$name-sw" 2>/dev/null)
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
