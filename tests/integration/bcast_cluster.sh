#!/usr/bin/env bash
# Integration on the emulated multi-rail cluster (root): real processes, one
# per network namespace, TCP over shaped veth rails; every algorithm, several
# sizes and slices, bytes verified on every rank by lanebench itself (a
# mismatch makes it exit non-zero).  Also 1 and 2 ranks, a non-zero root.
#   bcast_cluster.sh LANEBENCH CLUSTER_SCRIPT
set -uo pipefail
lanebench=$1 cluster=$2
name=lbi$$
name=${name:0:6}
fails=0
if [ "$(id -u)" != 0 ] || ! ip netns add "$name-probe" 2>/dev/null; then
	echo "SKIP: needs root and network namespaces"
	exit 77
fi
ip netns del "$name-probe"
trap '"$cluster" down --name "$name" >/dev/null 2>&1' EXIT

check() { # description, command...
	local what=$1
	shift
	local out
	if out=$("$@" 2>&1); then
		echo "ok: $what"
	else
		echo "FAIL: $what"
		echo "$out" | tail -20
		fails=$((fails + 1))
	fi
	LAST_OUT=$out
}

bcast() { # hosts, then lanebench bcast options
	local n=$1
	shift
	"$cluster" run --name "$name" --timeout 240 -- \
		"$lanebench" bcast --no-pin --timeout 60 -o "$tmp/run-$n.csv" "$@"
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; "$cluster" down --name "$name" >/dev/null 2>&1' EXIT

check "cluster up 8 x 2 rails at 1gbit" "$cluster" up 8 --rails 2 --rate 1gbit --name "$name"
check "8 ranks x 2 rails: every algorithm, 3 sizes, 2 slice sizes" \
	bcast 8 -a all -m 4K,100000,2M -s 64K,256K -i 3 -x 1
rows=$(($(grep -vc '^#' "$tmp/run-8.csv") - 1))
[ "$rows" = 30 ] && echo "ok: 30 CSV rows" || { echo "FAIL: $rows CSV rows, want 30"; fails=$((fails + 1)); }
# every row verified (p - 1) x M x (i + x) bytes
awk -F, '/^#/ { next } !h++ { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["verified_bytes"] != 7 * $c["message_bytes"] * 4 { bad++ }
	END { exit bad > 0 }' "$tmp/run-8.csv" &&
	echo "ok: verified_bytes = 7 x M x 4 on every row" ||
	{ echo "FAIL: verified_bytes column"; fails=$((fails + 1)); }
# tcp's counter closes the row: a count on every row, no other transport's
awk -F, '/^#/ { next } !h++ { ok = $NF == "tcp_segments_retransmitted_count" && $(NF - 1) == "verified_bytes"; next }
	$NF !~ /^[0-9]+$/ { ok = 0 } END { exit !ok }' "$tmp/run-8.csv" &&
	echo "ok: tcp_segments_retransmitted_count after verified_bytes, a count on every row" ||
	{ echo "FAIL: counter columns: $(grep -vm1 '^#' "$tmp/run-8.csv")"; fails=$((fails + 1)); }
check "non-zero root (5), stripe off, ring allgather" \
	bcast 8 -a all -m 1M -s 128K -i 2 -x 0 -r 5 --stripe off --allgather ring
check "multilane and chain with yield idle policy" \
	bcast 8 -a multilane,chain -m 1M -s 64K -i 2 -x 1 --idle yield
"$cluster" down --name "$name" >/dev/null

check "cluster up 2 x 2" "$cluster" up 2 --rails 2 --rate 1gbit --name "$name"
check "2 ranks, root 1" bcast 2 -a all -m 64K,1M -s 32K -i 3 -x 1 -r 1
"$cluster" down --name "$name" >/dev/null

check "cluster up 1 x 1" "$cluster" up 1 --rails 1 --rate 1gbit --name "$name"
check "1 rank" bcast 1 -a all -m 4K -i 2 -x 0 --nics rail0

echo "bcast-cluster: $fails failure(s)"
[ "$fails" = 0 ]
