#!/usr/bin/env bash
# Seed 002 on the command line: `repro seed002` at CI size (its g5k claims
# PASS, the x5/x10 discrepancy reported as DISCREPANCY with numbers, the CSV
# with the paper's claim, the cross-check's value and our deviation), and
# `platform gen g5k|x5|x10` (deterministic for a seed, sites, coordinators,
# wan lines, options of other generators refused); plan and sim of the
# heuristics on such a platform (the coordinators' order and the model's
# time in plan, the simulator meeting it with one slice; one lane: clock
# V3) and their refusals (no sites, a bad --site-algo: exit 2).
set -u
usage="usage: seed002_test.sh path/to/tests/lib.sh path/to/lanebench"
# shellcheck source=SCRIPTDIR/../lib.sh
source "${1:?$usage}"
shift
use_lanebench "${1:?$usage}"

"$B" repro seed002 -q -o "$tmp/r.csv" >"$tmp/out" 2>"$tmp/err" ||
	fail "repro seed002: $(cat "$tmp/err")"
for h in flat ecef ecef-la ecef-lat-min ecef-lat-max bottomup mostcrit; do
	grep -qE "^g5k +10 $h .* PASS" "$tmp/out" || fail "g5k 10 $h: $(grep -E "^g5k +10 $h " "$tmp/out")"
done
grep -qE '^x5 +10 bottomup .* DISCREPANCY' "$tmp/out" ||
	fail "x5 bottomup: $(grep -E '^x5 +10 bottomup' "$tmp/out")"
rows=$(grep -vc '^#' "$tmp/r.csv")
[ "$rows" -eq 43 ] || fail "CSV: $rows lines without '#', want a header and 42 rows"
head -n 20 "$tmp/r.csv" | grep -q '^setting,clusters,heuristic,instances,clock,makespan_mean_seconds,' ||
	fail "CSV header: $(grep -v '^#' "$tmp/r.csv" | head -1)"
grep -q '^g5k,10,mostcrit,20,V1,.*,Fig. 2: MostCrit gives exactly the same values as BottomUp' "$tmp/r.csv" ||
	fail "CSV mostcrit row: $(grep '^g5k,10,mostcrit' "$tmp/r.csv")"
"$B" repro seed002 -q --clock v9 >/dev/null 2>&1
[ $? -eq 2 ] || fail "--clock v9 must exit 2"

"$B" platform gen g5k --clusters 3 --site-ranks 2 --seed 4 -o "$tmp/a.platform" ||
	fail "gen g5k"
"$B" platform gen g5k --clusters 3 --site-ranks 2 --seed 4 >"$tmp/b.platform"
cmp -s "$tmp/a.platform" "$tmp/b.platform" || fail "gen g5k: the same seed must give the same file"
for line in 'nodes 6' 'site 2 ranks 4-5' 'coordinator 2 4' '^site 1 local-bcast ' '^wan 0 2 lat ' \
	'^link 0 4 lat '; do
	grep -q "$line" "$tmp/a.platform" || fail "gen g5k lacks '$line'"
done
"$B" platform show "$tmp/a.platform" >/dev/null || fail "gen g5k's file does not read back"
"$B" platform gen x10 --density 0.5 >/dev/null 2>&1
[ $? -eq 2 ] || fail "gen x10 --density must exit 2"
"$B" platform gen random --clusters 3 >/dev/null 2>&1
[ $? -eq 2 ] || fail "gen random --clusters must exit 2"

pf=$tmp/a.platform
"$B" plan --platform "$pf" -a mostcrit -m 1M -f summary >"$tmp/plan" 2>"$tmp/plan.err" ||
	fail "plan mostcrit: $(cat "$tmp/plan.err")"
grep -qE '^coordinators \(clock V1, overlap: between sites on lane 1, each site.s binomial on lanes 0-0\): 0:0->[0-9]+:[0-9]+@[0-9.e-]+ f[123],' "$tmp/plan" ||
	fail "plan: no coordinators line: $(head -3 "$tmp/plan")"
model=$(sed -n 's/^model completion \([0-9.e+-]*\) s.*/\1/p' "$tmp/plan")
"$B" sim --platform "$pf" -a mostcrit -m 1M --no-lp >"$tmp/sim.csv" 2>"$tmp/sim.err" ||
	fail "sim mostcrit: $(cat "$tmp/sim.err")"
sim=$(grep -v '^#' "$tmp/sim.csv" | python3 -c 'import csv, sys; print(next(csv.DictReader(sys.stdin))["sim_seconds"])')
python3 -c "import sys; sys.exit(abs($sim - $model) > 1e-6 * $model)" 2>/dev/null ||
	fail "sim $sim s, model '$model' s: one slice on the generated platform must agree"
"$B" plan --platform "$pf" -a ecef -k 1 -m 1M --site-algo chain -f summary | grep -q "^coordinators (clock V3, one lane: each site's chain after" ||
	fail "plan -k 1: no V3 line"
"$B" plan --platform "$pf" -a ecef -m 1M --site-algo nope >/dev/null 2>"$tmp/bad.err"
[ $? -eq 2 ] && grep -q 'site-algo nope: no such algorithm' "$tmp/bad.err" || fail "--site-algo nope: $(cat "$tmp/bad.err")"
"$B" platform gen random --nodes 5 -o "$tmp/nosites.platform"
"$B" sim --platform "$tmp/nosites.platform" -a bottomup -m 1M --no-lp >/dev/null 2>"$tmp/bad.err"
[ $? -eq 2 ] && grep -q 'needs a platform with sites' "$tmp/bad.err" || fail "no sites: $(cat "$tmp/bad.err")"

finish seed002
