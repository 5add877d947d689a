#!/usr/bin/env bash
# The lanebench command as users run it: help for every command, errors that
# name the bad value with exit status 2, plan output (dot parses), sim CSV.
set -u
usage="usage: cli_test.sh path/to/tests/lib.sh path/to/lanebench"
source "${1:?$usage}"
shift
use_lanebench "${1:?$usage}"
not_in_a_job

# expect_usage NEEDLE ARGS...: exit 2, one stderr line containing NEEDLE,
# starting with 'lanebench'
expect_usage() {
	expect_status 2 "$@"
	[ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || fail "lanebench ${*:2}: stderr not one line: $err"
	case $err in
	"lanebench"*) ;;
	*) fail "lanebench ${*:2}: stderr does not start with 'lanebench': $err" ;;
	esac
}

# --- help -----------------------------------------------------------------
expect_ok --help
for w in plan sim multi-rail simulator "cost model" "exit status" "3 stopped because another rank"; do
	case $out in *"$w"*) ;; *) fail "lanebench --help lacks '$w'" ;; esac
done
expect_ok bcast --help
for w in --verbose "-v," "iteration 3/12 started" "status 3"; do
	case $out in *"$w"*) ;; *) fail "lanebench bcast --help lacks '$w'" ;; esac
done
# Transport options: --tp-opt, each built transport's keys (or none) listed
# from its table, in bcast's and p2p's help; the old options are not.
built=$("$B" --help | sed -n '/^transports built in:/,/^$/p' | awk 'NR > 1 && /^  [a-z]/ { print $1 }') # not a wrapped line's
for cmd in bcast p2p; do
	expect_ok $cmd --help
	tp_help=$(printf '%s\n' "$out" | sed -n '/^transport options/,/^$/p')
	case $out in *"--tp-opt KEY=VALUE"*) ;; *) fail "$cmd --help lacks --tp-opt" ;; esac
	for t in $built; do
		printf '%s\n' "$tp_help" | grep -q "^  $t " || fail "$cmd --help lists no options of $t"
	done
	case $out in *--eal* | *--inject* | *--rdma-op* | *--rdma-ack-timeout*) fail "$cmd --help shows an old option" ;; esac
done
expect_ok --version
# git describe at build time (a tag, or a commit, "-dirty" if so), else the
# project's version: one word, never the unexpanded template.
case $out in "lanebench "*" "* | *VCS_TAG*) fail "--version printed '$out'" ;;
"lanebench "[0-9a-zA-Z]*) ;; *) fail "--version printed '$out'" ;; esac

plan_opts="--algorithm -a --ranks -p --root -r --lanes -k --message-size -m --slice -s
	--stripe --allgather --sites --format -f --help -h"
sim_opts="--algorithm -a --ranks -p --message-size -m --slice -s --lanes -k --root -r
	--alpha --bw --stripe --allgather --sites --wan-alpha --validate --output -o --help -h"
for cmd in plan sim; do
	opts_var=${cmd}_opts
	for h in --help -h; do
		expect_ok "$cmd" "$h"
		for o in ${!opts_var}; do
			printf '%s\n' "$out" | grep -qe "$o\\b" || fail "lanebench $cmd $h does not mention $o"
		done
	done
done

# One meaning per option: a short option stands for one long option in
# every command (and a long one has one short spelling), and --lanes (a
# count) is only where lanes are counted.
for cmd in plan sim bcast p2p compare topo; do
	"$B" "$cmd" --help | sed -nE "s/^  -(.), --([a-z-]+).*/\1 \2 $cmd/p"
done >"$tmp/shorts"
awk '{ if (($1 in long) && long[$1] != $2) { print "-" $1 ": --" long[$1] " and --" $2; bad = 1 }
	if (($2 in short) && short[$2] != $1) { print "--" $2 ": -" short[$2] " and -" $1; bad = 1 }
	long[$1] = $2; short[$2] = $1 } END { exit bad }' "$tmp/shorts" >"$tmp/clash" ||
	fail "a short option with two meanings: $(cat "$tmp/clash")"
[ "$(awk '$2 == "lanes" { print $3 }' "$tmp/shorts" | sort | tr '\n' ' ')" = "plan sim " ] ||
	fail "--lanes outside plan and sim: $(grep ' lanes ' "$tmp/shorts")"
