/* Seed 000's heuristics (algos/beaumont/hetero*.c): the two test vectors of
 * docs/papers.md#seed000-lp, a hand-made 5-node platform whose trees were
 * worked out by hand from the rules of docs/papers.md#seed000-trees (the
 * derivations are in the comments), the periods of
 * docs/papers.md#seed000-period, the registry's checks, determinism, the
 * validator on every emitted schedule (and on random platforms), and its nolink
 * and transit refusals.
 *
 * Slice times: every platform here has occ = 0 and bw = 60 / T bytes/s, so
 * a 60-byte slice takes exactly T seconds (T = 1, 2, 3, 4, 5: exact
 * divisions), and ties in T are exact ties. */
#include <stdlib.h>
#include <string.h>

#include "algos/algos.h"
#include "algos/beaumont/hetero.h"
#include "net/platform.h"
#include "net/rng.h"
#include "check.h"
#include "model/lp.h"
#include "model/sim.h"

#define SLICE 60
#define MAXP 16

struct arc {
	uint32_t u, v;
	double t;
};

/* A platform of p nodes, one lane, links u -> v of slice time t (both
 * directions when sym), multi-port send_u = 0.80 * min T of u's out-edges
 * (the paper's rule, docs/papers.md#seed000-experiments). */
static struct lb_platform *platform(uint32_t p, const struct arc *a, size_t n, int sym)
{
	struct lb_platform *pf = lb_platform_new(p, 1);
	for (size_t i = 0; pf && i < n; i++) {
		struct lb_link l = { .bw = SLICE / a[i].t };
		lb_platform_set_link(pf, a[i].u, a[i].v, LB_PLATFORM_ALL_LANES, LB_LINK_BW, &l);
		if (sym)
			lb_platform_set_link(pf, a[i].v, a[i].u, LB_PLATFORM_ALL_LANES, LB_LINK_BW, &l);
	}
	if (!pf || lb_platform_seal(pf))
		abort();
	for (uint32_t u = 0; u < p; u++) {
		double min = INFINITY;
		for (uint32_t v = 0; v < p; v++)
			if (lb_platform_has_link(pf, u, v, 0))
				min = fmin(min, lb_platform_occupation(pf, u, v, 0, SLICE));
		pf->node[u].send = isinf(min) ? 0 : 0.8 * min;
	}
	return pf;
}

/* Test vector 1: complete, symmetric. */
static const struct arc V1[] = {
	{ 0, 1, 1 }, { 0, 2, 2 }, { 0, 3, 2 }, { 1, 2, 3 }, { 1, 3, 3 }, { 2, 3, 2 },
};
/* Test vector 2: symmetric, no 0-3 link. */
static const struct arc V2[] = {
	{ 0, 1, 3 }, { 0, 2, 2 }, { 1, 2, 3 }, { 1, 3, 2 }, { 2, 3, 3 },
};
/* The hand-made platform, one-way edges: the root reaches everyone cheaply
 * but 4, which it reaches only through 3 (or 1). */
static const struct arc P5[] = {
	{ 0, 1, 1 }, { 0, 2, 1 }, { 0, 3, 1 }, { 1, 2, 2 }, { 2, 3, 2 },
	{ 3, 4, 2 }, { 1, 4, 3 }, { 4, 0, 1 },
};

/* n_{u,v} of LP (2) (row u) for the three platforms: an optimal phase-2
 * solution (TP fixed at TP*, minimum sum T n; docs/papers.md#seed000-lp), from
 * `glpsol --lp --exact` on the formulation of docs/papers.md#seed000-lp (the
 * file for vector 1, the same generator for the others) with the row "23 TP >=
 * 11" (resp. "5 TP >= 2", "2 TP >= 1"), the printed decimals read as the
 * fractions they are.  Another optimal solution could pick other trees of the
 * same period. */
static double lp1[16], lp2[16], lp5[25];

