#!/usr/bin/env bash
# Jobs of plain processes on this host (no root, no namespaces): ranks meet
# at 127.0.0.1 and use loopback lanes.  Start-up obeys --timeout: a rank
# whose peer never shows up stops within seconds, naming the missing rank.
# A run stopped mid-sweep (SIGTERM, SIGINT, stdout closed) keeps a valid
# CSV of the rows it finished, which compare reads; the other rank stops
# too.  Synchronised on rank 0's table rows (read through a FIFO), never
# on sleeps.
set -uo pipefail
usage="usage: job_test.sh path/to/tests/lib.sh path/to/lanebench"
source "${1:?$usage}"
shift
use_lanebench "${1:?$usage}"

# alone RANK WANT1 WANT2 ARGS...: a rank of a 2-rank job started without
# its peer, with --timeout 3s: it must fail within 10 s, with both texts
# in its last line.
alone() {
	local r=$1 want1=$2 want2=$3 start=$SECONDS rc=0 took last
	shift 3
	local_rank "$r" 2 "$(free_port)" "$@" --nics 127.0.0.1 --timeout 3s >"$tmp/alone.out" 2>&1 &
	test_pids+=($!)
	wait $! || rc=$?
	took=$((SECONDS - start))
	last=$(tail -1 "$tmp/alone.out")
	if [ "$rc" != 0 ] && [ "$took" -le 10 ] && [[ $last == *"$want1"* && $last == *"$want2"* ]]; then
		ok "$1 rank $r alone, --timeout 3s: exit $rc after $took s: $last"
	else
		fail "$1 rank $r alone, --timeout 3s: exit $rc after $took s, want '$want1' and '$want2': $last"
	fi
}

# --- start-up obeys --timeout ------------------------------------------------
alone 0 "rank(s) 1 never connected" "timeout after 3 s" bcast --no-pin
alone 1 "coordinator (rank 0)" "timeout after 3 s" bcast --no-pin
alone 0 "rank(s) 1 never connected" "timeout after 3 s" p2p

# The CSV schemas (results/README.md), column by column (this job is tcp:
# its one counter column ends the bcast header).
bcast_header=label,transport,algorithm,ranks,lanes,root,stripe,idle,message_bytes,slice_bytes,slices,iterations,warmup,time_min_seconds,time_median_seconds,time_mean_seconds,time_p99_seconds,time_max_seconds,algbw_bytes_per_second,lane_rate_bytes_per_second,efficiency_ratio,calib_latency_seconds,calib_lane_bandwidth_bytes_per_second,table_seconds,refined_seconds,sim_seconds,measured_over_table_ratio,measured_over_refined_ratio,measured_over_sim_ratio,platform,period_seconds,collective,hbsp_seconds,verified_bytes,cpu_user_seconds,cpu_sys_seconds,cpu_max_rank_seconds,cpu_seconds_per_gigabyte,auto_source,auto_reason,tcp_segments_retransmitted_count
p2p_header=transport,lane,lane_name,message_bytes,iterations,window,direction,latency_min_seconds,latency_median_seconds,latency_p99_seconds,bandwidth_median_bytes_per_second,bandwidth_max_bytes_per_second,bandwidth_sent_median_bytes_per_second,bandwidth_received_median_bytes_per_second,lane_rate_bytes_per_second,efficiency_ratio,verified_bytes

# same_header WHAT FILE WANT: the provenance head (format first, the
# command line, a host per rank), then the header of results/README.md.
same_header() {
	if [ "$(grep -vm1 '^#' "$2" 2>/dev/null)" = "$3" ]; then
		ok "$1: the CSV header of results/README.md"
	else
		fail "$1: CSV header $(grep -vm1 '^#' "$2" 2>/dev/null), want $3"
	fi
	if [ "$(head -n 1 "$2")" = "# format: lanebench-csv 2" ] && grep -q '^# command: lanebench ' "$2" &&
		grep -q '^# host\.0: ' "$2" && grep -q '^# lane\.0\.0: nic=' "$2"; then
		ok "$1: the provenance head"
	else
		fail "$1: provenance head: $(grep '^#' "$2" | head -n 5)"
	fi
}

