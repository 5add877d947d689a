#!/usr/bin/env bash
# The rdma transport on this host, no guest: without RDMA devices a run
# fails with a reason naming the lane (not a crash); --rdma-op and
# --rdma-ack-timeout are checked by rdma and refused by tcp.
#   rdma_host_test.sh LANEBENCH
set -uo pipefail
lb=$(readlink -f "${1:?usage: rdma_host_test.sh path/to/lanebench}")
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

expect_fail() { # description, stderr regex, command...
	local what=$1 re=$2 st
	shift 2
	LANEBENCH_RANK=0 LANEBENCH_SIZE=1 LANEBENCH_TOKEN=t timeout 30 "$@" >"$tmp/out" 2>"$tmp/err"
	st=$?
	if [ "$st" = 1 ] && grep -qE -e "$re" "$tmp/err"; then
		echo "ok: $what"
	else
		echo "FAIL: $what (exit $st, wanted 1 and /$re/):"
		sed 's/^/    /' "$tmp/err" | tail -5
		fails=$((fails + 1))
	fi
}

run=(bcast -a chain -m 4K -i 1 -x 0 --no-calibration -o "$tmp/r.csv" --nics 127.0.0.1)
if ls /sys/class/infiniband/* >/dev/null 2>&1; then
	echo "note: this host has RDMA devices; the no-device case is not tested"
else
	expect_fail "no RDMA device: the lane is named" \
		"rdma lane '127\.0\.0\.1': no RDMA device on this host" "$lb" "${run[@]}" --transport rdma
	expect_fail "no RDMA device, send mode" \
		"rdma lane '127\.0\.0\.1': no RDMA device" "$lb" "${run[@]}" --transport rdma --rdma-op send
fi
expect_fail "bad --rdma-op is named" "--rdma-op 'read': expected write or send" \
	"$lb" "${run[@]}" --transport rdma --rdma-op read
expect_fail "bad --rdma-ack-timeout is named" "--rdma-ack-timeout 'soon'" \
	"$lb" "${run[@]}" --transport rdma --rdma-ack-timeout soon
expect_fail "--rdma-ack-timeout 0 is refused" "--rdma-ack-timeout '0': expected more than 0" \
	"$lb" "${run[@]}" --transport rdma --rdma-ack-timeout 0
expect_fail "--rdma-ack-timeout beyond the IB encoding is refused" "--rdma-ack-timeout '3h'|--rdma-ack-timeout '10000'" \
	"$lb" "${run[@]}" --transport rdma --rdma-ack-timeout 10000
expect_fail "tcp refuses --rdma-ack-timeout" "--rdma-ack-timeout does not apply to the tcp transport" \
	"$lb" "${run[@]}" --transport tcp --rdma-ack-timeout 1s
expect_fail "tcp refuses --rdma-op" "--rdma-op does not apply to the tcp transport" \
	"$lb" "${run[@]}" --transport tcp --rdma-op send
"$lb" --help | grep -q '^  rdma ' && echo "ok: --help lists rdma" ||
	{ echo "FAIL: --help does not list the rdma transport"; fails=$((fails + 1)); }
[ "$fails" = 0 ]
