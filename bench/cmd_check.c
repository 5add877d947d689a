/* lanebench check: the acceptance check of a cluster (engine/check.h) on
 * every rank of the job; rank 0 prints the matrix (rank x lane), the
 * aggregates, the collectives, every failure by name and one verdict, and
 * keeps the record: the rows as CSV (results/<time>-check-<label>.csv, or
 * -o) and as JSON beside it (or --json).  Exit 0 pass, 1 a check failed. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "check_rerun.h"
#include "cli.h"
#include "engine/check.h"
#include "engine/check_expect.h"
#include "launch/bootstrap.h"
#include "lib/error.h"
#include "lib/stop.h"
#include "lib/units.h"
#include "report/check_page.h"
#include "report/csv.h"
#include "report/outfile.h"
#include "report/table.h"
#include "lib/wrap.h"

/* Lanes the printout summarises the matrix of (the job's most). */
#define LB_CHECK_PRINT_LANES 16

struct check_opts {
	struct lb_algo_set algos;
	uint64_t bcast_size, bw_size;
	uint32_t window, iterations, lat_iterations;
	int idle, pattern;
	const char *rerun;
	double timeout, lane_rate, min_bw, max_lat, max_model_ratio, max_bound_ratio, max_loss;
	double duration, interval, max_spread; /* burn-in; 0: not asked for */
	uint32_t max_errors;
	const char *expect;
	struct lb_tp_options tpo;
	const char *nics, *transport, *output, *json, *html;
};

#define OFF(f) offsetof(struct check_opts, f)

static const char *const idles[] = { "spin", "yield", "sleep", NULL };

/* "0.9", "90%", "90 %" -> 0.9 (engine/check_expect.h); a bare "90" is
 * ambiguous and refused. */
static int set_fraction(void *target, const char *arg, char *err, size_t len)
{
	return lb_parse_fraction(arg, target, err, len) ? -1 : 0;
}

/* A ratio >= 1 (measured over simulated time). */
static int set_ratio(void *target, const char *arg, char *err, size_t len)
{
	char *end;
	errno = 0;
	double v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v >= 1 && v <= 1e6))
		return lb_errf(err, len, "bad ratio '%s': expected a number from 1 to 1e6 (1.5)", arg);
	*(double *)target = v;
	return 0;
}

/* --duration, --interval: "10m", "1h", "90s" (lib/units.h). */
static int set_wall_time(void *target, const char *arg, char *err, size_t len)
{
	return lb_parse_wall_time(arg, target, err, len);
}

static void show_wall_time(const void *target, struct lb_buf *out)
{
	double t = *(const double *)target;
	if (t > 0)
		lb_buf_add(out, "%gs", t);
	else
		lb_buf_add(out, "-");
}

static void show_percent(const void *target, struct lb_buf *out)
{
	lb_buf_add(out, "%g%%", *(const double *)target * 100);
}

static void show_ratio(const void *target, struct lb_buf *out)
{
	lb_buf_add(out, "%g", *(const double *)target);
}

/* -a: names, "all" (the homogeneous broadcasts, as everywhere) and
 * "allgathers" (every allgather that needs no platform), comma-separated,
 * in the order given. */
static int set_collectives(void *target, const char *arg, char *err, size_t len)
{
	struct lb_algo_set set = { .n = 0 }, one;
	for (const char *p = arg;; p++) {
		size_t n = strcspn(p, ",");
		char word[64];
		snprintf(word, sizeof(word), "%.*s", (int)n, p);
		if (strcmp(word, "none") == 0) {
			one.n = 0;
		} else if (strcmp(word, "allgathers") == 0) {
			one.n = 0;
			for (size_t i = 0; i < lb_nalgos && one.n < LB_ALGO_SET_MAX; i++)
				if (!lb_algos[i].needs && lb_algos[i].collective &&
				    strcmp(lb_algos[i].collective, "allgather") == 0)
					one.a[one.n++] = &lb_algos[i];
		} else if (lb_cli_set_algos(&one, word, err, len)) {
			return -1;
		}
		for (size_t i = 0; i < one.n && set.n < LB_ALGO_SET_MAX; i++)
			set.a[set.n++] = one.a[i];
		p += n;
		if (!*p)
			break;
	}
	*(struct lb_algo_set *)target = set;
	return 0;
}

static const struct lb_opt opts[] = {
	LB_NICS_ROWS("NICs, a lane each (rail0,rail1), or auto; default $LANEBENCH_NICS, else auto",
		     OFF(nics)),
	{ LB_OPT("transport", 't', "NAME", "data transport: tcp, dpdk, rdma (as built: lanebench --help)",
	  LB_OPT_STRING, OFF(transport)), .def = "tcp" },
	LB_TP_OPTION_ROWS(OFF(tpo)),
	{ LB_OPT("idle", 0, NULL, "what the progress loop does with nothing to do",
	  LB_OPT_ENUM, OFF(idle)), .def = "sleep", .choices = idles },
	{ LB_OPT("pattern", 0, NULL, "who meets whom in phase 1: neighbours (two partners a port), shift (every rank, the N x N matrix), bisection (rank + p/2, every lane at once)",
	  LB_OPT_ENUM, OFF(pattern)), .def = "neighbours", .choices = lb_check_pattern_names },
	{ LB_OPT("rerun", 0, "RECORD", "measure again only the ports that failed or warned in RECORD (an earlier check's CSV), each with up to 3 partners that passed there",
	  LB_OPT_STRING, OFF(rerun)) },
	{ LB_OPT("lane-rate", 0, "RATE", "rate every port should reach (200mbit); default: --expect's or the lane's majority speed, else the median of the cluster's ports",
	  LB_OPT_RATE, OFF(lane_rate)) },
	{ LB_OPT("expect", 0, "FILE", "what every port must show: speed, MTU, PCIe, rate, latency per lane, NIC or driver (docs/check-expect.md)",
	  LB_OPT_STRING, OFF(expect)) },
	{ LB_OPT("min-bw", 0, "SHARE", "a port (and a rank's aggregate) fails below this share of its expected rate, tx or rx: 0.9, 90% or '90 %'",
	  LB_OPT_HANDLER, OFF(min_bw)), .def = "90%", .handler = set_fraction, .show = show_percent },
	{ LB_OPT("max-loss", 0, "SHARE", "a port fails when its partners retransmit more than this share of what they send it (or it of what it sends), or a drop counter grows by more of its packets",
	  LB_OPT_HANDLER, OFF(max_loss)), .def = "0.1%", .handler = set_fraction, .show = show_percent },
	{ LB_OPT("max-errors", 0, "N", "a port fails when one of its error counters (CRC, symbol, frame errors...) grows by more than N",
	  LB_OPT_UINT, OFF(max_errors)), .def = "0", .min = 0, .max = 1000000000 },
	{ LB_OPT("max-lat", 0, "SECONDS", "a port fails above this one-way latency (default: 10 x the median port's)",
	  LB_OPT_SECONDS, OFF(max_lat)) },
	{ LB_OPT("max-model-ratio", 0, "R", "a collective fails when its measured time exceeds R x the simulated one",
	  LB_OPT_HANDLER, OFF(max_model_ratio)), .def = "2", .handler = set_ratio, .show = show_ratio },
	{ LB_OPT("max-bound-ratio", 0, "R", "an allgather fails when its measured time exceeds R x its receive bound, (p - 1) m / the slowest receiver's rx",
	  LB_OPT_HANDLER, OFF(max_bound_ratio)), .def = "2", .handler = set_ratio, .show = show_ratio },
	{ LB_OPT("algorithm", 'a', "LIST", "collectives of phase 3: all (the broadcasts), allgathers, names, comma-separated (all,allgathers: both), or none",
	  LB_OPT_HANDLER, OFF(algos)), .def = "all", .handler = set_collectives,
	  .show = lb_cli_show_algos },
	{ LB_OPT("message-size", 'm', "BYTES", "message size of the broadcasts; each rank's contribution to an allgather", LB_OPT_SIZE,
	  OFF(bcast_size)), .def = "1M" },
	{ LB_OPT("bw-size", 0, "BYTES", "message size of the bandwidth test", LB_OPT_SIZE,
	  OFF(bw_size)), .def = "256K" },
	{ LB_OPT("window", 'w', "N", "messages in flight in the bandwidth test", LB_OPT_UINT,
	  OFF(window)), .def = "8", .min = 1, .max = 256 },
	{ LB_OPT("iterations", 'i', "N", "measured repetitions of each bandwidth direction", LB_OPT_UINT,
	  OFF(iterations)), .def = "3", .min = 1, .max = 500 },
	{ LB_OPT("lat-iterations", 0, "N", "round trips of the latency test per pair", LB_OPT_UINT,
	  OFF(lat_iterations)), .def = "20", .min = 1, .max = 500 },
	{ LB_OPT("timeout", 0, "SECONDS", "limit for every wait (meeting the other ranks, connecting, a broadcast); a pair that carries nothing within a quarter of it fails",
	  LB_OPT_HANDLER, OFF(timeout)), .def = "20", .handler = lb_cli_set_timeout,
	  .show = lb_cli_show_timeout },
	{ LB_OPT("duration", 0, "TIME", "burn-in: phase 1 (every port) again and again for TIME (90s, 10m, 1h), its rates judged per interval; default: once",
	  LB_OPT_HANDLER, OFF(duration)), .handler = set_wall_time, .show = show_wall_time },
	{ LB_OPT("interval", 0, "TIME", "burn-in: length of an interval, a progress line on stderr after each (default: --duration / 10; at least one pass of phase 1)",
	  LB_OPT_HANDLER, OFF(interval)), .handler = set_wall_time, .show = show_wall_time },
	{ LB_OPT("max-spread", 0, "SHARE", "burn-in: a port warns when its rate varies by more than this share of its best interval's",
	  LB_OPT_HANDLER, OFF(max_spread)), .def = "20%", .handler = set_fraction, .show = show_percent },
	{ LB_OPT("output", 'o', "FILE", "CSV file of the rows (default results/<time>-check-<label>.csv; '-': stdout)",
	  LB_OPT_STRING, OFF(output)) },
	{ LB_OPT("json", 0, "FILE", "JSON document of the rows (default: beside the CSV, .json; '-': stdout, the printout then to stderr)",
	  LB_OPT_STRING, OFF(json)) },
	{ LB_OPT("html", 0, "FILE", "the report as one HTML page (default: beside the CSV, .html; none: no page)",
	  LB_OPT_STRING, OFF(html)) },
};

