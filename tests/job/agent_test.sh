#!/usr/bin/env bash
# Seed 001's cluster-agent allgathers on a job of plain processes at
# 127.0.0.1 (TCP, 2 loopback lanes, each contribution cut over both): 4 ranks on a
# platform of 2 fast and 2 slow nodes (send/recv overheads, latencies) run
# cluster-agent-gb and -ts through bcast with --agents auto, 1 and 4 (one
# agent for all; every node an agent), every rank checking every byte of
# all 4 contributions: verified_bytes = 4 ranks x 4 x m per iteration.
# The rows say allgather, and their sim_seconds is the simulator's LogP
# mode on the platform (`sim --model logp`, seed 001's model), not
# multi-port (which differs on some row).  On a platform whose slow nodes
# carry a NIC cap (`rate`) the LogP sim_seconds is at least the (p - 1) m
# a slow rank must receive over its 2 lanes' caps, and still `sim
# --model logp`'s (scripts/bench-allgather's cluster-agent rows were m /
# rate, 7 times too fast, when the LogP mode ignored the caps).  There
# --agents auto is the simulator's (model/agent_auto.h): bcast's row is
# the fastest of `sim --model logp --agents 1..4` (4 agents; the closed
# form took 2, the slowest).  Ranks wait for each other in the bootstrap,
# never on sleeps.
set -uo pipefail
usage="usage: agent_test.sh path/to/tests/lib.sh path/to/lanebench"
# shellcheck source=SCRIPTDIR/../lib.sh
source "${1:?$usage}"
shift
use_lanebench "${1:?$usage}"

cat >"$tmp/wu4.platform" <<'PLATFORM'
nodes 4
lanes 2
default lat 350us bw 100mbit
node 0 send 90us recv 70us gap 90us
node 1 send 90us recv 70us gap 90us
node 2 send 160us recv 130us gap 160us
node 3 send 160us recv 130us gap 160us
link 0 1 lat 250us
link 2 3 lat 450us
PLATFORM

# same_sim AGENTS: the bcast rows' sim_seconds against `sim` on the
# platform: equal to --model logp's (to the CSV's 6 digits), and some row
# unlike multi-port's.
same_sim() {
	local model differs=0
	for model in logp multi-port; do
		"${LB[@]}" sim --platform "$tmp/wu4.platform" --model "$model" -a cluster-agent-gb,cluster-agent-ts \
			--agents "$1" -m 1000,100000 -o "$tmp/$model.csv" >/dev/null ||
			{ fail "sim --model $model --agents $1 failed"; return; }
		csv_awk '{ print $c["algorithm"], $c["message_bytes"], $c["sim_seconds"] }' "$tmp/$model.csv" |
			sort >"$tmp/$model.rows"
	done
	while read -r algo bytes sim; do
		logp=$(awk -v a="$algo" -v m="$bytes" '$1 == a && $2 == m { print $3 }' "$tmp/logp.rows")
		mp=$(awk -v a="$algo" -v m="$bytes" '$1 == a && $2 == m { print $3 }' "$tmp/multi-port.rows")
		awk -v s="$sim" -v l="$logp" 'BEGIN { exit !(l > 0 && (s - l) / l < 1e-5 && (l - s) / l < 1e-5) }' ||
			fail "$algo --agents $1 $bytes: sim_seconds $sim, want sim --model logp's $logp"
		awk -v s="$sim" -v p="$mp" 'BEGIN { exit !((s - p) / p > 1e-3 || (p - s) / p > 1e-3) }' && differs=1
	done < <(csv_awk '{ print $c["algorithm"], $c["message_bytes"], $c["sim_seconds"] }' "$tmp/a$1.csv")
	[ "$differs" = 1 ] || fail "--agents $1: every sim_seconds equals multi-port's"
}

for agents in auto 1 4; do
	rc=0
	local_job "a$agents" 4 bcast --nics 127.0.0.1,127.0.0.1 --no-pin --timeout 30 \
		-a cluster-agent-gb,cluster-agent-ts --agents "$agents" --platform "$tmp/wu4.platform" \
		-m 1000,100000 -i 3 -x 1 -o "$tmp/a$agents.csv" || rc=$?
	[ "$rc" = 0 ] || { fail "--agents $agents: exit $rc: $(tail -n 3 "$tmp"/a"$agents".err*)"; continue; }
	csv_awk '{ print $c["algorithm"], $c["collective"], $c["message_bytes"], $c["verified_bytes"] }' \
		"$tmp/a$agents.csv" >"$tmp/rows"
	[ "$(wc -l <"$tmp/rows")" = 4 ] || fail "--agents $agents: want 4 rows: $(cat "$tmp/rows")"
	while read -r algo coll bytes verified; do
		[ "$coll" = allgather ] || fail "$algo --agents $agents: collective '$coll', want allgather"
		[ "$verified" = $((bytes * 4 * 4 * 4)) ] ||
			fail "$algo --agents $agents $bytes: verified $verified, want 4 ranks x 4 x $bytes x 4 iterations"
	done <"$tmp/rows"
	same_sim "$agents"
