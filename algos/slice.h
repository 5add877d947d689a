/* Slice arithmetic for --slice auto: the marker that stands for the
 * choice in a list of slices, the candidate slices, and the slice of the
 * algorithms without a refined model.  The choice itself is
 * model/slice_auto.h's (the refined model's pick, moved by the simulator),
 * which engines call before anything is built. */
#ifndef LB_ALGOS_SLICE_H
#define LB_ALGOS_SLICE_H

#include <stddef.h>
#include <stdint.h>

#include "algos.h"

/* In a list of slice sizes: choose (model/slice_auto.h, lb_slice_auto).  No
 * slice is that large, and the builders never see it (the engines resolve
 * it first). */
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

#endif
