#!/usr/bin/env bash
# lanebench calibrate over missing links on the emulated cluster (root,
# network namespaces): 4 hosts x 2 rails at 100 Mbit/s, `up --links` cuts
# the pair {1, 2} on both rails, both ways, and 3 -> 0 on rail 1 only (one
# way).  calibrate over TCP with --connect-timeout 3s must finish, write
# nolink for exactly those pairs (both directions: a one-way cut cannot be
# timed either way; rail 1 of {0, 3}, both rails of {1, 2}) and a measured
# link (latency and bandwidth > 0) for every other ordered pair and rail,
# and name each cut pair on stderr; then the written platform plans and
# runs `bcast --platform` with topo-grow (a tree that avoids 1 <-> 2, every
# byte verified on the 3 receivers in 2 timed iterations and the warm-up), while chain (0 -> 1 -> 2 -> 3) over it is refused on
# every rank with exit 2 (no link 1 -> 2).  Over dpdk too when it is built
# (no connect handshake: its cut pairs are found by the first ping-pong).
# Exit 0: all passed; 1: some assertion failed (each printed); 77: skipped
# (not root, or network namespaces unavailable).
set -uo pipefail
usage="usage: calibrate_nolink_test.sh path/to/tests/lib.sh path/to/scripts/cluster path/to/lanebench"
# shellcheck source=SCRIPTDIR/../lib.sh
source "${1:?$usage}"
shift
# Its own prefix (lbm) and the PID's last three digits, as cluster_test.sh.
use_cluster "${1:?$usage}" lbm
use_lanebench "${2:?$usage}"
command -v nft >/dev/null || { fail "nft not installed"; finish calibrate_nolink; }
trap 'exit 1' INT TERM

cluster_job() { # log-dir CMD ARGS...: a job on the cluster, every rank's output in log-dir
	local dir=$1
	shift
	mkdir -p "$dir"
	timeout 120 "$cluster" run --name "$name" --timeout 90 --log-dir "$dir" -- "$@" 2>"$dir/run.err"
}

cat >"$tmp/links" <<'EOF'
# {1, 2} cut on both rails, both ways; 3 -> 0 cut on rail 1 only
nolink 1 2 0
nolink 2 1 0
nolink 1 2 1
nolink 2 1 1
nolink 3 0 1
EOF
if ! out=$("$cluster" up 4 --rails 2 --rate 100mbit --links "$tmp/links" --name "$name" 2>&1); then
	fail "cluster up: $out"
	finish calibrate_nolink
fi

pf=$tmp/measured.platform
t0=$(date +%s)
if cluster_job "$tmp/cal" "$B" calibrate --transport tcp --calib-size 64K --iters 3 \
	--connect-timeout 3s --timeout 60s -o "$pf"; then
	ok "calibrate over 5 cut directed links: exit 0 in $(($(date +%s) - t0)) s"
else
	fail "calibrate: $(cat "$tmp/cal/run.err"; tail -n 3 "$tmp/cal/rank0.log")"
fi
# exactly the cut pairs, both directions, are nolink
want_nolink=$(printf '%s\n' "0 3 1" "1 2 0" "1 2 1" "2 1 0" "2 1 1" "3 0 1")
got_nolink=$(awk '$1 == "nolink" { print $2, $3, $5 }' "$pf" 2>/dev/null | sort)
if [ "$got_nolink" = "$want_nolink" ] && grep -q 'nolink 1 2 lane 0 oneway' "$pf"; then
	ok "nolink for exactly {1,2} on rails 0 and 1 and {0,3} on rail 1, both ways"
else
	fail "nolink lines: $(echo "$got_nolink" | paste -sd,) (want $(echo "$want_nolink" | paste -sd,))"
fi
# every other ordered pair and rail: a measured link
if awk '$1 == "link" { n++; if (!($7 > 0) || !($9 + 0 > 0) || $6 != "lat" || $8 != "bw") bad++ }
	END { exit !(n == 18 && !bad) }' "$pf"; then
	ok "18 measured links (24 ordered pairs x rails less the 6 cut), latency and bandwidth > 0"
else
	fail "links: $(grep -c '^link' "$pf") of 18: $(grep '^link' "$pf" | head -n 3)"
fi
if [ "$(grep -c 'did not connect and answer within 3 s: written nolink' "$tmp/cal/rank0.log")" = 3 ]; then
	ok "rank 0 names the 3 cut (pair, rail)s on stderr"
else
	fail "stderr of rank 0: $(grep nolink "$tmp/cal/rank0.log")"
fi

# the written platform: planned and run with a tree that avoids the cut pair
if "$B" plan --platform "$pf" -a topo-grow -m 1M -r 0 >"$tmp/plan.out" 2>&1; then
	ok "plan --platform topo-grow on the calibrated platform"
else
	fail "plan: $(tail -n 2 "$tmp/plan.out")"
fi
if cluster_job "$tmp/bc" "$B" bcast --transport tcp --no-pin --platform "$pf" -a topo-grow -m 1M \
	-i 2 -x 1 --no-calibration -o "$tmp/bc.csv" &&
	awk -F, '/^#/ { next } !h++ { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ rows++; if ($c["verified_bytes"] != 3 * $c["message_bytes"] * 3) bad++ }
		END { exit !(rows == 1 && !bad) }' "$tmp/bc.csv"; then
	ok "bcast --platform topo-grow over the cut cluster: every byte verified"
else
	fail "bcast topo-grow: $(cat "$tmp/bc/run.err"; tail -n 2 "$tmp/bc/rank0.log")"
fi
cluster_job "$tmp/ch" "$B" bcast --transport tcp --no-pin --platform "$pf" -a chain -m 1M -i 1 -x 0 \
	--no-calibration -o "$tmp/ch.csv"
if [ "$(grep -c 'exit status 2' "$tmp/ch/run.err")" = 4 ] && [ ! -e "$tmp/ch.csv" ] &&
	grep -q 'no link to peer 2 in the platform' "$tmp/ch/rank0.log"; then
	ok "chain over the cut pair: exit 2 on every rank, nothing written"
else
	fail "chain: $(cat "$tmp/ch/run.err"; tail -n 1 "$tmp/ch/rank0.log")"
fi

# dpdk (when built) connects without a handshake: the cut pairs are found
# by their first ping-pong, bounded by the same wait
if "$B" --help 2>&1 | grep -q '^  dpdk '; then
	if cluster_job "$tmp/dp" "$B" calibrate --transport dpdk --calib-size 64K --iters 3 \
		--connect-timeout 3s --timeout 60s -o "$tmp/dpdk.platform" &&
		[ "$(awk '$1 == "nolink" { print $2, $3, $5 }' "$tmp/dpdk.platform" | sort)" = "$want_nolink" ] &&
		[ "$(grep -c '^link' "$tmp/dpdk.platform")" = 18 ]; then
		ok "calibrate over dpdk: the same 6 nolinks (found by the first ping-pong), 18 links"
	else
		fail "calibrate over dpdk: $(cat "$tmp/dp/run.err"; grep -c '^link' "$tmp/dpdk.platform"; tail -n 2 "$tmp/dp/rank0.log")"
	fi
else
	echo "(dpdk not built: its calibrate not run)"
fi

finish calibrate_nolink
