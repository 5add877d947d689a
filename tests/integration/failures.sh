#!/usr/bin/env bash
# Failures and bad input must end in a clear error, never a number or a hang:
# unknown algorithm, bad size, missing or unreachable coordinator, a stranger
# with the wrong job token, and (in the emulated cluster, as root) a rank
# killed in the middle of a broadcast.
#   failures.sh LANEBENCH CLUSTER_SCRIPT
set -uo pipefail
lanebench=$1 cluster=$2
fails=0
tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
	[ -n "${name:-}" ] && "$cluster" down --name "$name" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT

expect_fail() { # description, expected text, command...
	local what=$1 want=$2
	shift 2
	local out rc
	out=$(timeout 60 "$@" 2>&1)
	rc=$?
	if [ "$rc" != 0 ] && [ "$rc" != 124 ] && grep -qF -- "$want" <<<"$out"; then
		echo "ok: $what -> $(grep -F -- "$want" <<<"$out" | head -1)"
	else
		echo "FAIL: $what (exit $rc, want '$want'):"
		echo "$out" | tail -5
		fails=$((fails + 1))
	fi
}

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

expect_fail "unknown algorithm" "'nope'" "$lanebench" bcast -a nope
expect_fail "bad size" "'12Q'" "$lanebench" bcast -m 12Q
expect_fail "bad idle policy" "'busy'" "$lanebench" bcast --idle busy
expect_fail "missing coordinator" "LANEBENCH_COORD" \
	env -u LANEBENCH_COORD LANEBENCH_RANK=1 LANEBENCH_SIZE=2 LANEBENCH_TOKEN=t \
	"$lanebench" bcast --lanes 127.0.0.1 --timeout 2
expect_fail "unreachable coordinator" "127.0.0.1:1" \
	env LANEBENCH_RANK=1 LANEBENCH_SIZE=2 LANEBENCH_TOKEN=t LANEBENCH_COORD=127.0.0.1:1 \
	LANEBENCH_TIMEOUT=2 "$lanebench" bcast --lanes 127.0.0.1 --timeout 2
expect_fail "unknown transport" "'carrier-pigeon'" \
	env LANEBENCH_RANK=0 LANEBENCH_SIZE=1 LANEBENCH_TOKEN=t LANEBENCH_COORD=127.0.0.1:$(free_port) \
	"$lanebench" bcast --lanes 127.0.0.1 --no-pin -t carrier-pigeon
expect_fail "option of another transport" "--eal does not apply to the tcp transport" \
	env LANEBENCH_RANK=0 LANEBENCH_SIZE=1 LANEBENCH_TOKEN=t LANEBENCH_COORD=127.0.0.1:$(free_port) \
	"$lanebench" bcast --lanes 127.0.0.1 --no-pin --eal "--no-huge"
expect_fail "rank beyond size" "LANEBENCH_RANK" \
	env LANEBENCH_RANK=5 LANEBENCH_SIZE=2 LANEBENCH_TOKEN=t LANEBENCH_COORD=127.0.0.1:1 \
	"$lanebench" bcast --lanes 127.0.0.1

# A stranger presenting the wrong token is refused; the real job completes.
port=$(free_port)
job() { # rank token
	env LANEBENCH_RANK=$1 LANEBENCH_SIZE=2 LANEBENCH_TOKEN=$2 LANEBENCH_COORD=127.0.0.1:$port \
		LANEBENCH_TIMEOUT=20 "$lanebench" bcast --lanes 127.0.0.1,127.0.0.1 --no-pin \
		-a chain -m 64K -i 2 -x 0 --no-calibration -o "$tmp/tok.csv"
}
job 0 right >"$tmp/r0.log" 2>&1 &
pids+=($!)
sleep 0.5
env LANEBENCH_RANK=1 LANEBENCH_SIZE=2 LANEBENCH_TOKEN=wrong LANEBENCH_COORD=127.0.0.1:$port \
	LANEBENCH_TIMEOUT=3 "$lanebench" bcast --lanes 127.0.0.1 --timeout 3 >"$tmp/stranger.log" 2>&1
stranger=$?
job 1 right >"$tmp/r1.log" 2>&1
r1=$?
wait "${pids[0]}"
r0=$?
if [ "$stranger" != 0 ] && [ "$r0" = 0 ] && [ "$r1" = 0 ] && grep -q "wrong job token" "$tmp/r0.log"; then
	echo "ok: wrong job token refused, the job still ran"
else
	echo "FAIL: token (stranger $stranger, rank0 $r0, rank1 $r1)"
	tail -3 "$tmp/r0.log" "$tmp/stranger.log" "$tmp/r1.log"
	fails=$((fails + 1))
fi

# A rank killed mid-broadcast: every other rank exits non-zero, naming it.
if [ "$(id -u)" = 0 ] && ip netns add lbfprobe 2>/dev/null; then
	ip netns del lbfprobe
	name=lbf$$
	name=${name:0:6}
	"$cluster" up 4 --rails 2 --rate 100mbit --name "$name" >/dev/null
	"$cluster" run --name "$name" --timeout 120 --log-dir "$tmp/logs" -- \
		"$lanebench" bcast --no-pin --timeout 20 -a chain -m 16M -s 256K -i 50 -x 0 \
		--no-calibration -o "$tmp/killed.csv" >"$tmp/run.log" 2>&1 &
	runner=$!
	sleep 4
	ip netns pids "$name-h2" | xargs -r kill -9
	start=$SECONDS
	wait "$runner"
	rc=$?
	named=$(grep -l "rank 2" "$tmp"/logs/* 2>/dev/null | wc -l)
	# The CSV keeps the rows finished before (none here: the first
	# configuration takes longer than the kill), marked incomplete.
	csv_ok=1
	[ -e "$tmp/killed.csv" ] && ! tail -n 1 "$tmp/killed.csv" | grep -q '^# lanebench: incomplete' && csv_ok=0
	ls "$tmp" | grep -q '\.tmp\.' && csv_ok=0
	if [ "$rc" != 0 ] && [ "$named" -ge 2 ] && [ $((SECONDS - start)) -lt 60 ] && [ "$csv_ok" = 1 ]; then
		echo "ok: killed rank 2 -> run failed in $((SECONDS - start)) s, $named logs name it, no complete-looking CSV"
		grep -h "rank 2" "$tmp"/logs/* | head -3
	else
		echo "FAIL: killed rank (run exit $rc, $named logs name rank 2, $((SECONDS - start)) s, CSV ok $csv_ok)"
		tail -5 "$tmp/run.log"
		fails=$((fails + 1))
	fi
else
	echo "skip: killed-rank case needs root and network namespaces"
fi
echo "failures: $fails failure(s)"
[ "$fails" = 0 ]
