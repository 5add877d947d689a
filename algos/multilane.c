/* multilane (seed 003 section 3): two complementary binary trees.
 *
 * The non-root ranks of a site are split into tree A and tree B (heap
 * order, children of j are 2j on lane 0 and 2j + 1 on lane 1).  The root
 * sends half A of the message to A_1 on lane 0 and half B to B_1 on lane 1;
 * each tree pipelines its half down.  Every node then needs the other half
 * on its other lane.  Tree leaves have both send lanes idle, so they serve
 * those needs ("swap"): per lane, the free send slots of tree A, in heap
 * order, are matched to the B nodes needing half A on that lane, in heap
 * order, and vice versa.  For p = 2^n - 1 this is the paper's mapping:
 * leaf A_{m+i} feeds B_{2i+1} and B_{2i+2}.
 *
 * Sizes that are not full trees can leave a need unmatched (one at most per
 * site); it is served by another free slot that holds the half (the root, a
 * node of the other tree, or a node already fed by the swap), on the right
 * lane if possible, else on any lane, and as a last resort by the root.
 *
 * Several sites (section 3.2) are chained: site c + 1's Tree A root is fed
 * by site c's last Tree A node, its Tree B root by the last Tree B node
 * (leaves the swap leaves a lane idle).  Sites are
 * contiguous rank ranges (the site map of sites.h, sizes may differ); the
 * root's site comes first.
 *
 * Logical lanes 0 and 1 map to physical lanes of that parity, round-robin
 * per rank, so k > 2 lanes are all used; with k = 1 both trees share it. */
#include <string.h>

#include "build.h"
#include "cost.h"
#include "sites.h"

enum { HALF_A = 0, HALF_B = 1 };

struct ml_edge {
	uint32_t src, dst;
	uint8_t half, lane;
};

struct ml {
	struct lb_schedule *s;
	const uint32_t *site_first; /* the site map, NULL = even (sites.h) */
	uint8_t *slot_free; /* [rank * 2 + logical lane] */
	uint8_t *holds;     /* [rank * 2 + half] */
	uint8_t *in_lane;   /* [rank]: lane its own tree's half arrives on */
	uint32_t *nodes;    /* the current site's tree nodes: A then B */
	uint32_t *rr;       /* [rank * 2 + logical lane]: physical round-robin */
	struct ml_edge *e;
	size_t ne, cap;
};

static int add_edge(struct ml *m, uint32_t src, uint32_t dst, int half, int lane)
{
	if (m->ne == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 64;
		struct ml_edge *e = realloc(m->e, cap * sizeof(*e));
		if (!e)
			return -1;
		m->e = e;
		m->cap = cap;
	}
	m->e[m->ne++] = (struct ml_edge){ src, dst, (uint8_t)half, (uint8_t)lane };
	m->slot_free[src * 2 + lane] = 0;
	m->holds[dst * 2 + half] = 1;
	return 0;
}

/* A supplier for dst's need of `half`: holds it, has `lane` free. */
static int can_supply(const struct ml *m, uint32_t src, uint32_t dst,
		      int half, int lane)
{
	return src != dst && m->holds[src * 2 + half] &&
	       m->slot_free[src * 2 + lane];
}

/* Serves dst's need of `half` from ranks[0..n) (plus the root): on `lane`,
 * else on any lane, else from the root on `lane` sharing its port. */
static int serve(struct ml *m, const uint32_t *ranks, size_t n,
		 uint32_t dst, int half, int lane)
{
	uint32_t root = m->s->root;
	for (int pass = 0; pass < 2; pass++) {
		for (int l = 0; l < 2; l++) {
			int try = pass == 0 ? lane : l;
			if (can_supply(m, root, dst, half, try))
				return add_edge(m, root, dst, half, try);
			for (size_t i = 0; i < n; i++)
				if (can_supply(m, ranks[i], dst, half, try))
					return add_edge(m, ranks[i], dst, half, try);
			if (pass == 0)
				break;
		}
	}
	return add_edge(m, root, dst, half, lane);
}

/* The swap on one lane: free slots of tree `half` feed, in heap order, the
 * nodes of the other tree that need `half` on that lane. */
static int swap_lane(struct ml *m, const uint32_t *from, uint32_t nfrom,
		     const uint32_t *to, uint32_t nto, int half, int lane)
{
	uint32_t i = 0;
	for (uint32_t j = 0; j < nto; j++) {
		uint32_t dst = to[j];
		if (m->in_lane[dst] == lane || m->holds[dst * 2 + half])
			continue;
		while (i < nfrom && !can_supply(m, from[i], dst, half, lane))
			i++;
		if (i == nfrom)
			return 0;
		if (add_edge(m, from[i], dst, half, lane))
			return -1;
	}
	return 0;
}

