/* --agents auto for seed 001's cluster-agent allgathers (algos/wu/agent_coll.h)
 * on a platform whose nodes have NIC caps: the agent count whose plan the
 * simulator finishes first.
 *
 * Why not the closed form of the planner (docs/papers.md#seed001-planner)
 * there: like the seed, it charges every
 * message one contribution's bytes, where a client's result carries p - 1,
 * and adds a node's send-cap time to its receive-cap time, which the NIC
 * overlaps; on scripts/bench-allgather's platform (4 fast + 4 slow-by-rate
 * nodes, 2 lanes) it picked 2 agents, which LogP, bounded and fluid all put
 * 1.25-2.07 x slower than 8 (docs/benchmarks/bench-allgather.md).  Building and
 * simulating a plan costs milliseconds at these sizes, so every count is
 * tried: the plan of m agents (the planner's, fewest-clients ties) for m =
 * 1 .. p, each simulated in the LogP mode on the platform -- the model
 * `sim` and `bcast` predict cluster-agent-gb/-ts with (engine/coll.h's
 * --sim-model auto, a->sim_logp) -- and the fastest taken, a tie (relative
 * 1e-9, lb_agent_cost_tie) to the fewer agents.
 *
 * Without rates the closed form stays exactly (seed 001's workstations
 * differ in CPU overheads, the model it was written for: `repro seed001`),
 * and so it does beyond LB_AGENT_AUTO_SIM_MAX nodes.
 *
 * Here, not in algos/, because algos may not call the simulator; the
 * callers that build plans (plan's, sim's and bcast's parameters) resolve
 * prm->agents with lb_agent_auto before building, as they resolve
 * --slice auto with model/slice_auto.h. */
#ifndef LB_MODEL_AGENT_AUTO_H
#define LB_MODEL_AGENT_AUTO_H

#include <stdint.h>

#include "algos/algos.h"

/* Nodes up to which auto simulates every count: p plans of O(p^2 k) ops. */
#define LB_AGENT_AUTO_SIM_MAX 64u

/* 1 when auto is settled by the simulator for a and prm: a takes --agents
 * (seed 001's), prm->agents is 0 (auto), prm->platform gives some node a
 * rate, and prm->ranks is 1 .. LB_AGENT_AUTO_SIM_MAX. */
int lb_agent_auto_simulated(const struct lb_algo *a, const struct lb_algo_params *prm);

/* The agent count a builder should take for prm: prm->agents where that
 * is not simulated (the count given, or 0: the closed form's choice,
 * algos/wu/agent_coll.h), else the count of least LogP time as above, its
 * simulated seconds in *seconds (may be NULL; NaN when not simulated).
 * Deterministic: ranks given the same platform choose alike.  A count
 * whose plan cannot be built or simulated is no candidate; with none, 0
 * (the builder then reports why). */
uint32_t lb_agent_auto(const struct lb_algo *a, const struct lb_algo_params *prm,
		       double *seconds);

#endif