# --- one rank, explicitly: it runs, but reports no bandwidth ------------------
# (nothing moves: bytes over an empty iteration would be terabytes per second)
if local_rank 0 1 "$(free_port)" bcast --nics 127.0.0.1 --no-pin -a chain,binary -m 4K,1M -i 2 -x 0 \
	--lane-rate 1gbit -o "$tmp/one.csv" >"$tmp/one.out" 2>"$tmp/one.err"; then
	if csv_awk '
		$c["ranks"] != 1 || $c["algbw_bytes_per_second"] != "" || $c["efficiency_ratio"] != "" ||
		$c["time_median_seconds"] == "" || $c["cpu_max_rank_seconds"] == "" ||
		$c["cpu_seconds_per_gigabyte"] != "" { bad++ } { rows++ } END { exit !(rows == 4 && !bad) }' "$tmp/one.csv"; then
		ok "LANEBENCH_SIZE=1 bcast: 4 rows, times and CPU but empty bandwidth, efficiency and CPU per GB"
	else
		fail "LANEBENCH_SIZE=1 bcast: CSV: $(cut -d, -f3,4,19-21 "$tmp/one.csv" | tr '\n' ' ')"
	fi
	same_header "bcast" "$tmp/one.csv" "$bcast_header"
	# the table on stdout: heading, one line per row, the legend naming
	# eff and the meas/ columns, the file named last
	if [ "$(sed -n 1p "$tmp/one.out" | tr -s ' ')" = "algorithm size slice median p99 Gbit/s eff sim meas/tab meas/ref meas/sim" ] &&
		[ "$(tr -s ' ' <"$tmp/one.out" | grep -cE '^chain 4 KiB 64 KiB [0-9.]+ [mun]?s [0-9.]+ [mun]?s - - - - - -$')" = 1 ] &&
		[ "$(grep -cE '^  (eff|meas/tab|meas/ref|meas/sim) ' "$tmp/one.out")" = 4 ] &&
		[ "$(tail -n 1 "$tmp/one.out")" = "results: $tmp/one.csv" ]; then
		ok "LANEBENCH_SIZE=1 bcast: the table"
	else
		fail "LANEBENCH_SIZE=1 bcast: table: $(cat "$tmp/one.out")"
	fi
else
	fail "LANEBENCH_SIZE=1 bcast failed: $(tail -2 "$tmp/one.err")"
fi

# --- CPU time: 3 ranks, every row's cpu_* columns (results/README.md) ------------
# The user/system split of a window may give one of them nothing (the
# kernel splits a precise total by sampled ticks), so the split is only
# checked >= 0, the total > 0; per gigabyte must be the formula from the
# other columns: 3 ranks x (user + sys) / (2 x M / 1e9).
cpu_job() {
	local port=$1 r
	for r in 1 2; do
		local_rank "$r" 3 "$port" bcast --nics 127.0.0.1 --no-pin -a chain,multilane -m 64K,4M -i 3 -x 1 \
			--no-calibration -o "$tmp/cpu.csv" >/dev/null 2>&1 &
		test_pids+=($!)
	done
	local_rank 0 3 "$port" bcast --nics 127.0.0.1 --no-pin -a chain,multilane -m 64K,4M -i 3 -x 1 \
		--no-calibration -o "$tmp/cpu.csv" >/dev/null 2>"$tmp/cpu.err"
}
if cpu_job "$(free_port)" && csv_awk '
	{ u = $c["cpu_user_seconds"]; s = $c["cpu_sys_seconds"]; m = $c["cpu_max_rank_seconds"]
	  g = $c["cpu_seconds_per_gigabyte"]; want = 3 * (u + s) / (2 * $c["message_bytes"] / 1e9)
	  if (u == "" || s == "" || u < 0 || s < 0 || u + s <= 0 || m < (u + s) * (1 - 1e-6) ||
	      g <= 0 || (g - want) / want > 1e-6 || (want - g) / want > 1e-6) bad++; rows++ }
	END { exit !(rows == 4 && !bad) }' "$tmp/cpu.csv"; then
	ok "3-rank bcast: cpu_* columns > 0 on 4 rows, max rank >= the mean, per gigabyte = 3 (user + sys) / (2 M / 1e9)"
