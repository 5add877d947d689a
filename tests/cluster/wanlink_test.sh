#!/usr/bin/env bash
# Tests the WAN delay line lb-wanlink on its own (root, one network
# namespace): two TAPs, t0 and t1, the line between them at --mtu 1000.
# Frames longer than MTU + 18 bytes are dropped and counted, never sent on
# cut (a read into a smaller buffer cuts a frame; the line used to forward
# the stump); frames that fit arrive whole; the line runs SCHED_FIFO and
# says so in its log.
# Exit 0: all passed; 1: some assertion failed (each printed); 77: skipped
# (not root, or network namespaces unavailable).
set -uo pipefail
usage="usage: wanlink_test.sh path/to/tests/lib.sh path/to/scripts/cluster path/to/lb-wanlink"
# shellcheck source=SCRIPTDIR/../lib.sh
source "${1:?$usage}"
shift
# The namespace is named as a cluster's switch ($name-sw), so the lib's
# clean-up (cluster down) ends the line in it and deletes it.
use_cluster "${1:?$usage}" lbl
wanlink=$(realpath "${2:?$usage}")
ns=$name-sw
in_ns() { ip netns exec "$ns" "$@"; }

# rx_of TAP -> "packets bytes" the TAP's kernel side received (the line wrote)
rx_of() {
	ip -n "$ns" -s link show "$1" | awk '/RX:/ { getline; print $2, $1 }'
}

ip netns add "$ns" || { fail "cannot add namespace $ns"; finish wanlink; }
in_ns sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
for t in t0 t1; do
	if ! ip -n "$ns" tuntap add "$t" mode tap || ! ip -n "$ns" link set "$t" up; then
		fail "cannot add TAP $t"
		finish wanlink
	fi
done
# Host 10.99.0.2 is behind t0 (a static neighbour: no ARP), so pings to it
# leave through t0 into the line, which writes them to t1.
ip -n "$ns" addr add 10.99.0.1/24 dev t0
ip -n "$ns" neigh add 10.99.0.2 lladdr 02:00:00:00:99:02 dev t0 nud permanent

ip netns exec "$ns" "$wanlink" --delay 0.002 --mtu 1000 t0 t1 2>"$tmp/log" &
line=$!
test_pids+=("$line")
for _ in $(seq 50); do # attached: a TAP has carrier once a program holds it
	ip -n "$ns" link show t0 | grep -q NO-CARRIER || break
	sleep 0.1
done

# 3 pings of 1200 bytes (frames of 1242 > 1018) then 2 of 100 (frames of 142)
in_ns ping -c 3 -i 0.05 -s 1200 -W 0.1 10.99.0.2 >/dev/null 2>&1
in_ns ping -c 2 -i 0.05 -s 100 -W 0.1 10.99.0.2 >/dev/null 2>&1
for _ in $(seq 50); do # the short ones arrive at t1 after the delay
	read -r packets bytes <<<"$(rx_of t1)"
	[ "${packets:-0}" -ge 2 ] && break
	sleep 0.1
done
if [ "$packets" = 2 ] && [ "$bytes" = $((2 * 142)) ]; then
	ok "t1 received the 2 short frames whole and nothing else ($bytes bytes)"
else
	fail "t1 received $packets frames, $bytes bytes; want the 2 short pings, 284 bytes"
fi

fifo=$(chrt -p "$line" 2>&1)
kill "$line"
wait "$line"
result $? "the line ended on SIGTERM with status 0" "the line's exit status was not 0: $(cat "$tmp/log")"
if grep -q "3 dropped (longer than MTU + 18)" "$tmp/log" && grep -q " 0 dropped (write)" "$tmp/log"; then
	ok "the 3 long frames dropped and counted: $(head -2 "$tmp/log" | tail -1)"
else
	fail "want 3 frames dropped as longer than MTU + 18 and no write drops: $(cat "$tmp/log")"
fi
if grep -q "SCHED_FIFO, priority 10" "$tmp/log" && [[ $fifo == *SCHED_FIFO* ]]; then
	ok "the line ran SCHED_FIFO ($fifo)"
else
	fail "the line did not run SCHED_FIFO: chrt says '$fifo', its log: $(cat "$tmp/log")"
fi
finish wanlink
