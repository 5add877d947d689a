#!/usr/bin/env bash
# lanebench check --pattern shift and bisection, the N x N matrix's link
# rows, and --rerun, on an emulated cluster of 6 hosts x 2 rails at 100
# Mbit/s (root, network namespaces; skips, 77, without them):
#   healthy: shift passes, every rank holds every byte it was sent
#     (verified_bytes of each link row: (iterations + 1) x window x
#     bw-size), 30 link rows a lane (6 x 5), all PASS; bisection passes;
#     --rerun of a record with nothing failed measures nothing, exit 0;
#   a LINK fault -- what host 1 sends host 3 on rail 1 shaped to 30
#     Mbit/s (cluster up --links: an HTB class found by host 3's address
#     and MAC), the other way and every other pair untouched: shift names
#     the link 1->3 on lane 1 and no port (not 1->4: at d = p/2 a rank
#     sends to and receives from one peer, and TCP's ACKs of 4->1 would
#     queue behind 1->4's data in the slow class: both ways slow); a
#     --rerun of that record has no port to retest and says its link;
#   a PORT fault -- host 3's rail 1 at 50 Mbit/s both ways (--rate-of):
#     shift names port 3 lane 1, the port and not a link, and no link;
#     bisection names it with its partner (rank 0: either end);
#   --rerun of the port fault's record: it held (exit 1, "held:"); the
#     fault removed (the cluster made again, healthy), rerun again: it did
#     not hold (exit 0, "did not hold: PASS now"); a record whose host
#     names are not the job's is refused, naming the rank; copies of the
#     record that differ (rank 3's with a suspect more) are refused on
#     every rank, exit 2, naming rank 3.
# Small windows (-w 8 of 64 KiB, 2 repetitions): a step of shift is 0.1 s.
#   check_patterns_test.sh path/to/tests/lib.sh LANEBENCH CLUSTER_SCRIPT
set -uo pipefail
usage="usage: check_patterns_test.sh path/to/tests/lib.sh LANEBENCH CLUSTER_SCRIPT"
source "${1:?$usage}"
shift
use_lanebench "${1:?$usage}"
use_cluster "${2:?$usage}" h1p

hosts=6 iters=2 window=8 bw=65536
opts=(--timeout 20 --min-bw 70% -a none --bw-size 64K -w $window -i $iters)

up() { # more `cluster up` options
	"$cluster" up $hosts --rails 2 --rate 100mbit --name "$name" "$@" >"$tmp/up" 2>&1 ||
		{ cat "$tmp/up"; fail "cluster up $*"; exit 1; }
}

# run_check LABEL [options]: lanebench check on every rank, the record in
# $tmp/LABEL.csv; rank 0's output in $tmp/LABEL.log; sets rc.
run_check() {
	local label=$1
	shift
	rm -rf "$tmp/logs"
	(cd "$tmp" && timeout 200 "$cluster" run --name "$name" --timeout 180 --log-dir "$tmp/logs" -- \
		"$B" check "${opts[@]}" -o "$tmp/$label.csv" "$@" >"$tmp/run" 2>&1)
	rc=$?
	cp "$tmp/logs/rank0.log" "$tmp/$label.log" 2>/dev/null || : >"$tmp/$label.log"
	echo "--- $label (exit $rc):"
	grep -E '^(FAIL|WARN|check|rerun|links)' "$tmp/$label.log"
}

# rows CSV PHASE VERDICT: "rank:lane[:peer]" of the rows of that phase and
# verdict ("*": any), space-separated.
rows() {
	python3 - "$@" <<'PY'
import csv, sys
path, phase, verdict = sys.argv[1:4]
rows = csv.DictReader(l for l in open(path) if not l.startswith("#"))
print(" ".join(":".join([r["rank"], r["lane"]] + ([r["peer"]] if phase == "link" else []))
               for r in rows if r["phase"] == phase and verdict in ("*", r["verdict"])))
PY
}

# The verdict is rank 0's exit status 1; every other rank ended well (a
# crash or a sanitizer's report would fail it too).
only_rank0_failed() { # label
	grep -q "^cluster run: 1 of $hosts rank(s) failed: 0\$" "$tmp/run" &&
		grep -q "rank 0 failed: exit status 1\$" "$tmp/run" &&
		ok "$1: only rank 0 exited non-zero, with 1" ||
		fail "$1: ranks' exits: $(grep 'cluster run' "$tmp/run")"
}

