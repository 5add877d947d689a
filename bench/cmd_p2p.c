/* lanebench p2p: one lane between ranks 0 and 1, like perftest's
 * ib_write_lat / ib_write_bw: ping-pong latency (half the round trip) and
 * windowed streaming bandwidth per message size, lane by lane.  Ranks
 * beyond 1 only take part in the set-up. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "report/csv.h"
#include "lib/error.h"
#include "engine/job.h"
#include "engine/p2p.h"
#include "engine/stats.h"
#include "lib/stop.h"
#include "lib/units.h"

struct p2p_opts {
	struct lb_list sizes;
	uint32_t iterations, warmup, window;
	int idle;
	double timeout, lane_rate;
	struct lb_tp_options tpo;
	const char *lanes, *transport, *output;
};

#define OFF(f) offsetof(struct p2p_opts, f)

static const char *const idles[] = { "spin", "yield", "sleep", NULL };

static const struct lb_opt opts[] = {
	{ LB_OPT("message-size", 'm', "SIZES", "message sizes, list and ranges: 8,64K or 8:4M",
	  LB_OPT_SIZE_LIST, OFF(sizes)), .def = "8:4M" },
	{ LB_OPT("iterations", 'i', "N", "measured repetitions per size", LB_OPT_UINT,
	  OFF(iterations)), .def = "100", .min = 1, .max = 10000000 },
	{ LB_OPT("warmup", 'x', "N", "unmeasured repetitions first", LB_OPT_UINT, OFF(warmup)),
	  .def = "5", .min = 0, .max = 1000000 },
	{ LB_OPT("window", 'w', "N", "messages in flight in the bandwidth test", LB_OPT_UINT,
	  OFF(window)), .def = "16", .min = 1, .max = 4096 },
	{ LB_OPT("lanes", 'l', "LIST", "lanes to measure, one after the other (rail0,rail1); default $LANEBENCH_LANES, else auto",
	  LB_OPT_STRING, OFF(lanes)) },
	{ LB_OPT("transport", 't', "NAME", "data transport: tcp, dpdk, rdma (as built: lanebench --help)", LB_OPT_STRING, OFF(transport)),
	  .def = "tcp" },
	{ LB_OPT("idle", 0, NULL, "what the progress loop does with nothing to do",
	  LB_OPT_ENUM, OFF(idle)), .def = "sleep", .choices = idles },
	LB_TP_OPTION_ROWS(OFF(tpo)),
	{ LB_OPT("lane-rate", 0, "RATE", "line rate of a lane, for the efficiency column",
	  LB_OPT_RATE, OFF(lane_rate)) },
	{ LB_OPT("timeout", 0, "SECONDS", "limit for every wait: meeting the other ranks, connecting lanes, one repetition (default $LANEBENCH_TIMEOUT, else 60s)",
	  LB_OPT_HANDLER, OFF(timeout)), .handler = lb_cli_set_timeout },
	{ LB_OPT("output", 'o', "FILE", "also write the results as CSV", LB_OPT_STRING,
	  OFF(output)) },
};

static const struct lb_col columns[] = {
	{ LB_COLUMN("transport", LB_COL_TEXT) },
	{ LB_COLUMN("lane", LB_COL_UINT) },
	{ LB_COLUMN("lane_name", LB_COL_TEXT) },
	{ LB_COLUMN("message_bytes", LB_COL_UINT) },
	{ LB_COLUMN("iterations", LB_COL_UINT) },
	{ LB_COLUMN("window", LB_COL_UINT) },
	{ LB_COLUMN("latency_min_seconds", LB_COL_REAL) },
	{ LB_COLUMN("latency_median_seconds", LB_COL_REAL) },
	{ LB_COLUMN("latency_p99_seconds", LB_COL_REAL) },
	{ LB_COLUMN("bandwidth_median_bytes_per_second", LB_COL_REAL) },
	{ LB_COLUMN("bandwidth_max_bytes_per_second", LB_COL_REAL) },
	{ LB_COLUMN("lane_rate_bytes_per_second", LB_COL_REAL) },
	{ LB_COLUMN("efficiency_ratio", LB_COL_REAL) },
};

#define NCOLUMNS (sizeof(columns) / sizeof(columns[0]))

struct p2p_row {
	uint32_t lane;
	uint64_t bytes;
	struct lb_stats lat, bw;
	double efficiency;
};

/* Rank 0: the row to the CSV (if any), then to the table, flushed. */
static int emit(const struct p2p_opts *o, const struct lb_job *j, struct lb_csv *csv,
		const struct p2p_row *r, char *err, size_t len)
{
	char sz[24], mn[24], med[24], p99[24], eff[16] = "-";
	const union lb_val v[NCOLUMNS] = {
		{ .s = j->ops->name }, { .u = r->lane }, { .s = j->lane_names[r->lane] },
		{ .u = r->bytes }, { .u = o->iterations }, { .u = o->window },
		{ .d = r->lat.min }, { .d = r->lat.median }, { .d = r->lat.p99 },
		{ .d = r->bw.median }, { .d = r->bw.max },
		{ .d = j->lane_rate > 0 ? j->lane_rate : NAN }, { .d = r->efficiency },
	};
	const struct lb_result res = { .cols = columns, .ncols = NCOLUMNS, .vals = v };
	if (csv && lb_csv_row(csv, &res, err, len)) {
		if (!lb_csv_reader_gone(csv))
			return -1;
		lb_stop_request(SIGPIPE); /* the CSV's reader left: stop, quietly */
	}
	lb_format_size(r->bytes, sz, sizeof(sz));
	if (!isnan(r->efficiency)) /* unknown line rate: "-", as in bcast */
		snprintf(eff, sizeof(eff), "%.3f", r->efficiency);
	lb_format_seconds(r->lat.min, mn, sizeof(mn));
	lb_format_seconds(r->lat.median, med, sizeof(med));
	lb_format_seconds(r->lat.p99, p99, sizeof(p99));
	printf("%4u %-10s %8s %8u %11s %11s %11s %12.2f %10.3f %6s\n", r->lane,
	       j->lane_names[r->lane], sz, o->iterations, mn, med, p99, r->bw.median / 1e6,
	       r->bw.median * 8 / 1e9, eff);
	return lb_cli_flush_table(stdout, err, len);
}

