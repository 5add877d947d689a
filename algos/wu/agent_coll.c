/* Seed 001's Gather-Broadcast and Two-Step (docs/papers.md#seed001-framework)
 * as allgather schedules: the planner of algos/wu/agent.h on the platform's lanes,
 * its per-rank op lists (algos/wu/agent_sched.h) turned into struct lb_schedule.
 *
 * On k lanes (-k) each rank's contribution is cut into k parts, part l on
 * lane l: block l * n + r is part l of rank r's contribution (owner r,
 * every rank wants every block; k = 1: block r is rank r's, the seed's
 * one network).  The seed's messages are short and never split, so
 * --slice does not cut them; the lanes do, so that every lane carries its
 * share: each message of the op lists becomes k messages, one per lane,
 * lane 0's first, the same peer, each carrying its lane's parts of the
 * message's contributions.  Numbering the parts lane-major keeps a lane's
 * parts of consecutive ranks one range.  A message of the seed carries
 * several ranks' blocks (an agent's cluster to another agent, everything
 * to a client); those blocks are no one contiguous range in general, so a
 * message is consecutive ops to one peer: its blocks ascending, each run
 * of consecutive ranks one op, every op after the first flagged
 * LB_OP_CONT (the LogP simulation charges one overhead per message, so k
 * per message of the seed: the model's lanes x send).  The receiver's ops
 * are built from the same list, so the k-th SEND of a channel still meets
 * its k-th RECV, and the program order (a message's lanes in turn) keeps
 * the op lists' order, so a plan that runs to completion on one lane does
 * on k.
 *
 * The platform gives the model as lb_agent_model_from_platform reads it:
 * T_send and T_recv are each node's send and recv overheads, plus m / rate
 * where the node has a NIC cap (so a node slow in bandwidth is a slow node:
 * a client), T_end the link's lat + occ + m / bw for one contribution of m
 * bytes.  A platform whose nodes carry no send overhead is refused
 * (lb_check_agent): k sends go out before the first receive by T_max /
 * T_send, and the seed's figures are per-message overheads, which no rate
 * gives. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "agent_coll.h"
#include "agent_sched.h"
#include "algos/build.h"
#include "net/platform.h"

uint64_t lb_blocks_agent(const struct lb_algo_params *prm)
{
	return lb_mul_sat(prm->ranks, prm->lanes ? prm->lanes : 1);
}

/* Every ordered pair has a link on every lane the schedule uses: 0, or -1
 * with why not in err. */
static int check_links(const struct lb_algo_params *prm, char *err, size_t errlen)
{
	const struct lb_platform *pf = prm->platform;
	for (uint32_t lane = 0; lane < prm->lanes; lane++)
		for (uint32_t u = 0; u < pf->nodes; u++)
			for (uint32_t v = 0; v < pf->nodes; v++)
				if (u != v && !lb_platform_has_link(pf, u, v, lane)) {
					snprintf(err, errlen, "no link %u -> %u on lane %u: any client may talk to any agent, on every lane (-k %u)",
						 u, v, lane, prm->lanes);
					return -1;
				}
	return 0;
}

int lb_check_agent(const struct lb_algo_params *prm, char *err, size_t errlen)
{
	const struct lb_platform *pf = prm->platform;
	if (prm->agents > prm->ranks) {
		snprintf(err, errlen, "--agents %u exceeds the %u ranks", prm->agents, prm->ranks);
		return -1;
	}
	for (uint32_t u = 0; u < pf->nodes; u++)
		if (!(pf->node[u].send > 0)) {
			snprintf(err, errlen, "node %u has no send overhead: the planner needs each node's T_send and T_recv (a 'node %u send T recv T' line)",
				 u, u);
			return -1;
		}
	return check_links(prm, err, errlen);
}

int lb_agent_model_of(const struct lb_algo_params *prm, struct lb_agent_model *md)
{
	return lb_agent_model_from_platform(prm->platform, prm->lanes, prm->bytes, md);
}

uint32_t lb_agent_count_of(const struct lb_agent_model *md, const struct lb_algo_params *prm,
			   enum lb_agent_algo algo)
{
	if (prm->agents)
		return prm->agents;
	return lb_agent_choose(md, algo, LB_AGENT_TIE_FEWEST, LB_AGENT_COUNT_N);
}

/* Stable insertion sort: a message has at most n blocks. */
static void sort_blocks(uint32_t *b, uint32_t k)
{
	for (uint32_t i = 1; i < k; i++) {
		uint32_t x = b[i], j = i;
		for (; j > 0 && b[j - 1] > x; j--)
			b[j] = b[j - 1];
		b[j] = x;
	}
}

/* Lane `lane`'s part of one message (op[0..k-1], one msg) of rank r: the
 * parts' blocks ascending (lane * n + the contribution's rank), a run of
 * consecutive ones an op, the ops after the first continuing it. */