healthy() {
	up
	run_check shift --pattern shift
	[ "$rc" = 0 ] && grep -q "^check: PASS (12 ports" "$tmp/shift.log" &&
		ok "healthy shift passes" || fail "healthy shift: exit $rc: $(tail -1 "$tmp/shift.log")"
	local want=$(((iters + 1) * window * bw)) n l
	for l in 0 1; do
		n=$(python3 - "$tmp/shift.csv" "$l" "$want" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#"))
        if r["phase"] == "link" and r["lane"] == sys.argv[2]]
pairs = {(r["rank"], r["peer"]) for r in rows}
good = [r for r in rows if float(r["verified_bytes"]) == float(sys.argv[3])
        and r["verdict"] == "PASS" and r["pattern"] == "shift"]
print(len(rows), len(pairs), len(good))
PY
)
		[ "$n" = "30 30 30" ] &&
			ok "lane $l: 30 link rows (6 x 5 directed pairs), each PASS with $want bytes verified" ||
			fail "lane $l: link rows, distinct pairs, PASS with $want bytes verified: $n (want 30 30 30)"
	done
	[ "$(rows "$tmp/shift.csv" port PASS | wc -w)" = 12 ] && ok "12 port rows PASS" ||
		fail "port rows PASS: $(rows "$tmp/shift.csv" port PASS)"
	grep -q "^links measured .* lane 0 (rail0) 30, lane 1 (rail1) 30\$" "$tmp/shift.log" &&
		ok "the summary counts 30 links a lane" || fail "no links summary line"
	run_check bisection --pattern bisection
	[ "$rc" = 0 ] && [ "$(rows "$tmp/bisection.csv" link PASS | wc -w)" = 12 ] &&
		ok "healthy bisection passes, 12 link rows (6 a lane)" ||
		fail "healthy bisection: exit $rc, link rows PASS: $(rows "$tmp/bisection.csv" link PASS)"
	run_check nothing --rerun "$tmp/shift.csv"
	[ "$rc" = 0 ] && grep -q "^rerun: nothing failed or warned in .*shift.csv: nothing to measure" \
		"$tmp/nothing.log" && ok "a record with nothing failed: nothing measured, exit 0" ||
		fail "rerun of a healthy record: exit $rc: $(cat "$tmp/nothing.log")"
}

link_fault() {
	echo "link 1 3 1 3750000 0 0" >"$tmp/links"
	up --links "$tmp/links"
	run_check link --pattern shift
	[ "$rc" = 1 ] && ok "a slow link: exit 1" || fail "slow link: exit $rc, want 1"
	only_rank0_failed link
	[ "$(grep -c '^FAIL' "$tmp/link.log")" = 1 ] &&
		grep -q "^FAIL link 1->3 on lane 1 (rail1): [0-9]* % of the median of its row and column: .*the link, not the ports" "$tmp/link.log" &&
		ok "one failure: the link 1->3 on lane 1" || fail "want one FAIL, the link 1->3: $(grep '^FAIL' "$tmp/link.log")"
	[ "$(rows "$tmp/link.csv" link FAIL)" = "1:1:3" ] && [ -z "$(rows "$tmp/link.csv" port FAIL)" ] &&
		ok "CSV: link row 1->3 lane 1 fails, no port row" ||
		fail "CSV: failing links '$(rows "$tmp/link.csv" link FAIL)', ports '$(rows "$tmp/link.csv" port FAIL)'"
	grep -q "^check: FAIL (every port passed; 1 link)" "$tmp/link.log" &&
		ok "verdict: every port passed, 1 link" || fail "verdict line: $(tail -1 "$tmp/link.log")"
	run_check link-rerun --rerun "$tmp/link.csv"
	[ "$rc" = 0 ] && grep -q "^rerun: no port failed or warned in .*link.csv: nothing to measure (1 failed link not retested" \
		"$tmp/link-rerun.log" && ok "a rerun of it: no port to retest, its failed link said" ||
		fail "rerun of the link record: exit $rc: $(cat "$tmp/link-rerun.log")"
}

