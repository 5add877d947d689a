/* klane: k-lane trees, the multilane idea generalised to k lanes.
 *
 * The message is cut into K = max(k, 2) parts of equal block count, part j
 * broadcast along its own spanning tree.  Each tree is a K-ary heap over the
 * n = p - 1 non-root ranks: the root feeds position 1 and position q feeds
 * the next `cap` positions in breadth-first order.  A rank is *interior* in
 * (forwards part j for) essentially one tree and a leaf of the others, so
 * every rank sends at most K streams: the interior positions are handed out
 * by walking the ranks with a budget of K child slots each, tree after tree
 * (tree j needs n - 1 slots; a rank whose budget a tree leaves half used
 * gives the rest to the next tree; K (n - 1) slots of the K n).  With
 * n - 1 a multiple of K this is the multilane swap generalised: tree j's
 * interior are (n - 1) / K ranks, and its leaves feed everybody else.
 *
 * Lanes come last, as a proper edge colouring of the bipartite multigraph
 * senders -> receivers (every edge one stream): every receiver has degree K
 * (one edge per part) and every sender at most K, so K colours suffice
 * (Koenig) and each rank receives exactly one part -- M / K -- on each lane
 * and sends at most one part on each.  The colouring is greedy (a colour free
 * at both ends), else an alternating path of two colours is flipped.
 *
 * Part j is blocks [j P, (j + 1) P); the builder rounds the slice count up
 * to a multiple of K (lb_blocks_klane), so parts differ by at most a byte.
 * Ops are emitted in the order of a synchronous schedule (edge_starts), so
 * every port's ops are its one stream (k >= 2) or its two streams
 * alternating (k = 1) in block order.  With k = 1 the K = 2 trees share lane
 * 0: the two-tree idea on one lane, M / B + O(log p); without the
 * alternation a port's second stream queues behind the first (multilane
 * with k = 1 reaches only about 1.5 M / B in the simulator). */
#include <string.h>

#include "build.h"
#include "cost.h"

struct kl_edge {
	uint32_t src, dst; /* relative ranks, 0 = the root */
	uint32_t part, colour;
};

struct kl {
	uint32_t n, parts;  /* non-root ranks, trees (K) */
	struct kl_edge *e;  /* parts x n edges, tree by tree, parents first */
	size_t ne;
	uint32_t *at_send;  /* [rank * K + colour]: edge + 1 sent, 0 = free */
	uint32_t *at_recv;  /* [rank * K + colour]: edge + 1 received */
	uint32_t *path;     /* an alternating path's edges */
	uint32_t *start;    /* [edge]: step of its first block */
};

/* Trees and lanes of k lanes: K >= 2, so that one lane still carries two
 * trees and every tree stays a tree, not a chain. */
static uint32_t kl_parts(uint32_t lanes)
{
	return lanes < 2 ? 2 : lanes;
}

uint64_t lb_blocks_klane(const struct lb_algo_params *prm)
{
	uint64_t parts = kl_parts(prm->lanes);
	uint64_t slices = prm->slice_bytes && prm->slice_bytes < prm->bytes
		? lb_div_ceil(prm->bytes, prm->slice_bytes) : 1;
	return lb_mul_sat(lb_div_ceil(slices, parts), parts);
}

/* Tree j's interior: the slots [j (n - 1), (j + 1) (n - 1)) of the walk
 * that gives each non-root rank K child slots in turn (slot x is relative
 * rank x / K + 1's).  Ranks strictly inside the span are full (K children
 * in this tree); the first and the last may share their slots with the
 * neighbouring trees (partial).  Needs n >= 2. */
struct kl_span {
	uint32_t first, last;          /* relative ranks */
	uint32_t cap_first, cap_last;  /* their child slots in this tree */
};

