/* --agents auto by the simulator; see agent_auto.h. */
#include "agent_auto.h"

#include <math.h>

#include "algos/wu/agent.h"
#include "sim.h"

static int has_rates(const struct lb_platform *pf)
{
	for (uint32_t u = 0; u < pf->nodes; u++)
		if (pf->node[u].rate > 0)
			return 1;
	return 0;
}

int lb_agent_auto_simulated(const struct lb_algo *a, const struct lb_algo_params *prm)
{
	return (a->takes & LB_TAKES_AGENTS) && prm->agents == 0 && prm->platform &&
	       has_rates(prm->platform) && prm->ranks >= 1 && prm->ranks <= LB_AGENT_AUTO_SIM_MAX;
}

/* LogP seconds of the plan of m agents; NaN when it cannot be built or run. */
static double logp_seconds(const struct lb_algo *a, struct lb_algo_params prm, uint32_t m)
{
	struct lb_sim_net net = { .platform = prm.platform, .model = LB_PORT_LOGP };
	struct lb_sim_result res = { 0 };
	char why[256]; /* unused: a count that cannot run is no candidate */
	prm.agents = m;
	struct lb_schedule *s = lb_algo_build(a, &prm, why, sizeof(why));
	if (!s || lb_sim_run_free(s, &net, &res, why, sizeof(why)))
		return NAN;
	return res.seconds;
}

uint32_t lb_agent_auto(const struct lb_algo *a, const struct lb_algo_params *prm,
		       double *seconds)
{
	uint32_t best = 0;
	double best_t = NAN;
	if (lb_agent_auto_simulated(a, prm))
		for (uint32_t m = 1; m <= prm->ranks; m++) {
			double t = logp_seconds(a, *prm, m);
			/* fewer agents first: a later count must be faster, not tie */
			if (!isnan(t) && (!best || (t < best_t && !lb_agent_cost_tie(t, best_t))))
				best = m, best_t = t;
		}
	if (seconds)
		*seconds = best_t;
	return best ? best : prm->agents;
}
