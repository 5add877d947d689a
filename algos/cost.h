/* Shared terms of the closed-form models (internal to algos/). */
#ifndef LB_COST_H
#define LB_COST_H

#include <math.h>

#include "algos.h"

/* Per-rank bandwidth b = k x lane bandwidth (seed 003: aggregated NICs). */
static inline double lb_rank_bw(const struct lb_cost_in *in)
{
	return in->lanes * in->lane_bw;
}

/* Lanes a single-lane algorithm spreads its slices over. */
static inline double lb_stripe_lanes(const struct lb_cost_in *in)
{
	return in->stripe_off ? 1.0 : in->lanes;
}

/* Slices of the pipelined algorithms and the time of one slice on one lane. */
static inline double lb_slices(const struct lb_cost_in *in)
{
	return lb_slice_count(in->bytes, in->slice_bytes);
}

static inline double lb_slice_time(const struct lb_cost_in *in)
{
	return in->latency + (double)in->bytes / lb_slices(in) / in->lane_bw;
}

/* Nodes per site p' of the two-site forms. */
static inline double lb_site_ranks(const struct lb_cost_in *in)
{
	return in->sites > 1 ? (double)in->ranks / in->sites : in->ranks;
}

#endif
