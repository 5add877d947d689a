/* Seed 000's Table 3: heuristic throughput as % of the LP bound on
 * TIERS-like platforms (repro000.h). */
#include "repro000.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "algos/algos.h"

#define SLICE_BYTES 1000000ull /* the paper's unit, 1 MB */
#define RATIO_SLACK 1e-6       /* TP(tree) <= TP* (1 + this) */

/* One column of Table 3: the registry algorithm, the paper's heading, its
 * cells at 30 and 65 nodes (mean, deviation: percent) and its
 * tolerance in points (docs/papers.md#reproductions). */
struct table3_col {
	const char *algo, *paper_name;
	double mean30, dev30, mean65, dev65, tolerance;
};

static const struct table3_col TABLE3[] = {
	{ "topo-prune-simple", "Prune Simple", 46, 12, 30, 10, 15 },
	{ "topo-prune-degree", "Refined Prune", 82, 10, 73, 13, 10 },
	{ "topo-grow", "Grow Tree", 75, 10, 71, 12, 10 },
	{ "lp-grow", "LP Grow Tree", 82, 11, 73, 11, 10 },
	{ "lp-prune", "LP Prune", 82, 11, 74, 11, 10 },
	{ "binomial-routed", "Binomial Tree", 11, 2, 5, 1, 3 },
};

#define NTABLE3 (sizeof(TABLE3) / sizeof(TABLE3[0]))

static const struct lb_col columns[] = {
	{ LB_COLUMN("nodes", LB_COL_UINT),
	  .table = { { LB_SHOW_UINT, "nodes", 5,
		       .legend = "the platforms' node count (a TIERS-like preset)" } } },
	{ LB_COLUMN("heuristic", LB_COL_TEXT),
	  .table = { { LB_SHOW_TEXT, "heuristic", -18,
		       .legend = "the broadcast-tree heuristic (lanebench help sim lists them)" } } },
	{ LB_COLUMN("paper_name", LB_COL_TEXT),
	  .table = { { LB_SHOW_TEXT, "paper", -14,
		       .legend = "its name in seed 000's Table 3 (docs/papers.md#seed000)" } } },
	{ LB_COLUMN("platforms", LB_COL_UINT),
	  .table = { { LB_SHOW_UINT, "plats", 5,
		       .legend = "platforms the row is over, seeds --seed, --seed + 1, ..." } } },
	{ LB_COLUMN("percent_of_lp_mean", LB_COL_REAL),
	  .table = { { LB_SHOW_FIXED, "% of LP", 7, 1,
		       .legend = "mean over the platforms of the tree's one-port throughput as a percentage of the LP bound TP*" } } },
	{ LB_COLUMN("percent_of_lp_deviation", LB_COL_REAL),
	  .table = { { LB_SHOW_FIXED, "dev", 5, 1,
		       .legend = "its standard deviation, in points" } } },
	{ LB_COLUMN("percent_of_lp_min", LB_COL_REAL),
	  .table = { { LB_SHOW_FIXED, "min", 5, 1,
		       .legend = "the worst platform's percentage" } } },
	{ LB_COLUMN("percent_of_lp_max", LB_COL_REAL),
	  .table = { { LB_SHOW_FIXED, "max", 5, 1, .legend = "the best platform's" } } },
	{ LB_COLUMN("paper_percent", LB_COL_REAL),
	  .table = { { LB_SHOW_FIXED, "paper", 5, 0,
		       .legend = "the paper's mean percentage (Table 3's cell)" } } },
	{ LB_COLUMN("paper_deviation_percent", LB_COL_REAL),
	  .table = { { LB_SHOW_FIXED, "pdev", 4, 0,
		       .legend = "the paper's deviation, in points" } } },
	{ LB_COLUMN("difference_points", LB_COL_REAL),
	  .table = { { LB_SHOW_FIXED, "diff", 6, 1, .legend = "% of LP - paper, in points" } } },
	{ LB_COLUMN("tolerance_points", LB_COL_REAL),
	  .table = { { LB_SHOW_FIXED, "tol", 4, 0,
		       .legend = "the largest difference accepted, in points (docs/papers.md#reproductions)" } } },
	{ LB_COLUMN("verdict", LB_COL_TEXT),
	  .table = { { LB_SHOW_TEXT, "verdict", -7,
		       .legend = "within or outside the tolerance" } } },
	{ LB_COLUMN("density_mean", LB_COL_REAL),
	  .table = { { LB_SHOW_FIXED, "density", 7, 3,
		       .legend = "mean share of node pairs linked either way (0 to 1)" } } },
	{ LB_COLUMN("lp_seconds_mean", LB_COL_REAL) },
	{ LB_COLUMN("generator", LB_COL_TEXT) },
};

