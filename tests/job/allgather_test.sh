#!/usr/bin/env bash
# The allgather collective over TCP on a job of plain processes at
# 127.0.0.1 (2 loopback lanes): 4 ranks run allgather-ring, -doubling and
# -simultaneous through bcast's engine, every rank checking every byte of
# all 4 contributions.  The rows say allgather, message_bytes is -m (each
# rank's contribution) and verified_bytes counts p x m at each of the p
# ranks per iteration.  Ranks wait for each other in the bootstrap, never
# on sleeps.
#   allgather_test.sh LANEBENCH
set -uo pipefail
lanebench=$(realpath "${1:?usage: allgather_test.sh path/to/lanebench}")
tmp=$(mktemp -d)
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

rank() { # RANK PORT ARGS...
	local r=$1 port=$2
	shift 2
	env -u LANEBENCH_TIMEOUT -u LANEBENCH_NICS -u LANEBENCH_LANES LANEBENCH_RANK="$r" LANEBENCH_SIZE=4 \
		LANEBENCH_TOKEN="allgather$$-$port" LANEBENCH_COORD="127.0.0.1:$port" "$lanebench" bcast \
		--nics 127.0.0.1,127.0.0.1 --no-pin --timeout 30 "$@"
}

algos=allgather-ring,allgather-doubling,allgather-simultaneous
port=$(free_port) rc=0
for r in 1 2 3; do
	rank "$r" "$port" -a "$algos" -m 100000,1M -s 64K -i 3 -x 1 >/dev/null 2>"$tmp/err$r" &
	pids+=($!)
done
rank 0 "$port" -a "$algos" -m 100000,1M -s 64K -i 3 -x 1 -o "$tmp/a.csv" >/dev/null 2>"$tmp/err0" || rc=$?
for p in "${pids[@]}"; do wait "$p" || { [ "$rc" != 0 ] || rc=$?; }; done
pids=()
[ "$rc" = 0 ] || fail "4 ranks, every allgather: exit $rc: $(tail -n 3 "$tmp"/err*)"

# name,collective,bytes,verified of each row, by the header's names
grep -v '^#' "$tmp/a.csv" 2>/dev/null | awk -F, '
	NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ print $c["algorithm"], $c["collective"], $c["message_bytes"], $c["verified_bytes"] }' >"$tmp/rows"
[ "$(wc -l <"$tmp/rows")" = 6 ] || fail "want 6 rows: $(cat "$tmp/rows")"
while read -r algo coll bytes verified; do
	[ "$coll" = allgather ] || fail "$algo: collective '$coll', want allgather"
	[ "$verified" = $((bytes * 4 * 4 * 4)) ] ||
		fail "$algo $bytes: verified $verified, want 4 ranks x 4 x $bytes x 4 iterations"
done <"$tmp/rows"

# On a platform (a slow node's NIC capped) bcast predicts the allgathers
# with the fluid model (docs/benchmarks/bench-allgather.md): each row's sim_seconds is
# `sim --model fluid`'s on the same platform and slice, within 0.1 %, and
# at least the slow node's receive bound (p - 1) m / (k x its rate).
printf '%s\n' 'nodes 4' 'lanes 2' 'default bw 1gbit' 'node 3 rate 100mbit' >"$tmp/slow.platform"
port=$(free_port) rc=0
for r in 1 2 3; do
	rank "$r" "$port" -a "$algos" --platform "$tmp/slow.platform" -m 1M -s 64K -i 1 -x 0 \
		>/dev/null 2>"$tmp/perr$r" &
	pids+=($!)
done
rank 0 "$port" -a "$algos" --platform "$tmp/slow.platform" -m 1M -s 64K -i 1 -x 0 \
	-o "$tmp/p.csv" >/dev/null 2>"$tmp/perr0" || rc=$?
for p in "${pids[@]}"; do wait "$p" || { [ "$rc" != 0 ] || rc=$?; }; done
pids=()
[ "$rc" = 0 ] || fail "4 ranks on a platform: exit $rc: $(tail -n 3 "$tmp"/perr*)"
"$lanebench" sim -a "$algos" --platform "$tmp/slow.platform" --model fluid -m 1M -s 64K \
	-o "$tmp/fluid.csv" >/dev/null 2>"$tmp/simerr" || fail "sim --model fluid: $(cat "$tmp/simerr")"
column() { # CSV NAME: algorithm and NAME of each row
	grep -v '^#' "$1" | awk -F, -v n="$2" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ print $c["algorithm"], $c[n] }'
}
bound=$(awk 'BEGIN { print 3 * 1048576 / (2 * 100e6 / 8) }')
checked=0
while read -r algo sim; do
	fluid=$(column "$tmp/fluid.csv" sim_seconds | awk -v a="$algo" '$1 == a { print $2 }')
	if awk -v s="$sim" -v f="$fluid" -v b="$bound" \
		'BEGIN { exit !(f > 0 && s >= b && (s - f < 1e-3 * f) && (f - s < 1e-3 * f)) }'; then
		checked=$((checked + 1))
	else
		fail "$algo on the platform: sim_seconds '$sim', want sim --model fluid's '$fluid' (>= $bound s)"
	fi
done < <(column "$tmp/p.csv" sim_seconds)
[ "$checked" = 3 ] || fail "$checked allgather rows on the platform match the fluid model, want 3"

[ "$fails" = 0 ] && echo "allgather: all checks passed"
exit $((fails > 0))
