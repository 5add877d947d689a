# shellcheck shell=bash
# scripts/lib.sh: what the bench scripts share, sourced first:
#   cd "$(dirname "$0")/.."
#   source scripts/lib.sh bench-NAME
# (from the source root: the paths below are relative to it).  Gives:
#   bench            the script's name, for its messages
#   need_root, need_tools TOOL..., build_lanebench, demo_rate
#   own_cluster_name PREFIX [HEX_DIGITS]   a cluster name of this run's own
#   bench_scratch, bench_scratch_in DIR   tmp (a fresh one, removed; DIR,
#                    kept) and the clean-up at exit: bench_pids killed,
#                    load_pids ended (stop_load), at_exit hooks, the
#                    cluster $name taken down
#   in_host HOST CMD..., host_ns HOST, host_addr HOST RAIL   the cluster
#                    $name's hosts, by asking scripts/cluster
#   wait_listening HOST PORT..., chain_servers, chain_clients, end_servers,
#   tbf_drops HOSTS, cpu_stat, csv_columns, schedule_depths, results_stamp
# Why one file: every bench script opened with its own copy of the root
# check, the clean-up trap and the iperf3 helpers, and each knew the
# cluster's address scheme.  The analysis of what they measure is Python,
# in scripts/benchlib.py.

bench=${1:?"usage: source scripts/lib.sh NAME"}
lib_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd) # scripts/, wherever the caller runs
name='' # the cluster this run brings up (the script sets it): taken down at exit

need_root() {
	[ "$(id -u)" = 0 ] || { echo "$bench: run as root" >&2; exit 1; }
}

need_tools() { # tool...: each installed, or exit 1 naming it
	local tool
	for tool; do
		command -v "$tool" >/dev/null || { echo "$bench: needs $tool (scripts/deps)" >&2; exit 1; }
	done
}

# build/lanebench, configured when it never was, compiled.
build_lanebench() {
	[ -f build/build.ninja ] || meson setup build >/dev/null
	meson compile -C build >/dev/null
}

# scripts/demo's DEMO_RATE: the highest rate the fabric carries here.
demo_rate() {
	sed -n 's/^readonly DEMO_RATE=//p' "$lib_dir/demo"
}

# A cluster name of this run's own: `cluster up` first removes a cluster
# of the same name, which would end another benchmark running here.
own_cluster_name() { # prefix [hex digits, default 4]
	local digits=${2:-4}
	printf '%s%0*x\n' "$1" "$digits" $(($$ & ((1 << (4 * digits)) - 1)))
}

# --- scratch space and clean-up ----------------------------------------------
bench_pids=()  # processes this script started: ended by pid, nothing else
bench_hooks=() # more clean-up, in the order added
keep_tmp=''

at_exit() { # function: called at exit, after bench_pids are ended
	bench_hooks+=("$1")
}

# Busy loops a script starts as load (load_pids): ended and waited for,
# by pid, at the end of a measurement and at exit.
load_pids=()
stop_load() {
	local p
	for p in "${load_pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${load_pids[@]}"; do wait "$p" 2>/dev/null || true; done
	load_pids=()
}

bench_cleanup() {
	local p hook
	for p in "${bench_pids[@]}"; do kill "$p" 2>/dev/null || true; done
	stop_load
	for hook in "${bench_hooks[@]}"; do "$hook"; done
	[ -z "$name" ] || "$lib_dir/cluster" down --name "$name" >/dev/null 2>&1 || true
	[ -n "$keep_tmp" ] || rm -rf "$tmp"
}

# bench_scratch: sets tmp, a fresh directory removed at exit, and the
# traps; bench_scratch_in DIR: the same in DIR, created and kept ('': a
# fresh one).  A trapped signal waits for the command in progress (cluster
# up, say) to end before the EXIT trap cleans up; untrapped, bash would
# run the EXIT trap at once, racing that command (it does not get the TERM).
bench_scratch() {
	bench_scratch_in ''
}
bench_scratch_in() { # dir
	if [ -n "$1" ]; then
		tmp=$1 keep_tmp=1
		mkdir -p "$tmp"
	else
		tmp=$(mktemp -d)
	fi
	trap bench_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	trap 'exit 129' HUP
}

