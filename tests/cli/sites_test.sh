#!/usr/bin/env bash
# Sites on the command line (seed 003): --site-sizes and a platform's site
# lines give plan and sim their sites, bad ones are refused naming the token
# or the node (exit 2); platform show --format sites prints them for
# scripts/cluster; sim --wan-bw slows what crosses the WAN; plan
# --sites 2 shows section 3.2's feeders and section 6's one WAN edge;
# repro seed003-fig8 writes its rows, every judged one within its range.
set -u
usage="usage: sites_test.sh path/to/tests/lib.sh path/to/lanebench"
# shellcheck source=SCRIPTDIR/../lib.sh
source "${1:?$usage}"
shift
use_lanebench "${1:?$usage}"

# bad site sizes: refused (exit 2), the token or the counts named
expect_status 2 "site size 'x8'" plan -a multilane -m 2 --site-sizes 16,x8,8
expect_status 2 "site size '0'" sim -a chain -m 1M --site-sizes 16,0
expect_status 2 "30 ranks, but the 3 sites hold 32" plan -a multilane -p 30 -m 2 --site-sizes 16,8,8
expect_status 2 "3 sites, but --site-sizes 16,16 lists 2" sim -a chain -m 1M --sites 3 --site-sizes 16,16

# sites from a platform: 1 + 3 ranks, and one whose site 0 is not contiguous
printf 'nodes 4\ndefault bw 1gbit\nsite 0 ranks 0\nsite 1 ranks 1-3\n' >"$tmp/two.platform"
"$B" plan -a binary -m 3 -s 1 --platform "$tmp/two.platform" -f text >"$tmp/plan" 2>"$tmp/err" ||
	fail "plan on a platform with sites: $(cat "$tmp/err")"
# the root's only edge goes to rank 1, site 1's first rank
sed -n '/^rank 0/,/^rank 1:/p' "$tmp/plan" >"$tmp/root"
grep -q 'send->1 ' "$tmp/root" && ! grep -qE 'send->(2|3) ' "$tmp/root" ||
	fail "binary, sites 1,3: the root's sends: $(cat "$tmp/root")"
printf 'nodes 4\ndefault bw 1gbit\nsite 0 ranks 0,2\nsite 1 ranks 1,3\n' >"$tmp/mixed.platform"
expect_status 2 "node 2: in site 0 after site 1's ranks" plan -a multilane -m 2 --platform "$tmp/mixed.platform"
# platform show --format sites: what scripts/cluster up --sites-from reads
printf 'wan 0 1 lat 10ms bw 1gbit\n' >>"$tmp/two.platform"
[ "$("$B" platform show --format sites "$tmp/two.platform")" = "$(printf 'site 0 0 0\nsite 1 1 3\nwan 0 1 0.01 125000000')" ] ||
	fail "platform show --format sites: $("$B" platform show --format sites "$tmp/two.platform" 2>&1)"
expect_status 2 "its sites: node 2: in site 0 after site 1's ranks" platform show --format sites -o "$tmp/never" "$tmp/mixed.platform"
[ ! -e "$tmp/never" ] || fail "platform show --format sites wrote a file for refused sites"

# plan -p 29 --sites 2: A_7 (rank 7) feeds site 2's Tree A root (15), B_7 (14) Tree B's (22)
"$B" plan -a multilane -p 29 -k 2 -m 2 -s 1 --sites 2 -f text >"$tmp/ml" 2>&1 || fail "plan -p 29: $(cat "$tmp/ml")"
sed -n '/^rank 7:/,/^rank 8:/p' "$tmp/ml" | grep -q 'send->15 \[0,1)' || fail "rank 7 does not feed 15 half A"
sed -n '/^rank 14:/,/^rank 15:/p' "$tmp/ml" | grep -q 'send->22 \[1,2)' || fail "rank 14 does not feed 22 half B"

# --wan-bw: a 1 MiB chain over two sites at 1 Gbit/s lanes, WAN 100 Mbit/s
t() { "$B" sim -a chain -p 4 -k 1 -m 1M --alpha 0 --bw 1gbit --sites 2 "$@" | grep '^chain,' | cut -d, -f11; }
fast=$(t) slow=$(t --wan-bw 100mbit)
awk -v f="$fast" -v s="$slow" 'BEGIN { exit !(s > 9 * f) }' || fail "--wan-bw 100mbit: $slow s vs $fast s"

"$B" repro seed003-fig8 -o "$tmp/f8.csv" >"$tmp/out" 2>"$tmp/err" || fail "repro seed003-fig8: $(cat "$tmp/err")"
[ "$(grep -vc '^#' "$tmp/f8.csv")" = 21 ] || fail "seed003-fig8 CSV: want a header and 20 rows"
grep -v '^#' "$tmp/f8.csv" | head -1 | grep -qx 'figure,message_bytes,quantity,numerator_seconds,denominator_seconds,ours,paper,deviation_percent,target_low,target_high,verdict' ||
	fail "seed003-fig8 header: $(grep -v '^#' "$tmp/f8.csv" | head -1)"
! grep -q ',outside$' "$tmp/f8.csv" || fail "seed003-fig8: $(grep ',outside$' "$tmp/f8.csv")"
[ "$(grep -c ',within$' "$tmp/f8.csv")" = 12 ] || fail "seed003-fig8: want 12 judged rows within"

finish sites