/* ---- rank 0: the rows as a matrix, the failures, the verdict -------------- */

struct check_out {
	const char *output;            /* -o, or NULL: the default name */
	struct lb_buf csv_path;        /* chosen with the provenance (rank 0 only) */
	struct lb_cli_json *json;      /* its path, when NULL, is chosen there too: */
	char *json_beside;             /* the CSV's name with .json */
	const char *html;              /* --html; NULL: beside the CSV, "none": no page */
	char *html_beside;             /* the CSV's name with .html */
	const char *html_path;         /* the page's, once written */
	struct lb_check_page *page;    /* the rows again, for the page; NULL: none */
	FILE *out;                     /* stdout, or stderr when the JSON takes stdout */
	const struct lb_prov *prov;    /* the run's, from .provenance until begin */
	struct lb_csv *csv;
	const char *phase;             /* of the last row printed */
	uint32_t ports, lanes, ranks, bcasts;
	/* Grown, never cut: a cluster of any size has all its failures named. */
	struct lb_buf fails;           /* "FAIL rank 5 (host lb-h5) lane 1 (rail1): ...\n" */
	size_t nfails, nport_fails, nagg_fails;
	struct lb_buf port_list;       /* "rank 5 lane 1, ..." */
	struct lb_buf warns;           /* "WARN rank 2 (host lb-h2) lane 0 (rail0): ...\n" */
	struct lb_buf inventory;       /* the ports' facts, printed after their figures */
	struct lb_buf burnin;          /* burn-in: the ports' series, after the inventory */
	size_t nwarns, nlane_fails;
	struct host_verdict *hosts;    /* [rank]: the worst of its rows */
	uint32_t nhosts;
	/* the N x N matrix's cells (phase link), per lane: counted, a failed
	 * one named among the failures (a warned one points at its port) */
	uint32_t links[LB_CHECK_PRINT_LANES], link_fails[LB_CHECK_PRINT_LANES],
		 link_warns[LB_CHECK_PRINT_LANES];
	char link_nic[LB_CHECK_PRINT_LANES][32];
	size_t nlink_fails;
	struct lb_buf held, not_held;  /* --rerun: "rank 5 lane 1, ..." */
	double parts[LB_CHECK_NPARTS]; /* each part's wall seconds (lb_check_params) */
};

/* A cell; "-" or NaN when empty or when the row has no such column. */
static const char *text(const struct lb_result *r, const char *col)
{
	const union lb_val *v = lb_result_val(r, col);
	return v && v->s ? v->s : "-";
}

static double real(const struct lb_result *r, const char *col)
{
	const union lb_val *v = lb_result_val(r, col);
	return v ? v->d : NAN;
}

/* Mbit/s, or "-" */
static void mbit(double bytes_per_s, char *buf, size_t len)
{
	if (isnan(bytes_per_s))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.1f", bytes_per_s * 8 / 1e6);
}

/* The inventory the port rows carried, as a table of its own. */
static void print_inventory(struct check_out *o)
{
	if (!o->inventory.n)
		return;
	fprintf(o->out, "\ninventory (read before any traffic; all of it in the record):\n"
		"%4s %4s  %-8s %-9s %5s %5s  %-10s %-9s %-11s %3s\n%s", "rank", "lane", "nic",
		"state", "speed", "mtu", "driver", "firmware", "pcie", "numa", o->inventory.s);
	if (o->inventory.failed)
		fprintf(o->out, "(out of memory: the inventory above is not all)\n");
	lb_buf_free(&o->inventory);
}

/* "12.5%", or "-" */
static void percent(double ratio, char *buf, size_t len)
{
	if (isnan(ratio))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.1f%%", 100 * ratio);
}

/* A port's burn-in series in a line, when it had one. */
static void note_burnin(struct check_out *o, const struct lb_result *r)
{
	char mt[16], xt[16], mr[16], xr[16], sp[16];
	if (isnan(real(r, "intervals")))
		return;
	mbit(real(r, "min_tx_bytes_per_second"), mt, sizeof(mt));
	mbit(real(r, "max_tx_bytes_per_second"), xt, sizeof(xt));
	mbit(real(r, "min_rx_bytes_per_second"), mr, sizeof(mr));
	mbit(real(r, "max_rx_bytes_per_second"), xr, sizeof(xr));
	percent(real(r, "spread_ratio"), sp, sizeof(sp));
	lb_buf_add(&o->burnin, "%4.0f %4.0f  %-8s %9.0f %10s %10s %10s %10s %7s  %s\n",
		   real(r, "rank"), real(r, "lane"), text(r, "nic"), real(r, "intervals"), mt, xt,
		   mr, xr, sp, text(r, "verdict"));
}

