#!/usr/bin/env bash
# Bad input to a job's commands exits 2 (bench/main.c), found before any
# data moves: a --tp-opt key the transport does not take, a NIC name no
# host could have, a LANEBENCH_COORD host no name service knows.
set -u
usage="usage: job_input_test.sh path/to/tests/lib.sh path/to/lanebench"
source "${1:?$usage}"
shift
use_lanebench "${1:?$usage}" bcast
not_in_a_job
export LANEBENCH_TIMEOUT=10 # a wrong exit must not wait out 60 s

alone() { LANEBENCH_RANK=0 LANEBENCH_SIZE=1 "$@"; }

alone expect_status 2 "--tp-opt bogus" -t tcp --tp-opt bogus=1 -m 4K
long=lo$(printf 'x%.0s' {1..70})
alone expect_status 2 "is too long" -t tcp --nics "$long" -m 4K
alone expect_status 2 "empty name" -t tcp --nics lo,,lo -m 4K

# RFC 6761: .invalid never resolves.  Asked of the network's name service
# it can also come back "try again" (EAI_AGAIN: under load here, once in a
# few runs), which the rank leaves to its joins' retries: exit 1 after the
# timeout, not 2.  So, as root, the lookup runs in a mount namespace of its
# own whose nsswitch.conf says "hosts: files": unknown at once, always.
# Otherwise only where the name service answers "unknown" for .invalid.
unknown_host() {
	LANEBENCH_RANK=1 LANEBENCH_SIZE=2 LANEBENCH_TOKEN=t \
		LANEBENCH_COORD=no-such-host.invalid:5000 expect_status 2 "cannot resolve" -m 4K
}
rc=0
if [ "$(id -u)" = 0 ] && unshare --mount true 2>/dev/null; then
	echo "hosts: files" >"$tmp/nsswitch.conf"
	saved=("${LB[@]}")
	LB=(unshare --mount -- sh -c 'mount --bind "$0" /etc/nsswitch.conf && exec "$@"'
		"$tmp/nsswitch.conf" "${LB[@]}")
	unknown_host
	LB=("${saved[@]}")
elif getent ahostsv4 no-such-host.invalid >/dev/null || rc=$?; [ "$rc" = 2 ]; then
	unknown_host
else
	echo "skip: name lookups do not answer 'unknown' for .invalid (getent: $rc)"
fi

finish job_input_test
