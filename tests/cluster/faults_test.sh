#!/usr/bin/env bash
# scripts/cluster's faults of one port on 3 hosts x 2 rails at 100mbit
# (root, network namespaces): `mtu` read back from sysfs on both ends and
# its effect (a host's long frames lost at the switch, TCP between two
# hosts at 9000 stalled, not segmented into the rail's frames by the
# veth), `loss` (the nftables rule and its counter, ping's loss, TCP
# retransmissions toward that host and none toward another), `cable` (the
# port's bridge, its FDB entry and shaping, the host cut from its rail),
# each undone, bad input refused (exit 2, naming it), and `down` removing
# it all.  Exit 0: all passed; 1: some check failed; 77: skipped.
set -uo pipefail
usage="usage: faults_test.sh path/to/tests/lib.sh path/to/scripts/cluster"
source "${1:?$usage}"
shift
use_cluster "${1:?$usage}" wrf
needs_tools nft iperf3 ping
trap 'exit 1' INT TERM
check "up 3 --rails 2 --rate 100mbit" timeout 60 "$cluster" up 3 --rails 2 --rate 100mbit --name "$name"
sw=$(sw) port01=$(port 0 1) port20=$(port 2 0) # the switch ends of host 0 rail 1, host 2 rail 0

sysfs() { ip netns exec "$1" cat "/sys/class/net/$2/$3"; } # ns dev attr
gso_segs() { ip -n "$1" -d link show dev "$2" | grep -o 'gso_max_segs [0-9]*' | cut -d' ' -f2; }
pings_back() { # ns count size addr -> replies received
	ip netns exec "$1" ping -c "$2" -i 0.01 -W 1 -M 'do' -s "$3" -q "$4" 2>/dev/null |
		sed -n 's/.* \([0-9]*\) received.*/\1/p'
}
# tcp_counters NS -> "OutSegs RetransSegs" of the namespace's TCP
tcp_counters() {
	# shellcheck disable=SC2016 # awk's own $
	ip netns exec "$1" awk '/^Tcp:/ { if (!h) { for (i = 1; i <= NF; i++) c[$i] = i; h = 1 }
		else print $c["OutSegs"], $c["RetransSegs"] }' /proc/net/snmp
}
# stream FROM TO ADDR SECONDS: iperf3 from host FROM to host TO's ADDR;
# sets sent (segments FROM sent), retrans (of them, retransmitted) and
# got (bytes TO received).
stream() {
	local server o0 r0 o1 r1
	ip netns exec "$(h "$2")" timeout 30 iperf3 -s -1 -p 5301 >/dev/null 2>&1 &
	server=$!
	test_pids+=("$server")
	for _ in $(seq 50); do
		ip netns exec "$(h "$2")" ss -Hltn "sport = :5301" 2>/dev/null | grep -q . && break
		sleep 0.1
	done
	read -r o0 r0 <<<"$(tcp_counters "$(h "$1")")"
	got=$(ip netns exec "$(h "$1")" timeout 20 iperf3 -c "$3" -p 5301 -t "$4" -J 2>/dev/null |
		python3 -c 'import json, sys; print(int(json.load(sys.stdin)["end"]["sum_received"]["bytes"]))' 2>/dev/null)
	read -r o1 r1 <<<"$(tcp_counters "$(h "$1")")"
	kill "$server" 2>/dev/null
	wait "$server" 2>/dev/null
	sent=$((o1 - o0)) retrans=$((r1 - r0)) got=${got:-0}
}

# --------------------------------------------------------------------------
# mtu: host 0's rail1 at 9000 on a 1500 rail
check "mtu 0 1 9000" "$cluster" mtu 0 1 9000 --name "$name"
[ "$(sysfs "$(h 0)" rail1 mtu)" = 9000 ] && [ "$(sysfs "$sw" "$port01" mtu)" = 1500 ] &&
	[ "$(gso_segs "$(h 0)" rail1)" = 1 ]
result $? "host 0 rail1 mtu 9000 (sysfs), its switch port 1500, GSO off on the host end" \
	"host 0 rail1 mtu $(sysfs "$(h 0)" rail1 mtu), switch port $(sysfs "$sw" "$port01" mtu), gso_max_segs $(gso_segs "$(h 0)" rail1); want 9000, 1500, 1"
