#!/usr/bin/env bash
# Integration on the emulated multi-rail cluster (root): real processes, one
# per network namespace, TCP over shaped veth rails; every algorithm, several
# sizes and slices, bytes verified on every rank by lanebench itself (a
# mismatch makes it exit non-zero).  Also 1 and 2 ranks, a non-zero root,
# every root in turn (-r all) on 4 ranks, and p2p one way and both ways.
set -uo pipefail
usage="usage: bcast_test.sh path/to/tests/lib.sh LANEBENCH CLUSTER_SCRIPT"
source "${1:?$usage}"
shift
use_lanebench "${1:?$usage}"
use_cluster "${2:?$usage}" lbi

bcast() { # hosts, then lanebench bcast options
	local n=$1
	shift
	"$cluster" run --name "$name" --timeout 240 -- \
		"$B" bcast --no-pin --timeout 60 -o "$tmp/run-$n.csv" "$@"
}

check "cluster up 8 x 2 rails at 1gbit" "$cluster" up 8 --rails 2 --rate 1gbit --name "$name"
check "8 ranks x 2 rails: every algorithm, 3 sizes, 2 slice sizes" \
	bcast 8 -a all -m 4K,100000,2M -s 64K,256K -i 3 -x 1
rows=$(($(grep -vc '^#' "$tmp/run-8.csv") - 1))
[ "$rows" = 36 ] && ok "36 CSV rows" || fail "$rows CSV rows, want 36"
# every row verified (p - 1) x M x (i + x) bytes
csv_awk '
	$c["verified_bytes"] != 7 * $c["message_bytes"] * 4 { bad++ }
	END { exit bad > 0 }' "$tmp/run-8.csv" &&
	ok "verified_bytes = 7 x M x 4 on every row" ||
	fail "verified_bytes column"
# tcp's counter closes the row (after the fixed columns, -a auto's
# last): a count on every row, no other transport's
awk -F, '/^#/ { next } !h++ { ok = $NF == "tcp_segments_retransmitted_count" && $(NF - 1) == "auto_reason"; next }
	$NF !~ /^[0-9]+$/ { ok = 0 } END { exit !ok }' "$tmp/run-8.csv" &&
	ok "tcp_segments_retransmitted_count after auto_reason, a count on every row" ||
	fail "counter columns: $(grep -vm1 '^#' "$tmp/run-8.csv")"
check "non-zero root (5), stripe off, ring allgather" \
	bcast 8 -a all -m 1M -s 128K -i 2 -x 0 -r 5 --stripe off --allgather ring
check "multilane and chain with yield idle policy" \
	bcast 8 -a multilane,chain -m 1M -s 64K -i 2 -x 1 --idle yield
"$cluster" down --name "$name" >/dev/null

# Provenance and progress of a 3-rank run: the CSV's head names every
# rank's host and every lane, and the command line; the JSON document holds
# the same; rank 0's stderr (a log, not a terminal) has a line per finished
# configuration and calibration's steps.
check "cluster up 3 x 2" "$cluster" up 3 --rails 2 --rate 1gbit --name "$name"
check "3 ranks, --json and a log" "$cluster" run --name "$name" --timeout 240 --log-dir "$tmp/logs3" -- \
	"$B" bcast --no-pin --timeout 60 -a chain,multilane -m 64K,1M -i 2 -x 0 \
	-o "$tmp/run-3.csv" --json "$tmp/run-3.json"
head3() { # key value-pattern: the head holds it
	grep -q "^# $1: $2\$" "$tmp/run-3.csv" || fail "head lacks '$1: $2'"
}
head3 command "lanebench bcast --no-pin --timeout 60 -a chain,multilane -m 64K,1M -i 2 -x 0 -o $tmp/run-3.csv --json $tmp/run-3.json"
head3 launcher lanebench-env
head3 ranks 3
head3 lanes 2
for r in 0 1 2; do
	head3 "host\\.$r" "$name-h$r" # the namespace: emulated hosts share one host name
	for l in 0 1; do
		head3 "lane\\.$r\\.$l" "nic=rail$l port=[0-9-]* speed_bps=[0-9-]* mtu=1500 numa=[0-9-]* core=[0-9-]* addr=10\\.1$l\\.0\\.$((r + 1)) via=tcp"
	done