static void set_loads(void)
{
	lp1[0 * 4 + 1] = 5.0 / 23, lp1[0 * 4 + 2] = 21.0 / 115, lp1[0 * 4 + 3] = 24.0 / 115;
	lp1[1 * 4 + 2] = 1.0 / 23, lp1[1 * 4 + 3] = 1.0 / 23;
	lp1[2 * 4 + 1] = 21.0 / 115, lp1[2 * 4 + 3] = 26.0 / 115;
	lp1[3 * 4 + 1] = 9.0 / 115, lp1[3 * 4 + 2] = 29.0 / 115;
	lp2[0 * 4 + 1] = 1.0 / 15, lp2[0 * 4 + 2] = 2.0 / 5, lp2[1 * 4 + 3] = 1.0 / 5;
	lp2[2 * 4 + 1] = 2.0 / 15, lp2[2 * 4 + 3] = 1.0 / 5, lp2[3 * 4 + 1] = 1.0 / 5;
	lp5[0 * 5 + 1] = 0.5, lp5[0 * 5 + 3] = 0.5, lp5[1 * 5 + 2] = 0.5, lp5[3 * 5 + 4] = 0.5;
}

static struct lb_hetero_in hin(const struct lb_platform *pf, const double *lp)
{
	return (struct lb_hetero_in){ .pf = pf, .root = 0, .lane = 0, .slice_bytes = SLICE,
				      .lp_load = lp };
}

/* want: parent of nodes 1.. (root 0). */
static void tree_is(const char *what, lb_tree_fn fn, const struct lb_hetero_in *in,
		    const uint32_t *want, double oneport, double multiport)
{
	uint32_t parent[MAXP];
	char err[256] = "";
	if (fn(in, parent, err, sizeof(err))) {
		CHECK(0, "%s: %s", what, err);
		return;
	}
	CHECK(parent[0] == LB_NO_PARENT, "%s: root has parent %u", what, parent[0]);
	for (uint32_t v = 1; v < in->pf->nodes; v++)
		CHECK(parent[v] == want[v - 1], "%s: parent of %u is %u, want %u", what, v,
		      parent[v], want[v - 1]);
	double p1 = lb_period_oneport(in, parent), pm = lb_period_multiport(in, parent);
	CHECK(check_close(p1, oneport, 1e-12), "%s: one-port period %g want %g", what, p1, oneport);
	CHECK(multiport < 0 || check_close(pm, multiport, 1e-12),
	      "%s: multi-port period %g want %g", what, pm, multiport);
}

static double routed_period(const struct lb_hetero_in *in)
{
	struct lb_routes r;
	char err[256];
	if (lb_routes_binomial(in, &r, err, sizeof(err))) {
		CHECK(0, "binomial-routed: %s", err);
		return NAN;
	}
	double period = lb_period_routed(in, &r);
	lb_routes_free(&r);
	return period;
}

/* Vector 1 (send_0 = send_1 = 0.8, send_2 = send_3 = 1.6).  By hand:
 * Alg. 1 drops 1->2, 1->3, 2->1, 3->1 (T 3), then 0->2 (2 via 3), keeps
 * 0->3, drops 2->3: {0->1, 0->3, 3->2}.  Alg. 2 deletes 1->2, 2->1, 3->1,
 * 0->2, 1->3, 2->0, 3->0, 2->3, 1->0: the same tree.  Alg. 3: 0->1 (cost 1),
 * then five edges of cost 3, smallest T: 0->2, then 2->3 (cost 2).  Alg. 5:
 * 0->1, 0->2 (period 2), 2->3 (period 2).  mp-prune-degree deletes 2->1,
 * 3->1, 2->0, 3->0, 1->2, 1->3, 0->2, 2->3, 1->0.  LP-Grow: 0->1 (n 25/115),
 * 0->3 (24/115), 3->2 (29/115); LP-Prune drops 1->2, 1->3, 3->1, 2->1, 0->2,
 * 2->3.  All of period 3: TP 1/3, the best single tree. */
static void vector1(void)
{
	struct lb_platform *pf = platform(4, V1, 6, 1);
	struct lb_hetero_in in = hin(pf, lp1);
	const uint32_t ps[] = { 0, 3, 0 }, grow[] = { 0, 0, 2 };
	tree_is("v1 topo-prune-simple", lb_tree_prune_simple, &in, ps, 3, -1);
	tree_is("v1 topo-prune-degree", lb_tree_prune_degree, &in, ps, 3, -1);
	tree_is("v1 topo-grow", lb_tree_grow, &in, grow, 3, -1);
	tree_is("v1 mp-grow", lb_tree_mp_grow, &in, grow, 3, 2);
	tree_is("v1 mp-prune-degree", lb_tree_mp_prune_degree, &in, ps, 3, 2);
	tree_is("v1 lp-prune", lb_tree_lp_prune, &in, ps, 3, -1);
	tree_is("v1 lp-grow", lb_tree_lp_grow, &in, ps, 3, -1);
	/* routes 0->2, 0->1, 2->3, all direct: out(0) = 3 */
	CHECK(routed_period(&in) == 3, "v1 binomial-routed period %g want 3", routed_period(&in));
	lb_platform_free(pf);
}

