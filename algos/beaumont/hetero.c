/* Seed 000's pruning and growing heuristics (Alg. 1-3, 5-7 and
 * Multiport-Prune-Degree) exactly as docs/papers.md#seed000-trees reads them;
 * see hetero.h.  Edge indices follow (u, v) ascending, so "ties by (u, v)" is
 * "ties by index" throughout. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hetero_graph.h"
#include "lib/error.h"

typedef int (*before_fn)(const void *ctx, size_t a, size_t b);

/* Stable merge sort of idx[0..n) by before (n is at most the edge count). */
static int sort_by(const void *ctx, size_t *idx, size_t n, before_fn before)
{
	size_t *tmp = malloc((n + 1) * sizeof(*tmp));
	if (!tmp)
		return -1;
	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t i = lo, j = mid, k = lo;
			while (i < mid || j < hi)
				tmp[k++] = j == hi || (i < mid && !before(ctx, idx[j], idx[i]))
						   ? idx[i++] : idx[j++];
		}
		memcpy(idx, tmp, n * sizeof(*idx));
	}
	free(tmp);
	return 0;
}

/* Alg. 1: non-increasing T, ties (u, v). */
static int heavier(const void *ctx, size_t a, size_t b)
{
	const struct het_graph *g = ctx;
	return g->t[a] != g->t[b] ? g->t[a] > g->t[b] : a < b;
}

/* Alg. 6 (Reading): non-decreasing n, ties larger T, then (u, v). */
static int less_loaded(const void *ctx, size_t a, size_t b)
{
	const struct het_graph *g = ctx;
	double na = het_load(g, a), nb = het_load(g, b);
	return na != nb ? na < nb : heavier(g, a, b);
}

static void kill_edge(struct het_graph *g, size_t i)
{
	g->alive[i] = 0;
	g->alive_count--;
}

/* Alg. 1 and 6: edges into the root dropped, then one pass in `order`,
 * removing what keeps every node reachable, until p - 1 edges are left. */
static int prune_in_order(const struct lb_hetero_in *in, before_fn order, uint32_t *parent,
			  const char *algo, char *err, size_t len)
{
	struct het_graph g;
	if (het_graph_init(&g, in, err, len))
		return -1;
	size_t *idx = malloc((g.m + 1) * sizeof(*idx)), n = 0;
	int rc = idx ? 0 : lb_errf(err, len, "%s: out of memory", algo);
	for (size_t i = 0; rc == 0 && i < g.m; i++) {
		if (g.e[i].v == in->root)
			kill_edge(&g, i);
		else
			idx[n++] = i;
	}
	if (rc == 0 && sort_by(&g, idx, n, order))
		rc = lb_errf(err, len, "%s: out of memory", algo);
	for (size_t k = 0; rc == 0 && k < n && g.alive_count > g.p - 1; k++)
		if (het_reachable_without(&g, idx[k]))
			kill_edge(&g, idx[k]);
	if (rc == 0)
		rc = het_alive_tree(&g, parent, algo, err, len);
	free(idx);
	het_graph_free(&g);
	return rc;
}

int lb_tree_prune_simple(const struct lb_hetero_in *in, uint32_t *parent, char *err, size_t len)
{
	return prune_in_order(in, heavier, parent, "topo-prune-simple", err, len);
}

int lb_tree_lp_prune(const struct lb_hetero_in *in, uint32_t *parent, char *err, size_t len)
{
	return prune_in_order(in, less_loaded, parent, "lp-prune", err, len);
}

/* ---- Alg. 2 and Multiport-Prune-Degree ---- */

typedef double (*degree_fn)(const struct het_graph *g, uint32_t u);

/* Alg. 2's OutDegree: the sum of T over u's remaining out-edges (summed
 * afresh rather than decremented, so ties do not hang on rounding). */