done
[ "$(grep -c '^# lane\.' "$tmp/run-3.csv")" = 6 ] && ok "provenance head: 3 hosts, 6 lanes, the command line" ||
	fail "lane lines: $(grep '^# lane' "$tmp/run-3.csv")"
python3 "$(dirname "$0")/../cli/json_matches_csv.py" "$tmp/run-3.csv" "$tmp/run-3.json" &&
	ok "the JSON document holds the CSV's provenance and rows" ||
	fail "--json differs from the CSV"
# (--slice auto: each line names the slice its row chose)
k=0
while read -r what; do
	k=$((k + 1))
	grep -Eq "^lanebench bcast: \[$k/4\] $what done in .*; elapsed .*, (about .* left|done)\$" \
		"$tmp/logs3/rank0.log" || fail "no progress line $k/4 '$what': $(cat "$tmp/logs3/rank0.log")"
done < <(csv_awk '
	function size(s,  i) { for (i = 0; s >= 1024 && s % 1024 == 0 && i < 3; i++) s /= 1024
		return s (i ? substr("KMG", i, 1) : "") }
	{ print $c["algorithm"] " " size($c["message_bytes"]) " slice " size($c["slice_bytes"]) }' "$tmp/run-3.csv")
[ "$k" = 4 ] || fail "$k rows in $tmp/run-3.csv, want 4"
grep -q '^lanebench bcast: calibration round 1: lane 1 against rank 1$' "$tmp/logs3/rank0.log" &&
grep -q '^lanebench bcast: calibration round 2: lane 0 against rank 2$' "$tmp/logs3/rank0.log" &&
	ok "rank 0's log: a line per configuration, calibration's rounds and lanes" ||
	fail "calibration lines: $(cat "$tmp/logs3/rank0.log")"
grep -q 'lanebench bcast: \[' "$tmp/logs3/rank1.log" &&
	fail "rank 1 prints progress"
"$cluster" down --name "$name" >/dev/null

check "cluster up 2 x 2" "$cluster" up 2 --rails 2 --rate 1gbit --name "$name"
check "2 ranks, root 1" bcast 2 -a all -m 64K,1M -s 32K -i 3 -x 1 -r 1
# p2p both ways at once (-b): a bi row per lane and size, with the sum and
# each direction; one-way rows say uni.  (That bi is about 2 x uni on a
# shaped link is a benchmark observation, not asserted: the machine is shared.)
p2p() { # csv, then lanebench p2p options
	local csv=$1
	shift
	"$cluster" run --name "$name" --timeout 240 -- "$B" p2p --timeout 60 -o "$csv" "$@"
}
check "2 ranks, p2p -b" p2p "$tmp/bi.csv" -b -m 8,64K -i 3 -x 1
check "2 ranks, p2p" p2p "$tmp/uni.csv" -m 8,64K -i 3 -x 1
# Every byte verified: per repetition (-i 3 -x 1: 4), the ping-pong's
# message both ways, and the window (the row's window of messages) one way
# or both.
rows() { # csv -> "lane:bytes:direction:ok" per row, ok when every figure is there
	csv_awk '
	{ ok = $c["latency_median_seconds"] > 0 && $c["bandwidth_median_bytes_per_second"] > 0 &&
		$c["bandwidth_sent_median_bytes_per_second"] > 0
	  b = $c["message_bytes"]; ways = $c["direction"] == "bi" ? 2 : 1
	  want = (3 + 1) * (2 * b + ways * $c["window"] * b)
	  if ($c["verified_bytes"] != want) {
		printf "verified_bytes %s, want %d: ", $c["verified_bytes"], want; ok = 0 }
	  if ($c["direction"] == "bi") ok = ok && $c["bandwidth_received_median_bytes_per_second"] > 0
	  else ok = ok && $c["bandwidth_received_median_bytes_per_second"] == ""
	  printf "%s:%s:%s:%d ", $c["lane"], $c["message_bytes"], $c["direction"], ok }' "$1"
}
for d in bi uni; do
	got=$(rows "$tmp/$d.csv")
	want="0:8:$d:1 0:65536:$d:1 1:8:$d:1 1:65536:$d:1 "
	[ "$got" = "$want" ] && ok "p2p $d rows: $got" ||
		fail "p2p $d rows (lane:bytes:direction:complete) '$got', want '$want'"
done
"$cluster" down --name "$name" >/dev/null

# Root rotation: a row per (algorithm, root), the roots innermost, each
# verified; a root the job does not have is a usage error naming it.
check "cluster up 4 x 2" "$cluster" up 4 --rails 2 --rate 1gbit --name "$name"
check "4 ranks, -r all" bcast 4 -a all -m 256K -s 64K -i 2 -x 1 -r all
got=$(csv_awk '
	{ printf "%s:%s:%s ", $c["algorithm"], $c["root"], $c["verified_bytes"] == 3 * $c["message_bytes"] * 3 }' \
	"$tmp/run-4.csv")
want=$(for a in chain binary binomial vandegeijn multilane klane; do printf '%s:%s:1 ' $a 0 $a 1 $a 2 $a 3; done)
[ "$got" = "$want" ] && ok "-r all: a verified row per algorithm and root 0..3" ||
	fail "-r all rows (algorithm:root:verified) '$got', want '$want'"
# progress counts every root: 6 algorithms x 4 roots, the last one named
grep -q 'lanebench bcast: \[24/24\] klane 256K slice 64K root 3 done' <<<"$check_out" &&
	ok "-r all: progress counts 24 configurations" ||
	fail "-r all: no '[24/24] ... root 3 done' progress line"
grep -qE '^\[rank 0\] algorithm +root +size' <<<"$check_out" && ok "-r all: the table shows the root" ||
	fail "-r all: no root column in the table: $(grep -m1 algorithm <<<"$check_out")"
out=$(bcast 4 -a chain -m 4K -i 1 -x 0 -r 9 2>&1)
rc=$?
[ $rc = 1 ] && [ "$(grep -c "exit status 2" <<<"$out")" = 4 ] &&
	[ "$(grep -c "root: bad rank '9': out of range for 4 ranks" <<<"$out")" = 4 ] &&
	ok "-r 9 on 4 ranks: every rank exits 2 naming '9'" ||
	fail "-r 9 on 4 ranks: run exit $rc: $out"
# rank 0 cannot create its -o: it refuses before any traffic and tells the
# others why (they would otherwise wait --timeout and blame the network)
out=$("$cluster" run --name "$name" --timeout 240 -- "$B" bcast --timeout 120 -a chain -m 4K \
	-o "$tmp/none/x.csv" 2>&1)
rc=$?
[ $rc != 0 ] && [ "$(grep -c "cannot create '$tmp/none/x.csv'" <<<"$out")" = 4 ] &&
	[ "$(grep -c "rank 0 aborted: -o/--output: cannot create" <<<"$out")" = 3 ] &&
	! grep -q 'coordinator' <<<"$out" &&
	ok "rank 0's bad -o: every rank names it" || fail "rank 0's bad -o: exit $rc: $out"
# p2p on 4 ranks: ranks 2 and 3 only wait while 0 and 1 measure a row
# that takes several times --timeout (300 ping-pongs and 300 sends of 1 MiB
# at 1 Gbit/s, each far within it); they wait for the row, not one step.
check "4 ranks, p2p rows longer than --timeout" "$cluster" run --name "$name" --timeout 240 -- \
	"$B" p2p --timeout 2 -m 1M -w 1 -i 300 -x 0 -o "$tmp/p2p4.csv"
[ "$(csv_awk '{ n++ } END { print n + 0 }' "$tmp/p2p4.csv")" = 2 ] &&
	ok "4 ranks, p2p: a row per lane" || fail "4 ranks, p2p: rows: $(cat "$tmp/p2p4.csv")"
"$cluster" down --name "$name" >/dev/null

check "cluster up 1 x 1" "$cluster" up 1 --rails 1 --rate 1gbit --name "$name"
check "1 rank" bcast 1 -a all -m 4K -i 2 -x 0 --nics rail0

finish bcast-cluster
