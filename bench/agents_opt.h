/* --agents auto|N for plan, sim and bcast: seed 001's cluster-agent
 * allgathers' agent count (struct lb_algo_params.agents; auto = 0,
 * resolved by model/agent_auto.h: the simulator's choice on a platform
 * with rates, else the planner's). */
#ifndef LB_AGENTS_OPT_H
#define LB_AGENTS_OPT_H

#include "cli.h"

/* The option row, its target a uint32_t at `offset`. */
#define LB_AGENTS_OPT(offset)                                                                 \
	{ LB_OPT("agents", 0, "auto|N", "Wu's cluster-agent-gb/-ts (seed 001): N agents (the N fastest nodes of the --platform by their send overhead, plus m / (k x rate) where a node has a rate), or auto: where the --platform gives nodes a rate, the count 1..p whose plan the LogP simulation (sim --model logp; bcast predicts them with it) finishes first, a tie to fewer agents (up to 64 nodes); without rates or beyond the count of least closed-form T_all (seed 001's model, Wu's Cluster Agents)", \
		 LB_OPT_HANDLER, (offset)), .def = "auto", .handler = lb_cli_set_agents,   \
	  .show = lb_cli_show_agents }

int lb_cli_set_agents(void *target, const char *arg, char *err, size_t errlen);
void lb_cli_show_agents(const void *target, struct lb_buf *out);

#endif
