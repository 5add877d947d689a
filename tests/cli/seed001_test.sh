#!/usr/bin/env bash
# Seed 001 on the command line: `repro seed001` (instant) gives the table of
# docs/papers.md#seed001-experiment exactly (every row's model PASS), the
# published agent counts (GB 4, TS 3: PASS) under the fewest-clients rule
# and the known DISCREPANCY of the lowest-id rule (TS 2), the CSV and
# --tr-count n-1 (TS m = 5: 2100 us);
# the simulated column (each plan's schedule in sim's logp mode): 2030 us at
# m = 8 (the simultaneous broadcast, where the closed form is exact), the
# closed form less one T_send at m = 1, never above the closed form;
# `platform gen wu-8` writes the 8 workstations it plans on.  On 4 fast + 4
# slow-by-rate hosts (scripts/bench-allgather's, 2 lanes) `plan -k 2
# --agents 2` takes fast agents, the slow hosts its clients, and puts ops on
# both lanes.
# --agents auto (model/agent_auto.h): where the platform has rates, the
# count of least LogP time -- plan's and sim's auto equal the best of an
# explicit sweep `sim --model logp --agents 1..8` (ties to fewer): on the 4
# fast + 4 slow hosts at 1 MiB on 2 lanes that is 8, not the closed form's
# 2, which the sweep puts slower; on wu-8 with every node given a 1 Gbit/s
# rate at 32 B, Two-Step's is 2 where the closed form takes 3.  Without
# rates (wu-8 as generated) auto stays the closed form's: GB 4, TS 3 (LogP
# would take 2), plan saying so.
set -u
usage="usage: seed001_test.sh path/to/tests/lib.sh path/to/lanebench"
source "${1:?$usage}"
shift
use_lanebench "${1:?$usage}"

expect_ok repro seed001 -o "$tmp/r.csv"
rows=$(grep -cE '^(gather-broadcast|two-step) ' "$tmp/out")
[ "$rows" -eq 32 ] || fail "table: $rows rows, want 32 (2 algorithms x 2 tie rules x 8)"
grep -E '^(gather-broadcast|two-step) ' "$tmp/out" | grep -v ' PASS ' >"$tmp/bad"
[ -s "$tmp/bad" ] && fail "rows whose model differs from the expected: $(cat "$tmp/bad")"
for want in 'gather-broadcast fewest-clients +4 1/1/1/1 +350 +480 +440 +1270 +1270 PASS +\* +4 PASS' \
	'gather-broadcast fewest-clients +3 2/2/1 +420 +320 +530 +1270 ' \
	'two-step +fewest-clients +3 2/2/1 +460 +320 +530 +1310 +1310 PASS +\* +3 PASS' \
	'two-step +lowest-id +2 3/3 .* \* +3 DISCREPANCY' \
	'gather-broadcast lowest-id +3 3/1/1 +420 +320 +620 +1360 '; do
	grep -qE "^$want" "$tmp/out" || fail "no row /$want/ in: $(cat "$tmp/out")"
done
header=$(grep -v '^#' "$tmp/r.csv" | head -1)
[ "$header" = "algorithm,tie_rule,count_reading,agents,clients_per_agent,t1_seconds,t2_seconds,t3_seconds,t_all_seconds,spec_t_all_seconds,model_verdict,chosen,paper_best_agents,paper_claim,verdict,sim_seconds" ] ||
	fail "CSV header: $header"
verdicts=$(csv_awk '$c["chosen"] == "*" { print $c["algorithm"] "/" $c["tie_rule"] "/" $c["agents"] "/" $c["verdict"] }' "$tmp/r.csv" | tr '\n' ' ')
[ "$verdicts" = "gather-broadcast/fewest-clients/4/PASS gather-broadcast/lowest-id/4/PASS two-step/fewest-clients/3/PASS two-step/lowest-id/2/DISCREPANCY " ] ||
	fail "CSV choices: $verdicts"
sims=$(csv_awk '$c["tie_rule"] == "fewest-clients" && ($c["agents"] == 1 || $c["agents"] == 8) {
	printf "%s/%s/%.0f ", $c["algorithm"], $c["agents"], $c["sim_seconds"] * 1e6 }' "$tmp/r.csv")
[ "$sims" = "gather-broadcast/1/1560 gather-broadcast/8/2030 two-step/1/1560 two-step/8/2030 " ] ||
	fail "sim_seconds at m = 1 and 8: $sims"
above=$(csv_awk '!($c["sim_seconds"] <= $c["t_all_seconds"] * (1 + 1e-9)) { print $c["algorithm"] "/" $c["tie_rule"] "/" $c["agents"] }' "$tmp/r.csv")
[ -z "$above" ] || fail "simulated above the closed form: $above"
grep -qE '^two-step +fewest-clients +3 2/2/1 .* PASS +1260$' "$tmp/out" ||
	fail "table: TS m = 3's sim column: $(grep -E '^two-step +fewest-clients +3 ' "$tmp/out")"

expect_ok repro seed001 --tr-count n-1
grep -qE '^two-step +fewest-clients +5 1/1/1/0/0 +1160 +500 +440 +2100 +2100 PASS' "$tmp/out" ||
	fail "--tr-count n-1, TS m = 5: $(grep -E '^two-step +fewest-clients +5 ' "$tmp/out")"
expect_status 2 "tr-count" repro seed001 --tr-count n+1