static int emit_message(struct lb_schedule *s, uint32_t r, const struct lb_agent_op *op,
			uint32_t k, uint32_t lane, uint32_t *blocks)
{
	enum lb_op_kind kind = op->send ? LB_SEND : LB_RECV;
	for (uint32_t i = 0; i < k; i++)
		blocks[i] = lane * s->ranks + op[i].block;
	sort_blocks(blocks, k);
	for (uint32_t i = 0, run; i < k; i += run) {
		for (run = 1; i + run < k && blocks[i + run] == blocks[i] + run; run++)
			;
		if (lb_sched_add(s, r, kind, op->peer, lane, blocks[i], run))
			return -1;
		if (i)
			s->rank[r].ops[s->rank[r].count - 1].flags = LB_OP_CONT;
	}
	return 0;
}

/* Every rank's op list of a as ops of s: each message once per lane, in
 * lane order. */
static int emit_all(struct lb_schedule *s, const struct lb_agent_sched *a, uint32_t *blocks)
{
	for (uint32_t r = 0; r < a->n; r++) {
		uint32_t i = a->first[r], end = a->first[r + 1];
		while (i < end) {
			uint32_t k = 1;
			while (i + k < end && a->op[i + k].msg == a->op[i].msg)
				k++;
			for (uint32_t lane = 0; lane < s->lanes; lane++)
				if (emit_message(s, r, &a->op[i], k, lane, blocks))
					return -1;
			i += k;
		}
	}
	return 0;
}

/* The allgather schedule of n ranks on k lanes (block l * n + r: part l
 * of rank r's contribution, owned by r). */
static struct lb_schedule *allgather_for(const struct lb_algo_params *prm, const char *name)
{
	uint64_t nblocks = lb_blocks_agent(prm), total; /* p x m: lb_algo_check refused it past 64 bits */
	struct lb_schedule *s = nblocks <= UINT32_MAX &&
				!__builtin_mul_overflow(prm->bytes, (uint64_t)prm->ranks, &total)
		? lb_sched_for(prm, name, (uint32_t)nblocks) : NULL;
	if (!s)
		return NULL;
	s->bytes = total;
	uint32_t *owner = lb_sched_set_owners(s);
	if (!owner)
		return lb_sched_abandon(s);
	for (uint32_t b = 0; b < s->nblocks; b++)
		owner[b] = b % prm->ranks;
	return s;
}

struct lb_schedule *lb_agent_schedule(const struct lb_algo_params *prm,
				      const struct lb_agent_model *md,
				      const struct lb_agent_plan *plan, enum lb_agent_algo algo)
{
	struct lb_agent_sched ops = { 0 };
	struct lb_schedule *s = NULL;
	uint32_t *blocks = malloc(prm->ranks * sizeof(*blocks));
	if (blocks && lb_agent_sched_build(md, plan, algo, &ops) == 0)
		s = allgather_for(prm, algo == LB_AGENT_GB ? "cluster-agent-gb" : "cluster-agent-ts");
	if (s && emit_all(s, &ops, blocks))
		s = lb_sched_abandon(s);
	lb_agent_sched_free(&ops);
	free(blocks);
	return s;
}

/* The planner on the platform, then its schedule. */
static struct lb_schedule *build_agent(const struct lb_algo_params *prm, enum lb_agent_algo algo)
{
	struct lb_agent_model md;
	struct lb_agent_plan plan = { 0 };
	struct lb_schedule *s = NULL;
	if (lb_agent_model_of(prm, &md))
		return NULL;
	uint32_t m = lb_agent_count_of(&md, prm, algo);
	if (m && lb_agent_plan(&md, m, LB_AGENT_TIE_FEWEST, LB_AGENT_COUNT_N, &plan) == 0)
		s = lb_agent_schedule(prm, &md, &plan, algo);
	lb_agent_plan_free(&plan);
	lb_agent_model_free(&md);
	return s;
}

/* Definition 5's T_all of algo's plan on the platform, NaN when none. */
static double closed_form(const struct lb_algo_params *prm, enum lb_agent_algo algo)
{
	struct lb_agent_model md;
	struct lb_agent_plan plan = { 0 };
	double t = NAN;
	if (lb_agent_model_of(prm, &md))
		return NAN;
	uint32_t m = lb_agent_count_of(&md, prm, algo);
	if (m && lb_agent_plan(&md, m, LB_AGENT_TIE_FEWEST, LB_AGENT_COUNT_N, &plan) == 0)
		t = plan.all[algo];
	lb_agent_plan_free(&plan);
	lb_agent_model_free(&md);
	return t;
}

double lb_makespan_cluster_agent_gb(const struct lb_algo_params *prm)
{
	return closed_form(prm, LB_AGENT_GB);
}

double lb_makespan_cluster_agent_ts(const struct lb_algo_params *prm)
{
	return closed_form(prm, LB_AGENT_TS);
}

struct lb_schedule *lb_build_cluster_agent_gb(const struct lb_algo_params *prm)
{
	return build_agent(prm, LB_AGENT_GB);
}

struct lb_schedule *lb_build_cluster_agent_ts(const struct lb_algo_params *prm)
{
	return build_agent(prm, LB_AGENT_TS);
}