/* Vector 2.  By hand: Alg. 1 drops 0->1, 1->2, 2->1, 3->2, 1->3:
 * {0->2, 2->3, 3->1}; Alg. 2 deletes 1->0, 2->1, 0->1, 1->2, 2->0, 3->2,
 * 1->3: the same; Alg. 3: 0->2, 2->1 (cost 3, tie with 2->3 by id), 1->3.
 * LP-Grow 0->2 (2/5), 2->3 (1/5), 3->1 (1/5); LP-Prune drops 1->2, 3->2,
 * 0->1, 2->1, 1->3.  Binomial: 0->2, 0->1, 2->3 direct: out(0) = 5. */
static void vector2(void)
{
	struct lb_platform *pf = platform(4, V2, 5, 1);
	struct lb_hetero_in in = hin(pf, lp2);
	const uint32_t chain[] = { 3, 0, 2 }, grow[] = { 2, 0, 1 };
	tree_is("v2 topo-prune-simple", lb_tree_prune_simple, &in, chain, 3, -1);
	tree_is("v2 topo-prune-degree", lb_tree_prune_degree, &in, chain, 3, -1);
	tree_is("v2 topo-grow", lb_tree_grow, &in, grow, 3, -1);
	tree_is("v2 lp-prune", lb_tree_lp_prune, &in, chain, 3, -1);
	tree_is("v2 lp-grow", lb_tree_lp_grow, &in, chain, 3, -1);
	CHECK(routed_period(&in) == 5, "v2 binomial-routed period %g want 5 (TP 0.2)",
	      routed_period(&in));
	lb_platform_free(pf);
}

/* P5 (send_0 = 0.8, send_1..3 = 1.6, send_4 = 0.8; TP* = 1/2).  By hand:
 * Alg. 1 drops 4->0, then 1->4 (T 3), 1->2, 2->3: the star 0->1, 0->2,
 * 0->3 and 3->4 (period 3).  Alg. 2 deletes 1->4 (node 1, degree 5), 0->2
 * and 0->3 (node 0, ties by v; 0->1 is not removable), then 4->0 (nodes
 * 1-3 have none): the chain (period 2).  Alg. 3: 0->1, 0->2 (cost 2, T 1
 * beats 1->2), 2->3 (cost 2), 3->4: period 2.  Alg. 5 the same (periods 1,
 * 1.6, 2, 2).  mp-prune-degree deletes 1->4 (3.2), 0->2 (2.4), 2->3 (node
 * 2 at 2 ahead of 3 at 2, node 1 has nothing removable), 4->0: 0->1, 0->3,
 * 1->2, 3->4.  LP-Grow 0->1, 0->3 (0.5, T 1 before 1->2's T 2), 1->2,
 * 3->4; LP-Prune drops 1->4, 2->3, 0->2 (n 0, larger T first): the same,
 * the optimal tree.  Binomial routes 0->2, 0->1, 2->3, and 0->4 over
 * 0->3->4 (3 beats 0->1->4's 4): in(3) = 3. */
