/* Seed 001's cluster-agent allgathers (algos/wu/agent_coll.c): the agent count
 * a builder uses, for the callers that report it. */
#ifndef LB_AGENT_COLL_H
#define LB_AGENT_COLL_H

#include "agent.h"
#include "algos/algos.h"

/* The model the builders plan on: prm->platform read at prm->bytes for a
 * schedule that cuts each message over prm->lanes lanes
 * (lb_agent_model_from_platform).  Returns 0 or -1. */
int lb_agent_model_of(const struct lb_algo_params *prm, struct lb_agent_model *md);

/* prm->agents, or when 0 (auto) the planner's choice on md (lb_agent_choose
 * with the fewest-clients tie rule and T_R(i, n)); 0 on no memory.  On a
 * platform with rates the callers (plan, sim, bcast) have set prm->agents
 * to the simulator's choice first (model/agent_auto.h: algos cannot run the
 * simulator), so auto reaches here only where the closed form decides. */
uint32_t lb_agent_count_of(const struct lb_agent_model *md, const struct lb_algo_params *prm,
			   enum lb_agent_algo algo);

/* algo's schedule ("cluster-agent-gb" or "-ts", not finalized) on a plan of
 * md, prm's ranks, lanes and bytes (0 allowed: the seed's T_end at 0
 * bytes): what the registry's builders make from the planner's plan, for a
 * caller with its own plan (another tie rule).  NULL on no memory. */
struct lb_schedule *lb_agent_schedule(const struct lb_algo_params *prm,
				      const struct lb_agent_model *md,
				      const struct lb_agent_plan *plan, enum lb_agent_algo algo);

#endif
