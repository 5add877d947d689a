#!/usr/bin/env bash
# launch/arpprobe.c (lb_arp_probe) through tests/cluster/arpprobe_probe:
#   errors   its refusals, no cluster needed: a bad address, no such
#            interface, not Ethernet, a bad time, and no CAP_NET_RAW (as
#            root: the probe runs as nobody, which drops every capability)
#   cluster  on an emulated cluster (3 hosts x 2 rails): from host 0's
#            rail1, its rail's peers answer and rail 0's do not, no peer
#            learns a neighbour from the probe (sender 0.0.0.0), a probe
#            answered in full ends early; after `cluster cable 0 1
#            --to-rail 0` the reverse; cabled back, as at first.  Skipped
#            (77) unless root with network namespaces.
# Exit 0: all passed; 1: some check failed (each printed); 77: skipped.
set -uo pipefail
usage="usage: arpprobe_test.sh path/to/tests/lib.sh CLUSTER_SCRIPT ARPPROBE_PROBE errors|cluster"
source "${1:?$usage}"
shift
probe=$(realpath "${2:?$usage}")
mode=${3:?$usage}

# refused WHAT NEEDLE ARGS...: the probe fails (exit 1) saying NEEDLE.
refused() {
	local what=$1 needle=$2 rc=0
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
	if [ $rc = 1 ] && grep -qF -- "$needle" "$tmp/err"; then
		ok "$what: $(cat "$tmp/err")"
	else
		fail "$what: exit $rc, want 1 and \"$needle\" on stderr: $(cat "$tmp/err" "$tmp/out")"
	fi
}

if [ "$mode" = errors ]; then
	refused "bad address" "bad IPv4 address '10.0.0.300'" "$probe" lo 0.1 10.0.0.1 10.0.0.300
	refused "no such interface" "no such interface 'nosuch0'" "$probe" nosuch0 0.1 10.0.0.1
	refused "bad time" "bad probe time" "$probe" lo -1 10.0.0.1
	if [ "$(id -u)" = 0 ]; then
		refused "loopback is not Ethernet" "arp probe on lo: not an Ethernet interface" \
			"$probe" lo 0.1 127.0.0.1
		command -v setpriv >/dev/null || { fail "setpriv not installed (util-linux)"; finish arpprobe-errors; }
		if ! setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$probe"; then
			echo "SKIP: nobody cannot run $probe (its directories are private)"
			exit 77
		fi
		refused "no CAP_NET_RAW (as nobody)" "arp probe on lo: a packet socket needs CAP_NET_RAW" \
			setpriv --reuid=65534 --regid=65534 --clear-groups "$probe" lo 0.1 127.0.0.1
	else
		refused "no CAP_NET_RAW" "arp probe on lo: a packet socket needs CAP_NET_RAW" \
			"$probe" lo 0.1 127.0.0.1
	fi
	finish arpprobe-errors
fi

use_cluster "${1:?$usage}" wra
trap 'exit 1' INT TERM
check "up 3 --rails 2 --rate 100mbit" timeout 60 "$cluster" up 3 --rails 2 --rate 100mbit --name "$name"

rail1_peers="$("$cluster" addr 1 1) $("$cluster" addr 2 1)"
rail0_peers="$("$cluster" addr 1 0) $("$cluster" addr 2 0)"

# The MAC of the port that holds a cluster address: 10.(10+r).0.(i+1) is
# host i's rail r, 02:00:00:00:0r:ii (scripts/cluster).
mac_of() {
	local IFS=.
	set -- $1
	printf '02:00:00:00:%02x:%02x' $(($2 - 10)) $(($4 - 1))
}

# expect_answers WHAT SECONDS "ANSWERING ADDRS" "SILENT ADDRS" [RAIL]: a
# probe from host 0's rail1 for all of them; exactly the first ones answer,
# each by the port holding it (or by that host's port on RAIL).
expect_answers() {
	local what=$1 secs=$2 yes=$3 no=$4 rail=${5:-} a m want='' got
	for a in $yes; do
		m=$(mac_of "$a")
		[ -n "$rail" ] && m=${m:0:12}$(printf '%02x' "$rail")${m:14}
		want+="$a answered by $m"$'\n'
	done
	for a in $no; do want+="$a silent"$'\n'; done
	# shellcheck disable=SC2086 # one address per word
	got=$(ip netns exec "$(h 0)" "$probe" rail1 "$secs" $yes $no 2>&1)
	[ "$got" = "${want}answered $(wc -w <<<"$yes")" ]
	result $? "$what: ${got//$'\n'/ }" "$what: got '$got', want '$want'"
}

expect_answers "own rail" 1 "$rail1_peers" "$rail0_peers"
for i in 1 2; do
	neigh=$(ip -n "$(h $i)" neigh show)
	[ -z "$neigh" ]
	result $? "host $i learnt no neighbour from the probes (sender 0.0.0.0)" \
		"host $i learnt neighbours from a probe: $neigh"
done
t0=$(date +%s%N)
expect_answers "all answered: ends early" 10 "$rail1_peers" ""
ms=$((($(date +%s%N) - t0) / 1000000))
[ "$ms" -lt 5000 ]
result $? "a probe answered in full returned after $ms ms (of 10 s)" \
	"a probe answered in full took $ms ms, want it to end before its 10 s"

# Linux's default, arp_ignore 0: a host answers for every address on every
# interface, so rail 0's addresses answer on rail 1 too -- by rail 1's ports,
# which is what tells the wiring (lanebench check counts answers by MAC).
for i in 1 2; do ip netns exec "$(h $i)" sysctl -qw net.ipv4.conf.all.arp_ignore=0; done
expect_answers "arp_ignore 0: rail 0's addresses answered by rail 1's ports" 1 \
	"$rail0_peers" "" 1
for i in 1 2; do ip netns exec "$(h $i)" sysctl -qw net.ipv4.conf.all.arp_ignore=1; done

check "cable 0 1 --to-rail 0" "$cluster" cable 0 1 --to-rail 0 --name "$name"
expect_answers "miswired into rail 0" 1 "$rail0_peers" "$rail1_peers"
check "cable 0 1 --to-rail 1 (back)" "$cluster" cable 0 1 --to-rail 1 --name "$name"
expect_answers "cabled back" 1 "$rail1_peers" "$rail0_peers"

finish cluster_arpprobe
