/* The one table of algorithms: names, summaries, builders and cost models
 * cannot drift apart because nothing else lists them. */
#include <stdio.h>
#include <string.h>

#include "algos.h"
#include "lib/stop.h"
#include "sites.h"
#include "net/platform.h"

#define COORD_ALGO(fn, algo_name, text)                                      \
	{                                                                    \
		.name = algo_name, .summary = text, .build = lb_build_coord_##fn, \
		.needs = LB_ALGO_NEEDS_PLATFORM, .check = lb_check_coord,    \
		.makespan = lb_makespan_coord_##fn,                          \
		.takes = LB_TAKES_ROOT | LB_TAKES_SITE_ALGO,                 \
	}

/* takes: the root; --balance where the ranks' shares are cut (not where
 * the root sends everything to everyone); --super2 (hbsp2-bcast). */
#define HBSP_ALGO(fn, algo_name, text, takes_)                           \
	{                                                                \
		.name = algo_name, .summary = text, .build = lb_build_##fn, \
		.needs = LB_ALGO_NEEDS_PLATFORM, .check = lb_check_hbsp, \
		.hbsp = lb_hbsp_seconds_##fn, .takes = LB_TAKES_ROOT | (takes_), \
	}

const struct lb_algo lb_algos[] = {
	{
		.name = "chain",
		.summary = "pipelined chain: each rank forwards every slice to the next",
		.build = lb_build_chain,
		.takes = LB_TAKES_ROOT | LB_TAKES_SLICE | LB_TAKES_STRIPE,
		.cost_table = lb_cost_chain_table,
		.cost_refined = lb_cost_chain_refined,
		.cost_two_site = lb_cost_chain_two_site,
	},
	{
		.name = "binary",
		.summary = "pipelined binary tree: every slice to both children",
		.build = lb_build_binary,
		.takes = LB_TAKES_ROOT | LB_TAKES_SLICE | LB_TAKES_STRIPE | LB_TAKES_SITE_FORM,
		.cost_table = lb_cost_binary_table,
		.cost_refined = lb_cost_binary_refined,
		.cost_two_site = lb_cost_binary_two_site,
	},
	{
		.name = "binomial",
		.summary = "binomial tree, largest subtree first, slices forwarded as they arrive",
		.build = lb_build_binomial,
		.takes = LB_TAKES_ROOT | LB_TAKES_SLICE | LB_TAKES_STRIPE | LB_TAKES_SITE_FORM,
		.cost_table = lb_cost_binomial_table,
		.cost_refined = lb_cost_binomial_refined,
		.cost_two_site = lb_cost_binomial_two_site,
	},
	{
		.name = "vandegeijn",
		.summary = "van de Geijn: binomial scatter + allgather (recursive doubling, or ring)",
		.build = lb_build_vandegeijn,
		.takes = LB_TAKES_ROOT | LB_TAKES_SLICE | LB_TAKES_STRIPE | LB_TAKES_ALLGATHER,
		.cost_table = lb_cost_vandegeijn_table,
		.cost_refined = lb_cost_vandegeijn_refined,
		.cost_two_site = NULL,
		.blocks = lb_blocks_vandegeijn,
	},
	{
		.name = "multilane",
		.summary = "two complementary binary trees, one half each, swapped at the leaves",
		.build = lb_build_multilane,
		.takes = LB_TAKES_ROOT | LB_TAKES_SLICE | LB_TAKES_SITE_FORM,
		.cost_table = lb_cost_multilane_table,
		.cost_refined = lb_cost_multilane_refined,
		.cost_two_site = lb_cost_multilane_two_site,
	},
	{
		.name = "klane",
		.summary = "k-lane trees: one tree and one part of the message per lane, M/k on every lane",
		.build = lb_build_klane,
		.takes = LB_TAKES_ROOT | LB_TAKES_SLICE,
		.cost_table = lb_cost_klane_table,
		.cost_refined = lb_cost_klane_refined,
		.cost_two_site = NULL,
		.blocks = lb_blocks_klane,
	},
	/* The allgather collective (issue 15, algos/vandegeijn.c): -m is each
	 * rank's contribution, every rank ends with all p of them. */
	{
		.name = "allgather-ring",
		.summary = "allgather: p - 1 steps, each rank passes the chunk it got last to the next",
		.build = lb_build_allgather_ring,
		.takes = LB_TAKES_SLICE | LB_TAKES_STRIPE,
		.cost_table = lb_cost_allgather_ring_table,
		.cost_refined = lb_cost_allgather_ring_refined,
		.blocks = lb_blocks_allgather,
		.collective = "allgather",
	},
	{
		.name = "allgather-doubling",
		.summary = "allgather: recursive doubling, log2 p exchanges of doubling size (p a power of two)",
		.build = lb_build_allgather_doubling,
		.takes = LB_TAKES_ROOT | LB_TAKES_SLICE | LB_TAKES_STRIPE, /* pairs ranks relative to it */
		.cost_table = lb_cost_allgather_doubling_table,
		.cost_refined = lb_cost_allgather_doubling_refined,
		.blocks = lb_blocks_allgather,
		.collective = "allgather",
	},
	{
		.name = "allgather-simultaneous",
		.summary = "allgather: every rank sends its chunk to every other, one peer per step",
		.build = lb_build_allgather_simultaneous,
		.takes = LB_TAKES_SLICE | LB_TAKES_STRIPE,
		.cost_table = lb_cost_allgather_ring_table,
		.cost_refined = lb_cost_allgather_ring_refined,
		.blocks = lb_blocks_allgather,
		.collective = "allgather",
	},
	/* Seed 001's Cluster-Agent allgathers (algos/wu/agent_coll.c): the m
	 * fastest nodes of the platform are agents (--agents, auto: the
	 * planner's m, or on a platform with rates the m of least LogP time,
	 * model/agent_auto.h), each the agent of a cluster of slower clients. */
	{
		.name = "cluster-agent-gb",
		.summary = "Wu's Gather-Broadcast allgather: clients to agents, agents to each other, agents to clients",
		.build = lb_build_cluster_agent_gb,
		.needs = LB_ALGO_NEEDS_PLATFORM,
		.check = lb_check_agent,
		.blocks = lb_blocks_agent,
		.makespan = lb_makespan_cluster_agent_gb,
		.takes = LB_TAKES_AGENTS,
		.sim_logp = 1,
		.collective = "allgather",
	},
	{
		.name = "cluster-agent-ts",
		.summary = "Wu's Two-Step allgather: agents exchange their own, then their clients' blocks",
		.build = lb_build_cluster_agent_ts,
		.needs = LB_ALGO_NEEDS_PLATFORM,
		.check = lb_check_agent,
		.blocks = lb_blocks_agent,
		.makespan = lb_makespan_cluster_agent_ts,
		.takes = LB_TAKES_AGENTS,
		.sim_logp = 1,
		.collective = "allgather",
	},
	/* Seed 000's heuristics (algos/beaumont/hetero*.c): trees on a platform, one
	 * lane, no closed forms but the tree's steady-state period. */
	{
		.name = "topo-prune-simple",
		.summary = "Beaumont et al. Alg. 1: prune the heaviest edges while all stay reachable",
		.build = lb_build_topo_prune_simple,
		.takes = LB_TAKES_ROOT | LB_TAKES_SLICE,
		.needs = LB_ALGO_NEEDS_PLATFORM,
		.period = lb_period_topo_prune_simple,
	},
	{
		.name = "topo-prune-degree",
		.summary = "Beaumont et al. Alg. 2: prune the heaviest edge of the most loaded node",
		.build = lb_build_topo_prune_degree,
		.takes = LB_TAKES_ROOT | LB_TAKES_SLICE,
		.needs = LB_ALGO_NEEDS_PLATFORM,
		.period = lb_period_topo_prune_degree,
	},
	{
		.name = "topo-grow",
		.summary = "Beaumont et al. Alg. 3: grow the tree by the least weighted out-degree",
		.build = lb_build_topo_grow,
		.takes = LB_TAKES_ROOT | LB_TAKES_SLICE,
		.needs = LB_ALGO_NEEDS_PLATFORM,
		.period = lb_period_topo_grow,
	},
	{
		.name = "binomial-routed",
		.summary = "Beaumont et al. Alg. 4: binomial tree on indices, routed over shortest paths",
		.build = lb_build_binomial_routed,
		.takes = LB_TAKES_ROOT | LB_TAKES_SLICE,
		.needs = LB_ALGO_NEEDS_PLATFORM,
		.period = lb_period_binomial_routed,
		.check = lb_check_binomial_routed,
	},
	{
		.name = "mp-grow",
		.summary = "Beaumont et al. Alg. 5: grow the tree by the least multi-port period",
		.build = lb_build_mp_grow,
		.takes = LB_TAKES_ROOT | LB_TAKES_SLICE,
		.needs = LB_ALGO_NEEDS_PLATFORM,
		.period = lb_period_mp_grow,
	},
	{
		.name = "mp-prune-degree",
		.summary = "Beaumont et al.: prune by the multi-port period of each node",
		.build = lb_build_mp_prune_degree,
		.takes = LB_TAKES_ROOT | LB_TAKES_SLICE,
		.needs = LB_ALGO_NEEDS_PLATFORM,
		.period = lb_period_mp_prune_degree,
	},
	{
		.name = "lp-prune",
		.summary = "Beaumont et al. Alg. 6: prune the edges the LP bound uses least",
		.build = lb_build_lp_prune,
		.takes = LB_TAKES_ROOT | LB_TAKES_SLICE,
		.needs = LB_ALGO_NEEDS_PLATFORM | LB_ALGO_NEEDS_LP,
		.period = lb_period_lp_prune,
	},
	{
		.name = "lp-grow",
		.summary = "Beaumont et al. Alg. 7: grow the tree by the edges the LP bound uses most",
		.build = lb_build_lp_grow,
		.takes = LB_TAKES_ROOT | LB_TAKES_SLICE,
		.needs = LB_ALGO_NEEDS_PLATFORM | LB_ALGO_NEEDS_LP,
		.period = lb_period_lp_grow,
	},
	/* Not seed 000's: trees planned with the nodes' caps (algos/beaumont/hetero_cap.c). */
	{
		.name = "cap-trees",
		.summary = "k trees (1-4) grown with each node's cap in the cost, block b down tree b mod k",
		.build = lb_build_cap_trees,
		.needs = LB_ALGO_NEEDS_PLATFORM,
		.period = lb_period_cap_trees,
		.takes = LB_TAKES_ROOT | LB_TAKES_SLICE,
	},
	/* Seed 002's heuristics (algos/fkaier/coord*.c): the order of the
	 * coordinators' whole-message sends between sites, then each site's
	 * broadcast (--site-algo); the model's completion time. */
	COORD_ALGO(flat, "flat", "Fkaier et al. baseline: the source's coordinator sends to every other in turn"),
	COORD_ALGO(ecef, "ecef", "Fkaier et al.: the coordinator pair that completes earliest first"),
	COORD_ALGO(ecef_la, "ecef-la", "Fkaier et al.: ecef with a look-ahead on the receiver's next send"),
	COORD_ALGO(ecef_lat_min, "ecef-lat-min",
		   "Fkaier et al.: look-ahead to the least loaded next site (ECEF-LAt)"),
	COORD_ALGO(ecef_lat_max, "ecef-lat-max",
		   "Fkaier et al.: look-ahead to the most loaded next site (ECEF-LAT)"),
	COORD_ALGO(bottomup, "bottomup", "Fkaier et al.: the most loaded site first, through its quickest sender"),
	COORD_ALGO(bottomup_nort, "bottomup-nort",
		   "Fkaier et al.: bottomup as printed, without the senders' ready times"),
	COORD_ALGO(mostcrit, "mostcrit",
		   "Fkaier et al. MostCrit: each step ecef, ecef-la or bottomup, by the most dispersed factor"),
	/* Seed 004's HBSP^k collectives (algos/williams_parsons/hbsp*.c): supersteps and
	 * barriers on a platform's sites, their HBSP cost in closed form. */
	HBSP_ALGO(hbsp1_gather, "hbsp1-gather",
		  "Williams & Parsons HBSP^1 gather: every rank sends its share to the root, one barrier",
		  LB_TAKES_BALANCE),
	HBSP_ALGO(hbsp2_gather, "hbsp2-gather",
		  "Williams & Parsons HBSP^2 gather: to each site's coordinator, then coordinators to the root",
		  LB_TAKES_BALANCE),
	HBSP_ALGO(hbsp1_bcast, "hbsp1-bcast",
		  "Williams & Parsons HBSP^1 two-phase broadcast: scatter the shares, then total exchange",
		  LB_TAKES_BALANCE),
	HBSP_ALGO(hbsp1_bcast_1phase, "hbsp1-bcast-1phase",
		  "Williams & Parsons HBSP^1 one-phase broadcast: the root sends everything to everyone", 0),
	HBSP_ALGO(hbsp2_bcast, "hbsp2-bcast",
		  "Williams & Parsons HBSP^2 broadcast: root to coordinators (--super2), two-phase in each site",
		  LB_TAKES_BALANCE | LB_TAKES_SUPER2),
};

