#!/usr/bin/env bash
# Tests `scripts/cluster up --links` (root, network namespaces): per-link
# rates (HTB classes and u32 filters read back from tc, a raw 0x88B5 frame
# classified by MAC, TCP rates that follow the links), missing links (the
# nftables rule, one-way drops), a link above its host's rate capped, bad
# links files, and `down` leaving nothing behind.
# Exit 0: all passed; 1: some assertion failed (each printed); 77: skipped
# (not root, or network namespaces unavailable).
set -uo pipefail
usage="usage: links_test.sh path/to/tests/lib.sh path/to/scripts/cluster"
source "${1:?$usage}"
shift
use_cluster "${1:?$usage}" lbn
trap 'exit 1' INT TERM
needs_tools nft iperf3 python3 ping

# 4 hosts at 400mbit; host 0 -> 1 at 100mbit (written as %g prints it),
# host 2 -> 3 at 25mbit, host 1 -> 2 above the host's rate (capped), and
# host 3's frames to host 0 dropped (one way).
cat >"$tmp/links" <<'EOF'
# lanebench links (test)
link 0 1 0 1.25e+07 0 0
link 2 3 0 3125000 2e-05 0

link 1 2 0 125000000 0 1e-06   # 1 Gbit/s: above the host's 400mbit
nolink 3 0 0
EOF
out=$(timeout 60 "$cluster" up 4 --rate 400mbit --links "$tmp/links" --name "$name" 2>&1)
result $? "up 4 --rate 400mbit --links (3 rates, 1 nolink)" "up --links failed: $out"
grep -q "warning: 2 link(s) in $tmp/links carry a latency or occupation" <<<"$out"
result $? "one warning counts the 2 links with a latency or occupation" \
	"no warning naming 2 links with a latency or occupation: $out"

# --------------------------------------------------------------------------
# Read back from tc: class, rate, ceil, and the filters that lead to it.
class_is() { # host classid rate ceil
	# (grep without -q: with pipefail, tc killed by SIGPIPE would fail the test)
	tc -n "$(h "$1")" class show dev rail0 | grep "^class htb $2 .* rate $3 ceil $4 " >/dev/null
}
# A link's class never borrows (rate = ceil); a peer without a link line,
# and the default class, are guaranteed 400 / 3 and borrow up to 400.
class_is 0 2:101 100Mbit 100Mbit && class_is 2 2:103 25Mbit 25Mbit && class_is 1 2:102 400Mbit 400Mbit &&
	class_is 0 2:102 133333Kbit 400Mbit && class_is 0 2:ffff 133333Kbit 400Mbit
result $? "tc classes: 0->1 2:101 at 100Mbit, 2->3 2:103 at 25Mbit, 1->2 capped at the host's 400Mbit, 0->2 and default 2:ffff borrowing up to 400" \
	"tc classes: $(for i in 0 1 2; do tc -n "$(h $i)" class show dev rail0; done)"
