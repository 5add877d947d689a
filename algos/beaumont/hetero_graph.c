/* The heuristics' platform graph and the tree evaluation; see
 * hetero_graph.h and hetero.h. */
#include "hetero_graph.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"

void het_graph_free(struct het_graph *g)
{
	free(g->e);
	free(g->t);
	free(g->out);
	free(g->alive);
	free(g->queue);
	free(g->seen);
	memset(g, 0, sizeof(*g));
}

/* A slice's time on every edge is finite and > 0, or the first edge whose
 * time is not is named: trees are grown by adding these times and comparing
 * the sums, which an infinite or NaN time would make meaningless (and a
 * platform file cannot give one: its rates and times are bounded). */
static int check_times(const struct het_graph *g, char *err, size_t len)
{
	for (size_t i = 0; i < g->m; i++)
		if (!(isfinite(g->t[i]) && g->t[i] > 0))
			return lb_errf(err, len, "link %u -> %u on lane %u: a slice of %llu bytes takes %g s "
				       "(expected a finite time > 0: check its bw and occ)",
				       g->e[i].u, g->e[i].v, g->in->lane,
				       (unsigned long long)g->in->slice_bytes, g->t[i]);
	return 0;
}

static int fill_graph(struct het_graph *g)
{
	const struct lb_hetero_in *in = g->in;
	g->t = malloc((g->m + 1) * sizeof(*g->t));
	g->out = calloc((size_t)g->p + 1, sizeof(*g->out));
	g->alive = malloc(g->m + 1);
	g->queue = malloc((size_t)g->p * sizeof(*g->queue));
	g->seen = malloc(g->p);
	if (!g->t || !g->out || !g->alive || !g->queue || !g->seen)
		return -1;
	for (size_t i = 0; i < g->m; i++) {
		g->t[i] = lb_platform_occupation(in->pf, g->e[i].u, g->e[i].v, in->lane,
						 in->slice_bytes);
		g->out[g->e[i].u + 1]++;
	}
	for (uint32_t u = 0; u < g->p; u++)
		g->out[u + 1] += g->out[u];
	memset(g->alive, 1, g->m);
	g->alive_count = g->m;
	return 0;
}

int het_graph_init(struct het_graph *g, const struct lb_hetero_in *in,
		   char *err, size_t len)
{
	memset(g, 0, sizeof(*g));
	g->in = in;
	g->p = in->pf->nodes;
	if (lb_platform_check_reachable(in->pf, in->root, in->lane, err, len))
		return -1;
	if (lb_platform_edges(in->pf, in->lane, &g->e, &g->m) || fill_graph(g)) {
		het_graph_free(g);
		return lb_errf(err, len, "out of memory for a platform of %u nodes", in->pf->nodes);
	}
	if (check_times(g, err, len)) {
		het_graph_free(g);
		return -1;
	}
	return 0;
}

int het_reachable_without(struct het_graph *g, size_t skip)
{
	size_t head = 0, tail = 0;
	memset(g->seen, 0, g->p);
	g->queue[tail++] = g->in->root;
	g->seen[g->in->root] = 1;
	while (head < tail) {
		uint32_t u = g->queue[head++];
		for (size_t i = g->out[u]; i < g->out[u + 1]; i++)
			if (g->alive[i] && i != skip && !g->seen[g->e[i].v]) {
				g->seen[g->e[i].v] = 1;
				g->queue[tail++] = g->e[i].v;
			}
	}
	return tail == g->p;
}

int het_alive_tree(const struct het_graph *g, uint32_t *parent,
		   const char *algo, char *err, size_t len)
{
	for (uint32_t v = 0; v < g->p; v++)
		parent[v] = LB_NO_PARENT;
	for (size_t i = 0; i < g->m; i++) {
		if (!g->alive[i])
			continue;
		uint32_t v = g->e[i].v;
		if (v == g->in->root || parent[v] != LB_NO_PARENT)
			return lb_errf(err, len, "%s: internal error: node %u keeps two incoming edges",
				       algo, v);
		parent[v] = g->e[i].u;
	}
	for (uint32_t v = 0; v < g->p; v++)
		if (v != g->in->root && parent[v] == LB_NO_PARENT)
			return lb_errf(err, len, "%s: internal error: node %u lost its parent", algo, v);
	return 0;
}