static void print_burnin(struct check_out *o)
{
	if (!o->burnin.n)
		return;
	fprintf(o->out, "\nburn-in (every port over its intervals; each interval in the record):\n"
		"%4s %4s  %-8s %9s %10s %10s %10s %10s %7s  %s\n%s", "rank", "lane", "nic",
		"intervals", "min tx", "max tx", "min rx", "max rx", "spread", "verdict",
		o->burnin.s);
	if (o->burnin.failed)
		fprintf(o->out, "(out of memory: the burn-in above is not all)\n");
	lb_buf_free(&o->burnin);
}

static void heading(struct check_out *o, const char *phase)
{
	if (o->phase && strcmp(o->phase, phase) == 0)
		return;
	if (o->phase && strcmp(o->phase, "port") == 0) {
		print_inventory(o);
		print_burnin(o);
	}
	o->phase = phase;
	if (strcmp(phase, "port") == 0)
		fprintf(o->out, "%4s  %-10s %4s  %-8s %-8s %10s %10s %10s %-9s %6s %11s  %s\n", "rank", "host",
		       "lane", "nic", "partners", "tx Mbit/s", "rx Mbit/s", "expected", "from",
		       "ratio", "latency", "verdict");
	else if (strcmp(phase, "aggregate") == 0)
		fprintf(o->out, "\naggregate (every lane of a rank at once):\n%4s  %-10s %10s %10s %10s %-9s %6s  %s\n",
		       "rank", "host", "tx Mbit/s", "rx Mbit/s", "expected", "from", "ratio", "verdict");
	else
		fprintf(o->out, "\ncollectives (measured / simulated; an allgather also over its receive bound):\n"
			"%-10s %-22s %7s %11s %11s %6s %11s %6s  %s\n", "collective", "algorithm", "size",
			"median", "sim", "ratio", "bound", "/bound", "verdict");
}

/* "0.50", or "-" */
static void fixed2(double v, char *buf, size_t len)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.2f", v);
}

static void print_port(FILE *f, const struct lb_result *r)
{
	char tx[16], rx[16], ex[16], lat[24] = "-", ratio[16];
	mbit(real(r, "tx_bytes_per_second"), tx, sizeof(tx));
	mbit(real(r, "rx_bytes_per_second"), rx, sizeof(rx));
	mbit(real(r, "expected_bytes_per_second"), ex, sizeof(ex));
	fixed2(real(r, "ratio"), ratio, sizeof(ratio));
	lb_format_seconds(real(r, "latency_seconds"), lat, sizeof(lat));
	fprintf(f, "%4.0f  %-10s %4.0f  %-8s %-8s %10s %10s %10s %-9s %6s %11s  %s\n", real(r, "rank"),
	       text(r, "host"), real(r, "lane"), text(r, "nic"), text(r, "partners"), tx, rx, ex,
	       text(r, "expected_from"), ratio, lat, text(r, "verdict"));
}

/* "x16 16" (width, GT/s) at the device's maximum, "x8<16 8<16" below it */
static void pcie_text(const struct lb_result *r, char *buf, size_t len)
{
	double w = real(r, "pcie_width_lanes"), mw = real(r, "pcie_max_width_lanes"),
	       g = real(r, "pcie_speed_gt_per_second"), mg = real(r, "pcie_max_speed_gt_per_second");
	if (isnan(w) && isnan(g)) {
		snprintf(buf, len, "-");
		return;
	}
	char wt[24] = "x?", gt[24] = "?";
	if (!isnan(w))
		snprintf(wt, sizeof(wt), mw > w ? "x%g<%g" : "x%g", w, mw);
	if (!isnan(g))
		snprintf(gt, sizeof(gt), mg > g ? "%g<%g" : "%g", g, mg);
	snprintf(buf, len, "%s %s", wt, gt);
}

/* One port's inventory line: "up", or "up/ACTIVE" with a verbs port. */
static void note_inventory(struct check_out *o, const struct lb_result *r)
{
	char speed[16], mtu[16] = "-", pcie[48], numa[16] = "-", state[48];
	lb_format_link_speed(real(r, "speed_bits_per_second"), speed, sizeof(speed));
	pcie_text(r, pcie, sizeof(pcie));
	if (!isnan(real(r, "mtu_bytes")))
		snprintf(mtu, sizeof(mtu), "%.0f", real(r, "mtu_bytes"));
	if (!isnan(real(r, "numa_node")))
		snprintf(numa, sizeof(numa), "%.0f", real(r, "numa_node"));
	int rdma = strcmp(text(r, "rdma_state"), "-") != 0;
	snprintf(state, sizeof(state), "%s%s%s", text(r, "state"), rdma ? "/" : "",
		 rdma ? text(r, "rdma_state") : "");
	lb_buf_add(&o->inventory, "%4.0f %4.0f  %-8s %-9s %5s %5s  %-10s %-9s %-11s %3s\n",
		   real(r, "rank"), real(r, "lane"), text(r, "nic"), state, speed, mtu,
		   text(r, "driver"), text(r, "firmware"), pcie, numa);
}

static void print_aggregate(FILE *f, const struct lb_result *r)
{
	char tx[16], rx[16], ex[16], ratio[16];
	mbit(real(r, "tx_bytes_per_second"), tx, sizeof(tx));
	mbit(real(r, "rx_bytes_per_second"), rx, sizeof(rx));
	mbit(real(r, "expected_bytes_per_second"), ex, sizeof(ex));
	fixed2(real(r, "ratio"), ratio, sizeof(ratio));
	fprintf(f, "%4.0f  %-10s %10s %10s %10s %-9s %6s  %s\n", real(r, "rank"), text(r, "host"), tx,
	       rx, ex, text(r, "expected_from"), ratio, text(r, "verdict"));
}

static void print_collective(FILE *f, const struct lb_result *r)
{
	char size[16] = "-", med[24], sim[24], bound[24], ratio[16], over[16];
	if (!isnan(real(r, "message_bytes")))
		lb_table_format_size((uint64_t)real(r, "message_bytes"), size, sizeof(size));
	lb_format_seconds(real(r, "time_median_seconds"), med, sizeof(med));
	lb_format_seconds(real(r, "sim_seconds"), sim, sizeof(sim));
	lb_format_seconds(real(r, "bound_seconds"), bound, sizeof(bound));
	fixed2(real(r, "ratio"), ratio, sizeof(ratio));
	fixed2(real(r, "time_median_seconds") / real(r, "bound_seconds"), over, sizeof(over));
	fprintf(f, "%-10s %-22s %7s %11s %11s %6s %11s %6s  %s%s%s\n", text(r, "collective"),
		text(r, "algorithm"), size, med, sim, ratio, bound, over, text(r, "verdict"),
		lb_result_val(r, "reason")->s ? ": " : "",
		lb_result_val(r, "reason")->s ? text(r, "reason") : "");
}

/* A failed collective: a broadcast by its algorithm; an allgather also by
 * the rank and lane its receive bound comes from (the slowest receiver). */
static void collective_failure(const struct lb_result *r, struct lb_buf *fails)
{
	const char *coll = lb_result_val(r, "collective")->s;
	if (!coll || strcmp(coll, "bcast") == 0)
		lb_buf_add(fails, "FAIL broadcast %s: %s\n", text(r, "algorithm"), text(r, "reason"));
	else if (isnan(real(r, "rank")))
		lb_buf_add(fails, "FAIL %s %s: %s\n", coll, text(r, "algorithm"), text(r, "reason"));
	else
		lb_buf_add(fails, "FAIL %s %s, bound by rank %.0f (host %s) lane %.0f (%s): %s\n",
			   coll, text(r, "algorithm"), real(r, "rank"), text(r, "host"),
			   real(r, "lane"), text(r, "nic"), text(r, "reason"));
}

