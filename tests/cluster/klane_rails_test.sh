#!/usr/bin/env bash
# klane on 4 rails (root, network namespaces): 4 hosts x 4 rails, klane and
# multilane over TCP at three small sizes; lanebench verifies every byte on
# every rank (a mismatch exits non-zero), and the CSV must hold a row per
# (algorithm, size) with 4 lanes and every rank's bytes verified.
set -uo pipefail
usage="usage: klane_rails_test.sh path/to/tests/lib.sh LANEBENCH CLUSTER_SCRIPT"
source "${1:?$usage}"
shift
use_lanebench "${1:?$usage}"
use_cluster "${2:?$usage}" lbl

"$cluster" up 4 --rails 4 --rate 1gbit --name "$name" >/dev/null 2>"$tmp/up.err" ||
	fail "cluster up 4 --rails 4: $(cat "$tmp/up.err")"
if "$cluster" run --name "$name" --timeout 240 -- "$B" bcast --no-pin --timeout 60 \
	-a klane,multilane -m 8,100000,1M -s 64K -i 2 -x 1 -o "$tmp/k.csv" >"$tmp/run.out" 2>&1; then
	ok "klane and multilane on 4 hosts x 4 rails"
else
	fail "bcast on 4 rails: $(tail -20 "$tmp/run.out")"
fi
# algorithm:bytes:lanes:verified per row; verified = 3 receivers x M x 3 runs
got=$(csv_awk '
	{ printf "%s:%s:%s:%s ", $c["algorithm"], $c["message_bytes"], $c["lanes"],
		$c["verified_bytes"] == 3 * $c["message_bytes"] * 3 }' "$tmp/k.csv" 2>/dev/null)
want="klane:8:4:1 klane:100000:4:1 klane:1048576:4:1 multilane:8:4:1 multilane:100000:4:1 multilane:1048576:4:1 "
[ "$got" = "$want" ] && ok "a verified 4-lane row per algorithm and size" ||
	fail "rows (algorithm:bytes:lanes:verified) '$got', want '$want'"
[ "$(grep -c '^# lane\.[0-3]\.[0-3]: nic=rail[0-3] ' "$tmp/k.csv")" = 16 ] &&
	ok "the provenance names 4 rails on each of 4 ranks" ||
	fail "provenance lanes: $(grep '^# lane\.' "$tmp/k.csv")"

finish klane-rails
