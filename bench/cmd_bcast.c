/* lanebench bcast: real broadcasts across the ranks of a job (one process
 * per host, launched by scripts/cluster run, srun or mpirun).  Each rank
 * runs the engine (engine/bcast.c); rank 0 hands every configuration's
 * result to two sinks: the CSV file and a table on stdout. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "engine/bcast.h"
#include "report/csv.h"
#include "lib/stop.h"
#include "lib/units.h"

struct bcast_opts {
	struct lb_algo_set algos;
	struct lb_list sizes, slices;
	uint32_t iterations, warmup, root;
	int stripe_off, allgather, idle, no_calibration, no_pin, verbose;
	uint64_t calib_size;
	double timeout, lane_rate;
	struct lb_tp_options tpo;
	const char *lanes, *transport, *output, *label;
};

#define OFF(f) offsetof(struct bcast_opts, f)

static const char *const on_off[] = { "on", "off", NULL };
static const char *const allgathers[] = { "auto", "doubling", "ring", NULL };
static const char *const idles[] = { "spin", "yield", "sleep", NULL };

static const struct lb_opt opts[] = {
	{ LB_OPT("algorithm", 'a', "LIST", "algorithms: all, or a comma list of names (see below)",
	  LB_OPT_HANDLER, OFF(algos)), .def = "all", .handler = lb_cli_set_algos },
	{ LB_OPT("message-size", 'm', "SIZES", "message sizes, list and ranges: 4K,1M or 4K:16M",
	  LB_OPT_SIZE_LIST, OFF(sizes)), .def = "4K:16M" },
	{ LB_OPT("slice", 's', "SIZES", "slice sizes (pipelining unit), list and ranges",
	  LB_OPT_SIZE_LIST, OFF(slices)), .def = "64K" },
	{ LB_OPT("iterations", 'i', "N", "timed iterations per configuration", LB_OPT_UINT,
	  OFF(iterations)), .def = "10", .min = 1, .max = 1000000 },
	{ LB_OPT("warmup", 'x', "N", "untimed iterations first", LB_OPT_UINT, OFF(warmup)),
	  .def = "2", .min = 0, .max = 1000000 },
	{ LB_OPT("root", 'r', "ROOT", "rank that holds the message", LB_OPT_UINT, OFF(root)),
	  .def = "0", .min = 0, .max = LB_MAX_RANKS - 1 },
	{ LB_OPT("lanes", 'l', "LIST", "lanes: interfaces, IPv4 addresses or devices (rail0,rail1), or auto (the NICs of the transport's kind; auto:network, auto:openfabrics); default $LANEBENCH_LANES, else auto",
	  LB_OPT_STRING, OFF(lanes)) },
	{ LB_OPT("transport", 't', "NAME", "data transport: tcp, dpdk, rdma (as built: lanebench --help)", LB_OPT_STRING, OFF(transport)),
	  .def = "tcp" },
	{ LB_OPT("idle", 0, NULL, "what a lane thread does with nothing to do (sleep when ranks share cores)",
	  LB_OPT_ENUM, OFF(idle)), .def = "sleep", .choices = idles },
	LB_TP_OPTION_ROWS(OFF(tpo)),
	{ LB_OPT("stripe", 0, NULL, "single-lane algorithms: spread slices over the lanes",
	  LB_OPT_ENUM, OFF(stripe_off)), .def = "on", .choices = on_off },
	{ LB_OPT("allgather", 0, NULL, "vandegeijn's allgather; auto = doubling for 2^n ranks, else ring",
	  LB_OPT_ENUM, OFF(allgather)), .def = "auto", .choices = allgathers },
	{ LB_OPT("lane-rate", 0, "RATE", "line rate of one lane for the efficiency column (200mbit); default: asked from the transport",
	  LB_OPT_RATE, OFF(lane_rate)) },
	{ LB_OPT("calib-size", 0, "BYTES", "message size of the bandwidth calibration",
	  LB_OPT_SIZE, OFF(calib_size)), .def = "256K" },
	{ LB_OPT("no-calibration", 0, NULL, "skip calibration (no predicted columns)",
	  LB_OPT_FLAG, OFF(no_calibration)) },
	{ LB_OPT("no-pin", 0, NULL, "do not bind lane threads to cores near their NIC",
	  LB_OPT_FLAG, OFF(no_pin)) },
	{ LB_OPT("timeout", 0, "SECONDS", "limit for every wait: meeting the other ranks, connecting lanes, calibration, one iteration (default $LANEBENCH_TIMEOUT, else 60s)",
	  LB_OPT_HANDLER, OFF(timeout)), .handler = lb_cli_set_timeout },
	{ LB_OPT("verbose", 'v', NULL, "every rank says on stderr when each iteration's data phase starts (\"lanebench bcast: rank 2: chain 4M slice 64K: iteration 3/12 started\"): follow a run in its logs, or act once data moves",
	  LB_OPT_FLAG, OFF(verbose)) },
	{ LB_OPT("label", 0, "NAME", "name of this run in the CSV and its file name",
	  LB_OPT_STRING, OFF(label)) },
	{ LB_OPT("output", 'o', "FILE", "CSV file (default results/<time>-<label>.csv)",
	  LB_OPT_STRING, OFF(output)) },
};

static void bcast_more_help(FILE *out)
{
	fputs("algorithms:\n", out);
	lb_cli_list_algos(out);
	fputs("\nEvery rank of the job runs this command; rank and size come from\n"
	      "LANEBENCH_RANK/LANEBENCH_SIZE, SLURM_PROCID/SLURM_NTASKS,\n"
	      "OMPI_COMM_WORLD_RANK/OMPI_COMM_WORLD_SIZE or PMI_RANK/PMI_SIZE; ranks meet\n"
	      "at LANEBENCH_COORD=host:port (rank 0 listens) and present LANEBENCH_TOKEN.\n"
	      "scripts/cluster run sets all of these; without a rank and size the command\n"
	      "refuses to run (LANEBENCH_RANK=0 LANEBENCH_SIZE=1: one rank, on purpose; no\n"
	      "data moves, so no bandwidth is reported).  Every iteration's bytes are checked\n"
	      "on every rank; a mismatch is an error, never a number.  Time per iteration\n"
	      "is the slowest rank's.  The CSV columns are described in results/README.md.\n"
	      "\nA rank that dies or stops answering stops the others: each exits with\n"
	      "status 3 and a message naming it (a dpdk peer counts as gone after 3 s of\n"
	      "silence, or half of --timeout if that is shorter).  Exit statuses: see\n"
	      "lanebench --help.\n",
	      out);
}

/* ---- sinks: rank 0 only ------------------------------------------------ */

