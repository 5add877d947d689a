#!/usr/bin/env python3
"""The bench scripts' analysis, on lanebench's CSV files and on what the
scripts measured beside them (iperf3's JSON, /proc/stat lines, ping and
timing figures).  One subcommand per analysis, named after what it prints;
each prints what its script printed before from a Python heredoc or an awk
program, byte for byte (the awk ones read numbers as awk does: awk_number):

    python3 scripts/benchlib.py SUBCOMMAND ARG...

(`python3 scripts/benchlib.py --help` lists them with their arguments.)
lanebench CSV files: provenance lines start with '#', then a header.
"""
import csv
import glob
import json
import math
import os
import re
import socket
import statistics
import sys
import time


# ---- reading -------------------------------------------------------------

def read_rows(path):
    """Every data row of a file, as dicts keyed by the header."""
    with open(path, newline="") as f:
        lines = (line for line in f if not line.startswith("#"))
        yield from csv.DictReader(lines)


def csv_rows(path):
    """read_rows as a list, the file read as the scripts read it (an empty
    file: no rows)."""
    with open(path) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def iperf3_received_bps(path, failed=0.0):
    """The bit/s an iperf3 client's JSON says the server received; FAILED
    where the client failed (no result in its JSON)."""
    try:
        with open(path) as f:
            return json.load(f)["end"]["sum_received"]["bits_per_second"]
    except (KeyError, ValueError):
        return failed


def tc_rate_bits(rate):
    """A tc rate with a k, m or g bit unit ("700mbit") -> bit/s, a float."""
    n, unit = re.fullmatch(r"([0-9.]+)([kmg])bit", rate).groups()
    return float(n) * {"k": 1e3, "m": 1e6, "g": 1e9}[unit]


def size_text(b):
    """Bytes as bench-tcp shows them: 8, 512K, 8M."""
    for unit, n in (("M", 1 << 20), ("K", 1 << 10)):
        if b >= n and b % n == 0:
            return f"{b // n}{unit}"
    return str(b)


def cpu_deltas(before, after, fields=None):
    """Two /proc/stat "cpu ..." lines -> the ticks between them per field
    (user nice system idle iowait irq softirq steal ...)."""
    b, a = ([int(x) for x in line.split()[1:fields and fields + 1]] for line in (before, after))
    return [y - x for x, y in zip(b, a)]


# ---- bench-tcp -------------------------------------------------------------

def iperf3_ceiling(directory, line_bps):
    """The mean over DIRECTORY's iperf-*.json of each link's received rate,
    as a fraction of the line rate (a failed client: 0)."""
    got = [iperf3_received_bps(f) for f in glob.glob(directory + "/iperf-*.json")]
    print(f"{sum(got) / len(got) / line_bps:.3f}")


def print_tcp_table(path, ceiling, rtt, depths, bps):
    """bench-tcp's table: per row its efficiency against M/(kB) and the
    iperf3 ceiling, CPU per GB and the models; then the 8-byte rows against
    2 x (RTT/2) x depth, the targets, the calibration."""
    with open(depths) as f:
        depth = dict((a, int(d)) for a, d in (line.split() for line in f))
    rows = csv_rows(path)
    fmt = "%-11s %8s %10s %6s %6s %11s %9s %9s %9s %9s"
    print(fmt % ("algorithm", "size", "median_s", "slice", "eff", "eff/iperf3", "cpu_s/GB",
                 "meas/tab", "meas/ref", "meas/sim"))
    for r in rows:
        m, t = int(r["message_bytes"]), float(r["time_median_seconds"])
        eff = m / (2 * bps / 8) / t  # M / (k B) over the time, k = 2 lanes
        cpu = r.get("cpu_seconds_per_gigabyte") or "-"
        if cpu != "-":
            cpu = f"{float(cpu):.2f}"
        print(fmt % (r["algorithm"], size_text(m), f"{t:.4f}", size_text(int(r["slice_bytes"])),
                     f"{eff:.3f}", f"{eff / ceiling:.3f}", cpu,
                     f'{float(r["measured_over_table_ratio"]):.3f}',
                     f'{float(r["measured_over_refined_ratio"]):.3f}',
                     f'{float(r["measured_over_sim_ratio"]):.3f}'))
    print(f"\n8 bytes against 2 x (RTT/2) x depth (RTT {rtt * 1e6:.1f} us; depth: longest path in hops, from plan --json):")
    for r in rows:
        if int(r["message_bytes"]) == 8:
            d = depth[r["algorithm"]]
            ref = 2 * (rtt / 2) * d
            print(f'  {r["algorithm"]:<11} depth {d}  {float(r["time_median_seconds"]) * 1e6:8.1f} us  '
                  f'= {float(r["time_median_seconds"]) / ref:.2f} x {ref * 1e6:.1f} us')
    print("\ntargets, multilane >= 8M: >= 0.9 of the iperf3 ceiling and >= 0.85 of M/(kB):")
    for r in rows:
        m = int(r["message_bytes"])
        if r["algorithm"] == "multilane" and m >= 8 << 20:
            eff = m / (2 * bps / 8) / float(r["time_median_seconds"])
            ok = eff / ceiling >= 0.9 and eff >= 0.85
            print(f"  multilane {size_text(m)}: {eff / ceiling:.3f} of iperf3, {eff:.3f} of M/(kB): "
                  f"{'met' if ok else 'MISSED'}")
    r = rows[-1]
    print(f'calibration: latency {float(r["calib_latency_seconds"]) * 1e6:.1f} us, lane bandwidth '
          f'{float(r["calib_lane_bandwidth_bytes_per_second"]) / 1e6:.2f} MB/s (line rate {bps / 8e6:.2f} MB/s)')


