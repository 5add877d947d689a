/* Site-aware trees (seed 003 section 6; docs/papers.md#seed003-sites): "the
 * root node sends a message to one of nodes (representative node) in the second
 * site. While the representative node is receiving the message, it starts the
 * binary tree algorithm as usual. In the first site, after the root node
 * finishes the transmission to the second site, it starts the binary tree
 * algorithm" -- and the binomial tree likewise.
 *
 * Here: the representative of a site is its first rank (the root in the
 * root's own site).  The root sends the whole message to each other site's
 * representative in turn (site order after its own), then every site runs
 * the tree on its ranks (positions 0 .. n-1, 0 = the representative, the
 * root's site rotated so that the root is 0), pipelined block by block.
 * So exactly one edge joins the root's site to each other site, and the
 * WAN carries the message once per site. */
#include "build.h"
#include "sites.h"

/* The absolute ranks of site i, its representative (or the root) first. */
static uint32_t site_ranks(const struct lb_schedule *s, const struct lb_algo_params *prm,
			   uint32_t i, uint32_t *out)
{
	uint32_t first = lb_sites_start(prm->site_first, s->ranks, prm->sites, i);
	uint32_t n = lb_sites_start(prm->site_first, s->ranks, prm->sites, i + 1) - first;
	uint32_t start = s->root >= first && s->root < first + n ? s->root - first : 0;
	for (uint32_t j = 0; j < n; j++)
		out[j] = first + (start + j) % n;
	return n;
}

/* Every site's tree as absolute edges, parents first; returns the count. */
static size_t site_tree_edges(const struct lb_schedule *s, const struct lb_algo_params *prm,
			      lb_tree_edges_fn tree, uint32_t *ranks, struct lb_edge *pos,
			      struct lb_edge *out)
{
	size_t total = 0;
	for (uint32_t i = 0; i < prm->sites; i++) {
		uint32_t n = site_ranks(s, prm, i, ranks);
		size_t ne = tree(n, pos);
		for (size_t e = 0; e < ne; e++)
			out[total++] = (struct lb_edge){ ranks[pos[e].src], ranks[pos[e].dst] };
	}
	return total;
}

/* The root's whole message to every other site's representative, then
 * the trees block by block. */
static int emit_site_trees(struct lb_schedule *s, const struct lb_algo_params *prm,
			   const struct lb_edge *edges, size_t nedges)
{
	struct lb_striper st;
	if (lb_striper_init(&st, s, prm->stripe_off))
		return -1;
	uint32_t home = lb_sites_find(prm->site_first, s->ranks, prm->sites, s->root);
	int rc = 0;
	for (uint32_t k = 1; k < prm->sites && rc == 0; k++) {
		uint32_t rep = lb_sites_start(prm->site_first, s->ranks, prm->sites,
					      (home + k) % prm->sites);
		rc = lb_emit_blocks(s, &st, s->root, rep, 0, s->nblocks);
	}
	for (uint32_t b = 0; b < s->nblocks && rc == 0; b++)
		for (size_t e = 0; e < nedges && rc == 0; e++)
			rc = lb_emit_blocks(s, &st, edges[e].src, edges[e].dst, b, 1);
	lb_striper_free(&st);
	return rc;
}

int lb_emit_site_trees(struct lb_schedule *s, const struct lb_algo_params *prm,
		       lb_tree_edges_fn tree)
{
	uint32_t *ranks = malloc((size_t)s->ranks * sizeof(*ranks));
	struct lb_edge *pos = calloc(s->ranks, sizeof(*pos));
	struct lb_edge *edges = calloc(s->ranks, sizeof(*edges));
	int rc = -1;
	if (ranks && pos && edges)
		rc = emit_site_trees(s, prm, edges,
				     site_tree_edges(s, prm, tree, ranks, pos, edges));
	free(ranks);
	free(pos);
	free(edges);
	return rc;
}