for cmd in bcast p2p topo; do
	[ "$(awk -v c="$cmd" '$3 == c && $2 == "nics" { print $1 }' "$tmp/shorts")" = d ] ||
		fail "$cmd --help lacks -d, --nics"
done

# The registry, listed: every name also in plan --help.
expect_ok plan -a list
algos=$(printf '%s\n' "$out" | awk '!/needs --platform/ && $2 != "allgather:" { print $1 }')
allgathers=$(printf '%s\n' "$out" | awk '$2 == "allgather:" { print $1 }')
[ "$(printf '%s\n' "$allgathers" | wc -l)" -eq 3 ] || fail "plan -a list: want 3 allgathers: $out"
platform_algos=$(printf '%s\n' "$out" | awk '/needs --platform/ { print $1 }')
[ "$(printf '%s\n' "$algos" | wc -l)" -eq 6 ] || fail "plan -a list: want 6 homogeneous algorithms: $out"
[ "$(printf '%s\n' "$platform_algos" | wc -l)" -eq 24 ] ||
	fail "plan -a list: want 24 algorithms marked 'needs --platform' (seed 000's 8, cap-trees, seed 001's 2, seed 002's 8, seed 004's 5): $out"
expect_ok plan --help
for a in $algos $platform_algos; do
	case $out in *"$a"*) ;; *) fail "plan --help does not list $a" ;; esac
done

# --- bad input --------------------------------------------------------------
expect_usage "--eal is now --tp-opt eal=ARGS" bcast --eal "--no-huge -m 128"
expect_usage "--inject is now --tp-opt inject=FAULTS" bcast --inject drop=0.1
expect_usage "--rdma-op is now --tp-opt op=OP" p2p --rdma-op send
expect_usage "--rdma-ack-timeout is now --tp-opt ack-timeout=TIME" p2p --rdma-ack-timeout=1s
expect_usage "'nokey' is not KEY=VALUE" bcast --tp-opt nokey
expect_usage "'frob'" frob
expect_usage "'--frob'" --frob
expect_usage "'frob'" plan -a frob -p 4 -m 1M
expect_usage "'frob'" sim -a chain,frob
expect_usage "'12Q'" plan -a chain -p 4 -m 12Q
expect_usage "'12Q'" sim -m 4K,12Q
expect_usage "'12Q'" sim --slice 12Q
expect_usage "'64M:8'" sim -m 64M:8
expect_usage "'0'" sim -p 0
expect_usage "'10gbps'" sim --bw 10gbps
expect_usage "'-5us'" sim --alpha -5us
expect_usage "'maybe'" sim --stripe maybe
expect_usage "'-x'" sim -x
expect_usage "'--frob'" plan --frob
expect_usage "'extra'" sim extra
expect_usage "--ranks" plan -a chain -m 1M
expect_usage "--algorithm" plan -p 4 -m 1M
expect_usage "root 8" plan -a chain -p 8 -r 8 -m 1M
expect_usage "topo-grow: needs --platform FILE" plan -a topo-grow -p 8 -m 1M
expect_usage "root: bad rank '8': out of range for 8 ranks" sim -p 8 -r 8
expect_usage "root: bad rank '4': out of range for 4 ranks" sim -p 8,4,16 -r 4
expect_usage "root: bad rank 'x'" sim -p 8 -r 1,x
expect_usage "root: bad range '3-1'" bcast -r 3-1

# bcast and p2p outside a job: refused, saying how to launch one.
expect_usage "scripts/cluster run" bcast -a chain -m 4K
expect_usage "LANEBENCH_RANK=0 LANEBENCH_SIZE=1" bcast
expect_usage "srun or mpirun" p2p -m 8
# Every byte of a p2p window is verified, side by side in the buffer: refused
# past 1 GiB of window, naming both options (before asking for a job).
expect_usage "-w 4096 x -m 1048576 bytes" p2p -w 4096 -m 8,1M
LANEBENCH_RANK=0 LANEBENCH_SIZE=1 expect_usage "at least 2 ranks, this one has 1 (LANEBENCH_SIZE=1)" p2p
expect_usage "'0'" bcast --timeout 0
# The NIC list's old spelling: refused, naming the new one (--lanes counts).
expect_usage "--nics rail0,rail1" bcast --lanes rail0,rail1
expect_usage "--nics lo" p2p -l lo
expect_usage "--nics eth2" topo --lanes eth2

