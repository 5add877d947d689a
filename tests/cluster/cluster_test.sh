#!/usr/bin/env bash
# Tests scripts/cluster on this machine (root, network namespaces): topology,
# addresses, MACs, shaping on both ends of every rail link, the rate a TCP
# stream gets, per-host and per-link (--rate-of) rates, `link down|up`, the
# `run` launcher (environment, failures, timeout, interrupt, log files), bad
# input, and that `down` leaves nothing behind.  Traffic only ever flows between namespaces the test creates.
# Exit 0: all passed; 1: some assertion failed (each printed); 77: skipped
# (not root, or network namespaces unavailable).
set -uo pipefail
usage="usage: cluster_test.sh path/to/tests/lib.sh path/to/scripts/cluster"
source "${1:?$usage}"
shift
use_cluster "${1:?$usage}" lbt
trap 'exit 1' INT TERM
leftover_pids() { # processes inside any host namespace of the cluster
	local ns
	for ns in $(ip netns list | awk '{ print $1 }' | grep -E "^$name-h[0-9]+\$"); do
		ip netns pids "$ns"
	done
}
wait_listen() { # ns port: bounded wait (5 s) for a TCP listener
	for _ in $(seq 50); do
		ip netns exec "$1" ss -Hltn "sport = :$2" 2>/dev/null | grep -q . && return 0
		sleep 0.1
	done
	return 1
}

# The root namespace must look the same afterwards.
root_links_before=$(ip -o link show | awk -F': ' '{ print $2 }' | sort)
root_addrs_before=$(ip -o addr show | awk '{ print $2, $4 }' | sort)
root_routes_before=$(ip route show table all | sort)

# --------------------------------------------------------------------------
# up 3 x 2 rails at 100 Mbit/s
check "up 3 --rails 2 --rate 100mbit --name $name" timeout 60 "$cluster" up 3 --rails 2 --rate 100mbit --name "$name"
for ns in $name-sw $name-h0 $name-h1 $name-h2; do
	ip netns list | grep -q "^$ns\b"
	result $? "namespace $ns exists" \
		"namespace $ns missing"
done
[ -f /run/lanebench-cluster/$name.env ]
result $? "state file written" \
	"no state file /run/lanebench-cluster/$name.env"

# Addresses, MACs, lo, IPv6 off.
for i in 0 1 2; do
	ns=$name-h$i
	for r in 0 1; do
		want_addr=$("$cluster" addr $i $r)/24
		want_mac=$("$cluster" mac $i $r)
		addr=$(ip -n "$ns" -o -4 addr show dev rail$r 2>/dev/null | awk '{ print $4 }')
		mac=$(ip -n "$ns" -o link show dev rail$r 2>/dev/null | grep -o 'link/ether [0-9a-f:]*' | cut -d' ' -f2)
		[ "$addr" = "$want_addr" ] && [ "$mac" = "$want_mac" ]
		result $? "host $i rail$r: $addr $mac" \
			"host $i rail$r: address '$addr' MAC '$mac', want $want_addr $want_mac"
	done
	addr=$(ip -n "$ns" -o -4 addr show dev mgmt 2>/dev/null | awk '{ print $4 }')
	want_addr=$("$cluster" addr $i mgmt)/24
	[ "$addr" = "$want_addr" ]
	result $? "host $i mgmt: $addr" \
		"host $i mgmt address '$addr', want $want_addr"
	ip -n "$ns" -o link show dev lo | grep -q ',UP'
	result $? "host $i: lo up" \
		"host $i: lo not up"
	v6=$(ip netns exec "$ns" sysctl -n net.ipv6.conf.all.disable_ipv6 2>/dev/null)
	v6addrs=$(ip -n "$ns" -o -6 addr show 2>/dev/null | wc -l)
	[ "$v6" = 1 ] && [ "$v6addrs" = 0 ]
	result $? "host $i: IPv6 off" \
		"host $i: IPv6 disable_ipv6='$v6', $v6addrs IPv6 addresses"
	extra=$(ip -n "$ns" -o link show | awk -F': ' '{ sub(/@.*/, "", $2); print $2 }' | sort | tr '\n' ' ')
	[ "$extra" = "lo mgmt rail0 rail1 " ]
	result $? "host $i: interfaces $extra" \
		"host $i: interfaces '$extra', want 'lo mgmt rail0 rail1'"
