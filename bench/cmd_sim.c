/* lanebench sim: sweep algorithms x ranks x sizes x slices; for each
 * configuration build the schedule, simulate it and evaluate the models
 * with the same parameters, and hand one row to the sinks (CSV; plus an
 * aligned table on stdout when the CSV goes to a file). */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "report/csv.h"
#include "lib/error.h"
#include "lib/memory.h"
#include "lib/stop.h"
#include "lib/units.h"
#include "model/sim.h"

struct sim_opts {
	struct lb_algo_set algos;
	struct lb_list ranks, sizes, slices;
	uint32_t lanes, root, sites;
	double alpha, bw, wan_alpha; /* wan_alpha < 0: same as alpha */
	int stripe_off, allgather, validate;
	const char *output;
};

#define OFF(f) offsetof(struct sim_opts, f)

static const struct lb_opt opts[] = {
	{ LB_OPT("algorithm", 'a', "LIST", "algorithms: all, or a comma list of names (see below)",
	  LB_OPT_HANDLER, OFF(algos)), .def = "all", .handler = lb_cli_set_algos },
	{ LB_OPT("ranks", 'p', "RANKS", "rank counts: 8,12 or 2:1024 (= 2, 4, ..., 1024)",
	  LB_OPT_COUNT_LIST, OFF(ranks)), .def = "32", .min = 1, .max = LB_MAX_RANKS },
	{ LB_OPT("message-size", 'm', "SIZES", "message sizes, list and ranges: 4K,1M or 8:64M",
	  LB_OPT_SIZE_LIST, OFF(sizes)), .def = "4K:64M" },
	{ LB_OPT("slice", 's', "SIZES", "slice sizes (pipelining unit), list and ranges",
	  LB_OPT_SIZE_LIST, OFF(slices)), .def = "64K" },
	{ LB_OPT("lanes", 'k', "LANES", "lanes (NICs, rails) per rank", LB_OPT_UINT, OFF(lanes)),
	  .def = "2", .min = 1, .max = 64 },
	{ LB_OPT("root", 'r', "ROOT", "rank that holds the message", LB_OPT_UINT, OFF(root)),
	  .def = "0", .min = 0, .max = LB_MAX_RANKS - 1 },
	{ LB_OPT("alpha", 0, "SECONDS", "per-transfer latency of a lane: 5us, 1.5ms, 1e-6",
	  LB_OPT_SECONDS, OFF(alpha)), .def = "5us" },
	{ LB_OPT("bw", 0, "RATE", "bandwidth of one lane: 10gbit, 200mbit, 1.25GB/s",
	  LB_OPT_RATE, OFF(bw)), .def = "10gbit" },
	{ LB_OPT("stripe", 0, NULL, "single-lane algorithms: spread slices over the lanes",
	  LB_OPT_ENUM, OFF(stripe_off)), .def = "on",
	  .choices = (const char *const[]){ "on", "off", NULL } },
	{ LB_OPT("allgather", 0, NULL, "vandegeijn's allgather; auto = doubling for 2^n ranks, else ring",
	  LB_OPT_ENUM, OFF(allgather)), .def = "auto",
	  .choices = (const char *const[]){ "auto", "doubling", "ring", NULL } },
	{ LB_OPT("sites", 0, "N", "split ranks into N sites joined by a WAN (multilane chains them)",
	  LB_OPT_UINT, OFF(sites)), .def = "1", .min = 1, .max = LB_MAX_RANKS },
	{ LB_OPT("wan-alpha", 0, "SECONDS", "latency between sites (default: --alpha)",
	  LB_OPT_SECONDS, OFF(wan_alpha)) },
	{ LB_OPT("validate", 0, NULL, "check every schedule with the validator before simulating",
	  LB_OPT_FLAG, OFF(validate)) },
	{ LB_OPT("output", 'o', "FILE", "write the CSV to FILE and a table to stdout (default: CSV to stdout)",
	  LB_OPT_STRING, OFF(output)) },
};