/* A failed row, named: rank, host, lane and NIC, or the algorithm. */
static void note_failure(struct check_out *o, const struct lb_result *r, const char *phase)
{
	if (strcmp(phase, "port") == 0) {
		lb_buf_add(&o->fails, "%s rank %.0f (host %s) lane %.0f (%s): %s\n",
			   text(r, "verdict"), real(r, "rank"), text(r, "host"), real(r, "lane"),
			   text(r, "nic"), text(r, "reason"));
		lb_buf_add(&o->port_list, "%srank %.0f lane %.0f", o->nport_fails ? ", " : "",
			   real(r, "rank"), real(r, "lane"));
		o->nport_fails++;
	} else if (strcmp(phase, "aggregate") == 0) {
		lb_buf_add(&o->fails, "FAIL rank %.0f (host %s) aggregate of %u lanes: %s\n",
			   real(r, "rank"), text(r, "host"), o->lanes, text(r, "reason"));
		o->nagg_fails++;
	} else if (strcmp(phase, "lane") == 0) {
		lb_buf_add(&o->fails, "%s lane %.0f (%s): %s\n", text(r, "verdict"), real(r, "lane"),
			   text(r, "nic"), text(r, "reason"));
		o->nlane_fails++;
	} else {
		collective_failure(r, &o->fails);
	}
	o->nfails++;
}

/* A host's verdict: the worst of its ports' and its aggregates' (a host
 * may run several ranks), and which of them were not PASS. */
struct host_verdict {
	char *name;
	struct lb_buf ranks;  /* "3", "3,4" */
	int level;            /* 0 PASS, 1 WARN, 2 FAIL, 3 ERROR (cannot tell) */
	struct lb_buf what;   /* "rank 3 lane 1 FAIL, rank 3 aggregate FAIL" */
};

static int level_of(const char *verdict)
{
	return strcmp(verdict, "WARN") == 0 ? 1 : strcmp(verdict, "FAIL") == 0 ? 2 :
	       strcmp(verdict, "ERROR") == 0 ? 3 : 0;
}

/* The host's entry, added on first sight; NULL out of memory. */
static struct host_verdict *host_entry(struct check_out *o, const char *name)
{
	for (uint32_t i = 0; i < o->nhosts; i++)
		if (strcmp(o->hosts[i].name, name) == 0)
			return &o->hosts[i];
	struct host_verdict *h = realloc(o->hosts, (o->nhosts + 1) * sizeof(*h)), *e;
	if (!h)
		return NULL;
	o->hosts = h;
	e = &h[o->nhosts];
	*e = (struct host_verdict){ .name = strdup(name) };
	if (!e->name)
		return NULL;
	o->nhosts++;
	return e;
}

/* Notes a port or aggregate row against its host. */
static void note_host(struct check_out *o, const struct lb_result *r, const char *phase)
{
	struct host_verdict *h = host_entry(o, text(r, "host"));
	if (!h)
		return;
	if (strcmp(phase, "aggregate") == 0) /* one a rank */
		lb_buf_add(&h->ranks, "%s%.0f", h->ranks.n ? "," : "", real(r, "rank"));
	int level = level_of(text(r, "verdict"));
	if (level == 0)
		return;
	h->level = level > h->level ? level : h->level;
	if (strcmp(phase, "port") == 0)
		lb_buf_add(&h->what, "%srank %.0f lane %.0f %s", h->what.n ? ", " : "",
			   real(r, "rank"), real(r, "lane"), text(r, "verdict"));
	else
		lb_buf_add(&h->what, "%srank %.0f aggregate %s", h->what.n ? ", " : "",
			   real(r, "rank"), text(r, "verdict"));
}

static void free_hosts(struct check_out *o)
{
	for (uint32_t i = 0; i < o->nhosts; i++) {
		free(o->hosts[i].name);
		lb_buf_free(&o->hosts[i].ranks);
		lb_buf_free(&o->hosts[i].what);
	}
	free(o->hosts);
	o->hosts = NULL, o->nhosts = 0;
}

/* "hosts: 7 PASS, 1 FAIL", then each host not PASS:
 * "  lb-h6 (rank 6): FAIL (rank 6 lane 1 FAIL, rank 6 aggregate FAIL)" */
static void print_hosts(struct check_out *o)
{
	uint32_t n[4] = { 0 };
	static const char *const words[] = { "PASS", "WARN", "FAIL", "ERROR" };
	for (uint32_t i = 0; i < o->nhosts; i++)
		n[o->hosts[i].level]++;
	fprintf(o->out, "hosts: %u PASS", n[0]);
	for (int l = 1; l < 4; l++)
		if (n[l])
			fprintf(o->out, ", %u %s", n[l], words[l]);
	fputc('\n', o->out);
	for (uint32_t i = 0; i < o->nhosts; i++) {
		const struct host_verdict *h = &o->hosts[i];
		if (h->level)
			fprintf(o->out, "  %s (rank %s): %s (%s)\n", h->name,
				h->ranks.s ? h->ranks.s : "-", words[h->level],
				h->what.s ? h->what.s : "");
	}
	free_hosts(o);
}

/* A warning, named as a failure is. */
static void note_warning(struct check_out *o, const struct lb_result *r, const char *phase)
{
	if (strcmp(phase, "port") == 0)
		lb_buf_add(&o->warns, "WARN rank %.0f (host %s) lane %.0f (%s): %s\n", real(r, "rank"),
			   text(r, "host"), real(r, "lane"), text(r, "nic"), text(r, "reason"));
	else if (strcmp(phase, "lane") == 0)
		lb_buf_add(&o->warns, "WARN lane %.0f (%s): %s\n", real(r, "lane"), text(r, "nic"),
			   text(r, "reason"));
	else
		lb_buf_add(&o->warns, "WARN %s: %s\n", phase, text(r, "reason"));
	o->nwarns++;
}

static void count(struct check_out *o, const struct lb_result *r, const char *phase)
{
	if (strcmp(phase, "port") == 0) {
		o->ports++;
		o->ranks = (uint32_t)real(r, "rank") + 1;
		o->lanes = (uint32_t)real(r, "lane") + 1 > o->lanes ? (uint32_t)real(r, "lane") + 1
								    : o->lanes;
	} else if (strcmp(phase, "bcast") == 0 && lb_result_val(r, "algorithm")->s) {
		o->bcasts++;
	}
}

/* results/<UTC time>-check-<transport>-p<ranks>-k<lanes>.csv, as bcast
 * names its runs, creating results/ when needed. */
static void default_path(struct lb_buf *path, const struct lb_prov *prov)
{
	char stamp[32];
	time_t t = time(NULL);
	const char *tp = lb_prov_get(prov, "transport"), *ranks = lb_prov_get(prov, "ranks"),
		   *lanes = lb_prov_get(prov, "lanes");
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", gmtime(&t));
	mkdir("results", 0777);
	lb_buf_add(path, "results/%s-check", stamp);
	if (tp && ranks && lanes)
		lb_buf_add(path, "-%s-p%s-k%s", tp, ranks, lanes);
	lb_buf_add(path, ".csv");
}

/* A file beside the CSV: its name with ext (".json") for a final .csv. */
static char *beside(const char *csv, const char *ext)
{
	size_t n = strlen(csv);
	if (n > 4 && strcmp(csv + n - 4, ".csv") == 0)
		n -= 4;
	struct lb_buf b = { 0 };
	lb_buf_add(&b, "%.*s%s", (int)n, csv, ext);
	if (b.failed)
		lb_buf_free(&b); /* leaves s NULL: out of memory */
	return b.s;
}

/* Only rank 0 is handed the provenance: the record's names are chosen
 * here, so the other ranks create nothing.  The JSON sink comes after this
 * one in the tee and opens its file with the path set here. */