# ---- bench-fabric ----------------------------------------------------------

def print_fabric_table(tmp, rates, links):
    """bench-fabric's table: per rate (TMP/RATE/ holds its iperf3 JSONs,
    its /proc/stat lines and its drops) the median and slowest link over
    the rate, the CPU shares, drops and retransmits."""
    print("| rate Mbit/s | median link / rate | min link / rate | user | sys | softirq | busy | niced "
          "| tbf drops host/switch | retransmits |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for rate in rates:
        got, retr = [], 0
        for f in glob.glob(f"{tmp}/{rate}/iperf-*.json"):
            try:
                with open(f) as j:
                    end = json.load(j)["end"]
                got.append(end["sum_received"]["bits_per_second"])
                retr += end["sum_sent"].get("retransmits", 0)
            except (KeyError, ValueError):
                pass  # a client that failed: counted below as a missing link
        got += [0.0] * (links - len(got))
        with open(f"{tmp}/{rate}/stat") as f:
            d = cpu_deltas(*f.readlines()[:2])
        total = sum(d[:8]) or 1
        frac = lambda *i: sum(d[k] for k in i) / total
        with open(f"{tmp}/{rate}/drops") as f:
            drops = f.read().strip()
        bps = float(rate) * 1e6
        print(f"| {rate} | {statistics.median(got) / bps:.2f} | {min(got) / bps:.2f} "
              f"| {frac(0):.2f} | {frac(2):.2f} | {frac(6):.2f} "
              f"| {frac(0, 2, 5, 6, 7):.2f} | {frac(1):.2f} | {drops} | {retr} |")


# ---- bench-links, bench-hetero, bench-wanlink: one stream ------------------

def print_stream(path, before, after):
    """One iperf3 stream: "Mbit/s softirq busy niced", the CPU shares
    between two /proc/stat cpu lines (a failed client: 0 Mbit/s)."""
    mbps = iperf3_received_bps(path) / 1e6
    d = cpu_deltas(before, after, 8)
    t = sum(d) or 1
    print(f"{mbps:.1f} {d[6] / t:.2f} {(d[0] + d[2] + d[5] + d[6] + d[7]) / t:.2f} {d[1] / t:.2f}")


def print_mbit(path):
    """An iperf3 client's JSON -> Mbit/s received, "0.0" when it failed."""
    print("%.1f" % (iperf3_received_bps(path) / 1e6))


def print_bits(path):
    """An iperf3 client's JSON ('-': stdin) -> bit/s received, as JSON
    holds it; nothing and exit 1 when it has none."""
    try:
        with (sys.stdin if path == "-" else open(path)) as f:
            print(json.load(f)["end"]["sum_received"]["bits_per_second"])
    except (KeyError, ValueError):
        sys.exit(1)


def print_connect(addr, port):
    """Whether a TCP connection to ADDR:PORT gets through, and how fast it
    failed (bench-links' nolink)."""
    t = time.monotonic()
    try:
        socket.create_connection((addr, int(port)), timeout=10).close()
        print("connected (the nolink did not hold)")
    except OSError as e:
        print("failed after %.1f s: %s" % (time.monotonic() - t, e))


# ---- bench-small -----------------------------------------------------------

def print_small_table(tmp, rounds):
    """bench-small's table: per (load, build, algorithm) the median of the
    rounds' medians and p99s against depth x one-way, from TMP's oneway,
    depths and LOAD-BUILD-ROUND.csv files."""
    with open(os.path.join(tmp, "oneway")) as f:
        rails = [float(line.split()[1]) for line in f]
    one_way = statistics.median(rails)
    with open(os.path.join(tmp, "depths")) as f:
        depth = dict((a, int(d)) for a, d in (line.split() for line in f))
    print("one-way (ping RTT/2, host 0 to each other host, median): " +
          ", ".join(f"rail{r} {v * 1e6:.1f} us" for r, v in enumerate(rails)) +
          f"; used: {one_way * 1e6:.1f} us")
    runs = {}  # (load, build, algorithm) -> [(median, p99)] one per round
    for path in sorted(glob.glob(os.path.join(tmp, "*-*-*.csv"))):
        load, build, _ = os.path.basename(path)[:-4].split("-")
        for r in csv_rows(path):
            runs.setdefault((int(load), build, r["algorithm"]), []).append(
                (float(r["time_median_seconds"]), float(r["time_p99_seconds"])))
    us = lambda s: f"{s * 1e6:.0f}"
    fmt = "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |"
    print()
    print(fmt % ("load", "build", "algorithm", "depth", "depth x one-way us", "rounds",
                 "median us", "p99 us", "worst p99 us", "round medians us", "median / (depth x one-way)"))
    print(fmt % (("---",) * 11))
    order = {a: i for i, a in enumerate(depth)}
    for (load, build, alg), v in sorted(runs.items(),
                                        key=lambda kv: (kv[0][0], order.get(kv[0][2], 99), kv[0][1] != "before")):
        med = statistics.median(m for m, _ in v)
        p99 = statistics.median(p for _, p in v)
        ref = depth[alg] * one_way
        lo, hi = min(m for m, _ in v), max(m for m, _ in v)
        print(fmt % (load, build, alg, depth[alg], us(ref), f"{len(v)}/{rounds}", us(med), us(p99),
                     us(max(p for _, p in v)), f"{us(lo)}-{us(hi)}", f"{med / ref:.2f}"))


# ---- bench-sites -----------------------------------------------------------

def print_sites_table(tmp, transports):
    """bench-sites' tables: per row measured against the simulator and the
    two-site form, seed 003's ratios, each transport's calibration."""
    def rows(t):
        path = os.path.join(tmp, t + ".csv")
        return csv_rows(path) if os.path.exists(path) else []

    def f(x, fmt="%.3f"):
        return fmt % float(x) if x not in ("", None) else "-"
    print("\n| algorithm | transport | MiB | measured s | predicted s | meas/pred | two-site form s | meas/form |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    by = {}
    for t in transports:
        for r in rows(t):
            m = int(r["message_bytes"]) >> 20
            meas, sim = float(r["time_median_seconds"]), float(r["sim_seconds"] or "nan")
            by[(t, m, r["algorithm"])] = (meas, sim)
            print(f'| {r["algorithm"]} | {t} | {m} | {meas:.3f} | {f(r["sim_seconds"])} | '
                  f'{f(r["measured_over_sim_ratio"], "%.2f")} | {f(r["table_seconds"])} | '
                  f'{f(r["measured_over_table_ratio"], "%.2f")} |')
    ratios = [("binary", "multilane"), ("binary", "chain"), ("binomial", "multilane"), ("chain", "multilane")]
    print("\n| transport | MiB | ratio | measured | simulator | paper (L = 10 ms, 256 MiB) |")
    print("| --- | ---: | --- | ---: | ---: | ---: |")
    paper = {"binary/multilane": "about 3", "binary/chain": "about 3", "binomial/multilane": "about 4",
             "chain/multilane": "about 1"}
    for (t, m) in sorted({(t, m) for (t, m, _) in by}):
        for a, b in ratios:
            if (t, m, a) in by and (t, m, b) in by:
                (ma, sa), (mb, sb) = by[(t, m, a)], by[(t, m, b)]
                print(f"| {t} | {m} | {a}/{b} | {ma / mb:.2f} | {sa / sb:.2f} | {paper[a + '/' + b]} |")
    for t in transports:
        r = rows(t)
        if r:
            print(f'\n{t} calibration (within the sites): latency {float(r[0]["calib_latency_seconds"]) * 1e6:.1f} us, '
                  f'lane bandwidth {float(r[0]["calib_lane_bandwidth_bytes_per_second"]) * 8 / 1e6:.1f} Mbit/s')


# ---- bench-allgather -------------------------------------------------------

def predictions(path):
    """A sim CSV's seconds per (algorithm, message bytes)."""
    return {(r["algorithm"], r["message_bytes"]): float(r["sim_seconds"]) for r in csv_rows(path)}


def print_allgather_table(bounded_csv, fluid_csv, sim_csv, p, k, slow_rate, measured_paths):
    """bench-allgather's table: each measured row against the bounded and
    fluid models, bcast's prediction (SIM_CSV, or '-': the rows' own
    sim_seconds), the receive bound (p - 1) m / (k SLOW), the ring and the
    doubling; then how many rows each model predicts within 15 %."""
    nan = float("nan")
    bounded, fluid = predictions(bounded_csv), predictions(fluid_csv)
    sim = predictions(sim_csv) if sim_csv != "-" else None
    slow = tc_rate_bits(slow_rate) / 8
    measured = [r for path in measured_paths for r in csv_rows(path + ".csv")]
    time = {(r["transport"], r["message_bytes"], r["algorithm"]): float(r["time_median_seconds"])
            for r in measured}
    print("| algorithm | transport | m | measured s | bounded s | meas/bounded | fluid s | meas/fluid "
          "| bcast's sim s | meas/sim | (p-1)m/(kB_slow) s | meas/bound | / ring | / doubling |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    within = {"bounded": [], "fluid": [], "bcast's sim": []}
    for r in measured:
        key, m, t = (r["algorithm"], r["message_bytes"]), r["message_bytes"], float(r["time_median_seconds"])
        b, fl = bounded.get(key, nan), fluid.get(key, nan)
        mp = sim.get(key, nan) if sim is not None else float(r["sim_seconds"] or "nan")
        for name, pred in (("bounded", b), ("fluid", fl), ("bcast's sim", mp)):
            if pred == pred:
                within[name].append(abs(t / pred - 1) <= 0.15)
        bound = (p - 1) * int(m) / (k * slow)
        ring = time.get((r["transport"], m, "allgather-ring"), nan)
        dbl = time.get((r["transport"], m, "allgather-doubling"), nan)
        size = f"{int(m) / 2**20:g}M" if int(m) >= 2**20 else f"{int(m) // 1024}K"
        print(f"| {r['algorithm']} | {r['transport']} | {size} | {t:.3f} | {b:.3f} | {t / b:.2f} | {fl:.3f} "
              f"| {t / fl:.2f} | {mp:.3f} | {t / mp:.2f} | {bound:.3f} | {t / bound:.2f} | {t / ring:.2f} "
              f"| {t / dbl:.2f} |".replace("nan", "-"))
    print("\nbcast's sim: fluid; for cluster-agent-gb/-ts LogP (their plans' model)")
    print()
    for name, ok in within.items():
        print(f"measured / {name} within +-15 %: {sum(ok)} of {len(ok)} rows")


def print_measured_runs(paths):
    """What saved runs measured: "ALGORITHMS SIZES SLICES", each a comma
    list in first-seen order (slices sorted, seed 001's agents left out:
    they plan their own)."""
    rows = [r for p in paths for r in csv_rows(p)]
    uniq = lambda k: list(dict.fromkeys(r[k] for r in rows))
    slices = {r["slice_bytes"] for r in rows if not r["algorithm"].startswith("cluster-agent-")}
    print(",".join(uniq("algorithm")), ",".join(uniq("message_bytes")), ",".join(sorted(slices)))


def print_link_efficiency(measured_links, set_links):
    """bench-allgather's PLATFORM=scaled factor: the median over the
    measured links (`platform show -f links` lines) of each one's rate over
    the set rate of the same link, "%.4f"."""
    def links(path):
        with open(path) as f:
            return [line.split() for line in f if line.split()[:1] == ["link"]]
    want = {tuple(w[1:4]): awk_number(w[4]) for w in links(set_links)}
    r = sorted(awk_number(w[4]) / want.get(tuple(w[1:4]), 0.0) for w in links(measured_links))
    print("%.4f" % (median_of_sorted(r) if r else 0.0), end="")


# ---- bench-hetero ----------------------------------------------------------

def model_times(path):
    """"algorithm/bytes seconds" lines (bench-hetero's sim_model) -> dict."""
    with open(path) as f:
        return dict(line.split() for line in f if line.strip())


def print_hetero_table(per_lane, bounded_txt, multi_txt, ncpu, heuristics, measured_paths):
    """bench-hetero's tables: each row against bcast's simulation and the
    multi-port, per-lane and bounded models, its throughput and CPU share;
    then per transport and size the best heuristic against the best
    homogeneous algorithm and the best tree."""
    one, bounded, multi = model_times(per_lane), model_times(bounded_txt), model_times(multi_txt)
    heur = set(heuristics.split(","))
    rows = []
    for path in measured_paths:
        rows += csv_rows(path + ".csv")
    print("| algorithm | transport | MiB | measured s | bcast s | meas/bcast | multi-port s | meas/mp "
          "| 1-port s | meas/1-port | bounded s | meas/bounded | MB/s | cpu |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        t, size = float(r["time_median_seconds"]), int(r["message_bytes"])
        sim = float(r["sim_seconds"]) if r["sim_seconds"] else float("nan")
        m = float(one.get(f"{r['algorithm']}/{size}", "nan"))
        b = float(bounded.get(f"{r['algorithm']}/{size}", "nan"))
        mp = float(multi.get(f"{r['algorithm']}/{size}", "nan"))
        busy = int(r["ranks"]) * (float(r["cpu_user_seconds"]) + float(r["cpu_sys_seconds"])) / t / ncpu
        print(f"| {r['algorithm']} | {r['transport']} | {size / 2**20:.0f} | {t:.3f} | {sim:.3f} | {t / sim:.2f} "
              f"| {mp:.3f} | {t / mp:.2f} | {m:.3f} | {t / m:.2f} | {b:.3f} | {t / b:.2f} | {size / t / 1e6:.2f} "
              f"| {busy:.2f} |".replace("nan", "-"))
    print()
    # the homogeneous trees apart: multilane's ranks receive on two links at once
    trees = {"chain", "binary", "binomial"}
    print("| transport | MiB | best heuristic | s | best homogeneous | s | homogeneous / heuristic "
          "| best tree (chain, binary, binomial) | s | tree / heuristic |")
    print("| --- | ---: | --- | ---: | --- | ---: | ---: | --- | ---: | ---: |")
    for key in sorted({(r["transport"], int(r["message_bytes"])) for r in rows}):
        mine = [r for r in rows if (r["transport"], int(r["message_bytes"])) == key]
        best = lambda among: min((float(r["time_median_seconds"]), r["algorithm"]) for r in mine
                                 if among(r["algorithm"]))
        (th, h), (to, o) = best(lambda a: a in heur), best(lambda a: a not in heur)
        tt, tn = best(lambda a: a in trees)
        print(f"| {key[0]} | {key[1] / 2**20:.0f} | {h} | {th:.3f} | {o} | {to:.3f} | {to / th:.2f} "
              f"| {tn} | {tt:.3f} | {tt / th:.2f} |")


# ---- awk's numbers ---------------------------------------------------------

AWK_NUMBER = re.compile(r"\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*")


def awk_number(text):
    """A field as awk reads it in arithmetic: its leading number, else 0."""
    m = re.match(r"\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?", text)
    return float(m.group(0)) if m else 0.0


def awk_equal(a, b):
    """awk's == on two fields: as numbers when both look like one, else as
    strings."""
    if AWK_NUMBER.fullmatch(a) and AWK_NUMBER.fullmatch(b):
        return float(a) == float(b)
    return a == b


def median_of_sorted(v):
    """The median of sorted values: the middle one, or the mean of the two."""
    n = len(v)
    return v[(n + 1) // 2 - 1] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


# ---- bench-hbsp ------------------------------------------------------------

def print_hbsp_row(kind, p, r, slow, fast, rows_path, prev):
    """bench-hbsp's row of one configuration: ROWS_PATH holds "root time sim
    hbsp load" per run; T_s/T_f the medians of the slow and the fast root's
    runs, against the simulator, HBSP and (broadcast) 2r/(1 + r), and the
    model's check; T_s/T_f goes to fd 3 too (the next gather's PREV)."""
    times, sim, hbsp, loads = {}, {}, {}, []
    with open(rows_path) as f:
        for line in f:
            root, t, s, h, load = line.split()[:5]
            times.setdefault(root, []).append(awk_number(t))
            sim[root], hbsp[root] = awk_number(s), awk_number(h)
            loads.append(load)
    ts, tf = median_of_sorted(sorted(times[slow])), median_of_sorted(sorted(times[fast]))
    m = ts / tf
    if kind == "bcast":
        rv = awk_number(r)
        paper, ok = "%.3f" % (2 * rv / (1 + rv)), 0.9 <= m <= 1.25
    else:
        paper, ok = "-", m > 1 and (prev == "" or m >= awk_number(prev))
    lmin, lmax = loads[0], ""  # (awk's: the first of equal ones; an unset maximum is "")
    for load in loads:
        if awk_number(load) < awk_number(lmin):
            lmin = load
        if awk_number(load) > awk_number(lmax):
            lmax = load
    print("| %s | %d | %s | %.3f | %.3f | %.3f | %.3f | %.3f | %s | %.2f | %.2f | %d/%d | %s-%s | %s |" % (
        kind, int(awk_number(p)), r, ts, tf, m, sim[slow] / sim[fast], hbsp[slow] / hbsp[fast], paper,
        ts / sim[slow], tf / sim[fast], len(times[slow]), len(times[fast]), lmin, lmax, "yes" if ok else "NO"))
    with open("/dev/fd/3", "w") as f:
        f.write("%.6f\n" % m)


# ---- bench-sim -------------------------------------------------------------

def print_sim_case(rows_path, target_s, target_mib, baseline):
    """bench-sim's lines of one case: ROWS_PATH holds "tag algorithm wall
    user sys KiB simulated" per process (tag old or new, algorithm "all"
    for sim -a all); a line per algorithm (and binary), their sum, sim -a
    all against the targets, new/old ratios with a BASELINE; exit 1 when
    the binaries' simulated seconds differ."""
    wall, cpus, kib, sim = {}, {}, {}, {}
    sumw, sumc, peak, order = {}, {}, {}, []
    with open(rows_path) as f:
        for line in f:
            tag, a, w, user, system, k, s = (line.split() + [""] * 7)[:7]
            wall[tag, a], cpus[tag, a] = awk_number(w), awk_number(user) + awk_number(system)
            kib[tag, a], sim[tag, a] = awk_number(k), s
            if a != "all":
                sumw[tag] = sumw.get(tag, 0) + wall[tag, a]
                sumc[tag] = sumc.get(tag, 0) + cpus[tag, a]
                peak[tag] = max(peak.get(tag, 0), kib[tag, a])
                if a not in order:
                    order.append(a)
    tags = ["old", "new"] if baseline else ["new"]

    def line(tag, a, w, cpu, k, what):
        print("  %-3s %-11s %7.2f s wall %7.2f s cpu %8.1f MiB peak RSS   %s" % (
            tag if baseline else "", a, w, cpu, k / 1024, what))

    def ratios(a):
        same = awk_equal(sim.get(("new", a), ""), sim.get(("old", a), ""))
        print("  %-15s new/old: wall %.2f, cpu %.2f, peak RSS %.2f; simulated seconds %s" % (
            a, wall["new", a] / wall["old", a], cpus["new", a] / cpus["old", a],
            kib["new", a] / kib["old", a], "the same" if same else "DIFFER"))
    for a in order:
        for t in tags:
            line(t, a, wall.get((t, a), 0), cpus.get((t, a), 0), kib.get((t, a), 0),
                 "(simulated " + sim.get((t, a), "") + " s)")
        if baseline:
            ratios(a)
    for t in tags:
        line(t, "sum", sumw.get(t, 0), sumc.get(t, 0), peak.get(t, 0), "(one process each)")
    for t in tags:
        w, k = wall.get((t, "all"), 0), kib.get((t, "all"), 0)
        line(t, "sim -a all", w, cpus.get((t, "all"), 0), k,
             "target < %g s, < %g MiB: wall %.2f, peak %.2f of it" % (target_s, target_mib, w / target_s,
                                                                   k / 1024 / target_mib))
    if baseline:
        ratios("all")
    different = "".join(" " + a for a in order + ["all"]
                        if baseline and not awk_equal(sim.get(("old", a), ""), sim.get(("new", a), "")))
    if different:
        print("bench-sim: simulated seconds differ from the BASELINE:" + different, file=sys.stderr)
        sys.exit(1)


# ---- bench-rendezvous ------------------------------------------------------

def print_rendezvous_table(median_path):
    """bench-rendezvous' rows: per size its median run's key=value line;
    the growth of wall, CPU and RSS per doubling of the ranks against the
    row above."""
    v, last = {}, None
    with open(median_path) as f:
        for line in f:
            for field in line.split():
                key, _, value = field.partition("=")
                v[key] = value
            p, wall = awk_number(v.get("ranks", "")), awk_number(v.get("total_s", ""))
            cpu, rss = awk_number(v.get("cpu0_s", "")), awk_number(v.get("rss0_kib", ""))
            if last:
                lp, lw, lc, lr = last
                d = math.log(p / lp) / math.log(2)
                gw, gc, gr = ("%.2f" % ((x / lx) ** (1 / d)) for x, lx in ((wall, lw), (cpu, lc), (rss, lr)))
            else:
                gw = gc = gr = "-"
            print("| %d | %.3f | %.3f | %.3f | %.3f | %.3f | %.1f | %.1f | %s | %s | %s | %d | %s |" % (
                int(p), wall, awk_number(v.get("open_s", "")), awk_number(v.get("allgather_s", "")),
                awk_number(v.get("agree_s", "")), cpu, rss / 1024, awk_number(v.get("rss_median_kib", "")) / 1024,
                gw, gc, gr, int(awk_number(v.get("late", ""))), v.get("launch_s", "")))
            last = p, wall, cpu, rss


# ---- bench-dpdk ------------------------------------------------------------

def print_dpdk_medians(mtu, path_label, via, copies, csv_path):
    """One line of bench-dpdk's summary: "MTU PATH VIA EFF CPU_S/GB COPIES",
    the lower medians over the CSV's rows (awk's numbers: an empty cell 0)."""
    rows = csv_rows(csv_path)

    def lower_median(column):
        v = sorted((awk_number(r[column] or "") for r in rows))
        return v[(len(v) + 1) // 2 - 1] if v else 0.0
    print("%s %s %s %.3f %.2f %s" % (mtu, path_label, via, lower_median("efficiency_ratio"),
                                     lower_median("cpu_seconds_per_gigabyte"), copies))


# ---- check's link rows (the fault tests' diagnosis) -------------------------

def print_link_figures(path):
    """Each directed pair's best rate and one-way latency from a check CSV's
    link rows, "LANE:RANK->PEER=Mbit/s/us" ("-": not measured, as a latency
    under shift): where a test sees a port named it did not break, these
    tell noise from a cause."""
    def num(value, scale):
        return "%.0f" % (float(value) * scale) if value else "-"
    print("each pair's best, Mbit/s/us:", " ".join(
        "%s:%s->%s=%s/%s" % (r["lane"], r["rank"], r["peer"], num(r["tx_bytes_per_second"], 8e-6),
                             num(r["latency_seconds"], 1e6))
        for r in read_rows(path) if r["phase"] == "link"))


# ---- bench-tune (regret) and outputs-snapshot (blank) ----------------------

def rounds_of(paths):
    """The rows of each round: a file's rows by their label (bench-tune
    labels each job's rows with its round, and keeps every job's rows in one
    file), in the order they were written."""
    for path in paths:
        rounds = {}
        for row in read_rows(path):
            rounds.setdefault(row.get("label", ""), []).append(row)
        yield from rounds.values()


def configuration(row):
    """A row's "ALGO/SLICE", a slice beyond the message being the message."""
    size = int(row["message_bytes"])
    return "%s/%d" % (row["algorithm"], min(int(row["slice_bytes"]), size))


def keyed_rows(rows):
    """(configuration, row) for one round's rows (a job whose -s list starts
    with auto: bench-tune's): a job runs each algorithm's slices in -s
    order, so an algorithm's first row at a size is at its model slice, keyed
    "ALGO/auto" (the model's slice differs between jobs as their calibrations
    do) unless it is the whole message; a fixed slice is keyed "ALGO/SLICE",
    a slice beyond the message being the message (one slice).  Auto's first
    row at a size (-s auto) is keyed "auto"; its rows at fixed slices run the
    table's algorithm at that slice, and count as auto's where that is
    auto's own configuration (the fixed slice cuts the message as the pick
    does: one slice and one slice, say), as a rival's slices that collapse
    onto one do."""
    seen, auto_ran = set(), {}
    for row in rows:
        size, auto = int(row["message_bytes"]), bool(row.get("auto_source"))
        first = (size, "auto" if auto else row["algorithm"]) not in seen
        seen.add((size, "auto" if auto else row["algorithm"]))
        whole = int(row["slice_bytes"]) >= size
        ran = configuration(row)
        if auto and first:
            auto_ran[size] = ran
            yield "auto", row
        elif auto and auto_ran.get(size) == ran:
            yield "auto", row
        elif first and not whole:
            yield row["algorithm"] + "/auto", row
        elif not auto:
            yield ran, row


def held_out_regret(rounds):
    """Auto against the best configuration, round by round: in each round
    (a job) the best is chosen on the other rounds' rows (the median of
    their medians), and auto's row is set against that configuration's row
    in the same job; the median over rounds of those ratios - 1.  Chosen
    and timed on the same rows, the best is the luckiest of a dozen
    configurations as often as the fastest, and a job-to-job drift (dpdk's
    medians moved +-25 % between jobs) falls between auto and its rivals;
    held out and paired, neither does.  rounds: [{configuration: [seconds]}]
    of one size; NaN with fewer than two rounds."""
    ratios = []
    for j, mine in enumerate(rounds):
        others = {}
        for k, r in enumerate(rounds):
            for key, v in r.items():
                if k != j and key != "auto":
                    others.setdefault(key, []).extend(v)
        pooled = {k: statistics.median(v) for k, v in others.items() if k in mine}
        if "auto" in mine and pooled:
            best = min(pooled, key=pooled.get)
            ratios.append(statistics.median(mine["auto"]) / statistics.median(mine[best]))
    return statistics.median(ratios) - 1 if ratios and len(rounds) > 1 else float("nan")


def regret(paths):
    """Per message size: auto's time against the best configuration's, each
    configuration's time the median of its rows' medians (its rounds, and the
    slices that collapse onto it), so that one slow row decides nothing; and
    held_out_regret's figure, over the rounds (rounds_of)."""
    times, picked, source, per_round = {}, {}, {}, {}
    for j, rows in enumerate(rounds_of(paths)):
        for key, row in keyed_rows(rows):
            size, secs = int(row["message_bytes"]), float(row["time_median_seconds"])
            times.setdefault(size, {}).setdefault(key, []).append(secs)
            per_round.setdefault(size, {}).setdefault(j, {}).setdefault(key, []).append(secs)
            if key == "auto":
                picked.setdefault(size, {}).setdefault(configuration(row), 0)
                picked[size][configuration(row)] += 1
                source[size] = row["auto_source"]
    for size in sorted(times):
        pooled = {k: statistics.median(v) for k, v in times[size].items()}
        if "auto" not in pooled:
            sys.exit("benchlib regret: no -a auto rows at %d bytes" % size)
        auto = pooled.pop("auto")
        best = min(pooled, key=pooled.get)
        spread = max(times[size][best]) / min(times[size][best]) - 1
        ran = max(picked[size], key=picked[size].get)
        yield {"bytes": size, "regret": max(auto / min(auto, pooled[best]) - 1, 0.0),
               "held_out": max(held_out_regret(list(per_round[size].values())), 0.0),
               "best": best, "auto": ran, "source": source[size], "auto_s": auto,
               "best_s": pooled[best], "rounds": len(per_round[size]),
               "best_spread": spread}


def print_regret(label, paths, split):
    """The regret table; a size MISSED when its held-out regret (the one
    without selection's bias or the jobs' drift) is over its target."""
    print("%-5s %9s %7s %7s %6s %-18s %-18s %-5s %10s %10s %6s %7s" % (
        "", "bytes", "pooled", "held", "target", "best (algo/slice)", "auto (algo/slice)", "from",
        "auto s", "best s", "rounds", "spread"))
    for r in regret(paths):
        target = 0.05 if r["bytes"] >= split else 0.15
        print("%-5s %9d %6.1f%% %6.1f%% %5.0f%% %-18s %-18s %-5s %10.6f %10.6f %6d %6.1f%%%s" % (
            label, r["bytes"], 100 * r["regret"], 100 * r["held_out"], 100 * target, r["best"],
            r["auto"], r["source"], r["auto_s"], r["best_s"], r["rounds"], 100 * r["best_spread"],
            "  MISSED" if not r["held_out"] <= target else ""))


def blank_columns(path, names):
    """Rewrites a lanebench CSV with the named columns' values replaced by
    "-": a measured time in an otherwise deterministic file, for diffs."""
    with open(path, newline="") as f:
        lines = f.readlines()
    head = [line for line in lines if line.startswith("#")]
    rows = list(csv.reader(line for line in lines if not line.startswith("#")))
    if not rows:
        return
    drop = [i for i, name in enumerate(rows[0]) if name in names]
    with open(path, "w", newline="") as f:
        f.writelines(head)
        out = csv.writer(f, lineterminator="\n")
        out.writerow(rows[0])
        for row in rows[1:]:
            out.writerow(["-" if i in drop else v for i, v in enumerate(row)])


# ---- the command line ------------------------------------------------------

def floats(*xs):
    return [float(x) for x in xs]


# name: (arguments shown, least count, action on the arguments)
COMMANDS = {
    "regret": ("LABEL SPLIT_BYTES FILE...", 3, lambda a: print_regret(a[0], a[2:], int(a[1]))),
    "blank": ("FILE COLUMN...", 2, lambda a: blank_columns(a[0], set(a[1:]))),
    "link-figures": ("CHECK_CSV", 1, lambda a: print_link_figures(a[0])),
    "rate-bps": ("RATE", 1, lambda a: print(int(tc_rate_bits(a[0].lower())))),
    "iperf3-ceiling": ("DIR LINE_BPS", 2, lambda a: iperf3_ceiling(a[0], float(a[1]))),
    "iperf3-mbit": ("JSON", 1, lambda a: print_mbit(a[0])),
    "iperf3-bits": ("JSON|-", 1, lambda a: print_bits(a[0])),
    "stream": ("JSON CPU_BEFORE CPU_AFTER", 3, lambda a: print_stream(*a[:3])),
    "connect": ("ADDR PORT", 2, lambda a: print_connect(a[0], a[1])),
    "tcp-table": ("CSV CEILING RTT_S DEPTHS LINE_BPS", 5,
                  lambda a: print_tcp_table(a[0], *floats(a[1], a[2]), a[3], float(a[4]))),
    "fabric-table": ("DIR RATES LINKS", 3, lambda a: print_fabric_table(a[0], a[1].split(), int(a[2]))),
    "small-table": ("DIR ROUNDS", 2, lambda a: print_small_table(a[0], int(a[1]))),
    "sites-table": ("DIR TRANSPORTS", 2, lambda a: print_sites_table(a[0], a[1].split(","))),
    "allgather-table": ("BOUNDED.csv FLUID.csv SIM.csv|- HOSTS RAILS SLOW MEASURED...", 6,
                        lambda a: print_allgather_table(a[0], a[1], a[2], int(a[3]), int(a[4]), a[5], a[6:])),
    "measured-runs": ("CSV...", 1, lambda a: print_measured_runs(a)),
    "link-efficiency": ("MEASURED_LINKS SET_LINKS", 2, lambda a: print_link_efficiency(a[0], a[1])),
    "hetero-table": ("PER_LANE BOUNDED MULTI_PORT NCPU HEURISTICS MEASURED...", 5,
                     lambda a: print_hetero_table(a[0], a[1], a[2], int(a[3]), a[4], a[5:])),
    "hbsp-row": ("KIND P R SLOW_ROOT FAST_ROOT ROWS PREV", 7, lambda a: print_hbsp_row(*a[:7])),
    "sim-case": ("ROWS TARGET_S TARGET_MIB BASELINE(1|'')", 4,
                 lambda a: print_sim_case(a[0], float(a[1]), float(a[2]), a[3] != "")),
    "rendezvous-table": ("MEDIAN_RUNS", 1, lambda a: print_rendezvous_table(a[0])),
    "dpdk-medians": ("MTU PATH VIA COPIES CSV", 5, lambda a: print_dpdk_medians(*a[:5])),
}

USAGE = "usage: " + "\n       ".join(
    "benchlib.py %s %s" % (name, shown) for name, (shown, _, _) in COMMANDS.items())


def main(argv):
    if len(argv) >= 2 and argv[1] in ("-h", "--help"):
        print(USAGE)
        return
    if len(argv) < 2 or argv[1] not in COMMANDS or len(argv) - 2 < COMMANDS[argv[1]][1]:
        sys.exit(USAGE)
    # a file of another kind, or none: a line naming it, not a traceback
    try:
        COMMANDS[argv[1]][2](argv[2:])
    except KeyError as e:
        sys.exit("benchlib.py %s: no column %s in %s" % (argv[1], e, " ".join(argv[2:])))
    except (OSError, ValueError) as e:
        sys.exit("benchlib.py %s: %s" % (argv[1], e))


if __name__ == "__main__":
    main(sys.argv)
