#!/usr/bin/env bash
# The README's launcher recipes ("Running on a real cluster"), run as
# written on the emulated cluster (root, network namespaces): 8 hosts x 2
# rails at 100mbit, `lanebench check` on one rank per host, started by
#   slurm:  Slurm (munged, a slurmctld and one slurmd per host namespace,
#           started here by PID) running the README's sbatch script with
#           `sbatch --wait`;
#   mpirun: Open MPI's mpirun running the README's mpirun lines, its orted
#           started in each host's namespace by an rsh agent (where ssh
#           would log in).
# Each block is read from README.md, so the recipe cannot drift from what
# runs; only these are substituted, each must be found:
#   `lanebench check` -> this build's lanebench, with check options that fit
#                       a loaded 2-core machine (small sizes, check_test.sh's
#                       tolerances);
#   `eth2,eth3`       -> rail0,rail1, the emulated hosts' rails.
# Then the record: 8 ranks on the 8 hosts, every port PASS, each with bytes
# verified, the collectives' bytes verified, the launcher named.
# The host names resolve in every host namespace as on a real cluster:
# /etc/netns/NS/hosts (ip netns exec mounts it over /etc/hosts), removed at
# exit.
#   launcher_test.sh path/to/tests/lib.sh LANEBENCH CLUSTER_SCRIPT README slurm|mpirun
# Exit 0: all passed; 1: some check failed (each printed); 77: skipped.
set -uo pipefail
usage="usage: launcher_test.sh path/to/tests/lib.sh LANEBENCH CLUSTER_SCRIPT README slurm|mpirun"
# shellcheck source=SCRIPTDIR/../lib.sh
source "${1:?$usage}"
shift
use_lanebench "${1:?$usage}"
readme=$(realpath "${3:?$usage}")
mode=${4:?$usage}
case $mode in slurm | mpirun) ;; *) echo "$usage" >&2; exit 2 ;; esac
use_cluster "${2:?$usage}" "ln${mode:0:1}"
case $mode in
slurm) needs_tools munged munge slurmctld slurmd sbatch scontrol sinfo unshare ;;
mpirun) needs_tools mpirun ;;
esac
trap 'exit 1' INT TERM
not_in_a_job
unset LANEBENCH_COORD LANEBENCH_TOKEN
# A job of the caller's own (the tests run under Slurm or mpirun) must not
# leak into the job started here: srun would take its allocation.
for v in $(compgen -e | grep -E '^(SLURM|OMPI|PMIX)_'); do unset "$v"; done
hosts=8
check_opts="--timeout 20 --bw-size 64K -m 64K --min-bw 70% --max-model-ratio 4"
timeout 120 "$cluster" up $hosts --rails 2 --rate 100mbit --name "$name" >"$tmp/up" 2>&1 ||
	{ cat "$tmp/up"; fail "cluster up $hosts --rails 2 --rate 100mbit"; exit 1; }

# --- what every mode needs -----------------------------------------------------
# Each host name (the namespace's, which lanebench reports as the host) at
# its mgmt address, in every host's /etc/hosts.
name_hosts() {
	local i j
	for ((i = 0; i < hosts; i++)); do
		mkdir -p "/etc/netns/$(h "$i")"
		{
			echo "127.0.0.1 localhost"
			for ((j = 0; j < hosts; j++)); do echo "$("$cluster" addr "$j" mgmt) $(h "$j")"; done
		} >"/etc/netns/$(h "$i")/hosts"
	done
}
# shellcheck disable=SC2317 # run at exit (at_exit)
unname_hosts() {
	local i
	for ((i = 0; i < hosts; i++)); do rm -rf "/etc/netns/$(h "$i")"; done
	rmdir /etc/netns 2>/dev/null # only when no one else keeps a file there
	return 0
}
at_exit unname_hosts
name_hosts

