/* --slice auto, its model part: the candidate slices, and for one
 * (algorithm, ranks, lanes, message size) the candidate that minimises the
 * algorithm's refined model (its cost_refined, which counts the pipeline's
 * fill and one latency per slice per hop) under a per-hop latency and lane
 * bandwidth.  model/slice.h settles small cases with the simulator. */
#ifndef LB_ALGOS_SLICE_H
#define LB_ALGOS_SLICE_H

#include <stddef.h>
#include <stdint.h>

#include "algos.h"

/* In a list of slice sizes: choose (model/slice.h, lb_slice_auto).  No slice is that
 * large, and the builders never see it (the engines resolve it first). */
#define LB_SLICE_AUTO UINT64_MAX

/* The smallest candidate: below 1 KiB a slice is all per-message cost on
 * every transport (an Ethernet frame's payload is 1.5 KB). */
#define LB_SLICE_AUTO_FLOOR 1024

/* Candidates are at most 1 KiB, 2 KiB, ... 2^63 and M: 55 values. */
#define LB_SLICE_CANDIDATES_MAX 64

/* The candidates for a message of `bytes`: the powers of two from
 * LB_SLICE_AUTO_FLOOR below bytes, then bytes itself (one slice), in
 * increasing order; returns their count (>= 1). */
size_t lb_slice_candidates(uint64_t bytes, uint64_t out[LB_SLICE_CANDIDATES_MAX]);

/* Seed 000's slice for the platform algorithms, which have no refined
 * model (cost_refined NULL): the paper's 1 MB slice, 1 MiB here (or the
 * whole message when smaller); --slice auto picks it for them. */
#define LB_SLICE_PLATFORM (1u << 20)

/* The candidate that minimises a->cost_refined for prm (its slice_bytes
 * ignored) with per-hop latency `latency` seconds and `lane_bw` bytes/s per
 * lane; candidates a cannot build (too many blocks) are skipped, and a tie
 * goes to the larger slice (fewer messages for the same predicted time).
 * prm must be buildable with one slice (lb_algo_check); then the result is
 * always a slice a builds.  An algorithm with no refined model gets
 * LB_SLICE_PLATFORM (capped at the message). */
uint64_t lb_slice_refined(const struct lb_algo *a, const struct lb_algo_params *prm,
			  double latency, double lane_bw);

#endif
