#!/usr/bin/env bash
# The DPDK transport over net_memif, without namespaces: 4 ranks x 2 rails
# as plain processes on this host, rendezvous at 127.0.0.1, every algorithm
# (seed 004's gathers on a platform too), bytes verified by lanebench.  memif links are point to point, so each
# rank has one port per (peer, rail): vdev net_memif_l<rail>_p<peer>, the
# lower rank of a pair is the server of the pair's socket
# ($tmp/r<rail>-<lo>-<hi>.sock), the higher its client.  Lane names must be
# interfaces the topology knows; memif lanes have none, so both are "lo"
# (labels only: the ports come from --tp-opt eal=...).
set -uo pipefail
usage="usage: dpdk_memif_test.sh path/to/tests/lib.sh LANEBENCH"
source "${1:?$usage}"
shift
use_lanebench "${1:?$usage}"
if [ "$(id -u)" != 0 ]; then
	echo "SKIP: needs root (EAL runtime directory, memif sockets)"
	exit 77
fi
n=4
ranks=() # a job's ranks: TERM, not test_pids' KILL, so that timeout passes it on
stop_ranks() {
	local p
	for p in "${ranks[@]}"; do kill "$p" 2>/dev/null; done
	return 0
}
at_exit stop_ranks

eal_of() { # rank: the EAL arguments of that rank
	local i=$1 eal="--no-huge -m 128 --no-pci -l $(($1 % 2))"
	for r in 0 1; do
		for j in $(seq 0 $((n - 1))); do
			[ "$j" = "$i" ] && continue
			local lo=$((i < j ? i : j)) hi=$((i < j ? j : i)) role=client
			[ "$i" = "$lo" ] && role=server
			eal+=" --vdev net_memif_l${r}_p${j},role=$role,id=0,socket=$tmp/r$r-$lo-$hi.sock,socket-abstract=no"
		done
	done
	echo "$eal"
}

# (free_port, not a random port: one once collided with a connection's
# local port -- ephemeral ports start at 32768 -- and rank 0 could not
# listen: "Address already in use".)

