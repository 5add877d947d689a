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

finish gather
