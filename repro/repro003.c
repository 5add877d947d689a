/* Seed 003's Figs. 7 and 8 in the simulator (repro003.h). */
#include "repro003.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "algos/algos.h"
#include "model/sim.h"

#define RANKS 32
#define LANES 2
#define SLICE (128u << 10)
#define LANE_BW 125e6    /* 1 Gbit/s */
#define HOP_LAT 50e-6    /* l */
#define WAN_LAT 10e-3    /* L */
#define LARGE (128ull << 20) /* Fig. 8's ratios are stated from here on */
#define GAP_TOLERANCE 0.05

/* One Fig. 8 ratio: numerator / denominator, the paper's reading and
 * target range (docs/papers.md#reproductions). */
struct fig8_ratio {
	const char *name;
	int num, den; /* indices into ALGOS */
	double paper, low, high;
};

enum { CHAIN, BINARY, BINOMIAL, MULTILANE, NALGOS };
static const char *const ALGOS[NALGOS] = { "chain", "binary", "binomial", "multilane" };

static const struct fig8_ratio FIG8[] = {
	{ "binary/multilane", BINARY, MULTILANE, 3, 2.5, 3.5 },
	{ "binary/chain", BINARY, CHAIN, 3, 2.5, 3.5 },
	/* the model gives log p' + 1 = 5, the paper reads about 4 */
	{ "binomial/multilane", BINOMIAL, MULTILANE, 4, 3.2, 5.5 },
	{ "chain/multilane", CHAIN, MULTILANE, 1, 0.95, 1.1 },
};

#define NFIG8 (sizeof(FIG8) / sizeof(FIG8[0]))

static const struct lb_col columns[] = {
	{ LB_COLUMN("figure", LB_COL_TEXT),
	  .table = { { LB_SHOW_TEXT, "fig", -4,
		       .legend = "the multi-lane paper's figure (docs/papers.md#seed003): 8, two sites; 7, one site" } } },
	{ LB_COLUMN("message_bytes", LB_COL_UINT),
	  .table = { { LB_SHOW_SIZE, "bytes", 9,
		       .legend = "message size (KiB, MiB: 1024-based)" } } },
	{ LB_COLUMN("quantity", LB_COL_TEXT),
	  .table = { { LB_SHOW_TEXT, "quantity", -24,
		       .legend = "Fig. 8: the ratio of two algorithms' simulated times; Fig. 7: the gap chain - multilane" } } },
	{ LB_COLUMN("numerator_seconds", LB_COL_REAL),
	  .table = { { LB_SHOW_SECONDS, "numerator", 10,
		       .legend = "the simulated time of the quantity's first algorithm" } } },
	{ LB_COLUMN("denominator_seconds", LB_COL_REAL),
	  .table = { { LB_SHOW_SECONDS, "denominator", 11,
		       .legend = "the simulated time of its second" } } },
	{ LB_COLUMN("ours", LB_COL_REAL),
	  .table = { { LB_SHOW_FIXED, "ours", 8, 4,
		       .legend = "numerator / denominator (Fig. 7: numerator - denominator, seconds)" } } },
	{ LB_COLUMN("paper", LB_COL_REAL),
	  .table = { { LB_SHOW_FIXED, "paper", 5, 1, .nan = "-",
		       .legend = "the paper's reading of the ratio" } } },
	{ LB_COLUMN("deviation_percent", LB_COL_REAL),
	  .table = { { LB_SHOW_FIXED, "dev %", 6, 1,
		       .legend = "Fig. 8: 100 x (ours - paper) / paper; Fig. 7: 100 x (gap - mean gap) / mean gap" } } },
	{ LB_COLUMN("target_low", LB_COL_REAL),
	  .table = { { LB_SHOW_FIXED, "low", 7, 4,
		       .legend = "the target range's low end (docs/papers.md#reproductions); Fig. 7: the mean gap - 5 %" } } },
	{ LB_COLUMN("target_high", LB_COL_REAL),
	  .table = { { LB_SHOW_FIXED, "high", 7, 4,
		       .legend = "its high end; Fig. 7: the mean gap + 5 %" } } },
	{ LB_COLUMN("verdict", LB_COL_TEXT),
	  .table = { { LB_SHOW_TEXT, "verdict", -7,
		       .legend = "within or outside the target (Fig. 8: from 128 MiB up)" } } },
};

#define NCOLUMNS (sizeof(columns) / sizeof(columns[0]))

const struct lb_col *lb_repro003_columns(size_t *ncols)
{
	*ncols = NCOLUMNS;
	return columns;
}

