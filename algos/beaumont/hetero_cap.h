/* cap-trees: a broadcast that plans with each node's cap (issue 13 item 7).
 *
 * Seed 000's heuristics (hetero.h) model a node as one-port or multi-port
 * with no cap on its total rate, so on a platform whose nodes carry `rate`
 * (every host of the emulated cluster capped at 100 Mbit/s in all) they
 * pick fan-out trees whose relays split that cap among their children.
 * cap-trees plans with the bounded multi-port model instead (model/sim.h,
 * `sim --model bounded`): a node's sends on a lane share its cap and its
 * CPU (`send` per message), its receives share the cap too, and every link
 * carries one transfer at a time.
 *
 * It builds k spanning trees (k = 1 .. LB_CAP_MAX_TREES); block b goes down
 * tree b mod k, so each tree carries 1/k of the slices, as multilane's two
 * trees carry a half each.  A node may have k children over all trees (the
 * root one per tree): then what it sends fits its cap as what it receives
 * does.  Each tree grows like Prim's algorithm, by the edge that delivers
 * its first slice earliest, a send costing the larger of the link's time
 * (times the trees already on it) and the sender's cap time per child so
 * far; only when no sender has children left to give (a sparse
 * platform) does a node take more, or send in a second tree -- then its
 * sends in the two trees wait on each other, which the estimate does not
 * see.  A tree opens no more relays than the later trees leave it.  Of the k values, the one with the least estimated makespan
 * (pipeline fill + slices x the bounded period) wins, ties the fewest
 * trees.  Deterministic: ties by smaller T, then edge (u, v).
 *
 * Internal to algos/ (hetero_graph.h); the registry's "cap-trees". */
#ifndef LB_HETERO_CAP_H
#define LB_HETERO_CAP_H

#include "hetero.h"

#define LB_CAP_MAX_TREES 4

struct lb_cap_plan {
	uint32_t k;            /* trees; block b goes down tree b % k */
	uint32_t nodes;
	uint32_t *parent;      /* [k * nodes]: tree t's parent array at t * nodes */
	struct lb_edge *edge;  /* [k * (nodes - 1)]: tree t's edges at t * (nodes - 1),
				* parents before children, in sending order */
	double period;         /* bounded seconds per slice (lb_period_bounded) */
	double estimate;       /* seconds: fill + (slices - 1) * period */
};

/* The plan for `slices` slices of in->slice_bytes.  0, or -1 with err set
 * (a node the root cannot reach, no memory). */
int lb_cap_plan(const struct lb_hetero_in *in, uint32_t slices, struct lb_cap_plan *out,
		char *err, size_t len);
void lb_cap_plan_free(struct lb_cap_plan *plan);

/* Steady-state seconds per slice of k trees (parent: k parent arrays of
 * pf->nodes each; block b down tree b % k) under the bounded multi-port
 * model: the largest of, over links, (trees using it / k) T_{u,v}; over
 * nodes, (children over all trees / k) max(slice / rate, send) and, but
 * the root, slice / rate (what it receives).  k = 1: one tree's period. */
double lb_period_bounded(const struct lb_hetero_in *in, const uint32_t *parent, uint32_t k);

#endif
