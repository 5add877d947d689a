/* -a auto's model: the homogeneous broadcasts ranked by predicted time for
 * one (ranks, lanes, message size) under a per-hop latency and a lane
 * bandwidth, each at the slice --slice auto would give it (model/slice_auto.h)
 * or at a fixed slice.  The prediction is the simulator's where the
 * schedule is within LB_SLICE_SIM_BUDGET ranks x blocks (exact for the
 * schedule), else the refined model's.  `lanebench tune` measures the top
 * of this ranking; `bcast -a auto` runs its first without a table. */
#ifndef LB_MODEL_ALGO_RANK_H
#define LB_MODEL_ALGO_RANK_H

#include <stddef.h>
#include <stdint.h>

#include "algos/algos.h"

/* One ranked candidate. */
struct lb_algo_cand {
	const struct lb_algo *algo;
	uint64_t slice;
	double seconds; /* predicted */
};

/* The registry's homogeneous broadcasts that can build prm (its
 * slice_bytes: a fixed slice, or LB_SLICE_AUTO for each one's own), fastest
 * first, into out (at most max); returns how many.  Deterministic: ranks
 * given the same figures rank alike (ties: registry order). */
size_t lb_algo_rank(const struct lb_algo_params *prm, double latency, double lane_bw,
		    struct lb_algo_cand *out, size_t max);

/* The predicted seconds of a with prm (its slice as given); NaN when a
 * cannot build it. */
double lb_algo_predict(const struct lb_algo *a, const struct lb_algo_params *prm, double latency,
		       double lane_bw);

#endif
