/* What every mode of the simulator shares -- the event simulator (sim.c
 * and its parts, sim_private.h) and the LogP mode (sim_logp.c) -- and
 * nothing that calls either: times compared without a library call, a
 * run's result from its arrival times, and the NIC caps' rule. */
#ifndef LB_SIM_SHARED_H
#define LB_SIM_SHARED_H

#include <stddef.h>
#include <stdint.h>

#include "sim.h"

/* Times are never NaN (check_net), so a comparison does what fmax and
 * fmin do, without the library call they compile to. */
static inline double later(double a, double b)
{
	return a < b ? b : a;
}

static inline double earlier(double a, double b)
{
	return b < a ? b : a;
}

/* The result from the arrival times ([rank * nblocks + block], INFINITY =
 * never): each rank's completion, the makespan (at least `released`, the
 * last barrier's release) and the slowest rank's period; sorts that rank's
 * row.  0, or -1 naming a rank that never got every block it wants. */
int lb_sim_collect(const struct lb_schedule *s, double *arrival, double released,
		   struct lb_sim_result *res, char *err, size_t len);

/* Where rank r's arrival times are: *from, and how many (the caller's
 * layout: a plain array, or sim_cells.c's segments). */
typedef size_t (*lb_sim_rank_span)(const void *ctx, uint32_t r, size_t *from);

/* The makespan from arrival times laid out as span says: each rank's
 * completion into res (rank_done when given), res->seconds at least
 * `released`, and *slowest, the rank that finished last among those that
 * want blocks.  0, or -1 naming a rank that never got every block. */
int lb_sim_makespan(const struct lb_schedule *s, const double *arrival, lb_sim_rank_span span,
		    const void *ctx, double released, struct lb_sim_result *res, uint32_t *slowest,
		    char *err, size_t len);

/* When rank r held the blocks it must end with, from its n arrival times
 * (a rank that wants none: its last arrival), or INFINITY when one never
 * came. */
double lb_sim_rank_done(const struct lb_schedule *s, const double *arr, size_t n, uint32_t r);

/* The steady state at one rank: the time between its arrivals over the
 * second half of them, (t_S - t_h) / (S - h) with h = ceil(S / 2) and t_k
 * its k-th arrival in time (block k for a schedule that sends in order;
 * in time order, stripes over lanes count the same way).  Sorts row,
 * which the run no longer needs. */
double lb_sim_steady_period(double *row, uint32_t n);

/* A NIC cap (bounded and LogP): a transfer's bytes take their turn through
 * a cap of `rate` bytes/s (0: none) free at *cap_free, from `start`;
 * returns when they are through (start without a cap).  Inline: the
 * bounded model takes two turns per event. */
static inline double lb_sim_through_cap(double *cap_free, double start, uint64_t bytes,
					double rate)
{
	if (!(rate > 0))
		return start;
	*cap_free = later(start, *cap_free) + (double)bytes / rate;
	return *cap_free;
}

#endif