# recipe WORDS: the fenced block after the README line that starts with
# WORDS, with the substitutions above; a failure when one finds nothing.
recipe() {
	local block want
	block=$(awk -v start="$1" 'index($0, start) == 1 { found = 1; next }
		found && /^```/ { if (inside) exit; inside = 1; next }
		inside' "$readme")
	for want in 'lanebench check' 'eth2,eth3'; do
		grep -qF -- "$want" <<<"$block" || fail "README's block after '$1' lacks '$want'"
	done
	block=${block//lanebench check/$B check $check_opts}
	printf '%s\n' "${block//eth2,eth3/rail0,rail1}"
}

# stop_daemon PID: TERM, then up to 10 s for it to end, else KILL and a
# failure.
stop_daemon() {
	local pid=$1 what=$2
	kill -TERM "$pid" 2>/dev/null
	for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
	kill -KILL "$pid" 2>/dev/null
	fail "$what (pid $pid) did not end within 10 s of TERM"
}

# within SECONDS WHAT CMD...: polls CMD (true when it exits 0) every 0.2 s
# for up to SECONDS; ok or a failure.
within() {
	local secs=$1 what=$2 t0=$SECONDS
	shift 2
	while ! "$@" >/dev/null 2>&1; do
		if [ $((SECONDS - t0)) -ge "$secs" ]; then
			fail "$what: not within $secs s"
			return 1
		fi
		sleep 0.2
	done
	ok "$what (in $((SECONDS - t0)) s)"
}

# on_host I CMD...: CMD in host I's namespace with the host's name as its
# host name too (a UTS namespace of its own): slurmctld finds itself in
# SlurmctldHost by it, as a real controller does.
on_host() {
	local ns
	ns=$(h "$1")
	shift
	# shellcheck disable=SC2016 # the inner shell's $0 and $@
	ip netns exec "$ns" unshare --uts sh -c 'hostname "$0" && exec "$@"' "$ns" "$@"
}

# check_record CSV JSON LAUNCHER: 8 ranks, each on its own host of the
# cluster, 2 lanes each (rail0, rail1), every port PASS with bytes
# verified, every collective's bytes verified, the launcher in the
# provenance.
check_record() {
	local verdict
	[ -s "$1" ] || { fail "no record $1"; return; }
	verdict=$(python3 - "$1" "$2" "$3" "$name" "$hosts" <<'PY'
import csv, json, sys
path, jpath, launcher, name, n = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
rows = list(csv.DictReader(l for l in open(path) if not l.startswith("#")))
ports = [r for r in rows if r["phase"] == "port"]
bad = []
ranks = sorted({int(float(r["rank"])) for r in ports})
hosts = {int(float(r["rank"])): r["host"] for r in ports}
if ranks != list(range(n)):
    bad.append(f"port rows' ranks {ranks}, want 0..{n - 1}")
if sorted(set(hosts.values())) != sorted(f"{name}-h{i}" for i in range(n)):
    bad.append(f"hosts {sorted(set(hosts.values()))}, want {name}-h0..h{n - 1}, one each")
lanes = sorted((int(float(r["rank"])), r["nic"]) for r in ports)
if lanes != sorted((k, f"rail{l}") for k in range(n) for l in (0, 1)):
    bad.append(f"ports {lanes}: want rail0 and rail1 of every rank")
for r in ports:
    if r["verdict"] != "PASS" or not float(r["verified_bytes"] or 0) > 0:
        bad.append(f"port {r['rank']}:{r['lane']}: {r['verdict']}, {r['verified_bytes'] or 0} bytes verified: {r['reason']}")
colls = [r for r in rows if r["collective"]]
if not colls or any(not float(r["verified_bytes"] or 0) > 0 for r in colls):
    bad.append(f"collectives without verified bytes: {[(r['algorithm'], r['verified_bytes']) for r in colls]}")
got = json.load(open(jpath))["provenance"].get("launcher")
if got != launcher:
    bad.append(f"provenance launcher {got!r}, want {launcher!r}")
print("; ".join(bad) if bad else
      f"{len(ports)} ports PASS on {len(set(hosts.values()))} hosts, "
      f"{sum(float(r['verified_bytes']) for r in ports + colls):.0f} bytes verified, "
      f"launcher {launcher}")
PY
	)
	case $verdict in
	*"ports PASS on"*) ok "record: $verdict" ;;
	*) fail "record $1: $verdict" ;;
	esac
}

# --- Slurm ---------------------------------------------------------------------
slurm_dir=$tmp/slurm
write_slurm_conf() {
	cat >"$slurm_dir/slurm.conf" <<EOF
# Written by tests/cluster/launcher_test.sh: the emulated cluster $name.
ClusterName=$name
SlurmctldHost=$(h 0)($("$cluster" addr 0 mgmt))
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$slurm_dir/munge.sock
StateSaveLocation=$slurm_dir/state
SlurmdSpoolDir=$slurm_dir/spool/%n
SlurmctldPidFile=$slurm_dir/slurmctld.pid
SlurmdPidFile=$slurm_dir/slurmd-%n.pid
SlurmctldLogFile=$slurm_dir/slurmctld.log
SlurmdLogFile=$slurm_dir/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/linear
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
NodeName=$(h 0 | sed 's/0$//')[0-$((hosts - 1))] NodeAddr=$(for ((j = 0; j < hosts; j++)); do "$cluster" addr "$j" mgmt; done | paste -sd,) State=UNKNOWN
PartitionName=emu Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
	# Without cgroups: the autodetected plugin looks for a cgroup file
	# system at /sys/fs/cgroup, which the namespace's fresh /sys lacks.
	echo "CgroupPlugin=cgroup/v1" >"$slurm_dir/cgroup.conf"
}

start_munged() {
	# munged wants every directory above its socket searchable by all.
	chmod 711 "$tmp"
	head -c 1024 /dev/urandom >"$slurm_dir/munge.key"
	chmod 400 "$slurm_dir/munge.key"
	munged -F --socket="$slurm_dir/munge.sock" --key-file="$slurm_dir/munge.key" \
		--log-file="$slurm_dir/munged.log" --pid-file="$slurm_dir/munged.pid" \
		--seed-file="$slurm_dir/munged.seed" >"$slurm_dir/munged.out" 2>&1 &
	munged_pid=$!
	test_pids+=("$munged_pid")
	within 10 "munged answers on its socket" munge -n -S "$slurm_dir/munge.sock"
}

# shellcheck disable=SC2317 # polled through within
idle_nodes() {
	[ "$(on_host 0 sinfo -h -o '%T %D')" = "idle $hosts" ]
}

start_slurm() {
	local i
	mkdir -p "$slurm_dir/state" "$slurm_dir/spool"
	write_slurm_conf
	export SLURM_CONF=$slurm_dir/slurm.conf
	start_munged || return 1
	on_host 0 slurmctld -D -f "$SLURM_CONF" >"$slurm_dir/slurmctld.out" 2>&1 &
	slurmctld_pid=$!
	test_pids+=("$slurmctld_pid")
	within 30 "slurmctld up (scontrol ping)" on_host 0 sh -c 'scontrol ping | grep -q "is UP"' ||
		return 1
	slurmd_pids=()
	for ((i = 0; i < hosts; i++)); do
		mkdir -p "$slurm_dir/spool/$(h "$i")"
		on_host "$i" slurmd -D -N "$(h "$i")" -f "$SLURM_CONF" >"$slurm_dir/slurmd$i.out" 2>&1 &
		slurmd_pids+=($!)
		test_pids+=($!)
	done
	within 60 "$hosts slurmd registered, nodes idle (sinfo)" idle_nodes
}

stop_slurm() {
	local i
	for ((i = 0; i < ${#slurmd_pids[@]}; i++)); do stop_daemon "${slurmd_pids[i]}" "slurmd $i"; done
	[ -n "${slurmctld_pid:-}" ] && stop_daemon "$slurmctld_pid" slurmctld
	[ -n "${munged_pid:-}" ] && stop_daemon "$munged_pid" munged
	ok "Slurm's daemons ended by PID"
}

slurm_logs() {
	tail -n 5 "$slurm_dir"/*.out "$slurm_dir"/*.log 2>/dev/null | grep -v 'pmix\|MPI: Cannot' | sed 's/^/    /'
}

run_slurm() {
	local t0=$SECONDS rc job
	start_slurm || { slurm_logs; return; }
	recipe "With Slurm" >"$tmp/lanebench.sbatch"
	echo "--- the README's sbatch script, substituted:"
	cat "$tmp/lanebench.sbatch"
	(cd "$tmp" && timeout 240 ip netns exec "$(h 0)" sbatch --wait lanebench.sbatch) >"$tmp/sbatch.out" 2>&1
	rc=$?
	job=$(sed -n 's/^Submitted batch job \([0-9]*\)$/\1/p' "$tmp/sbatch.out")
	echo "--- sbatch --wait: exit $rc, $((SECONDS - t0)) s; job ${job:-none}'s output:"
	grep -v 'unknown to hwloc' "$tmp/slurm-$job.out" 2>/dev/null | tail -n 15
	if [ "$rc" = 0 ] && [ -n "$job" ]; then
		ok "sbatch --wait: job $job ended, exit 0"
	else
		fail "sbatch --wait: exit $rc: $(cat "$tmp/sbatch.out")"
		slurm_logs
	fi
	check_record "$tmp/check-$job.csv" "$tmp/check-$job.json" slurm
	stop_slurm
}

# --- Open MPI's mpirun -----------------------------------------------------------
run_mpirun() {
	local i rc t0=$SECONDS csv
	for ((i = 0; i < hosts; i++)); do echo "$(h "$i") slots=1"; done >"$tmp/hosts"
	# Where ssh would log in to HOST and run the command through a shell;
	# under HOST's own host name, as on_host (orted reports it, and ORTE
	# keys its nodes by it).
	cat >"$tmp/netns-agent" <<'EOF'
#!/bin/sh
host=$1
shift
exec ip netns exec "$host" unshare --uts sh -c 'hostname "$0" && exec sh -c "$1"' "$host" "$*"
EOF
	chmod +x "$tmp/netns-agent"
	recipe "With \`mpirun\`" >"$tmp/mpirun.sh"
	echo "--- the README's mpirun lines, substituted:"
	cat "$tmp/mpirun.sh"
	# As root (Open MPI refuses without being told twice), the agent, and
	# its daemons' control connections over the management network.
	# mpirun itself runs on host 0, a login on the cluster's first node.
	(cd "$tmp" && OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
		OMPI_MCA_plm_rsh_agent="$tmp/netns-agent" OMPI_MCA_oob_tcp_if_include=mgmt \
		timeout 240 ip netns exec "$(h 0)" bash mpirun.sh) >"$tmp/mpirun.out" 2>&1
	rc=$?
	echo "--- mpirun: exit $rc, $((SECONDS - t0)) s; its output:"
	grep -v 'unknown to hwloc' "$tmp/mpirun.out" | tail -n 15
	result "$rc" "mpirun: exit 0" "mpirun: exit $rc"
	csv=$(ls "$tmp"/results/*-check-*.csv 2>/dev/null)
	[ "$(wc -w <<<"$csv")" = 1 ] || { fail "want one record in results/, got: $csv"; return; }
	check_record "$csv" "${csv%.csv}.json" openmpi
}

case $mode in
slurm) run_slurm ;;
mpirun) run_mpirun ;;
esac
finish "launcher ($mode)"
