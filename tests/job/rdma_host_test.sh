#!/usr/bin/env bash
# The rdma transport on this host, no guest: without RDMA devices a run
# fails (exit 1) with a reason naming the lane (not a crash); its --tp-opt
# keys op and ack-timeout are checked by rdma and refused by tcp, and rdma
# refuses keys not its own: bad input, exit 2.
set -uo pipefail
usage="usage: rdma_host_test.sh path/to/tests/lib.sh path/to/lanebench"
source "${1:?$usage}"
shift
use_lanebench "${1:?$usage}"

expect_fail() { # description, exit status, stderr regex, command...
	local what=$1 want=$2 re=$3 st
	shift 3
	LANEBENCH_RANK=0 LANEBENCH_SIZE=1 LANEBENCH_TOKEN=t timeout 30 "$@" >"$tmp/out" 2>"$tmp/err"
	st=$?
	if [ "$st" = "$want" ] && grep -qE -e "$re" "$tmp/err"; then
		ok "$what"
	else
		fail "$what (exit $st, wanted $want and /$re/):"
		sed 's/^/    /' "$tmp/err" | tail -5
	fi
}

run=(bcast -a chain -m 4K -i 1 -x 0 --no-calibration -o "$tmp/r.csv" --nics 127.0.0.1)
if ls /sys/class/infiniband/* >/dev/null 2>&1; then
	echo "note: this host has RDMA devices; the no-device case is not tested"
else
	expect_fail "no RDMA device: the lane is named" 1 \
		"rdma lane '127\.0\.0\.1': no RDMA device on this host" "$B" "${run[@]}" --transport rdma
	expect_fail "no RDMA device, send mode" 1 \
		"rdma lane '127\.0\.0\.1': no RDMA device" "$B" "${run[@]}" --transport rdma --tp-opt op=send
fi
expect_fail "bad op is named" 2 "--tp-opt op 'read': expected write or send" \
	"$B" "${run[@]}" --transport rdma --tp-opt op=read
expect_fail "bad ack-timeout is named" 2 "--tp-opt ack-timeout 'soon'" \
	"$B" "${run[@]}" --transport rdma --tp-opt ack-timeout=soon
expect_fail "ack-timeout 0 is refused" 2 "--tp-opt ack-timeout '0': expected more than 0" \
	"$B" "${run[@]}" --transport rdma --tp-opt ack-timeout=0
expect_fail "ack-timeout beyond the IB encoding is refused" 2 "--tp-opt ack-timeout '10000': expected more than 0 and at most 8796 s" \
	"$B" "${run[@]}" --transport rdma --tp-opt ack-timeout=10000
expect_fail "tcp refuses ack-timeout" 2 "--tp-opt ack-timeout: the tcp transport takes no options" \
	"$B" "${run[@]}" --transport tcp --tp-opt ack-timeout=1s
expect_fail "tcp refuses op" 2 "--tp-opt op: the tcp transport takes no options" \
	"$B" "${run[@]}" --transport tcp --tp-opt op=send
expect_fail "rdma refuses a key of dpdk, naming its own" 2 "--tp-opt eal: the rdma transport takes op, ack-timeout" \
	"$B" "${run[@]}" --transport rdma --tp-opt eal=--no-huge
"$B" --help | grep -q '^  rdma ' && ok "--help lists rdma" ||
	fail "--help does not list the rdma transport"
finish rdma-host