static struct kl_span span_of(uint32_t n, uint32_t K, uint32_t j)
{
	uint64_t start = (uint64_t)j * (n - 1), end = start + n - 1;
	struct kl_span sp = { (uint32_t)(start / K + 1), (uint32_t)((end - 1) / K + 1), 0, 0 };
	if (sp.first == sp.last) {
		sp.cap_first = sp.cap_last = n - 1;
	} else {
		sp.cap_first = (uint32_t)((uint64_t)K * sp.first - start);
		sp.cap_last = (uint32_t)(end - (uint64_t)K * (sp.last - 1));
	}
	return sp;
}

/* The span's partial ranks, larger cap first: 0, 1 or 2 of them. */
static uint32_t partials(const struct kl_span *sp, uint32_t K, uint32_t rank[2],
			 uint32_t cap[2])
{
	uint32_t m = 0;
	if (sp->cap_first < K)
		rank[m] = sp->first, cap[m++] = sp->cap_first;
	if (sp->last != sp->first && sp->cap_last < K)
		rank[m] = sp->last, cap[m++] = sp->cap_last;
	if (m == 2 && cap[1] > cap[0]) {
		uint32_t r = rank[0], c = cap[0];
		rank[0] = rank[1], cap[0] = cap[1], rank[1] = r, cap[1] = c;
	}
	return m;
}

/* Interior ranks of tree j in breadth-first order with their child counts:
 * the full ones in rank order, then the partial ones (shallower subtrees
 * for the full ones). */
static uint32_t interior(const struct kl *t, uint32_t j, uint32_t *node, uint32_t *cap)
{
	struct kl_span sp = span_of(t->n, t->parts, j);
	uint32_t prank[2], pcap[2], np = partials(&sp, t->parts, prank, pcap), m = 0;
	for (uint32_t v = sp.first; v <= sp.last; v++)
		if ((v != sp.first || sp.cap_first == t->parts) &&
		    (v != sp.last || sp.cap_last == t->parts))
			node[m] = v, cap[m++] = t->parts;
	for (uint32_t i = 0; i < np; i++)
		node[m] = prank[i], cap[m++] = pcap[i];
	return m;
}

/* Levels below the top of tree j: breadth first, a level's interior
 * positions (the first f are full, then the partial ones) give the next. */
static uint32_t tree_depth(uint32_t n, uint32_t K, uint32_t j)
{
	struct kl_span sp = span_of(n, K, j);
	uint32_t prank[2], pcap[2], np = partials(&sp, K, prank, pcap);
	uint64_t f = sp.last - sp.first + 1 - np, lo = 0, hi = 1, depth = 0;
	while (hi < n) {
		uint64_t kids = K * ((hi < f ? hi : f) - (lo < f ? lo : f));
		for (uint32_t i = 0; i < np; i++)
			kids += lo <= f + i && f + i < hi ? pcap[i] : 0;
		if (kids == 0)
			break;
		lo = hi, hi += kids, depth++;
	}
	return (uint32_t)depth;
}

/* Breadth-first positions of tree j: its interior ranks, then every other
 * rank in rank order; edges root -> pos[0], pos[q] -> its cap[q] children. */
static void tree_edges(struct kl *t, uint32_t j, const uint32_t *node,
		       const uint32_t *cap, uint32_t m, uint32_t *pos,
		       uint32_t *mark)
{
	uint32_t np = 0;
	for (uint32_t i = 0; i < m; i++)
		pos[np++] = node[i], mark[node[i]] = j;
	for (uint32_t v = 1; v <= t->n; v++)
		if (mark[v] != j)
			pos[np++] = v;
	t->e[t->ne++] = (struct kl_edge){ 0, pos[0], j, 0 };
	uint32_t child = 1;
	for (uint32_t q = 0; q < m; q++)
		for (uint32_t c = 0; c < cap[q]; c++)
			t->e[t->ne++] = (struct kl_edge){ pos[q], pos[child++], j, 0 };
}

