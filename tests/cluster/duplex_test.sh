#!/usr/bin/env bash
# Tests a shaped host that sends and receives at once (scripts/cluster up,
# root, network namespaces): under every tbf an HTB keeps one queue per
# peer (class 2:1VV for peer VV, guaranteed rate / (N - 1), borrowing up
# to the rate from 2:1); every frame between two hosts -- DPDK's data and
# ack frames, short and long IPv4 -- in the one class of that pair, on both
# ends (so none overtakes another: TCP drops a segment that arrives after
# a later pure ACK of its connection, RFC 5961 5.2 and PAWS); and a 50 Mbit/s host
# among 200 Mbit/s ones gets most of its one-way TCP rate each way when
# it sends and receives at once -- >= 0.85 with iperf3 to one peer while
# another sends to it, >= 0.9 in
# lanebench's allgather ring over TCP, where with one queue per tbf (`up --one-queue`,
# the shaping before) the ACKs of what the host receives waited behind what
# it sends and the ring took 1.39 x its receive bound (docs/benchmarks/bench-duplex.md,
# scripts/bench-duplex).
#   DUPLEX_TEST_UP_OPTS=--one-queue: the same checks on the shaping before
#   (the classes' checks fail, and the ring's in most runs).  (Before the
#   per-peer queues, a class for short frames went first: the structure
#   and classification checks fail on it.)
# Exit 0: all passed; 1: some assertion failed (each printed); 77: skipped
# (not root, or network namespaces unavailable).
set -uo pipefail
usage="usage: duplex_test.sh path/to/tests/lib.sh path/to/scripts/cluster path/to/lanebench"
source "${1:?$usage}"
shift
use_cluster "${1:?$usage}" lbd
# the switch and the switch ends of hosts 0 and 1 on rail 0
sw=$(sw) port00=$(port 0 0) port10=$(port 1 0)
use_lanebench "${2:?$usage}"
trap 'exit 1' INT TERM
needs_tools iperf3 python3 ping
read -r -a up_opts <<<"${DUPLEX_TEST_UP_OPTS:-}"

check "up 3 --rails 2 --rates 50mbit,200mbit,200mbit ${up_opts[*]}" \
	timeout 60 "$cluster" up 3 --rails 2 --rates 50mbit,200mbit,200mbit "${up_opts[@]}" --name "$name"

# --------------------------------------------------------------------------
# Both ends of host 0's rail0: tbf 1: (the cap) over HTB 2:, its root class
# 2:1 at the tbf's rate, a class per peer (2:101, 2:102) guaranteed half of
# it (N - 1 = 2 peers) and borrowing up to all of it, the default 2:ffff.
qdiscs_ok() { # ns dev
	local q c
	q=$(tc -n "$1" qdisc show dev "$2") c=$(tc -n "$1" class show dev "$2")
	grep -q '^qdisc tbf 1: root .*rate 50Mbit' <<<"$q" && grep -q '^qdisc htb 2: parent 1:1 ' <<<"$q" &&
		grep -q '^class htb 2:1 root rate 50Mbit ceil 50Mbit ' <<<"$c" &&
		grep -q "^class htb 2:10$3 parent 2:1 .* rate 25Mbit ceil 50Mbit " <<<"$c" &&
		grep -q "^class htb 2:10$4 parent 2:1 .* rate 25Mbit ceil 50Mbit " <<<"$c" &&
		grep -q '^class htb 2:ffff parent 2:1 .* ceil 50Mbit ' <<<"$c"
}
qdiscs_ok "$(h 0)" rail0 1 2
result $? "host 0 rail0 (what it sends): tbf 1: at 50Mbit over HTB 2:, root 2:1, peers 2:101 and 2:102 at 25 (ceil 50), 2:ffff" \
	"host 0 rail0: $(tc -n "$(h 0)" qdisc show dev rail0; tc -n "$(h 0)" class show dev rail0)"
qdiscs_ok "$sw" "$port00" 1 2
result $? "switch end of host 0 rail0 (what it receives): the same" \
	"switch end $port00: $(tc -n "$sw" qdisc show dev "$port00"; tc -n "$sw" class show dev "$port00")"

