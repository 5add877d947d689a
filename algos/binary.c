/* binary: heap-ordered binary tree on relative ranks (children of v are
 * 2v + 1 and 2v + 2), every slice forwarded to both children (pipelined).
 * With sites (--sites, seed 003 section 6): the root first sends the
 * message to each other site's first rank, then each site runs the tree
 * (algos/sitetree.c). */
#include "build.h"
#include "cost.h"

size_t lb_binary_edges(uint32_t n, struct lb_edge *e)
{
	for (uint32_t c = 1; c < n; c++)
		e[c - 1] = (struct lb_edge){ (c - 1) / 2, c };
	return n ? n - 1 : 0;
}

struct lb_schedule *lb_build_binary(const struct lb_algo_params *prm)
{
	struct lb_schedule *s = lb_sched_for(prm, "binary",
		lb_slice_count(prm->bytes, prm->slice_bytes));
	if (!s)
		return NULL;
	if (prm->sites > 1)
		return lb_emit_site_trees(s, prm, lb_binary_edges) ? lb_sched_abandon(s) : s;
	struct lb_edge *e = calloc(prm->ranks, sizeof(*e));
	if (!e)
		return lb_sched_abandon(s);
	int rc = lb_emit_tree(s, e, lb_binary_edges(prm->ranks, e), prm->stripe_off);
	free(e);
	return rc ? lb_sched_abandon(s) : s;
}

/* Table 1: log p l + 2 M / b. */
double lb_cost_binary_table(const struct lb_cost_in *in)
{
	if (in->ranks <= 1)
		return 0;
	return log2(in->ranks) * in->latency + 2.0 * in->bytes / lb_rank_bw(in);
}

/* Depth d = floor(log2 p).  Every node sends each slice twice; striped over
 * k lanes that is 2 / k slice times per slice, and with two or more lanes
 * both children are served at once, so the first slice needs one slice time
 * per hop (two with one lane). */
double lb_cost_binary_refined(const struct lb_cost_in *in)
{
	if (in->ranks <= 1)
		return 0;
	double k = lb_stripe_lanes(in);
	double depth = floor(log2(in->ranks));
	double hop = k >= 2 ? 1 : 2;
	return (hop * depth + 2.0 / k * (lb_slices(in) - 1)) * lb_slice_time(in);
}

/* Section 6: the root first sends M to a representative of site 2, then
 * both sites run the tree: log p' l + L + 3 M / b. */
double lb_cost_binary_two_site(const struct lb_cost_in *in)
{
	if (in->ranks <= 1)
		return 0;
	return log2(lb_site_ranks(in)) * in->latency + in->wan_latency +
	       3.0 * in->bytes / lb_rank_bw(in);
}
