#!/usr/bin/env bash
# The DPDK transport on the emulated cluster (root): 8 ranks x 2 rails,
# vdevs on the rail interfaces (the transport's default EAL arguments:
# net_af_xdp at MTU 1500, net_af_packet where it cannot; dpdk_xdp_test.sh), every algorithm and a few sizes, every byte verified by
# lanebench itself; then 1% loss plus duplication and reordering on
# receive (--tp-opt inject=...): still byte-exact, and the CSV counters must show
# retransmissions and injected drops.  (Loss is injected by the transport:
# this kernel has no netem, and tc's gact action and matchall/basic
# classifiers are missing too.)
set -uo pipefail
usage="usage: dpdk_test.sh path/to/tests/lib.sh LANEBENCH CLUSTER_SCRIPT"
source "${1:?$usage}"
shift
use_lanebench "${1:?$usage}"
use_cluster "${2:?$usage}" lbd
# A rank that is killed cannot remove its EAL runtime directory
# (/var/run/dpdk/lb-<job>-r<rank>).  Remove those left by this test only:
# new since it started, and not locked by a live EAL primary (which holds a
# write lock on its config file) -- another job's may be running now.
dpdk_before=$(ls -d /var/run/dpdk/lb-* 2>/dev/null)
eal_unused() { # runtime directory
	python3 -c 'import fcntl, os, sys
fd = os.open(sys.argv[1] + "/config", os.O_RDWR)
fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)' "$1" 2>/dev/null
}
remove_stale_eal_dirs() {
	local d
	for d in /var/run/dpdk/lb-*; do
		[ -d "$d" ] && ! grep -qxF -- "$d" <<<"$dpdk_before" && eal_unused "$d" && rm -rf "$d"
	done
	return 0
}
at_exit remove_stale_eal_dirs

bcast() { # csv, then lanebench bcast options
	local csv=$1
	shift
	timeout 150 "$cluster" run --name "$name" --timeout 140 -- \
		"$B" bcast --transport dpdk --no-pin --timeout 30 -o "$csv" "$@"
}

col() { # csv, column: the column's sum over the rows
	csv_column "$1" "$2" | awk '{ s += $1 } END { printf "%d\n", s }'
}

check "cluster up 8 x 2 rails at 1gbit" "$cluster" up 8 --rails 2 --rate 1gbit --name "$name"
check "8 ranks x 2 rails over the default PMD (af_xdp): every algorithm, 3 sizes" \
	bcast "$tmp/clean.csv" -a all -m 4K,100000,1M -s 64K -i 3 -x 1
rows=$(($(grep -vc '^#' "$tmp/clean.csv" 2>/dev/null || echo 1) - 1))
[ "$rows" = 18 ] && ok "18 CSV rows" || fail "$rows CSV rows, want 18"
check "frames counted, none dropped as foreign or out of range" \
	test "$(col "$tmp/clean.csv" dpdk_frames_sent_count)" -gt 0 -a \
	"$(col "$tmp/clean.csv" dpdk_dropped_range_count)" = 0 -a \
	"$(col "$tmp/clean.csv" dpdk_dropped_job_count)" = 0

check "1% drop, 1% duplication, 2% reordering on receive: byte-exact" \
	bcast "$tmp/loss.csv" -a all -m 100000,1M -s 64K -i 2 -x 1 \
	--tp-opt inject=drop=0.01,dup=0.01,reorder=0.02
retx=$(col "$tmp/loss.csv" dpdk_frames_retransmitted_count)
inj=$(col "$tmp/loss.csv" dpdk_dropped_injected_count)
dup=$(col "$tmp/loss.csv" dpdk_dropped_duplicate_count)
overlap=$(col "$tmp/loss.csv" dpdk_dropped_overlap_count)
echo "counters under loss: retransmitted $retx, injected drops $inj, duplicates $dup, overlaps $overlap"
check "retransmissions, injected drops and duplicates counted" \
	test "$retx" -gt 0 -a "$inj" -gt 0 -a "$dup" -gt 0
# A copy of a frame keeps its seq: the filter catches it, never the spans.
check "no frame overlapped bytes that had arrived" test "$overlap" = 0
check "--idle yield, multilane and chain" \
	bcast "$tmp/yield.csv" -a multilane,chain -m 1M -s 64K -i 2 -x 1 --idle yield --no-calibration
check "20% of all frames dropped (acks too, so final acks get lost): byte-exact" \
	bcast "$tmp/acks.csv" -a chain,binomial -m 4K,100000 -s 64K -i 10 -x 0 --no-calibration \
	--tp-opt inject=drop=0.2

# One rail each: net_af_packet names its PACKET_FANOUT group (per network
# namespace) pid ^ ifindex, so two processes with ports on different
# interfaces collide when their pids differ by the interfaces' xor (seen:
# "could not set PACKET_FANOUT"); on one interface they never do.
# On af_packet: an af_xdp job's XDP program would take the other job's
# frames too (same ethertype; docs/guide/transports.md).
job() { # port, csv: a second job on the same rail at the same time
	timeout 150 "$cluster" run --name "$name" --port "$1" --timeout 140 -- \
		"$B" bcast --transport dpdk --tp-opt pmd=af_packet --no-pin --timeout 30 -o "$2" --nics rail0 \
		-a multilane,chain -m 1M -s 64K -i 5 -x 1 --no-calibration
}
two_jobs() {
	job 18611 "$tmp/a.csv" >"$tmp/a.log" 2>&1 &
	local a=$!
	job 18612 "$tmp/b.csv" >"$tmp/b.log" 2>&1 || { wait $a; cat "$tmp/b.log"; return 1; }
	wait $a || { cat "$tmp/a.log"; return 1; }
}
check "two jobs at once on the same rail: both byte-exact" two_jobs
foreign=$(($(col "$tmp/a.csv" dpdk_dropped_job_count) + $(col "$tmp/b.csv" dpdk_dropped_job_count)))
echo "frames of the other job dropped: $foreign"
check "each job dropped the other's frames (by job token)" test "$foreign" -gt 0

refused() { # lanebench options: bad input (exit 2), saying which value was bad
	local out rc=0 # (one rank on purpose: outside a job bcast refuses before the transport)
	out=$(LANEBENCH_RANK=0 LANEBENCH_SIZE=1 "$B" bcast --transport dpdk --nics lo "$@" 2>&1) || rc=$?
	[ "$rc" = 2 ] && echo "$out" | grep -q "dup: 'x' is not a probability"
}
check "inject with a bad value is refused, naming it" refused --tp-opt inject=drop=0.5,dup=x
"$cluster" down --name "$name" >/dev/null

check "cluster up 2 x 2" "$cluster" up 2 --rails 2 --rate 1gbit --name "$name"
check "2 ranks, root 1, every algorithm" bcast "$tmp/two.csv" -a all -m 64K,1M -s 32K -i 3 -x 1 -r 1

finish dpdk-cluster