static const struct lb_col columns[] = {
	{ LB_COLUMN("label", LB_COL_TEXT) },
	{ LB_COLUMN("transport", LB_COL_TEXT) },
	{ LB_COLUMN("algorithm", LB_COL_TEXT) },
	{ LB_COLUMN("ranks", LB_COL_UINT) },
	{ LB_COLUMN("lanes", LB_COL_UINT) },
	{ LB_COLUMN("root", LB_COL_UINT) },
	{ LB_COLUMN("stripe", LB_COL_TEXT) },
	{ LB_COLUMN("idle", LB_COL_TEXT) },
	{ LB_COLUMN("message_bytes", LB_COL_UINT) },
	{ LB_COLUMN("slice_bytes", LB_COL_UINT) },
	{ LB_COLUMN("slices", LB_COL_UINT) },
	{ LB_COLUMN("iterations", LB_COL_UINT) },
	{ LB_COLUMN("warmup", LB_COL_UINT) },
	{ LB_COLUMN("time_min_seconds", LB_COL_REAL) },
	{ LB_COLUMN("time_median_seconds", LB_COL_REAL) },
	{ LB_COLUMN("time_mean_seconds", LB_COL_REAL) },
	{ LB_COLUMN("time_p99_seconds", LB_COL_REAL) },
	{ LB_COLUMN("time_max_seconds", LB_COL_REAL) },
	{ LB_COLUMN("algbw_bytes_per_second", LB_COL_REAL) },
	{ LB_COLUMN("lane_rate_bytes_per_second", LB_COL_REAL) },
	{ LB_COLUMN("efficiency_ratio", LB_COL_REAL) },
	{ LB_COLUMN("calib_latency_seconds", LB_COL_REAL) },
	{ LB_COLUMN("calib_lane_bandwidth_bytes_per_second", LB_COL_REAL) },
	{ LB_COLUMN("table_seconds", LB_COL_REAL) },
	{ LB_COLUMN("refined_seconds", LB_COL_REAL) },
	{ LB_COLUMN("sim_seconds", LB_COL_REAL) },
	{ LB_COLUMN("measured_over_table_ratio", LB_COL_REAL) },
	{ LB_COLUMN("measured_over_refined_ratio", LB_COL_REAL) },
	{ LB_COLUMN("measured_over_sim_ratio", LB_COL_REAL) },
	{ LB_COLUMN("verified_bytes", LB_COL_UINT) },
	/* frame counters (dpdk): empty for transports without them */
	{ LB_COLUMN("frames_sent_count", LB_COL_TEXT) },
	{ LB_COLUMN("frames_retransmitted_count", LB_COL_TEXT) },
	{ LB_COLUMN("frames_received_count", LB_COL_TEXT) },
	{ LB_COLUMN("acks_sent_count", LB_COL_TEXT) },
	{ LB_COLUMN("frames_dropped_count", LB_COL_TEXT) },
	{ LB_COLUMN("dropped_short_count", LB_COL_TEXT) },
	{ LB_COLUMN("dropped_ethertype_count", LB_COL_TEXT) },
	{ LB_COLUMN("dropped_version_count", LB_COL_TEXT) },
	{ LB_COLUMN("dropped_job_count", LB_COL_TEXT) },
	{ LB_COLUMN("dropped_not_mine_count", LB_COL_TEXT) },
	{ LB_COLUMN("dropped_malformed_count", LB_COL_TEXT) },
	{ LB_COLUMN("dropped_range_count", LB_COL_TEXT) },
	{ LB_COLUMN("dropped_duplicate_count", LB_COL_TEXT) },
	{ LB_COLUMN("dropped_window_count", LB_COL_TEXT) },
	{ LB_COLUMN("dropped_injected_count", LB_COL_TEXT) },
};