static int out_provenance(void *ctx, const struct lb_prov *prov, char *err, size_t len)
{
	struct check_out *o = ctx;
	o->prov = prov; /* begin follows at once */
	if (o->output)
		lb_buf_add(&o->csv_path, "%s", o->output);
	else
		default_path(&o->csv_path, prov);
	if (o->csv_path.failed)
		return lb_errf(err, len, "out of memory");
	if (!o->html && strcmp(o->csv_path.s, "-") != 0 &&
	    !(o->html_beside = beside(o->csv_path.s, ".html")))
		return lb_errf(err, len, "out of memory");
	if (o->json->path || strcmp(o->csv_path.s, "-") == 0) /* -o - alone: no JSON */
		return 0;
	if (!(o->json_beside = beside(o->csv_path.s, ".json")))
		return lb_errf(err, len, "out of memory");
	o->json->path = o->json_beside;
	return 0;
}

/* The page's path: --html's, else beside the CSV (none with -o -); NULL
 * for none. */
static const char *html_target(const struct check_out *o)
{
	if (o->html)
		return strcmp(o->html, "none") == 0 ? NULL : o->html;
	return o->html_beside;
}

/* The page, from the rows the run kept (report/check_html.h), named after
 * the CSV.  0, or prints why and returns LB_EXIT_FAILED. */
static int write_html(const struct lb_cmd *cmd, struct check_out *o)
{
	char err[512];
	const char *path = html_target(o);
	if (!path || !o->page)
		return 0;
	if (lb_check_page_write(o->page, o->csv_path.s, path, err, sizeof(err))) {
		lb_cli_error(cmd, "html", "%s", err);
		return LB_EXIT_FAILED;
	}
	o->html_path = path;
	return 0;
}

/* --html FILE, given: not stdout (the printout is there), not the CSV's or
 * the JSON's file, and (rank 0) creatable, before any traffic.  0 or
 * LB_EXIT_USAGE. */
static int check_html_target(const struct lb_cmd *cmd, const struct check_opts *o)
{
	if (!o->html || strcmp(o->html, "none") == 0)
		return 0;
	if (strcmp(o->html, "-") == 0)
		lb_cli_error(cmd, "html", "not '-': the printout takes stdout (lanebench report "
			     "RECORD.csv --html - writes the page there)");
	else if (lb_outfile_same(o->html, o->output) || lb_outfile_same(o->html, o->json))
		lb_cli_error(cmd, "html", "'%s' is the record's file too", o->html);
	else if (lb_cli_check_target(cmd, "html", "--html", o->html) == 0)
		return 0;
	return LB_EXIT_USAGE;
}

static int out_begin(void *ctx, const struct lb_col *cols, size_t ncols, char *err, size_t len)
{
	struct check_out *o = ctx;
	if (!(o->csv = lb_csv_create(o->csv_path.s, o->prov, cols, ncols, err, len)))
		return -1;
	lb_stop_arm();
	return 0;
}

/* A cell of the matrix: counted per lane; a failed link named. */
static void note_link(struct check_out *o, const struct lb_result *r)
{
	int level = level_of(text(r, "verdict"));
	double lane = real(r, "lane");
	if (!(lane >= 0 && lane < LB_CHECK_PRINT_LANES))
		return;
	uint32_t l = (uint32_t)lane;
	snprintf(o->link_nic[l], sizeof(o->link_nic[l]), "%s", text(r, "nic"));
	o->links[l]++;
	o->link_warns[l] += level == 1;
	if (level < 2)
		return;
	o->link_fails[l]++;
	lb_buf_add(&o->fails, "FAIL %s\n", text(r, "reason"));
	o->nlink_fails++;
	o->nfails++;
}

/* A --rerun suspect's row says whether its failure held. */
static void note_rerun(struct check_out *o, const struct lb_result *r)
{
	const char *why = text(r, "reason");
	struct lb_buf *b = strncmp(why, "held:", 5) == 0 ? &o->held
			 : strncmp(why, "did not hold:", 13) == 0 ? &o->not_held : NULL;
	if (b)
		lb_buf_add(b, "%srank %.0f lane %.0f", b->n ? ", " : "", real(r, "rank"),
			   real(r, "lane"));
}

/* "links (...): lane 0 (rail0) 56, lane 1 (rail1) 56 with 1 FAIL" */
static void print_links(const struct check_out *o)
{
	int any = 0;
	for (uint32_t l = 0; l < LB_CHECK_PRINT_LANES; l++) {
		if (!o->links[l])
			continue;
		fprintf(o->out, "%s lane %u (%s) %u", any++ ? "," : "\nlinks measured (rank -> peer; "
			"rows of phase link in the record):", l, o->link_nic[l], o->links[l]);
		if (o->link_fails[l] || o->link_warns[l])
			fprintf(o->out, " with %u FAIL, %u WARN (pointing at a port)", o->link_fails[l],
				o->link_warns[l]);
	}
	if (any)
		fputc('\n', o->out);
}

static int out_row(void *ctx, const struct lb_result *r, char *err, size_t len)
{
	struct check_out *o = ctx;
	const char *phase = text(r, "phase");
	if (o->csv && lb_csv_sink_row(o->csv, r, err, len))
		return -1;
	if (strcmp(phase, "interval") == 0) /* burn-in's series: the record's, not the table's */
		return 0;
	if (strcmp(phase, "link") == 0) {
		note_link(o, r);
		return 0;
	}
	if (strcmp(phase, "port") == 0 && strcmp(text(r, "pattern"), "rerun") == 0)
		note_rerun(o, r);
	int level = level_of(text(r, "verdict"));
	if (strcmp(phase, "lane") != 0) /* a lane's row is a finding, not a figure */
		heading(o, phase);
	if (strcmp(phase, "port") == 0) {
		print_port(o->out, r);
		note_inventory(o, r);
		note_burnin(o, r);
	}
	else if (strcmp(phase, "aggregate") == 0)
		print_aggregate(o->out, r);
	else if (strcmp(phase, "lane") != 0)
		print_collective(o->out, r);
	count(o, r, phase);
	if (strcmp(phase, "port") == 0 || strcmp(phase, "aggregate") == 0)
		note_host(o, r, phase);
	if (level >= 2)
		note_failure(o, r, phase);
	else if (level == 1)
		note_warning(o, r, phase);
	return 0;
}

/* "record: results/x.csv, results/x.json": the files written (not
 * stdout). */
static void record_line(const struct check_out *o, const char *json_path)
{
	const char *files[] = { o->csv_path.s, json_path, o->html_path };
	size_t shown = 0;
	for (size_t i = 0; i < 3; i++)
		if (files[i] && strcmp(files[i], "-") != 0)
			fprintf(o->out, "%s%s", shown++ ? ", " : "record: ", files[i]);
	if (shown)
		fputc('\n', o->out);
}

/* "time: setup 2.1 s, ports 8.0 s, ..., report 0.1 s (total 14.2 s)": where
 * a check's time goes, to see what grows with the cluster
 * (scripts/bench-check-scale). */
static void print_parts(const struct check_out *o)
{
	double total = 0;
	fprintf(o->out, "time:");
	for (int i = 0; i < LB_CHECK_NPARTS; i++) {
		fprintf(o->out, "%s %s %.1f s", i ? "," : "", lb_check_part_names[i], o->parts[i]);
		total += o->parts[i];
	}
	fprintf(o->out, " (total %.1f s)\n", total);
}

/* The failures, where the record went, then one line: the verdict (kept
 * last for scripts).  Returns the exit status. */
/* Under the tables: what their columns mean (results/README.md says it
 * at length, for the record's columns). */
