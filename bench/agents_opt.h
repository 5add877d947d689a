/* --agents auto|N for plan, sim and bcast: seed 001's cluster-agent
 * allgathers' agent count (struct lb_algo_params.agents; auto = 0,
 * resolved by model/agent_auto.h: the simulator's choice on a platform
 * with rates, else the planner's). */
#ifndef LB_AGENTS_OPT_H
#define LB_AGENTS_OPT_H

#include "cli.h"

/* The option's handler, its target a uint32_t; its show.  The row is
 * algo_opt.h's LB_ALGO_OPT_ROWS. */
int lb_cli_set_agents(void *target, const char *arg, char *err, size_t errlen);
void lb_cli_show_agents(const void *target, struct lb_buf *out);

#endif