# --- topo: a lane per NIC named by --nics, $LANEBENCH_NICS, or the old -------
# $LANEBENCH_LANES (read, with a note: ignoring it would pick other NICs)
export LANEBENCH_TOPOLOGY_XML=$(dirname "$0")/../data/topo/two-numa.xml
expect_ok topo --nics eth2,eth3
case $out in *"pinning plan for lanes 'eth2,eth3'"*) ;; *) fail "topo --nics eth2,eth3: $out" ;; esac
# topo --json: a row per NIC of the XML machine, then a row per lane planned
expect_ok topo --nics eth2,eth3 --json -
printf '%s\n' "$out" | python3 -c '
import json, sys
rows = json.load(sys.stdin)["rows"]
nics = [(r["name"], r["numa"]) for r in rows if r["row"] == "nic"]
lanes = [(r["lane"], r["name"], r["numa"], r["core_numa"]) for r in rows if r["row"] == "lane"]
assert nics == [("eth2", 0), ("mlx5_0", 0), ("eth3", 1), ("mlx5_1", 1)], nics
assert lanes == [(0, "eth2", 0, 0), (1, "eth3", 1, 1)], lanes
' || fail "topo --json: $out"
case $err in *"pinning plan for lanes 'eth2,eth3'"*) ;; *) fail "topo --json -: no report on stderr: $err" ;; esac
LANEBENCH_NICS=eth3 LANEBENCH_LANES=eth2 expect_ok topo
case $out$err in *"lanes 'eth3'"*) ;; *) fail "topo, LANEBENCH_NICS=eth3: $out$err" ;; esac
LANEBENCH_LANES=eth2 expect_ok topo
case $out in *"pinning plan for lanes 'eth2'"*) ;; *) fail "topo, LANEBENCH_LANES=eth2: $out" ;; esac
case $err in *"LANEBENCH_LANES is now LANEBENCH_NICS"*) ;; *) fail "topo, LANEBENCH_LANES: no note: $err" ;; esac
unset LANEBENCH_TOPOLOGY_XML

# --- plan -------------------------------------------------------------------
for a in $algos; do
	expect_ok plan -a "$a" -p 7 -k 2 -m 1M --slice 256K
	head -n 1 "$tmp/out" | grep -q "^$a: " || fail "plan -a $a: first line is not the summary"
	# blocks: slices, or more (vandegeijn scatters p pieces)
	grep -Eq "^algorithm $a, ranks 7, root 0, lanes 2, bytes 1048576 \(1 MiB\), blocks [0-9]+, ops [0-9]+$" "$tmp/out" ||
		fail "plan -a $a: no header line: $out"
	[ "$(grep -c '^rank ' "$tmp/out")" -eq 7 ] || fail "plan -a $a: want 7 ranks"
	[ "$(grep -c '^  lane ' "$tmp/out")" -eq 14 ] || fail "plan -a $a: want 14 lane lines"
	grep -q '^rank 0 (root):$' "$tmp/out" || fail "plan -a $a: root not marked"

	expect_ok plan -a "$a" -p 7 -k 2 -m 1M --slice 256K --format summary
	[ "$(tail -n +4 "$tmp/out" | wc -l)" -eq 14 ] || fail "plan -a $a summary: want 14 rows"
	# every non-root rank receives exactly 1 MiB over its lanes
	awk 'NR > 3 && $1 != 0 { got[$1] += $6 } END { for (r in got) if (got[r] != 1048576) exit 1 }' \
		"$tmp/out" || fail "plan -a $a summary: a rank does not receive 1048576 bytes"

	expect_ok plan -a "$a" -p 7 -k 2 -m 1M --slice 256K --format dot
	head -n 1 "$tmp/out" | grep -q "^digraph \"$a\" {" || fail "plan -a $a dot: no digraph"
	if command -v dot >/dev/null; then
		dot -Tsvg "$tmp/out" >"$tmp/svg" 2>"$tmp/doterr" || fail "plan -a $a dot: dot -Tsvg: $(cat "$tmp/doterr")"
	fi
