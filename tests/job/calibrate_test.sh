#!/usr/bin/env bash
# lanebench calibrate and bcast --platform on a job of plain processes at
# 127.0.0.1 (loopback lanes, no root): 4 ranks calibrate every ordered
# pair over TCP; the file parses back (platform show), has "default none"
# and 12 links on the lane, each with a bandwidth and a latency > 0; bcast
# --platform of that file runs topo-grow, binomial-routed, lp-grow (LP loads
# solved on rank 0 and sent to the others) and chain, every
# byte verified, its rows carrying the file's hash, the trees' periods and
# the simulator's prediction on the platform (every algorithm).
# Refusals: a platform whose node count is not the job's (exit 2, both
# counts named), chain on that platform without the link 1 -> 2 (exit 2
# on every rank before any connection, as plan and sim exit, the
# validator's reason naming rank, lane and peer, nothing written), --pairs all above 32 ranks (exit 2), and a calibration
# that fails writes no file.  Ranks wait for each other in the bootstrap,
# never on sleeps.
set -uo pipefail
usage="usage: calibrate_test.sh path/to/tests/lib.sh path/to/lanebench"
# shellcheck source=SCRIPTDIR/../lib.sh
source "${1:?$usage}"
shift
use_lanebench "${1:?$usage}"

pf=$tmp/measured.platform
# --- calibrate: 4 ranks, every ordered pair -----------------------------------
if local_job cal 4 calibrate --nics 127.0.0.1 --calib-size 64K --iters 3 --timeout 30s -o "$pf"; then
	ok "calibrate on 4 ranks: exit 0"
else
	fail "calibrate on 4 ranks: $(tail -n 2 "$tmp/cal.err")"
fi
if "$B" platform show "$pf" >"$tmp/show.out" 2>"$tmp/show.err" &&
	head -n 1 "$tmp/show.out" | grep -q ': 4 nodes, 1 lane,'; then
	ok "the file parses back: $(head -n 1 "$tmp/show.out")"
else
	fail "platform show of the calibration: $(cat "$tmp/show.err" "$tmp/show.out" | head -n 3)"
fi
if grep -qx 'default none' "$pf" && grep -q '^# transport: tcp$' "$pf" &&
	grep -q '^# host\.3: ' "$pf" && grep -q '^# option\.calib-size: 64K$' "$pf"; then
	ok "default none, and a head naming transport, hosts and calib size"
else
	fail "head or default: $(grep -v '^link' "$pf" | head -n 12)"
fi
# link U V lane 0 lat S bw RB/s oneway: each ordered pair once, all > 0
if awk '$1 == "link" { n++; key = $2 " " $3; if (seen[key]++ || $2 == $3) bad++
		if ($4 != "lane" || $5 != 0 || $6 != "lat" || !($7 > 0) || $8 != "bw" || !($9 + 0 > 0) ||
		    $9 !~ /B\/s$/ || $10 != "oneway") bad++ }
	END { exit !(n == 12 && !bad) }' "$pf"; then
	ok "12 links on lane 0, one per ordered pair, latency and bandwidth > 0"
else
	fail "links: $(grep -c '^link' "$pf") of 12: $(grep '^link' "$pf" | head -n 3)"
fi

# --- bcast --platform of that file ----------------------------------------------
hash=$(sed -n '1s/.*(hash \([0-9a-f]*\)).*/\1/p' "$tmp/show.out")
if local_job bc 4 bcast --nics 127.0.0.1 --no-pin --platform "$pf" -a topo-grow,binomial-routed,lp-grow,chain \
	-m 64K,1M -i 2 -x 1 --timeout 30s -o "$tmp/bc.csv"; then
	ok "bcast --platform: exit 0 (every byte verified)"
else
	fail "bcast --platform: $(tail -n 2 "$tmp/bc.err")"
fi
if [ ${#hash} = 16 ] && csv_awk -v hash="$hash" '
	{ rows++ }
	$c["platform"] != hash || ($c["algorithm"] != "chain") != ($c["period_seconds"] > 0) ||
	$c["verified_bytes"] != 3 * $c["message_bytes"] * 3 || !($c["sim_seconds"] > 0) ||
	!($c["measured_over_sim_ratio"] > 0) { bad++ }
	{ n[$c["algorithm"]]++ }
	END { exit !(rows == 8 && n["topo-grow"] == 2 && n["binomial-routed"] == 2 && n["lp-grow"] == 2 && n["chain"] == 2 && !bad) }' "$tmp/bc.csv"; then
	ok "8 rows: platform $hash, period_seconds > 0 for the trees, sim on the platform for all, every byte verified"
else
	fail "bcast --platform rows (hash '$hash'): $(grep -v '^#' "$tmp/bc.csv" 2>&1 | cut -d, -f3,10,29-32)"
fi

# --- refusals -----------------------------------------------------------------------
# before any connection: rank 0 of a 3-rank job, alone
rc=0
local_rank 0 3 "$(free_port)" bcast --nics 127.0.0.1 --platform "$pf" -a topo-grow >/dev/null 2>"$tmp/n3.err" || rc=$?
if [ "$rc" = 2 ] && grep -q '4 nodes but the job has 3 ranks' "$tmp/n3.err"; then
	ok "a 4-node platform in a 3-rank job: exit 2: $(cat "$tmp/n3.err")"
else
	fail "node count mismatch: exit $rc: $(cat "$tmp/n3.err")"
fi
# chain (0 -> 1 -> 2 -> 3) needs the link 1 -> 2: without it, refused
grep -v '^link 1 2 lane 0 ' "$pf" >"$tmp/no12.platform"
rc=0
local_job no12 4 bcast --nics 127.0.0.1 --no-pin --platform "$tmp/no12.platform" -a chain -m 64K -i 1 -x 0 \
	--timeout 30s -o "$tmp/no12.csv" || rc=$?
if [ "$statuses" = "2 2 2 2" ] && grep -q 'chain: rank 1 lane 0: no link to peer 2 in the platform' "$tmp/no12.err" &&
	[ ! -e "$tmp/no12.csv" ]; then
	ok "chain over a missing link: exit 2 on every rank, nothing written: $(tail -n 1 "$tmp/no12.err")"
else
	fail "chain over a missing link: exits $statuses: $(tail -n 1 "$tmp/no12.err"), csv: $(find "$tmp" -name '*no12*' -printf '%f ')"
fi
rc=0
local_rank 0 33 "$(free_port)" calibrate --nics 127.0.0.1 -o "$tmp/big.platform" >/dev/null 2>"$tmp/p33.err" || rc=$?
if [ "$rc" = 2 ] && grep -q 'refused above 32 ranks' "$tmp/p33.err" && [ ! -e "$tmp/big.platform" ]; then
	ok "--pairs all with 33 ranks: exit 2, nothing written"
else
	fail "--pairs all with 33 ranks: exit $rc: $(cat "$tmp/p33.err")"
fi
# rank 0 of a pair whose peer never comes: it fails, and writes nothing
rc=0
local_rank 0 2 "$(free_port)" calibrate --nics 127.0.0.1 --timeout 2s -o "$tmp/none.platform" >/dev/null 2>"$tmp/alone.err" || rc=$?
if [ "$rc" != 0 ] && [ ! -e "$tmp/none.platform" ]; then
	ok "a failed calibration (peer never came): exit $rc, nothing written"
else
	fail "failed calibration: exit $rc, file: $(find "$tmp" -name '*none*' -printf '%f ')"
fi

finish calibrate_test
