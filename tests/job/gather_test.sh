#!/usr/bin/env bash
# Seed 004's collectives on a job of plain processes at 127.0.0.1 (TCP,
# 2 loopback lanes, no root): 4 ranks on a two-site platform with unequal
# node rates run every hbsp* algorithm through bcast (--balance speed, so
# the blocks are unequal; barriers as zero-byte messages), every byte
# verified where it must arrive.  The rows say gather or bcast, carry the
# HBSP cost, and verified_bytes counts the gather's root alone.  Ranks
# wait for each other in the bootstrap, never on sleeps.
set -uo pipefail
usage="usage: gather_test.sh path/to/tests/lib.sh path/to/lanebench"
# shellcheck source=SCRIPTDIR/../lib.sh
source "${1:?$usage}"
shift
use_lanebench "${1:?$usage}"

cat >"$tmp/sites.platform" <<'PLATFORM'
nodes 4
lanes 2
default bw 1gbit
node 1 rate 500mbit
node 3 rate 250mbit
site 0 ranks 0-1
site 1 ranks 2-3
barrier site 0 20us
barrier site 1 20us
barrier all 50us
PLATFORM

rc=0
local_job g 4 bcast --nics 127.0.0.1,127.0.0.1 --no-pin --timeout 30 \
	-a hbsp1-gather,hbsp2-gather,hbsp1-bcast,hbsp1-bcast-1phase,hbsp2-bcast \
	--platform "$tmp/sites.platform" --balance speed -m 100000,1M -i 3 -x 1 -o "$tmp/g.csv" || rc=$?
[ "$rc" = 0 ] || fail "4 ranks, every hbsp algorithm: exit $rc: $(tail -n 3 "$tmp"/g.err*)"

# name,collective,bytes,verified,hbsp of each row, by the header's names
grep -v '^#' "$tmp/g.csv" 2>/dev/null | awk -F, '
	NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ print $c["algorithm"], $c["collective"], $c["message_bytes"], $c["verified_bytes"],
		$c["hbsp_seconds"] }' >"$tmp/rows"
[ "$(wc -l <"$tmp/rows")" = 10 ] || fail "want 10 rows: $(cat "$tmp/rows")"
while read -r algo coll bytes verified hbsp; do
	case $algo in *gather) want=gather per=1 ;; *) want=bcast per=3 ;; esac
	[ "$coll" = "$want" ] || fail "$algo: collective '$coll', want $want"
	[ "$verified" = $((bytes * per * 4)) ] || fail "$algo $bytes: verified $verified, want $((bytes * per * 4))"
	awk -v h="$hbsp" 'BEGIN { exit !(h > 0) }' || fail "$algo: hbsp_seconds '$hbsp'"
done <"$tmp/rows"

# On a platform bcast predicts with the bounded model (its nodes' rates
# shared among their transfers; docs/benchmarks/bench-hbsp.md): each row's
# sim_seconds is `sim --model bounded`'s for the same algorithm and size
# (seed 004's take no slice), to the CSV's digits; and some row is not multi-port's (which
# ignores the rates), so the check tells the two apart.
grep -v '^#' "$tmp/g.csv" 2>/dev/null | awk -F, '
	NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ print $c["algorithm"], $c["message_bytes"], $c["sim_seconds"] }' >"$tmp/sims"
differs=0
while read -r algo bytes sim; do
	balance=(--balance speed) # as bcast's, where it applies
	[ "$algo" != hbsp1-bcast-1phase ] || balance=()
	for model in bounded multi-port; do
		"${LB[@]}" sim -a "$algo" --platform "$tmp/sites.platform" "${balance[@]}" --no-lp \
			--model "$model" -m "$bytes" -o "$tmp/s-$model.csv" >/dev/null 2>"$tmp/serr" ||
			fail "sim -a $algo --model $model: $(cat "$tmp/serr")"
	done
	want=$(csv_column "$tmp/s-bounded.csv" sim_seconds) mp=$(csv_column "$tmp/s-multi-port.csv" sim_seconds)
	awk -v s="$sim" -v w="$want" 'BEGIN { exit !(w > 0 && (s - w) ^ 2 <= 1e-10 * w * w) }' ||
		fail "$algo $bytes: sim_seconds '$sim', want sim --model bounded's '$want'"
	awk -v s="$sim" -v p="$mp" 'BEGIN { exit !((s - p) ^ 2 > 1e-6 * p * p) }' && differs=1
done <"$tmp/sims"
[ "$(wc -l <"$tmp/sims")" = 10 ] || fail "want 10 rows with sim_seconds: $(cat "$tmp/sims")"
[ "$differs" = 1 ] || fail "every row's sim_seconds equals multi-port's: the check cannot tell the models apart"

finish gather