done
# plan --json: a row per op (as many as the header counts), the command line
expect_ok plan -a binomial -p 5 -k 2 -m 64K --slice 16K --json -
printf '%s\n' "$out" | python3 -c '
import json, sys
doc = json.load(sys.stdin)
assert doc["provenance"]["command"] == "lanebench plan -a binomial -p 5 -k 2 -m 64K --slice 16K --json -", doc["provenance"]
assert doc["provenance"]["option.algorithm"] == "binomial"
assert doc["columns"] == ["rank", "lane", "index", "op", "peer", "first_block", "blocks", "bytes"]
ops = int(sys.argv[1])
assert len(doc["rows"]) == ops, (len(doc["rows"]), ops)
assert sum(r["bytes"] for r in doc["rows"] if r["op"] == "recv") == 4 * 65536
' "$(printf '%s\n' "$err" | sed -n 's/.*, ops \([0-9]*\)$/\1/p')" || fail "plan --json: $out"
# --slice auto: the refined model's slice for --alpha and --bw, said first
expect_ok plan -a chain -p 8 -k 2 -m 64K --slice auto --alpha 50us --bw 1gbit --format summary
case $out in "slice 8 KiB, chosen by --slice auto"*"bytes 65536 (64 KiB), blocks 8,"*) ;;
*) fail "plan --slice auto: chain 64K at 50us, 1gbit: want slice 8K (8 blocks): $out" ;; esac
expect_ok plan -a chain -p 8 -k 2 -m 64K --slice 16K --format summary
case $out in *"chosen by"*) fail "plan --slice 16K: says auto: $out" ;; *"blocks 4,"*) ;;
*) fail "plan --slice 16K: want 4 blocks: $out" ;; esac
# --alpha and --bw only choose --slice auto's slice: beside a given slice, refused
expect_status 2 "--alpha: chooses --slice auto's slice, and the slice is not auto" \
	plan -a chain -p 8 -k 2 -m 64K --slice 16K --alpha 50us --format summary
expect_status 2 "--bw: chooses --slice auto's slice" plan -a chain -p 8 -m 64K --bw 1gbit
expect_ok plan -a chain -p 3 -k 1 -m 2K --slice 1K --format dot
grep -q 'r0 -> r1 \[label="lane 0: 2 blocks"' "$tmp/out" || fail "plan dot: chain edge 0->1: $out"
grep -q 'r1 -> r2 \[label="lane 0: 2 blocks"' "$tmp/out" || fail "plan dot: chain edge 1->2: $out"
[ "$(grep -c -- '->' "$tmp/out")" -eq 2 ] || fail "plan dot: chain p=3 wants 2 edges: $out"

# plan --platform: tests/algos/test_hetero.c's 5-node platform, its rates times 10
# (a platform's rates are at least 1 kbit/s), slice times T = 600 / bw s at
# 600 bytes; -p defaults to its 5 nodes, -k to its 1 lane.
cat >"$tmp/p5.txt" <<'EOF'
nodes 5
link 0 1 bw 600B/s oneway
link 0 2 bw 600B/s oneway
link 0 3 bw 600B/s oneway
link 1 2 bw 300B/s oneway
link 2 3 bw 300B/s oneway
link 3 4 bw 300B/s oneway
link 1 4 bw 200B/s oneway
link 4 0 bw 600B/s oneway
EOF
expect_ok plan -a binomial-routed --platform "$tmp/p5.txt" -m 1200 -s 600
case $out in "period 3 s per slice of 600 bytes, throughput 0.333333333 slices/s"*"ranks 5, root 0, lanes 1,"*) ;;
*) fail "plan --platform: binomial-routed period 3 on 5 ranks x 1 lane: $out" ;; esac
grep -q '^  lane 0: recv<-2 \[0,1)  recv<-0 \[0,1) transit  send->4 \[0,1) transit' "$tmp/out" ||
	fail "plan --platform: rank 3 relays 0 -> 4 in transit: $out"
expect_ok plan -a topo-grow --platform "$tmp/p5.txt" -m 1200 -s 600 --format dot
for e in 'r0 -> r1' 'r0 -> r2' 'r2 -> r3' 'r3 -> r4'; do
	grep -q "$e " "$tmp/out" || fail "plan --platform topo-grow: no edge $e: $out"
