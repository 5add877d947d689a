/* Platform storage: a default link, sorted sparse rules, per-node values. */
#include "platform.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct lb_platform *lb_platform_new(uint32_t nodes, uint32_t lanes)
{
	if (nodes == 0 || lanes == 0 || lanes > 255)
		return NULL;
	struct lb_platform *pf = calloc(1, sizeof(*pf));
	if (!pf)
		return NULL;
	pf->node = calloc(nodes, sizeof(*pf->node));
	if (!pf->node) {
		free(pf);
		return NULL;
	}
	for (uint32_t i = 0; i < nodes; i++)
		pf->node[i].site = LB_PLATFORM_NO_SITE;
	pf->nodes = nodes;
	pf->lanes = lanes;
	pf->sealed = 1;
	return pf;
}

void lb_platform_free(struct lb_platform *pf)
{
	if (!pf)
		return;
	free(pf->node);
	free(pf->rule);
	free(pf->site);
	free(pf->wan);
	free(pf);
}

int lb_platform_set_link(struct lb_platform *pf, uint32_t u, uint32_t v,
			 uint32_t lane, unsigned fields, const struct lb_link *link)
{
	if (u >= pf->nodes || v >= pf->nodes || u == v ||
	    (lane != LB_PLATFORM_ALL_LANES && lane >= pf->lanes))
		return -1;
	if (pf->nrules == pf->rule_cap) {
		size_t cap = pf->rule_cap ? pf->rule_cap * 2 : 16;
		struct lb_link_rule *r = realloc(pf->rule, cap * sizeof(*r));
		if (!r)
			return -1;
		pf->rule = r;
		pf->rule_cap = cap;
	}
	pf->rule[pf->nrules++] = (struct lb_link_rule){
		.u = u, .v = v, .lane = lane, .fields = fields, .link = *link,
	};
	pf->sealed = 0;
	return 0;
}

/* The all-lanes rule sorts before the lane rules of its pair, so it is
 * applied first on lookup. */
static uint64_t lane_key(uint32_t lane)
{
	return lane == LB_PLATFORM_ALL_LANES ? 0 : (uint64_t)lane + 1;
}

static int rule_cmp(const void *pa, const void *pb)
{
	const struct lb_link_rule *a = pa, *b = pb;
	if (a->u != b->u)
		return a->u < b->u ? -1 : 1;
	if (a->v != b->v)
		return a->v < b->v ? -1 : 1;
	uint64_t la = lane_key(a->lane), lb = lane_key(b->lane);
	return la < lb ? -1 : la > lb;
}

static void apply(struct lb_link *to, unsigned fields, const struct lb_link *from)
{
	if (fields & LB_LINK_LAT)
		to->lat = from->lat;
	if (fields & LB_LINK_OCC)
		to->occ = from->occ;
	if (fields & LB_LINK_BW)
		to->bw = from->bw;
}

/* Rules of one key merge in the order they were set (later wins); qsort
 * is not stable, so it sorts indices with the set order as the last key. */
static int index_cmp(const void *pa, const void *pb, void *rules)
{
	const struct lb_link_rule *rule = rules;
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	int c = rule_cmp(&rule[a], &rule[b]);
	return c ? c : (a > b) - (a < b);
}

int lb_platform_seal(struct lb_platform *pf)
{
	size_t n = pf->nrules;
	size_t *idx = malloc((n ? n : 1) * sizeof(*idx));
	struct lb_link_rule *merged = malloc((n ? n : 1) * sizeof(*merged));
	if (!idx || !merged) {
		free(idx);
		free(merged);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	qsort_r(idx, n, sizeof(*idx), index_cmp, pf->rule);
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		const struct lb_link_rule *r = &pf->rule[idx[i]];
		if (m > 0 && rule_cmp(&merged[m - 1], r) == 0) {
			apply(&merged[m - 1].link, r->fields, &r->link);
			merged[m - 1].fields |= r->fields;
		} else {
			merged[m++] = *r;
		}
	}
	free(idx);
	free(pf->rule);
	pf->rule = merged;
	pf->nrules = m;
	pf->rule_cap = n ? n : 1;
	pf->sealed = 1;
	return 0;
}

