#!/usr/bin/env bash
# Seed 004's collectives on a job of plain processes at 127.0.0.1 (TCP,
# 2 loopback lanes, no root): 4 ranks on a two-site platform with unequal
# node rates run every hbsp* algorithm through bcast (--balance speed, so
# the blocks are unequal; barriers as zero-byte messages), every byte
# verified where it must arrive.  The rows say gather or bcast, carry the
# HBSP cost, and verified_bytes counts the gather's root alone.  Ranks
# wait for each other in the bootstrap, never on sleeps.
#   gather_test.sh LANEBENCH
set -uo pipefail
lanebench=$(realpath "${1:?usage: gather_test.sh path/to/lanebench}")
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

cat >"$tmp/sites.platform" <<'PLATFORM'
nodes 4
lanes 2
default bw 1gbit
node 1 rate 500mbit
node 3 rate 250mbit
site 0 ranks 0-1
site 1 ranks 2-3
barrier site 0 20us
barrier site 1 20us
barrier all 50us
PLATFORM

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

rank() { # RANK PORT ARGS...
	local r=$1 port=$2
	shift 2
	env -u LANEBENCH_TIMEOUT -u LANEBENCH_NICS -u LANEBENCH_LANES LANEBENCH_RANK="$r" LANEBENCH_SIZE=4 \
		LANEBENCH_TOKEN="gather$$-$port" LANEBENCH_COORD="127.0.0.1:$port" "$lanebench" bcast \
		--nics 127.0.0.1,127.0.0.1 --no-pin --timeout 30 "$@"
}

port=$(free_port) rc=0
for r in 1 2 3; do
	rank "$r" "$port" -a hbsp1-gather,hbsp2-gather,hbsp1-bcast,hbsp1-bcast-1phase,hbsp2-bcast \
		--platform "$tmp/sites.platform" --balance speed -m 100000,1M -i 3 -x 1 \
		>/dev/null 2>"$tmp/err$r" &
	pids+=($!)
done
rank 0 "$port" -a hbsp1-gather,hbsp2-gather,hbsp1-bcast,hbsp1-bcast-1phase,hbsp2-bcast \
	--platform "$tmp/sites.platform" --balance speed -m 100000,1M -i 3 -x 1 \
	-o "$tmp/g.csv" >/dev/null 2>"$tmp/err0" || rc=$?
for p in "${pids[@]}"; do wait "$p" || { [ "$rc" != 0 ] || rc=$?; }; done
pids=()
[ "$rc" = 0 ] || fail "4 ranks, every hbsp algorithm: exit $rc: $(tail -n 3 "$tmp"/err*)"

# name,collective,bytes,verified,hbsp of each row, by the header's names
grep -v '^#' "$tmp/g.csv" 2>/dev/null | awk -F, '
	NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ print $c["algorithm"], $c["collective"], $c["message_bytes"], $c["verified_bytes"],
		$c["hbsp_seconds"] }' >"$tmp/rows"
[ "$(wc -l <"$tmp/rows")" = 10 ] || fail "want 10 rows: $(cat "$tmp/rows")"
while read -r algo coll bytes verified hbsp; do
	case $algo in *gather) want=gather per=1 ;; *) want=bcast per=3 ;; esac
	[ "$coll" = "$want" ] || fail "$algo: collective '$coll', want $want"
	[ "$verified" = $((bytes * per * 4)) ] || fail "$algo $bytes: verified $verified, want $((bytes * per * 4))"
	awk -v h="$hbsp" 'BEGIN { exit !(h > 0) }' || fail "$algo: hbsp_seconds '$hbsp'"
done <"$tmp/rows"

[ "$fails" = 0 ] && echo "gather: all checks passed"
exit $((fails > 0))