/* Ranks 0 and 1 measure one size on one lane; rank 0 keeps the figures. */
static int measure(const struct p2p_opts *o, struct lb_job *j, uint32_t lane, uint64_t bytes,
		   struct p2p_row *row, char *err, size_t len)
{
	double *s = calloc(o->iterations, sizeof(*s));
	if (!s)
		return lb_errf(err, len, "out of memory");
	struct lb_p2p_cfg c = {
		.ops = j->ops, .tp = j->tp, .buf = j->buf, .lane = lane, .peer = !j->rank,
		.initiator = j->rank == 0, .bytes = bytes, .iters = o->iterations,
		.warmup = o->warmup, .window = o->window, .idle = (enum lb_idle)o->idle,
		.timeout = j->timeout, .stop = lb_stop_flag(),
	};
	int rc = lb_p2p_latency(&c, s, err, len);
	lb_stats_compute(s, o->iterations, &row->lat);
	if (rc == 0)
		rc = lb_p2p_bandwidth(&c, s, err, len);
	lb_stats_compute(s, o->iterations, &row->bw);
	row->lane = lane;
	row->bytes = bytes;
	row->efficiency = j->lane_rate > 0 ? row->bw.median / j->lane_rate : NAN;
	free(s);
	return rc;
}

static int sweep(const struct p2p_opts *o, struct lb_job *j, struct lb_csv *csv, char *err,
		 size_t len)
{
	if (j->rank == 0)
		printf("%4s %-10s %8s %8s %11s %11s %11s %12s %10s %6s\n", "lane", "name", "bytes",
		       "iters", "lat min", "lat median", "lat p99", "bw MB/s", "bw Gbit/s", "eff");
	for (uint32_t l = 0; l < j->lanes; l++)
		for (size_t i = 0; i < o->sizes.n; i++) {
			struct p2p_row row;
			int rc = j->rank > 1 ? 0 : measure(o, j, l, o->sizes.v[i], &row, err, len);
			if (rc == 0 && j->rank == 0)
				rc = emit(o, j, csv, &row, err, len);
			if (*lb_stop_flag()) { /* rank 1 may be in a data phase: tell it now */
				lb_boot_abort(j->boot, "rank 0 was stopped by a signal");
				return -1;
			}
			if ((rc = lb_job_agree(j, rc, err, len)) != 0)
				return rc;
		}
	return 0;
}