static void sim_more_help(FILE *out)
{
	fputs("algorithms:\n", out);
	lb_cli_list_algos(out);
	fputs("\nBefore any output every configuration is checked: one no algorithm can\n"
	      "build is a usage error (exit 2); a sweep whose largest configuration needs\n"
	      "more memory than is available (MemAvailable, the memory cgroup, ulimit) is\n"
	      "refused with exit status 4, naming it and both figures.\n"
	      "The CSV columns are described in results/README.md.\n", out);
}

/* One configuration's results, every derived number included: the sinks
 * only format. */
struct sim_row {
	const struct lb_algo *algo;
	uint32_t ranks;
	uint64_t bytes, slice;
	uint32_t slices;
	double sim, table, refined, two_site; /* seconds; NaN: no model */
	double sim_over_table, sim_over_refined, sim_over_two_site;
	double bandwidth; /* bytes per second */
};

/* ---- sinks ---- */

static const struct lb_csv_col columns[] = {
	{ "algorithm", LB_CSV_STRING },
	{ "ranks", LB_CSV_UINT },
	{ "lanes", LB_CSV_UINT },
	{ "root", LB_CSV_UINT },
	{ "stripe", LB_CSV_STRING },
	{ "message_bytes", LB_CSV_UINT },
	{ "slice_bytes", LB_CSV_UINT },
	{ "slices", LB_CSV_UINT },
	{ "alpha_seconds", LB_CSV_DOUBLE },
	{ "lane_bandwidth_bytes_per_second", LB_CSV_DOUBLE },
	{ "sim_seconds", LB_CSV_DOUBLE },
	{ "table_seconds", LB_CSV_DOUBLE },
	{ "refined_seconds", LB_CSV_DOUBLE },
	{ "sim_over_table_ratio", LB_CSV_DOUBLE },
	{ "sim_over_refined_ratio", LB_CSV_DOUBLE },
	{ "sim_bandwidth_bytes_per_second", LB_CSV_DOUBLE },
	/* only with --sites 2: */
	{ "two_site_seconds", LB_CSV_DOUBLE },
	{ "sim_over_two_site_ratio", LB_CSV_DOUBLE },
};

#define NCOLUMNS (sizeof(columns) / sizeof(columns[0]))
#define NCOLUMNS_ONE_SITE (NCOLUMNS - 2)

static int two_site(const struct sim_opts *o)
{
	return o->sites == 2;
}

static int csv_row(struct lb_csv *csv, const struct sim_opts *o,
		   const struct sim_row *r, char *err, size_t errlen)
{
	const union lb_csv_val v[NCOLUMNS] = {
		{ .s = r->algo->name }, { .u = r->ranks }, { .u = o->lanes },
		{ .u = o->root }, { .s = o->stripe_off ? "off" : "on" },
		{ .u = r->bytes }, { .u = r->slice }, { .u = r->slices },
		{ .d = o->alpha }, { .d = o->bw }, { .d = r->sim },
		{ .d = r->table }, { .d = r->refined }, { .d = r->sim_over_table },
		{ .d = r->sim_over_refined }, { .d = r->bandwidth },
		{ .d = r->two_site }, { .d = r->sim_over_two_site },
	};
	return lb_csv_row(csv, v, err, errlen);
}

static void table_header(FILE *out, const struct sim_opts *o)
{
	fprintf(out, "%-11s %7s %7s %7s %7s %11s %11s %11s %9s %11s%s\n", "algorithm", "p",
		"bytes", "slice", "slices", "sim", "table", "refined", "sim/table",
		"sim/refined", two_site(o) ? " sim/2-site" : "");
}