/* Tree edges of one tree (nodes t[0..n) in heap order, t[0] already fed). */
static int tree_edges(struct ml *m, const uint32_t *t, uint32_t n, int half)
{
	for (uint32_t j = 1; j <= n; j++) {
		m->holds[t[j - 1] * 2 + half] = 1;
		for (uint32_t c = 2 * j; c <= 2 * j + 1 && c <= n; c++) {
			m->in_lane[t[c - 1]] = (uint8_t)(c & 1);
			if (add_edge(m, t[j - 1], t[c - 1], half, c & 1))
				return -1;
		}
	}
	return 0;
}

/* The site's ranks other than the root, the root's successors first. */
static uint32_t site_nodes(struct ml *m, uint32_t site, uint32_t sites)
{
	const struct lb_schedule *s = m->s;
	uint32_t first = lb_sites_start(m->site_first, s->ranks, sites, site);
	uint32_t end = lb_sites_start(m->site_first, s->ranks, sites, site + 1), n = 0;
	uint32_t start = s->root >= first && s->root < end ? s->root : first;
	for (uint32_t i = 0; i < end - first; i++) {
		uint32_t r = first + (start - first + i) % (end - first);
		if (r != s->root)
			m->nodes[n++] = r;
	}
	return n;
}

/* Feeds the root of this site's tree `half` (dst): in a later site, from
 * the previous site's last node of the same tree on whichever lane it has
 * free, as section 3.2 does (A_{2^n-1} feeds the next Tree A, B_{2^n-1} the
 * next Tree B) -- a node of the other tree would have it only one swap
 * hop later; without such a slot, from any free slot that holds the half.
 * The lane actually used decides which lane the other half takes. */
static int feed_tree_root(struct ml *m, const uint32_t *prev, uint32_t nprev,
			  uint32_t dst, int half)
{
	uint32_t prev_na = (nprev + 1) / 2; /* prev: Tree A's nodes, then B's */
	int has_tree = half == HALF_A ? prev_na > 0 : nprev > prev_na;
	uint32_t last = has_tree ? prev[half == HALF_A ? prev_na - 1 : nprev - 1] : 0;
	int rc;
	if (has_tree && can_supply(m, last, dst, half, half)) /* its tree's lane first */
		rc = add_edge(m, last, dst, half, half);
	else if (has_tree && can_supply(m, last, dst, half, !half))
		rc = add_edge(m, last, dst, half, !half);
	else
		rc = serve(m, prev, nprev, dst, half, half);
	if (rc == 0)
		m->in_lane[dst] = m->e[m->ne - 1].lane;
	return rc;
}

/* Builds one site; prev/nprev are the previous site's ranks (feeders). */
static int build_site(struct ml *m, uint32_t n, const uint32_t *prev,
		      uint32_t nprev)
{
	uint32_t na = (n + 1) / 2, nb = n - na;
	uint32_t *a = m->nodes, *b = m->nodes + na;
	/* Tree roots: fed by the root (first site: no prev), or by the
	 * previous site's last leaves. */
	if (na && feed_tree_root(m, prev, nprev, a[0], HALF_A))
		return -1;
	if (nb && feed_tree_root(m, prev, nprev, b[0], HALF_B))
		return -1;
	if (tree_edges(m, a, na, HALF_A) || tree_edges(m, b, nb, HALF_B))
		return -1;
	for (int lane = 0; lane < 2; lane++)
		if (swap_lane(m, a, na, b, nb, HALF_A, lane) ||
		    swap_lane(m, b, nb, a, na, HALF_B, lane))
			return -1;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t r = m->nodes[i];
		for (int half = 0; half < 2; half++)
			if (!m->holds[r * 2 + half] &&
			    serve(m, m->nodes, n, r, half, !m->in_lane[r]))
				return -1;
	}
	return 0;
}

static int build_sites(struct ml *m, uint32_t sites)
{
	const struct lb_schedule *s = m->s;
	uint32_t first_site = lb_sites_find(m->site_first, s->ranks, sites, s->root);
	uint32_t *prev = malloc(((size_t)s->ranks + 1) * sizeof(*prev)), nprev = 0;
	if (!prev)
		return -1;
	int rc = 0;
	for (uint32_t i = 0; i < sites && rc == 0; i++) {
		uint32_t n = site_nodes(m, (first_site + i) % sites, sites);
		rc = build_site(m, n, prev, nprev);
		memcpy(prev, m->nodes, n * sizeof(*prev));
		nprev = n;
	}
	free(prev);
	return rc;
}

