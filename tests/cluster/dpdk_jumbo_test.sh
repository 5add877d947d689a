#!/usr/bin/env bash
# Jumbo frames over net_af_packet (root): 4 ranks x 2 rails of the emulated
# cluster with veth's largest MTU, 65535.  The transport fills frames up to
# the lane's MTU, within the frame format's 64000 (default), or within
# --tp-opt mtu (9000, 1500): each broadcast is byte-exact (lanebench checks
# every byte), and the data frames received show the frame size used: at
# least bytes / payload (no frame carries more than the MTU allows) and at
# most twice that (frames are filled, up to the last one of a slice).
set -uo pipefail
usage="usage: dpdk_jumbo_test.sh path/to/tests/lib.sh LANEBENCH CLUSTER_SCRIPT"
# shellcheck source=SCRIPTDIR/../lib.sh
source "${1:?$usage}"
shift
use_lanebench "${1:?$usage}"
use_cluster "${2:?$usage}" lbj

ranks=4 bytes=4194304 iters=3 warmup=1
frames() { # csv: data frames received, all ranks and lanes
	awk -F, '/^#/ { next } !h++ { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ s += $c["dpdk_frames_received_count"] } END { printf "%d\n", s }' "$1"
}
# bcast at MTU mtu (empty: the lane's), algorithm a: byte-exact, frames of
# the size that MTU makes.
jumbo_bcast() { # mtu algorithm
	local mtu=$1 a=$2 csv=$tmp/$1-$2.csv got payload data
	if ! timeout 150 "$cluster" run --name "$name" --timeout 140 -- "$B" bcast \
		--transport dpdk --no-pin --timeout 30 --no-calibration -o "$csv" -a "$a" \
		-m "$bytes" -s 256K -i "$iters" -x "$warmup" ${mtu:+--tp-opt mtu=$mtu} >"$tmp/log" 2>&1; then
		tail -20 "$tmp/log"
		return 1
	fi
	payload=$((${mtu:-64000} - 40)) # the frame header's 40 bytes
	data=$(((ranks - 1) * bytes * (iters + warmup)))
	got=$(frames "$csv")
	echo "mtu ${mtu:-of the lane} $a: $got data frames for $data bytes (payload $payload)"
	[ "$((got * payload))" -ge "$data" ] && [ "$got" -le $((2 * data / payload + 1)) ]
}

check "cluster up $ranks x 2 rails, MTU 65535" \
	"$cluster" up "$ranks" --rails 2 --rate 1gbit --mtu 65535 --name "$name"
for a in chain multilane; do
	check "$a: 64000-byte frames (the lane's MTU, within the format's), byte-exact" jumbo_bcast '' "$a"
done
check "--tp-opt mtu=9000: 9000-byte frames, byte-exact" jumbo_bcast 9000 multilane
check "--tp-opt mtu=1500: standard frames on a jumbo lane, byte-exact" jumbo_bcast 1500 multilane

finish dpdk-jumbo
