#!/usr/bin/env bash
# lanebench tune and bcast -a auto on jobs of plain processes at 127.0.0.1
# (two loopback lanes, no root).  tune on 3 ranks over TCP at two small
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
if local_job tune 3 tune "${job[@]}" -m 16K,1M --top 2 -i 2 -x 1 -o "$table"; then
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

# The runoff: per size, the search's three fastest configurations and each
# other algorithm's fastest within 1.5 x the fastest (six at most) are each
# measured three times more, nothing else is, and the pick is one of them.
# The search's figures are as printed (four digits): an algorithm within
# 1.49-1.51 x may go either way.
runoff_check() { # tune's stderr, the table
	python3 - "$1" "$2" <<'PY'
import re, sys
units = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}
counts, search = {}, {}
for line in open(sys.argv[1]):
    m = re.match(r"lanebench tune: (\S+): (\S+) slice (\S+): ([0-9.]+) (\S+)$", line.strip())
    if not m:
        continue
    size, conf = m.group(1), (m.group(2), m.group(3))
    counts.setdefault(size, {}).setdefault(conf, 0)
    counts[size][conf] += 1
    search.setdefault(size, {}).setdefault(conf, float(m.group(4)) * units[m.group(5)])
def entrants(times, reach):
    chosen = []
    for conf, t in sorted(times.items(), key=lambda kv: kv[1]):
        algos = {c[0] for c in chosen}
        if len(chosen) < 3 or (len(chosen) < 6 and conf[0] not in algos
                               and t <= reach * times[chosen[0]]):
            chosen.append(conf)
    return set(chosen)
picks = [l.split()[2] for l in open(sys.argv[2]) if l.startswith("pick ")]
bad = [] if len(counts) == 2 == len(picks) else ["sizes %d, picks %s" % (len(counts), picks)]
for size, pick in zip(counts, picks):  # both smallest first
    ran = {c for c, n in counts[size].items() if n == 4}
    must, may = entrants(search[size], 1.49), entrants(search[size], 1.51)
    if not must <= ran <= may or any(n not in (1, 4) for n in counts[size].values()):
        bad.append("%s: runoff %s, want %s" % (size, sorted(ran), sorted(must)))
    if pick not in {c[0] for c in ran}:
        bad.append("%s: pick %s not in the runoff" % (size, pick))
print("; ".join(bad))
sys.exit(1 if bad else 0)
PY
}
if why=$(runoff_check "$tmp/tune.err" "$table"); then
	ok "tune's runoff: the three fastest and every algorithm within 1.5 x, measured four times; the picks among them"
else
	fail "tune's runoff: $why: $(grep '^lanebench tune: ' "$tmp/tune.err" | tail -n 12)"
fi

# The previous class's finalists carried: every algorithm of the 16 KiB
# runoff (measured four times there: binary and binomial on 3 ranks) is
# measured again at 1 MiB in one slice, where the model's top two are
# others (chain and multilane).
if awk -F': ' '
	/^lanebench tune: / { if (first == "") first = $2
		split($3, w, " ")
		if ($2 == first && ++seen[w[1], w[3]] == 4) final[w[1]] = 1
		if ($2 != first && w[3] == $2) whole[w[1]] = 1 }
	END { n = 0; for (a in final) { n++; if (!(a in whole)) bad++ }
	      exit !(n >= 2 && !bad) }' "$tmp/tune.err"; then
	ok "tune carries the 16K class's finalists to 1M, each measured in one slice"
else
	fail "tune did not carry the 16K finalists: $(grep '^lanebench tune: ' "$tmp/tune.err")"
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
if local_job model 3 bcast "${job[@]}" -a chain,auto,binary -m 64K -i 2 -x 1 -o "$tmp/model.csv" &&
	csv_awk '{ order = order " " ($c["auto_source"] == "" ? $c["algorithm"] : "auto") }
		$c["auto_source"] == "model" && $c["auto_reason"] ~ /no --tuning table/ { m++ }
		END { exit !(m == 1 && order == " chain auto binary") }' "$tmp/model.csv"; then
	ok "-a chain,auto,binary without a table: rows in that order, auto's the model's pick"
else
	fail "-a chain,auto,binary without a table: $(tail -n 2 "$tmp/model.err"; tail -n 3 "$tmp/model.csv" 2>/dev/null)"
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
expect_status 2 "not with -a auto" bcast -a chain,auto --platform "$crafted"
printf 'lanebench-tuning 1\n%s\npick 8 chain 8 0.001\npick 65536 chain 100 0.001\n' "$key" >"$tmp/bad.txt"
expect_status 2 "bad.txt:4: slice 100" bcast -a auto --tuning "$tmp/bad.txt"
expect_status 2 "give -a auto" bcast -a chain --tuning "$crafted"
finish tune_test
