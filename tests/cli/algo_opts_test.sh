#!/usr/bin/env bash
# Options only some algorithms take (algos/algos.h's enum lb_algo_takes,
# bench/algo_opt.c): plan, sim and bcast refuse one that none of the chosen
# algorithms takes (exit 2, one line naming the option, the algorithms
# that take it and those chosen, nothing written); with a list of which
# some take it, it is applied to those and stderr names the others.  Also
# the pairs: sim's --wan-* need sites and no --platform, --lat no
# --platform, --no-lp one, plan's --alpha and --bw (sim's with --platform)
# need --slice auto, bcast's --calib-size a calibration.  And -a with auto
# among the names: an error names the whole list.
set -u
usage="usage: algo_opts_test.sh path/to/tests/lib.sh path/to/lanebench"
# shellcheck source=SCRIPTDIR/../lib.sh
source "${1:?$usage}"
shift
use_lanebench "${1:?$usage}"
not_in_a_job

printf '%s\n' 'nodes 4' 'lanes 2' 'default bw 1gbit' 'node 1 rate 500mbit' \
	'site 0 ranks 0-1' 'site 1 ranks 2-3' 'barrier all 50us' >"$tmp/sites.platform"
pf=$tmp/sites.platform
hbsp_takers="applies to hbsp1-gather, hbsp2-gather, hbsp1-bcast, hbsp2-bcast;"

# refused: exit 2, the one line, and no file
refused() { # NEEDLE ARGS...: exit 2, NEEDLE, one line on stderr, no -o file
	local needle=$1
	shift
	rm -f "$tmp/never.csv"
	expect_status 2 "$needle" "$@"
	[ "$(printf '%s\n' "$err" | wc -l)" = 1 ] || fail "$*: want one line on stderr: $err"
	[ ! -e "$tmp/never.csv" ] || fail "$*: wrote its -o file though refused"
}

# --balance: seed 004's shares (not hbsp1-bcast-1phase: the root sends all)
refused "sim: --balance: $hbsp_takers not to chain" sim -a chain --balance speed -o "$tmp/never.csv"
refused "plan: --balance: $hbsp_takers not to hbsp1-bcast-1phase" \
	plan -a hbsp1-bcast-1phase --platform "$pf" -m 1K --balance equal
refused "bcast: --balance: $hbsp_takers not to chain, binary, binomial, vandegeijn, multilane, klane" \
	bcast --balance speed -o "$tmp/never.csv"
# --agents: seed 001's cluster-agent allgathers only
refused "sim: --agents: applies to cluster-agent-gb, cluster-agent-ts; not to allgather-ring" \
	sim -a allgather-ring --agents 2 -o "$tmp/never.csv"
# --super2: hbsp2-bcast only
refused "sim: --super2: applies to hbsp2-bcast; not to hbsp1-bcast" \
	sim -a hbsp1-bcast --platform "$pf" -m 1K --super2 2phase -o "$tmp/never.csv"
refused "plan: --super2: applies to hbsp2-bcast; not to binomial" plan -a binomial -p 4 -m 1K --super2 1phase
# --site-algo: seed 002's coordinators
refused "sim: --site-algo: applies to flat, ecef, ecef-la, ecef-lat-min, ecef-lat-max, bottomup, bottomup-nort, mostcrit; not to chain, binary" \
	sim -a chain,binary --site-algo chain -o "$tmp/never.csv"
refused "plan: --site-algo: applies to flat," plan -a hbsp2-bcast --platform "$pf" -m 1K --site-algo chain
refused "bcast: --site-algo: applies to flat," bcast -a multilane --site-algo chain
# -a with auto among the names: an error names the whole list the user gave
refused "bcast: -a/--algorithm: unknown algorithm 'bogus' in 'chain,auto,bogus'" bcast -a chain,auto,bogus
refused "bcast: -a/--algorithm: unknown algorithm 'nope' in 'nope,auto'" bcast -a nope,auto
refused "bcast: -a/--algorithm: auto is listed twice in 'auto,chain,auto'" bcast -a auto,chain,auto
# --sites, --site-sizes: plan shows a schedule, which only the site-aware
# trees change, as does sim on a platform; sim without one and bcast: the
# network's sites, for every homogeneous algorithm (bcast's predictions)
refused "plan: --sites: applies to binary, binomial, multilane; not to chain" plan -a chain -p 4 -m 1K --sites 2
refused "plan: --site-sizes: applies to binary, binomial, multilane; not to klane" \
	plan -a klane -m 1K --site-sizes 2,2
expect_ok sim -a chain -p 4 -m 1K --sites 2 --wan-lat 1ms
refused "sim: --sites: applies to binary, binomial, multilane; not to hbsp1-bcast" \
	sim -a hbsp1-bcast --platform "$pf" -m 1K --sites 2 -o "$tmp/never.csv"
refused "bcast: --site-sizes: applies to chain, binary, binomial, vandegeijn, multilane, klane, allgather-ring, allgather-doubling, allgather-simultaneous; not to mostcrit" \
	bcast -a mostcrit --platform "$pf" --site-sizes 2,2