static void five(void)
{
	struct lb_platform *pf = platform(5, P5, 8, 0);
	struct lb_hetero_in in = hin(pf, lp5);
	const uint32_t star[] = { 0, 0, 0, 3 }, chain[] = { 0, 1, 2, 3 };
	const uint32_t grow[] = { 0, 0, 2, 3 }, opt[] = { 0, 1, 0, 3 };
	tree_is("p5 topo-prune-simple", lb_tree_prune_simple, &in, star, 3, -1);
	tree_is("p5 topo-prune-degree", lb_tree_prune_degree, &in, chain, 2, -1);
	tree_is("p5 topo-grow", lb_tree_grow, &in, grow, 2, -1);
	tree_is("p5 mp-grow", lb_tree_mp_grow, &in, grow, 2, 2);
	tree_is("p5 mp-prune-degree", lb_tree_mp_prune_degree, &in, opt, 2, 2);
	tree_is("p5 lp-prune", lb_tree_lp_prune, &in, opt, 2, -1);
	tree_is("p5 lp-grow", lb_tree_lp_grow, &in, opt, 2, -1);
	struct lb_routes r;
	char err[256];
	CHECK(lb_routes_binomial(&in, &r, err, sizeof(err)) == 0, "p5 routes: %s", err);
	const uint32_t nodes[] = { 0, 2, 0, 1, 2, 3, 0, 3, 4 }, start[] = { 0, 2, 4, 6, 9 };
	CHECK(r.count == 4 && !memcmp(r.node, nodes, sizeof(nodes)) &&
	      !memcmp(r.start, start, sizeof(start)), "p5 routes differ (%u routes)", r.count);
	CHECK(lb_period_routed(&in, &r) == 3, "p5 routed period %g want 3",
	      lb_period_routed(&in, &r));
	lb_routes_free(&r);
	lb_platform_free(pf);
}

/* docs/papers.md#seed000-lp: LP-Prune and LP-Grow reach TP 1/3 on both vectors
 * with the loads model/lp solves (phase 2, least total link time) -- whichever
 * optimum it returns -- and TP* is 11/23, 2/5. */
static void lp_solved(void)
{
	struct lb_platform *pfs[] = { platform(4, V1, 6, 1), platform(4, V2, 5, 1) };
	const double tp[] = { 11.0 / 23, 2.0 / 5 };
	for (size_t i = 0; i < 2; i++) {
		struct lb_lp_result lp = { 0 };
		char err[256] = "";
		uint32_t parent[4];
		if (lb_lp_bound(pfs[i], 0, 0, SLICE, LB_LP_PHASE2_TIME, &lp, err, sizeof(err))) {
			CHECK(0, "vector %zu: lp: %s", i + 1, err);
			continue;
		}
		CHECK(check_close(lp.tp, tp[i], 1e-6), "vector %zu: TP* %g", i + 1, lp.tp);
		struct lb_hetero_in in = hin(pfs[i], lp.load);
		CHECK(lb_tree_lp_prune(&in, parent, err, sizeof(err)) == 0 &&
		      check_close(lb_period_oneport(&in, parent), 3, 1e-9), "vector %zu: lp-prune", i + 1);
		CHECK(lb_tree_lp_grow(&in, parent, err, sizeof(err)) == 0 &&
		      check_close(lb_period_oneport(&in, parent), 3, 1e-9), "vector %zu: lp-grow", i + 1);
		lb_lp_result_free(&lp);
	}
	lb_platform_free(pfs[0]);
	lb_platform_free(pfs[1]);
}

static struct lb_algo_params params_at(const struct lb_platform *pf, const double *lp,
					uint32_t root)
{
	return (struct lb_algo_params){ .ranks = pf->nodes, .root = root, .lanes = 1,
					.bytes = 10 * SLICE, .slice_bytes = SLICE,
					.platform = pf, .lp_load = lp };
}

static struct lb_algo_params params(const struct lb_platform *pf, const double *lp)
{
	return params_at(pf, lp, 0);
}

static int same_ops(const struct lb_schedule *a, const struct lb_schedule *b)
{
	if (a->ranks != b->ranks || a->nblocks != b->nblocks)
		return 0;
	for (uint32_t r = 0; r < a->ranks; r++) {
		if (a->rank[r].count != b->rank[r].count)
			return 0;
		for (uint32_t i = 0; i < a->rank[r].count; i++) {
			const struct lb_op *x = &a->rank[r].ops[i], *y = &b->rank[r].ops[i];
			if (x->peer != y->peer || x->first_block != y->first_block ||
			    x->nblocks != y->nblocks || x->kind != y->kind ||
			    x->lane != y->lane || x->flags != y->flags)
				return 0;
		}
	}
	return 1;
}

/* Every tree algorithm (seed 000's: those with a period) through the
 * registry: valid schedule, the same twice, its period what the tree
 * functions say.  (Seed 002's need sites: tests/algos/test_coord_platform.c.) */