static double slice_time(const struct lb_hetero_in *in, uint32_t u, uint32_t v)
{
	return lb_platform_occupation(in->pf, u, v, in->lane, in->slice_bytes);
}

/* Per-node sums of T over its children (or its count and largest T). */
struct node_load {
	double sum, max;
	uint32_t children;
};

static double finish_period(struct node_load *load, uint32_t p,
			    const struct lb_platform *pf, int multiport)
{
	double period = 0;
	for (uint32_t u = 0; u < p; u++) {
		double x = multiport ? fmax(load[u].children * pf->node[u].send, load[u].max)
				     : load[u].sum;
		period = fmax(period, x);
	}
	free(load);
	return period;
}

static double tree_period(const struct lb_hetero_in *in, const uint32_t *parent,
			  int multiport)
{
	uint32_t p = in->pf->nodes;
	struct node_load *load = calloc(p, sizeof(*load));
	if (!load)
		return NAN;
	for (uint32_t v = 0; v < p; v++) {
		if (parent[v] == LB_NO_PARENT)
			continue;
		double t = slice_time(in, parent[v], v);
		load[parent[v]].sum += t;
		load[parent[v]].max = fmax(load[parent[v]].max, t);
		load[parent[v]].children++;
	}
	return finish_period(load, p, in->pf, multiport);
}

double lb_period_oneport(const struct lb_hetero_in *in, const uint32_t *parent)
{
	return tree_period(in, parent, 0);
}

double lb_period_multiport(const struct lb_hetero_in *in, const uint32_t *parent)
{
	return tree_period(in, parent, 1);
}

/* A relay sends and receives once per route through it: out(u) and in(v)
 * count each physical edge k_e times. */
double lb_period_routed(const struct lb_hetero_in *in, const struct lb_routes *r)
{
	uint32_t p = in->pf->nodes;
	double *out = calloc(p, sizeof(*out)), *inw = calloc(p, sizeof(*inw)), period = 0;
	if (!out || !inw) {
		free(out);
		free(inw);
		return NAN;
	}
	for (uint32_t i = 0; i < r->count; i++)
		for (uint32_t h = r->start[i]; h + 1 < r->start[i + 1]; h++) {
			double t = slice_time(in, r->node[h], r->node[h + 1]);
			out[r->node[h]] += t;
			inw[r->node[h + 1]] += t;
		}
	for (uint32_t u = 0; u < p; u++)
		period = fmax(period, fmax(out[u], inw[u]));
	free(out);
	free(inw);
	return period;
}

/* Sending order: increasing T_{u,v}, ties by id. */
static int child_before(const struct lb_hetero_in *in, uint32_t u, uint32_t a, uint32_t b)
{
	double ta = slice_time(in, u, a), tb = slice_time(in, u, b);
	return ta != tb ? ta < tb : a < b;
}

/* Appends u's children to edges[*n..] in sending order (insertion sort:
 * a node has few children). */
static void add_children(const struct lb_hetero_in *in, const uint32_t *parent, uint32_t u,
			 struct lb_edge *edges, size_t *n)
{
	size_t first = *n;
	for (uint32_t v = 0; v < in->pf->nodes; v++) {
		if (parent[v] != u)
			continue;
		size_t i = (*n)++;
		while (i > first && child_before(in, u, v, edges[i - 1].dst)) {
			edges[i] = edges[i - 1];
			i--;
		}
		edges[i] = (struct lb_edge){ u, v };
	}
}

int lb_tree_edges(const struct lb_hetero_in *in, const uint32_t *parent,
		  struct lb_edge *edges)
{
	size_t n = 0;
	add_children(in, parent, in->root, edges, &n);
	/* edges[] doubles as the breadth-first queue: edge i's child is the
	 * i-th node after the root to be expanded. */
	for (size_t i = 0; i < n; i++)
		add_children(in, parent, edges[i].dst, edges, &n);
	return n + 1 == in->pf->nodes ? 0 : -1;
}
