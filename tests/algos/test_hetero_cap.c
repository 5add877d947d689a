/* cap-trees (algos/beaumont/hetero_cap.c) and the LP bound of the bounded
 * multi-port model (model/lp.c, LB_LP_BOUNDED):
 *   - lb_period_bounded of hand-checked trees (a star splits its root's
 *     cap, a chain does not, two trees share a link);
 *   - on capped platforms of equal links, cap-trees reaches the cap (one
 *     slice per slice / rate), each node sends in one tree only, and the
 *     simulator's bounded model runs it at that period (within 1 %);
 *   - the bounded LP's TP* on two hand-solved platforms;
 *   - on random capped platforms, the bounded LP's TP* is at least the
 *     throughput of cap-trees and of every seed 000 tree under the bounded
 *     model, and at least the one-port TP* (its rows are looser).
 * Slices of SLICE bytes, links of bw SLICE / T so that a slice takes T s. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algos/algos.h"
#include "algos/beaumont/hetero_cap.h"
#include "net/platform.h"
#include "net/rng.h"
#include "net/platgen.h"
#include "check.h"
#include "model/lp.h"
#include "model/sim.h"

#define SLICE 60

/* p nodes, every ordered pair linked with slice time t, every node's rate
 * SLICE / c (c = 0: none) and send 0. */
static struct lb_platform *full(uint32_t p, double t, double c)
{
	struct lb_platform *pf = lb_platform_new(p, 1);
	struct lb_link l = { .bw = SLICE / t };
	if (pf)
		pf->dflt = l;
	for (uint32_t u = 0; pf && u < p; u++)
		pf->node[u].rate = c > 0 ? SLICE / c : 0;
	if (pf && lb_platform_seal(pf)) {
		lb_platform_free(pf);
		return NULL;
	}
	return pf;
}

static struct lb_hetero_in hin(const struct lb_platform *pf)
{
	return (struct lb_hetero_in){ .pf = pf, .root = 0, .lane = 0, .slice_bytes = SLICE };
}

/* A star from 0 sends 3 copies through its cap: 3 c; a chain 1 c; links
 * faster than the cap.  Two trees on the same link 0 -> 1 with T = 2 c:
 * (2 / 2) T = T. */
static void periods(void)
{
	struct lb_platform *pf = full(4, 0.5, 1);
	struct lb_hetero_in in = hin(pf);
	const uint32_t star[] = { LB_NO_PARENT, 0, 0, 0 }, chain[] = { LB_NO_PARENT, 0, 1, 2 };
	CHECK(pf && check_close(lb_period_bounded(&in, star, 1), 3, 1e-12), "star: %g",
	      lb_period_bounded(&in, star, 1));
	CHECK(check_close(lb_period_bounded(&in, chain, 1), 1, 1e-12), "chain: %g",
	      lb_period_bounded(&in, chain, 1));
	lb_platform_free(pf);
	pf = full(4, 2, 1);
	in = hin(pf);
	uint32_t two[8];
	memcpy(two, chain, sizeof(chain));
	memcpy(two + 4, star, sizeof(star));
	/* the link 0 -> 1 in both trees: (2 / 2) 2; node 0: 1 + 3 children
	 * over 2 trees, (4 / 2) c; every other link in one tree: (1 / 2) 2 */
	CHECK(pf && check_close(lb_period_bounded(&in, two, 2), 2, 1e-12), "two trees: %g",
	      lb_period_bounded(&in, two, 2));
	lb_platform_free(pf);
}

/* 4 nodes, every link T = 0.5: capped at c = 1, a node receives 1 slice
 * per second at most, and a chain reaches it: TP* = 1; uncapped (send 0),
 * only the links bound it: the root's 3 out-links carry 2 each, TP* = 6. */
static void lp_exact(void)
{
	const double c[] = { 1, 0 }, want[] = { 1, 6 };
	for (size_t i = 0; i < 2; i++) {
		struct lb_platform *pf = full(4, 0.5, c[i]);
		struct lb_lp_result lp = { 0 };
		char err[256] = "";
		int rc = pf ? lb_lp_bound_model(pf, 0, 0, SLICE, LB_LP_PHASE2_TIME, LB_LP_BOUNDED, &lp,
						err, sizeof(err)) : -1;
		CHECK(rc == 0 && check_close(lp.tp, want[i], 1e-9), "c %g: TP* %g want %g (%s)", c[i],
		      lp.tp, want[i], err);
		lb_lp_result_free(&lp);
		lb_platform_free(pf);
	}
}

