# Runs INSIDE the rxe-vm guest, after `rxe-vm fabric 4 2`: lanebench over
# the rdma transport on real (soft) verbs.  lanebench checks every byte of
# every iteration on every rank and exits non-zero on a mismatch.
#   sh guest.sh LANEBENCH RXE_VM
lb=$1 rxevm=$2
pass=0 fail=0
rm -f /tmp/passed # the runs that passed, with their arguments
ok() { pass=$((pass + 1)); echo "ok: $1 ($2 s)"; }
bad() { fail=$((fail + 1)); echo "FAIL: $1"; }

# t NAME RANKS LANEBENCH-ARGS...: every rank must exit 0
t() {
	name=$1 n=$2
	shift 2
	t0=$(date +%s)
	if "$rxevm" launch "$n" --timeout 150 --log-dir "/tmp/$name" -- "$lb" "$@" >"/tmp/$name.out" 2>&1; then
		ok "$name" $(($(date +%s) - t0))
		echo "ok: $name $*" >>/tmp/passed
	else
		bad "$name (output follows)"
		tail -25 "/tmp/$name.out" | sed 's/^/    /'
	fi
}

# field CSV COLUMN: the first data row's value of COLUMN
field() {
	awk -F, -v c="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i } NR == 2 { print $k }' "$1"
}

sizes=4K,256K,1M
t bcast-write-all 4 bcast --transport rdma -a all -m $sizes -i 3 -x 1 --idle sleep -o /tmp/w.csv
t bcast-send-all 4 bcast --transport rdma --rdma-op send -a all -m $sizes -i 3 -x 1 --idle sleep -o /tmp/s.csv
# one 9 MiB slice: above rxe's 8 MiB max_msg_sz, so split into chunks
t bcast-write-chunked 4 bcast --transport rdma -a chain,multilane -m 9M -s 9M -i 1 -x 0 --no-calibration --idle sleep -o /tmp/wc.csv
t bcast-send-chunked 4 bcast --transport rdma --rdma-op send -a chain,multilane -m 9M -s 9M -i 1 -x 0 --no-calibration --idle sleep -o /tmp/sc.csv
# many small slices: queues deeper than one QP's work requests
t bcast-write-slices 4 bcast --transport rdma -a binary,vandegeijn -m 1M -s 2K -i 2 -x 0 --no-calibration --idle sleep -o /tmp/ws.csv
t p2p-write 2 p2p --transport rdma -m 8,64K,1M -i 20 -w 2 --idle sleep -o /tmp/pw.csv
t p2p-send 2 p2p --transport rdma --rdma-op send -m 8,64K,1M -i 20 -w 2 --idle sleep -o /tmp/ps.csv
t p2p-write-spin 2 p2p --transport rdma -m 8,1M -i 10 -w 2 --idle spin -o /tmp/pspin.csv

# lanes named by device port instead of address (rank i: rxe_n<i>r0:1, rxe_n<i>r1)
t0=$(date +%s) tok=dev$$ st=0
for i in 0 1; do
	LANEBENCH_RANK=$i LANEBENCH_SIZE=2 LANEBENCH_COORD=10.99.1.1:18516 LANEBENCH_TOKEN=$tok \
		LANEBENCH_LANES=rxe_n${i}r0:1,rxe_n${i}r1 timeout 100 "$lb" p2p --transport rdma -m 8,64K \
		-i 5 -x 1 -o /tmp/dev$i.csv >/tmp/dev$i.out 2>&1 &
done
wait %1 || st=1
wait %2 || st=1
if [ $st = 0 ] && grep -q ',rxe_n0r1,' /tmp/dev0.csv; then ok "p2p with lanes named by device" $(($(date +%s) - t0))
else bad "p2p with lanes named by device"; tail -3 /tmp/dev0.out /tmp/dev1.out | sed 's/^/    /'; fi

# the line rate comes from ibv_query_port: the efficiency column is filled
# (checked only where the run that writes the CSV passed: its failure is
# already counted above, and one cause should make one failure)
for f in /tmp/w.csv /tmp/pw.csv; do
	if ! grep -q "^ok: .*$f" /tmp/passed 2>/dev/null; then
		echo "skip: line rate in $f: the run that writes it failed above"
		continue
	fi
	r=$(field $f lane_rate_bytes_per_second) e=$(field $f efficiency_ratio)
	if [ -n "$r" ] && [ "$r" != 0 ] && [ -n "$e" ]; then ok "line rate in $f: $r B/s, efficiency $e" 0
	else bad "line rate missing in $f (lane_rate '$r', efficiency '$e')"; fi
done

# a lane whose address has no RDMA device: a clear error, no crash
LANEBENCH_RANK=0 LANEBENCH_SIZE=1 LANEBENCH_TOKEN=x timeout 30 "$lb" bcast --transport rdma \
	-a chain -m 4K -i 1 --no-calibration --lanes 127.0.0.1 -o /tmp/x.csv >/tmp/lo.out 2>&1
st=$?
if [ $st = 1 ] && grep -q "rdma lane '127.0.0.1'" /tmp/lo.out; then ok "non-RDMA lane named: $(tail -1 /tmp/lo.out)" 0
else bad "non-RDMA lane: exit $st: $(tail -2 /tmp/lo.out)"; fi

# a rank killed mid-run: the others stop within seconds, naming it
t0=$(date +%s)
"$rxevm" launch 4 --timeout 60 --log-dir /tmp/kill -- "$lb" bcast --transport rdma -a chain -m 4M \
	-i 500 -x 0 --no-calibration --idle sleep -o /tmp/k.csv >/tmp/kill.out 2>&1 &
run=$!
sleep 6
for p in $(pgrep -f 'lanebench bcast'); do
	grep -qz LANEBENCH_RANK=2 /proc/$p/environ 2>/dev/null && kill -9 $p
done
wait $run
st=$? dt=$(($(date +%s) - t0))
# Whichever notices first names rank 2: a lane (its CM event or a failed
# work completion) or the bootstrap (its TCP connection closed).
if [ $st != 0 ] && [ $dt -lt 40 ] && grep -qE "rank 2 disconnected|with rank 2 failed" /tmp/kill.out; then
	ok "rank 2 killed: $(grep -m1 -oE "(rdma lane .*|rank 2 disconnected.*)" /tmp/kill.out)" $dt
else
	bad "rank 2 killed: launch exit $st after $dt s"
	tail -8 /tmp/kill.out | sed 's/^/    /'
fi

echo "guest: $pass passed, $fail failed"
[ $fail = 0 ]
