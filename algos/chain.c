/* chain: rank v forwards every slice to v + 1 as soon as it has it
 * (pipelined), so the message streams along a line of p ranks. */
#include "build.h"
#include "cost.h"

struct lb_schedule *lb_build_chain(const struct lb_algo_params *prm)
{
	struct lb_schedule *s = lb_sched_for(prm, "chain",
		lb_slice_count(prm->bytes, prm->slice_bytes));
	if (!s)
		return NULL;
	uint32_t n = prm->ranks - 1;
	struct lb_edge *e = calloc(n + 1, sizeof(*e));
	if (!e)
		return lb_sched_abandon(s);
	for (uint32_t v = 0; v < n; v++)
		e[v] = (struct lb_edge){ v, v + 1 };
	int rc = lb_emit_tree(s, e, n, prm->stripe_off);
	free(e);
	return rc ? lb_sched_abandon(s) : s;
}

/* Table 1: (p - 1) l + M / b. */
double lb_cost_chain_table(const struct lb_cost_in *in)
{
	if (in->ranks <= 1)
		return 0;
	return (in->ranks - 1) * in->latency + in->bytes / lb_rank_bw(in);
}

/* Each lane pipelines its share of the S slices through p - 1 hops:
 * (p - 2 + ceil(S / k)) (l + s / B).  Exact in the simulator. */
double lb_cost_chain_refined(const struct lb_cost_in *in)
{
	if (in->ranks <= 1)
		return 0;
	double per_lane = ceil(lb_slices(in) / lb_stripe_lanes(in));
	return (in->ranks - 2 + per_lane) * lb_slice_time(in);
}

/* Section 6, two sites of p' nodes, as printed: (p' - 1) l + L + M / b.
 * (A chain through both sites has 2p' - 2 local hops; the paper's form
 * counts p' - 1.  Kept as printed; the refined form counts every hop.) */
double lb_cost_chain_two_site(const struct lb_cost_in *in)
{
	if (in->ranks <= 1)
		return 0;
	return (lb_site_ranks(in) - 1) * in->latency + in->wan_latency +
	       in->bytes / lb_rank_bw(in);
}
