/* Seed 004's T_s/T_f predictions in the simulator (repro004.h). */
#include "repro004.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "algos/algos.h"
#include "net/platform.h"
#include "model/sim.h"

#define FAST_RATE 125e6 /* B: 1 Gbit/s, bytes per second */

static const struct lb_col columns[] = {
	{ LB_COLUMN("experiment", LB_COL_TEXT),
	  .table = { { LB_SHOW_TEXT, "experiment", -10,
		       .legend = "bcast: one slow rank among fast ones; gather: ranks of slowness 1, 1.5, 2, ... (docs/papers.md#seed004)" } } },
	{ LB_COLUMN("algorithm", LB_COL_TEXT),
	  .table = { { LB_SHOW_TEXT, "algorithm", -12, .legend = "the HBSP^k algorithm" } } },
	{ LB_COLUMN("ranks", LB_COL_UINT),
	  .table = { { LB_SHOW_UINT, "p", 4, .legend = "ranks" } } },
	{ LB_COLUMN("slowest_r", LB_COL_REAL),
	  .table = { { LB_SHOW_FIXED, "r_s", 5, 2,
		       .legend = "the slowest rank's slowness r (its rate is 1 Gbit/s / r)" } } },
	{ LB_COLUMN("message_bytes", LB_COL_UINT) },
	{ LB_COLUMN("sim_fast_root_seconds", LB_COL_REAL),
	  .table = { { LB_SHOW_SECONDS, "T_f sim", 10,
		       .legend = "simulated time with the root the fastest rank" } } },
	{ LB_COLUMN("sim_slow_root_seconds", LB_COL_REAL),
	  .table = { { LB_SHOW_SECONDS, "T_s sim", 10,
		       .legend = "simulated time with the root the slowest rank" } } },
	{ LB_COLUMN("sim_ratio", LB_COL_REAL),
	  .table = { { LB_SHOW_FIXED, "Ts/Tf", 6, 3, .legend = "T_s sim / T_f sim" } } },
	{ LB_COLUMN("hbsp_fast_root_seconds", LB_COL_REAL) },
	{ LB_COLUMN("hbsp_slow_root_seconds", LB_COL_REAL) },
	{ LB_COLUMN("hbsp_ratio", LB_COL_REAL),
	  .table = { { LB_SHOW_FIXED, "hbsp", 6, 3,
		       .legend = "T_s / T_f by the HBSP closed form" } } },
	{ LB_COLUMN("sim_over_hbsp_fast_root_ratio", LB_COL_REAL),
	  .table = { { LB_SHOW_FIXED, "sim/hbsp", 8, 3,
		       .legend = "T_f sim over the closed form's T_f" } } },
	{ LB_COLUMN("paper_ratio", LB_COL_REAL),
	  .table = { { LB_SHOW_FIXED, "paper", 6, 3, .nan = "-",
		       .legend = "bcast: the model's 2 r_s / (1 + r_s)" } } },
	{ LB_COLUMN("deviation_percent", LB_COL_REAL),
	  .table = { { LB_SHOW_FIXED, "dev%", 6, 2, .nan = "-",
		       .legend = "bcast: 100 x (Ts/Tf - paper) / paper, percent" } } },
	{ LB_COLUMN("tolerance_percent", LB_COL_REAL) },
	{ LB_COLUMN("verdict", LB_COL_TEXT),
	  .table = { { LB_SHOW_TEXT, "verdict", -9,
		       .legend = "bcast: within or outside 2 %; gather: trend when Ts/Tf is above 1 and not below the previous row's, else no-trend" } } },
};

#define NCOLUMNS (sizeof(columns) / sizeof(columns[0]))

const struct lb_col *lb_repro004_columns(size_t *ncols)
{
	*ncols = NCOLUMNS;
	return columns;
}

/* p ranks of slowness r[j] (rates B / r[j]), default link B, L = 0. */
static struct lb_platform *platform_of(const double *r, uint32_t p)
{
	struct lb_platform *pf = lb_platform_new(p, 1);
	if (!pf)
		return NULL;
	pf->dflt = (struct lb_link){ .bw = FAST_RATE };
	for (uint32_t j = 0; j < p; j++)
		pf->node[j].rate = FAST_RATE / r[j];
	if (lb_platform_seal(pf) == 0)
		return pf;
	lb_platform_free(pf);
	return NULL;
}

/* The algorithm's simulated and HBSP seconds with the given root. */
static int times(const char *algo, const struct lb_platform *pf, uint32_t root, uint64_t bytes,
		 double *sim, double *hbsp, char *err, size_t len)
{
	const struct lb_algo *a = lb_algo_find(algo);
	struct lb_algo_params prm = { .ranks = pf->nodes, .root = root, .lanes = 1,
				      .bytes = bytes, .platform = pf };
	struct lb_schedule *s = lb_algo_build(a, &prm, err, len);
	struct lb_sim_net net = { .platform = pf };
	struct lb_sim_result res = { 0 };
	if (!s || lb_sim_run_free(s, &net, &res, err, len))
		return -1;
	*sim = res.seconds;
	*hbsp = a->hbsp(&prm);
	return 0;
}

