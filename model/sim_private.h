/* What the simulator's modes share inside model/ (sim.c, sim_logp.c). */
#ifndef LB_SIM_PRIVATE_H
#define LB_SIM_PRIVATE_H

#include "sim.h"

/* The result from the arrival times ([rank * nblocks + block], INFINITY =
 * never): each rank's completion, the makespan (at least `released`, the
 * last barrier's release) and the slowest rank's period; sorts that rank's
 * row.  0, or -1 naming a rank that never got every block it wants. */
int lb_sim_collect(const struct lb_schedule *s, double *arrival, double released,
		   struct lb_sim_result *res, char *err, size_t len);

/* A NIC cap (bounded and LogP): a transfer's bytes take their turn through
 * a cap of `rate` bytes/s (0: none) free at *cap_free, from `start`;
 * returns when they are through (start without a cap). */
double lb_sim_through_cap(double *cap_free, double start, uint64_t bytes, double rate);

/* The LogP mode (LB_PORT_LOGP) on net->platform: s finalized, the net
 * checked. */
int lb_sim_logp(const struct lb_schedule *s, const struct lb_sim_net *net,
		struct lb_sim_result *res, char *err, size_t errlen);

#endif