done

# TCP's congestion control on the rails (up --tcp-cc, default cubic): what a
# connection on rail0 from host 0 to host 1 uses, on both ends.
# tcp_cc_pair CLUSTER RAIL PORT -> "client server" (TCP_CONGESTION of each end)
tcp_cc_pair() {
	local net=$((10 + $2)) port=$3 srv
	ip netns exec "$1-h1" timeout 10 python3 -c '
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2]))); s.listen(1); s.settimeout(8)
c, _ = s.accept()
print(c.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16).rstrip(b"\0").decode())
c.recv(1)' "10.$net.0.2" "$port" >"$tmp/cc-server" 2>&1 &
	srv=$!
	wait_listen "$1-h1" "$port" || { echo "no listener"; return; }
	ip netns exec "$1-h0" timeout 10 python3 -c '
import socket, sys
c = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=8, source_address=(sys.argv[3], 0))
print(c.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16).rstrip(b"\0").decode(), end=" ")
c.close()' "10.$net.0.2" "$port" "10.$net.0.1"
	wait "$srv"
	cat "$tmp/cc-server"
}
cc=$(tcp_cc_pair "$name" 0 5301)
[ "$cc" = "cubic cubic" ]
result $? "tcp on rail0 uses cubic on both ends by default (kernel default: $(sysctl -n net.ipv4.tcp_congestion_control))" \
	"tcp on rail0: congestion control '$cc' (client server), want 'cubic cubic'"
