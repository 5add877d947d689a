/* The broadcast algorithms: one registry table of {name, summary, builder,
 * cost functions}.  Builders are pure: parameters in, schedule out. */
#ifndef LB_ALGOS_H
#define LB_ALGOS_H

#include <stddef.h>
#include <stdint.h>

#include "schedule.h"

enum lb_allgather {
	LB_ALLGATHER_AUTO = 0, /* recursive doubling for powers of two, else ring */
	LB_ALLGATHER_DOUBLING,
	LB_ALLGATHER_RING,
};

/* Seed 004's work shares: equal, or proportional to each rank's speed. */
enum lb_balance {
	LB_BALANCE_EQUAL = 0,
	LB_BALANCE_SPEED,
};

/* hbsp2-bcast's root-to-coordinators part (super^2 step). */
enum lb_super2 {
	LB_SUPER2_1PHASE = 0,
	LB_SUPER2_2PHASE,
};

/* Largest block count a schedule may have: bounds memory for tiny slices. */
#define LB_MAX_BLOCKS (1u << 24)

struct lb_algo_params {
	uint32_t ranks;       /* p >= 1 */
	uint32_t root;        /* 0 <= root < p */
	uint32_t lanes;       /* k >= 1 */
	uint64_t bytes;       /* message size M >= 1 */
	uint64_t slice_bytes; /* pipelining unit; 0 = whole message */
	int stripe_off;       /* single-lane algorithms: use lane 0 only */
	enum lb_allgather allgather; /* vandegeijn only */
	uint32_t sites;       /* site-aware algorithms: sites (0 or 1 = one) */
	const uint32_t *site_first; /* [sites + 1] site map (algos/sites.h);
				     * NULL = the even split */
	/* Heterogeneous algorithms (seed 000) only; NULL for the others. */
	const struct lb_platform *platform; /* nodes = ranks; its lane 0 is used */
	const double *lp_load; /* [ranks * ranks], n_{u,v} in slices/s, row u:
				* the LP bound's edge loads (model/lp) */
	/* Seed 002's (flat, ecef, ..., mostcrit) only: the homogeneous
	 * algorithm each site runs from its coordinator; NULL = binomial. */
	const char *site_algo;
	/* Seed 004's (hbsp*) only: */
	enum lb_balance balance;
	enum lb_super2 super2;
	/* Seed 001's (cluster-agent-*) only: the agent count; 0 = the
	 * planner's choice (algos/wu/agent_coll.h). */
	uint32_t agents;
	/* 1: build for the simulator's port models alone, without the RECVs
	 * (lb_schedule.sends_only): not for the validator, the executors, the
	 * LogP mode, nor algorithms with barriers (lb_sched_barrier fails). */
	int sends_only;
};

/* Inputs of the closed-form models.  Times in seconds, rates in bytes/s. */
struct lb_cost_in {
	uint32_t ranks;       /* p */
	uint32_t lanes;       /* k */
	uint64_t bytes;       /* M */
	uint64_t slice_bytes; /* 0 = whole message */
	double latency;       /* l: per-hop latency (alpha) */
	double lane_bw;       /* B: one lane's bandwidth; b = k * B */
	uint32_t sites;       /* two-site forms: nodes per site p' = p / sites */
	double wan_latency;   /* L: latency between sites */
	enum lb_allgather allgather;
	int stripe_off;       /* single-lane algorithms on lane 0 only */
};

typedef struct lb_schedule *(*lb_build_fn)(const struct lb_algo_params *prm);
typedef uint64_t (*lb_blocks_fn)(const struct lb_algo_params *prm);
typedef double (*lb_cost_fn)(const struct lb_cost_in *in);
typedef double (*lb_period_fn)(const struct lb_algo_params *prm);
typedef int (*lb_check_fn)(const struct lb_algo_params *prm, char *err, size_t errlen);

/* The options of plan, sim and bcast that only some algorithms take
 * (lb_algo.takes, set in the registry beside each description);
 * bench/algo_opt.c refuses one that none of the chosen algorithms takes. */
enum lb_algo_takes {
	LB_TAKES_ROOT = 1,       /* -r: a root (allgather-ring's and -simultaneous'
				  * only renumbers the blocks: which rank's
				  * chunk is block 0) */
	LB_TAKES_SLICE = 2,      /* -s: the message cut into slices */
	LB_TAKES_STRIPE = 4,     /* --stripe: single-lane, spread over the lanes */
	LB_TAKES_ALLGATHER = 8,  /* --allgather: van de Geijn's */
	LB_TAKES_SITE_FORM = 16, /* --sites, --site-sizes: change its schedule
				  * (seed 003's site-aware trees) */
	LB_TAKES_BALANCE = 32,   /* --balance: seed 004's shares */
	LB_TAKES_SUPER2 = 64,    /* --super2: hbsp2-bcast's root to coordinators */
	LB_TAKES_SITE_ALGO = 128, /* --site-algo: seed 002's, whose sites run it
				   * (and so take what it takes, -s and above) */
	LB_TAKES_AGENTS = 256,   /* --agents: seed 001's agent count */
};

