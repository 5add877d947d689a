#!/usr/bin/env bash
# lanebench tune and bcast -a auto on jobs of plain processes at 127.0.0.1
# (two loopback lanes, no root).  tune on 3 ranks over TCP at two tiny
# sizes completes and writes a table that parses back (bcast reads it),
# with its provenance and this job's key.  bcast -a auto with a table
# crafted for this job runs its entries (the CSV's algorithm, slice and
# auto_source=table); with a table for 4 ranks it runs the model's pick and
# says why (auto_source=model, "another job"); without one, the model's.
# A crafted broken table and --tuning without -a auto are refused before
# any job starts (exit 2, the file's line named).
set -uo pipefail
usage="usage: tune_test.sh path/to/tests/lib.sh path/to/lanebench"
# shellcheck source=SCRIPTDIR/../lib.sh
source "${1:?$usage}"
shift
use_lanebench "${1:?$usage}"
nics=127.0.0.1,127.0.0.1
job=(-d "$nics" --no-pin --timeout 30s)

# --- tune: 3 ranks, two sizes ----------------------------------------------------
table=$tmp/tuning.txt
if local_job tune 3 tune "${job[@]}" -m 8,16K --top 2 -i 2 -x 1 -o "$table"; then
	ok "tune on 3 ranks: exit 0"
else
	fail "tune on 3 ranks ($statuses): $(tail -n 3 "$tmp/tune.err")"
fi
if [ "$(head -n 1 "$table" 2>/dev/null)" = "lanebench-tuning 1" ] &&
	grep -q '^# version: ' "$table" && grep -q '^# time_utc: ' "$table" &&
	grep -q '^key transport=tcp ranks=3 lanes=2 ' "$table" &&
	[ "$(grep -c '^pick ' "$table")" = 2 ]; then
	ok "the table: magic, provenance, this job's key, a pick per size"
else
	fail "the table: $(cat "$table" 2>/dev/null | grep -v '^# option')"
fi

# --- bcast -a auto: the table's entries ----------------------------------------------
key=$(grep '^key ' "$table")
crafted=$tmp/crafted.txt
printf 'lanebench-tuning 1\n%s\npick 8 chain 8 0.001\npick 65536 binary 4096 0.001\n' "$key" >"$crafted"
if local_job auto 3 bcast "${job[@]}" -a auto -m 8,64K -i 2 -x 1 --tuning "$crafted" -o "$tmp/auto.csv" &&
	csv_awk '$c["auto_source"] == "table" { n++
		if (!($c["message_bytes"] == 8 && $c["algorithm"] == "chain" && $c["slice_bytes"] == 8 ||
		      $c["message_bytes"] == 65536 && $c["algorithm"] == "binary" && $c["slice_bytes"] == 4096)) bad++ }
		END { exit !(n == 2 && !bad) }' "$tmp/auto.csv"; then
	ok "-a auto with a matching table: its entries (chain 8, binary 64K slice 4K), auto_source table"
else
	fail "-a auto with the table: $(tail -n 2 "$tmp/auto.err"; cat "$tmp/auto.csv" 2>/dev/null | tail -n 2)"
fi

# --- a table for another job, and none: the model ---------------------------------------
sed 's/ranks=3/ranks=4/' "$crafted" >"$tmp/other.txt"
if local_job other 3 bcast "${job[@]}" -a auto -m 64K -i 2 -x 1 --tuning "$tmp/other.txt" -o "$tmp/other.csv" &&
	csv_awk '{ n++; if ($c["auto_source"] != "model" || $0 !~ /another job \(ranks: the table.s 4 != the job.s 3\)/) bad++ }
		END { exit !(n == 1 && !bad) }' "$tmp/other.csv"; then
	ok "-a auto with a table for 4 ranks: the model's pick, the reason naming ranks"
else
	fail "-a auto, another job's table: $(tail -n 2 "$tmp/other.err"; tail -n 1 "$tmp/other.csv" 2>/dev/null)"
fi
if local_job model 3 bcast "${job[@]}" -a auto,chain -m 64K -i 2 -x 1 -o "$tmp/model.csv" &&
	csv_awk '$c["auto_source"] == "model" && $c["auto_reason"] ~ /no --tuning table/ { m++ }
		$c["auto_source"] == "" && $c["algorithm"] == "chain" { f++ }
		END { exit !(m == 1 && f == 1) }' "$tmp/model.csv"; then
	ok "-a auto,chain without a table: the model's row, then chain's (auto_source empty)"
else
	fail "-a auto without a table: $(tail -n 2 "$tmp/model.err"; tail -n 2 "$tmp/model.csv" 2>/dev/null)"
fi

# --- a pick these options cannot build: the model's, saying so ----------------------------
printf 'lanebench-tuning 1\n%s\npick 65536 vandegeijn 65536 0.001\n' "$key" >"$tmp/vdg.txt"
if local_job vdg 3 bcast "${job[@]}" -a auto -m 64K -i 2 -x 1 --allgather doubling \
	--tuning "$tmp/vdg.txt" -o "$tmp/vdg.csv" &&
	csv_awk '{ n++; if ($c["auto_source"] != "model" || $c["algorithm"] == "vandegeijn" ||
		$c["auto_reason"] !~ /pick vandegeijn cannot run here/) bad++ } END { exit !(n == 1 && !bad) }' \
		"$tmp/vdg.csv"; then
	ok "a table's pick that cannot run with --allgather doubling on 3 ranks: the model's, the reason says why"
else
	fail "-a auto, unbuildable pick: $(tail -n 2 "$tmp/vdg.err"; tail -n 1 "$tmp/vdg.csv" 2>/dev/null)"
fi

# --- compare pairs auto's row apart from the broadcast it picked -------------------------
# (the crafted table picks chain at 8 bytes: two rows of chain, one auto's)
local_job pair 3 bcast "${job[@]}" -a auto,chain -m 8 -i 2 -x 1 --tuning "$crafted" -o "$tmp/pair.csv" ||
	fail "-a auto,chain with the table ($statuses): $(tail -n 2 "$tmp/pair.err")"
if run compare "$tmp/pair.csv" "$tmp/pair.csv" && [ "$rc" = 0 ] &&
	[ "$(csv_awk '$c["algorithm"] == "chain" { n++ } END { print n }' "$tmp/pair.csv")" = 2 ]; then
	ok "compare of an -a auto,chain file with itself: auto's chain row and chain's pair apart"
else
	fail "compare -a auto,chain (exit $rc): $(tail -n 3 "$tmp/err")"
fi

# --- refusals, before any job ----------------------------------------------------------
not_in_a_job
expect_status 2 "sizes must increase (8 after 16384)" tune -m 16K,8
expect_status 2 "not with -a auto" bcast -a auto --platform "$crafted"
printf 'lanebench-tuning 1\n%s\npick 8 chain 8 0.001\npick 65536 chain 100 0.001\n' "$key" >"$tmp/bad.txt"
expect_status 2 "bad.txt:4: slice 100" bcast -a auto --tuning "$tmp/bad.txt"
expect_status 2 "give -a auto" bcast -a chain --tuning "$crafted"
finish tune_test