# reno: never a kernel's default, so this shows the routes decide.  A
# second cluster of the test's own, taken down at exit too.
cc_name=lbo${name#lbt} # lbt + the PID's digits (use_cluster): lbo (no other test's prefix) + the same
cc_cluster_down() { "$cluster" down --name "$cc_name" >/dev/null 2>&1; }
at_exit cc_cluster_down
check "up 2 --tcp-cc reno" timeout 60 "$cluster" up 2 --rate 100mbit --tcp-cc reno --name "$cc_name"
cc=$(tcp_cc_pair "$cc_name" 0 5302)
[ "$cc" = "reno reno" ]
result $? "up --tcp-cc reno: tcp on rail0 uses reno on both ends" \
	"up --tcp-cc reno: congestion control '$cc' (client server), want 'reno reno'"
check "up 2 --tcp-cc kernel" timeout 60 "$cluster" up 2 --rate 100mbit --tcp-cc kernel --name "$cc_name"
routes=$(ip -n "$cc_name-h0" route show)
! grep -q congctl <<<"$routes"
result $? "up --tcp-cc kernel: no congestion control on the routes" \
	"up --tcp-cc kernel: routes '$routes' name one"
check "down $cc_name" timeout 60 "$cluster" down --name "$cc_name"

# Shaping on both ends of every rail link: the host end, and its veth peer in
# the switch namespace (found by the peer's ifindex, whatever it is called),
# which must be a port of bridge br<r>.  mgmt is not shaped.
tbf_rate() { tc -n "$1" qdisc show dev "$2" 2>/dev/null | grep -o 'tbf.* rate [0-9.]*[KMGT]\?bit' | awk '{ print $NF }'; }
peer_of() { # ns dev -> name of its veth peer in $name-sw
	local idx
	idx=$(ip -n "$1" -o link show dev "$2" | sed -n 's/^[0-9]*: [^@]*@if\([0-9]*\):.*/\1/p')
	ip -n "$name-sw" -o link show | awk -F': ' -v i="$idx" '$1 == i { sub(/@.*/, "", $2); print $2 }'
}
check_shaping() { # host rail want-rate
	local ns=$name-h$1 peer host_rate sw_rate master
	peer=$(peer_of "$ns" "rail$2")
	host_rate=$(tbf_rate "$ns" "rail$2")
	sw_rate=$(tbf_rate "$name-sw" "$peer")
	master=$(ip -n "$name-sw" -o link show dev "$peer" 2>/dev/null | grep -o 'master [^ ]*' | cut -d' ' -f2)
	if [ "$host_rate" = "$3" ] && [ "$sw_rate" = "$3" ] && [ "$master" = "br$2" ]; then
		ok "host $1 rail$2: tbf $host_rate on the host end, $sw_rate on the switch end ($peer in br$2)"
	else
		fail "host $1 rail$2: tbf host end '$host_rate', switch end '$sw_rate' ($peer, master '$master'), want $3 in br$2"
	fi
}
for i in 0 1 2; do for r in 0 1; do check_shaping $i $r 100Mbit; done; done

# The queues of every shaped end: the burst holds the largest skb whole
# (65536 bytes, gso_max_size and gro_max_size on both ends, counted with the
# 66-byte headers of its 45 more segments at MTU 1500: 68506), else tbf
# segments it in software, plus 1 ms at 100 Mbit/s (12500); the limit holds a full send buffer (tcp_wmem's maximum) of
# each of the 2 peers' sockets, so that tbf pushes back instead of dropping.
wmem_max=$(ip netns exec "$name-h0" sysctl -n net.ipv4.tcp_wmem | awk '{ print $3 }')
tbf_field() { grep -o "\"$1\":[0-9]*" | head -1 | cut -d: -f2; } # JSON of tc -j
check_queue() { # ns dev
	local j burst rate lat limit gso gro
	j=$(tc -j -n "$1" qdisc show dev "$2" 2>/dev/null)
	burst=$(tbf_field burst <<<"$j") rate=$(tbf_field rate <<<"$j") lat=$(tbf_field lat <<<"$j")
	# tc gives the limit as a latency: lat = limit / rate - burst / rate
	limit=$(awk -v r="${rate:-0}" -v l="${lat:-0}" -v b="${burst:-0}" 'BEGIN { printf "%.0f", r * l / 1e6 + b }')
	gso=$(ip -n "$1" -d link show dev "$2" | grep -o 'gso_max_size [0-9]*' | cut -d' ' -f2)
	gro=$(ip -n "$1" -d link show dev "$2" | grep -o 'gro_max_size [0-9]*' | cut -d' ' -f2)
	[ "${burst:-0}" -ge 81006 ] && [ "$limit" -ge $((2 * wmem_max)) ] && [ "$gso" = 65536 ] && [ "$gro" = 65536 ]
	result $? "$1 $2: tbf burst $burst, limit $limit (>= 2 x $wmem_max), gso/gro_max_size $gso/$gro" \
		"$1 $2: tbf burst '$burst' (want >= 81006), limit '$limit' (want >= 2 x $wmem_max), gso/gro_max_size '$gso/$gro' (want 65536)"
}
for i in 0 1 2; do for r in 0 1; do
	check_queue "$name-h$i" "rail$r"
	check_queue "$name-sw" "${name}h${i}r$r"
done; done
for i in 0 1 2; do
	! tc -n "$name-h$i" qdisc show dev mgmt | grep -q tbf
	result $? "host $i: mgmt not shaped" "host $i: mgmt is shaped"
done

# Every host reaches every other host on each rail and on mgmt.
if command -v ping >/dev/null; then
	for s in 0 1 2; do
		for d in 0 1 2; do
			[ $s != $d ] || continue
			for net in rail0:10 rail1:11 mgmt:9; do
				dev=${net%:*} dst=10.${net#*:}.0.$((d + 1))
				if ip netns exec "$name-h$s" ping -c1 -W2 -I "$dev" "$dst" >/dev/null 2>&1; then
					ok "ping host $s -> host $d on $dev ($dst)"
				else
					fail "ping host $s -> host $d on $dev ($dst)"
				fi
			done
		done
	done
else
	fail "ping not installed (Debian package iputils-ping): reachability untested"
fi

# Rate: one TCP stream host 0 -> host 1 on rail0 for 3 s, goodput measured at
# the receiver.  TCP payload is at most 1448/1514 = 95.6 % of the line rate at
# MTU 1500, so 85 % .. 102 % is the window.
# measure_TOOL RAIL: Mbit/s of one stream host 0 -> host 1 on rail RAIL.
measure_iperf3() {
	local net=$((10 + $1))
	ip netns exec "$name-h1" timeout 20 iperf3 -s -1 -B 10.$net.0.2 -p 5201 >/dev/null 2>&1 &
	test_pids+=($!)
	wait_listen "$name-h1" 5201 || return 1
	ip netns exec "$name-h0" timeout 20 iperf3 -c 10.$net.0.2 -B 10.$net.0.1 -p 5201 -t 3 -f m 2>&1 |
		awk '/receiver/ { for (i = 1; i < NF; i++) if ($(i + 1) == "Mbits/sec") print $i }'
}
measure_python() {
	local net=$((10 + $1))
	ip netns exec "$name-h1" timeout 20 python3 -c '
import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("10.%s.0.2" % sys.argv[1], 5201)); s.listen(1); s.settimeout(10)
c, _ = s.accept(); c.settimeout(10)
n, t0, t1 = 0, None, None
while True:
    b = c.recv(1 << 20)
    if not b:
        break
    t1 = time.monotonic()
    if t0 is None:
        t0 = t1
    n += len(b)
print("%.2f" % (n * 8 / (t1 - t0) / 1e6))' "$net" >"$tmp/rate" 2>&1 &
	local srv=$!
	test_pids+=("$srv")
	wait_listen "$name-h1" 5201 || return 1
	ip netns exec "$name-h0" timeout 20 python3 -c '
import socket, sys, time
net = sys.argv[1]
c = socket.create_connection(("10.%s.0.2" % net, 5201), timeout=10, source_address=("10.%s.0.1" % net, 0))
buf, stop = bytes(1 << 16), time.monotonic() + 3
while time.monotonic() < stop:
    c.sendall(buf)
c.close()' "$net" || return 1
	wait "$srv"
	cat "$tmp/rate"
}
cpu_ticks() { # "busy steal total" jiffies from /proc/stat's cpu line
	awk '/^cpu / { t = 0; for (i = 2; i <= NF; i++) t += $i
		print t - $5 - $6, $9, t; exit }' /proc/stat
}
# Shaping must never let a stream exceed the rate: any attempt above 102 %
# fails.  Falling short is what a starved machine does too (a CI host once
# gave 74 Mbit/s with shaping correct), so the ceiling is the best of up to
# three attempts, and each attempt reports how busy the CPUs were.  When
# the hypervisor stole >= 10 % of the CPUs in every attempt (a CI run saw
# 34-40 % steal and 52-62 Mbit/s), the machine cannot show line rate: the
# best attempt then only has to prove the rate is of the right order
# (>= 25 %: a unit error, kbit for mbit, is 0.1 %), and the test says so.
tool=${CLUSTER_TEST_RATE_TOOL:-}
[ -n "$tool" ] || { command -v iperf3 >/dev/null && tool=iperf3 || tool=python; }
attempts=() verdict=low best=0 least_steal=100
for try in 1 2 3; do
	read -r busy0 steal0 total0 < <(cpu_ticks)
	mbps=$("measure_$tool" 0 2>&1 | tail -1)
	read -r busy1 steal1 total1 < <(cpu_ticks)
	load=$(awk -v b=$((busy1 - busy0)) -v s=$((steal1 - steal0)) -v t=$((total1 - total0)) \
		'BEGIN { if (t < 1) t = 1; printf "CPU busy %d %%, steal %d %%", 100 * b / t, 100 * s / t }')
	attempts+=("'$mbps' ($load)")
	steal=$(awk -v s=$((steal1 - steal0)) -v t=$((total1 - total0)) 'BEGIN { if (t < 1) t = 1; printf "%d", 100 * s / t }')
	[ "$steal" -ge "$least_steal" ] || least_steal=$steal
	best=$(awk -v m="$mbps" -v b="$best" 'BEGIN { print (m ~ /^[0-9.]+$/ && m > b) ? m : b }')
	if ! awk -v m="$mbps" 'BEGIN { exit !(m ~ /^[0-9.]+$/) }'; then
		verdict=broken && break
	elif awk -v m="$mbps" 'BEGIN { exit !(m > 102) }'; then
		verdict=high && break
	elif awk -v m="$mbps" 'BEGIN { exit !(m >= 85) }'; then
		verdict=ok && break
	fi