# Every frame from host 0 to host 1 -- DPDK's ACK frames (0x88B5, type 2
# at offset 1 of our header, 86 bytes) and DATA frames, short and long
# pings -- in class 2:101 on host 0's end (by destination) and in 2:100 on
# the switch end towards host 1 (by source), none in another class.
sent() { # ns dev class
	tc -s -n "$1" class show dev "$2" classid "$3" | awk '/Sent/ { print $4; exit }'
}
frames() { # type bytes: 5 raw frames of DPDK's ethertype from host 0 to host 1
	ip netns exec "$(h 0)" python3 -c '
import socket, sys
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("rail0", 0))
head = bytes.fromhex("020000000001" "020000000000" "88b5") + bytes([1, int(sys.argv[1])])
for _ in range(5):
    s.send(head + bytes(int(sys.argv[2]) - len(head)))' "$1" "$2"
}
ip netns exec "$(h 0)" ping -c1 -W2 -I rail0 "$("$cluster" addr 1 0)" >/dev/null 2>&1 # ARP first: not counted below
counts() { # -> host end 2:101 2:102 2:ffff, switch end 2:100 2:102 2:ffff
	local c
	for c in 2:101 2:102 2:ffff; do echo -n "$(sent "$(h 0)" rail0 $c) "; done
	for c in 2:100 2:102 2:ffff; do echo -n "$(sent "$sw" "$port10" $c) "; done
}
classified() { # what count command...: the command adds count packets to the pair's classes only
	local what=$1 want=$2 c0 c1 d=()
	shift 2
	read -r -a c0 <<<"$(counts)"
	"$@" >/dev/null 2>&1
	read -r -a c1 <<<"$(counts)"
	for i in 0 1 2 3 4 5; do d+=($((c1[i] - c0[i]))); done
	[ "${d[*]}" = "$want 0 0 $want 0 0" ]
	result $? "$what: $want packets in host 0's class 2:101 and the switch's 2:100 towards host 1, none elsewhere" \
		"$what: host end 2:101 2:102 2:ffff, switch end 2:100 2:102 2:ffff counted ${d[*]} (want $want 0 0 $want 0 0)"
}
classified "5 DPDK ACK frames (86 bytes)" 5 frames 2 86
classified "5 DPDK DATA frames (1000 bytes)" 5 frames 1 1000
classified "2 pings of 84 bytes (IPv4)" 2 ip netns exec "$(h 0)" ping -c2 -i0.2 -W2 -I rail0 "$("$cluster" addr 1 0)"
classified "2 pings of 1028 bytes (IPv4)" 2 ip netns exec "$(h 0)" ping -c2 -i0.2 -W2 -s 1000 -I rail0 "$("$cluster" addr 1 0)"

# --------------------------------------------------------------------------
# Rates.  iperf3 -> the receiver's Mbit/s.
iperf() { # from to port [seconds]
	local server
	ip netns exec "$(h "$2")" timeout 30 iperf3 -s -1 -p "$3" -B "$("$cluster" addr "$2" 0)" >/dev/null 2>&1 &
	server=$!
	test_pids+=("$server")
	for _ in $(seq 50); do
		[ -z "$(ip netns exec "$(h "$2")" ss -Hltn "sport = :$3")" ] || break
		sleep 0.1
	done
	ip netns exec "$(h "$1")" timeout 30 iperf3 -c "$("$cluster" addr "$2" 0)" -B "$("$cluster" addr "$1" 0)" \
		-p "$3" -t "${4:-3}" -O 1 -f m 2>&1 |
		awk '/receiver/ { for (i = 1; i < NF; i++) if ($(i + 1) == "Mbits/sec") print $i }'
	wait "$server" 2>/dev/null
}
ratio() { awk -v a="${1:-0}" -v b="${2:-0}" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }'; }
at_least() { awk -v x="$1" -v min="$2" 'BEGIN { exit !(x >= min) }'; }