expect_ok platform gen wu-8 -o "$tmp/wu8.platform"
for line in 'nodes 8' '^node 4 send 0.00016000000000000001 recv 0.00012999999999999999 ' \
	'^default lat 0.00035 occ 0 ' '^link 0 1 lat 0.00025000000000000001 oneway' \
	'^link 6 7 lat 0.00044999999999999999 oneway'; do
	grep -q "$line" "$tmp/wu8.platform" || fail "gen wu-8 lacks '$line'"
done
check "gen wu-8's file reads back" "$B" platform show "$tmp/wu8.platform"
expect_status 2 "takes -o only" platform gen wu-8 --seed 3

{
	printf 'nodes 8\nlanes 2\ndefault bw 200mbit\n'
	for h in 0 1 2 3 4 5 6 7; do
		echo "node $h send 10us recv 10us rate $([ "$h" -lt 4 ] && echo 50mbit || echo 200mbit)"
	done
} >"$tmp/fast-slow.platform"
for algo in cluster-agent-gb cluster-agent-ts; do
	expect_ok plan -a "$algo" -k 2 -m 1M --agents 2 --platform "$tmp/fast-slow.platform"
	grep -q '^agents 2 (--agents)' "$tmp/out" || fail "$algo --agents 2: $(grep '^agents' "$tmp/out")"
	for lane in 0 1; do
		grep -qE "^  lane $lane: (send|recv)" "$tmp/out" || fail "$algo -k 2: no op on lane $lane: $(cat "$tmp/out")"
	done
	grep -q '(idle)' "$tmp/out" && fail "$algo -k 2: an idle lane: $(cat "$tmp/out")"
	for r in 0 1 2 3; do # the slow hosts are clients: one message out, one in, per lane
		ops=$(awk -v r="$r" '/^rank / { on = $2 == r || $2 == r ":" } on && /lane 0:/' "$tmp/out")
		case $ops in *"send->"*"recv<-"*) ;; *) fail "$algo: slow rank $r is no client: $ops" ;; esac
		[ "$(grep -o 'send->' <<<"$ops" | wc -l)" = 1 ] || fail "$algo: slow rank $r sends more than once: $ops"
	done
done

# The LogP sweep of algo ($1) at -m $2 -k $3 on platform $4: "m seconds" lines.
logp_sweep() {
	for m in 1 2 3 4 5 6 7 8; do
		expect_ok sim --model logp --no-lp -a "$1" -m "$2" -k "$3" --agents "$m" --platform "$4"
		csv_awk -v m="$m" '{ printf "%s %.17g\n", m, $c["sim_seconds"] }' "$tmp/out"
	done
}
# The fastest of a sweep, the first of equal ones (fewer agents): "m seconds".
fastest() {
	awk '!n++ || $2 < best * (1 - 1e-9) { best = $2; m = $1 } END { printf "%s %.17g\n", m, best }'
}
# plan's auto count of algo ($1) at -m $2 -k $3 on platform $4, with its reason.
plan_auto() {
	expect_ok plan -a "$1" -m "$2" -k "$3" --platform "$4"
	sed -n 's/^agents \([0-9]*\) (\(auto: [^,]*\).*/\1 \2/p' "$tmp/out"
}
# auto == the sweep's fastest (plan's count, sim's seconds): prints the count.
auto_is_fastest() {
	local sweep best auto t
	sweep=$(logp_sweep "$@")
	best=$(fastest <<<"$sweep")
	auto=$(plan_auto "$@")
	[ "${auto%% *}" = "${best%% *}" ] && [[ $auto == *"least LogP time"* ]] ||
		fail "$1 -m $2 -k $3 on $4: plan's auto '$auto', the LogP sweep's fastest ${best%% *} of: $sweep"
	expect_ok sim --model logp --no-lp -a "$1" -m "$2" -k "$3" --platform "$4"
	t=$(csv_awk '{ printf "%.17g", $c["sim_seconds"] }' "$tmp/out")
	[ "$t" = "${best#* }" ] || fail "$1 -m $2 -k $3: sim's auto $t s, the sweep's best ${best#* } s"
	echo "${best%% *} $(awk -v b="${best#* }" '$1 == 2 { print ($2 > b * (1 + 1e-9) ? "2-slower" : "2-not-slower") }' <<<"$sweep")"
}
for algo in cluster-agent-gb cluster-agent-ts; do
	got=$(auto_is_fastest "$algo" 1M 2 "$tmp/fast-slow.platform")
	[ "$got" = "8 2-slower" ] || fail "$algo on fast-slow, 1M, 2 lanes: auto and m 2 '$got', want 8, 2 slower"
done

expect_ok platform gen wu-8 -o "$tmp/wu8.platform"
{ cat "$tmp/wu8.platform"; for h in 0 1 2 3 4 5 6 7; do echo "node $h rate 1gbit"; done; } >"$tmp/wu8-rates.platform"
got=$(auto_is_fastest cluster-agent-ts 32 1 "$tmp/wu8-rates.platform")
[ "${got%% *}" = 2 ] || fail "TS on wu-8 with rates, 32 B: auto ${got%% *}, want LogP's 2"
for want in cluster-agent-gb/4 cluster-agent-ts/3; do
	auto=$(plan_auto "${want%/*}" 32 1 "$tmp/wu8.platform")
	[ "$auto" = "${want#*/} auto: the planner's least T_all)" ] ||
		fail "${want%/*} on wu-8 (no rates): auto '$auto', want the closed form's ${want#*/}"
done

finish seed001