n=$(pings_back "$(h 0)" 3 3000 "$("$cluster" addr 1 1)")
[ "$n" = 0 ]
result $? "3000-byte pings from host 0 lost at the switch" "3000-byte pings from host 0: $n of 3 came back, want 0"
n=$(pings_back "$(h 0)" 3 1400 "$("$cluster" addr 1 1)")
[ "$n" = 3 ]
result $? "1400-byte pings from host 0 pass" "1400-byte pings from host 0: $n of 3 came back, want 3"
check "mtu 1 1 9000" "$cluster" mtu 1 1 9000 --name "$name"
stream 0 1 "$("$cluster" addr 1 1)" 1
[ "$got" -lt 1000000 ]
result $? "TCP between two hosts at mtu 9000 on a 1500 rail stalls ($got bytes in 1 s)" \
	"TCP between two hosts at mtu 9000 on a 1500 rail got $got bytes in 1 s (GSO packets through the veth?)"
check "mtu 0 1 1500 (undo)" "$cluster" mtu 0 1 1500 --name "$name"
check "mtu 1 1 1500 (undo)" "$cluster" mtu 1 1 1500 --name "$name"
[ "$(sysfs "$(h 0)" rail1 mtu)" = 1500 ] && [ "$(gso_segs "$(h 0)" rail1)" = 65535 ]
result $? "host 0 rail1 back at mtu 1500 with GSO" \
	"host 0 rail1 mtu $(sysfs "$(h 0)" rail1 mtu), gso_max_segs $(gso_segs "$(h 0)" rail1) after the undo"
n=$(pings_back "$(h 0)" 3 1472 "$("$cluster" addr 1 1)")
[ "$n" = 3 ]
result $? "full-size pings from host 0 pass again" "1472-byte pings after the undo: $n of 3 came back"

# --------------------------------------------------------------------------
# loss: half of what the switch sends host 0 on rail1, then 5 in 100
loss_rule() { ip netns exec "$sw" nft list chain bridge lanebench_loss forward 2>/dev/null | grep "oifname \"$1\""; }
drops() { loss_rule "$1" | sed -n 's/.*packets \([0-9]*\).*/\1/p'; }
check "loss 0 1 500" "$cluster" loss 0 1 500 --name "$name"
rule=$(loss_rule "$port01")
[[ $rule = *"numgen random mod 1000 < 500"*"drop"* ]]
result $? "nftables rule in $sw: $rule" "no loss rule for $port01 in $sw: '$rule'"
n=$(pings_back "$(h 1)" 200 56 "$("$cluster" addr 0 1)")
d=$(drops "$port01")
[ "${n:-0}" -ge 60 ] && [ "${n:-0}" -le 140 ] && [ "${d:-0}" -ge $((200 - ${n:-0})) ]
result $? "loss 500: $n of 200 pings to host 0 came back, $d frames dropped" \
	"loss 500: ${n:-?} of 200 pings to host 0 came back (want 60..140), ${d:-?} dropped (want at least the lost)"
st=$("$cluster" status --name "$name" 2>&1)
[[ $st = *"loss 500/1000"* ]]
result $? "status shows the loss" "status lacks 'loss 500/1000'"
check "loss 0 1 50" "$cluster" loss 0 1 50 --name "$name"
[ "$(loss_rule "$port01" | wc -l)" = 1 ]
result $? "one rule per port (replaced)" "$(loss_rule "$port01" | wc -l) rules for $port01"
stream 1 0 "$("$cluster" addr 0 1)" 2
lossy="$retrans retransmits of $sent segments"
stream 2 1 "$("$cluster" addr 1 1)" 2
clean="$retrans retransmits of $sent segments"
[ "${lossy%% *}" -gt 0 ] && [ $((retrans * 10)) -lt "${lossy%% *}" ]
result $? "TCP toward host 0 (loss 50): $lossy; toward host 1: $clean" \
	"TCP toward host 0 (loss 50): $lossy; toward host 1: $clean (want some, and under a tenth of them)"