done
[ "$(grep -c -- '->' "$tmp/out")" -eq 4 ] || fail "plan --platform topo-grow: want 4 edges: $out"
expect_ok plan -a binomial-routed --platform "$tmp/p5.txt" -m 1200 -s 600 --json -
printf '%s\n' "$out" | python3 -c '
import json, sys
doc = json.load(sys.stdin)
assert doc["provenance"]["option.platform"].endswith("p5.txt"), doc["provenance"]
ops = [r["op"] for r in doc["rows"] if r["rank"] == 3]
assert ops == ["recv", "transit-recv", "transit-send"] * 2, ops
' || fail "plan --platform --json: transit ops: $out"
expect_ok plan -a topo-grow --platform "$tmp/p5.txt" -m 3M -s auto
case $out in "slice 1 MiB, chosen by --slice auto: seed 000's 1 MiB slice"*"blocks 3,"*) ;;
*) fail "plan --platform --slice auto: want 1 MiB slices: $out" ;; esac
expect_ok plan -a chain --platform "$tmp/p5.txt" -m 1200
expect_usage "binomial on the platform: rank 0 lane 0: no link to peer 4 in the platform" \
	plan -a binomial --platform "$tmp/p5.txt" -m 1200
expect_usage "topo-grow: the platform has 5 nodes x 1 lanes, not 6 ranks" \
	plan -a topo-grow --platform "$tmp/p5.txt" -p 6 -m 1200
# lp-*: the LP bound solved for them (TP* 1/2 here); its loads pick the optimal tree
for a in lp-grow lp-prune; do
	expect_ok plan -a $a --platform "$tmp/p5.txt" -m 1200 -s 600 --format dot
	case $out in *"// lp bound 0.5 slices/s"*"the tree 1.0000 of it"*) ;;
	*) fail "plan --platform $a: lp bound 0.5, ratio 1: $out" ;; esac
	for e in 'r0 -> r1' 'r0 -> r3' 'r1 -> r2' 'r3 -> r4'; do
		grep -q "$e " "$tmp/out" || fail "plan --platform $a: no edge $e: $out"
	done
done
printf 'nodes 3\nlink 0 1 bw 1MB/s\n' >"$tmp/cut.txt"
expect_usage "topo-prune-simple: node 2 cannot be reached from node 0 on lane 0" \
	plan -a topo-prune-simple --platform "$tmp/cut.txt" -m 1M
expect_usage "$tmp/nope.txt: cannot open" plan -a topo-grow --platform "$tmp/nope.txt" -m 1M

# --- sim --------------------------------------------------------------------
# strip_head FILE: the CSV starts with its provenance ('# format: ...' first,
# then '# key: value' lines, results/README.md), which is dropped in place
# so the checks below see the header and rows.
strip_head() {
	head -n 1 "$1" | grep -qx '# format: lanebench-csv 2' || fail "$1: no format line first: $(head -n 2 "$1")"
	awk 'body || !/^# [a-z][a-z0-9_.-]*: / { body = 1; print }' "$1" >"$1.body"
	grep '^# ' "$1" >"$1.head" || true
	mv "$1.body" "$1"
}
header="algorithm,ranks,lanes,root,stripe,message_bytes,slice_bytes,slices,alpha_seconds,lane_bandwidth_bytes_per_second,sim_seconds,table_seconds,refined_seconds,sim_over_table_ratio,sim_over_refined_ratio,sim_bandwidth_bytes_per_second,period_seconds,throughput_bytes_per_second,collective,platform,lp_bound_bytes_per_second,ratio_to_lp"
expect_ok sim -a all -p 8 -m 4K,1M
strip_head "$tmp/out"
[ "$(head -n 1 "$tmp/out")" = "$header" ] || fail "sim header: $(head -n 1 "$tmp/out")"
[ "$(wc -l <"$tmp/out")" -eq 13 ] || fail "sim -a all -p 8 -m 4K,1M: want header + 12 rows: $out"
# defaults: k=2, root 0, stripe on, slice auto, alpha 5us, bw 10gbit = 1.25e9 B/s
awk -F, 'NR > 1 && !($2 == 8 && $3 == 2 && $4 == 0 && $5 == "on" &&
	$9 == "5e-06" && $10 == "1.25e+09" && $19 == "bcast" && NF == 22) { exit 1 }' "$tmp/out" ||
	fail "sim: rows do not carry the defaults: $out"
grep -qx '# option.slice: auto' "$tmp/out.head" || fail "sim: the default slice is not auto: $(cat "$tmp/out.head")"
# auto: each row's slice is a candidate, a power of two from 1K below M, or M
awk -F, 'NR > 1 { s = $7; if (s == $6) next; if (s < 1024 || s >= $6) exit 1;
	while (s > 1) { if (s % 2) exit 1; s /= 2 } }' "$tmp/out" ||
	fail "sim: an auto slice is no candidate: $out"