port_fault() {
	local from
	up --rate-of 3:1=50mbit
	run_check port --pattern shift
	[ "$rc" = 1 ] && ok "a slow port: exit 1" || fail "slow port: exit $rc, want 1"
	only_rank0_failed port
	[ "$(rows "$tmp/port.csv" port FAIL)" = "3:1" ] && [ -z "$(rows "$tmp/port.csv" link FAIL)" ] &&
		ok "CSV: port 3 lane 1 fails, no link" ||
		fail "CSV: failing ports '$(rows "$tmp/port.csv" port FAIL)', links '$(rows "$tmp/port.csv" link FAIL)'"
	grep -q "^FAIL rank 3 (host $name-h3) lane 1 (rail1): .*sends slowly to every receiver on rail1: .* over 5 receivers.*the port, not a link" "$tmp/port.log" &&
		ok "named: rank 3 lane 1 sends slowly to every receiver, the port" ||
		fail "no port reason: $(grep '^FAIL' "$tmp/port.log")"
	[ "$(grep -c '^FAIL' "$tmp/port.log")" = 1 ] && ok "no other failure" ||
		fail "more failures: $(grep '^FAIL' "$tmp/port.log")"
	run_check bisect-port --pattern bisection
	[ "$rc" = 1 ] && [ "$(rows "$tmp/bisect-port.csv" port FAIL)" = "0:1 3:1" ] &&
		grep -q "^FAIL rank 3 .*lane 1 (rail1): .*either end may be the slow one" "$tmp/bisect-port.log" &&
		ok "bisection: port 3 lane 1 and its partner 0 named, either end" ||
		fail "bisection: exit $rc, failing ports '$(rows "$tmp/bisect-port.csv" port FAIL)'"
	run_check held --rerun "$tmp/port.csv"
	[ "$rc" = 1 ] && grep -q "^FAIL rank 3 (host $name-h3) lane 1 (rail1): held: tx " "$tmp/held.log" &&
		grep -q "^rerun: held: rank 3 lane 1; did not hold: none" "$tmp/held.log" &&
		ok "rerun with the fault: it held" || fail "rerun held: exit $rc: $(grep -E '^(FAIL|rerun)' "$tmp/held.log")"
	only_rank0_failed held
	[ "$(rows "$tmp/held.csv" port '*')" = "3:1" ] && ok "the rerun's record: the suspect's port row alone" ||
		fail "rerun's port rows: $(rows "$tmp/held.csv" port '*')"
	from=$(python3 -c 'import csv, sys
print(" ".join(r["expected_from"] for r in csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#"))
               if r["phase"] == "port"))' "$tmp/held.csv")
	[ "$from" = partners ] && ok "judged against its partners' reference pairs (expected_from partners)" ||
		fail "the rerun's expected_from: '$from', want 'partners'"
}

fault_gone() {
	up
	run_check gone --rerun "$tmp/port.csv"
	[ "$rc" = 0 ] && grep -q "^rerun: held: none; did not hold: rank 3 lane 1" "$tmp/gone.log" &&
		grep -q "^check: PASS (a rerun of 1 port: no failure held)" "$tmp/gone.log" &&
		ok "rerun without the fault: it did not hold, exit 0" ||
		fail "rerun gone: exit $rc: $(grep -E '^(FAIL|rerun|check)' "$tmp/gone.log")"
	grep -q "did not hold: PASS now" "$tmp/gone.csv" && ok "its row says: did not hold: PASS now" ||
		fail "no 'did not hold: PASS now' in the record"
	sed "s/$name-h2/$name-hx/g" "$tmp/port.csv" >"$tmp/moved.csv"
	run_check moved --rerun "$tmp/moved.csv"
	[ "$rc" != 0 ] && grep -q "rank 2 runs on host $name-h2, the record's rank 2 ran on $name-hx" "$tmp/moved.log" &&
		ok "a record of other hosts is refused, naming rank 2" ||
		fail "moved record: exit $rc: $(cat "$tmp/moved.log")"
	grep -q "rank 2 failed: exit status 2\$" "$tmp/run" && ok "rank 2 exits 2 (bad input)" ||
		fail "moved record: ranks' exits: $(grep 'cluster run' "$tmp/run")"
	copies_differ
}

# Every rank reads its own copy of the record; rank 3's has one suspect
# more (rank 0 lane 0 FAILed): refused on every rank before anything is
# measured, naming rank 3 -- not ranks stepping through different pairs.
copies_differ() {
	local k
	for k in 0 1 2 3 4 5; do cp "$tmp/port.csv" "$tmp/copy-$k.csv"; done
	python3 - "$tmp/port.csv" "$tmp/copy-3.csv" <<'PY'
import csv, sys
lines = open(sys.argv[1]).read().splitlines(keepends=True)
rows = list(csv.reader(l for l in lines if not l.startswith("#")))
head = rows[0]
for r in rows[1:]:
    d = dict(zip(head, r))
    if (d["phase"], d["rank"], d["lane"]) == ("port", "0", "0"):
        r[head.index("verdict")] = "FAIL"
with open(sys.argv[2], "w", newline="") as f:
    f.writelines(l for l in lines if l.startswith("#"))
    csv.writer(f, lineterminator="\n").writerows(rows)
PY
	rm -rf "$tmp/logs"
	(cd "$tmp" && timeout 200 "$cluster" run --name "$name" --timeout 180 --log-dir "$tmp/logs" -- \
		sh -c 'd=$1; shift; exec "$@" --rerun "$d/copy-$LANEBENCH_RANK.csv"' sh "$tmp" \
		"$B" check "${opts[@]}" -o "$tmp/copies.csv" >"$tmp/run" 2>&1)
	rc=$?
	[ "$rc" != 0 ] && grep -q "rank 3 read another record than rank 0 .*every rank must read the same RECORD" \
		"$tmp/logs/rank0.log" && grep -q "rank 0 failed: exit status 2\$" "$tmp/run" &&
		ok "copies of the record that differ: refused, naming rank 3, exit 2" ||
		fail "differing copies: exit $rc: $(tail -3 "$tmp/logs/rank0.log"); $(grep 'cluster run' "$tmp/run")"
}

healthy
link_fault
port_fault
fault_gone
finish "check-patterns"
