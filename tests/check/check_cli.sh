#!/usr/bin/env bash
# lanebench check's command line: bad input is refused with exit 2 and a
# message naming the option; --help explains every option, the phases, the
# verdict rules and the exit statuses; outside a job it refuses to run.
#   check_cli.sh path/to/lanebench
set -u
B=${1:?usage: check_cli.sh path/to/lanebench}
unset LANEBENCH_RANK LANEBENCH_SIZE SLURM_PROCID SLURM_NTASKS OMPI_COMM_WORLD_RANK \
	OMPI_COMM_WORLD_SIZE PMI_RANK PMI_SIZE LANEBENCH_NICS LANEBENCH_LANES
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

usage_error() { # needle, args...: exit 2 and the needle on stderr
	local needle=$1
	shift
	"$B" check "$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	if [ "$rc" != 2 ]; then
		fail "check $*: exit $rc, want 2"
	elif ! grep -qF -- "$needle" "$tmp/err"; then
		fail "check $*: stderr does not name '$needle': $(cat "$tmp/err")"
	else
		echo "ok: check $* -> 2, names $needle"
	fi
}

usage_error "--min-bw" --min-bw 0
usage_error "--min-bw" --min-bw 101%
usage_error "--min-bw" --min-bw ninety
usage_error "--max-model-ratio" --max-model-ratio 0.5
usage_error "--max-lat" --max-lat soon
usage_error "--lane-rate" --lane-rate fast
usage_error "-w/--window" --window 0
usage_error "-i/--iterations" -i 0
usage_error "--timeout" --timeout 0
usage_error "-a/--algorithm" -a nosuch
usage_error "-m/--message-size" -m 1Q
usage_error "unknown option" --no-such-option
usage_error "not started as a rank of a job" # outside a job
LANEBENCH_RANK=0 LANEBENCH_SIZE=1 usage_error "needs a job of at least 2 ranks"

"$B" check --help >"$tmp/help" 2>&1 || fail "check --help: exit $?"
for word in --nics --transport --tp-opt --idle --lane-rate --min-bw --max-lat \
	--max-model-ratio --algorithm --message-size --bw-size --window --iterations \
	--lat-iterations --timeout --output --json "Phase 1" "Phase 2" "Phase 3" "median" \
	"Exit status" "check: PASS" "check: FAIL"; do
	grep -qF -- "$word" "$tmp/help" || fail "check --help does not mention '$word'"
done
"$B" --help | grep -q "^  check " || fail "lanebench --help does not list check"
[ "$fails" = 0 ] && echo "check-cli: all passed"
[ "$fails" = 0 ]
