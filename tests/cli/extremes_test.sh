#!/usr/bin/env bash
# Platform files and sizes with extreme values (issue 28): every file of
# tests/data/untrusted/platform-extremes through lp, plan and sim.  A value
# outside its physical range (lat 1e308, a subnormal bw or rate) is refused
# where it enters: exit 2, naming file:line:token, before GLPK (which
# aborted), cap-trees (which read out of bounds) or the fluid simulator
# (which never ended) meet it.  A valid platform whose LP cannot fit in
# memory is refused at once with its figure (exit 4), and an allgather of
# more than 2^64 bytes in all is refused (exit 2), not saturated.  Every
# run is bounded by timeout: the old fluid loop must fail, not hang.
set -u
usage="usage: extremes_test.sh path/to/tests/lib.sh path/to/lanebench SOURCE_ROOT"
source "${1:?$usage}"
shift
use_lanebench "${1:?$usage}"
DATA=${2:?$usage}/tests/data/untrusted/platform-extremes
LB=(timeout -k 5 60 "$B")

# refused FILE LINE TOKEN: each command on FILE exits 2 naming FILE:LINE: 'TOKEN'.
refused() {
	local f=$DATA/$1 where="$DATA/$1:$2: '$3'"
	expect_status 2 "$where" lp --platform "$f"
	expect_status 2 "$where" plan --platform "$f" -a cap-trees -m 1M
	expect_status 2 "$where" plan --platform "$f" -a lp-grow -m 1M
	expect_status 2 "$where" sim --platform "$f" -a binomial -m 1M --model fluid --no-lp
	expect_status 2 "$where" sim --platform "$f" -a binomial -m 1M
}
refused lat1e308.platform 2 'lat 1e308'
refused occ1e308.platform 2 'occ 1e308'
refused bw_subnormal.platform 2 'bw 1e-320bit'
refused rate_subnormal.platform 3 'rate 1e-320bit'
refused cap_trees_oob.platform 3 'bw 1e-320bit'

# dense300: valid, 26820300 flow variables, about 51.2 GiB of GLPK's memory
# (model/lp.h): refused before it is built, unless this machine has it.
available_kib=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)
if [ "${available_kib:-0}" -lt $((52 * 1024 * 1024)) ]; then
	expect_status 4 "platform $DATA/dense300.platform: the LP of 300 nodes x 89700 links (26820300 flow variables) needs about 51.2 GiB" \
		lp --platform "$DATA/dense300.platform"
	expect_status 4 "the LP bound of platform $DATA/dense300.platform: the LP of 300 nodes" \
		plan --platform "$DATA/dense300.platform" -a lp-grow -m 1M
	expect_status 4 "the LP of 300 nodes x 89700 links (26820300 flow variables) needs about 51.2 GiB" \
		sim --platform "$DATA/dense300.platform" -a binomial -m 1M
else
	ok "dense300: skipped, this machine has more than the 51.2 GiB its LP needs"
fi

# p x m past 2^64 bytes, every allgather; just below it, a run.
for a in allgather-ring allgather-simultaneous allgather-doubling; do
	expect_status 2 "$a: 16 ranks x 2305843009213693952 bytes each: more than 18446744073709551615 bytes in all" \
		sim -a $a -p 16 -m 2305843009213693952 -s 2305843009213693952
	expect_status 2 "$a: 16 ranks x 2305843009213693952 bytes each: more than" \
		plan -a $a -p 16 -m 2305843009213693952 -s 2305843009213693952
done
expect_ok sim -a allgather-ring -p 16 -m 1152921504606846975 -s 1152921504606846975

finish extremes_test