done
summary="$(IFS=';'; echo "${attempts[*]}" | sed 's/;/; /g')"
if [ $verdict = low ] && [ "$least_steal" -ge 10 ] &&
	awk -v m="$best" 'BEGIN { exit !(m >= 25) }'; then
	verdict=stolen
fi
# The stream's packets all went through: neither tbf of the link dropped.
tbf_dropped() { tc -s -n "$1" qdisc show dev "$2" | awk '/dropped/ { sub(",", "", $7); print $7; exit }'; }
drops="$(tbf_dropped "$name-h0" rail0)/$(tbf_dropped "$name-sw" "${name}h1r0")"
[ "$drops" = 0/0 ]
result $? "rate: no tbf drops on host 0 rail0 and the switch end of host 1 rail0" \
	"rate: tbf dropped '$drops' packets (host 0 rail0 / switch end of host 1 rail0), want 0/0"
case $verdict in
stolen) ok "rate: one TCP stream on rail0 at 100mbit: $best Mbit/s, judged only >= 25: the hypervisor stole >= $least_steal % of the CPUs in every attempt ($tool; attempts: $summary)" ;;
ok) ok "rate: one TCP stream on rail0 at 100mbit: $mbps Mbit/s ($tool; attempts: $summary)" ;;
high) fail "rate: one TCP stream on rail0 at 100mbit exceeded the shaping: $summary Mbit/s ($tool), want <= 102" ;;
*) fail "rate: one TCP stream on rail0 at 100mbit: $summary Mbit/s ($tool), want 85..102 in one of 3 attempts" ;;
esac