done
# NIC caps: 2 nodes at 100 Mbit/s, 2 at 25 (3,125,000 B/s)
cat >"$tmp/capped.platform" <<'PLATFORM'
nodes 4
lanes 2
default lat 100us bw 100mbit
node 0 send 10us recv 10us rate 100mbit
node 1 send 10us recv 10us rate 100mbit
node 2 send 10us recv 10us rate 25mbit
node 3 send 10us recv 10us rate 25mbit
PLATFORM
m=100000
rc=0
local_job capped 4 bcast --nics 127.0.0.1,127.0.0.1 --no-pin --timeout 30 -a cluster-agent-gb,cluster-agent-ts \
	--platform "$tmp/capped.platform" -m "$m" -i 1 -x 0 -o "$tmp/capped.csv" || rc=$?
"${LB[@]}" sim --platform "$tmp/capped.platform" --model logp -a cluster-agent-gb,cluster-agent-ts \
	-m "$m" -o "$tmp/capped-logp.csv" >/dev/null || fail "sim --model logp on the capped platform failed"
for agents in 1 2 3 4; do
	"${LB[@]}" sim --platform "$tmp/capped.platform" --model logp -a cluster-agent-gb,cluster-agent-ts \
		--agents "$agents" -m "$m" -o "$tmp/capped-$agents.csv" >/dev/null ||
		fail "sim --model logp --agents $agents on the capped platform failed"
done
if [ "$rc" = 0 ]; then
	bound=$(awk -v m="$m" 'BEGIN { printf "%.9g", 3 * m / (2 * 3125000) }')
	while read -r algo sim; do
		logp=$(csv_awk -v a="$algo" '$c["algorithm"] == a { print $c["sim_seconds"] }' "$tmp/capped-logp.csv")
		awk -v s="$sim" -v b="$bound" 'BEGIN { exit !(s >= b * (1 - 1e-5)) }' ||
			fail "capped $algo: sim_seconds $sim under 3 m / (2 lanes x the slow rate), $bound"
		awk -v s="$sim" -v l="$logp" 'BEGIN { exit !(l > 0 && (s - l) / l < 1e-5 && (l - s) / l < 1e-5) }' ||
			fail "capped $algo: sim_seconds $sim, want sim --model logp's $logp"
		fastest=$(for agents in 1 2 3 4; do
			csv_awk -v a="$algo" '$c["algorithm"] == a { print $c["sim_seconds"] }' "$tmp/capped-$agents.csv"
		done | sort -g | head -1)
		awk -v s="$sim" -v f="$fastest" 'BEGIN { exit !(f > 0 && (s - f) / f < 1e-5 && (f - s) / f < 1e-5) }' ||
			fail "capped $algo: --agents auto's sim_seconds $sim, want the LogP sweep's fastest $fastest"
	done < <(csv_awk '{ print $c["algorithm"], $c["sim_seconds"] }' "$tmp/capped.csv")
	[ "$(csv_awk '{ print }' "$tmp/capped.csv" | wc -l)" = 2 ] || fail "capped: want 2 rows"
else
	fail "capped platform: exit $rc: $(tail -n 3 "$tmp"/capped.err*)"
fi

# more agents than ranks: every rank refuses the configuration, naming it
rc=0
local_job a5 4 bcast --nics 127.0.0.1,127.0.0.1 --no-pin --timeout 30 -a cluster-agent-gb --agents 5 \
	--platform "$tmp/wu4.platform" -m 1000 -i 1 -x 0 -o "$tmp/a5.csv" || rc=$?
[ "$rc" != 0 ] && grep -q -- "--agents 5 exceeds the 4 ranks" "$tmp"/a5.err* ||
	fail "--agents 5 on 4 ranks: exit $rc: $(cat "$tmp"/a5.err* | tail -n 3)"

finish agent