#define NCOLUMNS (sizeof(columns) / sizeof(columns[0]))

const struct lb_col *lb_repro000_columns(size_t *ncols)
{
	*ncols = NCOLUMNS;
	return columns;
}

int lb_repro000_generator(const struct lb_repro000_params *p, uint32_t nodes,
			  struct lb_platgen *g)
{
	if (lb_platgen_defaults(g, LB_PLATGEN_TIERS, nodes))
		return -1;
	g->seed = p->seed;
	g->shuffle = p->shuffle_ids;
	return 0;
}

/* Running sums of one heuristic's percentages over the platforms. */
struct acc {
	double sum, sum2, min, max;
};

struct size_run {
	uint32_t nodes, done;
	struct acc acc[NTABLE3];
	double density, lp_seconds;
	char generator[400];
};

static void acc_add(struct acc *a, double x, int first)
{
	a->sum += x, a->sum2 += x * x;
	a->min = first || x < a->min ? x : a->min;
	a->max = first || x > a->max ? x : a->max;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Every heuristic's TP / TP* on one platform, into the sums. */
static int score_platform(struct size_run *sr, const struct lb_platform *pf,
			  const struct lb_lp_result *lp, uint64_t seed, char *err,
			  size_t len)
{
	struct lb_algo_params prm = {
		.ranks = pf->nodes, .root = 0, .lanes = 1, .bytes = SLICE_BYTES,
		.slice_bytes = SLICE_BYTES, .platform = pf, .lp_load = lp->load,
	};
	for (size_t h = 0; h < NTABLE3; h++) {
		const struct lb_algo *a = lb_algo_find(TABLE3[h].algo);
		double period = a && a->period ? a->period(&prm) : NAN;
		double ratio = 1.0 / period / lp->tp;
		if (!isfinite(ratio) || ratio <= 0) {
			snprintf(err, len, "%s: no tree on the %u-node platform of seed %llu",
				 TABLE3[h].algo, sr->nodes, (unsigned long long)seed);
			return -1;
		}
		if (ratio > 1 + RATIO_SLACK) {
			snprintf(err, len, "%s: throughput %.9g of the LP bound on the %u-node "
				 "platform of seed %llu: above 1, a bug in the LP or the tree's period",
				 TABLE3[h].algo, ratio, sr->nodes, (unsigned long long)seed);
			return -1;
		}
		acc_add(&sr->acc[h], 100 * ratio, sr->done == 0);
	}
	return 0;
}

static int run_platform(struct size_run *sr, const struct lb_platgen *g,
			enum lb_lp_phase2 phase2, char *err, size_t len)
{
	struct lb_platform *pf = lb_platgen_make(g, err, len);
	struct lb_lp_result lp = { 0 };
	if (!pf)
		return -1;
	double t0 = now();
	int rc = lb_lp_bound(pf, 0, 0, SLICE_BYTES, phase2, &lp, err, len);
	sr->lp_seconds += now() - t0;
	if (rc == 0 && !(lp.tp > 0)) {
		snprintf(err, len, "LP bound %g on the %u-node platform of seed %llu",
			 lp.tp, sr->nodes, (unsigned long long)g->seed);
		rc = -1;
	}
	if (rc == 0)
		rc = score_platform(sr, pf, &lp, g->seed, err, len);
	if (rc == 0)
		sr->density += lb_platgen_density(pf), sr->done++;
	lb_lp_result_free(&lp);
	lb_platform_free(pf);
	return rc;
}

static double cell(const struct table3_col *c, uint32_t nodes, int dev)
{
	if (nodes == 30)
		return dev ? c->dev30 : c->mean30;
	if (nodes == 65)
		return dev ? c->dev65 : c->mean65;
	return NAN;
}

static int emit_rows(const struct size_run *sr, const struct lb_sink *sink, char *err,
		     size_t len)
{
	double n = sr->done;
	for (size_t h = 0; h < NTABLE3; h++) {
		const struct table3_col *c = &TABLE3[h];
		const struct acc *a = &sr->acc[h];
		double mean = a->sum / n;
		double dev = sqrt(fmax(0, a->sum2 / n - mean * mean));
		double diff = mean - cell(c, sr->nodes, 0);
		int within = fabs(diff) <= c->tolerance;
		const union lb_val v[NCOLUMNS] = {
			{ .u = sr->nodes }, { .s = c->algo }, { .s = c->paper_name },
			{ .u = sr->done }, { .d = mean }, { .d = dev }, { .d = a->min },
			{ .d = a->max }, { .d = cell(c, sr->nodes, 0) },
			{ .d = cell(c, sr->nodes, 1) }, { .d = diff }, { .d = c->tolerance },
			{ .s = isnan(diff) ? "-" : within ? "within" : "outside" },
			{ .d = sr->density / n }, { .d = sr->lp_seconds / n },
			{ .s = sr->generator },
		};
		const struct lb_result r = { .cols = columns, .ncols = NCOLUMNS, .vals = v };
		if (sink->row(sink->ctx, &r, err, len))
			return -1;
	}
	return 0;
}

static int stopped(const struct lb_repro000_params *p)
{
	return p->stop && *p->stop;
}

/* One node count: every platform, then its rows (none when stopped). */
static int run_size(const struct lb_repro000_params *p, uint32_t nodes,
		    const struct lb_sink *sink, char *err, size_t len)
{
	struct size_run *sr = calloc(1, sizeof(*sr));
	struct lb_platgen g;
	int rc = 0;
	if (!sr || lb_repro000_generator(p, nodes, &g)) {
		snprintf(err, len, sr ? "seed000-table3: no tiers-like preset for %u nodes "
			 "(30 or 65)" : "out of memory", nodes);
		free(sr);
		return -1;
	}
	sr->nodes = nodes;
	lb_platgen_describe(&g, sr->generator, sizeof(sr->generator));
	for (uint32_t i = 0; i < p->platforms && rc == 0 && !stopped(p); i++) {
		g.seed = p->seed + i;
		rc = run_platform(sr, &g, p->phase2, err, len);
		if (rc == 0 && p->progress)
			p->progress(p->progress_ctx, nodes, i + 1, p->platforms);
	}
	if (rc == 0 && sr->done == p->platforms)
		rc = emit_rows(sr, sink, err, len);
	free(sr);
	return rc;
}

int lb_repro000_run(const struct lb_repro000_params *p, const struct lb_sink *sink,
		    char *err, size_t errlen)
{
	if (p->platforms == 0) {
		snprintf(err, errlen, "seed000-table3: at least one platform per node count");
		return -1;
	}
	if (lb_sink_start(sink, p->prov, columns, NCOLUMNS, err, errlen))
		return -1;
	for (size_t i = 0; i < p->nsizes && !stopped(p); i++)
		if (run_size(p, p->sizes[i], sink, err, errlen))
			return -1;
	return 0;
}