cp "$tmp/out" "$tmp/default.csv"
# the collective column names what each schedule does, as bcast's does
expect_ok sim -a allgather-ring,chain -p 4 -m 64K
[ "$(csv_column "$tmp/out" collective | tr '\n' ' ')" = "allgather bcast " ] ||
	fail "sim: collective column of allgather-ring,chain: $out"
expect_ok sim -a all -p 8 -m 4K,1M -s auto
strip_head "$tmp/out"
cmp -s "$tmp/out" "$tmp/default.csv" || fail "sim: -s auto differs from the default: $out"
# a fixed slice overrides auto
expect_ok sim -a all -p 8 -m 4K,1M -s 64K
strip_head "$tmp/out"
grep -qx '# option.slice: 64K' "$tmp/out.head" || fail "sim -s 64K: option.slice: $(cat "$tmp/out.head")"
awk -F, 'NR > 1 && $7 != 65536 { exit 1 }' "$tmp/out" || fail "sim -s 64K: slice_bytes not 65536: $out"
awk -F, '$1 == "chain" && $6 == 4096 && $8 != 1 { exit 1 }
	 $1 == "chain" && $6 == 1048576 && $8 != 16 { exit 1 }' "$tmp/out" ||
	fail "sim: chain slices are not 1 (4K) and 16 (1M): $out"
# auto and fixed slices in one list: each a row
expect_ok sim -a chain -p 8 -m 64K -s auto,64K --alpha 50us --bw 1gbit
strip_head "$tmp/out"
[ "$(awk -F, 'NR > 1 { printf "%s ", $7 }' "$tmp/out")" = "8192 65536 " ] ||
	fail "sim -s auto,64K: chain 64K at 50us, 1gbit: want slices 8K (auto) and 64K: $out"
expect_usage "'12Q'" sim --slice auto,12Q
expect_usage "empty item" sim --slice auto,
# bandwidth = bytes / sim_seconds; ratios = sim / model
awk -F, 'NR > 1 { bw = $6 / $11; r = $11 / $12;
	if (($16 - bw) / bw > 1e-8 || (bw - $16) / bw > 1e-8) exit 1;
	if (($14 - r) / r > 1e-8 || (r - $14) / r > 1e-8) exit 1 }' "$tmp/out" ||
	fail "sim: bandwidth or ratio columns inconsistent: $out"

expect_ok sim -a chain,multilane -p 4:8 -m 8K:16K -s 4K,8K --alpha 50us --bw 1gbit
strip_head "$tmp/out"
[ "$(wc -l <"$tmp/out")" -eq 17 ] || fail "sim 2 algos x 2 p x 2 sizes x 2 slices: want 16 rows"
awk -F, 'NR > 1 && !($9 == "5e-05" && $10 == "125000000") { exit 1 }' "$tmp/out" ||
	fail "sim: --alpha 50us --bw 1gbit not in the rows"
[ "$(sed -n 2p "$tmp/out" | cut -d, -f1,2,6,7)" = "chain,4,8192,4096" ] ||
	fail "sim: sweep order (algorithm, ranks, size, slice): $(sed -n 2p "$tmp/out")"

# root rotation: all = every rank of each rank count, innermost; a list as given
expect_ok sim -a chain -p 3,2 -m 4K,8K -r all
strip_head "$tmp/out"
grep -qx '# option.root: all' "$tmp/out.head" || fail "sim -r all: the provenance lacks option.root: all"
got=$(awk -F, 'NR > 1 { printf "%s:%s:%s ", $2, $6, $4 }' "$tmp/out")
[ "$got" = "3:4096:0 3:4096:1 3:4096:2 3:8192:0 3:8192:1 3:8192:2 2:4096:0 2:4096:1 2:8192:0 2:8192:1 " ] ||
	fail "sim -r all: rows (ranks:bytes:root) $got"
expect_ok sim -a chain -p 4 -m 4K -r 2-3,0
strip_head "$tmp/out"
got=$(awk -F, 'NR > 1 { printf "%s ", $4 }' "$tmp/out")
[ "$got" = "2 3 0 " ] || fail "sim -r 2-3,0: roots $got"

