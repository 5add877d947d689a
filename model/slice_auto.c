/* --slice auto, the choice: the refined model's pick, moved by the
 * simulator where simulating is cheap; see slice_auto.h. */
#include "slice_auto.h"

#include <math.h>

#include "sim.h"

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

/* Ranks x blocks of prm cut into `slice`, or 0 when a cannot build it. */
static uint64_t sim_work(const struct lb_algo *a, struct lb_algo_params prm, uint64_t slice)
{
	struct lb_sched_estimate e;
	prm.slice_bytes = slice;
	if (lb_algo_check(a, &prm, NULL, 0))
		return 0;
	lb_algo_estimate(a, &prm, 0, &e);
	return lb_mul_sat(prm.ranks, e.blocks);
}

/* Simulated seconds of prm cut into `slice`; NaN when it cannot run. */
static double sim_seconds(const struct lb_algo *a, struct lb_algo_params prm, uint64_t slice,
			  double latency, double lane_bw)
{
	struct lb_sim_net net = { .alpha = latency, .lane_bw = lane_bw };
	struct lb_sim_result res = { 0 };
	char why[256]; /* unused: a candidate that cannot run is no candidate */
	prm.slice_bytes = slice;
	struct lb_schedule *s = lb_algo_build(a, &prm, why, sizeof(why));
	int rc = s ? lb_sim_run(s, &net, &res, why, sizeof(why)) : -1;
	lb_sched_free(s);
	return rc ? NAN : res.seconds;
}

/* Relative margin a candidate must win by: the simulator and the refined
 * model agree to rounding where the model is exact, and there its pick stays. */
#define WIN_MARGIN 1e-9

struct climb {
	const struct lb_algo *a;
	const struct lb_algo_params *prm;
	double latency, lane_bw;
	uint64_t cand[LB_SLICE_CANDIDATES_MAX];
	size_t n;
};

/* From candidate i (simulated: *best seconds), steps of dir (+1: larger
 * slices) while the next candidate is within the budget and simulates
 * faster; returns where it stopped. */
static size_t climb(const struct climb *c, size_t i, int dir, double *best)
{
	for (size_t j = i + dir; j < c->n; i = j, j += dir) { /* j wraps past 0: ends */
		uint64_t w = sim_work(c->a, *c->prm, c->cand[j]);
		if (w == 0 || w > LB_SLICE_SIM_BUDGET)
			break;
		double t = sim_seconds(c->a, *c->prm, c->cand[j], c->latency, c->lane_bw);
		if (!(t < *best * (1 - WIN_MARGIN)))
			break;
		*best = t;
	}
	return i;
}

uint64_t lb_slice_auto(const struct lb_algo *a, const struct lb_algo_params *prm,
		       double latency, double lane_bw)
{
	struct climb c = { a, prm, latency, lane_bw, { 0 }, 0 };
	uint64_t pick = lb_slice_refined(a, prm, latency, lane_bw);
	if (!a->cost_refined) /* no model: LB_SLICE_PLATFORM, nothing to simulate */
		return pick;
	uint64_t work = sim_work(a, *prm, pick);
	if (work == 0 || work > LB_SLICE_SIM_BUDGET)
		return pick;
	c.n = lb_slice_candidates(prm->bytes, c.cand);
	size_t i = 0;
	while (c.cand[i] != pick)
		i++;
	double best = sim_seconds(a, *prm, pick, latency, lane_bw);
	if (isnan(best))
		return pick;
	size_t up = climb(&c, i, +1, &best); /* larger first: ties keep the larger */
	return c.cand[up != i ? up : climb(&c, i, -1, &best)];
}