static double out_weight(const struct het_graph *g, uint32_t u)
{
	double sum = 0;
	for (size_t i = g->out[u]; i < g->out[u + 1]; i++)
		sum += g->alive[i] ? g->t[i] : 0;
	return sum;
}

/* The multi-port period of u over its remaining out-edges. */
static double mp_period(const struct het_graph *g, uint32_t u)
{
	double max = 0;
	uint32_t deg = 0;
	for (size_t i = g->out[u]; i < g->out[u + 1]; i++)
		if (g->alive[i]) {
			deg++;
			max = fmax(max, g->t[i]);
		}
	return fmax(deg * g->in->pf->node[u].send, max);
}

struct degree_order {
	double *deg; /* [p] */
	size_t *node; /* [p] */
};

/* Non-increasing degree (ctx: the degrees), ties by id. */
static int bigger_degree(const void *ctx, size_t a, size_t b)
{
	const double *deg = ctx;
	return deg[a] != deg[b] ? deg[a] > deg[b] : a < b;
}

/* Tries u's alive out-edges, heaviest first (ties v ascending: index
 * order); removes the first removable one.  1 if it did, 0, or -1. */
static int prune_node(struct het_graph *g, uint32_t u, size_t *cand)
{
	size_t n = 0;
	for (size_t i = g->out[u]; i < g->out[u + 1]; i++)
		if (g->alive[i])
			cand[n++] = i;
	if (sort_by(g, cand, n, heavier))
		return -1;
	for (size_t k = 0; k < n; k++)
		if (het_reachable_without(g, cand[k])) {
			kill_edge(g, cand[k]);
			return 1;
		}
	return 0;
}

/* One deletion of Alg. 2's while loop: nodes by degree, the first that
 * has a removable edge loses its heaviest such.  1, 0 (none), or -1. */
static int prune_once(struct het_graph *g, degree_fn degree, struct degree_order *o,
		      size_t *cand)
{
	for (uint32_t u = 0; u < g->p; u++) {
		o->deg[u] = degree(g, u);
		o->node[u] = u;
	}
	if (sort_by(o->deg, o->node, g->p, bigger_degree))
		return -1;
	for (uint32_t k = 0; k < g->p; k++) {
		int rc = prune_node(g, (uint32_t)o->node[k], cand);
		if (rc)
			return rc;
	}
	return 0;
}

static int prune_by_degree(const struct lb_hetero_in *in, degree_fn degree, uint32_t *parent,
			   const char *algo, char *err, size_t len)
{
	struct het_graph g;
	if (het_graph_init(&g, in, err, len))
		return -1;
	struct degree_order o = {
		.deg = malloc(g.p * sizeof(double)), .node = malloc(g.p * sizeof(size_t)),
	};
	size_t *cand = malloc((g.m + 1) * sizeof(*cand));
	int rc = o.deg && o.node && cand ? 0 : lb_errf(err, len, "%s: out of memory", algo);
	while (rc == 0 && g.alive_count > g.p - 1) {
		int step = prune_once(&g, degree, &o, cand);
		if (step <= 0)
			rc = lb_errf(err, len, step < 0 ? "%s: out of memory"
					   : "%s: internal error: no removable edge left", algo);
	}
	if (rc == 0)
		rc = het_alive_tree(&g, parent, algo, err, len);
	free(o.deg);
	free(o.node);
	free(cand);
	het_graph_free(&g);
	return rc;
}

int lb_tree_prune_degree(const struct lb_hetero_in *in, uint32_t *parent, char *err, size_t len)
{
	return prune_by_degree(in, out_weight, parent, "topo-prune-degree", err, len);
}

int lb_tree_mp_prune_degree(const struct lb_hetero_in *in, uint32_t *parent, char *err,
			    size_t len)
{
	return prune_by_degree(in, mp_period, parent, "mp-prune-degree", err, len);
}

/* ---- Alg. 3, 5 and 7: growing from the root ---- */

