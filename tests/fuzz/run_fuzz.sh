#!/bin/sh
# Runs a libFuzzer binary with a bounded number of executions, in a
# scratch directory (crash files land there and are shown on failure),
# starting from the target's seed files when it has some.
#   run_fuzz.sh FUZZER RUNS MAX_LEN [SEEDS_DIR]
fuzzer=$(realpath "$1") runs=$2 max_len=$3 seeds=${4:+$(realpath "$4")}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# dash (sh) runs the EXIT trap on a signal only when that signal is
# trapped, unlike bash (meson sends TERM on a timeout).
trap 'exit 130' INT
trap 'exit 143' TERM
cd "$dir" || exit 1
mkdir corpus
# shellcheck disable=SC2086 # no seeds: no second directory
"$fuzzer" -runs="$runs" -seed=1 -max_len="$max_len" corpus $seeds 2>log
rc=$?
tail -3 log
[ "$rc" = 0 ] || { grep -A20 ERROR log; ls; }
exit "$rc"