/* What an algorithm needs beyond the homogeneous parameters. */
enum lb_algo_needs {
	LB_ALGO_NEEDS_PLATFORM = 1, /* prm->platform */
	LB_ALGO_NEEDS_LP = 2,       /* prm->lp_load */
};

struct lb_algo {
	const char *name;
	const char *summary;
	lb_build_fn build;
	lb_cost_fn cost_table;    /* seed 003 Table 1, as printed */
	lb_cost_fn cost_refined;  /* counts slices: pipeline fill, per-slice alpha */
	lb_cost_fn cost_two_site; /* seed 003 section 6 (NULL: none given) */
	lb_blocks_fn blocks;      /* blocks its builder makes (NULL: one per slice) */
	/* The heterogeneous (platform) algorithms have no cost_table,
	 * cost_refined or cost_two_site (NULL) but these: */
	unsigned needs;           /* enum lb_algo_needs bits; 0 = homogeneous */
	lb_period_fn period;      /* steady-state seconds per slice of its tree
				   * on prm->platform (docs/papers.md#seed000-period), NaN when it
				   * cannot build; TP = 1 / period */
	lb_check_fn check;        /* what lb_algo_check cannot see from the
				   * parameters alone (NULL: nothing): 0, or
				   * -1 with the reason in err */
	lb_period_fn makespan;    /* seed 002's and 001's: the model's completion
				   * time in seconds on prm->platform (docs/papers.md#seed002-clock,
				   * 4.3), NaN when it cannot build; NULL: none */
	lb_period_fn hbsp;        /* seed 004's: the HBSP^k cost in seconds
				   * on prm->platform (docs/papers.md#seed004-costs; NULL: none) */
	unsigned takes;           /* enum lb_algo_takes bits */
	/* 1: bcast predicts it on a platform with the simulator's LogP mode
	 * (seed 001's model, the one its plan is built for, as repro seed001
	 * runs it) rather than multi-port; 0 for every other. */
	int sim_logp;
	const char *collective;   /* the collective when not a broadcast
				   * ("allgather": the engine sizes its buffer p x
				   * -m); NULL: bcast (seed 004's gathers: see
				   * the schedule's) */
};

/* The homogeneous broadcasts: what `-a all` and the broadcast tests run. */
static inline int lb_algo_homogeneous_bcast(const struct lb_algo *a)
{
	return !a->needs && !a->collective;
}

/* a's lb_algo_takes bits; seed 002's add those of the site algorithm
 * named site_algo (NULL or unknown: binomial, their default). */
unsigned lb_algo_takes(const struct lb_algo *a, const char *site_algo);

extern const struct lb_algo lb_algos[];
extern const size_t lb_nalgos;

const struct lb_algo *lb_algo_find(const char *name);

/* 0 when a can build prm, else -1 with the bad value named in err
 * ("chain: root 8 out of range for 8 ranks (0..7)", "topo-grow: needs
 * --platform FILE", "topo-grow: node 5 cannot be reached from node 0 on
 * lane 0").  Allocates nothing but, on a platform, what a reachability
 * search and the algorithm's check (binomial-routed: its routes) need. */
int lb_algo_check(const struct lb_algo *a, const struct lb_algo_params *prm,
		  char *err, size_t errlen);

/* Checks prm (naming the bad value in err), then builds and finalizes;
 * the schedule carries prm->platform (for the validator's link check).
 * Returns NULL with err set on bad parameters or allocation failure. */
struct lb_schedule *lb_algo_build(const struct lb_algo *a,
				  const struct lb_algo_params *prm,
				  char *err, size_t errlen);

/* What a schedule of prm will take, from its dimensions alone, before
 * anything is built: the builder's block count, the ops every schedule
 * has at least (each non-root rank receives each slice once, a SEND at
 * one end and a RECV at the other) and the bytes those take -- plus, with
 * validate, what lb_sched_validate allocates.  A lower bound: builders
 * may emit more ops (van de Geijn cuts per chunk) and grow by doubling. */
struct lb_sched_estimate {
	uint64_t blocks, ops, bytes;
};

void lb_algo_estimate(const struct lb_algo *a, const struct lb_algo_params *prm,
		      int validate, struct lb_sched_estimate *out);

