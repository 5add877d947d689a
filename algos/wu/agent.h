/* Seed 001's Cluster-Agent framework as closed forms
 * (docs/papers.md#seed001-cost): the cost model of Gather-Broadcast (GB) and
 * Two-Step Broadcast (TS), and the planner that picks the agents, assigns the
 * clients and chooses the agent count.  Pure functions: no schedule is built
 * here.
 *
 * The model is unit-agnostic: send, recv and end are in whatever unit the
 * caller uses (the tests give microseconds, so the seed's integer sums stay
 * exact in doubles; lb_agent_model_from_platform gives seconds).
 *
 * Readings (docs/papers.md#seed001-cost) taken where the paper is silent, each
 * selectable:
 *   - T_R's count for an agent without a message: n (it receives from all
 *     n senders) or the printed n - 1 (enum lb_agent_count);
 *   - assignment ties (line 7): the agent with the fewest clients, then the
 *     lowest id, or the lowest id alone (enum lb_agent_tie);
 *   - agent-count ties (line 10): the larger m;
 *   - gather (Def. 1): the agent receives in order of T_end(client, agent),
 *     equal latencies in assignment order; stage 3 (Def. 4) sends in
 *     assignment order.
 * Agents are the m fastest nodes (smallest T_send, ties by id); clients
 * are the others in the same order, fastest first.  On a platform whose
 * nodes have NIC caps, T_send and T_recv include bytes / rate
 * (lb_agent_model_from_platform), so "fastest" is in bandwidth too.
 */
#ifndef LB_AGENT_H
#define LB_AGENT_H

#include <stddef.h>
#include <stdint.h>

#include "net/platform.h"

enum lb_agent_algo {
	LB_AGENT_GB, /* Gather-Broadcast */
	LB_AGENT_TS, /* Two-Step Broadcast */
	LB_AGENT_NALGOS
};

enum lb_agent_tie {
	LB_AGENT_TIE_FEWEST, /* fewest clients so far, then lowest id */
	LB_AGENT_TIE_LOWEST, /* lowest id */
};

enum lb_agent_count {
	LB_AGENT_COUNT_N,       /* T_R(i, n): a receiver without a message hears all n */
	LB_AGENT_COUNT_N_MINUS_1, /* the printed T_R(i, n - 1) */
};

/* The seed's platform: per node T_send and T_recv, per ordered pair T_end
 * (row-major, end[u * n + v] = u -> v).  T_hold = T_send (the seed's
 * assumption), so no gap is kept. */
struct lb_agent_model {
	uint32_t n;
	const double *send, *recv; /* [n] */
	const double *end;         /* [n * n] */
	/* [n] or NULL (none): the part of each node's send and recv that is
	 * its NIC's time for a message (lb_agent_model_from_platform), which
	 * the CPU does not wait for: a send is eager, its bytes queue at the
	 * cap while the CPU issues the next (lb_agent_sends_first). */
	const double *nic;
};

static inline double lb_agent_end(const struct lb_agent_model *md, uint32_t u, uint32_t v)
{
	return md->end[(size_t)u * md->n + v];
}

/* A model read from a sealed platform for a schedule that cuts each
 * message into `lanes` parts of bytes / lanes, part l on lane l (lanes 0 ..
 * lanes - 1; 1: the seed's one network, lane 0):
 *   T_send(u) = lanes x send(u) + part / rate(u)
 *   T_recv(u) = lanes x recv(u) + part / rate(u)
 *   T_end(u, v) = the largest over the lanes of lat + occ + part / bw of the
 *     link u -> v (the time from the start of a send to the message in the
 *     receiver's buffer: its last part's; INFINITY where a lane has no link),
 * with rate(u) the node's NIC cap on each lane (no term when it has none).
 * Why rate enters T_send and T_recv: the seed's nodes differ in CPU
 * overheads on one fast network, so its model has no bandwidth but T_end's;
 * a node whose NIC is slow is as slow a sender and receiver as one whose
 * CPU is (LogGP charges a k-byte message o + (k-1) G at each end), and its
 * sends and receives queue at its cap as they do at its CPU: the seed's
 * T_hold = T_send then spaces its sends by part / rate, Definition 1 its
 * receives, so the planner ranks such a node among the slow (a client) and
 * the inter-agent broadcast (m - 1 sends and receives per agent) costs what
 * its cap makes it cost.  Without the rate term a capped node counted as
 * fast: on 4 fast + 4 slow-by-rate nodes the planner took all 8 as agents.
 * The overheads count once per part (the schedule's k parts are k messages
 * to the CPU), the NIC time once (the parts cross the lanes' caps at once).
 * On a platform without rates and one lane this is the seed's model as it
 * was: T_send and T_recv the overheads, T_end = lat + occ + bytes / bw
 * (repro seed001 reads it at 0 bytes).  Like the seed, the model charges
 * every message one contribution's bytes; a concatenated one (a cluster's
 * blocks, a client's whole result: n - 1 contributions) is larger in the
 * schedules.  Where bandwidth dominates, that under-rates stages 2 and 3
 * of a plan with clients, and T_B's (m - 1) T_send + (n - 1) T_recv adds
 * a node's send-cap time to its receive-cap time, which the NIC overlaps
 * (the plan of n agents is over-rated up to 2 x), so the planner then
 * picks fewer agents than the simulators would (on 4 fast + 4
 * slow-by-rate nodes: 2, which `sim --model logp|bounded|fluid` puts
 * slower than 8); a model of message sizes and separate caps is open.
 * So on a platform with rates --agents auto is not this planner's count
 * but the simulator's (model/agent_auto.h: every count's plan simulated
 * in the LogP mode, the fastest taken); this model still ranks the nodes
 * and assigns the clients for each count.
 * md->nic is part / rate (0 without a cap).
 * *send, *recv, *end and *nic are malloc'd into md (lb_agent_model_free).
 * Returns 0 or -1 (no memory, lanes 0 or more than the platform's). */
