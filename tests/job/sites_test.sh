#!/usr/bin/env bash
# bcast --sites / --site-sizes on a job of plain processes at 127.0.0.1
# (loopback lanes, no root): 4 ranks as sites of 1 and 3 ranks, then two
# equal sites, run the site-aware multilane, binary and binomial with every
# byte verified, the site map in the provenance; a map whose total is not
# the job's size is refused (exit 2, both counts named) before any
# connection.  Ranks wait for each other in the bootstrap, never on sleeps.
set -uo pipefail
usage="usage: sites_test.sh path/to/tests/lib.sh path/to/lanebench"
# shellcheck source=SCRIPTDIR/../lib.sh
source "${1:?$usage}"
shift
use_lanebench "${1:?$usage}"

# verified NAME CSV: three rows, each with verified_bytes > 0
verified() {
	local rows
	rows=$(python3 - "$2" <<'PY'
import csv, sys
rows = list(csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith('#')))
print(sum(1 for r in rows if int(r['verified_bytes']) > 0), len(rows))
PY
)
	if [ "$rows" = "3 3" ]; then
		ok "$1: multilane, binary, binomial verified"
	else
		fail "$1: verified rows / rows: $rows; $(tail -2 "$tmp/$1.err")"
	fi
}

common=(bcast --no-pin --nics "127.0.0.1,127.0.0.1" -a "multilane,binary,binomial" -m 96K -s 8K
	-i 2 -x 0 --no-calibration --timeout 30s)

if local_job uneven 4 "${common[@]}" --site-sizes 1,3 -o "$tmp/uneven.csv" &&
	grep -q '^# option.site-sizes: 1,3$' "$tmp/uneven.csv"; then
	verified uneven "$tmp/uneven.csv"
else
	fail "sites 1,3: $(tail -2 "$tmp/uneven.err")"
fi
if local_job even 4 "${common[@]}" --sites 2 -r 3 -o "$tmp/even.csv" &&
	grep -q '^# option.sites: 2$' "$tmp/even.csv"; then
	verified even "$tmp/even.csv"
else
	fail "--sites 2, root 3: $(tail -2 "$tmp/even.err")"
fi

# refused before any connection: rank 0 alone of a 4-rank job
rc=0
local_rank 0 4 "$(free_port)" "${common[@]}" --site-sizes 2,3 >/dev/null 2>"$tmp/bad.err" || rc=$?
if [ "$rc" = 2 ] && grep -q 'site-sizes.*hold 5 ranks but the job has 4' "$tmp/bad.err"; then
	ok "--site-sizes 2,3 on 4 ranks: exit 2, $(cat "$tmp/bad.err")"
else
	fail "--site-sizes 2,3 on 4 ranks: exit $rc, $(cat "$tmp/bad.err")"
fi

# The predictions see the WAN of --wan-lat and --wan-bw (calibrated on
# loopback, 1 MiB: well under 0.2 s without it).  predicted NAME CSV
# MIN MAX TABLE: every row's sim_seconds within [MIN, MAX]; TABLE "two-site":
# table_seconds >= MIN and refined_seconds empty.
predicted() {
	local got
	got=$(python3 - "$2" "$3" "$4" "$5" <<'PY'
import csv, sys
path, lo, hi, table = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
rows = list(csv.DictReader(l for l in open(path) if not l.startswith('#')))
bad = [r['algorithm'] + ' sim ' + r['sim_seconds'] for r in rows
       if not lo <= float(r['sim_seconds'] or 'nan') <= hi]
if table == 'two-site':
    bad += [r['algorithm'] + ' table ' + r['table_seconds'] + ' refined ' + r['refined_seconds']
            for r in rows if not float(r['table_seconds'] or 'nan') >= lo or r['refined_seconds']]
print('ok' if len(rows) == 3 and not bad else '%d rows; %s' % (len(rows), '; '.join(bad)))
PY
)
	if [ "$got" = ok ]; then
		ok "$1: sim_seconds within [$3, $4] s"
	else
		fail "$1: $got"
	fi
}

wan=(bcast --no-pin --nics "127.0.0.1,127.0.0.1" -a "multilane,binary,binomial" -m 1M -s 64K
	-i 2 -x 0 --timeout 30s --site-sizes 2,2)
