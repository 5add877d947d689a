/* Seed 001's all-to-all broadcasts as per-rank ordered op lists
 * (docs/papers.md#seed001-framework): Gather-Broadcast and Two-Step on a
 * plan of algos/wu/agent.h, and the simultaneous broadcast (every rank sends its
 * block to every other).  algos/wu/agent_coll.c turns the first two into the
 * registry's allgather schedules cluster-agent-gb and -ts (owner[b] = b, every
 * rank wants every block), which the executors run and `sim --model logp`
 * simulates in this op order.
 *
 * Block b is rank b's message.  One op moves one block; the ops of a rank
 * with the same `msg` form one message (the seed's concatenation: an agent
 * sends its cluster's blocks to another agent as one message).  Each rank's
 * ops are in its program order: sends never wait (eager, T_hold apart),
 * receives block.  Readings for what the seed leaves open:
 *   - an agent receives its clients' messages in order of arrival (T_end
 *     from the client, equal ones in assignment order) and sends the result
 *     to them in assignment order (Definitions 1 and 4);
 *   - inside an inter-agent broadcast an agent sends to the other agents in
 *     agent order starting with the next one (so that they do not all send
 *     to the fastest first), issues k = lb_agent_sends_first sends, then
 *     alternates one receive and one send, then the remaining receives;
 *     receives in order of arrival, the arrival estimated as if no sender
 *     waited (the d-th send of agent j leaves at d * T_send(j) and takes
 *     T_end: Definition 4's clock; ties in agent order).  Ordering them by
 *     T_end alone deadlocks (an agent waits for a message its sender issues
 *     last, after a receive of its own); this order runs to completion on
 *     every agent count of the seed's platform (tests/algos/test_agent_sched.c)
 *     and among equal agents is the rotation, deadlock-free for any k >= 1;
 *     on other platforms it is not proven so;
 *   - Two-Step: an agent without clients has no message in stage 2.
 * simultaneous: rank r sends to r+1, r+2, ... (mod n), then receives from
 * r-1, r-2, ...: every send before the first receive. */
#ifndef LB_AGENT_SCHED_H
#define LB_AGENT_SCHED_H

#include <stdint.h>

#include "algos/wu/agent.h"

struct lb_agent_op {
	uint8_t send;   /* 1 send, 0 receive */
	uint32_t peer;
	uint32_t block; /* its owner's rank */
	uint32_t msg;   /* ops of the rank with the same msg are one message */
};

struct lb_agent_sched {
	uint32_t n;
	uint32_t *first;        /* [n + 1]: rank r's ops are op[first[r] .. first[r+1]-1] */
	struct lb_agent_op *op;
};

/* Gather-Broadcast or Two-Step on `plan` (lb_agent_plan of the same
 * model).  Returns 0, or -1 (no memory). */
int lb_agent_sched_build(const struct lb_agent_model *md, const struct lb_agent_plan *plan,
			 enum lb_agent_algo algo, struct lb_agent_sched *s);

/* The simultaneous broadcast on n ranks.  Returns 0 or -1 (no memory). */
int lb_agent_sched_simultaneous(uint32_t n, struct lb_agent_sched *s);

void lb_agent_sched_free(struct lb_agent_sched *s);

#endif