static void table_row(FILE *out, const struct sim_opts *o, const struct sim_row *r)
{
	char bytes[24], slice[24], sim[24], table[24], refined[24];
	lb_format_size(r->bytes, bytes, sizeof(bytes));
	lb_format_size(r->slice, slice, sizeof(slice));
	lb_format_seconds(r->sim, sim, sizeof(sim));
	lb_format_seconds(r->table, table, sizeof(table));
	lb_format_seconds(r->refined, refined, sizeof(refined));
	fprintf(out, "%-11s %7u %7s %7s %7u %11s %11s %11s %9.3f %11.3f", r->algo->name,
		r->ranks, bytes, slice, r->slices, sim, table, refined, r->sim_over_table,
		r->sim_over_refined);
	if (two_site(o))
		fprintf(out, " %10.3f", r->sim_over_two_site);
	fputc('\n', out);
}

/* ---- the engine ---- */

static double ratio(double a, double b)
{
	return b > 0 ? a / b : NAN;
}

static void eval_models(const struct sim_opts *o, const struct lb_algo *a,
			const struct lb_algo_params *prm, struct sim_row *r)
{
	struct lb_cost_in in = {
		.ranks = prm->ranks, .lanes = prm->lanes, .bytes = prm->bytes,
		.slice_bytes = prm->slice_bytes, .latency = o->alpha, .lane_bw = o->bw,
		.sites = o->sites, .wan_latency = o->wan_alpha < 0 ? o->alpha : o->wan_alpha,
		.allgather = prm->allgather, .stripe_off = prm->stripe_off,
	};
	r->table = a->cost_table(&in);
	r->refined = a->cost_refined(&in);
	r->two_site = two_site(o) && a->cost_two_site ? a->cost_two_site(&in) : NAN;
	r->sim_over_table = ratio(r->sim, r->table);
	r->sim_over_refined = ratio(r->sim, r->refined);
	r->sim_over_two_site = ratio(r->sim, r->two_site);
	r->bandwidth = r->sim > 0 ? (double)r->bytes / r->sim : NAN;
}

/* Builds, optionally validates, and simulates one configuration.
 * Returns 0, or -1 with the reason in err. */
static int simulate(const struct sim_opts *o, const struct lb_algo_params *prm,
		    struct sim_row *r, char *err, size_t len)
{
	struct lb_sim_net net = {
		.alpha = o->alpha, .lane_bw = o->bw, .sites = o->sites,
		.wan_alpha = o->wan_alpha < 0 ? o->alpha : o->wan_alpha,
	};
	struct lb_sim_result res = { 0 };
	char why[384];
	int rc = 0;
	struct lb_schedule *s = lb_algo_build(r->algo, prm, err, len);
	if (!s)
		return -1;
	if (o->validate && lb_sched_validate(s, why, sizeof(why)))
		rc = lb_errf(err, len, "%s, %u ranks, %llu bytes, slice %llu: invalid schedule: %s",
			     r->algo->name, prm->ranks, (unsigned long long)prm->bytes,
			     (unsigned long long)prm->slice_bytes, why);
	else if (lb_sim_run(s, &net, &res, why, sizeof(why)))
		rc = lb_errf(err, len, "%s, %u ranks: %s", r->algo->name, prm->ranks, why);
	r->slices = s->nblocks;
	r->sim = res.seconds;
	lb_sched_free(s);
	return rc;
}

static struct lb_algo_params params_of(const struct sim_opts *o, uint32_t ranks,
				       uint64_t bytes, uint64_t slice)
{
	return (struct lb_algo_params){
		.ranks = ranks, .root = o->root, .lanes = o->lanes, .bytes = bytes,
		.slice_bytes = slice, .stripe_off = o->stripe_off,
		.allgather = (enum lb_allgather)o->allgather, .sites = o->sites,
	};
}

static int run_config(const struct sim_opts *o, struct sim_row *r, char *err, size_t len)
{
	struct lb_algo_params prm = params_of(o, r->ranks, r->bytes, r->slice);
	int rc = simulate(o, &prm, r, err, len);
	if (rc == 0)
		eval_models(o, r->algo, &prm, r);
	return rc;
}

