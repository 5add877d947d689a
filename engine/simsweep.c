/* The simulation engine; see simsweep.h. */
#include "simsweep.h"

#include <math.h>
#include <stdio.h>

#include "model/slice.h"
#include "lib/error.h"
#include "lib/memory.h"
#include "lib/units.h"
#include "model/sim.h"

/* results/README.md documents these columns; the table shows some. */
static const struct lb_col columns[] = {
	{ LB_COLUMN("algorithm", LB_COL_TEXT), .table = { { LB_SHOW_TEXT, "algorithm", -11 } } },
	{ LB_COLUMN("ranks", LB_COL_UINT), .table = { { LB_SHOW_UINT, "p", 7 } } },
	{ LB_COLUMN("lanes", LB_COL_UINT) },
	{ LB_COLUMN("root", LB_COL_UINT) },
	{ LB_COLUMN("stripe", LB_COL_TEXT) },
	{ LB_COLUMN("message_bytes", LB_COL_UINT), .table = { { LB_SHOW_SIZE, "bytes", 7 } } },
	{ LB_COLUMN("slice_bytes", LB_COL_UINT), .table = { { LB_SHOW_SIZE, "slice", 7 } } },
	{ LB_COLUMN("slices", LB_COL_UINT), .table = { { LB_SHOW_UINT, "slices", 7 } } },
	{ LB_COLUMN("alpha_seconds", LB_COL_REAL) },
	{ LB_COLUMN("lane_bandwidth_bytes_per_second", LB_COL_REAL) },
	{ LB_COLUMN("sim_seconds", LB_COL_REAL), .table = { { LB_SHOW_SECONDS, "sim", 11 } } },
	{ LB_COLUMN("table_seconds", LB_COL_REAL), .table = { { LB_SHOW_SECONDS, "table", 11 } } },
	{ LB_COLUMN("refined_seconds", LB_COL_REAL), .table = { { LB_SHOW_SECONDS, "refined", 11 } } },
	{ LB_COLUMN("sim_over_table_ratio", LB_COL_REAL), .table = { { LB_SHOW_FIXED, "sim/table", 9, 3 } } },
	{ LB_COLUMN("sim_over_refined_ratio", LB_COL_REAL),
	  .table = { { LB_SHOW_FIXED, "sim/refined", 11, 3 } } },
	{ LB_COLUMN("sim_bandwidth_bytes_per_second", LB_COL_REAL) },
	/* only with two sites: */
	{ LB_COLUMN("two_site_seconds", LB_COL_REAL) },
	{ LB_COLUMN("sim_over_two_site_ratio", LB_COL_REAL),
	  .table = { { LB_SHOW_FIXED, "sim/2-site", 10, 3 } } },
};

#define NCOLUMNS (sizeof(columns) / sizeof(columns[0]))
#define NCOLUMNS_ONE_SITE (NCOLUMNS - 2)

static int two_site(const struct lb_simsweep_params *p)
{
	return p->sites == 2;
}

const struct lb_col *lb_simsweep_columns(const struct lb_simsweep_params *p, size_t *ncols)
{
	*ncols = two_site(p) ? NCOLUMNS : NCOLUMNS_ONE_SITE;
	return columns;
}

/* One configuration's figures, every derived number included. */
struct sim_row {
	const struct lb_algo *algo;
	uint32_t ranks, root;
	uint64_t bytes, slice;
	uint32_t slices;
	double sim, table, refined, two_site; /* seconds; NaN: no model */
	double sim_over_table, sim_over_refined, sim_over_two_site;
	double bandwidth; /* bytes per second */
};

static double wan_alpha(const struct lb_simsweep_params *p)
{
	return p->wan_alpha < 0 ? p->alpha : p->wan_alpha;
}

static double ratio(double a, double b)
{
	return b > 0 ? a / b : NAN;
}

static void eval_models(const struct lb_simsweep_params *p, const struct lb_algo_params *prm,
			struct sim_row *r)
{
	struct lb_cost_in in = {
		.ranks = prm->ranks, .lanes = prm->lanes, .bytes = prm->bytes,
		.slice_bytes = prm->slice_bytes, .latency = p->alpha, .lane_bw = p->lane_bw,
		.sites = p->sites, .wan_latency = wan_alpha(p),
		.allgather = prm->allgather, .stripe_off = prm->stripe_off,
	};
	r->table = r->algo->cost_table(&in);
	r->refined = r->algo->cost_refined(&in);
	r->two_site = two_site(p) && r->algo->cost_two_site ? r->algo->cost_two_site(&in) : NAN;
	r->sim_over_table = ratio(r->sim, r->table);
	r->sim_over_refined = ratio(r->sim, r->refined);
	r->sim_over_two_site = ratio(r->sim, r->two_site);
	r->bandwidth = r->sim > 0 ? (double)r->bytes / r->sim : NAN;
}