for c in "lan:0:0.2:-" "lat:1:1.2:two-site" "bw:0.5:0.9:-"; do
	IFS=: read -r name lo hi table <<<"$c"
	extra=()
	[ "$name" = lat ] && extra=(--wan-lat 1s)
	[ "$name" = bw ] && extra=(--wan-bw 1MB/s)
	if local_job "wan-$name" 4 "${wan[@]}" "${extra[@]}" -o "$tmp/wan-$name.csv"; then
		predicted "wan-$name ${extra[*]}" "$tmp/wan-$name.csv" "$lo" "$hi" "$table"
	else
		fail "wan-$name: $(tail -2 "$tmp/wan-$name.err")"
	fi
done

# bcast's sim_seconds is what `sim` computes for the same schedule and
# figures (the row's calibration medians, the WAN told), within 2 %, for
# chain and multilane: --sim-model auto with sites is sim's --model fluid
# (shared fairly).  scripts/bench-sites' sites, 8 ranks as 4,4; 16 KiB
# slices over a 200 Mbit/s WAN pay a lane's latency per slice, so the
# simulator taking each lane's calibrated latency (40-560 us where the
# median was 14 us, on loopback with the old calibration order) missed by
# up to 7 % here, 2 x on the emulated cluster (engine/coll.h,
# lb_coll_sim_net).  Not binary: its root serves
# its site before the WAN, so its own calibrated bandwidth, which bcast
# keeps and sim has not, moves the time (2.8 % at half the median); the
# model's choice for it is tests/engine/test_coll_sim_net.c's.
agree=(bcast --no-pin --nics "127.0.0.1,127.0.0.1" -a "chain,multilane" -m 1M -s 16K
	-i 1 -x 0 --timeout 30s --site-sizes 4,4 --wan-lat 5ms --wan-bw 200mbit)
if local_job agree 8 "${agree[@]}" -o "$tmp/agree.csv"; then
	lat=$(csv_column "$tmp/agree.csv" calib_latency_seconds | head -1)
	bw=$(csv_column "$tmp/agree.csv" calib_lane_bandwidth_bytes_per_second | head -1)
	"$B" sim -a chain,multilane -p 8 --site-sizes 4,4 -k 2 --alpha "${lat}s" \
		--bw "${bw}B/s" --wan-lat 5ms --wan-bw 200mbit -m 1M -s 16K --model fluid \
		-o "$tmp/agree-sim.csv" 2>"$tmp/agree-sim.err" ||
		fail "sim --alpha ${lat}s --bw ${bw}B/s: $(cat "$tmp/agree-sim.err")"
	got=$(python3 - "$tmp/agree.csv" "$tmp/agree-sim.csv" <<'PY'
import csv, sys
def rows(path):
    return list(csv.DictReader(l for l in open(path) if not l.startswith('#')))
sim = {r['algorithm']: float(r['sim_seconds']) for r in rows(sys.argv[2])}
got = rows(sys.argv[1])
bad = ['%s bcast %s sim %s' % (r['algorithm'], r['sim_seconds'], sim.get(r['algorithm']))
       for r in got
       if not abs(float(r['sim_seconds'] or 'nan') - sim.get(r['algorithm'], 0)) <=
              0.02 * sim.get(r['algorithm'], 0)]
print('ok' if len(got) == 2 and not bad else '%d rows; %s' % (len(got), '; '.join(bad)))
PY
)
	if [ "$got" = ok ]; then
		ok "bcast's sim_seconds within 2 % of sim --model fluid (calibration ${lat} s, ${bw} B/s)"
	else
		fail "bcast vs sim with its medians (${lat} s, ${bw} B/s): $got"
	fi
else
	fail "agree: $(tail -2 "$tmp/agree.err")"
fi

# --wan-lat without sites, or with a platform (its links are its WAN): exit 2
printf 'nodes 4\nlanes 2\ndefault occ 5us bw 1gbit\n' >"$tmp/p4.platform"
for c in "--sites 1:joins sites" "--sites 2 --platform $tmp/p4.platform:not with --platform"; do
	rc=0
	# shellcheck disable=SC2086 # the options split on purpose
	local_rank 0 4 "$(free_port)" "${common[@]}" ${c%%:*} --wan-lat 5ms >/dev/null 2>"$tmp/wan.err" || rc=$?
	if [ "$rc" = 2 ] && grep -q -- "wan-lat.*${c#*:}" "$tmp/wan.err"; then
		ok "--wan-lat with ${c%%:*}: exit 2, $(cat "$tmp/wan.err")"
	else
		fail "--wan-lat with ${c%%:*}: exit $rc, $(cat "$tmp/wan.err")"
	fi
done

finish sites
