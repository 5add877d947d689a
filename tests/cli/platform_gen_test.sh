#!/usr/bin/env bash
# lanebench platform gen: deterministic for a seed, parameters named in the
# file, the file parses back (show) with the node count asked, and bad
# generator options refused by name with exit 2 and no -o file.
set -u
usage="usage: platform_gen_test.sh path/to/tests/lib.sh path/to/lanebench"
source "${1:?$usage}"
shift
use_lanebench "${1:?$usage}"

# refused NEEDLE ARGS...: exit 2, NEEDLE in the message, no -o file.
refused() {
	local needle=$1
	shift
	"$B" platform gen "$@" -o "$tmp/never" >/dev/null 2>"$tmp/err"
	local rc=$?
	[ "$rc" -eq 2 ] || fail "gen $*: exit $rc, want 2"
	grep -qF -- "$needle" "$tmp/err" || fail "gen $*: '$(cat "$tmp/err")' lacks '$needle'"
	[ ! -e "$tmp/never" ] || fail "gen $*: wrote its -o file"
}

"$B" platform gen tiers-like --seed 7 -o "$tmp/a" || fail "gen tiers-like failed"
"$B" platform gen tiers-like --seed 7 >"$tmp/b" || fail "gen to stdout failed"
"$B" platform gen tiers-like --seed 8 >"$tmp/c" || fail "gen seed 8 failed"
cmp -s "$tmp/a" "$tmp/b" || fail "seed 7 twice: files differ"
cmp -s "$tmp/a" "$tmp/c" && fail "seeds 7 and 8: one file"
[ "$(sed -n 1p "$tmp/a")" = "# lanebench platform 1" ] || fail "first line: $(sed -n 1p "$tmp/a")"
grep -q '^# generator: tiers-like seed=7 nodes=30 sw=10 nm=4 sm=5 .* rw=3 rm=3 .* rmw=2 ' "$tmp/a" ||
	fail "generator line: $(sed -n 2p "$tmp/a")"
"$B" platform show "$tmp/a" >"$tmp/show" || fail "show of a generated file failed"
grep -q '30 nodes, 1 lane' "$tmp/show" || fail "show: $(head -1 "$tmp/show")"

"$B" platform gen tiers-like --nodes 65 >"$tmp/d" || fail "gen 65 failed"
grep -q '^nodes 65$' "$tmp/d" || fail "the 65-node preset has $(grep '^nodes' "$tmp/d")"
"$B" platform gen tiers-like --sw 4 --nm 2 --sm 3 --nl 1 --sl 2 >"$tmp/e" ||
	fail "gen with LANs failed"
grep -q '^nodes 14$' "$tmp/e" || fail "4 + 2x3 + 2x1x2 nodes: $(grep '^nodes' "$tmp/e")"

"$B" platform gen random --nodes 12 --density 1 --seed 2 -f links 2>/dev/null && fail "gen took --format"
"$B" platform gen random --nodes 12 --density 1 --seed 2 >"$tmp/f" || fail "gen random failed"
"$B" platform show -f links "$tmp/f" >"$tmp/links"
[ "$(grep -c '^link ' "$tmp/links")" -eq 132 ] || fail "density 1: $(grep -c '^link ' "$tmp/links") links of 132"

refused "no such generator" tree
refused "presets 30 and 65" tiers-like --nodes 40
refused "for 'gen tiers-like'" random --rw 2
refused "for 'gen random'" tiers-like --density 0.1
refused "probability between 0 and 1" random --density 1.5
refused "nodes" random --nodes 1
"$B" platform show --seed 3 "$tmp/a" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "for 'platform gen'" "$tmp/err" || fail "show took --seed: $(cat "$tmp/err")"

finish "platform gen"
