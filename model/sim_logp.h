/* The simulator's LogP mode (sim_logp.c), for the entry points in sim.c:
 * it shares sim_shared.h with the event simulator and calls nothing of
 * it. */
#ifndef LB_SIM_LOGP_H
#define LB_SIM_LOGP_H

#include <stddef.h>

#include "sim.h"

/* The LogP mode (LB_PORT_LOGP) on net->platform: s finalized, the net
 * checked. */
int lb_sim_logp(const struct lb_schedule *s, const struct lb_sim_net *net,
		struct lb_sim_result *res, char *err, size_t errlen);

#endif