/* Physical lane for a send on a logical lane: the lanes of that parity in
 * turn (k = 1: lane 0 for both). */
static uint32_t physical_lane(struct ml *m, uint32_t src, int lane)
{
	uint32_t k = m->s->lanes;
	if (k == 1)
		return 0;
	uint32_t count = (k - (uint32_t)lane + 1) / 2;
	uint32_t *rr = &m->rr[src * 2 + lane];
	uint32_t phys = (uint32_t)lane + 2 * (*rr % count);
	*rr += 1;
	return phys;
}

/* Block by block, every edge: half A is blocks [0, ha), half B the rest. */
static int emit(struct ml *m)
{
	struct lb_schedule *s = m->s;
	uint32_t ha = (s->nblocks + 1) / 2, hb = s->nblocks - ha;
	for (uint32_t i = 0; i < ha; i++) {
		for (size_t j = 0; j < m->ne; j++) {
			const struct ml_edge *e = &m->e[j];
			if (e->half == HALF_B && i >= hb)
				continue;
			uint32_t blk = e->half == HALF_A ? i : ha + i;
			if (lb_sched_transfer(s, e->src, e->dst,
					      physical_lane(m, e->src, e->lane), blk, 1))
				return -1;
		}
	}
	return 0;
}

struct lb_schedule *lb_build_multilane(const struct lb_algo_params *prm)
{
	struct ml m = { .site_first = prm->sites > 1 ? prm->site_first : NULL };
	m.s = lb_sched_for(prm, "multilane",
			   lb_slice_count(prm->bytes, prm->slice_bytes));
	if (!m.s)
		return NULL;
	size_t p = prm->ranks;
	m.slot_free = malloc(p * 2);
	m.holds = calloc(p * 2, 1);
	m.in_lane = calloc(p, 1);
	m.nodes = calloc(p, sizeof(*m.nodes));
	m.rr = calloc(p * 2, sizeof(*m.rr));
	int rc = -1;
	if (m.slot_free && m.holds && m.in_lane && m.nodes && m.rr) {
		memset(m.slot_free, 1, p * 2);
		m.holds[prm->root * 2 + HALF_A] = m.holds[prm->root * 2 + HALF_B] = 1;
		rc = build_sites(&m, prm->sites ? prm->sites : 1);
		if (rc == 0)
			rc = emit(&m);
	}
	free(m.slot_free);
	free(m.holds);
	free(m.in_lane);
	free(m.nodes);
	free(m.rr);
	free(m.e);
	return rc ? lb_sched_abandon(m.s) : m.s;
}

/* Table 1: log p l + M / b. */
double lb_cost_multilane_table(const struct lb_cost_in *in)
{
	if (in->ranks <= 1)
		return 0;
	return log2(in->ranks) * in->latency + in->bytes / lb_rank_bw(in);
}

/* A half travels root -> tree (depth floor(log2 nA) + 1) -> one swap hop.
 * Each logical lane of a node carries one send per slice of its half:
 * with k = 1 both share one lane (twice the work and the hop time), with
 * k > 2 a logical lane spreads over floor(k / 2) or more physical lanes. */
double lb_cost_multilane_refined(const struct lb_cost_in *in)
{
	if (in->ranks <= 1)
		return 0;
	uint32_t na = in->ranks / 2; /* ceil((p - 1) / 2) */
	double depth = floor(log2(na)) + 1 + (in->ranks > 2);
	double k = in->lanes, hop = k == 1 ? 2 : 1;
	double work = k == 1 ? 2 : 1 / floor(k / 2);
	double half_slices = ceil(lb_slices(in) / 2);
	return (hop * depth + work * (half_slices - 1)) * lb_slice_time(in);
}

/* Not printed in section 6; derived from section 3.2: site 1's trees, the
 * WAN hop, site 2's trees, pipelined: 2 log p' l + L + M / b. */
double lb_cost_multilane_two_site(const struct lb_cost_in *in)
{
	if (in->ranks <= 1)
		return 0;
	return 2 * log2(lb_site_ranks(in)) * in->latency + in->wan_latency +
	       in->bytes / lb_rank_bw(in);
}