/* Number of slices (= blocks for the pipelined algorithms). */
static inline uint32_t lb_slice_count(uint64_t bytes, uint64_t slice_bytes)
{
	if (slice_bytes == 0 || slice_bytes >= bytes)
		return 1;
	return (uint32_t)lb_div_ceil(bytes, slice_bytes);
}

/* Builders (one file each). */
struct lb_schedule *lb_build_chain(const struct lb_algo_params *prm);
struct lb_schedule *lb_build_binary(const struct lb_algo_params *prm);
struct lb_schedule *lb_build_binomial(const struct lb_algo_params *prm);
struct lb_schedule *lb_build_vandegeijn(const struct lb_algo_params *prm);
/* The allgather collective (prm->bytes: each rank's contribution m; the
 * schedule's bytes p x m): ring, recursive doubling (p a power of two),
 * simultaneous (every rank sends its chunk to every other). */
struct lb_schedule *lb_build_allgather_ring(const struct lb_algo_params *prm);
struct lb_schedule *lb_build_allgather_doubling(const struct lb_algo_params *prm);
struct lb_schedule *lb_build_allgather_simultaneous(const struct lb_algo_params *prm);
struct lb_schedule *lb_build_multilane(const struct lb_algo_params *prm);
struct lb_schedule *lb_build_klane(const struct lb_algo_params *prm);

/* Seed 000's heuristics (algos/beaumont/hetero*.c; trees on prm->platform). */
struct lb_schedule *lb_build_topo_prune_simple(const struct lb_algo_params *prm);
struct lb_schedule *lb_build_topo_prune_degree(const struct lb_algo_params *prm);
struct lb_schedule *lb_build_topo_grow(const struct lb_algo_params *prm);
struct lb_schedule *lb_build_binomial_routed(const struct lb_algo_params *prm);
struct lb_schedule *lb_build_mp_grow(const struct lb_algo_params *prm);
struct lb_schedule *lb_build_mp_prune_degree(const struct lb_algo_params *prm);
struct lb_schedule *lb_build_lp_prune(const struct lb_algo_params *prm);
struct lb_schedule *lb_build_lp_grow(const struct lb_algo_params *prm);
double lb_period_topo_prune_simple(const struct lb_algo_params *prm);
double lb_period_topo_prune_degree(const struct lb_algo_params *prm);
double lb_period_topo_grow(const struct lb_algo_params *prm);
double lb_period_binomial_routed(const struct lb_algo_params *prm);
double lb_period_mp_grow(const struct lb_algo_params *prm);
double lb_period_mp_prune_degree(const struct lb_algo_params *prm);
double lb_period_lp_prune(const struct lb_algo_params *prm);
double lb_period_lp_grow(const struct lb_algo_params *prm);
/* cap-trees (algos/beaumont/hetero_cap.c): k trees planned with the nodes' caps;
 * its period is the bounded multi-port model's, not seed 000's. */
struct lb_schedule *lb_build_cap_trees(const struct lb_algo_params *prm);
double lb_period_cap_trees(const struct lb_algo_params *prm);
/* Every transfer of the binomial tree has a route on the platform (a
 * directed platform need not give every node a path to every other). */
int lb_check_binomial_routed(const struct lb_algo_params *prm, char *err, size_t errlen);

/* Seed 002's coordinator heuristics on a platform with sites
 * (algos/fkaier/coord_platform.c): the coordinators' send order composed with
 * one broadcast of prm->site_algo per site. */
struct lb_schedule *lb_build_coord_flat(const struct lb_algo_params *prm);
struct lb_schedule *lb_build_coord_ecef(const struct lb_algo_params *prm);
struct lb_schedule *lb_build_coord_ecef_la(const struct lb_algo_params *prm);
struct lb_schedule *lb_build_coord_ecef_lat_min(const struct lb_algo_params *prm);
struct lb_schedule *lb_build_coord_ecef_lat_max(const struct lb_algo_params *prm);
struct lb_schedule *lb_build_coord_bottomup(const struct lb_algo_params *prm);
struct lb_schedule *lb_build_coord_bottomup_nort(const struct lb_algo_params *prm);
struct lb_schedule *lb_build_coord_mostcrit(const struct lb_algo_params *prm);
double lb_makespan_coord_flat(const struct lb_algo_params *prm);
double lb_makespan_coord_ecef(const struct lb_algo_params *prm);
double lb_makespan_coord_ecef_la(const struct lb_algo_params *prm);
double lb_makespan_coord_ecef_lat_min(const struct lb_algo_params *prm);
double lb_makespan_coord_ecef_lat_max(const struct lb_algo_params *prm);
double lb_makespan_coord_bottomup(const struct lb_algo_params *prm);
double lb_makespan_coord_bottomup_nort(const struct lb_algo_params *prm);
double lb_makespan_coord_mostcrit(const struct lb_algo_params *prm);
/* Sites on the platform, every coordinator pair linked, a site algorithm
 * that runs on every site with one block count. */