static int p2p(const struct lb_cmd *cmd, void *base)
{
	const struct p2p_opts *o = base;
	struct lb_job_params jp = { .lanes = o->lanes, .transport = o->transport,
				    .timeout = o->timeout, .lane_rate = o->lane_rate,
				    .idle = o->idle, .tp_options = o->tpo };
	for (size_t i = 0; i < o->sizes.n; i++)
		jp.buffer_bytes = o->sizes.v[i] > jp.buffer_bytes ? o->sizes.v[i] : jp.buffer_bytes;
	struct lb_job j;
	struct lb_csv *csv = NULL;
	char err[512] = "";
	int rc = lb_cli_require_job(cmd, 2); /* ranks 0 and 1 measure */
	if (rc)
		return rc;
	rc = lb_job_open(&j, &jp, err, sizeof(err));
	uint32_t peer[1] = { !j.rank }, *peers[LB_JOB_MAX_LANES], npeers[LB_JOB_MAX_LANES];
	for (uint32_t l = 0; l < LB_JOB_MAX_LANES; l++)
		peers[l] = peer, npeers[l] = j.rank < 2;
	if (rc == 0)
		rc = lb_job_connect(&j, peers, npeers, err, sizeof(err));
	if (rc == 0) { /* rank 0's file, agreed so nobody waits for a rank that quit */
		if (j.rank == 0 && o->output && (csv = lb_csv_open(o->output, columns, NCOLUMNS,
								   err, sizeof(err))))
			lb_stop_arm(); /* results to keep: a signal stops the sweep */
		rc = lb_job_agree(&j, j.rank == 0 && o->output && !csv ? -1 : 0, err, sizeof(err));
	}
	if (rc == 0)
		rc = sweep(o, &j, csv, err, sizeof(err));
	lb_job_close(&j);
	if (rc && !*lb_stop_flag())
		lb_cli_error(cmd, NULL, "%s", err);
	if (csv) /* after a signal: ends by it */
		return lb_cli_finish_csv(cmd, csv, rc, err);
	return lb_cli_exit_status(rc);
}

static void p2p_more_help(FILE *out)
{
	fputs("Every rank of a job of at least two runs this command (launched as for\n"
	      "bcast: see lanebench bcast --help); ranks 0 and 1 measure, the others only\n"
	      "take part in the set-up.  Outside a job it refuses to run.  The CSV columns\n"
	      "are described in results/README.md.\n", out);
}

static int run_p2p(const struct lb_cmd *cmd, int argc, char **argv)
{
	struct p2p_opts o = { 0 };
	return lb_cli_run(cmd, argc, argv, &o, p2p);
}

const struct lb_cmd lb_cmd_p2p = {
	.name = "p2p",
	.summary = "latency and bandwidth of each lane between ranks 0 and 1 (like perftest)",
	.usage = "[-m SIZES] [-i N] [-w N] [--lanes LIST] [-o FILE]",
	.opts = opts,
	.nopts = sizeof(opts) / sizeof(opts[0]),
	.more_help = p2p_more_help,
	.run = run_p2p,
};