else
	fail "3-rank bcast: cpu columns: $(cut -d, -f3,9,31- "$tmp/cpu.csv" 2>&1 | grep -v '^#' | tr '\n' ' ') $(tail -2 "$tmp/cpu.err")"
fi
wait

# --- --slice auto: chosen per algorithm and size from the calibration ---------
# A 3-rank job, calibrated, -s 64K,auto: the 64K rows keep 64K (a given slice
# overrides), each auto row has the slice plan --slice auto picks with the
# row's calibrated latency and bandwidth, and --verbose names that slice.
port=$(free_port)
slice_run=(bcast --nics 127.0.0.1,127.0.0.1 --no-pin -a chain,multilane -m 64K,1M -s 64K,auto -i 2 -x 0 --verbose)
for r in 1 2; do
	local_rank "$r" 3 "$port" "${slice_run[@]}" -o "$tmp/auto$r.csv" >/dev/null 2>&1 &
	test_pids+=($!)
done
if local_rank 0 3 "$port" "${slice_run[@]}" -o "$tmp/auto.csv" >/dev/null 2>"$tmp/auto.err"; then
	grep -qx '# option.slice: 64K,auto' "$tmp/auto.csv" || fail "bcast -s 64K,auto: provenance: $(grep slice "$tmp/auto.csv")"
	rows=0
	while IFS=, read -r algo bytes slice lat bw; do
		rows=$((rows + 1))
		if [ $((rows % 2)) = 1 ]; then
			[ "$slice" = 65536 ] || fail "bcast -s 64K,auto: $algo $bytes: the given 64K became $slice"
			continue
		fi
		want=$("$B" plan -a "$algo" -p 3 -k 2 -m "$bytes" --slice auto --alpha "$lat" \
			--bw "${bw}B/s" -f summary |
			sed -n 's/^slice \([0-9]*\) \([KMG]\{0,1\}\)i\{0,1\}B, chosen by --slice auto.*/\1\2/p')
		got=$(awk -v s="$slice" 'BEGIN { u = "KMG"; i = 0; while (s >= 1024 && s % 1024 == 0 && i < 3) { s /= 1024; i++ }
			printf "%d%s", s, i ? substr(u, i, 1) : "" }')
		[ -n "$want" ] && [ "$got" = "$want" ] ||
			fail "bcast --slice auto: $algo $bytes: slice $got, plan with the calibration ($lat s, $bw B/s) says '$want'"
		grep -q "rank 0: $algo $(awk -v b="$bytes" 'BEGIN { print b == 65536 ? "64K" : "1M" }') slice $got root 0: iteration 1/2 started" "$tmp/auto.err" ||
			fail "bcast --verbose: no line for $algo $bytes slice $got: $(grep started "$tmp/auto.err" | head -3)"
	done < <(csv_awk '
		{ print $c["algorithm"] "," $c["message_bytes"] "," $c["slice_bytes"] "," $c["calib_latency_seconds"] "," $c["calib_lane_bandwidth_bytes_per_second"] }' "$tmp/auto.csv")
	[ "$rows" = 8 ] && ok "bcast -s 64K,auto: 64K kept, auto as plan chooses from the calibration, --verbose names it" ||
		fail "bcast -s 64K,auto: $rows rows, want 8"
else
	fail "bcast -s 64K,auto failed: $(tail -2 "$tmp/auto.err")"
fi
wait

# --- the NICs from the environment: $LANEBENCH_NICS, else the old name -------
for var in LANEBENCH_NICS LANEBENCH_LANES; do
	if env -u LANEBENCH_NICS -u LANEBENCH_LANES "$var=127.0.0.1,127.0.0.1" LANEBENCH_RANK=0 \
		LANEBENCH_SIZE=1 LANEBENCH_COORD=127.0.0.1:"$(free_port)" "$B" bcast --no-pin \
		-a chain -m 4K -i 1 -x 0 --no-calibration -o "$tmp/env.csv" >/dev/null 2>"$tmp/env.err" &&
		[ "$(cut -d, -f5 "$tmp/env.csv" | tail -1)" = 2 ]; then
		ok "$var=127.0.0.1,127.0.0.1: 2 lanes"
	else
		fail "$var=127.0.0.1,127.0.0.1: $(cat "$tmp/env.err" "$tmp/env.csv")"
	fi
done
grep -q "LANEBENCH_LANES is now LANEBENCH_NICS" "$tmp/env.err" ||
	fail "LANEBENCH_LANES: no note on stderr: $(cat "$tmp/env.err")"

# --- stopped mid-sweep ---------------------------------------------------------
set -m # background jobs keep SIGINT's default action (job control)
mkfifo "$tmp/table"

# stop_pair SIG ROWS DIR CMD ARGS...: a 2-rank job in DIR (rank 0's CSV
# is DIR/f.csv); once rank 0's table shows ROWS rows, rank 0 gets SIG.
# Sets rc0, rc1 (exit statuses) and took (seconds from the signal on).
stop_pair() {
	local sig=$1 rows=$2 dir=$3 port
	shift 3
	port=$(free_port)
	mkdir -p "$dir"
	(cd "$dir" && local_rank 1 2 "$port" "$@" -o f.csv >r1.out 2>r1.err) &
	local p1=$!
	(cd "$dir" && local_rank --exec 0 2 "$port" "$@" -o f.csv >"$tmp/table" 2>"$dir/r0.err") &
	local p0=$!
	test_pids+=("$p0" "$p1")
	exec {table}<"$tmp/table"
	for ((i = 0; i <= rows; i++)); do read -r -t 60 -u "$table" _ || break; done
	local start=$SECONDS
	kill -s "$sig" "$p0"
	timeout 60 cat <&"$table" >"$dir/r0.out" # until rank 0 exits (bounded)
	exec {table}<&-
	rc0=0 rc1=0
	wait "$p0" || rc0=$?
	wait "$p1" || rc1=$?
	took=$((SECONDS - start))
}

# valid_partial DIR WHY: f.csv has rows, ends in one trailer naming WHY,
# no temporary file beside it, and compare reads it and shows the trailer.
valid_partial() {
	local dir=$1 why=$2 f=$1/f.csv rows
	rows=$(grep -vc '^#' "$f" 2>/dev/null)
	[ "${rows:-0}" -ge 3 ] || { fail "$why: $f has ${rows:-no} lines"; return; }
	tail -n 1 "$f" | grep -q "^# lanebench: incomplete after $((rows - 1)) rows: .*$why" ||
		fail "$why: last line of $f: $(tail -n 1 "$f")"
	awk -F, -v n="$(grep -vm1 '^#' "$f" | awk -F, '{ print NF }')" '!/^#/ && NF != n { bad++ }
		END { exit bad > 0 }' "$f" || fail "$why: $f has rows of the wrong width"
	ls "$dir" | grep -q '\.tmp\.' && fail "$why: temporary file left: $(ls "$dir")"
	"$B" compare "$f" "$f" >"$dir/compare.out" 2>&1 &&
		grep -q "(incomplete after $((rows - 1)) rows" "$dir/compare.out" ||
		fail "$why: compare on the partial file: $(cat "$dir/compare.out")"
}

bcast_sweep=(bcast --nics 127.0.0.1,127.0.0.1 --no-pin -a all -m 4K:64M -i 50 --no-calibration)
stop_pair TERM 3 "$tmp/bterm" "${bcast_sweep[@]}" --json f.json
if [ "$rc0" = 143 ] && [ "$rc1" != 0 ] && [ "$took" -le 20 ] &&
	grep -q "rank 0" "$tmp/bterm/r1.err"; then
	ok "bcast, SIGTERM to rank 0 after 3 rows: exit 143, rank 1 exit $rc1 in $took s: $(tail -1 "$tmp/bterm/r1.err")"
else
	fail "bcast, SIGTERM: rank 0 exit $rc0 (want 143), rank 1 exit $rc1 after $took s: $(cat "$tmp/bterm/r0.err" "$tmp/bterm/r1.err")"
fi
valid_partial "$tmp/bterm" "terminated .SIGTERM."
# --json of the same run (both ranks were given it; rank 0 writes it): the
# rows the CSV kept and an "incomplete" member with the reason.
if python3 "$(dirname "$0")/../cli/json_matches_csv.py" "$tmp/bterm/f.csv" "$tmp/bterm/f.json" &&
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(d.get("incomplete") != "terminated (SIGTERM)")' \
		"$tmp/bterm/f.json" && [ -z "$(ls "$tmp/bterm" | grep '\.tmp\.')" ]; then
	ok "bcast --json, SIGTERM: the CSV's rows and \"incomplete\": \"terminated (SIGTERM)\""
else
	fail "bcast --json, SIGTERM: $(cat "$tmp/bterm/f.json" 2>&1 | tail -3)"
fi

stop_pair INT 3 "$tmp/pint" p2p --nics 127.0.0.1 -m 8:8M -i 50 # 8M x the window of 16: a 128 MiB buffer per rank
if [ "$rc0" = 130 ] && [ "$rc1" != 0 ] && [ "$took" -le 20 ]; then
	ok "p2p, SIGINT to rank 0 after 3 rows: exit 130, rank 1 exit $rc1 in $took s"
else
	fail "p2p, SIGINT: rank 0 exit $rc0 (want 130), rank 1 exit $rc1 after $took s: $(cat "$tmp/pint/r0.err" "$tmp/pint/r1.err")"
fi
valid_partial "$tmp/pint" "interrupted .SIGINT."
same_header "p2p" "$tmp/pint/f.csv" "$p2p_header"

# Rank 0's stdout closed early: it stops (as SIGPIPE would), keeping the file.
port=$(free_port)
mkdir "$tmp/bpipe"
(cd "$tmp/bpipe" && local_rank 1 2 "$port" "${bcast_sweep[@]}" -o f.csv >/dev/null 2>r1.err) &
test_pids+=($!)
(cd "$tmp/bpipe" && local_rank 0 2 "$port" "${bcast_sweep[@]}" -o f.csv 2>r0.err | head -3 >/dev/null
	echo "${PIPESTATUS[0]}" >rc0)
wait "${test_pids[-1]}"
if [ "$(cat "$tmp/bpipe/rc0")" = 141 ]; then
	ok "bcast -o f.csv | head -3: rank 0 exit 141"
else
	fail "bcast | head -3: rank 0 exit $(cat "$tmp/bpipe/rc0"), want 141: $(cat "$tmp/bpipe/r0.err")"
fi
valid_partial "$tmp/bpipe" "stdout closed .SIGPIPE."
set +m

# --- the pinning plan is printed only where threads follow it ---------------
# hwloc does not know the loopback interface: bcast (which pins) notes the
# lane's core and why; p2p and bcast --no-pin run their lanes unpinned and
# must not claim a core.
plan_note() { # name args...: rank 0's "-> core" lines of a 2-rank job
	local name=$1
	shift
	local_job "$name" 2 "$@" --nics 127.0.0.1 >/dev/null || echo "exit $statuses: $(tail -1 "$tmp/$name.err")"
	grep -c -- '-> core' "$tmp/$name.err"
}
pinned=$(plan_note plan-bcast bcast -a chain -m 64K -i 1 -x 0 --no-calibration)
unpinned=$(plan_note plan-nopin bcast --no-pin -a chain -m 64K -i 1 -x 0 --no-calibration)
p2p=$(plan_note plan-p2p p2p -m 8 -i 3 -x 0)
if [ "$pinned" = 1 ] && [ "$unpinned" = 0 ] && [ "$p2p" = 0 ]; then
	ok "pinning plan: bcast prints the lane's core, bcast --no-pin and p2p do not"
else
	fail "pinning plan notes: bcast '$pinned' (want 1), --no-pin '$unpinned', p2p '$p2p' (want 0)"
fi

finish job
