#!/usr/bin/env bash
# Real RDMA: boots a Soft-RoCE guest (scripts/rxe-vm) with 4 nodes x 2 rails
# and runs rdma_guest.sh there.
#   rdma_vm_test.sh LANEBENCH RXE_VM SANITIZE GUEST_SCRIPT
# Exit 77 (skipped) only when no guest can run here.
set -uo pipefail
lb=$(readlink -f "${1:?}") rxevm=$(readlink -f "${2:?}") sanitize=${3:?} guest=$(readlink -f "${4:?}")
# Sanitizer builds run too: their binaries work in the guest (same host
# root, same libasan) and ASAN_OPTIONS/UBSAN_OPTIONS are passed in.
echo "rdma-vm: build with b_sanitize=$sanitize"
if ! why=$("$rxevm" check 2>&1); then
	echo "SKIP: QEMU cannot run a guest here: $why"
	exit 77
fi
cd "$(mktemp -d)" || exit 1
trap 'rm -rf "$PWD"' EXIT
start=$(date +%s)
# The guest (QEMU TCG: scripts/rxe-vm) took 212-232 s on an idle 2-CPU host and
# ran past 540 s at load average 16: its budget is 840 s, meson's 960.
"$rxevm" run --fabric 4 2 --timeout 840 -- sh "$guest" "$lb" "$rxevm"
st=$?
echo "rdma-vm: guest exit $st after $(($(date +%s) - start)) s"
exit $st