#define COUNTER_COLUMNS (5 + LB_DROP_REASONS)
_Static_assert(LB_DROP_REASONS == 10, "one dropped_<reason>_count column per lb_tp_drop_names[]");

#define NCOLUMNS (sizeof(columns) / sizeof(columns[0]))

struct sink {
	const struct bcast_opts *o;
	struct lb_csv *csv;
	char label[128], path[512];
	int rows;
};

/* results/<UTC time>-<label>.csv, creating results/ when needed. */
static void default_path(struct sink *k)
{
	char stamp[32];
	time_t t = time(NULL);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", gmtime(&t));
	mkdir("results", 0777);
	snprintf(k->path, sizeof(k->path), "results/%s-%s.csv", stamp, k->label);
}

static int open_csv(struct sink *k, const struct lb_bcast_result *r, char *err, size_t len)
{
	if (k->o->label)
		snprintf(k->label, sizeof(k->label), "%s", k->o->label);
	else
		snprintf(k->label, sizeof(k->label), "%s-p%u-k%u", r->transport, r->ranks, r->lanes);
	if (k->o->output)
		snprintf(k->path, sizeof(k->path), "%s", k->o->output);
	else
		default_path(k);
	k->csv = lb_csv_open(k->path, columns, NCOLUMNS, err, len);
	return k->csv ? 0 : -1;
}