/* Builds, optionally validates, and simulates one configuration.
 * Returns 0, or -1 with the reason in err. */
static int simulate(const struct lb_simsweep_params *p, const struct lb_algo_params *prm,
		    struct sim_row *r, char *err, size_t len)
{
	struct lb_sim_net net = { .alpha = p->alpha, .lane_bw = p->lane_bw, .sites = p->sites,
				  .wan_alpha = wan_alpha(p) };
	struct lb_sim_result res = { 0 };
	char why[384];
	int rc = 0;
	struct lb_schedule *s = lb_algo_build(r->algo, prm, err, len);
	if (!s)
		return -1;
	if (p->validate && lb_sched_validate(s, why, sizeof(why)))
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

/* How params_of resolves LB_SLICE_AUTO: as the run does, or by the
 * refined model alone (for estimates before it: lb_slice_auto returns
 * that pick or a schedule within LB_SLICE_SIM_BUDGET ranks x blocks, whose
 * memory and simulation are small, without simulating anything). */
enum resolve { RESOLVE_RUN, RESOLVE_ESTIMATE };

/* The configuration's parameters, a slice of LB_SLICE_AUTO resolved with
 * this sweep's alpha and bandwidth. */
static struct lb_algo_params params_of(const struct lb_simsweep_params *p,
				       const struct lb_algo *a, uint32_t ranks, uint64_t bytes,
				       uint64_t slice, uint32_t root, enum resolve how)
{
	struct lb_algo_params prm = {
		.ranks = ranks, .root = root, .lanes = p->lanes, .bytes = bytes,
		.slice_bytes = slice, .stripe_off = p->stripe_off, .allgather = p->allgather,
		.sites = p->sites,
	};
	if (slice == LB_SLICE_AUTO)
		prm.slice_bytes = how == RESOLVE_RUN ? lb_slice_auto(a, &prm, p->alpha, p->lane_bw)
						     : lb_slice_refined(a, &prm, p->alpha, p->lane_bw);
	return prm;
}

/* The row as a result, to the sink. */
static int emit(const struct lb_simsweep_params *p, const struct sim_row *r,
		const struct lb_sink *sink, char *err, size_t len)
{
	const union lb_val v[] = {
		{ .s = r->algo->name }, { .u = r->ranks }, { .u = p->lanes },
		{ .u = r->root }, { .s = p->stripe_off ? "off" : "on" },
		{ .u = r->bytes }, { .u = r->slice }, { .u = r->slices },
		{ .d = p->alpha }, { .d = p->lane_bw }, { .d = r->sim },
		{ .d = r->table }, { .d = r->refined }, { .d = r->sim_over_table },
		{ .d = r->sim_over_refined }, { .d = r->bandwidth },
		{ .d = r->two_site }, { .d = r->sim_over_two_site },
	};
	_Static_assert(sizeof(v) / sizeof(v[0]) == NCOLUMNS, "a value for every column");
	struct lb_result res = { .cols = columns, .vals = v };
	lb_simsweep_columns(p, &res.ncols);
	return sink->row(sink->ctx, &res, err, len);
}

uint64_t lb_simsweep_slice_estimate(const struct lb_simsweep_params *p, const struct lb_algo *a,
				    uint32_t ranks, uint64_t bytes, uint64_t slice)
{
	return params_of(p, a, ranks, bytes, slice, 0, RESOLVE_ESTIMATE).slice_bytes;
}

static int run_config(const struct lb_simsweep_params *p, struct sim_row *r,
		      const struct lb_sink *sink, char *err, size_t len)
{
	struct lb_algo_params prm = params_of(p, r->algo, r->ranks, r->bytes, r->slice, r->root,
					     RESOLVE_RUN);
	r->slice = prm.slice_bytes;
	if (simulate(p, &prm, r, err, len))
		return -1;
	eval_models(p, &prm, r);
	return emit(p, r, sink, err, len);
}

static int stop_asked(const struct lb_simsweep_params *p)
{
	return p->stop && *p->stop;
}

/* The roots swept with `ranks` ranks, and the j-th of them. */
static size_t nroots_for(const struct lb_simsweep_params *p, uint32_t ranks)
{
	return p->nroots ? p->nroots : ranks;
}

static uint32_t root_at(const struct lb_simsweep_params *p, size_t j)
{
	return p->nroots ? (uint32_t)p->roots[j] : (uint32_t)j;
}

/* Each configuration of one algorithm and rank count becomes a result,
 * the roots innermost. */
static int sweep_sizes(const struct lb_simsweep_params *p, const struct lb_algo *algo,
		       uint32_t ranks, const struct lb_sink *sink, char *err, size_t len)
{
	for (size_t m = 0; m < p->nsizes; m++) {
		for (size_t i = 0; i < p->nslices; i++) {
			for (size_t j = 0; j < nroots_for(p, ranks); j++) {
				struct sim_row r = { .algo = algo, .ranks = ranks, .root = root_at(p, j),
						     .bytes = p->sizes[m], .slice = p->slices[i] };
				if (stop_asked(p))
					return 0;
				if (run_config(p, &r, sink, err, len))
					return -1;
			}
		}
	}
	return 0;
}

int lb_simsweep_run(const struct lb_simsweep_params *p, const struct lb_sink *sink,
		    char *err, size_t len)
{
	size_t ncols;
	const struct lb_col *cols = lb_simsweep_columns(p, &ncols);
	if (lb_sink_start(sink, p->prov, cols, ncols, err, len))
		return -1;
	for (size_t a = 0; a < p->nalgos; a++) {
		for (size_t k = 0; k < p->nranks; k++) {
			if (sweep_sizes(p, p->algos[a], (uint32_t)p->ranks[k], sink, err, len))
				return -1;
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
static void consider(const struct lb_simsweep_params *p, const struct lb_algo *a,
		     const struct lb_algo_params *prm, struct need *n)
{
	struct lb_sched_estimate e;
	lb_algo_estimate(a, prm, p->validate, &e);
	/* e.ops counts both ends of every transfer: half are SENDs. */
	uint64_t sim = lb_sim_bytes(prm->ranks, p->lanes, e.blocks, e.ops / 2);
	uint64_t memory = lb_add_sat(e.bytes, sim);
	if (memory > n->memory)
		*n = (struct need){ a, prm->ranks, prm->bytes, prm->slice_bytes, e.blocks, memory };
}

/* Every configuration of one algorithm and rank count: buildable (else
 * -1, err names it), and the largest so far in n.  Every root below
 * the rank count builds, and the estimate works from the dimensions, so
 * the first root stands for all. */
static int check_sizes(const struct lb_simsweep_params *p, const struct lb_algo *a,
		       uint32_t ranks, struct need *n, char *err, size_t len)
{
	for (size_t m = 0; m < p->nsizes; m++) {
		for (size_t s = 0; s < p->nslices; s++) {
			struct lb_algo_params prm = params_of(p, a, ranks, p->sizes[m], p->slices[s],
							      root_at(p, 0), RESOLVE_ESTIMATE);
			if (lb_algo_check(a, &prm, err, len))
				return -1;
			consider(p, a, &prm, n);
		}
	}
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

static void say_too_big(const struct lb_simsweep_params *p, const struct need *n,
			uint64_t available, const char *what, char *err, size_t len)
{
	char need[32], have[32], bytes[24], slice[24];
	format_memory(n->memory, need, sizeof(need));
	format_memory(available, have, sizeof(have));
	lb_format_size(n->bytes, bytes, sizeof(bytes));
	lb_format_size(n->slice, slice, sizeof(slice));
	snprintf(err, len, "%s with %u ranks x %u lanes, %s in slices of %s (%llu blocks per rank) "
		 "needs at least %s of memory, more than the %s available (%s): use fewer ranks, "
		 "larger slices or smaller messages", n->algo->name, n->ranks, p->lanes, bytes,
		 slice, (unsigned long long)n->blocks, need, have, what);
}

enum lb_simsweep_fit lb_simsweep_check(const struct lb_simsweep_params *p, char *err,
				       size_t len)
{
	struct need n = { 0 };
	const char *what;
	for (size_t a = 0; a < p->nalgos; a++)
		for (size_t k = 0; k < p->nranks; k++)
			if (check_sizes(p, p->algos[a], (uint32_t)p->ranks[k], &n, err, len))
				return LB_SIMSWEEP_UNBUILDABLE;
	uint64_t available = lb_mem_available(&what);
	if (n.memory <= available)
		return LB_SIMSWEEP_FITS;
	say_too_big(p, &n, available, what, err, len);
	return LB_SIMSWEEP_TOO_BIG;
}