int lb_agent_model_from_platform(const struct lb_platform *pf, uint32_t lanes,
				 uint64_t bytes, struct lb_agent_model *md);
void lb_agent_model_free(struct lb_agent_model *md);

/* Definition 1: the gather of `k` messages whose arrival times at the agent
 * are end[0..k-1] (ascending: the FCFS order), the agent's T_recv `recv`:
 * T_r(1) = end[0], T_r(j) = max(T_r(j-1) + recv, end[j-1]); 0 when k = 0. */
double lb_agent_gather(const double *end, size_t k, double recv);

/* Section 4.2: T_B(i) of `agent` among the m agents `agents`, of which
 * those with has_msg[j] != 0 send (has_msg indexed like agents).  `count`
 * picks T_R's count for an agent without a message.  0 when m = 1. */
double lb_agent_bcast(const struct lb_agent_model *md, const uint32_t *agents,
		      const unsigned char *has_msg, uint32_t m, uint32_t agent,
		      enum lb_agent_count count);

/* Section 4.2: the sends an agent issues before its first receive,
 * k = min(m - 1, ceil(T_max / T_send)), T_max the largest T_end from the
 * other agents to it, T_send its send less its NIC time (md->nic): the
 * sends it can issue before the first message can be there. */
uint32_t lb_agent_sends_first(const struct lb_agent_model *md, const uint32_t *agents,
			      uint32_t m, uint32_t agent);

/* A plan for m agents: the clusters and the three stages of both algorithms. */
struct lb_agent_plan {
	uint32_t n, m;
	uint32_t *agent;  /* [m] node ids, fastest first */
	uint32_t *first;  /* [m + 1]: cluster a's clients are client[first[a] .. first[a+1]-1] */
	uint32_t *client; /* [n - m] node ids, by cluster, each in assignment order */
	double *t_r;      /* [n - m] like client: the greedy's receive time of it (line 8) */
	double *t_g;      /* [m] Definition 1's gather time of each cluster */
	double t1[LB_AGENT_NALGOS], t2[LB_AGENT_NALGOS], t3, all[LB_AGENT_NALGOS];
};

/* The planner of docs/papers.md#seed001-planner for one m (1 <= m <= n):
 * agents, greedy earliest-receive assignment under `tie`, and Definitions 2-5
 * for GB and TS under `count`.  Returns 0, or -1 (no memory, m out of
 * range). */
int lb_agent_plan(const struct lb_agent_model *md, uint32_t m, enum lb_agent_tie tie,
		  enum lb_agent_count count, struct lb_agent_plan *plan);
void lb_agent_plan_free(struct lb_agent_plan *plan);

/* Line 10: the m of smallest T_all for `algo` among m = 1 .. n, ties (equal
 * within a relative 1e-9, so that sums in seconds tie as the seed's integers
 * do) to the larger m.  0 on no memory. */
uint32_t lb_agent_choose(const struct lb_agent_model *md, enum lb_agent_algo algo,
			 enum lb_agent_tie tie, enum lb_agent_count count);

/* Seed 001's 8 workstations (docs/papers.md#seed001-experiment) as a sealed
 * one-lane platform, the one `repro seed001` and `platform gen wu-8` use: nodes
 * 0-3 fast (UltraSparc 2: send 90us recv 70us gap 90us), 4-7 slow (UltraSparc
 * 1: 160us, 130us, 160us -- the OCR prints the slow T_recv as a second
 * "T_send"); link latency fast-fast 250us, fast-slow either way 350us,
 * slow-slow 450us; occ 0, bw 100mbit (Fast Ethernet).  The seed measured T_end
 * with its 32-byte messages, so the model reads it at 0 bytes (T_end = lat).
 * NULL on no memory. */
struct lb_platform *lb_agent_wu8(void);

/* 1 when two costs are equal within the relative 1e-9 of lb_agent_choose. */
int lb_agent_cost_tie(double a, double b);

#endif