struct grow {
	uint8_t *in_tree;   /* [p] */
	double *out_sum;    /* [p]: sum of T over the children so far */
	double *max_child;  /* [p]: largest T of a child so far */
	uint32_t *children; /* [p] */
};

/* The key an edge leaving the tree is chosen by (smallest wins; ties by
 * smaller T, then (u, w)). */
typedef double (*grow_key_fn)(const struct het_graph *g, const struct grow *s, size_t i);

static double key_out_degree(const struct het_graph *g, const struct grow *s, size_t i)
{
	return s->out_sum[g->e[i].u] + g->t[i];
}

static double key_mp_period(const struct het_graph *g, const struct grow *s, size_t i)
{
	uint32_t u = g->e[i].u;
	return fmax((s->children[u] + 1) * g->in->pf->node[u].send,
		    fmax(g->t[i], s->max_child[u]));
}

static double key_most_loaded(const struct het_graph *g, const struct grow *s, size_t i)
{
	(void)s;
	return -het_load(g, i);
}

/* The edge leaving the tree of least (key, T, index), or SIZE_MAX. */
static size_t best_leaving(const struct het_graph *g, const struct grow *s, grow_key_fn key)
{
	size_t best = SIZE_MAX;
	double best_key = 0;
	for (size_t i = 0; i < g->m; i++) {
		if (!s->in_tree[g->e[i].u] || s->in_tree[g->e[i].v])
			continue;
		double k = key(g, s, i);
		if (best == SIZE_MAX || k < best_key || (k == best_key && g->t[i] < g->t[best])) {
			best = i;
			best_key = k;
		}
	}
	return best;
}

static int grow_tree(const struct het_graph *g, struct grow *s, grow_key_fn key,
		     uint32_t *parent, const char *algo, char *err, size_t len)
{
	for (uint32_t v = 0; v < g->p; v++)
		parent[v] = LB_NO_PARENT;
	s->in_tree[g->in->root] = 1;
	for (uint32_t added = 1; added < g->p; added++) {
		size_t i = best_leaving(g, s, key);
		if (i == SIZE_MAX)
			return lb_errf(err, len, "%s: internal error: no edge leaves the tree of %u nodes",
				       algo, added);
		uint32_t u = g->e[i].u, w = g->e[i].v;
		parent[w] = u;
		s->in_tree[w] = 1;
		s->out_sum[u] += g->t[i];
		s->max_child[u] = fmax(s->max_child[u], g->t[i]);
		s->children[u]++;
	}
	return 0;
}

static int grow(const struct lb_hetero_in *in, grow_key_fn key, uint32_t *parent,
		const char *algo, char *err, size_t len)
{
	struct het_graph g;
	if (het_graph_init(&g, in, err, len))
		return -1;
	struct grow s = {
		.in_tree = calloc(g.p, 1),
		.out_sum = calloc(g.p, sizeof(double)),
		.max_child = calloc(g.p, sizeof(double)),
		.children = calloc(g.p, sizeof(uint32_t)),
	};
	int rc = s.in_tree && s.out_sum && s.max_child && s.children
		? grow_tree(&g, &s, key, parent, algo, err, len)
		: lb_errf(err, len, "%s: out of memory", algo);
	free(s.in_tree);
	free(s.out_sum);
	free(s.max_child);
	free(s.children);
	het_graph_free(&g);
	return rc;
}

int lb_tree_grow(const struct lb_hetero_in *in, uint32_t *parent, char *err, size_t len)
{
	return grow(in, key_out_degree, parent, "topo-grow", err, len);
}

int lb_tree_mp_grow(const struct lb_hetero_in *in, uint32_t *parent, char *err, size_t len)
{
	return grow(in, key_mp_period, parent, "mp-grow", err, len);
}

int lb_tree_lp_grow(const struct lb_hetero_in *in, uint32_t *parent, char *err, size_t len)
{
	return grow(in, key_most_loaded, parent, "lp-grow", err, len);
}