/* Each node but the root has children in one tree at most, k at most. */
static int one_tree_each(const struct lb_cap_plan *plan, uint32_t root)
{
	uint32_t p = plan->nodes;
	for (uint32_t u = 0; u < p; u++) {
		uint32_t trees = 0, children = 0;
		for (uint32_t t = 0; t < plan->k; t++) {
			uint32_t c = 0;
			for (uint32_t v = 0; v < p; v++)
				c += plan->parent[(size_t)t * p + v] == u;
			trees += c > 0;
			children += c;
		}
		if (u != root && (trees > 1 || children > plan->k))
			return 0;
	}
	return 1;
}

/* The bounded simulator's steady period of cap-trees on pf, 512 slices
 * (the period it measures, from the middle block to the last, keeps two
 * slice times of the fill: 1 + 2 / 256 here). */
static double simulated_period(const struct lb_platform *pf)
{
	struct lb_algo_params prm = { .ranks = pf->nodes, .lanes = 1, .bytes = 512 * SLICE,
				      .slice_bytes = SLICE, .platform = pf };
	char err[256] = "";
	struct lb_schedule *s = lb_algo_build(lb_algo_find("cap-trees"), &prm, err, sizeof(err));
	struct lb_sim_net net = { .platform = pf, .model = LB_PORT_BOUNDED };
	struct lb_sim_result res = { 0 };
	int rc = s ? lb_sim_run(s, &net, &res, err, sizeof(err)) : -1;
	CHECK(rc == 0, "cap-trees sim on %u nodes: %s", pf->nodes, err);
	CHECK(!s || lb_sched_validate(s, err, sizeof(err)) == 0, "cap-trees: %s", err);
	lb_sched_free(s);
	return rc ? NAN : res.period;
}

/* Links twice as fast as the cap: one tree with fan-out would split the
 * cap; cap-trees sends one slice per slice time c = 1 from every node. */
static void reaches_cap(void)
{
	for (uint32_t p = 2; p <= 16; p += 7) {
		struct lb_platform *pf = full(p, 0.5, 1);
		struct lb_hetero_in in = hin(pf);
		struct lb_cap_plan plan;
		char err[256] = "";
		int rc = pf ? lb_cap_plan(&in, 64, &plan, err, sizeof(err)) : -1;
		CHECK(rc == 0, "p %u: %s", p, err);
		if (rc)
			continue;
		CHECK(check_close(plan.period, 1, 1e-12), "p %u: period %g (k %u)", p, plan.period,
		      plan.k);
		CHECK(one_tree_each(&plan, 0), "p %u: a node sends in two trees (k %u)", p, plan.k);
		double sim = simulated_period(pf);
		CHECK(sim <= 1.01, "p %u: simulated period %g, planned 1 (k %u)", p, sim, plan.k);
		lb_cap_plan_free(&plan);
		lb_platform_free(pf);
	}
}

/* The random generator of docs/papers.md#seed000-experiments (links ~100
 * Mbit/s, send_u as the paper's), then each node capped at 50-150 Mbit/s, or
 * uncapped one time in four. */
static struct lb_platform *random_capped(struct lb_rng *seed, uint32_t p)
{
	struct lb_platgen g;
	char err[256] = "";
	lb_platgen_defaults(&g, LB_PLATGEN_RANDOM, p);
	g.seed = lb_rng_next(seed);
	g.nodes = p;
	g.density = (double)(1 + lb_rng_next(seed) % 4) / 4;
	g.bw_mean = 12.5e6;
	g.bw_dev = 2.5e6;
	struct lb_platform *pf = lb_platgen_make(&g, err, sizeof(err));
	CHECK(pf, "platgen: %s", err);
	for (uint32_t u = 0; pf && u < p; u++)
		pf->node[u].rate = lb_rng_next(seed) % 4 ? (50 + lb_rng_next(seed) % 101) * 1e6 / 8 : 0;
	return pf;
}

static const char *const SEED000[] = {
	"topo-prune-simple", "topo-prune-degree", "topo-grow", "mp-grow", "mp-prune-degree",
};

/* One seed 000 tree's throughput under the bounded model, slices/s. */
static double seed_tree_tp(const struct lb_platform *pf, lb_tree_fn tree)
{
	struct lb_hetero_in in = { .pf = pf, .lane = 0, .slice_bytes = 1000000 };
	uint32_t parent[16];
	char err[256] = "";
	CHECK(tree(&in, parent, err, sizeof(err)) == 0, "tree: %s", err);
	return 1 / lb_period_bounded(&in, parent, 1);
}

