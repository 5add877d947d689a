/* lanebench p2p: the point-to-point engine (engine/p2psweep.h) on every
 * rank of the job; rank 0's results to the table on stdout and, with -o,
 * the CSV (with --json, the JSON document). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "progress.h"
#include "engine/p2psweep.h"
#include "report/csv.h"
#include "report/table.h"
#include "lib/stop.h"
#include "lib/units.h"

struct p2p_opts {
	struct lb_list sizes;
	uint32_t iterations, warmup, window;
	int idle, bidirectional;
	double timeout, lane_rate;
	struct lb_tp_options tpo;
	const char *nics, *transport, *output, *json;
};

#define OFF(f) offsetof(struct p2p_opts, f)

static const char *const idles[] = { "spin", "yield", "sleep", NULL };

static const struct lb_opt opts[] = {
	{ LB_OPT("message-size", 'm', "SIZES", "message sizes, list and ranges: 8,64K, 8:4M (doubling) or 8:4M:4 (x4)",
	  LB_OPT_SIZE_LIST, OFF(sizes)), .def = "8:4M" },
	{ LB_OPT("iterations", 'i', "N", "measured repetitions per size", LB_OPT_UINT,
	  OFF(iterations)), .def = "100", .min = 1, .max = 10000000 },
	{ LB_OPT("warmup", 'x', "N", "unmeasured repetitions first", LB_OPT_UINT, OFF(warmup)),
	  .def = "5", .min = 0, .max = 1000000 },
	{ LB_OPT("window", 'w', "N", "messages in flight in the bandwidth test", LB_OPT_UINT,
	  OFF(window)), .def = "16", .min = 1, .max = 4096 },
	{ LB_OPT("bidirectional", 'b', NULL, "bandwidth both ways at once, the sum reported (and each direction); latency as without",
	  LB_OPT_FLAG, OFF(bidirectional)) },
	LB_NICS_ROWS("NICs to measure, a lane each, one after the other (rail0,rail1); default $LANEBENCH_NICS, else auto",
		     OFF(nics)),
	{ LB_OPT("transport", 't', "NAME", "data transport: tcp, dpdk, rdma (as built: lanebench --help)", LB_OPT_STRING, OFF(transport)),
	  .def = "tcp" },
	{ LB_OPT("idle", 0, NULL, "what the progress loop does with nothing to do",
	  LB_OPT_ENUM, OFF(idle)), .def = "sleep", .choices = idles },
	LB_TP_OPTION_ROWS(OFF(tpo)),
	{ LB_OPT("lane-rate", 0, "RATE", "line rate of a lane, for the efficiency column",
	  LB_OPT_RATE, OFF(lane_rate)) },
	{ LB_OPT("timeout", 0, "SECONDS", "limit for every wait: meeting the other ranks, connecting lanes, one repetition; ranks beyond 0 and 1 wait a row, up to one per repetition (default $LANEBENCH_TIMEOUT, else 60s)",
	  LB_OPT_HANDLER, OFF(timeout)), .handler = lb_cli_set_timeout,
	  .show = lb_cli_show_timeout },
	{ LB_OPT("output", 'o', "FILE", "also write the results as CSV", LB_OPT_STRING,
	  OFF(output)) },
	LB_JSON_ROW(OFF(json)),
};

/* Rank 0's sinks: the CSV (with -o, created once the lanes are
 * connected) and the table on stdout. */
struct p2p_out {
	const struct p2p_opts *o;
	const struct lb_prov *prov; /* the run's, from .provenance until begin */
	struct lb_csv *csv;
	struct lb_table table;
	struct lb_progress progress;
};

/* What a (lane, size) costs, for the estimate: its bytes plus a fixed part. */
static double size_weight(uint64_t bytes)
{
	return (double)bytes + 65536.0;
}

/* The lanes are connected: a line per (lane, size) from here when stderr
 * is a log; the lane count is the provenance's. */
static int out_provenance(void *ctx, const struct lb_prov *prov, char *err, size_t len)
{
	struct p2p_out *out = ctx;
	const char *lanes = lb_prov_get(prov, "lanes");
	size_t k = lanes ? strtoul(lanes, NULL, 10) : 1;
	double weight = 0;
	for (size_t i = 0; i < out->o->sizes.n; i++)
		weight += size_weight(out->o->sizes.v[i]) * (double)k;
	lb_progress_start(&out->progress, "p2p", k * out->o->sizes.n, weight, !isatty(STDERR_FILENO));
	out->prov = prov; /* begin follows at once */
	return 0;
}

static void row_progress(struct p2p_out *out, const struct lb_result *r)
{
	char what[96], size[24];
	uint64_t bytes = lb_result_val(r, "message_bytes")->u;
	lb_format_size(bytes, size, sizeof(size));
	snprintf(what, sizeof(what), "lane %llu (%s) %s",
		 (unsigned long long)lb_result_val(r, "lane")->u, lb_result_val(r, "lane_name")->s, size);
	lb_progress_done(&out->progress, what, size_weight(bytes));
}

static int out_begin(void *ctx, const struct lb_col *cols, size_t ncols, char *err, size_t len)
{
	struct p2p_out *out = ctx;
	if (out->o->output && !(out->csv = lb_csv_create(out->o->output, out->prov, cols, ncols, err, len)))
		return -1;
	if (out->csv)
		lb_stop_arm(); /* results to keep: a signal stops the sweep */
	lb_table_header(&out->table, cols, ncols);
	return 0;
}

