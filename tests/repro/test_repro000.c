/* Seed 000 end to end: every one-port heuristic's tree throughput is at most
 * the LP bound (TP <= TP* (1 + 1e-6), docs/papers.md#seed000-experiments) on 20
 * random platforms, the orderings the paper states hold on average, and the
 * Table 3 engine gives one row per heuristic and node count. */
#include <stdlib.h>

#include "algos/algos.h"
#include "net/platgen.h"
#include "repro/repro000.h"
#include "model/lp.h"
#include "check.h"

static const char *const ONE_PORT[] = {
	"topo-prune-simple", "topo-prune-degree", "topo-grow",
	"binomial-routed", "lp-prune", "lp-grow",
};
#define NONE_PORT (sizeof(ONE_PORT) / sizeof(ONE_PORT[0]))

/* TP / TP* of each one-port heuristic on one platform, into ratio[]. */
static int ratios(const struct lb_platform *pf, double *ratio)
{
	struct lb_lp_result lp = { 0 };
	char err[300];
	if (lb_lp_bound(pf, 0, 0, 1000000, LB_LP_PHASE2_TIME, &lp, err, sizeof err)) {
		CHECK(0, "LP: %s", err);
		return -1;
	}
	struct lb_algo_params prm = {
		.ranks = pf->nodes, .lanes = 1, .bytes = 1000000, .slice_bytes = 1000000,
		.platform = pf, .lp_load = lp.load,
	};
	for (size_t h = 0; h < NONE_PORT; h++) {
		const struct lb_algo *a = lb_algo_find(ONE_PORT[h]);
		CHECK(a && a->period, "%s: no period", ONE_PORT[h]);
		ratio[h] = a && a->period ? 1.0 / a->period(&prm) / lp.tp : NAN;
	}
	lb_lp_result_free(&lp);
	return 0;
}

/* 20 random platforms of 10 to 24 nodes over the paper's densities. */
static void bounded_by_lp(void)
{
	static const double density[] = { 0.04, 0.08, 0.12, 0.16, 0.20 };
	double sum[NONE_PORT] = { 0 };
	for (uint32_t i = 0; i < 20; i++) {
		struct lb_platgen g;
		lb_platgen_defaults(&g, LB_PLATGEN_RANDOM, 10 + (i % 4) * 5);
		g.density = density[i % 5];
		g.seed = 100 + i;
		char err[200];
		struct lb_platform *pf = lb_platgen_make(&g, err, sizeof err);
		double r[NONE_PORT];
		if (!pf || ratios(pf, r)) {
			CHECK(pf, "generator: %s", err);
			lb_platform_free(pf);
			continue;
		}
		for (size_t h = 0; h < NONE_PORT; h++) {
			CHECK(r[h] > 0 && r[h] <= 1 + 1e-6, "seed %u: %s at %.9g of TP*", (unsigned)
			      g.seed, ONE_PORT[h], r[h]);
			sum[h] += r[h];
		}
		lb_platform_free(pf);
	}
	/* docs/papers.md#seed000-experiments: Binomial < Prune Simple < the
	 * refined ones, on average. */
	for (size_t h = 1; h < NONE_PORT; h++)
		if (h != 3)
			CHECK(sum[h] > sum[0], "%s (%g) not above prune-simple (%g)",
			      ONE_PORT[h], sum[h] / 20, sum[0] / 20);
	CHECK(sum[3] < sum[0], "binomial-routed (%g) not below prune-simple (%g)",
	      sum[3] / 20, sum[0] / 20);
}

struct rows {
	int n, bad;
	char names[16][32];
};

static int collect(void *ctx, const struct lb_result *r, char *err, size_t len)
{
	struct rows *rw = ctx;
	(void)err, (void)len;
	double mean = lb_result_val(r, "percent_of_lp_mean")->d;
	const char *verdict = lb_result_val(r, "verdict")->s;
	rw->bad += !(mean > 0 && mean <= 100 + 1e-4) || !verdict ||
		   lb_result_val(r, "platforms")->u != 2 || lb_result_val(r, "nodes")->u != 30;
	if (rw->n < 16)
		snprintf(rw->names[rw->n], sizeof rw->names[0], "%s",
			 lb_result_val(r, "heuristic")->s);
	rw->n++;
	return 0;
}

static void table3_engine(void)
{
	const uint32_t sizes[] = { 30 };
	struct lb_repro000_params p = { .sizes = sizes, .nsizes = 1, .platforms = 2, .seed = 5 };
	struct rows rw = { 0 };
	struct lb_sink sink = { .row = collect, .ctx = &rw };
	char err[400] = "";
	CHECK(lb_repro000_run(&p, &sink, err, sizeof err) == 0, "table 3: %s", err);
	CHECK(rw.n == 6 && rw.bad == 0, "%d rows, %d bad", rw.n, rw.bad);
	CHECK(rw.n > 0 && strcmp(rw.names[0], "topo-prune-simple") == 0, "first row %s",
	      rw.names[0]);
	const uint32_t odd[] = { 31 };
	p.sizes = odd;
	CHECK(lb_repro000_run(&p, &sink, err, sizeof err) == -1 && strstr(err, "31"),
	      "31 nodes: '%s'", err);
}

int main(void)
{
	bounded_by_lp();
	table3_engine();
	return check_status("seed000");
}