struct row {
	const char *experiment, *algo, *verdict;
	uint32_t ranks;
	double r_slow, sim_f, sim_s, hbsp_f, hbsp_s, paper, tolerance;
};

/* T_f (root 0, the fastest) and T_s (root `slow`) of one platform. */
static int measure(struct row *w, const double *r, uint32_t p, uint32_t slow, uint64_t bytes,
		   char *err, size_t len)
{
	struct lb_platform *pf = platform_of(r, p);
	if (!pf)
		return snprintf(err, len, "repro seed004: out of memory"), -1;
	int rc = times(w->algo, pf, 0, bytes, &w->sim_f, &w->hbsp_f, err, len) ||
		 times(w->algo, pf, slow, bytes, &w->sim_s, &w->hbsp_s, err, len);
	lb_platform_free(pf);
	return rc ? -1 : 0;
}

static int emit(const struct lb_repro004_params *p, const struct row *w,
		const struct lb_sink *sink, char *err, size_t len)
{
	double ours = w->sim_s / w->sim_f;
	const union lb_val v[] = {
		{ .s = w->experiment }, { .s = w->algo }, { .u = w->ranks }, { .d = w->r_slow },
		{ .u = p->bytes }, { .d = w->sim_f }, { .d = w->sim_s }, { .d = ours },
		{ .d = w->hbsp_f }, { .d = w->hbsp_s }, { .d = w->hbsp_s / w->hbsp_f },
		{ .d = w->sim_f / w->hbsp_f }, { .d = w->paper },
		{ .d = 100 * (ours - w->paper) / w->paper }, { .d = w->tolerance },
		{ .s = w->verdict },
	};
	_Static_assert(sizeof(v) / sizeof(v[0]) == NCOLUMNS, "a value for every column");
	struct lb_result res = { .cols = columns, .ncols = NCOLUMNS, .vals = v };
	return sink->row(sink->ctx, &res, err, len);
}

/* One slow rank (the last) among fast ones: 2 r / (1 + r). */
static int bcast_rows(const struct lb_repro004_params *p, const struct lb_sink *sink,
		      char *err, size_t len)
{
	double *r = malloc(p->bcast_ranks * sizeof(*r));
	int rc = r ? 0 : (snprintf(err, len, "repro seed004: out of memory"), -1);
	for (size_t i = 0; rc == 0 && i < p->nslowness && !(p->stop && *p->stop); i++) {
		struct row w = { .experiment = "bcast", .algo = "hbsp1-bcast", .ranks = p->bcast_ranks,
				 .r_slow = p->slowness[i], .tolerance = p->tolerance };
		for (uint32_t j = 0; j < p->bcast_ranks; j++)
			r[j] = j + 1 == p->bcast_ranks ? w.r_slow : 1;
		w.paper = 2 * w.r_slow / (1 + w.r_slow);
		rc = measure(&w, r, p->bcast_ranks, p->bcast_ranks - 1, p->bytes, err, len);
		double dev = 100 * fabs(w.sim_s / w.sim_f - w.paper) / w.paper;
		w.verdict = dev <= p->tolerance ? "within" : "outside";
		rc = rc || emit(p, &w, sink, err, len);
	}
	free(r);
	return rc;
}

/* Slowness 1, 1.5, 2, ...: T_s/T_f above 1, not decreasing from p = 3. */
static int gather_rows(const struct lb_repro004_params *p, const struct lb_sink *sink,
		       char *err, size_t len)
{
	double r[256], before = 0;
	int rc = 0;
	for (uint32_t n = 2; rc == 0 && n <= p->gather_max_ranks && n <= 256 &&
			     !(p->stop && *p->stop); n++) {
		struct row w = { .experiment = "gather", .algo = "hbsp1-gather", .ranks = n,
				 .paper = NAN, .tolerance = NAN };
		for (uint32_t j = 0; j < n; j++)
			r[j] = 1 + 0.5 * j;
		w.r_slow = r[n - 1];
		rc = measure(&w, r, n, n - 1, p->bytes, err, len);
		double ratio = w.sim_s / w.sim_f;
		w.verdict = n < 3 ? "-" : ratio > 1 && ratio >= before ? "trend" : "no-trend";
		before = ratio;
		rc = rc || emit(p, &w, sink, err, len);
	}
	return rc;
}

int lb_repro004_run(const struct lb_repro004_params *p, const struct lb_sink *sink,
		    char *err, size_t errlen)
{
	if (p->bcast_ranks < 2 || p->bytes < p->bcast_ranks || p->bytes < p->gather_max_ranks)
		return snprintf(err, errlen, "repro seed004: need 2 ranks or more and a byte a rank"), -1;
	if (lb_sink_start(sink, p->prov, columns, NCOLUMNS, err, errlen))
		return -1;
	return bcast_rows(p, sink, err, errlen) || gather_rows(p, sink, err, errlen) ? -1 : 0;
}
