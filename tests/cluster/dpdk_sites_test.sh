#!/usr/bin/env bash
# Seed 003's site algorithms over the DPDK transport (issue 14 item 5), on
# the emulated cluster (root): 6 hosts x 2 rails as two sites of 2 and 4
# hosts joined by the lb-wanlink delay line (2 ms each way, 500 Mbit/s),
# net_af_packet ports on the rail interfaces.  multilane, binary and
# binomial with --site-sizes 2,4 (their WAN hops are real ones), roots 0
# and 3 (one in each site), two sizes: every byte verified by lanebench on
# every row; then 2% of the frames dropped on receive, so that frames and
# acks are retransmitted across the delay: still byte-exact, and the
# retransmissions counted.
#   dpdk_sites_test.sh LANEBENCH CLUSTER_SCRIPT LB_WANLINK
set -uo pipefail
lanebench=$1 cluster=$2 wanlink=$3
# Its own prefix (lbt) and the PID's last three digits.
name=lbt$(printf %03d $(($$ % 1000)))
fails=0
if [ "$(id -u)" != 0 ] || ! ip netns add "$name-probe" 2>/dev/null; then
	echo "SKIP: needs root and network namespaces"
	exit 77
fi
ip netns del "$name-probe"
tmp=$(mktemp -d)
# EAL runtime directories this test's ranks left (only new ones, not
# locked by a live EAL primary: another job's may be running now).
dpdk_before=$(ls -d /var/run/dpdk/lb-* 2>/dev/null)
remove_stale_eal_dirs() {
	local d
	for d in /var/run/dpdk/lb-*; do
		[ -d "$d" ] && ! grep -qxF -- "$d" <<<"$dpdk_before" &&
			python3 -c 'import fcntl, os, sys
fcntl.lockf(os.open(sys.argv[1] + "/config", os.O_RDWR), fcntl.LOCK_EX | fcntl.LOCK_NB)' "$d" 2>/dev/null &&
			rm -rf "$d"
	done
	return 0
}
trap 'rm -rf "$tmp"; "$cluster" down --name "$name" >/dev/null 2>&1; remove_stale_eal_dirs' EXIT

ok() { echo "ok: $*"; }
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

bcast() { # csv, then lanebench bcast options
	local csv=$1
	shift
	timeout 200 "$cluster" run --name "$name" --timeout 190 -- \
		"$lanebench" bcast --transport dpdk --no-pin --timeout 60 --site-sizes 2,4 \
		-a multilane,binary,binomial -s 64K --no-calibration -o "$csv" "$@"
}

# verified CSV ROWS RUNS [COLUMN]: ROWS rows, each with (p - 1) x M x RUNS
# verified bytes and no iteration faster than the WAN's 2 ms (its hops are
# real); prints the sum of COLUMN
verified() {
	awk -F, -v rows="$2" -v runs="$3" -v col="${4:-verified_bytes}" '
		/^#/ { next } !h++ { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ n++; s += $c[col] } $c["verified_bytes"] != 5 * $c["message_bytes"] * runs { bad++ }
		$c["time_min_seconds"] < 0.002 { bad++ }
		END { print s; exit bad > 0 || n != rows }' "$1"
}

if ! "$cluster" up 6 --rails 2 --rate 1gbit --sites 2,4 --wan-delay 2ms --wan-rate 500mbit \
	--wanlink "$wanlink" --name "$name" >"$tmp/up" 2>&1; then
	fail "cluster up 6 --sites 2,4: $(cat "$tmp/up")"
	exit 1
fi
ok "$(tail -1 "$tmp/up")"

if bcast "$tmp/clean.csv" -m 100000,1M -r 0,3 -i 3 -x 1 >"$tmp/clean.out" 2>&1; then
	if verified "$tmp/clean.csv" 12 4 >/dev/null; then
		ok "multilane, binary, binomial --site-sizes 2,4 over dpdk, roots 0 and 3: 12 rows, every byte verified"
	else
		fail "verified_bytes: $(grep -v '^#' "$tmp/clean.csv")"
	fi
else
	fail "bcast over dpdk across the WAN: $(tail -5 "$tmp/clean.out")"
fi

if bcast "$tmp/loss.csv" -m 1M -i 2 -x 1 --tp-opt inject=drop=0.02 >"$tmp/loss.out" 2>&1; then
	if retx=$(verified "$tmp/loss.csv" 3 3 dpdk_frames_retransmitted_count) && [ "$retx" -gt 0 ]; then
		ok "2% of the frames dropped across the WAN: byte-exact, $retx frames retransmitted"
	else
		fail "under loss: retransmitted ${retx:-?}; $(grep -v '^#' "$tmp/loss.csv")"
	fi
else
	fail "bcast over dpdk under loss: $(tail -5 "$tmp/loss.out")"
fi

echo "dpdk-sites: $fails failure(s)"
[ "$fails" = 0 ]