# silence=10: 4 ranks niced beside other work on 2 cores (load 20-30) were
# seen off the CPU longer than the default 3 s, and lost as "stopped
# answering"; a rank that really dies still fails the job long before the
# 30 s --timeout.
memif_job() { # description, lanebench bcast options: all ranks, bounded in time
	local what=$1 port rc=0
	port=$(free_port)
	shift
	ranks=()
	for i in $(seq 0 $((n - 1))); do
		LANEBENCH_RANK=$i LANEBENCH_SIZE=$n LANEBENCH_COORD=127.0.0.1:$port \
			LANEBENCH_TOKEN=memif-$$-$port timeout 120 "$B" bcast \
			--transport dpdk --no-pin --timeout 30 --nics lo,lo \
			--tp-opt "eal=$(eal_of "$i")" --tp-opt silence=10 "$@" >"$tmp/out$i" 2>&1 &
		ranks+=($!)
	done
	for p in "${ranks[@]}"; do wait "$p" || rc=1; done
	ranks=()
	if [ "$rc" = 0 ]; then
		ok "$what"
	else
		fail "$what"
		for i in $(seq 0 $((n - 1))); do sed "s/^/[rank $i] /" "$tmp/out$i" | tail -8; done
	fi
	rm -f "$tmp"/*.sock
}

memif_job "4 ranks x 2 rails over memif: every algorithm, 3 sizes" \
	-a all -m 4K,100000,2M -s 64K -i 3 -x 1 -o "$tmp/memif.csv"
rows=$(($(grep -vc '^#' "$tmp/memif.csv" 2>/dev/null || echo 1) - 1))
[ "$rows" = 18 ] && ok "18 CSV rows" || fail "$rows CSV rows, want 18"
memif_job "memif with 1% drop and duplication: byte-exact" \
	-a multilane,vandegeijn -m 1M -s 64K -i 2 -x 0 --tp-opt inject=drop=0.01,dup=0.01 -o "$tmp/loss.csv"

# Seed 004's collectives: gathers (each rank's share to the root, unequal
# with --balance speed) and HBSP broadcasts, barriers as zero-byte frames.
printf '%s\n' 'nodes 4' 'lanes 2' 'default bw 1gbit' 'node 1 rate 500mbit' 'node 3 rate 250mbit' \
	'site 0 ranks 0-1' 'site 1 ranks 2-3' 'barrier all 50us' >"$tmp/sites.platform"
memif_job "memif: seed 004's gathers and broadcasts, bytes verified" \
	-a hbsp1-gather,hbsp2-gather,hbsp1-bcast,hbsp1-bcast-1phase,hbsp2-bcast \
	--platform "$tmp/sites.platform" --balance speed -m 100000 -i 2 -x 1 -o "$tmp/hbsp.csv"
gathers=$(grep -c ',hbsp[12]-gather,.*,gather,' "$tmp/hbsp.csv" 2>/dev/null)
[ "$gathers" = 2 ] && ok "2 gather rows" || fail "$gathers gather rows, want 2"

# Seed 002's coordinator orders between the same two sites, each composed
# with the default inside every site (verified_bytes = the 3 ranks other
# than the root x m x 3 iterations).
memif_job "memif: seed 002's coordinator orders between sites, bytes verified" \
	-a flat,ecef,ecef-la,bottomup,mostcrit --platform "$tmp/sites.platform" \
	-m 100000 -i 2 -x 1 -o "$tmp/coord.csv"
coords=$(grep -c ',bcast,.*,900000,' "$tmp/coord.csv" 2>/dev/null)
[ "$coords" = 5 ] && ok "5 coordinator rows, every byte verified" ||
	fail "$coords coordinator rows with 900000 verified bytes, want 5"

# The allgather collective: every rank's -m to every rank, each byte
# verified at every rank (verified_bytes = 4 x 4 x m x 3 iterations).
memif_job "memif: allgather ring, doubling and simultaneous, bytes verified" \
	-a allgather-ring,allgather-doubling,allgather-simultaneous -m 100000 -s 64K -i 2 -x 1 \
	-o "$tmp/allgather.csv"
allgathers=$(grep -c ',allgather,,4800000,' "$tmp/allgather.csv" 2>/dev/null)
[ "$allgathers" = 3 ] && ok "3 allgather rows, every byte verified" ||
	fail "$allgathers allgather rows with 4800000 verified bytes, want 3"

# Seed 001's cluster-agent allgathers on a fast/slow platform: two agents
# (nodes 0 and 1) with a client each, every byte verified at every rank
# (verified_bytes = 4 x 4 x m x 3 iterations).
printf '%s\n' 'nodes 4' 'lanes 2' 'default lat 350us bw 100mbit' \
	'node 0 send 90us recv 70us' 'node 1 send 90us recv 70us' \
	'node 2 send 160us recv 130us' 'node 3 send 160us recv 130us' >"$tmp/wu4.platform"
memif_job "memif: cluster-agent-gb and -ts, 2 agents, bytes verified" \
	-a cluster-agent-gb,cluster-agent-ts --agents 2 --platform "$tmp/wu4.platform" \
	-m 100000 -i 2 -x 1 -o "$tmp/agent.csv"
agents=$(grep -c ',allgather,,4800000,' "$tmp/agent.csv" 2>/dev/null)
[ "$agents" = 2 ] && ok "2 cluster-agent rows, every byte verified" ||
	fail "$agents cluster-agent rows with 4800000 verified bytes, want 2"

fails_with() { # expected message, EAL arguments: one rank must fail saying so
	local want=$1 out # (a 1-rank job on purpose: outside a job bcast refuses earlier)
	out=$(LANEBENCH_RANK=0 LANEBENCH_SIZE=1 "$B" bcast --transport dpdk --no-pin --timeout 10 --nics lo -a chain -m 4K \
		-i 1 -x 0 --no-calibration --tp-opt "eal=$2" 2>&1)
	if [ $? != 0 ] && echo "$out" | grep -qF "$want"; then
		ok "refused: $want"
	else
		fail "expected an error with '$want', got:"
		echo "$out" | tail -5
	fi
}
fails_with "EAL initialisation failed" "--no-huge -m 128 --no-pci --no-such-eal-option"
fails_with "lane 0 ('lo') has no port" "--no-huge -m 128 --no-pci"
out=$(LANEBENCH_RANK=0 LANEBENCH_SIZE=1 "$B" bcast --transport dpdk --no-pin --nics lo -a chain -m 4K \
	-i 1 -x 0 --no-calibration --tp-opt silence=0.1 2>&1)
[ $? != 0 ] && echo "$out" | grep -qF "silence: '0.1' is not a number of seconds" &&
	ok "refused: silence=0.1" || fail "silence=0.1 accepted or not named: $(echo "$out" | tail -2)"
fails_with "names lane 3 but there are 1 lanes" \
	"--no-huge -m 128 --no-pci --vdev net_memif_l3,role=server,id=0,socket=$tmp/x.sock,socket-abstract=no"

finish dpdk-memif
