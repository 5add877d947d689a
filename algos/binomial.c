/* binomial: relative rank v receives from v minus its lowest set bit and
 * sends to v + 2^j for every 2^j below that bit, largest subtree first.
 * Slices are forwarded as they arrive (segmented, as Open MPI does).
 * With sites (--sites, seed 003 section 6): the root first sends the
 * message to each other site's first rank, then each site runs the tree
 * (algos/sitetree.c). */
#include "build.h"
#include "cost.h"

/* Edges parents-first: breadth over masks from the top. */
size_t lb_binomial_edges(uint32_t p, struct lb_edge *e)
{
	size_t n = 0;
	uint32_t top = 1u << lb_ceil_log2(p);
	/* Breadth-first: the parents of a mask level were all reached by
	 * larger masks, so listing by decreasing mask keeps parents first;
	 * within a node, decreasing mask is largest subtree first. */
	for (uint32_t mask = top >> 1; mask >= 1; mask >>= 1) {
		for (uint32_t v = 0; v < p; v += mask * 2)
			if (v + mask < p)
				e[n++] = (struct lb_edge){ v, v + mask };
		if (mask == 1)
			break;
	}
	return n;
}

struct lb_schedule *lb_build_binomial(const struct lb_algo_params *prm)
{
	struct lb_schedule *s = lb_sched_for(prm, "binomial",
		lb_slice_count(prm->bytes, prm->slice_bytes));
	if (!s)
		return NULL;
	if (prm->sites > 1)
		return lb_emit_site_trees(s, prm, lb_binomial_edges) ? lb_sched_abandon(s) : s;
	struct lb_edge *e = calloc(prm->ranks, sizeof(*e));
	if (!e)
		return lb_sched_abandon(s);
	size_t n = lb_binomial_edges(prm->ranks, e);
	int rc = lb_emit_tree(s, e, n, prm->stripe_off);
	free(e);
	return rc ? lb_sched_abandon(s) : s;
}

/* Table 1: log p (l + M / b). */
double lb_cost_binomial_table(const struct lb_cost_in *in)
{
	if (in->ranks <= 1)
		return 0;
	return log2(in->ranks) * (in->latency + in->bytes / lb_rank_bw(in));
}

/* The root sends every slice to its ceil(log2 p) children; striped over k
 * lanes.  The last child is a leaf and gets the last slice last. */
double lb_cost_binomial_refined(const struct lb_cost_in *in)
{
	if (in->ranks <= 1)
		return 0;
	double c = lb_ceil_log2(in->ranks), k = lb_stripe_lanes(in);
	return (c / k * (lb_slices(in) - 1) + c) * lb_slice_time(in);
}

/* Section 6: L + M / b to site 2's representative, then log p' (l + M / b)
 * in each site. */
double lb_cost_binomial_two_site(const struct lb_cost_in *in)
{
	if (in->ranks <= 1)
		return 0;
	double mb = in->bytes / lb_rank_bw(in);
	return in->wan_latency + mb + log2(lb_site_ranks(in)) * (in->latency + mb);
}