expect_ok sim -p 8 -m 1M --sites 2 --wan-alpha 1ms
strip_head "$tmp/out"
[ "$(head -n 1 "$tmp/out")" = "$header,two_site_seconds,sim_over_two_site_ratio" ] ||
	fail "sim --sites 2: header: $(head -n 1 "$tmp/out")"

mkdir "$tmp/res"
expect_ok sim -a all -p 8 -m 4K,1M -s 64K -o "$tmp/res/sim.csv"
[ "$(ls "$tmp/res")" = "sim.csv" ] || fail "sim -o: files left: $(ls "$tmp/res")"
strip_head "$tmp/res/sim.csv"
[ "$(wc -l <"$tmp/res/sim.csv")" -eq 13 ] || fail "sim -o: want header + 12 rows in the file"
# the table: a header, 12 rows, a blank line, then the legend naming every
# heading (sizes in binary units, "-" the one empty marker)
[ "$(sed '/^$/q' "$tmp/out" | grep -c .)" -eq 13 ] || fail "sim -o: want a table of header + 12 rows on stdout: $out"
head -n 1 "$tmp/out" | grep -q '^algorithm  *p  *root  *size  *slice' || fail "sim -o: table header: $out"
grep -q '^multilane  *8  *0  *1 MiB  *64 KiB  *16 ' "$tmp/out" || fail "sim -o: table row: $out"
for h in $(head -n 1 "$tmp/out"); do
	sed '1,/^columns:$/d' "$tmp/out" | grep -q "^  $h " || fail "sim -o: the legend does not name '$h': $out"
done
grep -q "nan" "$tmp/out" && fail "sim -o: a 'nan' in the table: $out"

# --json: one document per run that parses and holds the CSV's provenance,
# columns and rows; '-' puts it on stdout and the table on stderr.
json_check=$(dirname "$0")/json_matches_csv.py
expect_ok sim -a chain,multilane -p 4,8 -m 4K,1M --sites 2 -o "$tmp/res/j.csv" --json "$tmp/res/j.json"
python3 "$json_check" "$tmp/res/j.csv" "$tmp/res/j.json" || fail "sim --json: differs from the CSV"
grep -q '^# command: lanebench sim -a chain,multilane -p 4,8 -m 4K,1M --sites 2 -o ' "$tmp/res/j.csv" ||
	fail "sim: no command line in the head: $(head -n 5 "$tmp/res/j.csv")"
for o in $("$B" sim --help | sed -nE 's/^  (-., )?--([a-z-]+).*/\2/p' | grep -vx help); do
	grep -q "^# option\.$o: " "$tmp/res/j.csv" || fail "sim: option --$o missing from the head"
done
expect_ok sim -a chain -p 4 -m 4K,8K --json - -o "$tmp/res/j2.csv"
printf '%s\n' "$out" >"$tmp/res/j2.json"
python3 "$json_check" "$tmp/res/j2.csv" "$tmp/res/j2.json" || fail "sim --json -: stdout is not the document: $out"
case $err in *"algorithm"*"slice"*) ;; *) fail "sim --json -: no table on stderr: $err" ;; esac
expect_usage "both want stdout" sim -p 4 -m 4K --json - -o -
rm -f "$tmp/res/j.csv" "$tmp/res/j.json" "$tmp/res/j2.csv" "$tmp/res/j2.json"

# A sweep that cannot fit in memory is refused before anything is
# allocated or written, with its own status (3), naming the configuration.
expect_status 4 "vandegeijn with 1048576 ranks" sim -a chain,vandegeijn -p 8,1048576 -m 4K,1G -s 64K \
	-o "$tmp/res/big.csv"
case $err in *"memory"*"available"*) ;; *) fail "sim too big: no memory figures: $err" ;; esac
[ ! -e "$tmp/res/big.csv" ] && [ -z "$out" ] || fail "sim too big: wrote output: $out"
# A configuration no builder accepts is a usage error, found before output.
expect_usage "more than 16777216 slices" sim -a chain -p 4 -m 4K,1T --slice 1
[ -z "$out" ] || fail "sim with an unbuildable configuration printed: $out"