/* The counter cells as decimal strings; NULL (empty) without counters. */
static void counter_cells(const struct lb_bcast_result *r, char txt[][24], union lb_val *v)
{
	const struct lb_tp_counters *c = &r->counters;
	uint64_t dropped = 0;
	for (int i = 0; i < LB_DROP_REASONS; i++)
		dropped += c->dropped[i];
	uint64_t n[COUNTER_COLUMNS] = { c->frames_sent, c->frames_retransmitted,
					c->frames_received, c->acks_sent, dropped };
	for (int i = 0; i < LB_DROP_REASONS; i++)
		n[5 + i] = c->dropped[i];
	for (int i = 0; i < COUNTER_COLUMNS; i++) {
		snprintf(txt[i], sizeof(txt[i]), "%llu", (unsigned long long)n[i]);
		v[i].s = r->has_counters ? txt[i] : NULL;
	}
}

static int csv_row(struct sink *k, const struct lb_bcast_result *r, char *err, size_t len)
{
	static const char *const idle_names[] = { "spin", "yield", "sleep" };
	char txt[COUNTER_COLUMNS][24];
	union lb_val v[NCOLUMNS] = {
		{ .s = k->label }, { .s = r->transport }, { .s = r->algorithm },
		{ .u = r->ranks }, { .u = r->lanes }, { .u = r->root },
		{ .s = r->stripe_off ? "off" : "on" }, { .s = idle_names[r->idle] },
		{ .u = r->bytes }, { .u = r->slice_bytes }, { .u = r->slices },
		{ .u = r->iterations }, { .u = r->warmup },
		{ .d = r->time.min }, { .d = r->time.median }, { .d = r->time.mean },
		{ .d = r->time.p99 }, { .d = r->time.max }, { .d = r->algbw },
		{ .d = r->lane_rate > 0 ? r->lane_rate : NAN }, { .d = r->efficiency },
		{ .d = r->calib_latency > 0 ? r->calib_latency : NAN },
		{ .d = r->calib_lane_bw > 0 ? r->calib_lane_bw : NAN },
		{ .d = r->table }, { .d = r->refined }, { .d = r->sim },
		{ .d = r->over_table }, { .d = r->over_refined }, { .d = r->over_sim },
		{ .u = r->verified_bytes },
	};
	counter_cells(r, txt, v + NCOLUMNS - COUNTER_COLUMNS);
	return lb_csv_row(k->csv, &(struct lb_result){ .cols = columns, .ncols = NCOLUMNS, .vals = v },
			  err, len);
}

/* A ratio for the table: "-" when it does not exist. */
static const char *fmt_ratio(double v, char *buf, size_t len)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.3f", v);
	return buf;
}

static void table_row(const struct sink *k, const struct lb_bcast_result *r)
{
	char bytes[24], slice[24], med[24], p99[24], sim[24], mbs[24] = "-", e[16], t[16], f[16], m[16];
	if (k->rows == 0)
		printf("%-11s %7s %7s %11s %11s %10s %6s %11s %9s %9s %9s\n", "algorithm", "bytes",
		       "slice", "median", "p99", "MB/s", "eff", "sim", "meas/tab", "meas/ref",
		       "meas/sim");
	lb_format_size(r->bytes, bytes, sizeof(bytes));
	lb_format_size(r->slice_bytes, slice, sizeof(slice));
	lb_format_seconds(r->time.median, med, sizeof(med));
	lb_format_seconds(r->time.p99, p99, sizeof(p99));
	lb_format_seconds(r->sim, sim, sizeof(sim));
	if (!isnan(r->algbw))
		snprintf(mbs, sizeof(mbs), "%.2f", r->algbw / 1e6);
	printf("%-11s %7s %7s %11s %11s %10s %6s %11s %9s %9s %9s\n", r->algorithm, bytes,
	       slice, med, p99, mbs, fmt_ratio(r->efficiency, e, sizeof(e)),
	       isnan(r->sim) ? "-" : sim, fmt_ratio(r->over_table, t, sizeof(t)),
	       fmt_ratio(r->over_refined, f, sizeof(f)), fmt_ratio(r->over_sim, m, sizeof(m)));
}

/* The file opens with the first result (its name holds the job's size);
 * from then on a signal stops the sweep instead of losing the file. */
static int first_result(struct sink *k, const struct lb_bcast_result *r, char *err, size_t len)
{
	if (open_csv(k, r, err, len))
		return -1;
	lb_stop_arm();
	return 0;
}