static int build_trees(struct kl *t)
{
	size_t n1 = (size_t)t->n + 1;
	uint32_t *node = malloc(n1 * sizeof(*node)), *cap = malloc(n1 * sizeof(*cap));
	uint32_t *pos = malloc(n1 * sizeof(*pos)), *mark = malloc(n1 * sizeof(*mark));
	int rc = node && cap && pos && mark ? 0 : -1;
	if (rc == 0)
		memset(mark, 0xff, n1 * sizeof(*mark));
	for (uint32_t j = 0; rc == 0 && j < t->parts; j++) {
		uint32_t m = t->n > 1 ? interior(t, j, node, cap) : 0;
		tree_edges(t, j, node, cap, m, pos, mark);
	}
	free(node);
	free(cap);
	free(pos);
	free(mark);
	return rc;
}

static void set_colour(struct kl *t, uint32_t e, uint32_t c)
{
	t->e[e].colour = c;
	t->at_send[(size_t)t->e[e].src * t->parts + c] = e + 1;
	t->at_recv[(size_t)t->e[e].dst * t->parts + c] = e + 1;
}

static void clear_colour(struct kl *t, uint32_t e)
{
	uint32_t c = t->e[e].colour;
	t->at_send[(size_t)t->e[e].src * t->parts + c] = 0;
	t->at_recv[(size_t)t->e[e].dst * t->parts + c] = 0;
}

static uint32_t free_colour(const uint32_t *at, uint32_t rank, uint32_t parts)
{
	uint32_t c = 0;
	while (at[(size_t)rank * parts + c])
		c++;
	return c;
}

/* Swaps colours a and b along the path that leaves receiver v on a, its
 * sender on b, that sender's... (Kempe chain); afterwards a is free at v.
 * The path never reaches a sender with a free, so the edge being coloured
 * keeps a free at its sender. */
static void flip_path(struct kl *t, uint32_t v, uint32_t a, uint32_t b)
{
	size_t len = 0, K = t->parts;
	for (;;) {
		uint32_t e = t->at_recv[v * K + a];
		if (!e)
			break;
		t->path[len++] = e - 1;
		uint32_t f = t->at_send[t->e[e - 1].src * K + b];
		if (!f)
			break;
		t->path[len++] = f - 1;
		v = t->e[f - 1].dst;
	}
	for (size_t i = 0; i < len; i++)
		clear_colour(t, t->path[i]);
	for (size_t i = 0; i < len; i++)
		set_colour(t, t->path[i], t->e[t->path[i]].colour == a ? b : a);
}

/* Colours edge e: a colour free at both ends, else flip one path. */
static void colour_edge(struct kl *t, uint32_t e)
{
	uint32_t u = t->e[e].src, v = t->e[e].dst, K = t->parts;
	for (uint32_t c = 0; c < K; c++)
		if (!t->at_send[(size_t)u * K + c] && !t->at_recv[(size_t)v * K + c]) {
			set_colour(t, e, c);
			return;
		}
	uint32_t a = free_colour(t->at_send, u, K), b = free_colour(t->at_recv, v, K);
	flip_path(t, v, a, b);
	set_colour(t, e, a);
}

static int colour_edges(struct kl *t)
{
	size_t slots = ((size_t)t->n + 1) * t->parts;
	t->at_send = calloc(slots, sizeof(*t->at_send));
	t->at_recv = calloc(slots, sizeof(*t->at_recv));
	t->path = malloc((t->ne + 1) * sizeof(*t->path));
	if (!t->at_send || !t->at_recv || !t->path)
		return -1;
	for (size_t e = 0; e < t->ne; e++)
		colour_edge(t, (uint32_t)e);
	return 0;
}

/* The step of each edge's first block in the synchronous schedule every
 * port can keep: a block crosses a hop in one step, and a lane that carries
 * R colours (R = 2 when k = 1, else 1) sends colour c only in steps
 * congruent to c mod R, so that its streams alternate instead of queueing
 * behind each other.  Block i of edge e goes in step start[e] + R i. */