static const char check_legend[] =
	"columns:\n"
	"  partners   the ranks a port was measured with\n"
	"  tx, rx     sent and received rate, best over the partners, 10^6 bit/s "
	"(aggregate: the sum over a rank's lanes)\n"
	"  expected   what it should reach, in Mbit/s; from: where that comes from "
	"(lane-rate, expect: the --expect file, majority: its lane's ports' speed, "
	"median: of the measured ports)\n"
	"  ratio      ports, aggregate: min(tx, rx) / expected; collectives: median / sim\n"
	"  latency    one-way (half a ping-pong), best over the partners\n"
	"  size       the collective's message (KiB, MiB: 1024-based; an allgather: "
	"each rank's share)\n"
	"  median     its measured median time; sim: the simulator's on phase 1's figures\n"
	"  bound      an allgather's receive bound, (p - 1) m / the slowest receiver's "
	"rx; /bound: median over it\n"
	"  min, max   burn-in: a port's lowest and highest interval, Mbit/s; spread: "
	"(max - min) / max, of tx or rx, the larger\n"
	"  -          no value: not measured, or not this row's kind\n";

static int verdict(struct check_out *o, const char *json_path)
{
	print_inventory(o); /* when no row came after the ports */
	print_burnin(o);
	if (o->phase) { /* a table was printed */
		fputc('\n', o->out);
		lb_wrap_text(check_legend, lb_wrap_width(o->out), o->out);
	}
	print_links(o);
	if (o->nfails || o->nwarns)
		fprintf(o->out, "\n%s%s", o->fails.s ? o->fails.s : "", o->warns.s ? o->warns.s : "");
	if (o->fails.failed || o->port_list.failed || o->warns.failed)
		fprintf(o->out, "(out of memory: the failures above are not all)\n");
	lb_buf_free(&o->warns);
	print_hosts(o);
	record_line(o, json_path);
	if (o->held.n || o->not_held.n)
		fprintf(o->out, "rerun: held: %s; did not hold: %s\n", o->held.s ? o->held.s : "none",
			o->not_held.s ? o->not_held.s : "none");
	print_parts(o);
	if (o->ranks == 2 && !o->held.n && !o->not_held.n) /* a rerun's ports are its suspects */
		fprintf(o->out, "note: 2 ranks: each port was measured against one partner only, so a slow\n"
		       "port cannot be told from its partner (both show low); 3 or more ranks can.\n");
	if (o->nfails == 0 && (o->held.n || o->not_held.n)) {
		fprintf(o->out, "check: PASS (a rerun of %u port%s: no failure held)\n", o->ports,
			o->ports > 1 ? "s" : "");
		return 0;
	}
	if (o->nfails == 0) {
		fprintf(o->out, "check: PASS (%u ports, %u lanes x %u ranks, %u collectives", o->ports,
		       o->lanes, o->ranks, o->bcasts);
		if (o->nwarns)
			fprintf(o->out, "; %zu warning%s", o->nwarns, o->nwarns > 1 ? "s" : "");
		fprintf(o->out, ")\n");
		return 0;
	}
	if (o->nport_fails)
		fprintf(o->out, "check: FAIL (%zu of %u ports: %s", o->nport_fails, o->ports,
			o->port_list.s ? o->port_list.s : "");
	else
		fprintf(o->out, "check: FAIL (every port passed");
	if (o->nagg_fails)
		fprintf(o->out, "; %zu aggregate%s", o->nagg_fails, o->nagg_fails > 1 ? "s" : "");
	if (o->nlane_fails)
		fprintf(o->out, "; %zu lane%s", o->nlane_fails, o->nlane_fails > 1 ? "s" : "");
	if (o->nlink_fails)
		fprintf(o->out, "; %zu link%s", o->nlink_fails, o->nlink_fails > 1 ? "s" : "");
	size_t ncoll = o->nfails - o->nport_fails - o->nagg_fails - o->nlane_fails - o->nlink_fails;
	if (ncoll)
		fprintf(o->out, "; %zu collective%s", ncoll, ncoll > 1 ? "s" : "");
	fprintf(o->out, ")\n");
	return LB_EXIT_FAILED;
}

/* ---- the command ---------------------------------------------------------- */

/* --expect is rank 0's (it judges): a rank that cannot read the file --
 * not on its host -- goes on without it rather than leave the job
 * waiting; rank 0 refuses the run (exit 2) naming the file:line. */
static int load_expect(const struct lb_cmd *cmd, const char *path, struct lb_expect *e,
		       int *loaded)
{
	char err[512], env_err[256];
	struct lb_boot_cfg cfg;
	*loaded = 0;
	if (!path)
		return 0;
	if (lb_expect_load(path, e, err, sizeof(err)) == 0) {
		*loaded = 1;
		return 0;
	}
	if (lb_boot_env(&cfg, env_err, sizeof(env_err)) == 0 && cfg.rank != 0)
		return 0;
	lb_cli_error(cmd, "expect", "%s", err);
	return -1;
}

/* Burn-in's progress, rank 0's: on stderr at once, whatever buffers
 * stdout (a launcher's pipe), one line per interval. */
static void print_progress(void *ctx, const char *line)
{
	(void)ctx;
	fprintf(stderr, "%s\n", line);
	fflush(stderr);
}

/* --interval needs --duration and fits in it. */
static int check_burnin_opts(const struct lb_cmd *cmd, const struct check_opts *o)
{
	if (o->interval > 0 && !(o->duration > 0))
		return lb_cli_error(cmd, "interval", "needs --duration (a burn-in)"), -1;
	if (o->interval > o->duration)
		return lb_cli_error(cmd, "interval", "%gs is longer than --duration %gs", o->interval,
				    o->duration), -1;
	return 0;
}

/* Whether this is rank 0 (the one that prints), from the job's
 * environment. */
static int rank_zero(void)
{
	struct lb_boot_cfg cfg;
	char err[256];
	return lb_boot_env(&cfg, err, sizeof(err)) != 0 || cfg.rank == 0;
}

/* --rerun: the record read (on every rank: they all need the pairs) and
 * its suspects told; *nothing when it has none (nothing to measure).
 * Returns 0 or an exit status. */
static int load_rerun(const struct lb_cmd *cmd, const char *path, struct lb_rerun *r,
		      int *nothing)
{
	char err[512];
	*nothing = 0;
	if (!path)
		return 0;
	int rc = lb_rerun_load(path, r, err, sizeof(err));
	if (rc) {
		lb_cli_error(cmd, "rerun", "%s", err);
		return rc == LB_EINPUT ? LB_EXIT_USAGE : LB_EXIT_FAILED;
	}
	*nothing = r->retest.n == 0;
	if (!rank_zero())
		return 0;
	if (*nothing && r->link_fails)
		printf("rerun: no port failed or warned in %s: nothing to measure (%zu failed "
		       "link%s not retested: --rerun meets ports; run the check again)\n", path,
		       r->link_fails, r->link_fails > 1 ? "s" : "");
	else if (*nothing)
		printf("rerun: nothing failed or warned in %s: nothing to measure\n", path);
	else
		printf("rerun: %zu suspect port%s of %s, each with partners that passed there:\n",
		       r->retest.n, r->retest.n > 1 ? "s" : "", path);
	for (size_t i = 0; i < r->retest.n; i++) {
		const struct lb_check_retest_port *pt = &r->retest.ports[i];
		printf("  rank %u lane %u with rank", pt->rank, pt->lane);
		for (uint32_t j = 0; j < pt->npartners; j++)
			printf("%s%u", j ? "," : " ", pt->partners[j]);
		printf(" (was %.*s)\n", (int)strcspn(pt->was, ":"), pt->was);
	}
	fflush(stdout);
	return 0;
}