const size_t lb_nalgos = sizeof(lb_algos) / sizeof(lb_algos[0]);

const struct lb_algo *lb_algo_find(const char *name)
{
	for (size_t i = 0; i < lb_nalgos; i++)
		if (strcmp(lb_algos[i].name, name) == 0)
			return &lb_algos[i];
	return NULL;
}

unsigned lb_algo_takes(const struct lb_algo *a, const char *site_algo)
{
	const struct lb_algo *site = lb_algo_find(site_algo ? site_algo : "binomial");
	if (!(a->takes & LB_TAKES_SITE_ALGO))
		return a->takes;
	/* each site runs it whole: its slices, lanes and allgather, not its root */
	return a->takes | (site ? site->takes & (LB_TAKES_SLICE | LB_TAKES_STRIPE | LB_TAKES_ALLGATHER)
				: 0);
}

void lb_algo_estimate(const struct lb_algo *a, const struct lb_algo_params *prm,
		      int validate, struct lb_sched_estimate *out)
{
	/* (not lb_slice_count: a count beyond 32 bits must not wrap here) */
	uint64_t slices = prm->slice_bytes && prm->slice_bytes < prm->bytes
		? lb_div_ceil(prm->bytes, prm->slice_bytes) : 1;
	out->blocks = a->blocks ? a->blocks(prm) : slices;
	out->ops = lb_mul_sat(2 * (uint64_t)(prm->ranks - 1), slices);
	out->bytes = lb_sched_min_bytes(prm->ranks, prm->lanes, out->ops);
	if (validate)
		out->bytes = lb_add_sat(out->bytes, lb_sched_validate_min_bytes(prm->ranks, out->blocks,
										 out->ops));
}

