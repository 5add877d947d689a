/* The options of plan, sim and bcast that only some algorithms take
 * (algos/algos.h's enum lb_algo_takes, set per algorithm in the
 * registry): one the chosen algorithms all ignore is refused, naming the
 * option, the algorithms that take it and those chosen; one that only some
 * of them take is applied to those, and stderr says which ignore it. */
#ifndef LB_BENCH_ALGO_OPT_H
#define LB_BENCH_ALGO_OPT_H

#include "cli.h"
#include "agents_opt.h"

/* ---- the option rows: one table, one help text per option ----
 * plan, sim and bcast put these rows in their option tables.  Three
 * groups, not one, because each command keeps its own order of options
 * (the provenance lists them in table order, so moving a row would
 * change every result file's head).  `type` is the command's options
 * struct, which names its fields as the rows do:
 *	int stripe_off, allgather, balance, super2;  (the choices' indices)
 *	uint32_t agents, sites;
 *	const char *site_algo, *site_sizes; */

/* The choices of --stripe, --allgather (enum lb_allgather), --balance
 * (enum lb_balance) and --super2 (enum lb_super2), in their enums' order. */
extern const char *const lb_stripe_choices[];
extern const char *const lb_allgather_choices[];
extern const char *const lb_balance_choices[];
extern const char *const lb_super2_choices[];

/* --stripe, --allgather, --balance, --super2, --agents */
#define LB_ALGO_OPT_ROWS(type)                                                                \
	{ LB_OPT("stripe", 0, NULL, "single-lane algorithms: spread slices over the lanes",   \
		 LB_OPT_ENUM, offsetof(type, stripe_off)), .def = "on",                       \
	  .choices = lb_stripe_choices },                                                     \
	{ LB_OPT("allgather", 0, NULL, "vandegeijn's allgather; auto = doubling for 2^n ranks, else ring", \
		 LB_OPT_ENUM, offsetof(type, allgather)), .def = "auto",                      \
	  .choices = lb_allgather_choices },                                                  \
	{ LB_OPT("balance", 0, NULL, "Williams & Parsons' HBSP^k (hbsp*, seed 004): each rank's share of the message, equal or proportional to its speed on the --platform", \
		 LB_OPT_ENUM, offsetof(type, balance)), .def = "equal",                       \
	  .choices = lb_balance_choices },                                                    \
	{ LB_OPT("super2", 0, NULL, "hbsp2-bcast: the root to the sites' coordinators in one phase (everything to each) or two (scatter, then exchange)", \
		 LB_OPT_ENUM, offsetof(type, super2)), .def = "1phase",                       \
	  .choices = lb_super2_choices },                                                     \
	{ LB_OPT("agents", 0, "auto|N", "Wu's cluster-agent-gb/-ts (seed 001): N agents (the N fastest nodes of the --platform by their send overhead, plus m / (k x rate) where a node has a rate), or auto: where the --platform gives nodes a rate, the count 1..p whose plan the LogP simulation (sim --model logp; bcast predicts them with it) finishes first, a tie to fewer agents (up to 64 nodes); without rates or beyond the count of least closed-form T_all (seed 001's model, Wu's Cluster Agents)", \
		 LB_OPT_HANDLER, offsetof(type, agents)), .def = "auto",                      \
	  .handler = lb_cli_set_agents, .show = lb_cli_show_agents }

/* --sites, --site-sizes: the site map (site_opt.h). */
#define LB_SITES_ROWS(type)                                                                   \
	{ LB_OPT("sites", 0, "N", "the ranks as N equal sites (as the multi-lane paper, seed 003 section 3.2): multilane chains them, binary and binomial: the root sends to each other site's first rank first, then per-site trees; where a command models the network (sim, bcast's predictions) the --wan-* options describe the WAN between sites", \
		 LB_OPT_UINT, offsetof(type, sites)), .def = "1", .min = 1, .max = LB_MAX_RANKS }, \
	{ LB_OPT("site-sizes", 0, "LIST", "sites of these sizes, in rank order (16,8,8), their total the rank count (plan and sim: -p defaults to it); without it and --sites, a --platform's site lines", \
		 LB_OPT_STRING, offsetof(type, site_sizes)) }

/* --site-algo */
#define LB_SITE_ALGO_ROW(type)                                                                \
	{ LB_OPT("site-algo", 0, "NAME", "Fkaier et al.'s algorithms (flat ... mostcrit, seed 002): the homogeneous algorithm each site of the platform runs from its coordinator (default binomial, the paper's)", \
		 LB_OPT_STRING, offsetof(type, site_algo)) }

/* ---- checking them ---- */

struct lb_cli_algo_opts {
	const struct lb_algo *const *algos; /* the algorithms chosen */
	size_t n;
	const char *site_algo;  /* --site-algo (NULL: binomial) */
	/* sim without --platform, and bcast: the sites are the network's (the
	 * simulator's WAN, bcast's predictions), so --sites, --site-sizes and
	 * --wan-* reach every homogeneous algorithm, not only the site-aware
	 * trees; plan, and sim on a platform (whose links are the network):
	 * 0, only the schedules of those trees change */
	int network_sites;
	/* sim without --platform: --alpha and --bw are the network's, so every
	 * algorithm's; plan, and sim with one: they only choose --slice auto's
	 * slice, by the refined model, so the algorithms that have one */
	int network_alpha;
	/* -k on lanes of one rate (sim and plan without --platform), else 0:
	 * multilane's halves on an odd k (check_lanes in algo_opt.c) */
	uint32_t lanes;
	/* the option lanes came from: NULL for -k (sim, plan), "nics" for
	 * bcast's -d list, which names the lanes one NIC each */
	const char *lanes_option;
};

/* For a command's check_given: 0, or -1 after saying which option no
 * chosen algorithm takes.  Notes on stderr the algorithms that ignore an
 * option others of the set take.  multilane alone on an odd number of
 * lanes above 1 is refused too (it runs as on one lane fewer), beside
 * other algorithms noted. */
int lb_cli_check_algo_opts(const struct lb_cmd *cmd, const unsigned char *given,
			   const struct lb_cli_algo_opts *ao);

#endif