# --wan-*: a WAN between sites, in the simulator's own network
refused "sim: --wan-lat: a WAN joins sites" sim -a chain -p 4 -m 1K --wan-lat 1ms -o "$tmp/never.csv"
refused "sim: --wan-bw: a WAN joins sites" sim -a binary -p 4 -m 1K --sites 1 --wan-bw 1gbit
refused "sim: --wan-alpha: not with --platform" sim -a binary --platform "$pf" -m 1K --sites 2 --wan-alpha 1ms
# -r: allgather-ring's and -simultaneous' root only renumbers the blocks
# (fastest neither); allgather-doubling pairs the ranks relative to it
refused "plan: -r/--root: applies to every algorithm but allgather-ring, allgather-simultaneous, cluster-agent-gb, cluster-agent-ts; not to allgather-ring" \
	plan -a allgather-ring -p 4 -m 1K -r 1
refused "sim: -r/--root: applies to every algorithm but" sim -a allgather-simultaneous -p 4 -m 1K -r all
expect_ok sim -a allgather-doubling -p 4 -m 1K -r all
refused "bcast: -r/--root: applies to every algorithm but" bcast -a allgather-simultaneous -r fastest --platform "$pf"
# -s: seed 004's supersteps send shares whole
refused "sim: -s/--slice: applies to every algorithm but cluster-agent-gb, cluster-agent-ts, hbsp1-gather, hbsp2-gather, hbsp1-bcast, hbsp1-bcast-1phase, hbsp2-bcast; not to hbsp1-gather" \
	sim -a hbsp1-gather --platform "$pf" -m 1K -s 256 -o "$tmp/never.csv"
# --stripe: single-lane algorithms; --allgather: van de Geijn's
refused "plan: --stripe: applies to chain, binary, binomial, vandegeijn, allgather-ring" plan -a klane -p 4 -m 1K --stripe off
refused "sim: --allgather: applies to vandegeijn; not to chain, binary, binomial, multilane, klane" \
	sim -a chain,binary,binomial,multilane,klane --allgather ring
# seed 002's sites run the site algorithm: they take its options, not others
refused "plan: --stripe: applies to chain, binary, binomial, vandegeijn, allgather-ring, allgather-doubling, allgather-simultaneous; not to ecef" \
	plan -a ecef --platform "$pf" -m 1K --site-algo klane --stripe off
expect_ok plan -a ecef --platform "$pf" -m 1K -s 256 --site-algo chain --stripe off -f summary

# a list some of which take it: applied to those, the others named
expect_ok sim -a chain,vandegeijn -p 4 -m 1K --allgather ring -o "$tmp/mixed.csv"
case $err in *"--allgather: applied to vandegeijn; not taken by chain (run without it)"*) ;;
*) fail "sim -a chain,vandegeijn --allgather ring: no note naming chain: $err" ;; esac
[ "$(csv_column "$tmp/mixed.csv" algorithm | tr '\n' ' ')" = "chain vandegeijn " ] ||
	fail "sim -a chain,vandegeijn: rows $(csv_column "$tmp/mixed.csv" algorithm | tr '\n' ' ')"
# -a all (the homogeneous broadcasts) all take -r and -s: no note
expect_ok sim -p 4 -m 1K -s 512 -r 1
[ -z "$err" ] || fail "sim -a all -s 512 -r 1: stderr: $err"

# --alpha, --bw: the network's in sim without a platform; else (plan, sim
# --platform) they choose --slice auto's slice by a refined model, which
# seed 000's to 004's algorithms lack
refused "plan: --alpha: applies to chain, binary, binomial, vandegeijn, multilane, klane, allgather-ring, allgather-doubling, allgather-simultaneous; not to topo-grow" \
	plan -a topo-grow --platform "$pf" -m 1K -s auto --alpha 1us
refused "sim: --bw: applies to chain," sim -a hbsp1-bcast --platform "$pf" -m 1K --bw 1gbit
expect_ok sim -a chain,topo-grow -m 1K --alpha 1us --platform "$pf" -s auto,256 --no-lp
case $err in *"--alpha: applied to chain; not taken by topo-grow"*) ;;
*) fail "sim -a chain,topo-grow --alpha: no note naming topo-grow: $err" ;; esac

# the pairs
refused "plan: --alpha: chooses --slice auto's slice" plan -a chain -p 4 -m 1K --alpha 1us
refused "sim: --alpha: with --platform it only chooses --slice auto's slice, and no slice is auto" \
	sim -a chain --platform "$pf" -m 1K -s 256 --alpha 1us -o "$tmp/never.csv"
refused "sim: --lat: not with --platform: its links' latencies replace it" sim -a chain --platform "$pf" -m 1K --lat 1ms
refused "sim: --no-lp: skips the LP bound of a --platform, and there is none" sim -a chain -p 4 -m 1K --no-lp
expect_ok plan -a chain -p 4 -m 1K --slice auto --alpha 1us --bw 1gbit -f summary
refused "bcast: --calib-size: sizes the calibration, and --no-calibration skips it" \
	bcast -a chain --no-calibration --calib-size 1M

finish algo_opts