/* What a platform algorithm needs, and a platform that fits (every
 * algorithm given one): NULL, or why not in buf. */
static const char *check_platform(const struct lb_algo *a, const struct lb_algo_params *prm,
				  char *buf, size_t len)
{
	const struct lb_platform *pf = prm->platform;
	if ((a->needs & LB_ALGO_NEEDS_PLATFORM) && !pf)
		return "needs --platform FILE";
	if (!pf)
		return NULL;
	if (pf->nodes != prm->ranks || pf->lanes < prm->lanes) {
		snprintf(buf, len, "the platform has %u nodes x %u lanes, not %u ranks x %u lanes or more",
			 pf->nodes, pf->lanes, prm->ranks, prm->lanes);
		return buf;
	}
	if (a->needs && lb_platform_check_reachable(pf, prm->root, 0, buf, len))
		return buf;
	if (a->check && a->check(prm, buf, len))
		return buf;
	/* last: a caller that solves the LP for them first sees every
	 * other reason the platform does not fit */
	if ((a->needs & LB_ALGO_NEEDS_LP) && !prm->lp_load)
		return "needs the LP bound's edge loads (n_{u,v}; model/lp)";
	return NULL;
}

int lb_algo_check(const struct lb_algo *a, const struct lb_algo_params *prm,
		  char *err, size_t len)
{
	const char *why = NULL;
	char buf[160];
	uint64_t total;
	if (prm->ranks == 0)
		why = "ranks must be at least 1 (got 0)";
	else if (prm->root >= prm->ranks)
		snprintf(buf, sizeof(buf), "root %u out of range for %u ranks (0..%u)",
			 prm->root, prm->ranks, prm->ranks - 1), why = buf;
	else if (prm->lanes == 0 || prm->lanes > 64)
		snprintf(buf, sizeof(buf), "lanes %u out of range (1..64)",
			 prm->lanes), why = buf;
	else if (prm->bytes == 0)
		why = "message size must be at least 1 byte (got 0)";
	else if (prm->sites > prm->ranks)
		snprintf(buf, sizeof(buf), "sites %u exceeds ranks %u",
			 prm->sites, prm->ranks), why = buf;
	else if (prm->site_first && prm->sites > 1 &&
		 lb_sites_check(prm->site_first, prm->sites, prm->ranks, buf, sizeof(buf)))
		why = buf;
	else if (a->collective && __builtin_mul_overflow(prm->bytes, (uint64_t)prm->ranks, &total))
		/* an allgather moves p x m bytes: saturated, it would be
		 * another size, and the run another benchmark */
		snprintf(buf, sizeof(buf), "%u ranks x %llu bytes each: more than %llu bytes in all",
			 prm->ranks, (unsigned long long)prm->bytes,
			 (unsigned long long)UINT64_MAX), why = buf;
	else if (prm->slice_bytes && lb_div_ceil(prm->bytes, prm->slice_bytes) > LB_MAX_BLOCKS)
		snprintf(buf, sizeof(buf), "slice %llu bytes cuts %llu bytes into more than %u slices",
			 (unsigned long long)prm->slice_bytes,
			 (unsigned long long)prm->bytes, LB_MAX_BLOCKS), why = buf;
	else if (a->blocks && a->blocks(prm) > LB_MAX_BLOCKS)
		snprintf(buf, sizeof(buf), "%u ranks x slices of %llu bytes cut %llu bytes into more than %u blocks",
			 prm->ranks, (unsigned long long)prm->slice_bytes,
			 (unsigned long long)prm->bytes, LB_MAX_BLOCKS), why = buf;
	else if (((a->build == lb_build_vandegeijn && prm->allgather == LB_ALLGATHER_DOUBLING) ||
		  a->build == lb_build_allgather_doubling) &&
		 (prm->ranks & (prm->ranks - 1)))
		snprintf(buf, sizeof(buf), "recursive doubling needs a power-of-two rank count (got %u); use %s",
			 prm->ranks, a->build == lb_build_vandegeijn ? "ring or auto" : "allgather-ring"),
			why = buf;
	else
		why = check_platform(a, prm, buf, sizeof(buf));
	if (why && err && len)
		snprintf(err, len, "%s: %s", a->name, why);
	return why ? -1 : 0;
}

struct lb_schedule *lb_algo_build(const struct lb_algo *a,
				  const struct lb_algo_params *prm,
				  char *err, size_t errlen)
{
	if (lb_algo_check(a, prm, err, errlen))
		return NULL;
	struct lb_schedule *s = a->build(prm);
	if (!s || lb_sched_finalize(s)) {
		lb_sched_free(s);
		if (err && errlen && lb_stop_requested())
			snprintf(err, errlen, "%s: build stopped", a->name);
		else if (err && errlen)
			snprintf(err, errlen, "%s: cannot build %u ranks x %u lanes: out of memory or too many blocks",
				 a->name, prm->ranks, prm->lanes);
		return NULL;
	}
	s->platform = prm->platform;
	return s;
}
