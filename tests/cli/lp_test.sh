#!/usr/bin/env bash
# lanebench lp: TP* of seed 000's test vectors (11/23 and 2/5;
# docs/papers.md#seed000-lp), the
# loads' occupations, --json, --write-lp solved by glpsol (when installed),
# and bad input: exit 2 naming the root, the lane, the unreachable node or
# the file.
set -u
usage="usage: lp_test.sh path/to/tests/lib.sh path/to/lanebench SOURCE_ROOT"
source "${1:?$usage}"
shift
use_lanebench "${1:?$usage}" lp
SRC=${2:?$usage}
V1=$SRC/tests/data/seed000_vector1.platform

# Vector 2 (T in seconds for a 10^6-byte slice: bw = 1 MB / T); no 0-3 link.
vector2='nodes 4
default none
link 0 1 bw 333333.33333333331B/s
link 0 2 bw 500KB/s
link 1 2 bw 333333.33333333331B/s
link 1 3 bw 500KB/s
link 2 3 bw 333333.33333333331B/s'

run --platform "$V1"
[ "$rc" -eq 0 ] || fail "vector 1: exit $rc: $err"
case $out in
"platform $V1: 4 nodes, root 0, lane 0, slices of 1000000 bytes
TP* = 0.4782608696 slices/s = 478261 bytes/s; period 1/TP* = 2.091 s
loads, phase 2 'time' (min sum of T*n): n in slices/s, occupation n*T in s/s
  0 -> 1: "*) ;;
*) fail "vector 1: TP* 11/23 = 0.4782608696 not reported: $out" ;;
esac
# Every node sends at most one second per second: sum of occupations <= 1.
printf '%s\n' "$out" | awk '/ -> /{ sub(":", "", $3); occ[$1] += $NF }
	END { for (u in occ) if (occ[u] > 1 + 1e-9) { print u, occ[u]; bad = 1 } exit bad }' ||
	fail "vector 1: a node's occupations add up to more than 1: $out"

run --platform - --lp-phase2 none <<<"$vector2"
[ "$rc" -eq 0 ] || fail "vector 2: exit $rc: $err"
case $out in
*"TP* = 0.4 slices/s = 400000 bytes/s; period 1/TP* = 2.5 s"*"phase 2 'none'"*) ;;
*) fail "vector 2: TP* 2/5 not reported: $out" ;;
esac

run --platform "$V1" --root 2 --slice 2000000 --lp-phase2 sum --json -
[ "$rc" -eq 0 ] || fail "--json -: exit $rc: $err"
python3 - "$tmp/out" <<'PY' || fail "--json -: $out"
import json, sys
doc = json.load(open(sys.argv[1]))
bound = [r for r in doc["rows"] if r["row"] == "bound"]
loads = [r for r in doc["rows"] if r["row"] == "load"]
assert doc["provenance"]["option.lp-phase2"] == "sum", doc["provenance"]
assert len(bound) == 1 and bound[0]["bytes_per_second"] > 0, bound
assert abs(bound[0]["slices_per_second"] * bound[0]["period_seconds"] - 1) < 1e-6, bound
assert loads and all(r["from"] != r["to"] for r in loads), loads
PY
case $err in
*"TP* = "*) ;;
*) fail "--json -: the report is not on stderr: $err" ;;
esac

if command -v glpsol >/dev/null; then
	run --platform "$V1" --write-lp "$tmp/v1.lp"
	[ "$rc" -eq 0 ] || fail "--write-lp: exit $rc: $err"
	glpsol --lp "$tmp/v1.lp" -o "$tmp/v1.sol" >/dev/null || fail "glpsol on --write-lp's file"
	grep -q "^Objective:  obj = 0.4782608696" "$tmp/v1.sol" ||
		fail "glpsol's optimum is not 11/23: $(grep Objective "$tmp/v1.sol")"
else
	echo "glpsol missing (Debian glpk-utils): --write-lp not cross-checked"
fi

# refused RC WANT_ERR ARGS... (stdin as given): exit RC, exactly that
# message (empty WANT_ERR: any), and nothing on stdout -- after each run.
refused() {
	local want_rc=$1 want_err=$2
	shift 2
	run "$@"
	[ "$rc" -eq "$want_rc" ] || fail "lp $*: exit $rc, want $want_rc"
	[ -z "$want_err" ] || [ "$err" = "$want_err" ] || fail "lp $*: $err"
	[ -z "$out" ] || fail "lp $*: bad input wrote to stdout: $out"
}
refused 2 "lanebench lp: --root: root 4 out of range: the platform has 4 nodes (0-3)" \
	--platform "$V1" --root 4
refused 2 "lanebench lp: --lane: lane 1 out of range: the platform has 1 lane (0-0)" \
	--platform "$V1" --lane 1
refused 2 "lanebench lp: --platform: node 3 cannot be reached from node 0 on lane 0" \
	--platform - <<<"$(printf '%s\n' "$vector2" | grep -v ' 3 ')"
refused 2 "lanebench lp: --platform: $tmp/absent.platform: cannot open: No such file or directory" \
	--platform "$tmp/absent.platform"
refused 2 "" --platform "$V1" --lp-phase2 fastest
refused 2 ""

run --help
case $out in
*"TP*"*"slices per second"*"--lp-phase2"*"time"*) ;;
*) fail "--help does not explain TP*, its units and phase 2: $out" ;;
esac

finish lp_test