# status
if out=$(timeout 30 "$cluster" status --name "$name" 2>&1) && grep -q "$("$cluster" addr 2 1)" <<<"$out" &&
	[ "$(grep -c 'UP *carrier *port up *rate 100mbit *tx 100Mbit *rx 100Mbit' <<<"$out")" = 6 ]; then
	ok "status lists hosts, addresses and both rates"
else
	fail "status:"
	printf '    %s\n' "$out"
fi

# --------------------------------------------------------------------------
# Per-host rates; `up` over an existing cluster replaces it.
check "up --rates 50mbit,100mbit,100mbit over the running cluster" \
	timeout 60 "$cluster" up 3 --rails 2 --rates 50mbit,100mbit,100mbit --name "$name"
for r in 0 1; do check_shaping 0 $r 50Mbit; done
for i in 1 2; do for r in 0 1; do check_shaping $i $r 100Mbit; done; done

# --------------------------------------------------------------------------
# A degraded port: --rate-of shapes exactly that link, on both ends; every
# other link keeps its host's rate.  A later --rate-of of a link wins.
check "up --rate 100mbit --rate-of 1:1=20mbit --rate-of 1:1=50mbit" \
	timeout 60 "$cluster" up 3 --rails 2 --rate 100mbit --rate-of 1:1=20mbit --rate-of 1:1=50mbit --name "$name"
for i in 0 1 2; do for r in 0 1; do
	if [ $i = 1 ] && [ $r = 1 ]; then check_shaping $i $r 50Mbit; else check_shaping $i $r 100Mbit; fi
done; done
if out=$(timeout 30 "$cluster" status --name "$name" 2>&1) &&
	grep -q "^  rail1 *$("$cluster" addr 1 1) .* rate 50mbit *tx 50Mbit *rx 50Mbit *mtu 1500$" <<<"$out" &&
	[ "$(grep -c 'rate 100mbit *tx 100Mbit *rx 100Mbit *mtu 1500$' <<<"$out")" = 5 ]; then
	ok "status shows host 1 rail1 at 50mbit, the 5 other links at 100mbit"
else
	fail "status after --rate-of 1:1=50mbit:"
	printf '    %s\n' "$out"
fi
# Timing only one way: shaping never lets a stream beyond 102 % of the link's
# rate (without --rate-of it would reach ~95 Mbit/s), while a starved machine
# only falls short, which says nothing about the configuration.
mbps=$("measure_$tool" 1 2>&1 | tail -1)
awk -v m="$mbps" 'BEGIN { exit !(m ~ /^[0-9.]+$/ && m > 0 && m <= 51) }'
result $? "one TCP stream host 0 -> host 1 on the 50mbit rail1: $mbps Mbit/s (<= 51)" \
	"one TCP stream host 0 -> host 1 on the 50mbit rail1: '$mbps' Mbit/s, want 0 < rate <= 51"