# Each attempt: host 0 -> 1 alone and host 2 -> 0 alone (the one-way
# figures: 0.85..1.02 of 50, as cluster_test's), then both at once, host
# 2's stream first: once 1 MB of it waits at the switch end towards host 0
# (the tbf's backlog: cubic fills a queue that never drops), host 0 starts
# sending to 1; each >= 0.85 of its one-way figure.  The ACKs of what host
# 0 sends come from host 1 through that switch end: the per-peer classes
# let them pass host 2's queued data, one queue per tbf keeps them behind
# it and host 0's stream starts on round trips of up to 0.7 s.  Two pairs,
# not one pair both ways (iperf3 --bidir 0 <-> 1): there the ACKs and the
# reverse data share the pair's class, and with cubic host 0's stream fell
# to 0.07-0.70 of one way in a CI run (docs/guide/emulated-cluster.md, the hosts' congestion control).
# A loaded machine only falls short, so the best of 3.
backlog() { # ns dev -> bytes queued in the root qdisc
	tc -s -n "$1" qdisc show dev "$2" | awk '/^qdisc tbf/ { t = 1 } t && /backlog/ { sub("b$", "", $2); print $2 + 0; exit }'
}
seen='' best_one=0 verdict=low
for attempt in 1 2 3; do
	one=$(iperf 0 1 5201 | head -1) two=$(iperf 2 0 5202 | head -1)
	iperf 2 0 5203 6 >"$tmp/received" &
	receiver=$!
	queued=0
	for _ in $(seq 100); do
		queued=$(backlog "$sw" "$port00")
		[ "${queued:-0}" -lt 1000000 ] || break
		sleep 0.05
	done
	out=$(iperf 0 1 5204 | head -1)
	wait $receiver
	in=$(head -1 "$tmp/received")
	r0=$(ratio "${out:-0}" "$one") r1=$(ratio "${in:-0}" "$two")
	seen+="${seen:+; }alone 0->1 ${one:-none} and 2->0 ${two:-none}, at once (${queued:-0} bytes queued) ${out:-none} and ${in:-none} Mbit/s ($r0, $r1)"
	! at_least "${one:-0}" "$best_one" || best_one=${one:-0}
	if at_least "${one:-0}" 51.01 || at_least "${two:-0}" 51.01; then verdict=high && break; fi
	if at_least "${one:-0}" 42.5 && at_least "${two:-0}" 42.5 &&
		at_least "$r0" 0.85 && at_least "$r1" 0.85; then verdict=ok && break; fi
done
case $verdict in
ok) ok "TCP host 0 (50mbit) sends to 1 while 2 sends to it: each way >= 0.85 of alone (attempt $attempt: $seen)" ;;
high) fail "TCP to or from host 0 exceeded its 50mbit: $seen" ;;
*) fail "TCP host 0 -> 1 while 2 -> 0: want alone 42.5..51 Mbit/s and at once >= 0.85 of it each way in one of 3 attempts: $seen" ;;
esac

# lanebench's allgather ring over TCP on both rails: host 0 receives 2 x
# 4 MiB from host 2 while it sends as much to host 1, so each rail carries
# 4 MiB each way: what it gets per rail, 4 MiB / the median, over the best
# one-way figure, >= 0.9 in 2 of 3 attempts.  Measured (2026-11-25, load
# 0.5-7): with control frames first 0.95-1.01 in each of 17 runs; with one
# queue per tbf 0.61-0.85 in 14 of 17 runs, but 0.93-0.98 in 3 (runs whose
# windows happened to cover the longer round trip): one good attempt
# proves little, two of three separate them.
seen='' passed=0 failed=0
for attempt in 1 2 3; do
	csv=$tmp/ring$attempt.csv
	"$cluster" run --name "$name" --timeout 120 -- "$B" bcast --transport tcp --no-pin \
		-a allgather-ring -m 4M -s 256K -i 3 -x 1 --no-calibration -o "$csv" >"$tmp/ring.out" 2>&1
	secs=$(awk -F, '/^#/ { next } !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
		{ print $c["time_median_seconds"]; exit }' "$csv" 2>/dev/null)
	mbit=$(awk -v s="${secs:-0}" 'BEGIN { printf "%.2f", (s > 0 ? 4194304 * 8 / s / 1e6 : 0) }')
	r=$(ratio "$mbit" "$best_one")
	seen+="${seen:+; }${secs:-failed: $(tail -1 "$tmp/ring.out")} s: $mbit Mbit/s per rail each way ($r)"
	if at_least "$r" 0.9; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
	[ $passed -lt 2 ] && [ $failed -lt 2 ] || break
done
[ $passed -ge 2 ]
result $? "allgather-ring over TCP, 4M: host 0 gets >= 0.9 of its one-way $best_one Mbit/s each way ($seen)" \
	"allgather-ring over TCP, 4M: want >= 0.9 of the one-way $best_one Mbit/s per rail each way in 2 of 3 attempts: $seen"

# Nothing dropped: the queues push back.
drops=$(for ns in "$(h 0)" "$(h 1)" "$(h 2)" "$sw"; do tc -s -n "$ns" qdisc show; done |
	awk '/^qdisc tbf/ { t = 1; next } /^qdisc/ { t = 0 } t && /dropped/ { sub(",", "", $7); s += $7 } END { print s + 0 }')
[ "$drops" = 0 ]
result $? "no tbf dropped a packet" "the tbfs dropped $drops packets"

finish cluster_duplex