static struct lb_check_params params_of(const struct lb_cmd *cmd, const struct check_opts *o)
{
	return (struct lb_check_params){
		.nics = lb_cli_nics(cmd, o->nics), .transport = o->transport, .tp_options = o->tpo,
		.idle = (enum lb_idle)o->idle, .timeout = o->timeout, .lane_rate = o->lane_rate,
		.bw_bytes = o->bw_size, .window = o->window, .iterations = o->iterations,
		.lat_iterations = o->lat_iterations, .min_bw = o->min_bw, .max_lat = o->max_lat,
		.max_loss = o->max_loss, .max_errors = o->max_errors,
		.max_model_ratio = o->max_model_ratio, .max_bound_ratio = o->max_bound_ratio,
		.algos = o->algos.a, .nalgos = o->algos.n,
		.bcast_bytes = o->bcast_size, .stop = lb_stop_flag(),
		.duration = o->duration,
		.interval = o->interval > 0 ? o->interval : o->duration / 10,
		.max_spread = o->max_spread,
		.progress = o->duration > 0 ? print_progress : NULL,
		.pattern = (enum lb_check_pattern)o->pattern,
	};
}

/* The sinks on rank 0: the CSV and the printout (out), the JSON document. */
static int run_sinks(const struct lb_check_params *p, struct check_out *out,
		     struct lb_cli_json *json, char *err, size_t len)
{
	struct lb_sink sinks[3] = {
		{ .provenance = out_provenance, .begin = out_begin, .row = out_row, .ctx = out },
		lb_cli_json_sink(json),
	};
	/* no JSON only with the CSV on stdout and no --json */
	int no_json = !json->path && out->output && strcmp(out->output, "-") == 0;
	struct lb_tee tee = { sinks, no_json ? 1 : 2 };
	if (out->page) /* kept on rank 0, the only one handed rows */
		sinks[tee.n++] = lb_check_page_sink(out->page);
	const struct lb_sink sink = { .provenance = lb_tee_provenance, .begin = lb_tee_begin,
				      .row = lb_tee_row, .ctx = &tee };
	return lb_check_run(p, &sink, err, len);
}

static void check_out_free(struct check_out *out)
{
	free(out->json_beside);
	free(out->html_beside);
	lb_check_page_free(out->page);
	lb_buf_free(&out->csv_path);
	lb_buf_free(&out->fails);
	lb_buf_free(&out->port_list);
	lb_buf_free(&out->warns); /* verdict() frees these; a failed run did not reach it */
	lb_buf_free(&out->inventory);
	lb_buf_free(&out->burnin);
	lb_buf_free(&out->held);
	lb_buf_free(&out->not_held);
	free_hosts(out);
}

static int check(const struct lb_cmd *cmd, void *base)
{
	const struct check_opts *o = base;
	struct lb_cli_json json = { .path = o->json };
	struct check_out out = { .output = o->output, .json = &json, .html = o->html,
				 .out = lb_cli_json_to_stdout(&json) ? stderr : stdout };
	struct lb_prov prov = { 0 };
	char err[512] = "";
	if (lb_cli_check_stdout(cmd, &json, o->output) || check_html_target(cmd, o))
		return LB_EXIT_USAGE;
	if (check_burnin_opts(cmd, o))
		return LB_EXIT_USAGE;
	int rc = lb_cli_require_job(cmd, 2);
	if (rc)
		return rc;
	if (o->bw_size < 8)
		return lb_cli_error(cmd, "bw-size", "at least 8 bytes, not %llu",
				    (unsigned long long)o->bw_size), LB_EXIT_USAGE;
	struct lb_check_params p = params_of(cmd, o);
	struct lb_expect expect = { .n = 0 };
	struct lb_rerun rerun = { .ports = NULL };
	int loaded = 0, nothing = 0;
	if ((rc = load_rerun(cmd, o->rerun, &rerun, &nothing)) || nothing) {
		lb_rerun_free(&rerun);
		return rc;
	}
	p.retest = o->rerun ? &rerun.retest : NULL;
	if (load_expect(cmd, o->expect, &expect, &loaded)) {
		lb_rerun_free(&rerun);
		return LB_EXIT_USAGE;
	}
	p.expect = loaded ? &expect : NULL;
	lb_cli_provenance(&prov, cmd, o);
	lb_cli_tp_provenance(&prov, o->transport, &o->tpo);
	p.prov = &prov;
	p.part_seconds = out.parts;
	if (!(o->html && strcmp(o->html, "none") == 0) && !(out.page = lb_check_page_new()))
		rc = lb_errf(err, sizeof(err), "out of memory");
	else
		rc = run_sinks(&p, &out, &json, err, sizeof(err));
	if (rc && !*lb_stop_flag())
		lb_cli_error(cmd, NULL, "%s", err);
	lb_prov_free(&prov);
	lb_expect_free(&expect);
	lb_rerun_free(&rerun);
	int json_rc = lb_cli_finish_json(cmd, &json, rc, err);
	int status = lb_cli_finish_csv(cmd, out.csv, rc, err);
	if (!(rc || status || json_rc || !out.ports)) {
		int html_rc = write_html(cmd, &out);
		status = verdict(&out, json.path);
		status = status ? status : html_rc;
	} else if (!(rc || status)) {
		status = json_rc;
	}
	check_out_free(&out);
	return status;
}

/* The help after the algorithms, a part each, in the order check_more_help
 * prints them: the job, the three phases, the links and --rerun. */
static const char check_help_phases[] =
	"\n"
	"Accepts a cluster: every rank of a job of at least two runs it (launched as\n"
	"for bcast: see lanebench bcast --help).\n"
	"\nPhase 1, ports: per lane, rounds of pairs -- 0-1, 2-3, ...; then 1-2, 3-4,\n"
	"..., p-1 - 0; with an odd count a third round pairs the two ranks that sat\n"
	"out -- so every port meets two partners (one with 2 ranks).  The pairs of a\n"
	"round run at once, as a job loads the fabric.  Per pair: one-way latency of\n"
	"an 8-byte ping-pong (median of --lat-iterations), then --window messages of\n"
	"--bw-size streamed each way (the best of --iterations: noise only slows a\n"
	"window down).  Every byte that arrives is checked against a pattern that\n"
	"changes with every repetition.\n"
	"A link A->B runs at min(A's tx, B's rx), so a port's tx and rx are the best\n"
	"over its partners: a degraded port is low with every partner, its healthy\n"
	"partners are not.  A pair below --min-bw of the median is measured once\n"
	"more and keeps its better figures (noise only slows a pair down).\n"
	"--pattern shift instead: per lane, for d = 1 .. p-1, every rank sends to\n"
	"rank + d while it receives from rank - d, all at once (mpiGraph's shift):\n"
	"the lane's whole N x N matrix, each window timed by its receiver from its\n"
	"first message to its last; the bootstrap's 16 MiB gather bounds it: at\n"
	"most 1024 ranks with 2 lanes, 512 with 8, refused beyond (use neighbours\n"
	"or bisection).  --pattern bisection: every rank with rank +\n"
	"p/2, every lane at once (a port and its one partner cannot be told apart).\n"
	"Links: every directed pair measured is a row of phase link (rank sends,\n"
	"peer receives).  A cell below --min-bw of the median of its row and of its\n"
	"column is a slow LINK (measured once more first), named 'link 3->7 on lane\n"
	"0 (rail1)'; a row (a sender) or column (a receiver) low throughout names\n"
	"the PORT, in its port row's reason (FAIL over 3 or more cells, else WARN).\n"
	"--rerun RECORD: the ports of an earlier check's record (CSV) that FAILed,\n"
	"WARNed or ERRed, each measured again with up to 3 partners that passed\n"
	"there, and the partners with each other (only those pairs; no phase 2 or\n"
	"3); a suspect is judged against what the partners reach with each other:\n"
	"'held: ...' or 'did not hold: PASS now'; exit 1 when any held.  No such port in RECORD: said (with its failed links, which a\n"
	"rerun does not retest), exit 0.  The job must run the record's hosts in\n"
	"its order (else refused, naming the rank), every rank reading RECORD.\n"
	"Phase 2, aggregate: every lane of a rank at once with the same partners,\n"
	"each way; the rank's sum, best over its partners (a slow round again).\n"
	"Phase 3, collectives: one per algorithm (-a: all, the broadcasts, by\n"
	"default; allgathers; or names) of -m bytes (an allgather: each rank's\n"
	"contribution), by the collective engine with its calibration and --slice\n"
	"auto; measured median time over the simulated one, and an allgather's over\n"
	"its receive bound: every rank receives the other p - 1 contributions, so\n"
	"none ends before (p - 1) m / (the sum of a rank's lanes' rx from phase 1),\n"
	"the largest over ranks -- (p - 1) m / (k B) on k lanes of rate B.  Skipped\n"
	"when a port carried no traffic or any pair failed.\n";