# --------------------------------------------------------------------------
# link down/up: a cable pull.  The switch end goes down, the host end loses
# carrier and keeps its address; the other links are untouched.
carrier() { ip -n "$name-h$1" -o link show dev "rail$2" | grep -o '<[^>]*>'; }
ping_rail1() { ip netns exec "$name-h0" ping -c1 -W1 -I rail1 "$("$cluster" addr 1 1)" >/dev/null 2>&1; }
check "link 1 1 down" timeout 60 "$cluster" link 1 1 down --name "$name"
flags=$(carrier 1 1) addr=$(ip -n "$name-h1" -o -4 addr show dev rail1 | awk '{ print $4 }')
[[ $flags = *NO-CARRIER* && $flags = *,UP* ]] && [ "$addr" = "$("$cluster" addr 1 1)/24" ] &&
	[[ $(carrier 1 0) = *LOWER_UP* && $(carrier 0 1) = *LOWER_UP* ]]
result $? "link down: host 1 rail1 $flags, address $addr kept; rail0 and host 0 rail1 keep carrier" \
	"link down: host 1 rail1 $flags address '$addr'; host 1 rail0 $(carrier 1 0), host 0 rail1 $(carrier 0 1)"
out=$(timeout 30 "$cluster" status --name "$name" 2>&1)
grep -q "^  rail1 *$("$cluster" addr 1 1) .* DOWN *NO-CARRIER port down rate 50mbit" <<<"$out"
result $? "status shows host 1 rail1 DOWN, NO-CARRIER, port down" \
	"status after link down: $(grep "$("$cluster" addr 1 1)" <<<"$out")"
! ping_rail1
result $? "link down: host 0 cannot reach host 1 on rail1" "link down: host 0 still reaches host 1 on rail1"
check "link 1 1 up" timeout 60 "$cluster" link 1 1 up --name "$name"
flags=$(carrier 1 1)
[[ $flags = *LOWER_UP* && $flags != *NO-CARRIER* ]] && ping_rail1
result $? "link up: host 1 rail1 $flags, host 0 reaches it again" \
	"link up: host 1 rail1 $flags, ping host 0 -> host 1 on rail1 $(ping_rail1 && echo works || echo fails)"
check_shaping 1 1 50Mbit

# --------------------------------------------------------------------------
# run: environment of each rank
run() { timeout 60 "$cluster" run --name "$name" "$@"; }
# shellcheck disable=SC2016 # expanded by the rank's sh
run -- sh -c 'echo "ENV $LANEBENCH_RANK $LANEBENCH_SIZE $LANEBENCH_COORD $LANEBENCH_TOKEN $LANEBENCH_NICS $(ip netns identify $$)"' \
	>"$tmp/env.out" 2>"$tmp/env.err"
rc=$?
[ $rc = 0 ]
result $? "run: exit 0 when every rank exits 0" \
	"run: exit $rc: $(head -3 "$tmp/env.err")"
tokens=()
for i in 0 1 2; do
	line=$(grep "^\[rank $i\] ENV " "$tmp/env.out")
	read -r _ _ _ rank size coord token nics ns <<<"$line"
	tokens+=("$token")
	if [ "$rank" = $i ] && [ "$size" = 3 ] && [ "$coord" = "$("$cluster" addr 0 mgmt):18515" ] &&
		[[ $token =~ ^[0-9a-f]{32}$ ]] && [ "$nics" = rail0,rail1 ] && [ "$ns" = "$name-h$i" ]; then
		ok "run: rank $i: RANK=$rank SIZE=$size COORD=$coord NICS=$nics in $ns"
	else
		fail "run: rank $i sees '$line'"
	fi
done
[ "$(wc -l <"$tmp/env.out")" = 3 ]
result $? "run: exactly 3 ranks" \
	"run: $(wc -l <"$tmp/env.out") output lines, want 3"
[ "${tokens[0]:-}" = "${tokens[1]:-x}" ] && [ "${tokens[1]:-}" = "${tokens[2]:-x}" ]
result $? "run: one token for all ranks (${tokens[0]})" \
	"run: tokens differ: ${tokens[*]}"
# shellcheck disable=SC2016
token2=$(run --port 20000 -- sh -c 'echo "$LANEBENCH_TOKEN $LANEBENCH_COORD"' | sed -n 's/^\[rank 0\] //p')
[ -n "$token2" ] && [ "${token2% *}" != "${tokens[0]:-}" ] && [ "${token2#* }" = "$("$cluster" addr 0 mgmt):20000" ]
result $? "run: a new token per run, --port sets the coordinator port" \
	"run: second run saw '$token2'"

