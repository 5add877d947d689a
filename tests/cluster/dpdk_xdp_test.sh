#!/usr/bin/env bash
# The dpdk transport's lanes on net_af_xdp (root): --tp-opt pmd=auto puts
# a lane on af_xdp where its MTU fits a umem page and the interface takes
# the PMD's XDP program, else on af_packet (transports/dpdk/dpdk.c, "Lanes'
# PMD").  4 ranks x 2 rails at MTU 1500: a broadcast is byte-exact
# (lanebench checks every byte of every rank) and every lane of every rank
# says via=dpdk(af_xdp) in the CSV's provenance; while such a job runs, a
# ping on a rail gets through; pmd=af_packet puts them on
# af_packet.  Then 2 ranks at MTU 9000 (veth takes no XDP program on a link
# with an MTU above a page, less its headroom): auto picks af_packet for
# the MTU; with --tp-opt mtu=1500 the frames would fit, the XDP program is
# refused, and the lane falls back to af_packet, saying so; pmd=af_xdp
# fails, naming the port.  Skips (77) without root, namespaces, or DPDK's
# af_xdp PMD.
set -uo pipefail
usage="usage: dpdk_xdp_test.sh path/to/tests/lib.sh LANEBENCH CLUSTER_SCRIPT"
# shellcheck source=SCRIPTDIR/../lib.sh
source "${1:?$usage}"
shift
use_lanebench "${1:?$usage}"
if ! compgen -G "/usr/lib/*/dpdk/pmds-*/librte_net_af_xdp.so*" >/dev/null; then
	echo "SKIP: DPDK's net_af_xdp PMD is not installed"
	exit 77
fi
use_cluster "${2:?$usage}" lbx

# bcast over dpdk with these --tp-opt options: byte-exact (exit 0), CSV in
# $tmp/$tag.csv, stderr in $tmp/$tag.err.
bcast() { # tag ranks-expected tp-opts...
	local tag=$1
	shift
	timeout 150 "$cluster" run --name "$name" --timeout 140 -- "$B" bcast --transport dpdk \
		--no-pin --timeout 30 --no-calibration -o "$tmp/$tag.csv" -a chain,multilane \
		-m 1M,4M -s 256K -i 2 -x 1 "$@" >"$tmp/$tag.out" 2>"$tmp/$tag.err" ||
		{ tail -20 "$tmp/$tag.err"; return 1; }
}
# every lane.<rank>.<lane> line of the CSV's head says via=dpdk(PMD), and
# there are RANKS x LANES of them
all_via() { # tag pmd ranks lanes
	local n bad
	n=$(grep -c "^# lane\.[0-9]*\.[0-9]*: .* via=dpdk($2)\$" "$tmp/$1.csv")
	bad=$(grep "^# lane\." "$tmp/$1.csv" | grep -v "via=dpdk($2)\$")
	echo "$n lanes via $2 (want $(($3 * $4)))${bad:+; others: $bad}"
	[ "$n" -eq $(($3 * $4)) ] && [ -z "$bad" ]
}

check "cluster up 4 x 2 rails, MTU 1500" "$cluster" up 4 --rails 2 --rate 1gbit --name "$name"
check "pmd auto: bcast over af_xdp, byte-exact" bcast xdp
check "pmd auto: every lane on af_xdp" all_via xdp af_xdp 4 2
# While an af_xdp job runs, the kernel still gets the rail's other frames:
# lanebench's XDP program (xdp_prog.bpf.c) takes only its ethertype.
ping_during_job() {
	bcast long -a chain -m 32M -i 10 &
	local job=$! i
	for ((i = 0; i < 200; i++)); do # 20 s at most for the program to attach
		ip -n "$(h 0)" link show rail0 | grep -q "prog/xdp" && break
		sleep 0.1
	done
	ip -n "$(h 0)" link show rail0 | grep "prog/xdp" || { wait $job; echo "no XDP program seen"; return 1; }
	ip netns exec "$(h 0)" ping -c 3 -i 0.2 -W 1 "$("$cluster" addr 1 0)" || { wait $job; return 1; }
	wait $job
}
check "af_xdp job running: the kernel's own traffic on the rail passes (ping)" ping_during_job
check "pmd=af_packet: bcast byte-exact" bcast afp --tp-opt pmd=af_packet
check "pmd=af_packet: every lane on af_packet" all_via afp af_packet 4 2

check "cluster up 2 x 1 rail, MTU 9000" "$cluster" up 2 --rails 1 --rate 1gbit --mtu 9000 --name "$name"
check "pmd auto, MTU 9000: bcast byte-exact" bcast jumbo
check "pmd auto, MTU 9000: af_packet (the MTU)" all_via jumbo af_packet 2 1
check "pmd auto, mtu=1500 on MTU 9000: bcast byte-exact" bcast refused --tp-opt mtu=1500
check "pmd auto, XDP refused: af_packet" all_via refused af_packet 2 1
check "pmd auto, XDP refused: says so" grep -q "net_af_xdp_l0.*af_packet instead" "$tmp/refused.err"
forced_fails() { ! bcast forced --tp-opt pmd=af_xdp >/dev/null && grep -q net_af_xdp_l0 "$tmp/forced.err"; }
check "pmd=af_xdp, XDP refused: fails naming the port" forced_fails

finish dpdk-xdp