static void lp_bounds(const struct lb_platform *pf, const char *what)
{
	static const lb_tree_fn trees[] = { lb_tree_prune_simple, lb_tree_prune_degree, lb_tree_grow,
					     lb_tree_mp_grow, lb_tree_mp_prune_degree };
	struct lb_lp_result lp = { 0 }, one = { 0 };
	char err[256] = "";
	int rc = lb_lp_bound_model(pf, 0, 0, 1000000, LB_LP_PHASE2_NONE, LB_LP_BOUNDED, &lp, err,
				   sizeof(err));
	CHECK(rc == 0, "%s: bounded lp: %s", what, err);
	CHECK(lb_lp_bound(pf, 0, 0, 1000000, LB_LP_PHASE2_NONE, &one, err, sizeof(err)) == 0,
	      "%s: lp: %s", what, err);
	double slack = 1 + 1e-6;
	CHECK(one.tp <= lp.tp * slack, "%s: one-port TP* %g above bounded %g", what, one.tp, lp.tp);
	for (size_t i = 0; rc == 0 && i < sizeof(trees) / sizeof(*trees); i++) {
		double tp = seed_tree_tp(pf, trees[i]);
		CHECK(tp <= lp.tp * slack, "%s: %s %g above TP* %g", what, SEED000[i], tp, lp.tp);
	}
	struct lb_hetero_in in = { .pf = pf, .lane = 0, .slice_bytes = 1000000 };
	struct lb_cap_plan plan;
	CHECK(lb_cap_plan(&in, 64, &plan, err, sizeof(err)) == 0, "%s: cap-trees: %s", what, err);
	CHECK(1 / plan.period <= lp.tp * slack, "%s: cap-trees %g (k %u) above TP* %g", what,
	      1 / plan.period, plan.k, lp.tp);
	lb_cap_plan_free(&plan);
	lb_lp_result_free(&lp);
	lb_lp_result_free(&one);
}

static void random_platforms(void)
{
	struct lb_rng seed = { 21 }; /* the random platforms are the same on every run */
	for (int i = 0; i < 20; i++) {
		uint32_t p = 2 + (uint32_t)(lb_rng_next(&seed) % 11);
		struct lb_platform *pf = random_capped(&seed, p);
		char what[48];
		snprintf(what, sizeof(what), "random %d (p %u)", i, p);
		if (pf)
			lp_bounds(pf, what);
		lb_platform_free(pf);
	}
}

/* Times no platform file can give (its values are bounded where they
 * enter) but a caller building one can: links of a subnormal bw make a
 * slice take forever.  cap-trees once read t[SIZE_MAX] comparing two
 * infinite hop times (issue 28, cap_trees_oob.platform); it refuses them,
 * naming the link, and so a node whose rate (which caps its links) makes
 * its sends infinite. */
static void refuses_infinite_times(void)
{
	struct lb_platform *pf = lb_platform_new(3, 1);
	struct lb_link slow = { .bw = 1e-320 / 8 };
	CHECK(pf != NULL, "no memory");
	if (!pf)
		return;
	pf->dflt.bw = 1.25e8;
	CHECK(lb_platform_set_link(pf, 0, 1, LB_PLATFORM_ALL_LANES, LB_LINK_BW, &slow) == 0 &&
	      lb_platform_set_link(pf, 0, 2, LB_PLATFORM_ALL_LANES, LB_LINK_BW, &slow) == 0 &&
	      lb_platform_seal(pf) == 0, "set the links");
	struct lb_hetero_in in = { .pf = pf, .root = 0, .lane = 0, .slice_bytes = 1 << 20 };
	struct lb_cap_plan plan;
	char err[256] = "";
	int rc = lb_cap_plan(&in, 1, &plan, err, sizeof(err));
	CHECK(rc == -1 && strstr(err, "link 0 -> 1") && strstr(err, "finite"),
	      "infinite links: rc %d, '%s'", rc, err);
	if (rc == 0)
		lb_cap_plan_free(&plan);
	lb_platform_free(pf);

	pf = full(3, 1, 1);
	CHECK(pf != NULL, "no memory");
	if (!pf)
		return;
	pf->node[1].rate = 1e-320;
	in = hin(pf);
	rc = lb_cap_plan(&in, 1, &plan, err, sizeof(err));
	CHECK(rc == -1 && strstr(err, "link 0 -> 1") && strstr(err, "finite"),
	      "an infinite rate: rc %d, '%s'", rc, err);
	if (rc == 0)
		lb_cap_plan_free(&plan);
	lb_platform_free(pf);
}

int main(void)
{
	refuses_infinite_times();
	periods();
	lp_exact();
	reaches_cap();
	random_platforms();
	return check_status("test_hetero_cap");
}