/* One algorithm on section 6.2's network, over `sites` (1 or 2) sites. */
static int simulate(const char *algo, uint64_t bytes, uint32_t sites, double *seconds,
		    char *err, size_t len)
{
	struct lb_algo_params prm = { .ranks = RANKS, .lanes = LANES, .bytes = bytes,
				      .slice_bytes = SLICE, .sites = sites };
	struct lb_sim_net net = { .lane_bw = LANE_BW, .latency = HOP_LAT, .sites = sites,
				  .wan_latency = WAN_LAT };
	struct lb_sim_result res = { 0 };
	char why[256];
	struct lb_schedule *s = lb_algo_build(lb_algo_find(algo), &prm, why, sizeof(why));
	if (!s || lb_sim_run_free(s, &net, &res, why, sizeof(why))) {
		snprintf(err, len, "seed003: %s, %llu bytes, %u site(s): %s", algo,
			 (unsigned long long)bytes, sites, why);
		return -1;
	}
	*seconds = res.seconds;
	return 0;
}

static int emit(const struct lb_sink *sink, const char *fig, uint64_t bytes, const char *what,
		double num, double den, double ours, double paper, double dev, double low,
		double high, const char *verdict, char *err, size_t len)
{
	const union lb_val v[NCOLUMNS] = {
		{ .s = fig }, { .u = bytes }, { .s = what }, { .d = num }, { .d = den },
		{ .d = ours }, { .d = paper }, { .d = dev }, { .d = low }, { .d = high },
		{ .s = verdict },
	};
	const struct lb_result r = { .cols = columns, .ncols = NCOLUMNS, .vals = v };
	return sink->row(sink->ctx, &r, err, len);
}

/* Fig. 8 at one size: the four algorithms over two sites, the ratios. */
static int fig8_size(uint64_t bytes, const struct lb_sink *sink, char *err, size_t len)
{
	double t[NALGOS];
	for (int a = 0; a < NALGOS; a++)
		if (simulate(ALGOS[a], bytes, 2, &t[a], err, len))
			return -1;
	for (size_t i = 0; i < NFIG8; i++) {
		const struct fig8_ratio *f = &FIG8[i];
		double ours = t[f->num] / t[f->den];
		int within = ours >= f->low && ours <= f->high;
		const char *verdict = bytes < LARGE ? "-" : within ? "within" : "outside";
		if (emit(sink, "8", bytes, f->name, t[f->num], t[f->den], ours, f->paper,
			 100 * (ours - f->paper) / f->paper, f->low, f->high, verdict, err, len))
			return -1;
	}
	return 0;
}

/* Fig. 7's gaps sim(chain) - sim(multilane) on one site, one per size,
 * into gap[] (chain and multilane times too); -1 on a failure, 1 when
 * stopped first. */
static int fig7_gaps(const struct lb_repro003_params *p, double *chain, double *multi,
		     char *err, size_t len)
{
	for (size_t i = 0; i < p->nsizes; i++) {
		if (p->stop && *p->stop)
			return 1;
		if (simulate("chain", p->sizes[i], 1, &chain[i], err, len) ||
		    simulate("multilane", p->sizes[i], 1, &multi[i], err, len))
			return -1;
	}
	return 0;
}

/* Fig. 7: each size's gap against the mean gap over the sizes. */
static int fig7(const struct lb_repro003_params *p, const struct lb_sink *sink, char *err,
		size_t len)
{
	double *chain = calloc(2 * p->nsizes, sizeof(*chain));
	double *multi = chain ? chain + p->nsizes : NULL; /* no offset on NULL (undefined) */
	double mean = 0;
	int rc = chain ? fig7_gaps(p, chain, multi, err, len) : -1;
	if (!chain)
		snprintf(err, len, "seed003: out of memory");
	for (size_t i = 0; rc == 0 && i < p->nsizes; i++)
		mean += (chain[i] - multi[i]) / p->nsizes;
	for (size_t i = 0; rc == 0 && i < p->nsizes; i++) {
		double gap = chain[i] - multi[i], dev = (gap - mean) / mean;
		rc = emit(sink, "7", p->sizes[i], "chain-multilane_seconds", chain[i], multi[i],
			  gap, NAN, 100 * dev, (1 - GAP_TOLERANCE) * mean,
			  (1 + GAP_TOLERANCE) * mean,
			  fabs(dev) <= GAP_TOLERANCE ? "within" : "outside", err, len);
	}
	free(chain);
	return rc < 0 ? -1 : 0;
}

int lb_repro003_run(const struct lb_repro003_params *p, const struct lb_sink *sink,
		    char *err, size_t errlen)
{
	if (p->nsizes == 0) {
		snprintf(err, errlen, "seed003-fig8: no message size");
		return -1;
	}
	if (lb_sink_start(sink, p->prov, columns, NCOLUMNS, err, errlen))
		return -1;
	for (size_t i = 0; i < p->nsizes && !(p->stop && *p->stop); i++)
		if (fig8_size(p->sizes[i], sink, err, errlen))
			return -1;
	return fig7(p, sink, err, errlen);
}
