/* -a auto's model; see algo_rank.h. */
#include "algo_rank.h"

#include <math.h>

#include "algos/slice.h"
#include "sim.h"
#include "slice_auto.h"

/* The simulator's seconds for prm, or NaN when it cannot run it. */
static double simulated(const struct lb_algo *a, const struct lb_algo_params *prm,
			double latency, double lane_bw)
{
	struct lb_sim_net net = { .alpha = latency, .lane_bw = lane_bw };
	struct lb_sim_result res = { 0 };
	char why[256]; /* a candidate that cannot run is no candidate */
	struct lb_schedule *s = lb_algo_build(a, prm, why, sizeof(why));
	if (!s)
		return NAN;
	return lb_sim_run_free(s, &net, &res, why, sizeof(why)) ? NAN : res.seconds;
}

double lb_algo_predict(const struct lb_algo *a, const struct lb_algo_params *prm, double latency,
		       double lane_bw)
{
	struct lb_sched_estimate e;
	if (lb_algo_check(a, prm, NULL, 0))
		return NAN;
	lb_algo_estimate(a, prm, 0, &e);
	if (lb_mul_sat(prm->ranks, e.blocks) <= LB_SLICE_SIM_BUDGET || !a->cost_refined)
		return simulated(a, prm, latency, lane_bw);
	const struct lb_cost_in in = {
		.ranks = prm->ranks, .lanes = prm->lanes, .bytes = prm->bytes,
		.slice_bytes = prm->slice_bytes, .latency = latency, .lane_bw = lane_bw,
		.sites = prm->sites, .allgather = prm->allgather, .stripe_off = prm->stripe_off,
	};
	return a->cost_refined(&in);
}

/* Inserts c into out[0..n) kept fastest first (a tie goes after). */
static size_t insert(struct lb_algo_cand *out, size_t n, size_t max, struct lb_algo_cand c)
{
	size_t at = n;
	while (at > 0 && c.seconds < out[at - 1].seconds)
		at--;
	if (at >= max)
		return n;
	for (size_t j = n < max ? n : max - 1; j > at; j--)
		out[j] = out[j - 1];
	out[at] = c;
	return n < max ? n + 1 : n;
}

size_t lb_algo_rank(const struct lb_algo_params *prm, double latency, double lane_bw,
		    struct lb_algo_cand *out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; max && i < lb_nalgos; i++) {
		const struct lb_algo *a = &lb_algos[i];
		struct lb_algo_params p = *prm;
		p.slice_bytes = prm->bytes; /* buildable whole first: lb_slice_auto's premise */
		if (!lb_algo_homogeneous_bcast(a) || lb_algo_check(a, &p, NULL, 0))
			continue;
		p.slice_bytes = prm->slice_bytes == LB_SLICE_AUTO
			? lb_slice_auto(a, &p, latency, lane_bw) : prm->slice_bytes;
		double t = lb_algo_predict(a, &p, latency, lane_bw);
		if (!isnan(t))
			n = insert(out, n, max, (struct lb_algo_cand){ a, p.slice_bytes, t });
	}
	return n;
}
