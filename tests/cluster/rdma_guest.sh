# Runs INSIDE the rxe-vm guest, after `rxe-vm fabric 4 2`: lanebench over
# the rdma transport on real (soft) verbs.  lanebench checks every byte of
# every iteration on every rank and exits non-zero on a mismatch.
#   sh rdma_guest.sh LANEBENCH RXE_VM
lb=$1 rxevm=$2
pass=0 fail=0
rm -f /tmp/passed # the runs that passed, with their arguments
# Every run waits 1 s for an ack before retransmitting, not the 67 ms
# default: under TCG a round trip stalls for longer whenever the host is
# busy, and Soft-RoCE's retransmission of a write (Linux 6.1) can be
# refused as an invalid request (issue 9; see transports/rdma.c).  The
# retransmissions of the broadcasts are counted and printed.
ack=1s

# retransmissions: Soft-RoCE's retries (timeouts and sequence NAKs) so far,
# all devices of the fabric
retransmissions() {
	cat /sys/class/infiniband/*/ports/1/hw_counters/completer_retry_err 2>/dev/null |
		awk '{ n += $1 } END { print n + 0 }'
}
retries_before=$(retransmissions)
ok() { pass=$((pass + 1)); echo "ok: $1 ($2 s)"; }
bad() { fail=$((fail + 1)); echo "FAIL: $1"; }

# t NAME RANKS LANEBENCH-ARGS...: every rank must exit 0
t() {
	name=$1 n=$2
	shift 2
	t0=$(date +%s)
	if "$rxevm" launch "$n" --timeout 150 --log-dir "/tmp/$name" -- "$lb" "$@" --tp-opt ack-timeout=$ack \
		>"/tmp/$name.out" 2>&1; then
		ok "$name" $(($(date +%s) - t0))
		echo "ok: $name $*" >>/tmp/passed
	else
		bad "$name (output follows)"
		tail -25 "/tmp/$name.out" | sed 's/^/    /'
	fi
}

# field CSV COLUMN: the first data row's value of COLUMN
field() {
	awk -F, -v c="$2" '/^#/ { next } !h++ { for (i = 1; i <= NF; i++) if ($i == c) k = i; next } !r++ { print $k }' "$1"
}

sizes=4K,256K,1M
t bcast-write-all 4 bcast --transport rdma -a all -m $sizes -i 3 -x 1 --idle sleep -o /tmp/w.csv
t bcast-send-all 4 bcast --transport rdma --tp-opt op=send -a all -m $sizes -i 3 -x 1 --idle sleep -o /tmp/s.csv
# one 9 MiB slice: above rxe's 8 MiB max_msg_sz, so split into chunks
t bcast-write-chunked 4 bcast --transport rdma -a chain,multilane -m 9M -s 9M -i 1 -x 0 --no-calibration --idle sleep -o /tmp/wc.csv
t bcast-send-chunked 4 bcast --transport rdma --tp-opt op=send -a chain,multilane -m 9M -s 9M -i 1 -x 0 --no-calibration --idle sleep -o /tmp/sc.csv
# many small slices: queues deeper than one QP's work requests
t bcast-write-slices 4 bcast --transport rdma -a binary,vandegeijn -m 1M -s 2K -i 2 -x 0 --no-calibration --idle sleep -o /tmp/ws.csv
# Collectives and sites (issue 14) on real verbs: seed 004's gathers and
# HBSP broadcasts (unequal shares, barriers as zero-byte messages), seed
# 002's coordinator orders, seed 003's site-aware trees over unequal sites;
# each rank that wants the data checks every byte of it.
printf '%s\n' 'nodes 4' 'lanes 2' 'default bw 1gbit' 'node 1 rate 500mbit' 'node 3 rate 250mbit' \
	'site 0 ranks 0-1' 'site 1 ranks 2-3' 'barrier all 50us' >/tmp/sites.platform
t gather-sites 4 bcast --transport rdma -a hbsp1-gather,hbsp2-gather,hbsp1-bcast,hbsp2-bcast,mostcrit,flat \
	--platform /tmp/sites.platform --balance speed -m 100000 -i 1 -x 0 --no-calibration --idle sleep -o /tmp/g.csv
t site-trees 4 bcast --transport rdma -a binary,binomial,multilane --site-sizes 3,1 -m 256K -i 1 -x 0 --no-calibration --idle sleep -o /tmp/st.csv
# the allgathers (issue 15): every rank's block checked at every rank
t allgathers 4 bcast --transport rdma -a allgather-ring,allgather-doubling,allgather-simultaneous -m 64K -i 1 -x 0 --no-calibration --idle sleep -o /tmp/ag.csv
# seed 001's cluster-agent allgathers on 2 fast + 2 slow nodes, 2 agents
printf '%s\n' 'nodes 4' 'lanes 2' 'default lat 350us bw 100mbit' 'node 0 send 90us recv 70us' \
	'node 1 send 90us recv 70us' 'node 2 send 160us recv 130us' 'node 3 send 160us recv 130us' >/tmp/wu4.platform
t cluster-agents 4 bcast --transport rdma -a cluster-agent-gb,cluster-agent-ts --agents 2 --platform /tmp/wu4.platform \
	-m 64K -i 1 -x 0 --no-calibration --idle sleep -o /tmp/ca.csv
echo "note: Soft-RoCE retried $(($(retransmissions) - retries_before)) times during the broadcasts (rxe completer_retry_err)"
t p2p-write 2 p2p --transport rdma -m 8,64K,1M -i 20 -w 2 --idle sleep -o /tmp/pw.csv
t p2p-send 2 p2p --transport rdma --tp-opt op=send -m 8,64K,1M -i 20 -w 2 --idle sleep -o /tmp/ps.csv
t p2p-write-spin 2 p2p --transport rdma -m 8,1M -i 10 -w 2 --idle spin -o /tmp/pspin.csv
# The mailbox (write mode, ranks that poll only): 8 and 96 bytes go
# through it, 97 and 4K by immediate, the windows' 8-byte acks through it
# after them (the two ways on one connection, in order); a window of 100
# is more than a ring of 64 holds, so senders wait for credit.
t p2p-mailbox 2 p2p --transport rdma -m 8,96,97,4K -i 10 -w 100 --idle spin -o /tmp/pmb.csv
t p2p-mailbox-bi 2 p2p --transport rdma -m 8,96,4K -i 5 -w 100 -b --idle yield -o /tmp/pmbb.csv
# broadcasts in 64-byte slices (every message through it) and 4K ones
t bcast-mailbox 4 bcast --transport rdma -a chain,binomial,multilane,allgather-ring -m 4K -s 64,4K \
	-i 2 -x 0 --no-calibration --idle yield -o /tmp/bmb.csv
# column COLUMN summed over CSV's rows
total() {
	awk -F, -v c="$2" '/^#/ { next } !h++ { for (i = 1; i <= NF; i++) if ($i == c) k = i; next }
		{ n += $k } END { print (k ? n + 0 : "none") }' "$1"
}
if grep -q "^ok: bcast-mailbox " /tmp/passed && grep -q "^ok: bcast-write-all " /tmp/passed; then
	ms=$(total /tmp/bmb.csv rdma_mailbox_sends_count) mr=$(total /tmp/bmb.csv rdma_mailbox_receives_count)
	cw=$(total /tmp/bmb.csv rdma_credit_writes_count) sl=$(total /tmp/w.csv rdma_mailbox_sends_count)
	if [ "$ms" != none ] && [ "$ms" -gt 0 ] && [ "$ms" = "$mr" ] && [ "$cw" -gt 0 ] && [ "$sl" = 0 ]; then
		ok "mailbox used under --idle yield ($ms sent = received, $cw credit writes), not under sleep" 0
	else
		bad "mailbox counters: yield sent '$ms' received '$mr' credit writes '$cw'; sleep sent '$sl' (want > 0, equal, > 0; 0)"
	fi
else
	echo "skip: mailbox counters: a run that writes them failed above"
fi

# lanes named by device port instead of address (rank i: rxe_n<i>r0:1, rxe_n<i>r1)
t0=$(date +%s) tok=dev$$ st=0
for i in 0 1; do
	LANEBENCH_RANK=$i LANEBENCH_SIZE=2 LANEBENCH_COORD=10.99.1.1:18516 LANEBENCH_TOKEN=$tok \
		LANEBENCH_NICS=rxe_n${i}r0:1,rxe_n${i}r1 timeout 100 "$lb" p2p --transport rdma -m 8,64K \
		-i 5 -x 1 --tp-opt ack-timeout=$ack -o /tmp/dev$i.csv >/tmp/dev$i.out 2>&1 &
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
	-a chain -m 4K -i 1 --no-calibration --nics 127.0.0.1 -o /tmp/x.csv >/tmp/lo.out 2>&1
st=$?
if [ $st = 1 ] && grep -q "rdma lane '127.0.0.1'" /tmp/lo.out; then ok "non-RDMA lane named: $(tail -1 /tmp/lo.out)" 0
else bad "non-RDMA lane: exit $st: $(tail -2 /tmp/lo.out)"; fi

# lanebench check over real verbs (issue 29): every port's facts come
# from sysfs and ibv_query_port, its counters from the rxe device's
# hw_counters, read before and after the pairs.  A healthy fabric passes;
# n2r0's MTU made 1500 under the fabric's 9000 (rxe's active MTU follows:
# 1024 against 4096) fails it, naming rank 2 lane 0 and the MTU, and no
# other port (its partners retried what n2r0 dropped: judged per pair).
# The veths' made-up 10G is not believed: ports are held to the median.
# Under TCG rates and round trips spread more than on a wire (a pair's
# median round trip took 4 ms beside others' 0.3): --min-bw 50%,
# --max-lat 50 ms.
# chk NAME: sets cst (launch's exit: rank 0's verdict) and csecs
chk() {
	t0=$(date +%s)
	"$rxevm" launch 4 --timeout 200 --log-dir "/tmp/$1" -- "$lb" check --transport rdma -a none \
		--timeout 60 --min-bw 50% --max-lat 0.05 --tp-opt ack-timeout=$ack -o "/tmp/$1.csv" \
		>"/tmp/$1.out" 2>&1
	cst=$? csecs=$(($(date +%s) - t0))
}
# verdicts_and_figures NAME: where check NAME named a port it should not
# have, its FAIL/WARN lines and every pair's rate and latency (noise or a
# cause?)
verdicts_and_figures() {
	grep -E '^(FAIL|WARN|check:)' "/tmp/$1.out" | head -12 | sed 's/^/    /'
	python3 "$(dirname "$rxevm")/benchlib.py" link-figures "/tmp/$1.csv" | sed 's/^/    /'
}
# named_alone NAME LINE WHAT: check NAME exited 1 and failed one port
# only, with a FAIL line that starts with LINE (grep -E)
named_alone() {
	named=$(grep -c '^FAIL rank [0-9]* (host .*) lane [0-9]* (' "/tmp/$1.out")
	if [ $cst = 1 ] && [ "$named" = 1 ] && grep -qE "$2" "/tmp/$1.out"; then
		ok "$3: $(grep -E "$2" "/tmp/$1.out")" $csecs
	else
		bad "$3: exit $cst (want 1), $named ports named (want 1: $2)"
		verdicts_and_figures "$1"
	fi
}
# port rows whose verbs facts or rxe counters are missing, "" when none
verbs_facts_missing() {
	python3 - "$1" <<'PY'
import csv, sys
rows = csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#"))
for r in rows:
    if r["phase"] != "port":
        continue
    d = dict(kv.split("=") for kv in r["counter_deltas"].split(";") if "=" in kv)
    ok = (r["rdma_state"] == "ACTIVE" and float(r["rdma_mtu_bytes"] or 0) > 0 and r["gid"]
          and "rdma" in r["facts_from"] and "rdma:completer_retry_err" in d
          and int(d.get("rdma:frames_sent", 0)) > 0 and r["expected_from"] == "median")
    if not ok:
        print("%s:%s state '%s' mtu '%s' gid '%s' from '%s' expected from '%s' counters '%s'" % (
              r["rank"], r["lane"], r["rdma_state"], r["rdma_mtu_bytes"], r["gid"], r["facts_from"],
              r["expected_from"], r["counter_deltas"][:300]), end="; ")
PY
}
chk check-healthy
missing=$(verbs_facts_missing /tmp/check-healthy.csv 2>&1)
if [ $cst = 0 ] && [ -s /tmp/check-healthy.csv ] && [ -z "$missing" ]; then
	ok "check on a healthy fabric passes; every port has its verbs facts and rxe counters: $(tail -1 /tmp/check-healthy.out)" $csecs
else
	bad "check on a healthy fabric: exit $cst, ports without verbs facts: ${missing:-none}"
	grep -E '^(FAIL|WARN|check:)' /tmp/check-healthy.out | head -12 | sed 's/^/    /'
fi
ip link set n2r0 mtu 1500
chk check-mtu
ip link set n2r0 mtu "${LB_RXE_MTU:-9000}"
named_alone check-mtu "^FAIL rank 2 \(host .*\) lane 0 \(10\.99\.1\.3\): MTU 1500, the lane's other 3 ports 9000; RDMA MTU 1024, the lane's other 3 ports 4096" \
	"check names n2r0's MTU alone"

# A lossy port: p2r1, the switch's end of node 2's rail-1 cable, loses
# $loss of what it sends node 2, for real (netem: Debian's guest kernel
# has it).  Node 2's partners retransmit to it (rxe's sequence NAKs and
# ack timeouts, rdma:retransmitted over rdma:frames_sent, per pair): it
# fails, "loses what it receives"; its partners, who lose nothing with
# the others, pass.
loss=1%
# lane_losses CSV LANE: each port of LANE, its verdict and loss ratios
lane_losses() {
	python3 - "$1" "$2" <<'PY'
import csv, sys
rows = csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#"))
print("; ".join("rank %s %s tx %s rx %s" % (r["rank"], r["verdict"], r["tx_loss_ratio"], r["rx_loss_ratio"])
                for r in rows if r["phase"] == "port" and r["lane"] == sys.argv[2]))
PY
}
if ! command -v tc >/dev/null || ! modprobe sch_netem; then
	bad "lossy port: no netem in the guest (tc: $(command -v tc || echo none); sch_netem for $(uname -r))"
elif tc qdisc add dev p2r1 root netem loss "$loss"; then
	chk check-lossy
	tc qdisc del dev p2r1 root
	losses=$(lane_losses /tmp/check-lossy.csv 1 2>&1)
	echo "note: lane 1 under $loss loss to node 2: $losses"
	if ! echo "$losses" | grep -q '^rank 0 PASS .*; rank 1 PASS .*; rank 3 PASS '; then
		bad "lossy port: node 2's partners on lane 1 must pass: $losses"
		verdicts_and_figures check-lossy
	else named_alone check-lossy "^FAIL rank 2 \(host .*\) lane 1 \(10\.99\.2\.3\): (.*; )?loses what it receives: every partner retransmitted to it \(rank [0-9]: [0-9.]+ %, [0-9]+ of [0-9]+; rank [0-9]: [0-9.]+ %, [0-9]+ of [0-9]+; rank [0-9]: [0-9.]+ %" \
		"check names the port that loses $loss of what it receives alone"; fi
else
	bad "lossy port: tc cannot add netem to p2r1"
fi

# A miswire: node 2's rail-1 cable moved into rail 0's switch.  Its rail-1
# peers cannot reach it (rdma_cm's connect gives up after a quarter of
# --timeout, 15 s: it must not wait longer), its pairs carry nothing, and
# the ARP probe from n2r1 is answered by the other nodes' rail-0 ports
# (their MACs in the inventory): cabled into rail 0's switch.
ip link set p2r1 nomaster && ip link set p2r1 master br0
chk check-miswire
ip link set p2r1 nomaster && ip link set p2r1 master br1
named_alone check-miswire "^FAIL rank 2 \(host .*\) lane 1 \(10\.99\.2\.3\): no traffic .* within 15 s: rdma lane '10\.99\.2\.3': timeout after 15 s .*no 10\.99\.2\.3 peer answers; the port answers on 10\.99\.1\.3's network \(10\.99\.1\.x\): cabled into 10\.99\.1\.3's switch\?" \
	"check names node 2's rail-1 port, cabled into rail 0's switch, alone"

# a rank killed mid-run, once it says its second iteration started (not
# after a fixed sleep): the others exit 3 within --timeout 10 s, naming it
rm -rf /tmp/kill # an earlier run's logs would say "started" at once
# (launch's own limit leaves room for start-up: ASan ranks under TCG took
# up to ~55 s to reach their second iteration, and a limit that strikes
# right after the kill ends a survivor before it can report)
"$rxevm" launch 4 --timeout 150 --log-dir /tmp/kill -- "$lb" bcast --transport rdma -a chain -m 4M \
	-i 500 -x 0 --no-calibration --idle sleep --timeout 10 --verbose --tp-opt ack-timeout=$ack -o /tmp/k.csv >/tmp/kill.out 2>&1 &
run=$! n=0 victim=''
until grep -qE 'iteration 2/[0-9]+ started' /tmp/kill/rank2.err 2>/dev/null || [ $n -ge 1200 ]; do
	sleep 0.1 # bounded: 120 s
	n=$((n + 1))
done
survivors=''
for d in /proc/[0-9]*; do # the ranks' lanebench processes (not the timeouts wrapping them)
	[ "$(cat "$d/comm" 2>/dev/null)" = "$(basename "$lb")" ] || continue
	if grep -qxz LANEBENCH_RANK=2 "$d/environ" 2>/dev/null; then victim=${d#/proc/}
	else survivors="$survivors ${d#/proc/}"; fi
done
t0=$(date +%s.%N)
[ -n "$victim" ] && kill -9 "$victim"
# kill-to-exit: until the last survivor is gone (bounded: 30 s), not until
# launch returns (that also waits for the killed process's teardown)
n=0
while [ $n -lt 3000 ] && for p in $survivors; do [ -d /proc/$p ] && break; done; do
	sleep 0.01
	n=$((n + 1))
done
dt=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
wait $run
st=$?
named=0
for i in 0 1 3; do
	grep -q "^rxe-vm launch: rank $i exited with status 3\$" /tmp/kill.out &&
		grep -v ' started$' "/tmp/kill/rank$i.err" | tail -1 | grep -qE 'rank 2([^0-9]|$)' && named=$((named + 1))
done
if [ -n "$victim" ] && [ $named = 3 ] && awk -v d="$dt" 'BEGIN { exit !(d < 10) }'; then
	ok "rank 2 killed: ranks 0, 1, 3 exit 3 naming it; kill-to-exit (rdma) $dt s: $(grep -v ' started$' /tmp/kill/rank1.err | tail -1)" "$dt"
elif [ -z "$victim" ]; then
	bad "rank 2 killed: the run ended (exit $st) before rank 2 could be killed"
	tail -8 /tmp/kill.out | sed 's/^/    /'
else
	bad "rank 2 killed: launch exit $st after $dt s, $named of 3 survivors exit 3 naming it"
	tail -8 /tmp/kill.out | sed 's/^/    /'
fi

echo "guest: $pass passed, $fail failed"
[ $fail = 0 ]
