#!/usr/bin/env bash
# Seed 002's heuristics in a real job: 6 plain processes at 127.0.0.1 (TCP
# over loopback) on a generated g5k platform of 3 sites x 2 ranks; bcast
# --platform runs flat, ecef, bottomup and mostcrit from roots 0 and 2 (a
# coordinator each), the sites running chain (--site-algo), on one lane
# (everything on lane 0) and on two (the coordinators' sends on lane 1):
# exit 0 means every byte was verified on every rank; each row carries the
# simulator's prediction on the platform.  A root that is no coordinator
# (1: the generator links coordinators only) fails every rank before any
# connection (exit 1 from the job's set-up, as any configuration the
# builders refuse there; the missing link named), and so is a site whose
# own broadcast needs a link the platform lacks (the validator's reason).  Ranks wait for each other in
# the bootstrap, never on sleeps.
set -uo pipefail
usage="usage: seed002_test.sh path/to/tests/lib.sh path/to/lanebench"
# shellcheck source=SCRIPTDIR/../lib.sh
source "${1:?$usage}"
shift
use_lanebench "${1:?$usage}"

pf=$tmp/g5k.platform
"$B" platform gen g5k --clusters 3 --site-ranks 2 --seed 3 -o "$pf" || fail "platform gen g5k"

for nics in 127.0.0.1 127.0.0.1,127.0.0.1; do
	k=$(($(tr -cd , <<<"$nics" | wc -c) + 1))
	if local_job k$k 6 bcast --nics "$nics" --no-pin --platform "$pf" -a flat,ecef,bottomup,mostcrit \
		--site-algo chain -r 0,2 -m 64K,200K -s 64K -i 2 -x 1 --timeout 30 -o "$tmp/k$k.csv"; then
		ok "bcast --platform, $k lane(s): exit 0 (every byte verified)"
	else
		fail "bcast --platform, $k lane(s): $(tail -n 3 "$tmp/k$k.err")"
	fi
	rows=$(grep -v '^#' "$tmp/k$k.csv" 2>/dev/null | python3 -c '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
print(sum(1 for r in rows if float(r["sim_seconds"] or "nan") > 0))')
	[ "$rows" = 16 ] && ok "$k lane(s): 16 rows, each with sim_seconds on the platform" ||
		fail "$k lane(s): $rows rows with sim_seconds, want 16"
done

rc=0
local_job bad 6 bcast --nics 127.0.0.1 --no-pin --platform "$pf" -a ecef -r 1 -m 64K -i 1 -x 0 \
	--timeout 30 >/dev/null 2>&1 || rc=$?
if [ "$rc" = 1 ] && grep -q 'no link from root 1 to coordinator .*the root stands in' "$tmp/bad.err"; then
	ok "root 1 (no coordinator): exit 1: $(grep 'no link' "$tmp/bad.err")"
else
	fail "root 1: exit $rc: $(cat "$tmp/bad.err")"
fi

# Two sites of three ranks, site 0 without the link 1 - 2 (reachable through
# 0): its chain 0 -> 1 -> 2 needs it, the validator names it.
"$B" platform gen x5 --clusters 2 --site-ranks 3 --seed 3 |
	grep -v '^link [12] [12] ' >"$tmp/nosite.platform"
rc=0
local_job nosite 6 bcast --nics 127.0.0.1 --no-pin --platform "$tmp/nosite.platform" -a bottomup \
	--site-algo chain -m 64K -i 1 -x 0 --timeout 30 >/dev/null 2>&1 || rc=$?
if [ "$rc" = 2 ] && grep -q 'bottomup: rank 1 lane 0: no link to peer 2 in the platform' "$tmp/nosite.err"; then
	ok "a site without its link: exit 2 before any connection (bad input, as plan and sim): $(grep 'no link' "$tmp/nosite.err")"
else
	fail "a site without its link: exit $rc: $(cat "$tmp/nosite.err")"
fi

finish "seed002 job"