int lb_check_coord(const struct lb_algo_params *prm, char *err, size_t errlen);
/* Seed 004's HBSP^k gathers and broadcasts (algos/williams_parsons/hbsp*.c). */
struct lb_schedule *lb_build_hbsp1_gather(const struct lb_algo_params *prm);
struct lb_schedule *lb_build_hbsp2_gather(const struct lb_algo_params *prm);
struct lb_schedule *lb_build_hbsp1_bcast(const struct lb_algo_params *prm);
struct lb_schedule *lb_build_hbsp1_bcast_1phase(const struct lb_algo_params *prm);
struct lb_schedule *lb_build_hbsp2_bcast(const struct lb_algo_params *prm);
double lb_hbsp_seconds_hbsp1_gather(const struct lb_algo_params *prm);
double lb_hbsp_seconds_hbsp2_gather(const struct lb_algo_params *prm);
double lb_hbsp_seconds_hbsp1_bcast(const struct lb_algo_params *prm);
double lb_hbsp_seconds_hbsp1_bcast_1phase(const struct lb_algo_params *prm);
double lb_hbsp_seconds_hbsp2_bcast(const struct lb_algo_params *prm);
/* Seed 001's Cluster-Agent allgathers (algos/wu/agent_coll.c): Gather-
 * Broadcast and Two-Step on prm->platform, prm->agents agents, each
 * message cut into prm->lanes parts, one per lane. */
struct lb_schedule *lb_build_cluster_agent_gb(const struct lb_algo_params *prm);
struct lb_schedule *lb_build_cluster_agent_ts(const struct lb_algo_params *prm);
/* Their closed form (docs/papers.md#seed001-cost, Definition 5's T_all) in
 * seconds on the platform, T_end read at prm->bytes; NaN when it cannot
 * plan. */
double lb_makespan_cluster_agent_gb(const struct lb_algo_params *prm);
double lb_makespan_cluster_agent_ts(const struct lb_algo_params *prm);
/* Every node has a send overhead, every ordered pair a link on every lane,
 * agents <= ranks. */
int lb_check_agent(const struct lb_algo_params *prm, char *err, size_t errlen);
uint64_t lb_blocks_agent(const struct lb_algo_params *prm);
/* Every rank gets a share of at least one byte. */
int lb_check_hbsp(const struct lb_algo_params *prm, char *err, size_t errlen);

uint64_t lb_blocks_vandegeijn(const struct lb_algo_params *prm);
uint64_t lb_blocks_allgather(const struct lb_algo_params *prm);
uint64_t lb_blocks_klane(const struct lb_algo_params *prm);

double lb_cost_chain_table(const struct lb_cost_in *in);
double lb_cost_chain_refined(const struct lb_cost_in *in);
double lb_cost_chain_two_site(const struct lb_cost_in *in);
double lb_cost_binary_table(const struct lb_cost_in *in);
double lb_cost_binary_refined(const struct lb_cost_in *in);
double lb_cost_binary_two_site(const struct lb_cost_in *in);
double lb_cost_binomial_table(const struct lb_cost_in *in);
double lb_cost_binomial_refined(const struct lb_cost_in *in);
double lb_cost_binomial_two_site(const struct lb_cost_in *in);
double lb_cost_vandegeijn_table(const struct lb_cost_in *in);
double lb_cost_vandegeijn_refined(const struct lb_cost_in *in);
/* The allgather's, in->bytes = m (each rank's contribution), b = k B:
 * ring and simultaneous (p - 1)(l + m / b), doubling log2(p) l + (p - 1) m / b;
 * refined: each step pays one latency per slice, slices striped over lanes. */
double lb_cost_allgather_ring_table(const struct lb_cost_in *in);
double lb_cost_allgather_doubling_table(const struct lb_cost_in *in);
double lb_cost_allgather_ring_refined(const struct lb_cost_in *in);
double lb_cost_allgather_doubling_refined(const struct lb_cost_in *in);
double lb_cost_multilane_table(const struct lb_cost_in *in);
double lb_cost_multilane_refined(const struct lb_cost_in *in);
double lb_cost_multilane_two_site(const struct lb_cost_in *in);
double lb_cost_klane_table(const struct lb_cost_in *in);
double lb_cost_klane_refined(const struct lb_cost_in *in);

#endif