static void registry_on(const struct lb_platform *pf, const double *lp, uint32_t root,
			const char *what)
{
	struct lb_algo_params prm = params_at(pf, lp, root);
	for (size_t i = 0; i < lb_nalgos; i++) {
		const struct lb_algo *a = &lb_algos[i];
		if (!a->period) /* seed 002's: test_coord*; seed 004's: test_hbsp */
			continue;
		char err[256] = "";
		if (a->check && a->check(&prm, err, sizeof(err))) {
			/* a directed platform: some pair of the binomial tree
			 * may have no route (checks() tests the message) */
			CHECK(strstr(err, "no route from node"), "%s %s: %s", what, a->name, err);
			continue;
		}
		struct lb_schedule *s = lb_algo_build(a, &prm, err, sizeof(err));
		struct lb_schedule *t = lb_algo_build(a, &prm, err, sizeof(err));
		CHECK(s && t, "%s %s: %s", what, a->name, err);
		if (s && t) {
			CHECK(lb_sched_validate(s, err, sizeof(err)) == 0, "%s %s: %s", what,
			      a->name, err);
			CHECK(same_ops(s, t), "%s %s: two builds differ", what, a->name);
			CHECK(s->platform == pf && s->nblocks == 10, "%s %s: platform or blocks",
			      what, a->name);
		}
		double period = a->period(&prm);
		CHECK(pf->nodes == 1 ? period == 0 : period > 0 && isfinite(period),
		      "%s %s: period %g", what, a->name, period);
		lb_sched_free(s);
		lb_sched_free(t);
	}
}

static void registry(void)
{
	struct lb_platform *p1 = platform(4, V1, 6, 1), *p5 = platform(5, P5, 8, 0);
	registry_on(p1, lp1, 0, "v1");
	registry_on(p1, lp1, 2, "v1 root 2");
	registry_on(p5, lp5, 0, "p5");
	registry_on(p5, lp5, 3, "p5 root 3");
	struct lb_algo_params prm = params(p5, lp5);
	CHECK(lb_algo_find("binomial-routed")->period(&prm) == 3, "p5 routed period");
	CHECK(lb_algo_find("mp-prune-degree")->period(&prm) == 2, "p5 mp period");
	CHECK(lb_algo_find("topo-prune-simple")->period(&prm) == 3, "p5 simple period");
	lb_platform_free(p1);
	lb_platform_free(p5);
}

/* The routed schedule on P5: 3 relays 0 -> 4 (a transit RECV and SEND of
 * every block), and 3's own delivery stays its one non-transit RECV. */
static void transit_ops(void)
{
	struct lb_platform *pf = platform(5, P5, 8, 0);
	struct lb_algo_params prm = params(pf, NULL);
	char err[256] = "";
	struct lb_schedule *s = lb_algo_build(lb_algo_find("binomial-routed"), &prm, err, sizeof(err));
	CHECK(s, "binomial-routed: %s", err);
	uint32_t transit[5][2] = { { 0 } }, plain_recv[5] = { 0 };
	for (uint32_t r = 0; s && r < 5; r++)
		for (uint32_t i = 0; i < s->rank[r].count; i++) {
			const struct lb_op *op = &s->rank[r].ops[i];
			if (op->flags & LB_OP_TRANSIT)
				transit[r][op->kind]++;
			else if (op->kind == LB_RECV)
				plain_recv[r] += op->nblocks;
		}
	CHECK(transit[3][LB_SEND] == 10 && transit[3][LB_RECV] == 10,
	      "rank 3 forwards 10 blocks in transit (%u sends, %u recvs)",
	      transit[3][LB_SEND], transit[3][LB_RECV]);
	for (uint32_t r = 0; r < 5; r++) {
		CHECK(plain_recv[r] == (r ? 10u : 0u), "rank %u: %u deliveries", r, plain_recv[r]);
		CHECK(r == 3 || transit[r][LB_SEND] + transit[r][LB_RECV] == 0,
		      "rank %u: transit ops", r);
	}
	lb_sched_free(s);
	lb_platform_free(pf);
}

/* The simulator runs a routed schedule: a transit copy arriving at a rank
 * that holds the block already leaves the earlier arrival (sim.c takes the
 * earliest), and every rank finishes. */
