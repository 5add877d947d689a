/* Seed 000's heuristics as registry algorithms: each builds its tree on
 * prm->platform's lane LB_HETERO_LANE with T_{u,v} the occupation of one
 * slice, and emits it pipelined with one block per slice, every block down
 * every edge on that lane (the one-port model; with k > 1 lanes the others
 * stay idle -- striping children over lanes is not done). */
#include <math.h>
#include <stdlib.h>

#include "hetero.h"

struct lb_hetero_in lb_hetero_in_for(const struct lb_algo_params *prm)
{
	uint32_t slices = lb_slice_count(prm->bytes, prm->slice_bytes);
	return (struct lb_hetero_in){
		.pf = prm->platform, .root = prm->root, .lane = LB_HETERO_LANE,
		.slice_bytes = lb_div_ceil(prm->bytes, slices), /* the largest block */
		.lp_load = prm->lp_load,
	};
}

/* Builders are pure and have no error channel: lb_algo_check has refused
 * what a tree builder would (no platform, unreachable nodes, and through
 * lb_check_binomial_routed a transfer with no route), so a failure here is
 * memory, reported by lb_algo_build. */
static struct lb_schedule *emit_tree(const struct lb_algo_params *prm, const char *name,
				     lb_tree_fn tree)
{
	struct lb_hetero_in in = lb_hetero_in_for(prm);
	uint32_t *parent = malloc(prm->ranks * sizeof(*parent));
	struct lb_edge *edges = malloc(prm->ranks * sizeof(*edges));
	struct lb_schedule *s = lb_sched_for(prm, name, lb_slice_count(prm->bytes, prm->slice_bytes));
	char err[256];
	int rc = !parent || !edges || !s || tree(&in, parent, err, sizeof(err)) ||
		 lb_tree_edges(&in, parent, edges) ||
		 lb_emit_tree_abs(s, edges, prm->ranks - 1, LB_HETERO_LANE);
	free(parent);
	free(edges);
	return rc ? lb_sched_abandon(s) : s;
}

static double tree_period(const struct lb_algo_params *prm, lb_tree_fn tree, int multiport)
{
	struct lb_hetero_in in = lb_hetero_in_for(prm);
	uint32_t *parent = malloc(prm->ranks * sizeof(*parent));
	char err[256];
	double period = NAN;
	if (parent && tree(&in, parent, err, sizeof(err)) == 0)
		period = multiport ? lb_period_multiport(&in, parent) : lb_period_oneport(&in, parent);
	free(parent);
	return period;
}

#define TREE_ALGO(fn, name, tree, multiport)                                   \
	struct lb_schedule *lb_build_##fn(const struct lb_algo_params *prm)    \
	{                                                                      \
		return emit_tree(prm, name, tree);                             \
	}                                                                      \
	double lb_period_##fn(const struct lb_algo_params *prm)                \
	{                                                                      \
		return tree_period(prm, tree, multiport);                      \
	}

TREE_ALGO(topo_prune_simple, "topo-prune-simple", lb_tree_prune_simple, 0)
TREE_ALGO(topo_prune_degree, "topo-prune-degree", lb_tree_prune_degree, 0)
TREE_ALGO(topo_grow, "topo-grow", lb_tree_grow, 0)
TREE_ALGO(mp_grow, "mp-grow", lb_tree_mp_grow, 1)
TREE_ALGO(mp_prune_degree, "mp-prune-degree", lb_tree_mp_prune_degree, 1)
TREE_ALGO(lp_prune, "lp-prune", lb_tree_lp_prune, 0)
TREE_ALGO(lp_grow, "lp-grow", lb_tree_lp_grow, 0)

/* Route by route, hop by hop: the relays' RECVs and their forwarding
 * SENDs are transit ops, the last hop's RECV the delivery. */
static int emit_routes(struct lb_schedule *s, const struct lb_routes *r, uint32_t lane)
{
	for (uint32_t b = 0; b < s->nblocks; b++)
		for (uint32_t i = 0; i < r->count; i++)
			for (uint32_t h = r->start[i]; h + 1 < r->start[i + 1]; h++) {
				uint8_t send = h > r->start[i] ? LB_OP_TRANSIT : 0;
				uint8_t recv = h + 2 < r->start[i + 1] ? LB_OP_TRANSIT : 0;
				if (lb_sched_transfer_flags(s, r->node[h], r->node[h + 1], lane, b,
							    send, recv))
					return -1;
			}
	return 0;
}

struct lb_schedule *lb_build_binomial_routed(const struct lb_algo_params *prm)
{
	struct lb_hetero_in in = lb_hetero_in_for(prm);
	struct lb_routes r;
	char err[256];
	if (lb_routes_binomial(&in, &r, err, sizeof(err)))
		return NULL;
	struct lb_schedule *s = lb_sched_for(prm, "binomial-routed",
					     lb_slice_count(prm->bytes, prm->slice_bytes));
	if (s && emit_routes(s, &r, LB_HETERO_LANE))
		s = lb_sched_abandon(s);
	lb_routes_free(&r);
	return s;
}

int lb_check_binomial_routed(const struct lb_algo_params *prm, char *err, size_t len)
{
	struct lb_hetero_in in = lb_hetero_in_for(prm);
	struct lb_routes r;
	if (lb_routes_binomial(&in, &r, err, len))
		return -1;
	lb_routes_free(&r);
	return 0;
}

double lb_period_binomial_routed(const struct lb_algo_params *prm)
{
	struct lb_hetero_in in = lb_hetero_in_for(prm);
	struct lb_routes r;
	char err[256];
	if (lb_routes_binomial(&in, &r, err, sizeof(err)))
		return NAN;
	double period = lb_period_routed(&in, &r);
	lb_routes_free(&r);
	return period;
}
