#!/usr/bin/env bash
# -r/--root fastest (docs/papers.md#seed004-costs): plan, sim and bcast take
# the platform's fastest rank by its nodes' rates as the root (ties: the
# lowest), and without --platform refuse it (exit 2, naming --root).
set -u
usage="usage: root_fastest_test.sh path/to/tests/lib.sh path/to/lanebench"
source "${1:?$usage}"
shift
use_lanebench "${1:?$usage}"
not_in_a_job

# Node 2 has no rate: the default bandwidth, the fastest; 3 ties with it
# only when capped at 1gbit (here 2gbit is above the default: the same
# speed, the lower rank wins).
cat >"$tmp/p" <<'PLATFORM'
nodes 4
lanes 1
default bw 1gbit
node 0 rate 250mbit
node 1 rate 500mbit
node 3 rate 2gbit
PLATFORM

expect_ok plan -a hbsp1-bcast --platform "$tmp/p" -m 1M -r fastest
grep -q 'ranks 4, root 2,' "$tmp/out" || fail "plan -r fastest: not root 2: $(head -n 2 "$tmp/out")"
expect_ok sim -a hbsp1-bcast,hbsp1-gather --platform "$tmp/p" -m 1M -r fastest --no-lp
[ "$(csv_column "$tmp/out" root | sort -u)" = 2 ] || fail "sim -r fastest: roots $(csv_column "$tmp/out" root)"
grep -qx '# option.root: fastest' "$tmp/out" || fail "sim -r fastest: provenance $(grep option.root "$tmp/out")"

# the same platform with node 2 slowed: node 3 (capped at the default) wins
{ cat "$tmp/p"; echo 'node 2 rate 100mbit'; } >"$tmp/p3"
expect_ok plan -a hbsp1-gather --platform "$tmp/p3" -m 1M -r fastest
grep -q 'ranks 4, root 3,' "$tmp/out" || fail "plan -r fastest (p3): not root 3: $(head -n 2 "$tmp/out")"

for cmd in "plan -a binomial -p 4 -m 1M" "sim -a binomial -p 4 -m 1M"; do
	# shellcheck disable=SC2086 # the words of cmd
	expect_status 2 "--root: fastest needs --platform FILE" $cmd -r fastest
done
LANEBENCH_RANK=0 LANEBENCH_SIZE=1 expect_status 2 "--root: fastest needs --platform FILE" bcast -a chain -m 1K -r fastest
expect_status 2 "root" sim -a binomial -p 4 -m 1M -r slowest

# plan --balance speed: the shares follow the ranks' rates (summary's
# sent_bytes), where equal gives every sender the same share
printf '%s\n' 'nodes 4' 'lanes 1' 'default bw 1gbit' 'node 1 rate 500mbit' 'node 3 rate 250mbit' >"$tmp/rates"
for b in equal speed; do
	expect_ok plan -a hbsp1-gather --platform "$tmp/rates" -m 100000 --balance $b -f summary
	awk '$1 ~ /^[1-3]$/ { printf "%s ", $5 }' "$tmp/out" >"$tmp/shares.$b"
done
[ "$(cat "$tmp/shares.equal")" = "25000 25000 25000 " ] || fail "plan --balance equal: sent bytes $(cat "$tmp/shares.equal")"
read -r s1 s2 s3 <"$tmp/shares.speed"
[ "${s2:-0}" -gt "${s1:-0}" ] && [ "${s1:-0}" -gt "${s3:-0}" ] ||
	fail "plan --balance speed: sent bytes $s1 $s2 $s3, want rank 2 (1 gbit) > 1 (500) > 3 (250)"
expect_status 2 "'even'" plan -a hbsp1-gather --platform "$tmp/rates" -m 100000 --balance even

finish root-fastest
