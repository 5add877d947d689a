/* Seed 000's broadcast-tree heuristics for heterogeneous platforms
 * (Beaumont, Marchal, Robert; docs/papers.md#seed000-trees), as pure functions:
 * (platform, root, lane, slice size[, LP loads]) -> a tree.
 *
 * Every edge (u, v) of the platform's lane is weighted by T_{u,v} =
 * lb_platform_occupation(pf, u, v, lane, slice_bytes), the time to send one
 * slice over it.  A tree is a parent array: parent[v] is v's parent,
 * parent[root] = LB_NO_PARENT.  Ties are broken as docs/papers.md#seed000-trees
 * says (by (u, v) ascending unless a rule names another order), so the same
 * platform always gives the same tree.
 *
 * Multi-port heuristics (mp-*) take send_u from the platform's per-node `send`
 * (node U send ...).  The paper's experiments use send_u = 0.80 * min_w T_{u,w}
 * for its 1 MB slice; the platform generators
 * (docs/papers.md#seed000-experiments) write exactly that, and a platform from
 * elsewhere must carry it too (0 makes the multi-port period the largest T of a
 * node's children alone).
 *
 * Errors (a node not reachable from the root, no memory, a pruning loop
 * that cannot finish -- "internal error", impossible on a reachable
 * platform) return -1 with one line in err naming the node or the edge. */
#ifndef LB_HETERO_H
#define LB_HETERO_H

#include <stddef.h>
#include <stdint.h>

#include "algos/build.h"
#include "net/platform.h"

#define LB_NO_PARENT UINT32_MAX

struct lb_hetero_in {
	const struct lb_platform *pf; /* sealed */
	uint32_t root, lane;
	uint64_t slice_bytes;   /* the slice T_{u,v} is the occupation of */
	const double *lp_load;  /* [nodes * nodes], n_{u,v} row u: lp-* only */
};

/* The platform lane the trees are built for and emitted on. */
#define LB_HETERO_LANE 0

/* A platform algorithm's input: prm's platform, root and lane
 * LB_HETERO_LANE, the slice its largest block (hetero_algos.c). */
struct lb_hetero_in lb_hetero_in_for(const struct lb_algo_params *prm);

typedef int (*lb_tree_fn)(const struct lb_hetero_in *in, uint32_t *parent,
			  char *err, size_t len);

/* Alg. 1, Topo-Prune-Simple: drop edges into the root, then remove edges
 * by non-increasing T while every node stays reachable. */
int lb_tree_prune_simple(const struct lb_hetero_in *in, uint32_t *parent,
			 char *err, size_t len);
/* Alg. 2, Topo-Prune-Degree: from every edge, repeatedly remove the
 * heaviest removable out-edge of the node of largest weighted out-degree. */
int lb_tree_prune_degree(const struct lb_hetero_in *in, uint32_t *parent,
			 char *err, size_t len);
/* Alg. 3, Topo-Grow: Prim-like, adding the edge that makes its tail's
 * weighted out-degree smallest. */
int lb_tree_grow(const struct lb_hetero_in *in, uint32_t *parent,
		 char *err, size_t len);
/* Alg. 5, Multi-Port Growing Tree (our reading, docs/papers.md#seed000-trees):
 * Alg. 3 with the tail's multi-port period if the edge were added as the
 * cost. */
int lb_tree_mp_grow(const struct lb_hetero_in *in, uint32_t *parent,
		    char *err, size_t len);
/* Multiport-Prune-Degree: Alg. 2 with the multi-port period
 * max(deg(u) send_u, max T) as a node's degree. */
int lb_tree_mp_prune_degree(const struct lb_hetero_in *in, uint32_t *parent,
			    char *err, size_t len);
/* Alg. 6, LP-Prune (Reading): Alg. 1 removing the edges of fewest n_{u,v}
 * first, ties larger T then (u, v). */
int lb_tree_lp_prune(const struct lb_hetero_in *in, uint32_t *parent,
		     char *err, size_t len);
/* Alg. 7, LP-Grow: Prim-like, the leaving edge of largest n_{u,v}, ties
 * smaller T then (u, v). */
int lb_tree_lp_grow(const struct lb_hetero_in *in, uint32_t *parent,
		    char *err, size_t len);

/* Alg. 4, Binomial-Tree: the binomial tree on node indices (the root is
 * index 0, the others in id order), each logical transfer routed over a
 * shortest path by T (Dijkstra; ties fewer hops, then smaller
 * predecessor).  Route i is node[start[i] .. start[i + 1]), from its
 * logical sender to its logical receiver, in the order the binomial tree
 * sends (stage by stage, then the nodes beyond 2^floor(log2 p)). */
struct lb_routes {
	uint32_t *node;
	uint32_t *start; /* [count + 1] */
	uint32_t count;
};

int lb_routes_binomial(const struct lb_hetero_in *in, struct lb_routes *out,
		       char *err, size_t len);
void lb_routes_free(struct lb_routes *r);

/* Steady-state seconds per slice (docs/papers.md#seed000-period; TP = 1 /
 * period): one-port max_u sum of T over u's children; multi-port max_u max(d_u
 * send_u, max T over u's children); a routed set max(max_u out(u), max_v in(v))
 * with every route's edges counted once per route. */
double lb_period_oneport(const struct lb_hetero_in *in, const uint32_t *parent);
double lb_period_multiport(const struct lb_hetero_in *in, const uint32_t *parent);
double lb_period_routed(const struct lb_hetero_in *in, const struct lb_routes *r);

/* The tree's nodes - 1 edges (absolute ranks) in emission order: parents before
 * children (breadth first from the root), each node's children by increasing
 * T_{u,v}, ties by id -- the sending order, an implementation choice
 * (docs/papers.md#seed000-trees; it does not change the period).  0, or -1
 * when parent is no tree spanning every node from the root. */
int lb_tree_edges(const struct lb_hetero_in *in, const uint32_t *parent,
		  struct lb_edge *edges);

#endif