/* The row to the CSV, then to the table (flushed: a reader of the pipe
 * sees it now, and a closed pipe is noticed at the next row). */
static int emit(const struct sim_opts *o, const struct sim_row *r, struct lb_csv *csv,
		FILE *table, char *err, size_t len)
{
	if (csv_row(csv, o, r, err, len)) {
		if (!lb_csv_reader_gone(csv))
			return -1;
		lb_stop_request(SIGPIPE); /* the CSV's own reader left: stop quietly */
		return 0;
	}
	if (!table)
		return 0;
	table_row(table, o, r);
	return lb_cli_flush_table(table, err, len);
}

/* Each configuration becomes a row; stops at the first error (-1, the
 * reason in err) or when asked to (a signal, stdout closed: 0). */
static int sweep_sizes(const struct sim_opts *o, const struct lb_algo *algo, uint32_t ranks,
		       struct lb_csv *csv, FILE *table, char *err, size_t len)
{
	for (size_t m = 0; m < o->sizes.n; m++) {
		for (size_t i = 0; i < o->slices.n; i++) {
			struct sim_row r = { .algo = algo, .ranks = ranks,
					     .bytes = o->sizes.v[m], .slice = o->slices.v[i] };
			if (*lb_stop_flag())
				return 0;
			if (run_config(o, &r, err, len) || emit(o, &r, csv, table, err, len))
				return -1;
		}
	}
	return 0;
}

static int sweep(const struct sim_opts *o, struct lb_csv *csv, FILE *table, char *err,
		 size_t len)
{
	for (size_t a = 0; a < o->algos.n; a++) {
		for (size_t p = 0; p < o->ranks.n; p++) {
			int rc = sweep_sizes(o, o->algos.a[a], (uint32_t)o->ranks.v[p], csv, table,
					     err, len);
			if (rc)
				return rc;
		}
	}
	return 0;
}

/* ---- memory: refuse a sweep that cannot fit before allocating ---- */

/* The configuration of the sweep that needs the most memory. */
struct need {
	const struct lb_algo *algo;
	uint32_t ranks;
	uint64_t bytes, slice, blocks, memory;
};

/* Schedule (and validator) plus simulator, from the dimensions alone. */
static void consider(const struct sim_opts *o, const struct lb_algo *a, uint32_t ranks,
		     uint64_t bytes, uint64_t slice, struct need *n)
{
	struct lb_algo_params prm = params_of(o, ranks, bytes, slice);
	struct lb_sched_estimate e;
	lb_algo_estimate(a, &prm, o->validate, &e);
	uint64_t memory = lb_add_sat(e.bytes, lb_sim_bytes(ranks, o->lanes, e.blocks));
	if (memory > n->memory)
		*n = (struct need){ a, ranks, bytes, slice, e.blocks, memory };
}

/* Every configuration of one algorithm and rank count: buildable (else
 * the error names it), and the largest so far in n. */
static int check_sizes(const struct lb_cmd *cmd, const struct sim_opts *o,
		       const struct lb_algo *a, uint32_t ranks, struct need *n)
{
	char err[256];
	for (size_t m = 0; m < o->sizes.n; m++) {
		for (size_t s = 0; s < o->slices.n; s++) {
			struct lb_algo_params prm = params_of(o, ranks, o->sizes.v[m], o->slices.v[s]);
			if (lb_algo_check(a, &prm, err, sizeof(err))) {
				lb_cli_error(cmd, NULL, "%s", err);
				return -1;
			}
			consider(o, a, ranks, o->sizes.v[m], o->slices.v[s], n);
		}
	}
	return 0;
}

/* The whole sweep, before any output: 0, or -1 with the error printed. */
static int check_sweep(const struct lb_cmd *cmd, const struct sim_opts *o, struct need *n)
{
	for (size_t a = 0; a < o->algos.n; a++)
		for (size_t p = 0; p < o->ranks.n; p++)
			if (check_sizes(cmd, o, o->algos.a[a], (uint32_t)o->ranks.v[p], n))
				return -1;
	return 0;
}