static int sink_result(const struct lb_bcast_result *r, void *arg)
{
	struct sink *k = arg;
	char err[512];
	int rc = !k->csv ? first_result(k, r, err, sizeof(err)) : 0;
	if (rc == 0 && csv_row(k, r, err, sizeof(err))) {
		if (lb_csv_reader_gone(k->csv))
			lb_stop_request(SIGPIPE); /* the CSV's reader left: stop, quietly */
		else
			rc = -1;
	}
	if (rc == 0) {
		table_row(k, r);
		rc = lb_cli_flush_table(stdout, err, sizeof(err));
	}
	if (rc)
		fprintf(stderr, "lanebench bcast: %s\n", err);
	else
		k->rows++;
	return rc;
}

/* Before each iteration's data phase: with --verbose a line per rank and
 * iteration (logs; tests wait for it before they kill a rank), else rank
 * 0's progress line on a terminal. */
static void on_iteration(const struct lb_bcast_step *st, void *arg)
{
	const struct bcast_opts *o = arg;
	char size[24], slice[24];
	lb_format_size(st->bytes, size, sizeof(size));
	if (o->verbose) {
		lb_format_size(st->slice_bytes ? st->slice_bytes : st->bytes, slice, sizeof(slice));
		fprintf(stderr, "lanebench bcast: rank %u: %s %s slice %s: iteration %u/%u started\n",
			st->rank, st->algorithm, size, slice, st->iteration, st->iterations);
		return;
	}
	if (st->rank != 0 || !isatty(STDERR_FILENO))
		return;
	fprintf(stderr, "\r[%zu/%zu] %-10s %6s  iteration %u/%u   ", st->config + 1, st->nconfigs,
		st->algorithm, size, st->iteration, st->iterations);
	if (st->config + 1 == st->nconfigs && st->iteration == st->iterations)
		fprintf(stderr, "\r%60s\r", "");
}

static int bcast(const struct lb_cmd *cmd, void *base)
{
	const struct bcast_opts *o = base;
	struct lb_bcast_params p = {
		.algos = o->algos.a, .nalgos = o->algos.n, .sizes = o->sizes.v,
		.nsizes = o->sizes.n, .slices = o->slices.v, .nslices = o->slices.n,
		.iterations = o->iterations, .warmup = o->warmup, .root = o->root,
		.stripe_off = o->stripe_off, .allgather = (enum lb_allgather)o->allgather,
		.lanes = o->lanes, .transport = o->transport, .idle = (enum lb_idle)o->idle,
		.tp_options = o->tpo,
		.timeout = o->timeout, .lane_rate = o->lane_rate,
		.calib_bytes = o->no_calibration ? 0 : o->calib_size, .pin = !o->no_pin,
		.on_iteration = on_iteration, .on_iteration_arg = (void *)o,
		.stop = lb_stop_flag(),
	};
	struct sink k = { .o = o };
	char err[512] = "";
	int rc = lb_cli_require_job(cmd, 1);
	if (rc)
		return rc;
	rc = lb_bcast_run(&p, sink_result, &k, err, sizeof(err));
	if (rc && !*lb_stop_flag())
		lb_cli_error(cmd, NULL, "%s", err);
	rc = lb_cli_finish_csv(cmd, k.csv, rc, err); /* after a signal: ends by it */
	if (rc == 0 && k.csv)
		printf("results: %s\n", k.path);
	return rc;
}

static int run_bcast(const struct lb_cmd *cmd, int argc, char **argv)
{
	struct bcast_opts o = { 0 };
	return lb_cli_run(cmd, argc, argv, &o, bcast);
}

const struct lb_cmd lb_cmd_bcast = {
	.name = "bcast",
	.summary = "run broadcasts across the job's ranks; measured vs predicted, CSV",
	.usage = "[-a LIST|all] [-m SIZES] [-s SIZES] [-i N] [-x N] [-r ROOT] [--lanes LIST] [options]",
	.opts = opts,
	.nopts = sizeof(opts) / sizeof(opts[0]),
	.more_help = bcast_more_help,
	.run = run_bcast,
};