# --- the emulated cluster $name: names from scripts/cluster -------------------
host_ns() { "$lib_dir/cluster" ns "$1" --name "$name"; } # host
host_addr() { "$lib_dir/cluster" addr "$1" "$2"; }       # host rail|mgmt
in_host() { ip netns exec "$(host_ns "$1")" "${@:2}"; }   # host command...

# wait_listening HOST PORT...: a server listens on every PORT in HOST's
# namespace (ss), within 5 s.
wait_listening() {
	local host=$1 ns _ p missing
	shift
	ns=$(host_ns "$host")
	for _ in $(seq 50); do
		missing=''
		for p; do [ -n "$(ip netns exec "$ns" ss -Hltn "sport = :$p")" ] || missing+=" $p"; done
		[ -n "$missing" ] || return 0
		sleep 0.1
	done
	echo "$bench: iperf3 server on host $host not listening on port(s)$missing after 5 s" >&2
	return 1
}

# iperf3 on the links a pipelined chain uses, host i -> i+1 on rails 0 and
# 1, all at once: chain_servers HOSTS starts the servers (hosts 1..HOSTS-1,
# ports 5200 + rail; in the foreground of a background job, no -D, so that
# $! is theirs), chain_clients HOSTS DIR IPERF3_OPTION... runs the clients
# (-J into DIR/iperf-I-R.json; a client that failed leaves its JSON
# without a result), end_servers ends what is left of the servers
# (one-off, -1: most are gone).
chain_servers() { # hosts
	local i r
	for ((i = 1; i < $1; i++)); do
		for r in 0 1; do
			in_host $i iperf3 -s -1 -p $((5200 + r)) -B "$(host_addr $i $r)" >/dev/null &
			bench_pids+=($!)
		done
	done
	for ((i = 1; i < $1; i++)); do wait_listening $i 5200 5201; done
}
chain_clients() { # hosts dir iperf3-option...
	local hosts=$1 dir=$2 i r clients=()
	shift 2
	for ((i = 0; i < hosts - 1; i++)); do
		for r in 0 1; do
			in_host $i iperf3 -c "$(host_addr $((i + 1)) $r)" -B "$(host_addr $i $r)" \
				-p $((5200 + r)) "$@" -J >"$dir/iperf-$i-$r.json" &
			clients+=($!)
		done
	done
	wait "${clients[@]}" || true
}
end_servers() {
	local p
	for p in "${bench_pids[@]}"; do kill "$p" 2>/dev/null || true; done
	bench_pids=()
}

# Packets dropped by the tbf of every rail link of the cluster's HOSTS
# hosts: the host ends' sum, then the switch ends', one a line.
tbf_drops() { # hosts
	local i
	for ((i = 0; i < $1; i++)); do tc -n "$(host_ns $i)" -s qdisc show; done | sum_tbf_drops
	tc -n "$("$lib_dir/cluster" ns sw --name "$name")" -s qdisc show | sum_tbf_drops
}
sum_tbf_drops() {
	awk '/^qdisc tbf/ { t = 1; next } /^qdisc/ { t = 0 }
		t && /dropped/ { for (i = 1; i < NF; i++) if ($i == "(dropped") d += $(i + 1) }
		END { print d + 0 }'
}

# --- measuring -----------------------------------------------------------------
cpu_stat() { grep '^cpu ' /proc/stat; } # the CPUs' ticks so far, one line

# csv_columns CSV COLUMN...: per row of a lanebench CSV the named columns'
# values, comma-separated.
csv_columns() {
	local f=$1
	shift
	awk -F, -v want="$*" '/^#/ { next }
		!h++ { for (i = 1; i <= NF; i++) c[$i] = i; n = split(want, w, " "); next }
		{ s = ""; for (i = 1; i <= n; i++) s = s (i > 1 ? "," : "") $c[w[i]]; print s }' "$f"
}

# "algorithm depth" per broadcast of plan -a list at 8 bytes on HOSTS ranks
# x 2 lanes (scripts/schedule-depth).
schedule_depths() { # lanebench hosts
	# shellcheck disable=SC2046 # one algorithm a word
	"$lib_dir/schedule-depth" "$1" "$2" 2 8 \
		$("$1" plan -a list | awk '!/needs --platform/ && $1 !~ /^allgather-/ { print $1 }')
}

results_stamp() { date -u +%Y%m%dT%H%M%SZ; } # the results/ files' prefix