static void simulated(void)
{
	struct lb_platform *pf = platform(5, P5, 8, 0);
	struct lb_algo_params prm = params(pf, NULL);
	char err[256] = "";
	struct lb_schedule *s = lb_algo_build(lb_algo_find("binomial-routed"), &prm, err, sizeof(err));
	struct lb_sim_net net = { .alpha = 0, .lane_bw = SLICE };
	struct lb_sim_result res = { 0 };
	double done[5];
	res.rank_done = done;
	CHECK(s && lb_sim_run(s, &net, &res, err, sizeof(err)) == 0, "sim: %s", err);
	for (uint32_t r = 1; s && r < 5; r++)
		CHECK(done[r] > 0 && isfinite(done[r]), "sim: rank %u done at %g", r, done[r]);
	lb_sched_free(s);
	lb_platform_free(pf);
}

static void refused(const char *algo, const struct lb_algo_params *prm, const char *want)
{
	char err[256] = "";
	int rc = lb_algo_check(lb_algo_find(algo), prm, err, sizeof(err));
	CHECK(rc == -1 && strstr(err, want), "%s: want '%s', got '%s'", algo, want, err);
}

static void checks(void)
{
	struct lb_platform *pf = platform(5, P5, 8, 0);
	struct lb_algo_params prm = params(pf, NULL);
	prm.platform = NULL;
	refused("topo-grow", &prm, "topo-grow: needs --platform FILE");
	prm = params(pf, NULL);
	refused("lp-grow", &prm, "lp-grow: needs the LP bound's edge loads");
	prm.ranks = 6;
	refused("topo-grow", &prm, "the platform has 5 nodes x 1 lanes, not 6 ranks x 1 lanes or more");
	prm = params(pf, NULL);
	prm.root = 4; /* 4 reaches only 0, and 0 all the others */
	char err[256] = "";
	CHECK(lb_algo_check(lb_algo_find("topo-grow"), &prm, err, sizeof(err)) == 0, "root 4: %s", err);
	lb_platform_free(pf);
	const struct arc cut[] = { { 0, 1, 1 }, { 1, 2, 1 }, { 3, 4, 1 } };
	pf = platform(5, cut, 3, 1);
	prm = params(pf, NULL);
	refused("topo-prune-simple", &prm, "topo-prune-simple: node 3 cannot be reached from node 0");
	struct lb_hetero_in in = hin(pf, NULL);
	uint32_t parent[5];
	refused("binomial-routed", &prm, "binomial-routed: node 3 cannot be reached from node 0");
	CHECK(lb_tree_grow(&in, parent, err, sizeof(err)) == -1 && strstr(err, "node 3 cannot be reached"),
	      "unreachable node 3 named: '%s'", err);
	lb_platform_free(pf);
	/* one-way: the root reaches all, but 2 (sending to 3 in the binomial
	 * tree: (0,2), (0,1), (2,3)) reaches nobody */
	const struct arc oneway[] = { { 0, 1, 1 }, { 0, 2, 1 }, { 1, 3, 1 } };
	pf = platform(4, oneway, 3, 0);
	prm = params(pf, NULL);
	refused("binomial-routed", &prm,
		"binomial-routed: no route from node 2 to node 3 on lane 0 (a transfer of the binomial tree)");
	CHECK(lb_algo_check(lb_algo_find("topo-grow"), &prm, err, sizeof(err)) == 0, "one-way: %s", err);
	lb_platform_free(pf);
}

/* Hand-made schedules the validator must refuse, on P5. */
static struct lb_schedule *sched5(const struct lb_platform *pf)
{
	struct lb_schedule *s = lb_sched_new("test", 5, 0, 1, 1, SLICE);
	s->platform = pf;
	return s;
}

static void expect_invalid(struct lb_schedule *s, const char *want)
{
	char err[256] = "";
	CHECK(lb_sched_finalize(s) == 0, "finalize");
	CHECK(lb_sched_validate(s, err, sizeof(err)) == -1 && strstr(err, want),
	      "want '%s', got '%s'", want, err);
	lb_sched_free(s);
}

