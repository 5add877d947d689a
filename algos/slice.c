/* --slice auto, the refined model's choice; see slice.h. */
#include "slice.h"

size_t lb_slice_candidates(uint64_t bytes, uint64_t out[LB_SLICE_CANDIDATES_MAX])
{
	size_t n = 0;
	for (uint64_t c = LB_SLICE_AUTO_FLOOR; c < bytes; c *= 2) {
		out[n++] = c;
		if (c > UINT64_MAX / 2)
			break;
	}
	out[n++] = bytes;
	return n;
}

/* The refined model of a with prm cut into slices of `slice` bytes. */
static double refined(const struct lb_algo *a, const struct lb_algo_params *prm, uint64_t slice,
		      double latency, double lane_bw)
{
	const struct lb_cost_in in = {
		.ranks = prm->ranks, .lanes = prm->lanes, .bytes = prm->bytes,
		.slice_bytes = slice, .latency = latency, .lane_bw = lane_bw,
		.sites = prm->sites, .allgather = prm->allgather,
		.stripe_off = prm->stripe_off,
	};
	return a->cost_refined(&in);
}

uint64_t lb_slice_refined(const struct lb_algo *a, const struct lb_algo_params *prm,
			  double latency, double lane_bw)
{
	uint64_t cand[LB_SLICE_CANDIDATES_MAX], best = prm->bytes;
	if (!a->cost_refined)
		return prm->bytes < LB_SLICE_PLATFORM ? prm->bytes : LB_SLICE_PLATFORM;
	size_t n = lb_slice_candidates(prm->bytes, cand);
	double best_time = refined(a, prm, best, latency, lane_bw);
	for (size_t i = n - 1; i-- > 0;) { /* largest first: ties keep the larger */
		struct lb_algo_params p = *prm;
		p.slice_bytes = cand[i];
		if (lb_algo_check(a, &p, NULL, 0))
			continue; /* too many blocks for this algorithm */
		double t = refined(a, prm, cand[i], latency, lane_bw);
		if (t < best_time) {
			best_time = t;
			best = cand[i];
		}
	}
	return best;
}
