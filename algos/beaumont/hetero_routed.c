/* Alg. 4, Binomial-Tree: the MPI binomial tree on node indices, each logical
 * transfer routed over a shortest path of the platform
 * (docs/papers.md#seed000-trees, with its OCR corrections: the nodes beyond 2^m
 * after the stages, each from x - 2^m). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hetero_graph.h"
#include "lib/error.h"

/* Index i of the binomial tree -> node: the root is 0, the others follow
 * in id order. */
static uint32_t node_of(uint32_t root, uint32_t i)
{
	return i == 0 ? root : i - 1 < root ? i - 1 : i;
}

struct dijkstra {
	double *dist;
	uint32_t *hops;
	uint8_t *done;
};

/* (dist, hops, pred) of v improves with the step u -> v? */
static int better(const struct dijkstra *d, const uint32_t *pred, uint32_t v, double dist,
		  uint32_t hops, uint32_t u)
{
	if (dist != d->dist[v])
		return dist < d->dist[v];
	return hops != d->hops[v] ? hops < d->hops[v] : u < pred[v];
}

/* The unfinished node of least (dist, hops, id), or UINT32_MAX. */
static uint32_t next_node(const struct het_graph *g, const struct dijkstra *d)
{
	uint32_t best = UINT32_MAX;
	for (uint32_t v = 0; v < g->p; v++)
		if (!d->done[v] && d->dist[v] < INFINITY &&
		    (best == UINT32_MAX || d->dist[v] < d->dist[best] ||
		     (d->dist[v] == d->dist[best] && d->hops[v] < d->hops[best])))
			best = v;
	return best;
}

/* Shortest paths by T from src (ties: fewer hops, then the smaller
 * predecessor), as predecessors.  O(p^2 + m): platforms are small. */
static void shortest_from(const struct het_graph *g, struct dijkstra *d, uint32_t src,
			  uint32_t *pred)
{
	for (uint32_t v = 0; v < g->p; v++) {
		d->dist[v] = INFINITY;
		d->hops[v] = 0;
		d->done[v] = 0;
		pred[v] = UINT32_MAX;
	}
	d->dist[src] = 0;
	for (uint32_t u; (u = next_node(g, d)) != UINT32_MAX;) {
		d->done[u] = 1;
		for (size_t i = g->out[u]; i < g->out[u + 1]; i++) {
			uint32_t v = g->e[i].v;
			if (!d->done[v] && better(d, pred, v, d->dist[u] + g->t[i], d->hops[u] + 1, u)) {
				d->dist[v] = d->dist[u] + g->t[i];
				d->hops[v] = d->hops[u] + 1;
				pred[v] = u;
			}
		}
	}
}

/* Appends the path a -> b (pred: shortest paths from a) to r. */
static void add_route(struct lb_routes *r, const uint32_t *pred, uint32_t a, uint32_t b)
{
	uint32_t at = r->start[r->count], n = 0;
	for (uint32_t v = b; v != a; v = pred[v])
		r->node[at + n++] = v;
	r->node[at + n++] = a;
	for (uint32_t i = 0; i < n / 2; i++) { /* reverse: a first */
		uint32_t t = r->node[at + i];
		r->node[at + i] = r->node[at + n - 1 - i];
		r->node[at + n - 1 - i] = t;
	}
	r->start[++r->count] = at + n;
}

/* The logical transfers (index pairs) in sending order: stages, then the
 * nodes beyond 2^m.  Returns their count (p - 1). */
static uint32_t logical_pairs(uint32_t p, uint32_t *from, uint32_t *to)
{
	uint32_t m = 0, n = 0;
	while ((2u << m) <= p && m < 31)
		m++;
	for (uint32_t s = 0; s < m; s++)
		for (uint32_t x = 0; x < (1u << s); x++) {
			from[n] = x << (m - s);
			to[n++] = (x << (m - s)) + (1u << (m - s - 1));
		}
	for (uint32_t x = 1u << m; x < p; x++) {
		from[n] = x - (1u << m);
		to[n++] = x;
	}
	return n;
}

struct routing {
	struct dijkstra d;
	uint32_t *pred, *from, *to;
};

static void routing_free(struct routing *w)
{
	free(w->d.dist);
	free(w->d.hops);
	free(w->d.done);
	free(w->pred);
	free(w->from);
	free(w->to);
}

/* Routes every logical transfer.  On a directed platform a logical
 * sender other than the root may have no path to its receiver (the root
 * reaches every node, the others need not): that is an error naming the
 * pair, not a route through the root, which Alg. 4 does not have. */
static int route_all(const struct het_graph *g, struct routing *w, struct lb_routes *out,
		     char *err, size_t len)
{
	uint32_t n = logical_pairs(g->p, w->from, w->to);
	out->node = malloc((size_t)n * g->p * sizeof(uint32_t) + sizeof(uint32_t));
	out->start = calloc((size_t)n + 1, sizeof(uint32_t));
	if (!out->node || !out->start)
		return lb_errf(err, len, "out of memory routing %u nodes", g->p);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t a = node_of(g->in->root, w->from[i]), b = node_of(g->in->root, w->to[i]);
		shortest_from(g, &w->d, a, w->pred);
		if (w->pred[b] == UINT32_MAX)
			return lb_errf(err, len, "no route from node %u to node %u on lane %u (a transfer of the binomial tree)",
				       a, b, g->in->lane);
		add_route(out, w->pred, a, b);
	}
	return 0;
}

int lb_routes_binomial(const struct lb_hetero_in *in, struct lb_routes *out, char *err,
		       size_t len)
{
	struct het_graph g;
	memset(out, 0, sizeof(*out));
	if (het_graph_init(&g, in, err, len))
		return -1;
	uint32_t p = g.p;
	struct routing w = {
		.d = { malloc(p * sizeof(double)), malloc(p * sizeof(uint32_t)), malloc(p) },
		.pred = malloc(p * sizeof(uint32_t)),
		.from = malloc(p * sizeof(uint32_t)),
		.to = malloc(p * sizeof(uint32_t)),
	};
	int rc = w.d.dist && w.d.hops && w.d.done && w.pred && w.from && w.to
		 ? route_all(&g, &w, out, err, len)
		 : lb_errf(err, len, "out of memory routing %u nodes", p);
	routing_free(&w);
	het_graph_free(&g);
	if (rc)
		lb_routes_free(out);
	return rc;
}

void lb_routes_free(struct lb_routes *r)
{
	free(r->node);
	free(r->start);
	memset(r, 0, sizeof(*r));
}
