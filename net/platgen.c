/* Platform generators: random graphs and TIERS-like networks (platgen.h
 * states every reading taken). */
#include "platgen.h"
#include "rng.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/units.h"

#define PLATGEN_MAX_NODES 4096
#define MB 1e6

static uint32_t rng_below(struct lb_rng *r, uint32_t n)
{
	return (uint32_t)(lb_rng_unit(r) * n);
}

static double rng_gauss(struct lb_rng *r, double mean, double dev)
{
	double u1 = 1.0 - lb_rng_unit(r); /* (0, 1]: log is finite */
	double u2 = lb_rng_unit(r);
	return mean + dev * sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

/* A bandwidth draw; the Gaussian's far tails (<= 1 MB/s, and past the
 * highest rate a platform file may give) are drawn again. */
static double draw_bw(struct lb_rng *r, const struct lb_platgen *g)
{
	double bw;
	do
		bw = rng_gauss(r, g->bw_mean, g->bw_dev);
	while (bw <= MB || bw > LB_RATE_MAX);
	return bw;
}

/* The undirected graph being built: adj[u * n + v] for u, v; and scratch
 * arrays of n entries for the steps below (one at a time), allocated once
 * with the graph so that no step can fail. */
struct graph {
	uint32_t n;
	uint8_t *adj;
	double *x, *y; /* tiers-like placement */
	double *dist;
	uint32_t *node;
	uint8_t *mark, *mark2;
};

static void join(struct graph *gr, uint32_t u, uint32_t v)
{
	gr->adj[(size_t)u * gr->n + v] = 1;
	gr->adj[(size_t)v * gr->n + u] = 1;
}

static int joined(const struct graph *gr, uint32_t u, uint32_t v)
{
	return gr->adj[(size_t)u * gr->n + v];
}

/* perm[0..n) a uniformly random permutation (Fisher-Yates). */
static void shuffle(uint32_t *perm, uint32_t n, struct lb_rng *r)
{
	for (uint32_t i = 0; i < n; i++)
		perm[i] = i;
	for (uint32_t i = n - 1; i > 0; i--) {
		uint32_t j = rng_below(r, i + 1), t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
}

static void random_topology(struct graph *gr, const struct lb_platgen *g,
			    struct lb_rng *r, uint32_t *perm)
{
	uint32_t n = gr->n;
	shuffle(perm, n, r);
	for (uint32_t k = 1; k < n; k++)
		join(gr, perm[k], perm[rng_below(r, k)]);
	for (uint32_t u = 0; u < n; u++)
		for (uint32_t v = u + 1; v < n; v++)
			if (!joined(gr, u, v) && lb_rng_unit(r) < g->density)
				join(gr, u, v);
}

static double dist(const struct graph *gr, uint32_t a, uint32_t b)
{
	return hypot(gr->x[a] - gr->x[b], gr->y[a] - gr->y[b]);
}

/* Prim's Euclidean minimum spanning tree over nodes first .. first+k-1. */
static void network_mst(struct graph *gr, uint32_t first, uint32_t k)
{
	double *best = gr->dist;
	uint32_t *from = gr->node;
	uint8_t *in = gr->mark;
	memset(in, 0, k);
	for (uint32_t i = 0; i < k; i++) {
		best[i] = INFINITY;
		from[i] = 0;
	}
	best[0] = 0;
	for (uint32_t step = 0; step < k; step++) {
		uint32_t pick = k;
		for (uint32_t i = 0; i < k; i++)
			if (!in[i] && (pick == k || best[i] < best[pick]))
				pick = i;
		in[pick] = 1;
		if (step > 0)
			join(gr, first + pick, first + from[pick]);
		for (uint32_t i = 0; i < k; i++) {
			double d = dist(gr, first + pick, first + i);
			if (!in[i] && d < best[i]) {
				best[i] = d;
				from[i] = pick;
			}
		}
	}
}

static void network_star(struct graph *gr, uint32_t first, uint32_t k)
{
	for (uint32_t i = 1; i < k; i++)
		join(gr, first, first + i);
}

/* Nearest not-yet-chosen node j of the network to node a: index in
 * first .. first+k-1, k when none is left.  Ties: lower id. */
static uint32_t nearest_unchosen(const struct graph *gr, uint32_t a,
				 uint32_t first, uint32_t k, const uint8_t *chosen)
{
	uint32_t pick = k;
	for (uint32_t i = 0; i < k; i++) {
		uint32_t b = first + i;
		if (b == a || chosen[i])
			continue;
		if (pick == k || dist(gr, a, b) < dist(gr, a, first + pick))
			pick = i;
	}
	return pick;
}

/* Intranetwork redundancy: each node joined to its r nearest neighbours. */
static void network_redundancy(struct graph *gr, uint32_t first, uint32_t k,
			       uint32_t r)
{
	uint8_t *chosen = gr->mark;
	for (uint32_t i = 0; i < k; i++) {
		memset(chosen, 0, k);
		for (uint32_t m = 0; m < r; m++) {
			uint32_t j = nearest_unchosen(gr, first + i, first, k, chosen);
			if (j == k)
				break;
			chosen[j] = 1;
			join(gr, first + i, first + j);
		}
	}
}

struct net {
	uint32_t first, count;
};

/* Internetwork redundancy: the r nodes of `child` nearest to `parent`,
 * each joined to its nearest node there (ties: lower id). */
static void join_networks(struct graph *gr, struct net child, struct net parent,
			  uint32_t r)
{
	uint8_t *none = gr->mark, *used = gr->mark2;
	double *d = gr->dist;
	uint32_t *to = gr->node;
	memset(none, 0, parent.count);
	memset(used, 0, child.count);
	for (uint32_t i = 0; i < child.count; i++) {
		uint32_t c = child.first + i;
		to[i] = parent.first +
			nearest_unchosen(gr, c, parent.first, parent.count, none);
		d[i] = dist(gr, c, to[i]);
	}
	if (r < 1)
		r = 1;
	for (uint32_t m = 0; m < r && m < child.count; m++) {
		uint32_t pick = child.count;
		for (uint32_t i = 0; i < child.count; i++)
			if (!used[i] && (pick == child.count || d[i] < d[pick]))
				pick = i;
		used[pick] = 1;
		join(gr, child.first + pick, to[pick]);
	}
}

static void place(struct graph *gr, struct net nt, double cx, double cy,
		  double half, struct lb_rng *r)
{
	for (uint32_t i = 0; i < nt.count; i++) {
		gr->x[nt.first + i] = cx + half * (2.0 * lb_rng_unit(r) - 1.0);
		gr->y[nt.first + i] = cy + half * (2.0 * lb_rng_unit(r) - 1.0);
	}
}

static void build_network(struct graph *gr, struct net nt, int star, uint32_t r)
{
	if (star)
		network_star(gr, nt.first, nt.count);
	else
		network_mst(gr, nt.first, nt.count);
	network_redundancy(gr, nt.first, nt.count, r);
}

static void tiers_lans(struct graph *gr, const struct lb_platgen_tiers *t,
		       struct net man, uint32_t *next, struct lb_rng *r)
{
	for (uint32_t l = 0; l < t->nl; l++) {
		struct net lan = { *next, t->sl };
		uint32_t at = man.first + rng_below(r, man.count);
		place(gr, lan, gr->x[at], gr->y[at], 0.02, r);
		build_network(gr, lan, 1, t->rl);
		join_networks(gr, lan, man, t->rlm);
		*next += t->sl;
	}
}

static void tiers_topology(struct graph *gr, const struct lb_platgen *g,
			   struct lb_rng *r)
{
	const struct lb_platgen_tiers *t = &g->tiers;
	struct net wan = { 0, t->sw };
	place(gr, wan, 0.5, 0.5, 0.5, r);
	build_network(gr, wan, 0, t->rw);
	uint32_t next = t->sw;
	for (uint32_t m = 0; m < t->nm; m++) {
		struct net man = { next, t->sm };
		next += t->sm;
		place(gr, man, lb_rng_unit(r), lb_rng_unit(r), 0.1, r);
		build_network(gr, man, 0, t->rm);
		join_networks(gr, man, wan, t->rmw);
	}
	for (uint32_t m = 0; m < t->nm; m++) {
		struct net man = { t->sw + m * t->sm, t->sm };
		tiers_lans(gr, t, man, &next, r);
	}
}

int lb_platgen_defaults(struct lb_platgen *g, enum lb_platgen_kind kind,
			uint32_t nodes)
{
	memset(g, 0, sizeof *g);
	g->kind = kind;
	g->seed = 1;
	g->bw_mean = 100 * MB;
	g->bw_dev = 20 * MB;
	g->send_slice = 1000000;
	if (kind == LB_PLATGEN_RANDOM) {
		g->nodes = nodes ? nodes : 30;
		g->density = 0.12;
		return 0;
	}
	if (nodes == 0 || nodes == 30)
		g->tiers = (struct lb_platgen_tiers){ .sw = 10, .nm = 4, .sm = 5,
			.rw = 3, .rm = 3, .rmw = 2, .rlm = 1 };
	else if (nodes == 65)
		g->tiers = (struct lb_platgen_tiers){ .sw = 13, .nm = 4, .sm = 13,
			.rw = 4, .rm = 4, .rmw = 3, .rlm = 1 };
	else
		return -1;
	g->nodes = lb_platgen_nodes(g);
	return 0;
}

uint32_t lb_platgen_nodes(const struct lb_platgen *g)
{
	if (g->kind == LB_PLATGEN_RANDOM)
		return g->nodes;
	const struct lb_platgen_tiers *t = &g->tiers;
	uint64_t n = (uint64_t)t->sw + (uint64_t)t->nm * t->sm +
		     (uint64_t)t->nm * t->nl * t->sl;
	return n > PLATGEN_MAX_NODES ? PLATGEN_MAX_NODES + 1 : (uint32_t)n;
}

static int check_params(const struct lb_platgen *g, char *err, size_t errlen)
{
	uint32_t n = lb_platgen_nodes(g);
	const struct lb_platgen_tiers *t = &g->tiers;
	const char *bad = NULL;
	if (n < 2 || n > PLATGEN_MAX_NODES)
		bad = "nodes: between 2 and 4096";
	else if (g->kind == LB_PLATGEN_RANDOM && !(g->density >= 0 && g->density <= 1))
		bad = "density: between 0 and 1";
	else if (!(g->bw_mean > MB) || !(g->bw_dev >= 0))
		bad = "bandwidth: mean above 1 MB/s, deviation >= 0";
	else if (g->send_slice == 0)
		bad = "send slice: > 0 bytes";
	else if (g->kind == LB_PLATGEN_TIERS &&
		 (t->sw == 0 || (t->nm && t->sm == 0) || (t->nl && t->sl == 0)))
		bad = "tiers-like: every network needs a node (sw, sm, sl >= 1)";
	if (bad)
		snprintf(err, errlen, "platform generator: %s", bad);
	return bad ? -1 : 0;
}

/* Per-pair bandwidths from the bandwidth stream, pairs in (u, v) order;
 * node u of the graph is node label[u] of the platform. */
static int add_links(struct lb_platform *pf, const struct graph *gr,
		     const uint32_t *label, const struct lb_platgen *g, struct lb_rng *r)
{
	for (uint32_t u = 0; u < gr->n; u++)
		for (uint32_t v = u + 1; v < gr->n; v++) {
			if (!joined(gr, u, v))
				continue;
			struct lb_link fw = { .bw = draw_bw(r, g) };
			struct lb_link bk = fw;
			if (g->asymmetric)
				bk.bw = draw_bw(r, g);
			uint32_t a = label[u], b = label[v];
			if (lb_platform_set_link(pf, a, b, 0, LB_LINK_BW, &fw) ||
			    lb_platform_set_link(pf, b, a, 0, LB_LINK_BW, &bk))
				return -1;
		}
	return lb_platform_seal(pf);
}

/* send_u = 0.80 * min_w T_{u,w} at the stated slice
 * (docs/papers.md#seed000-experiments Table 2). */
static void set_send_overheads(struct lb_platform *pf, const struct lb_platgen *g)
{
	for (uint32_t u = 0; u < pf->nodes; u++) {
		double best = INFINITY;
		for (uint32_t w = 0; w < pf->nodes; w++)
			if (w != u && lb_platform_has_link(pf, u, w, 0)) {
				double t = lb_platform_occupation(pf, u, w, 0,
								  g->send_slice);
				best = t < best ? t : best;
			}
		pf->node[u].send = isfinite(best) ? 0.80 * best : 0;
	}
}

static int graph_alloc(struct graph *gr, uint32_t n)
{
	*gr = (struct graph){ .n = n, .adj = calloc((size_t)n * n, 1),
			      .x = calloc(n, sizeof(double)), .y = calloc(n, sizeof(double)),
			      .dist = calloc(n, sizeof(double)), .node = calloc(n, sizeof(uint32_t)),
			      .mark = calloc(n, 1), .mark2 = calloc(n, 1) };
	return gr->adj && gr->x && gr->y && gr->dist && gr->node && gr->mark && gr->mark2 ? 0 : -1;
}

static void graph_free(struct graph *gr)
{
	free(gr->adj);
	free(gr->x);
	free(gr->y);
	free(gr->dist);
	free(gr->node);
	free(gr->mark);
	free(gr->mark2);
}

struct lb_platform *lb_platgen_make(const struct lb_platgen *g, char *err,
				    size_t errlen)
{
	if (check_params(g, err, errlen))
		return NULL;
	uint32_t n = lb_platgen_nodes(g);
	struct graph gr;
	uint32_t *label = calloc(2 * (size_t)n, sizeof(*label)), *perm = label + n;
	struct lb_platform *pf = lb_platform_new(n, 1);
	int bad = graph_alloc(&gr, n) || !label || !pf;
	struct lb_rng topo = { g->seed }, bws = { g->seed ^ 0x5bd1e995a1b2c3d4ull };
	struct lb_rng ids = { g->seed ^ 0x2545f4914f6cdd1dull };
	if (!bad && g->kind == LB_PLATGEN_RANDOM)
		random_topology(&gr, g, &topo, perm);
	else if (!bad)
		tiers_topology(&gr, g, &topo);
	if (!bad && g->shuffle)
		shuffle(label, n, &ids);
	else if (!bad)
		for (uint32_t i = 0; i < n; i++)
			label[i] = i;
	bad = bad || add_links(pf, &gr, label, g, &bws);
	graph_free(&gr);
	free(label);
	if (bad) {
		lb_platform_free(pf);
		snprintf(err, errlen, "platform generator: out of memory");
		return NULL;
	}
	set_send_overheads(pf, g);
	return pf;
}

int lb_platgen_describe(const struct lb_platgen *g, char *buf, size_t len)
{
	const struct lb_platgen_tiers *t = &g->tiers;
	char bw[96];
	snprintf(bw, sizeof bw,
		 "bw-mean=%gMB/s bw-dev=%gMB/s %s send=0.80*minT@%lluB",
		 g->bw_mean / MB, g->bw_dev / MB,
		 g->asymmetric ? "asymmetric" : "symmetric",
		 (unsigned long long)g->send_slice);
	if (g->kind == LB_PLATGEN_RANDOM)
		return snprintf(buf, len,
				"generator: random seed=%llu nodes=%u density=%g %s",
				(unsigned long long)g->seed, g->nodes, g->density, bw);
	return snprintf(buf, len,
			"generator: tiers-like seed=%llu nodes=%u sw=%u nm=%u sm=%u "
			"nl=%u sl=%u rw=%u rm=%u rl=%u rmw=%u rlm=%u ids=%s %s",
			(unsigned long long)g->seed, lb_platgen_nodes(g), t->sw,
			t->nm, t->sm, t->nl, t->sl, t->rw, t->rm, t->rl, t->rmw,
			t->rlm, g->shuffle ? "shuffled" : "hierarchical", bw);
}

double lb_platgen_density(const struct lb_platform *pf)
{
	size_t pairs = 0;
	for (uint32_t u = 0; u < pf->nodes; u++)
		for (uint32_t v = u + 1; v < pf->nodes; v++)
			pairs += lb_platform_has_link(pf, u, v, 0) ||
				 lb_platform_has_link(pf, v, u, 0);
	return pf->nodes < 2 ? 0 :
	       (double)pairs / ((double)pf->nodes * (pf->nodes - 1) / 2);
}