# --- sim stopped early: the rows it finished, a valid file, nothing else ------
# A sweep far too long to finish before it is stopped (about a minute).
long_sweep=(sim -a all -p 2:4096 -m 4K:64M)
# The first rows of the same sweep, run to the end, to compare the kept
# ones with (90 rows: a stopped run may have written more than it showed).
"$B" sim -a chain -p 2:64 -m 4K:64M >"$tmp/ref.csv" 2>&1 || fail "reference sim failed"
strip_head "$tmp/ref.csv"
trailer_re='^# lanebench: incomplete after '

# check_partial FILE WHY: head, header, then rows equal to the reference's
# first rows, then exactly one trailer naming WHY; no temporary file beside it.
check_partial() {
	local f=$1 why=$2 rows same
	strip_head "$f"
	rows=$(grep -c -v '^#' "$f")
	same=$(wc -l <"$tmp/ref.csv")
	[ "$rows" -lt "$same" ] && same=$rows
	[ "$rows" -ge 3 ] || fail "$why: $f has $((rows - 1)) rows, want at least 2: $(cat "$f")"
	cmp -s <(grep -v '^#' "$f" | head -n "$same") <(head -n "$same" "$tmp/ref.csv") ||
		fail "$why: the kept rows differ from a complete run's: $(grep -v '^#' "$f" | tail -2)"
	[ "$(grep -c '^#' "$f")" = 1 ] && tail -n 1 "$f" | grep -Eq "$trailer_re$((rows - 1)) rows: .*$why" ||
		fail "$why: no trailer naming $((rows - 1)) rows and $why: $(tail -n 1 "$f")"
	[ -z "$(ls "$(dirname "$f")" | grep '\.tmp\.')" ] ||
		fail "$why: temporary files left: $(ls "$(dirname "$f")")"
}

mkdir "$tmp/pipe"
(cd "$tmp/pipe" && "$B" "${long_sweep[@]}" -o f.csv 2>"$tmp/pipe.err" | head -3 >"$tmp/head.out"
	echo "${PIPESTATUS[0]}" >"$tmp/pipe.rc")
[ "$(cat "$tmp/pipe.rc")" = 141 ] || fail "sim -o f.csv | head -3: exit $(cat "$tmp/pipe.rc"), want 141 (SIGPIPE): $(cat "$tmp/pipe.err")"
[ "$(wc -l <"$tmp/head.out")" = 3 ] || fail "sim | head -3: head printed $(wc -l <"$tmp/head.out") lines"
[ -s "$tmp/pipe.err" ] && fail "sim | head -3: stderr: $(cat "$tmp/pipe.err")"
check_partial "$tmp/pipe/f.csv" "stdout closed .SIGPIPE."

# The CSV itself on stdout: stops quietly, as any producer in a pipe.
"$B" "${long_sweep[@]}" 2>"$tmp/pipe.err" | head -2 >/dev/null
[ "${PIPESTATUS[0]}" = 141 ] && [ ! -s "$tmp/pipe.err" ] ||
	fail "sim | head -2: exit ${PIPESTATUS[0]}, stderr: $(cat "$tmp/pipe.err")"

# SIGINT and SIGTERM mid-sweep.  Synchronised on the table's rows (read
# through a FIFO): once 4 are out, their CSV rows are on disk.  Job
# control gives the background job SIGINT's default action back.
set -m
mkfifo "$tmp/table"
for sig in INT TERM; do
	mkdir "$tmp/sig$sig"
	(cd "$tmp/sig$sig" && exec "$B" "${long_sweep[@]}" -o f.csv >"$tmp/table" 2>"$tmp/sig.err") &
	pid=$!
	exec {table}<"$tmp/table"
	for _ in 1 2 3 4 5; do read -r -t 30 -u "$table" _ || break; done
	kill -s "$sig" "$pid"
	timeout 30 cat <&"$table" >/dev/null # until it exits (a bounded drain)
	exec {table}<&-
	rc=0
	wait "$pid" || rc=$?
	want=$((128 + $(kill -l "$sig")))
	[ "$rc" = "$want" ] || fail "sim -o f.csv, SIG$sig: exit $rc, want $want: $(cat "$tmp/sig.err")"
	check_partial "$tmp/sig$sig/f.csv" ".SIG$sig."
done
set +m

run sim -p 4 -m 4K -o "$tmp/missing/sim.csv"
[ "$rc" -ne 0 ] || fail "sim -o into a missing directory succeeded"
case $err in *"$tmp/missing/sim.csv"*) ;; *) fail "sim -o: error lacks the path: $err" ;; esac

finish cli_test