check "loss 2 0 10" "$cluster" loss 2 0 10 --name "$name"
check "loss 0 1 0 (undo)" "$cluster" loss 0 1 0 --name "$name"
[ -z "$(loss_rule "$port01")" ] && [ -n "$(loss_rule "$port20")" ]
result $? "loss 0 removed host 0's rule, host 2's stays" \
	"after loss 0 1 0: host 0's rule '$(loss_rule "$port01")', host 2's '$(loss_rule "$port20")'"
n=$(pings_back "$(h 1)" 50 56 "$("$cluster" addr 0 1)")
[ "$n" = 50 ]
result $? "every ping to host 0 comes back again" "after the undo $n of 50 pings to host 0 came back"

# --------------------------------------------------------------------------
# cable: host 0's rail1 into rail 0's switch, and back
master() { ip -n "$sw" -o link show dev "$1" | grep -o 'master [^ ]*' | cut -d' ' -f2; }
check "cable 0 1 --to-rail 0" "$cluster" cable 0 1 --to-rail 0 --name "$name"
fdb=$(bridge -n "$sw" fdb show dev "$port01" | grep '02:00:00:00:01:00')
[ "$(master "$port01")" = br0 ] && [[ $fdb = *"master br0 static"* ]] &&
	tc -n "$sw" qdisc show dev "$port01" | grep -q 'tbf.*rate 100Mbit'
result $? "port $port01 on br0, its static FDB entry there, its tbf kept" \
	"port $port01 on '$(master "$port01")', FDB '$fdb', qdisc $(tc -n "$sw" qdisc show dev "$port01" | head -1)"
st=$("$cluster" status --name "$name" 2>&1)
[[ $st = *"CABLED TO br0"* ]]
result $? "status shows the miswire" "status lacks 'CABLED TO br0'"
n=$(pings_back "$(h 0)" 2 56 "$("$cluster" addr 1 1)")
[ "$n" = 0 ]
result $? "host 0 no longer reaches host 1 on rail1" "host 0 reached host 1 on rail1 while miswired ($n of 2)"
check "cable 0 1 --to-rail 1 (undo)" "$cluster" cable 0 1 --to-rail 1 --name "$name"
[ "$(master "$port01")" = br1 ]
result $? "port $port01 back on br1" "port $port01 on '$(master "$port01")' after the undo"
n=$(pings_back "$(h 0)" 3 56 "$("$cluster" addr 1 1)")
[ "$n" = 3 ]
result $? "host 0 reaches host 1 on rail1 again" "after the undo $n of 3 pings came back"

# --------------------------------------------------------------------------
# bad input: exit 2, one line naming the bad value
refused() { # needle args...
	local needle=$1 rc=0 msg
	shift
	msg=$("$cluster" "$@" --name "$name" 2>&1) || rc=$?
	[ $rc = 2 ] && [[ $msg = *"$needle"* ]]
	result $? "cluster $*: $msg" "cluster $*: exit $rc, want 2 and \"$needle\": $msg"
}
refused "bad MTU 'abc'" mtu 0 1 abc
refused "bad MTU '67'" mtu 0 1 67
refused "no host '3'" mtu 3 0 1500
refused "bad loss '1001'" loss 0 1 1001
refused "bad loss '5x'" loss 0 1 5x
refused "no rail '2'" loss 0 2 5
refused "missing --to-rail" cable 0 1
refused "bad rail '2' for --to-rail" cable 0 1 --to-rail 2
refused "unknown option '--to-rail'" loss 0 1 5 --to-rail 0
refused "expected HOST RAIL BYTES" mtu 0 1

# --------------------------------------------------------------------------
# down with every fault in place
"$cluster" mtu 0 1 9000 --name "$name" >/dev/null && "$cluster" loss 1 0 5 --name "$name" >/dev/null &&
	"$cluster" cable 2 1 --to-rail 0 --name "$name" >/dev/null
result $? "faults set before down" "could not set the faults before down"
check "down" "$cluster" down --name "$name"
left=$(ip netns list | grep -E "^$name-" || true)
[ -z "$left" ] && [ ! -e "/run/lanebench-cluster/$name.env" ] && ! nft list tables 2>/dev/null | grep -q lanebench_loss
result $? "down left no namespace, state file or loss table" \
	"after down: namespaces '$left', state file $(ls "/run/lanebench-cluster/$name.env" 2>&1), root tables $(nft list tables 2>&1 | paste -sd' ')"

finish cluster_faults
