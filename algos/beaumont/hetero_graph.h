/* The platform graph the seed-000 heuristics work on (internal to
 * algos/beaumont/hetero*.c): one lane's edges with their slice times T, out-edges
 * of a node as one run (edges sorted by (u, v)), an alive mark per edge
 * for the pruning heuristics and scratch for reachability searches. */
#ifndef LB_HETERO_GRAPH_H
#define LB_HETERO_GRAPH_H

#include "hetero.h"

struct het_graph {
	const struct lb_hetero_in *in;
	uint32_t p;
	size_t m;                     /* edges */
	struct lb_platform_edge *e;   /* [m], (u, v) ascending */
	double *t;                    /* [m]: T_e */
	size_t *out;                  /* [p + 1]: u's out-edges are out[u] .. out[u + 1] */
	uint8_t *alive;               /* [m] */
	size_t alive_count;
	uint32_t *queue;              /* [p] */
	uint8_t *seen;                /* [p] */
};

/* Every edge alive.  0, or -1 with err set (no memory, or a node the root
 * cannot reach: named). */
int het_graph_init(struct het_graph *g, const struct lb_hetero_in *in,
		   char *err, size_t len);
void het_graph_free(struct het_graph *g);

/* Would every node stay reachable from the root over the alive edges
 * without edge `skip` (SIZE_MAX: none)? */
int het_reachable_without(struct het_graph *g, size_t skip);

/* The alive edges, once p - 1 of them are left, as a parent array.  -1
 * (internal error, named) when they are not a spanning arborescence. */
int het_alive_tree(const struct het_graph *g, uint32_t *parent,
		   const char *algo, char *err, size_t len);

/* n_{u,v} of edge i from the LP loads. */
static inline double het_load(const struct het_graph *g, size_t i)
{
	return g->in->lp_load[(size_t)g->e[i].u * g->p + g->e[i].v];
}

#endif