static void validator(void)
{
	struct lb_platform *pf = platform(5, P5, 8, 0);
	/* a star from the root: 0 -> 4 is no link */
	struct lb_schedule *s = sched5(pf);
	for (uint32_t v = 1; v < 5; v++)
		lb_sched_transfer(s, 0, v, 0, 0, 1);
	expect_invalid(s, "rank 0 lane 0: no link to peer 4 in the platform");
	/* 3 forwards to 4 in transit what it never received in transit */
	s = sched5(pf);
	lb_sched_transfer(s, 0, 1, 0, 0, 1), lb_sched_transfer(s, 0, 2, 0, 0, 1);
	lb_sched_transfer(s, 0, 3, 0, 0, 1);
	lb_sched_transfer_flags(s, 3, 4, 0, 0, LB_OP_TRANSIT, 0);
	expect_invalid(s, "transit: rank 3 receives block 0 in transit 0 times but forwards it in transit 1 times");
	/* 3 gets block 0 only in transit: no delivery */
	s = sched5(pf);
	lb_sched_transfer(s, 0, 1, 0, 0, 1), lb_sched_transfer(s, 0, 2, 0, 0, 1);
	lb_sched_transfer_flags(s, 0, 3, 0, 0, 0, LB_OP_TRANSIT);
	lb_sched_transfer_flags(s, 3, 4, 0, 0, LB_OP_TRANSIT, 0);
	expect_invalid(s, "rank 3 never receives block 0");
	/* the same with 3's delivery too is valid (a relay that holds it) */
	s = sched5(pf);
	lb_sched_transfer(s, 0, 1, 0, 0, 1), lb_sched_transfer(s, 0, 2, 0, 0, 1);
	lb_sched_transfer(s, 0, 3, 0, 0, 1);
	lb_sched_transfer_flags(s, 0, 3, 0, 0, 0, LB_OP_TRANSIT);
	lb_sched_transfer_flags(s, 3, 4, 0, 0, LB_OP_TRANSIT, 0);
	char err[256] = "";
	CHECK(lb_sched_finalize(s) == 0 && lb_sched_validate(s, err, sizeof(err)) == 0,
	      "relay holding the block: %s", err);
	lb_sched_free(s);
	lb_platform_free(pf);
}

/* A random spanning tree plus each other pair with probability 1/3, T in
 * 1..5 (ties on purpose), one-way with probability 1/4; random loads. */
static struct lb_platform *random_platform(struct lb_rng *seed, uint32_t p, double *lp)
{
	struct arc a[MAXP * MAXP];
	size_t n = 0;
	for (uint32_t v = 1; v < p; v++)
		a[n++] = (struct arc){ (uint32_t)(lb_rng_next(seed) % v), v,
				       (double)(1 + lb_rng_next(seed) % 5) };
	for (uint32_t u = 0; u < p; u++)
		for (uint32_t v = u + 1; v < p; v++)
			if (lb_rng_next(seed) % 3 == 0)
				a[n++] = (struct arc){ u, v, (double)(1 + lb_rng_next(seed) % 5) };
	struct lb_platform *pf = platform(p, a, n, 1);
	/* u < v in every pair, and the tree's edges go from the earlier node
	 * to the later: dropping v -> u keeps every node reachable from 0 */
	for (size_t i = 0; i < n; i++)
		if (lb_rng_next(seed) % 4 == 0) {
			struct lb_link none = { .bw = 0 };
			lb_platform_set_link(pf, a[i].v, a[i].u, 0, LB_LINK_BW, &none);
		}
	lb_platform_seal(pf);
	for (uint32_t i = 0; i < p * p; i++)
		lp[i] = (double)(lb_rng_next(seed) % 4) / 8;
	return pf;
}

/* Every heuristic's schedule valid and deterministic on random platforms
 * of 1..16 nodes (any non-negative loads do for the LP heuristics: they
 * only order edges by them). */
static void random_platforms(void)
{
	struct lb_rng seed = { 13 }; /* the random platforms are the same on every run */
	double lp[MAXP * MAXP];
	for (int k = 0; k < 60; k++) {
		uint32_t p = 1 + (uint32_t)(lb_rng_next(&seed) % MAXP);
		struct lb_platform *pf = random_platform(&seed, p, lp);
		char what[48];
		snprintf(what, sizeof(what), "random %d (p %u)", k, p);
		registry_on(pf, lp, 0, what);
		/* the last node as root, where it reaches every other */
		snprintf(what, sizeof(what), "random %d (p %u, root %u)", k, p, p - 1);
		if (p > 1 && lb_platform_check_reachable(pf, p - 1, 0, NULL, 0) == 0)
			registry_on(pf, lp, p - 1, what);
		lb_platform_free(pf);
	}
}

int main(void)
{
	set_loads();
	vector1();
	vector2();
	five();
	lp_solved();
	registry();
	transit_ops();
	simulated();
	checks();
	validator();
	random_platforms();
	return check_status("test_hetero");
}