/* Index of the first rule of pair (u, v), or nrules. */
static size_t first_rule(const struct lb_platform *pf, uint32_t u, uint32_t v)
{
	size_t lo = 0, hi = pf->nrules;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct lb_link_rule *r = &pf->rule[mid];
		if (r->u < u || (r->u == u && r->v < v))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static double cap(double bw, double rate)
{
	return rate > 0 && rate < bw ? rate : bw;
}

struct lb_link lb_platform_link(const struct lb_platform *pf, uint32_t u,
				uint32_t v, uint32_t lane)
{
	struct lb_link l = pf->dflt;
	for (size_t i = first_rule(pf, u, v); i < pf->nrules; i++) {
		const struct lb_link_rule *r = &pf->rule[i];
		if (r->u != u || r->v != v)
			break;
		if (r->lane == LB_PLATFORM_ALL_LANES || r->lane == lane)
			apply(&l, r->fields, &r->link);
	}
	if (l.bw > 0)
		l.bw = cap(cap(l.bw, pf->node[u].rate), pf->node[v].rate);
	return l;
}

double lb_platform_occupation(const struct lb_platform *pf, uint32_t u,
			      uint32_t v, uint32_t lane, uint64_t bytes)
{
	struct lb_link l = lb_platform_link(pf, u, v, lane);
	if (u == v || l.bw <= 0)
		return INFINITY;
	return l.occ + (double)bytes / l.bw;
}

/* Walks the directed edges of one lane, (u, v) ascending, storing them in
 * e when it is not NULL; returns how many.  With a default link every pair
 * is a candidate; without one only the pairs some rule names can be. */
static size_t walk_edges(const struct lb_platform *pf, uint32_t lane, struct lb_platform_edge *e)
{
	size_t n = 0;
	if (pf->dflt.bw > 0) {
		for (uint32_t u = 0; u < pf->nodes; u++)
			for (uint32_t v = 0; v < pf->nodes; v++)
				if (lb_platform_has_link(pf, u, v, lane)) {
					if (e)
						e[n] = (struct lb_platform_edge){ u, v };
					n++;
				}
		return n;
	}
	for (size_t i = 0; i < pf->nrules; i++) {
		const struct lb_link_rule *r = &pf->rule[i];
		int next_pair = i == 0 || pf->rule[i - 1].u != r->u || pf->rule[i - 1].v != r->v;
		if (next_pair && lb_platform_has_link(pf, r->u, r->v, lane)) {
			if (e)
				e[n] = (struct lb_platform_edge){ r->u, r->v };
			n++;
		}
	}
	return n;
}

size_t lb_platform_edge_count(const struct lb_platform *pf, uint32_t lane)
{
	return walk_edges(pf, lane, NULL);
}

int lb_platform_edges(const struct lb_platform *pf, uint32_t lane,
		      struct lb_platform_edge **out, size_t *count)
{
	size_t cap_edges = pf->dflt.bw > 0 ? (size_t)pf->nodes * (pf->nodes - 1)
					   : pf->nrules;
	struct lb_platform_edge *e = malloc((cap_edges ? cap_edges : 1) * sizeof(*e));
	if (!e)
		return -1;
	*out = e;
	*count = walk_edges(pf, lane, e);
	return 0;
}

int lb_platform_check_reachable(const struct lb_platform *pf, uint32_t root,
				uint32_t lane, char *err, size_t errlen)
{
	struct lb_platform_edge *e;
	size_t ne;
	uint32_t *queue = malloc((size_t)pf->nodes * sizeof(*queue));
	char *seen = calloc(pf->nodes, 1);
	if (!queue || !seen || lb_platform_edges(pf, lane, &e, &ne) != 0) {
		free(queue);
		free(seen);
		snprintf(err, errlen, "out of memory checking reachability");
		return -1;
	}
	/* Edges are sorted by u: the out-edges of u are one run from start[u]. */
	size_t *start = calloc((size_t)pf->nodes + 1, sizeof(*start));
	if (!start) {
		free(e);
		free(queue);
		free(seen);
		snprintf(err, errlen, "out of memory checking reachability");
		return -1;
	}
	for (size_t i = 0; i < ne; i++)
		start[e[i].u + 1]++;
	for (uint32_t u = 0; u < pf->nodes; u++)
		start[u + 1] += start[u];
	size_t head = 0, tail = 0;
	queue[tail++] = root;
	seen[root] = 1;
	while (head < tail) {
		uint32_t u = queue[head++];
		for (size_t i = start[u]; i < start[u + 1]; i++)
			if (!seen[e[i].v]) {
				seen[e[i].v] = 1;
				queue[tail++] = e[i].v;
			}
	}
	free(start);
	int rc = 0;
	for (uint32_t v = 0; v < pf->nodes && rc == 0; v++)
		if (!seen[v]) {
			snprintf(err, errlen, "node %u cannot be reached from node %u "
				 "on lane %u", v, root, lane);
			rc = -1;
		}
	free(e);
	free(queue);
	free(seen);
	return rc;
}
