/* --slice auto, the one place that chooses: for one (algorithm, ranks,
 * lanes, message size) the slice the broadcast is fastest with, under a
 * per-hop latency and a lane bandwidth, among the candidates of
 * algos/slice.h (the slice arithmetic).  The refined model picks
 * (lb_slice_refined: microseconds for any rank count).  It is exact only
 * for the chain and full binary and multi-lane trees, so where simulating
 * is cheap -- the pick's schedule within LB_SLICE_SIM_BUDGET ranks x
 * blocks -- the simulator, exact for the schedule, moves it to a
 * neighbouring candidate (twice or half the slice) while that is faster
 * and within the budget: a few simulations per choice.  Beyond the budget
 * the refined pick stands: simulating would cost seconds for every row of
 * a sweep (docs/DESIGN.md, "Choosing the slice", gives the figures). */
#ifndef LB_MODEL_SLICE_AUTO_H
#define LB_MODEL_SLICE_AUTO_H

#include <stdint.h>

#include "algos/slice.h"

/* Ranks x blocks a candidate's schedule may have to be simulated: about
 * 10 ms of simulation each on this project's 2-core machine. */
#define LB_SLICE_SIM_BUDGET (1u << 16)

/* The candidate that minimises a->cost_refined for prm (its slice_bytes
 * ignored) with per-hop latency `latency` seconds and `lane_bw` bytes/s per
 * lane; candidates a cannot build (too many blocks) are skipped, and a tie
 * goes to the larger slice (fewer messages for the same predicted time).
 * prm must be buildable with one slice (lb_algo_check); then the result is
 * always a slice a builds.  An algorithm with no refined model gets
 * LB_SLICE_PLATFORM (capped at the message).  lb_slice_auto's first step,
 * and on its own the choice estimates use (it simulates nothing). */
uint64_t lb_slice_refined(const struct lb_algo *a, const struct lb_algo_params *prm,
			  double latency, double lane_bw);

/* The slice for prm (its slice_bytes ignored): the refined model's pick,
 * moved by the simulator as above (a tie keeps the larger slice).  Always
 * a candidate a builds when it builds prm with one slice; either the
 * refined pick or a schedule within the budget (what a memory estimate
 * needs to know); deterministic, so ranks given the same figures choose
 * alike. */
uint64_t lb_slice_auto(const struct lb_algo *a, const struct lb_algo_params *prm,
		       double latency, double lane_bw);

#endif
