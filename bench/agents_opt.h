/* --agents auto|N for plan, sim and bcast: seed 001's cluster-agent
 * allgathers' agent count (struct lb_algo_params.agents; auto = 0, the
 * planner's choice on the platform). */
#ifndef LB_AGENTS_OPT_H
#define LB_AGENTS_OPT_H

#include "cli.h"

/* The option row, its target a uint32_t at `offset`. */
#define LB_AGENTS_OPT(offset)                                                                 \
	{ LB_OPT("agents", 0, "auto|N", "seed 001's cluster-agent-gb/-ts: N agents (the N fastest nodes of the --platform by their send overhead, plus m / (k x rate) where a node has a rate), or auto: the count of least modelled time (SPEC 4.4)", \
		 LB_OPT_HANDLER, (offset)), .def = "auto", .handler = lb_cli_set_agents,   \
	  .show = lb_cli_show_agents }

int lb_cli_set_agents(void *target, const char *arg, char *err, size_t errlen);
void lb_cli_show_agents(const void *target, struct lb_buf *out);

#endif