static int edge_starts(struct kl *t, uint32_t R)
{
	size_t K = t->parts;
	uint32_t *arrive = calloc(((size_t)t->n + 1) * K, sizeof(*arrive));
	t->start = malloc((t->ne + 1) * sizeof(*t->start));
	if (!arrive || !t->start) {
		free(arrive);
		return -1;
	}
	for (size_t e = 0; e < t->ne; e++) { /* parents first */
		const struct kl_edge *x = &t->e[e];
		uint32_t at = arrive[x->src * K + x->part];
		at += (R - at % R + x->colour % R) % R;
		t->start[e] = at;
		arrive[x->dst * K + x->part] = at + 1;
	}
	free(arrive);
	return 0;
}

/* Every transfer in step order, so each port's ops are in the order of the
 * synchronous schedule (and no op waits for a later one). */
static int emit(struct lb_schedule *s, const struct kl *t, uint32_t R)
{
	uint32_t per_part = s->nblocks / t->parts, last = 0;
	for (size_t e = 0; e < t->ne; e++)
		last = t->start[e] > last ? t->start[e] : last;
	for (uint64_t step = 0; step <= last + (uint64_t)R * (per_part - 1); step++)
		for (size_t e = 0; e < t->ne; e++) {
			const struct kl_edge *x = &t->e[e];
			uint64_t i = (step - t->start[e]) / R;
			if (step < t->start[e] || (step - t->start[e]) % R || i >= per_part)
				continue;
			if (lb_sched_transfer(s, lb_abs_rank(s, x->src), lb_abs_rank(s, x->dst),
					      x->colour % s->lanes, x->part * per_part + (uint32_t)i, 1))
				return -1;
		}
	return 0;
}

struct lb_schedule *lb_build_klane(const struct lb_algo_params *prm)
{
	uint64_t blocks = lb_blocks_klane(prm);
	if (blocks > LB_MAX_BLOCKS)
		return NULL;
	struct lb_schedule *s = lb_sched_for(prm, "klane", (uint32_t)blocks);
	if (!s)
		return NULL;
	struct kl t = { .n = prm->ranks - 1, .parts = kl_parts(prm->lanes) };
	t.e = malloc(((size_t)t.n * t.parts + 1) * sizeof(*t.e));
	int rc = -1;
	uint32_t R = t.parts / prm->lanes ? t.parts / prm->lanes : 1;
	if (t.e && (t.n == 0 || (build_trees(&t) == 0 && colour_edges(&t) == 0)) &&
	    edge_starts(&t, R) == 0)
		rc = emit(s, &t, R);
	free(t.e);
	free(t.at_send);
	free(t.at_recv);
	free(t.path);
	free(t.start);
	return rc ? lb_sched_abandon(s) : s;
}

/* log_K p l + M / b, with b = k B and K = max(k, 2) (one lane: log2 p). */
double lb_cost_klane_table(const struct lb_cost_in *in)
{
	if (in->ranks <= 1)
		return 0;
	double K = kl_parts(in->lanes);
	return log(in->ranks) / log(K) * in->latency + in->bytes / lb_rank_bw(in);
}

/* A part of P = ceil(S / K) blocks travels the root hop and its tree's
 * depth (the builder's, tree_depth), then streams one block per block
 * time: (D + P - 1) block times, a block of M / (K P) bytes, D = 1 + the
 * deepest tree.  With k = 1 both trees share the lane: every port carries
 * two streams, twice the time (an upper bound: a hop that changes colour
 * takes one step of the two). */
double lb_cost_klane_refined(const struct lb_cost_in *in)
{
	if (in->ranks <= 1)
		return 0;
	uint32_t K = kl_parts(in->lanes);
	double P = ceil(lb_slices(in) / K);
	uint32_t deepest = 0;
	for (uint32_t j = 0; in->ranks > 2 && j < K; j++) {
		uint32_t d = tree_depth(in->ranks - 1, K, j);
		deepest = d > deepest ? d : deepest;
	}
	double hops = 1 + deepest;
	double block = in->latency + (double)in->bytes / (K * P) / in->lane_bw;
	return (in->lanes == 1 ? 2 : 1) * (hops + P - 1) * block;
}