# run: stdout and stderr stay apart, both prefixed
run -- sh -c 'echo out; echo err >&2' >"$tmp/o" 2>"$tmp/e"
[ "$(grep -c '^\[rank [0-2]\] out$' "$tmp/o")" = 3 ] && [ "$(grep -c '^\[rank [0-2]\] err$' "$tmp/e")" = 3 ]
result $? "run: stdout and stderr prefixed [rank i], kept apart" \
	"run: output '$(cat "$tmp/o" "$tmp/e")'"

# run: a failing rank
# shellcheck disable=SC2016
run -- sh -c '[ "$LANEBENCH_RANK" = 1 ] && exit 3; exit 0' >"$tmp/o" 2>&1
rc=$?
if [ $rc != 0 ] && grep -q 'rank 1.*3' "$tmp/o" && ! grep -q 'rank [02] failed' "$tmp/o"; then
	ok "run: rank 1 exits 3 -> run exits $rc: $(grep 'rank 1' "$tmp/o" | head -1)"
else
	fail "run: rank 1 exits 3 -> run exit $rc, output: $(cat "$tmp/o")"
fi

# run: --log-dir
# shellcheck disable=SC2016
run --log-dir "$tmp/logs" -- sh -c 'echo "out $LANEBENCH_RANK"; echo err >&2' >"$tmp/o" 2>&1
rc=$?
good=0
for i in 0 1 2; do
	[ "$(cat "$tmp/logs/rank$i.log" 2>/dev/null)" = "out $i
err" ] && good=$((good + 1))
done
[ $rc = 0 ] && [ $good = 3 ] && ! grep -q 'out' "$tmp/o"
result $? "run: --log-dir writes rank<i>.log" \
	"run: --log-dir (exit $rc, $good good logs): $(cat "$tmp/o")"

# run: --timeout kills every rank and what they started
start=$SECONDS
run --timeout 2 -- sh -c 'sleep 30 & sleep 30' >"$tmp/o" 2>&1
rc=$?
took=$((SECONDS - start))
left=$(leftover_pids | wc -l)
if [ $rc != 0 ] && [ $took -lt 10 ] && [ "$left" = 0 ] && grep -qi timeout "$tmp/o"; then
	ok "run: --timeout 2 with sleep 30 -> exit $rc after $took s, no process left: $(grep -i timeout "$tmp/o")"
else
	fail "run: --timeout 2 -> exit $rc after $took s, $left processes left, output: $(cat "$tmp/o")"
fi

# run: TERM to `cluster run` kills every rank -- sent once every rank runs
# (each touches a file first), not after a guessed delay
mkdir "$tmp/up"
# shellcheck disable=SC2016 # expanded by the rank's sh
"$cluster" run --name "$name" -- sh -c 'touch "$0/$LANEBENCH_RANK"; exec sleep 30' "$tmp/up" \
	>"$tmp/o" 2>&1 &
runner=$!
test_pids+=("$runner")
for _ in $(seq 100); do # bounded: 10 s
	[ "$(find "$tmp/up" -type f | wc -l)" = 3 ] && break
	sleep 0.1
done
[ "$(find "$tmp/up" -type f | wc -l)" = 3 ] || fail "run: the 3 ranks did not start within 10 s"
kill -TERM $runner
start=$SECONDS
for _ in $(seq 100); do kill -0 $runner 2>/dev/null || break; sleep 0.1; done
wait $runner
rc=$?
took=$((SECONDS - start))
left=$(leftover_pids | wc -l)
[ $rc != 0 ] && [ $took -lt 10 ] && [ "$left" = 0 ]
result $? "run: TERM -> exit $rc after $took s, no process left" \
	"run: TERM -> exit $rc after $took s, $left processes left: $(cat "$tmp/o")"

# --------------------------------------------------------------------------
# Bad input: exit 2, the bad value named on stderr, the running cluster kept.
bad_input() { # description, bad value, arguments...
	local what=$1 value=$2
	shift 2
	timeout 30 "$cluster" "$@" >"$tmp/o" 2>"$tmp/e"
	local rc=$?
	if [ $rc = 2 ] && grep -qF -- "'$value'" "$tmp/e" && [ ! -s "$tmp/o" ]; then
		ok "bad input: $what -> exit 2: $(head -1 "$tmp/e")"
	else
		fail "bad input: $what -> exit $rc, stderr '$(cat "$tmp/e")', want exit 2 naming '$value'"
	fi
}
bad_input "up 0" 0 up 0 --rate 100mbit --name "$name"
bad_input "up 65" 65 up 65 --rate 100mbit --name "$name"
bad_input "up 3 --rails 9" 9 up 3 --rails 9 --rate 100mbit --name "$name"
bad_input "up 3 --rate fast" fast up 3 --rate fast --name "$name"
bad_input "--rates with 2 entries for 3 hosts" 50mbit,100mbit up 3 --rates 50mbit,100mbit --name "$name"
bad_input "--rates with a bad entry" 10x up 3 --rates 50mbit,10x,100mbit --name "$name"
bad_input "--name too long" toolong7 up 3 --rate 100mbit --name toolong7
bad_input "unknown subcommand" frobnicate frobnicate
bad_input "unknown option" --frob up 3 --rate 100mbit --frob --name "$name"
bad_input "run --timeout x" x run --name "$name" --timeout x -- true
bad_input "--rate-of of host 5 on 3 hosts" 5:1=100mbit up 3 --rails 2 --rate 100mbit --rate-of 5:1=100mbit --name "$name"
bad_input "--rate-of of rail 2 on 2 rails" 0:2=100mbit up 3 --rails 2 --rate 100mbit --rate-of 0:2=100mbit --name "$name"
bad_input "--rate-of with a bad rate" 1:1=fast up 3 --rails 2 --rate 100mbit --rate-of 1:1=fast --name "$name"
bad_input "--rate-of without a rate" 1:1 up 3 --rails 2 --rate 100mbit --rate-of 1:1 --name "$name"
bad_input "link of host 3 on 3 hosts" 3 link 3 0 down --name "$name"
bad_input "link of rail 2 on 2 rails" 2 link 0 2 down --name "$name"
bad_input "link 0 0 sideways" sideways link 0 0 sideways --name "$name"
bad_input "--tcp-cc nosuch" nosuch up 3 --rate 100mbit --tcp-cc nosuch --name "$name"
bad_input "addr of host 64" 64 addr 64 0
bad_input "addr of rail 4" 4 addr 0 4
bad_input "ns of a bad cluster name" BAD ns 0 --name BAD
# The names the other scripts ask for (above, up built what they say), as
# docs/guide/emulated-cluster.md gives them.
names="$("$cluster" addr 2 1) $("$cluster" addr 2 mgmt) $("$cluster" mac 2 1) $("$cluster" nic 1)"
names+=" $("$cluster" ns 2 --name "$name") $("$cluster" ns sw --name "$name") $("$cluster" port 2 1 --name "$name")"
names+=" $("$cluster" port 2 mgmt --name "$name") $("$cluster" bridge 1 --name "$name") $("$cluster" bridge mgmt)"
want="10.11.0.3 10.9.0.3 02:00:00:00:01:02 rail1 $name-h2 $name-sw ${name}h2r1 ${name}h2m br1 brm"
[ "$names" = "$want" ]
result $? "names: $names" "names: '$names', want '$want'"
[ -f /run/lanebench-cluster/$name.env ] && ip netns list | grep -q "^$name-h2\b"
result $? "bad input left the running cluster alone" \
	"bad input removed the running cluster"

# --------------------------------------------------------------------------
# down
check "down" timeout 60 "$cluster" down --name "$name"
left=$(ip netns list | awk '{ print $1 }' | grep "^$name-" | tr '\n' ' ')
[ -z "$left" ]
result $? "down: no $name-* namespace left" \
	"down: namespaces left: $left"
[ ! -e /run/lanebench-cluster/$name.env ]
result $? "down: state file removed" \
	"down: state file still there"
check "down again (nothing to remove)" timeout 60 "$cluster" down --name "$name"
! timeout 30 "$cluster" run --name "$name" -- true >/dev/null 2>&1
result $? "run without a cluster fails" "run without a cluster succeeded"

# The root namespace is as it was.
[ "$(ip -o link show | awk -F': ' '{ print $2 }' | sort)" = "$root_links_before" ] &&
	[ "$(ip -o addr show | awk '{ print $2, $4 }' | sort)" = "$root_addrs_before" ] &&
	[ "$(ip route show table all | sort)" = "$root_routes_before" ]
result $? "root namespace: links, addresses and routes unchanged" \
	"root namespace changed"

finish cluster