static int out_row(void *ctx, const struct lb_result *r, char *err, size_t len)
{
	struct p2p_out *out = ctx;
	if (out->csv && lb_csv_sink_row(out->csv, r, err, len))
		return -1;
	row_progress(out, r);
	return lb_table_row(&out->table, r, err, len);
}

/* In a job: the NICs' default may name the rank's own. */
static struct lb_p2psweep_params params_of(const struct lb_cmd *cmd, const struct p2p_opts *o)
{
	return (struct lb_p2psweep_params){
		.sizes = o->sizes.v, .nsizes = o->sizes.n, .iterations = o->iterations,
		.warmup = o->warmup, .window = o->window, .bidirectional = o->bidirectional,
		.nics = lb_cli_nics(cmd, o->nics),
		.transport = o->transport, .idle = (enum lb_idle)o->idle, .tp_options = o->tpo,
		.timeout = o->timeout, .lane_rate = o->lane_rate, .stop = lb_stop_flag(),
	};
}

/* The sinks on rank 0: the CSV and the table (out), the JSON document. */
static int run_sinks(const struct lb_p2psweep_params *p, struct p2p_out *out,
		     struct lb_cli_json *json, char *err, size_t len)
{
	struct lb_sink sinks[2] = {
		{ .provenance = out_provenance, .begin = out_begin, .row = out_row, .ctx = out },
		lb_cli_json_sink(json),
	};
	struct lb_tee tee = { sinks, json->path ? 2 : 1 };
	const struct lb_sink sink = { .provenance = lb_tee_provenance, .begin = lb_tee_begin,
				      .row = lb_tee_row, .ctx = &tee };
	return lb_p2psweep_run(p, &sink, err, len);
}

/* Every byte of a bandwidth window is verified, so the window's messages
 * lie side by side in the buffer (window x the largest size, twice with
 * -b): refused past a size a rank can be expected to hold. */
static int check_window_bytes(const struct lb_cmd *cmd, const struct p2p_opts *o)
{
	uint64_t max = 0;
	for (size_t i = 0; i < o->sizes.n; i++)
		max = o->sizes.v[i] > max ? o->sizes.v[i] : max;
	if (max <= LB_P2P_MAX_WINDOW_BYTES / o->window)
		return 0;
	char cap[24];
	lb_format_size(LB_P2P_MAX_WINDOW_BYTES, cap, sizeof(cap));
	lb_cli_error(cmd, NULL, "-w %u x -m %llu bytes (the largest size) is over %s: every "
		     "byte of a window is verified, so the window needs that much buffer; "
		     "give a smaller -w or -m", o->window, (unsigned long long)max, cap);
	return LB_EXIT_USAGE;
}

static int p2p(const struct lb_cmd *cmd, void *base)
{
	const struct p2p_opts *o = base;
	struct lb_cli_json json = { .path = o->json };
	struct p2p_out out = { .o = o,
			       .table = { .out = lb_cli_json_to_stdout(&json) ? stderr : stdout } };
	struct lb_prov prov = { 0 };
	char err[512] = "";
	int rc = check_window_bytes(cmd, o);
	if (rc == 0)
		rc = lb_cli_require_job(cmd, 2); /* ranks 0 and 1 measure */
	if (rc)
		return rc;
	if (lb_cli_check_stdout(cmd, &json, o->output))
		return LB_EXIT_USAGE;
	struct lb_p2psweep_params p = params_of(cmd, o);
	lb_cli_provenance(&prov, cmd, o);
	lb_cli_tp_provenance(&prov, o->transport, &o->tpo);
	p.prov = &prov;
	rc = run_sinks(&p, &out, &json, err, sizeof(err));
	if (!*lb_stop_flag())
		lb_table_legend(&out.table); /* rank 0's, under its table */
	if (rc && !*lb_stop_flag())
		lb_cli_error(cmd, NULL, "%s", err);
	lb_prov_free(&prov);
	int json_rc = lb_cli_finish_json(cmd, &json, rc, err);
	if (out.csv || json.path) /* after a signal: ends by it */
		rc = lb_cli_finish_csv(cmd, out.csv, rc, err);
	else
		rc = lb_cli_exit_status(rc);
	return rc ? rc : json_rc;
}

static void p2p_more_help(FILE *out)
{
	lb_cli_list_tp_options(out);
	fputs("\n"
	      "Every rank of a job of at least two runs this command (launched as for\n"
	      "bcast: see lanebench bcast --help); ranks 0 and 1 measure, the others only\n"
	      "take part in the set-up.  Outside a job it refuses to run.  The CSV columns\n"
	      "are described in results/README.md.\n"
	      "\n"
	      "Every byte is verified, outside the timed part: each repetition's payload\n"
	      "is a new pattern, checked by the rank that received it (verified_bytes).\n"
	      "A window's messages therefore lie side by side: each measuring rank holds\n"
	      "a buffer of -w x the largest -m (twice that with -b; 16 x 4M = 64 MiB by\n"
	      "default); -w x the largest -m over 1G is refused.\n", out);
}

static int run_p2p(const struct lb_cmd *cmd, int argc, char **argv)
{
	struct p2p_opts o = { 0 };
	return lb_cli_run(cmd, argc, argv, &o, p2p);
}

const struct lb_cmd lb_cmd_p2p = {
	.name = "p2p",
	.summary = "latency and bandwidth of each lane between ranks 0 and 1 (like perftest)",
	.usage = "[-m SIZES] [-i N] [-x N] [-w N] [-b] [-d NICS] [-o FILE] [options]",
	.opts = opts,
	.nopts = sizeof(opts) / sizeof(opts[0]),
	.more_help = p2p_more_help,
	.run = run_p2p,
};