filters=$(tc -n "$(h 0)" filter show dev rail0 parent 2:)
# host 1's rail0 address at offset 16 of the IPv4 header; its MAC's first
# two bytes at -16 (masked) and last four at -12
ip1=$("$cluster" addr 1 0) mac1=$("$cluster" mac 1 0)
mac1_hex=${mac1//:/}
# shellcheck disable=SC2086 # one byte a word
ip1_hex=$(printf '%02x' ${ip1//./ })
awk '/flowid 2:101/ { c = 1; next } /^filter/ { c = 0 } c && /match/ { print $2, $4 }' <<<"$filters" |
	sort | paste -sd, | grep -qx "${mac1_hex:4}/ffffffff -12,0000${mac1_hex:0:4}/0000ffff -16,$ip1_hex/ffffffff 16"
result $? "tc filters of 2:101: destination $ip1 and MAC $mac1" "tc filters: $filters"
# Host 3 has no link line: a queue per peer (2:100-2:102) borrowing up to
# its 400, as without --links.  (Sorted: tc lists a device's qdiscs in the
# order of their handles' hash, and the bfifos take kernel-chosen handles.)
[ "$(tc -n "$(h 3)" qdisc show dev rail0 | awk '{ print $2 }' | sort | uniq -c | awk '{ print $2 "x" $1 }' | paste -sd,)" = bfifox4,htbx1,tbfx1 ] &&
	[ "$(tc -n "$(h 3)" class show dev rail0 | awk '$2 == "htb" { print $3 }' | sort | paste -sd,)" = 2:1,2:100,2:101,2:102,2:ffff ] &&
	class_is 3 2:100 133333Kbit 400Mbit
result $? "host 3 (no link line): its tbf and per-peer HTB (2:1, 2:100-2:102 borrowing up to 400, 2:ffff) alone, as without --links" \
	"host 3's qdiscs: $(tc -n "$(h 3)" qdisc show dev rail0; tc -n "$(h 3)" class show dev rail0)"

# A raw frame of DPDK's ethertype (0x88B5) from host 0 to host 1's MAC goes
# through class 2:101: the MAC filter, not the IPv4 one, classified it.
class_packets() { tc -s -n "$(h 0)" class show dev rail0 classid 2:101 | awk '/Sent/ { print $4; exit }'; }
before=$(class_packets)
ip netns exec "$(h 0)" python3 -c '
import socket
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("rail0", 0))
for _ in range(5):
    s.send(bytes.fromhex("020000000001" "020000000000" "88b5") + bytes(100))'
after=$(class_packets)
[ $((after - before)) = 5 ]
result $? "5 raw 0x88B5 frames to host 1's MAC counted in class 2:101" \
	"class 2:101 counted $before -> $after packets for 5 raw frames"

# --------------------------------------------------------------------------
# nolink 3 0 0: the rule exists; 3 -> 0 is dropped, 0 -> 3 is not.
set_out=$(ip netns exec "$(sw)" nft list set bridge lanebench nolink 2>&1)
grep -q "$("$cluster" mac 3 0) . $("$cluster" mac 0 0)" <<<"$set_out" &&
	[ "$(grep -o '02:00:00:00:[0-9a-f:]* \. 02:00:00:00:[0-9a-f:]*' <<<"$set_out" | wc -l)" = 1 ]
result $? "nft: the switch's set holds exactly host 3 -> host 0" "nft set: $set_out"
! ip netns exec "$(h 3)" ping -c1 -W1 "$("$cluster" addr 0 0)" >/dev/null 2>&1
result $? "ping host 3 -> host 0 fails (nolink)" "ping host 3 -> host 0 succeeded over a nolink"
# The other way round: host 3's replies (ARP too) are dropped, so host 0
# gets a static neighbour entry and host 3 counts the echo requests it got.
# shellcheck disable=SC2016 # awk's own $
in_echos() { ip netns exec "$(h 3)" awk '/^Icmp:/ { if (!n++) for (i = 1; i <= NF; i++) c[$i] = i; else print $c["InEchos"] }' /proc/net/snmp; }
ip -n "$(h 0)" neigh replace "$("$cluster" addr 3 0)" lladdr "$("$cluster" mac 3 0)" dev rail0 nud permanent
before=$(in_echos)
ip netns exec "$(h 0)" ping -c2 -i0.2 -W1 "$("$cluster" addr 3 0)" >/dev/null 2>&1
after=$(in_echos)
[ $((after - before)) = 2 ]
result $? "host 0 -> host 3 passes (host 3 received 2 echo requests; one-way nolink)" \
	"host 3 received $((after - before)) of 2 echo requests from host 0"
ip netns exec "$(h 1)" ping -c1 -W2 "$("$cluster" addr 2 0)" >/dev/null 2>&1
result $? "ping host 1 -> host 2 works" "ping host 1 -> host 2 failed"
out=$(timeout 30 "$cluster" status --name "$name" 2>&1)
grep -q "^    class 2:101 *rate 100Mbit *ceil 100Mbit *ip $ip1 mac $mac1\$" <<<"$out" &&
	grep -q '^  host 3 -> host 0 rail 0 dropped' <<<"$out"
result $? "status shows the class of 0->1 and the nolink 3->0" "status: $out"

# --------------------------------------------------------------------------
# TCP rates follow the links: one stream 0 -> 1 (100mbit) stays under 1.1 x
# 100 and reaches 0.8 of what the fabric carries in the same attempt -- of
# 100, or of the ceiling one stream 1 -> 2 (no link class, the host's
# 400mbit) reaches right after it, if that is less: a fresh-clone CI run
# measured 48.9-78.3 Mbit/s on 0 -> 1 where idle and busy-looped runs here
# give 96, so a fixed floor failed on a slow machine, not on the class.
# Best of 3 attempts.  One stream 2 -> 3 (25mbit) stays under 1.1 x 25 and
# under half of 0 -> 1.
wait_listen() { # ns port
	for _ in $(seq 50); do
		ip netns exec "$1" ss -Hltn "sport = :$2" 2>/dev/null | grep -q . && return 0
		sleep 0.1
	done
	return 1
}
mbps() { # from to: Mbit/s of one 2 s TCP stream, at the receiver
	ip netns exec "$(h "$2")" timeout 20 iperf3 -s -1 -B "$("$cluster" addr "$2" 0)" -p 5201 >/dev/null 2>&1 &
	test_pids+=($!)
	wait_listen "$(h "$2")" 5201 || return 1
	ip netns exec "$(h "$1")" timeout 20 iperf3 -c "$("$cluster" addr "$2" 0)" -p 5201 -t 2 -f m 2>&1 |
		awk '/receiver/ { for (i = 1; i < NF; i++) if ($(i + 1) == "Mbits/sec") print $i }'
	wait "${test_pids[-1]}" 2>/dev/null
}
class_ok() { # fast ceiling: 0 -> 1 within its class, given the fabric's ceiling
	awk -v m="$1" -v c="$2" 'BEGIN {
		if (m !~ /^[0-9.]+$/ || c !~ /^[0-9.]+$/) exit 1
		exit !(m <= 110 && m >= 0.8 * (c < 100 ? c : 100)) }'
}
fast='' tries=()
for _ in 1 2 3; do
	fast=$(mbps 0 1)
	ceiling=$(mbps 1 2)
	tries+=("$fast/$ceiling")
	class_ok "$fast" "$ceiling" && break
done
class_ok "$fast" "$ceiling"
result $? "TCP 0 -> 1 at 100mbit: $fast Mbit/s, fabric ceiling $ceiling (attempts 0->1/1->2: ${tries[*]})" \
	"TCP 0 -> 1 at 100mbit: attempts 0->1/1->2 '${tries[*]}' Mbit/s, want 0->1 <= 110 and >= 0.8 x min(100, 1->2)"
slow=$(mbps 2 3)
awk -v s="$slow" -v f="$fast" 'BEGIN { exit !(s ~ /^[0-9.]+$/ && s > 0 && s <= 27.5 && s < f / 2) }'
result $? "TCP 2 -> 3 at 25mbit: $slow Mbit/s (<= 27.5, below half of 0 -> 1)" \
	"TCP 2 -> 3 at 25mbit: '$slow' Mbit/s, want 0 < rate <= 27.5 and < $fast / 2"

# --------------------------------------------------------------------------
# Bad links files: exit 2, one line naming file, line and token, nothing
# built (the running cluster is left alone).
bad_links() { # description, token, expected line, file text
	printf '%s\n' "$4" >"$tmp/bad"
	timeout 30 "$cluster" up 4 --rate 400mbit --links "$tmp/bad" --name "$name" >"$tmp/o" 2>"$tmp/e"
	local rc=$?
	if [ $rc = 2 ] && grep -qF -- "$tmp/bad:$3: '$2'" "$tmp/e" && [ ! -s "$tmp/o" ] &&
		[ "$(wc -l <"$tmp/e")" = 1 ]; then
		ok "bad links file: $1 -> exit 2: $(cat "$tmp/e")"
	else
		fail "bad links file: $1 -> exit $rc, stderr '$(cat "$tmp/e")', want exit 2 naming $tmp/bad:$3 and '$2'"
	fi
}
bad_links "unknown keyword" lnk 2 "$(printf '# c\nlnk 0 1 0 1e6 0 0')"
bad_links "host out of range" 4 1 "link 0 4 0 1e6 0 0"
bad_links "negative rate" -5 1 "link 0 1 0 -5 0 0"
bad_links "a field missing" 0 3 "$(printf 'nolink 1 0 0\n\nlink 0 1 0 1e6 0')"
bad_links "a pair given twice" "nolink 0 1 0" 2 "$(printf 'link 0 1 0 1e6 0 0\nnolink 0 1 0')"
tc -n "$(h 0)" class show dev rail0 | grep '^class htb 2:101 .* rate 100Mbit' >/dev/null
result $? "bad links files left the running cluster alone" "the running cluster changed"

# --------------------------------------------------------------------------
# down: no namespace, and so no nft table, left; none in the root namespace.
timeout 30 "$cluster" down --name "$name" >/dev/null 2>&1
result $? "down" "down failed"
left=$(ip netns list | awk '{ print $1 }' | grep "^$name-" | tr '\n' ' ')
[ -z "$left" ] && ! nft list tables bridge 2>/dev/null | grep lanebench >/dev/null
result $? "down: no $name-* namespace and no lanebench nft table left" \
	"down left: namespaces '$left', root tables '$(nft list tables bridge 2>&1)'"

finish links