/* Burn-in (--duration). */
static const char check_help_burnin[] =
	"\nBurn-in (--duration TIME: 90s, 10m, 1h): phase 1 again and again until\n"
	"TIME is over (a pass already started finishes; rank 0 decides for all),\n"
	"then phases 2 and 3 once.  Per --interval (default a tenth of TIME, at\n"
	"least one pass) every port keeps its best tx and rx; after each, rank 0\n"
	"prints one line on stderr at once: 'burn-in 3/10 (3m of 10m): 16 ports,\n"
	"lowest rank 5 lane 1 at 61% of expected, 0 failing' (expected here:\n"
	"--lane-rate, else the interval's median port).  A port FAILs when an\n"
	"interval fell below --min-bw of its expected rate, naming the intervals\n"
	"(a flapping link or a port that degrades warm), and WARNs when its rate\n"
	"varied by more than --max-spread of its best.  The record has a row of\n"
	"phase interval per port per interval.\n";

/* What every rank reads of its ports. */
static const char check_help_inventory[] =
	"\nBefore any traffic every rank reads its ports: link state, speed, width,\n"
	"MTU, driver and firmware, PCIe link now and at most, NUMA node; for RDMA\n"
	"the verbs port (state, active MTU, GID); for DPDK what the PMD reports.\n"
	"Their error and drop counters are read before and after phases 1 and 2,\n"
	"the transport's retransmissions around every pair.\n";

/* The verdicts and what a port is judged against. */
static const char check_help_verdicts[] =
	"\nVerdicts: PASS, WARN, FAIL or ERROR (the check cannot tell: a silent port\n"
	"whose partners were silent too) per port, per host (the worst of its\n"
	"ports and aggregate) and per collective, with the reasons in words.  What\n"
	"a port should show comes from --expect FILE (docs/check-expect.md), else\n"
	"from its lane's majority -- never from the port itself: a 100G NIC that\n"
	"negotiated 50G is judged against the others' 100G.  A port FAILs when\n"
	"- its link is down, its speed, MTU or PCIe link differs from the file or\n"
	"  the majority, or its PCIe link runs below the device's own maximum;\n"
	"- its tx or rx is below --min-bw of expected (--lane-rate, else the\n"
	"  file's or the majority's speed, else the median of the cluster's ports,\n"
	"  tx and rx apart; against the median it must also lie outside the\n"
	"  ports' spread, 3 MADs, and among fewer than 5 ports it only warns);\n"
	"- every partner retransmitted more than --max-loss of what it sent it\n"
	"  (or it, of what it sent them); an error counter grew by more than\n"
	"  --max-errors, or a drop counter by more than --max-loss of its packets;\n"
	"- its latency is above --max-lat;\n"
	"- it carried nothing with any partner within a quarter of --timeout:\n"
	"  then it asks (ARP, from its interface) which lane's peers answer it,\n"
	"  and says where it is cabled.\n"
	"A port that looks slow or lossy with both partners meets a third before\n"
	"it is blamed.  A firmware or driver version off the lane's majority, or a\n"
	"lane split on a fact with no majority, WARNs.  A rank's aggregate FAILs\n"
	"below --min-bw of the sum of its ports' expected rates (without known\n"
	"rates: of the median aggregate).  A collective FAILs when measured /\n"
	"simulated exceeds --max-model-ratio; an allgather also above\n"
	"--max-bound-ratio x its receive bound, named with the rank that bound\n"
	"comes from and that rank's slowest lane.  Shares are written 0.9, 90%\n"
	"or '90 %' (a bare 90 is refused).  docs/check.md has more.\n"
	"Every failure and warning is named on its own line (rank, host, lane, NIC,\n"
	"what was measured or read, and what was expected), then every host's\n"
	"verdict; the last line is the verdict: 'check: PASS (...)' or\n"
	"'check: FAIL (...)'.  The host is $LANEBENCH_HOST, else the network\n"
	"namespace's name (the emulated cluster), else the host name.\n";

/* The record: CSV, JSON, the HTML page, the time line. */
static const char check_help_record[] =
	"\nThe record: rank 0 always keeps the rows (phase port, aggregate, bcast: a\n"
	"collective of phase 3) as CSV, results/<UTC time>-check-<transport>-p<ranks>\n"
	"-k<lanes>.csv (or -o FILE; -o -: stdout), and as JSON beside it, the same\n"
	"name with .json (or --json FILE; none with -o - alone), and the report as\n"
	"one HTML page beside it, .html (or --html FILE; none: no page; none with\n"
	"-o - alone): the verdict, the failures with their causes, the hosts, per\n"
	"lane the N x N matrix of link rows as a heatmap, the inventory with\n"
	"values off the lane's majority marked, the counters that grew, the\n"
	"collectives; self-contained (no script, nothing fetched).  lanebench\n"
	"report RECORD.csv writes the page again.  The line before the verdict\n"
	"says where: 'record: results/....csv, results/....json, results/....html'\n"
	"-- and the one before it where the time went: 'time: setup 2.1 s, ports\n"
	"8.0 s, aggregate 3.2 s, gather 0.1 s, collectives 4.5 s, report 0.1 s\n"
	"(total 18.0 s)' (setup: the job's rendezvous, inventory and connections;\n"
	"gather: to rank 0).\n"
	"Columns: results/README.md; lanebench compare A.csv B.csv diffs two.\n";

/* Failed pairs, the limits, the exit status. */
static const char check_help_limits[] =
	"\nA pair that fails is given up on its lane (what was outstanding with the\n"
	"partner is dropped): a pulled rail costs only the ports that touch it, and\n"
	"its partners pass with their other partner.\n"
	"\nLimits: with 2 ranks a port has one partner and cannot be told from it.\n"
	"\nExit status: 0 every check passed; 1 a check failed (or the run did, as\n"
	"for bcast); 2 bad usage; 3 another rank died, disconnected or failed itself\n"
	"(named); 128+N stopped by signal N.\n";

static void check_more_help(FILE *out)
{
	lb_cli_list_tp_options(out);
	fputs("\nalgorithms:\n", out);
	lb_cli_list_algos(out);
	fputs(check_help_phases, out);
	fputs(check_help_burnin, out);
	fputs(check_help_inventory, out);
	fputs(check_help_verdicts, out);
	fputs(check_help_record, out);
	fputs(check_help_limits, out);
}

static int run_check(const struct lb_cmd *cmd, int argc, char **argv)
{
	struct check_opts o = { 0 };
	return lb_cli_run(cmd, argc, argv, &o, check);
}

const struct lb_cmd lb_cmd_check = {
	.name = "check",
	.summary = "accept a cluster: every port, every rank's lanes, every collective; verdicts",
	.usage = "[-d NICS] [-t TRANSPORT] [--expect FILE] [--lane-rate RATE] [--min-bw SHARE] [-o FILE] [options]",
	.opts = opts,
	.nopts = sizeof(opts) / sizeof(opts[0]),
	.more_help = check_more_help,
	.run = run_check,
};