/* "21.9 GiB": memory sizes are rarely exact powers of two. */
static void format_memory(uint64_t bytes, char *buf, size_t len)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double v = (double)bytes;
	int i = 0;
	while (v >= 1024 && i < 6)
		v /= 1024, i++;
	snprintf(buf, len, "%.1f %s", v, units[i]);
}

/* Every configuration can be built and the largest fits: 0; else
 * LB_EXIT_USAGE or LB_EXIT_TOO_BIG (the largest configuration named). */
static int check_configs(const struct lb_cmd *cmd, const struct sim_opts *o)
{
	struct need n = { 0 };
	const char *what;
	char need[32], have[32], bytes[24], slice[24];
	if (check_sweep(cmd, o, &n))
		return LB_EXIT_USAGE;
	uint64_t available = lb_mem_available(&what);
	if (n.memory <= available)
		return 0;
	format_memory(n.memory, need, sizeof(need));
	format_memory(available, have, sizeof(have));
	lb_format_size(n.bytes, bytes, sizeof(bytes));
	lb_format_size(n.slice, slice, sizeof(slice));
	lb_cli_error(cmd, NULL, "%s with %u ranks x %u lanes, %s in slices of %s (%llu blocks per rank) "
		     "needs at least %s of memory, more than the %s available (%s): use fewer ranks, "
		     "larger slices or smaller messages", n.algo->name, n.ranks, o->lanes, bytes, slice,
		     (unsigned long long)n.blocks, need, have, what);
	return LB_EXIT_TOO_BIG;
}

static int check_root(const struct lb_cmd *cmd, const struct sim_opts *o)
{
	for (size_t i = 0; i < o->ranks.n; i++) {
		if (o->root >= o->ranks.v[i]) {
			lb_cli_error(cmd, "root", "root %u out of range for %llu ranks (from -p/--ranks; expected 0..%llu)",
				     o->root, (unsigned long long)o->ranks.v[i],
				     (unsigned long long)o->ranks.v[i] - 1);
			return -1;
		}
	}
	return 0;
}

static int sim(const struct lb_cmd *cmd, void *base)
{
	const struct sim_opts *o = base;
	int to_file = o->output && strcmp(o->output, "-") != 0;
	char err[512];
	if (check_root(cmd, o))
		return LB_EXIT_USAGE;
	int rc = check_configs(cmd, o);
	if (rc)
		return rc;
	struct lb_csv *csv = lb_csv_open(o->output, columns,
					 two_site(o) ? NCOLUMNS : NCOLUMNS_ONE_SITE,
					 err, sizeof(err));
	if (!csv) {
		lb_cli_error(cmd, "output", "%s", err);
		return 1;
	}
	lb_stop_arm(); /* from here on there are results to keep */
	if (to_file)
		table_header(stdout, o);
	rc = sweep(o, csv, to_file ? stdout : NULL, err, sizeof(err));
	if (rc)
		lb_cli_error(cmd, NULL, "%s", err);
	return lb_cli_finish_csv(cmd, csv, rc, err);
}

static int run_sim(const struct lb_cmd *cmd, int argc, char **argv)
{
	struct sim_opts o = { .wan_alpha = -1 };
	return lb_cli_run(cmd, argc, argv, &o, sim);
}

const struct lb_cmd lb_cmd_sim = {
	.name = "sim",
	.summary = "simulate algorithms x ranks x sizes x slices; CSV beside the cost models",
	.usage = "[-a LIST|all] [-p RANKS] [-m SIZES] [-s SIZES] [-k LANES] [-r ROOT] [options]",
	.opts = opts,
	.nopts = sizeof(opts) / sizeof(opts[0]),
	.more_help = sim_more_help,
	.run = run_sim,
};
