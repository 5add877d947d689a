#!/usr/bin/env bash
# lanebench platform show: the matrix of seed 000's test vector 1
# (docs/papers.md#seed000-lp),
# --format links line by line, --lane, -o, and bad files (one line naming
# file, line and token, exit 2, no -o file created).
set -u
usage="usage: platform_test.sh path/to/tests/lib.sh path/to/lanebench SOURCE_ROOT"
source "${1:?$usage}"
shift
use_lanebench "${1:?$usage}" platform
SRC=${2:?$usage}
V1=$SRC/tests/data/seed000_vector1.platform

# same NAME WANT GOT
same() {
	[ "$2" = "$3" ] || fail "$1: got
$3
want
$2"
}

# bad NEEDLE TEXT: the platform TEXT is refused with exit 2, one line
# "lanebench platform: NEEDLE...", and no -o file.
bad() {
	printf '%s\n' "$2" >"$tmp/bad.platform"
	run show -o "$tmp/never" "$tmp/bad.platform"
	[ "$rc" -eq 2 ] || fail "bad '$2': exit $rc, want 2"
	same "bad '$2': stderr" "lanebench platform: $tmp/bad.platform:$1" "$err"
	[ -z "$out" ] || fail "bad '$2': wrote to stdout: $out"
	! ls "$tmp" | grep -q '^never' || fail "bad '$2': created the -o file: $(ls "$tmp")"
}

run show "$V1"
[ "$rc" -eq 0 ] || fail "show vector 1: exit $rc: $err"
same "show vector 1" "platform $V1: 4 nodes, 1 lane, 0 sites (hash $(printf '%s' "$out" | sed -n 's/.*(hash \(.*\))$/\1/p'))

lane 0 bandwidth (row: from, column: to; '-': no link)
            0           1           2           3
0           -      1 MB/s    500 KB/s    500 KB/s
1      1 MB/s           -  333.3 KB/s  333.3 KB/s
2    500 KB/s  333.3 KB/s           -    500 KB/s
3    500 KB/s  333.3 KB/s    500 KB/s           -" "$out"
case $out in
*"(hash "[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]")"*) ;;
*) fail "show vector 1: no 16-digit hash: $out" ;;
esac

run show --format links -o "$tmp/links" "$V1"
[ "$rc" -eq 0 ] && [ -z "$out" ] || fail "links -o: exit $rc, stdout '$out': $err"
same "links of vector 1" "link 0 1 0 1000000 0 0
link 0 2 0 500000 0 0
link 0 3 0 500000 0 0
link 1 0 0 1000000 0 0
link 1 2 0 333333.33333333331 0 0
link 1 3 0 333333.33333333331 0 0
link 2 0 0 500000 0 0
link 2 1 0 333333.33333333331 0 0
link 2 3 0 500000 0 0
link 3 0 0 500000 0 0
link 3 1 0 333333.33333333331 0 0
link 3 2 0 500000 0 0" "$(cat "$tmp/links")"

# Two lanes, a oneway slow link, a missing pair, latency and a node cap;
# read from stdin.
two='nodes 3
lanes 2
default lat 0 occ 0 bw 1gbit
node 2 rate 100mbit
link 0 1 lane 1 bw 50mbit lat 350us oneway
nolink 0 2 lane 0'
run show --format links --lane 1 - <<<"$two"
same "links --lane 1" "link 0 1 1 6250000 0.00035 0
link 0 2 1 12500000 0 0
link 1 0 1 125000000 0 0
link 1 2 1 12500000 0 0
link 2 0 1 12500000 0 0
link 2 1 1 12500000 0 0" "$out"
run show --format links --lane 0 - <<<"$two"
case $out in
*"nolink 0 2 0"*"nolink 2 0 0"*) ;;
*) fail "nolink lines missing: $out" ;;
esac
run show --lane 1 - <<<"$two"
case $out in
"platform stdin: 3 nodes, 2 lanes, 0 sites (hash "*"lane 1 latency, in flight"*"350 us"*) ;;
*) fail "no latency matrix for lane 1: $out" ;;
esac
case $out in
*"lane 0 "*) fail "--lane 1 showed lane 0: $out" ;;
*"occupation"*) fail "an all-zero occupation matrix was shown: $out" ;;
esac
case $out in
*"node 2: send 0 s, recv 0 s, gap 0 s, rate cap 12.5 MB/s"*) ;;
*) fail "node 2's cap not shown: $out" ;;
esac

run show --lane 2 - <<<"$two"
[ "$rc" -eq 2 ] || fail "--lane 2 of 2 lanes: exit $rc"
same "--lane 2" "lanebench platform: --lane: lane 2 out of range: stdin has 2 lanes (0-1)" "$err"

bad "2: 'frobnicate': unknown keyword (expected nodes, lanes, default, node, link, nolink, site, coordinator, wan or barrier)" 'nodes 4
frobnicate 1'
bad "3: 'bw -1gbit': bad rate '-1gbit': expected a rate > 0 in bits (10gbit, 200mbit, 100kbit, 9600bit) or bytes per second (1.25GB/s, 125MB/s, 500B/s)" 'nodes 4
# a comment
link 0 1 bw -1gbit'
bad "2: '7': rank out of range (0-3)" 'nodes 4
nolink 0 7'

run show "$tmp/absent.platform"
[ "$rc" -eq 2 ] || fail "absent file: exit $rc"
same "absent file" "lanebench platform: $tmp/absent.platform: cannot open: No such file or directory" "$err"
run frob "$V1"
[ "$rc" -eq 2 ] || fail "unknown action: exit $rc"
same "unknown action" "lanebench platform: unknown action 'frob' (expected show or gen)" "$err"
run show --format table "$V1"
[ "$rc" -eq 2 ] || fail "--format table: exit $rc"

run --help
case $out in
*"link U V LANE BYTES_PER_S LAT_S OCC_S"*"nolink U V LANE"*) ;;
*) fail "--help does not document the links format: $out" ;;
esac

finish platform_test
