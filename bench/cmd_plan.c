/* lanebench plan: build one schedule, validate it, and show it as text (per
 * rank and lane, the ordered ops), a per-lane byte summary, or a Graphviz
 * graph of the trees.  With --platform FILE the schedule is built for (and
 * checked against) that network, and the platform algorithms (seed 000)
 * also print their tree's steady-state period, seed 002's the
 * coordinators' send order and the model's completion time.  The output
 * itself is report/plan_out.c's. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "net/platform.h"
#include "cli.h"
#include "engine/simsweep.h"
#include "model/agent_auto.h"
#include "model/lp.h"
#include "model/slice_auto.h"
#include "report/plan_out.h"
#include "lib/units.h"
#include "platform_file.h"
#include "algo_opt.h"
#include "root_opt.h"
#include "site_opt.h"

/* -a: one registry algorithm, or "list". */
struct algo_choice {
	const struct lb_algo *algo;
	int list;
};

struct plan_opts {
	struct algo_choice algo;
	uint32_t ranks, root, lanes, sites;
	uint64_t bytes, slice;
	double alpha, bw; /* the network --slice auto models */
	int stripe_off, allgather, format, balance, super2;
	uint32_t agents;
	const char *json;
	const char *platform, *site_algo;
	const char *site_sizes;
	struct lb_cli_sites site_map; /* resolved from sites, site_sizes, platform */
};

static int set_algo(void *target, const char *arg, char *err, size_t errlen)
{
	struct algo_choice *c = target;
	char known[256];
	c->list = strcmp(arg, "list") == 0;
	if (c->list || (c->algo = lb_algo_find(arg)))
		return 0;
	lb_cli_algo_names(known, sizeof(known));
	snprintf(err, errlen, "unknown algorithm '%s': expected list or one of %s", arg, known);
	return -1;
}

static void show_algo(const void *target, struct lb_buf *out)
{
	const struct algo_choice *c = target;
	lb_buf_add(out, "%s", c->list ? "list" : c->algo ? c->algo->name : "-");
}

#define OFF(f) offsetof(struct plan_opts, f)

static const struct lb_opt opts[] = {
	{ LB_OPT("algorithm", 'a', "ALGO", "algorithm (see below), or 'list' to list them",
	  LB_OPT_HANDLER, OFF(algo)), .handler = set_algo, .show = show_algo, .required = 1 },
	{ LB_OPT("ranks", 'p', "RANKS", "number of ranks (required unless -a list)",
	  LB_OPT_UINT, OFF(ranks)), .min = 1, .max = LB_MAX_RANKS },
	{ LB_OPT("root", 'r', "ROOT", "rank that holds the message; fastest: the --platform's fastest rank by its nodes' rates",
	  LB_OPT_HANDLER, OFF(root)), .def = "0", .handler = lb_cli_set_root, .show = lb_cli_show_root },
	{ LB_OPT("lanes", 'k', "LANES", "lanes (NICs, rails) per rank", LB_OPT_UINT, OFF(lanes)),
	  .def = "2", .min = 1, .max = 64 },
	{ LB_OPT("message-size", 'm', "BYTES", "message size, e.g. 1M (required unless -a list); an allgather's is each rank's contribution (p x it in all)",
	  LB_OPT_SIZE, OFF(bytes)) },
	{ LB_OPT("slice", 's', "BYTES", "pipelining unit (default: the whole message); auto: the fastest by the refined model (settled by the simulator where cheap) with --alpha and --bw; for the platform algorithms, which have no such model, 1 MiB (Beaumont et al.'s slice)",
	  LB_OPT_SLICE, OFF(slice)) },
	{ LB_OPT("alpha", 0, "SECONDS", "--slice auto: per-transfer latency of a lane, as sim's",
	  LB_OPT_SECONDS, OFF(alpha)), .def = "5us" },
	{ LB_OPT("bw", 0, "RATE", "--slice auto: bandwidth of one lane, as sim's",
	  LB_OPT_RATE, OFF(bw)), .def = "10gbit" },
	LB_ALGO_OPT_ROWS(struct plan_opts),
	LB_SITES_ROWS(struct plan_opts),
	{ LB_OPT("format", 'f', NULL, "output: ops per rank and lane, Graphviz trees, or bytes per lane",
	  LB_OPT_ENUM, OFF(format)), .def = "text",
	  .choices = (const char *const[]){ "text", "dot", "summary", NULL } },
	LB_SITE_ALGO_ROW(struct plan_opts),
	{ LB_OPT("platform", 0, "FILE", "the network (net/platform.h's text format): the platform algorithms need it, the others are checked against its links; -p defaults to its nodes, -k is capped at its lanes",
	  LB_OPT_STRING, OFF(platform)) },
	{ LB_OPT("json", 0, "FILE", "also write every op as a row of one JSON document (results/README.md); '-': to stdout, the plan then to stderr",
	  LB_OPT_STRING, OFF(json)) },
};

static void plan_more_help(FILE *out)
{
	fputs("algorithms:\n", out);
	lb_cli_list_algos(out);
	fputs("A routed transfer's pass through a relay (binomial-routed) is shown as 'transit'.\n"
	      "More blocks of the same message (cluster-agent-*: one message, several block ranges)\n"
	      "follow it as '+[first,end)'.\n", out);
}

/* ---- the command ---- */

static int check_plan_opts(const struct lb_cmd *cmd, const struct plan_opts *o)
{
	if (o->ranks == 0) {
		lb_cli_error(cmd, "ranks", "missing (required; see lanebench plan --help)");
		return -1;
	}
	if (o->bytes == 0) {
		lb_cli_error(cmd, "message-size", "missing (required; see lanebench plan --help)");
		return -1;
	}
	if (lb_cli_sites_check_ranks(cmd, &o->site_map, o->ranks))
		return -1;
	if (o->root >= o->ranks) {
		lb_cli_error(cmd, "root", "root %u out of range for %u ranks (expected 0..%u)",
			     o->root, o->ranks, o->ranks - 1);
		return -1;
	}
	return 0;
}

/* Validates s, then prints it (and the JSON document): 0, 1, or 2 when
 * the schedule needs a link the --platform lacks (the user's input). */
static int show_plan(const struct lb_cmd *cmd, const struct plan_opts *o,
		     const struct lb_schedule *s, const struct lb_algo_params *prm, double tp_star,
		     double agents_auto_s)
{
	char err[512];
	FILE *out = o->json && strcmp(o->json, "-") == 0 ? stderr : stdout;
	if (lb_sched_check_links(s, err, sizeof(err))) {
		lb_cli_error(cmd, NULL, "%s on the platform: %s", o->algo.algo->name, err);
		return LB_EXIT_USAGE;
	}
	if (lb_sched_validate(s, err, sizeof(err))) {
		lb_cli_error(cmd, NULL, "invalid schedule: %s", err);
		return 1;
	}
	const struct lb_plan_notes notes = {
		.format = (enum lb_plan_format)o->format, .slice_auto = o->slice == LB_SLICE_AUTO,
		.alpha = o->alpha, .bw = o->bw, .agents_given = o->agents != 0,
		.agents_auto_s = agents_auto_s, .tp_star = tp_star,
	};
	lb_plan_print_notes(out, o->algo.algo, prm, &notes);
	if (lb_plan_print(out, s, o->algo.algo, (enum lb_plan_format)o->format)) {
		lb_cli_error(cmd, NULL, "out of memory");
		return 1;
	}
	if (fflush(out) == EOF || ferror(out)) {
		lb_cli_error(cmd, NULL, "cannot write the plan: %s", strerror(errno));
		return 1;
	}
	return o->json && lb_cli_write_json(cmd, o, o->json, &lb_plan_ops_json, s) ? 1 : 0;
}

/* --platform: the file read, or NULL without one; *bad on a bad file. */
static struct lb_platform *load_platform(const struct lb_cmd *cmd, const struct plan_opts *o,
					 int *bad)
{
	char err[512];
	struct lb_platform *pf = NULL;
	*bad = 0;
	if (o->platform && !(pf = lb_platform_read_file(o->platform, err, sizeof(err)))) {
		lb_cli_error(cmd, "platform", "%s", err);
		*bad = 1;
	}
	return pf;
}

/* The options as the build sees them: -p defaults to the site map's
 * total, or with a platform to its nodes and -k is capped at its lanes (the provenance keeps them as given). */
static struct plan_opts effective(const struct plan_opts *o, const struct lb_platform *pf)
{
	struct plan_opts e = *o;
	if (e.site_map.first && e.ranks == 0)
		e.ranks = e.site_map.ranks;
	if (pf && e.ranks == 0)
		e.ranks = pf->nodes;
	if (pf && e.lanes > pf->lanes)
		e.lanes = pf->lanes;
	return e;
}

/* The LP heuristics' edge loads n_{u,v}: LP (2) solved for the platform, the
 * root, lane 0 and the plan's slice, phase 2 minimising the total link
 * occupation (the default; docs/papers.md#seed000-lp), into *lp.  Every other
 * reason the algorithm cannot run is reported first, by lb_algo_build (checked
 * here with a stand-in for the loads).  A one-node platform needs no loads (no
 * edge): the stand-in is its 1 x 1 table.  0, or the exit status. */
static int solve_lp(const struct lb_cmd *cmd, const struct lb_algo *a,
		    struct lb_algo_params *prm, const char *platform_name, struct lb_lp_result *lp)
{
	static const double stand_in[1] = { 0 };
	struct lb_algo_params probe = *prm;
	char err[512];
	probe.lp_load = stand_in;
	if (!(a->needs & LB_ALGO_NEEDS_LP) || lb_algo_check(a, &probe, NULL, 0))
		return 0;
	if (prm->platform->nodes == 1) {
		prm->lp_load = stand_in;
		return 0;
	}
	uint64_t slice = lb_div_ceil(prm->bytes, lb_slice_count(prm->bytes, prm->slice_bytes));
	int rc = lb_lp_bound(prm->platform, prm->root, 0, slice, LB_LP_PHASE2_TIME, lp, err,
			     sizeof(err));
	if (rc) {
		lb_cli_error(cmd, NULL, "%s: the LP bound of platform %s: %s", a->name, platform_name,
			     err);
		return rc == LB_LP_TOO_BIG ? LB_EXIT_TOO_BIG : LB_EXIT_FAILED;
	}
	prm->lp_load = lp->load;
	return 0;
}

static int build_and_show(const struct lb_cmd *cmd, const struct plan_opts *o,
			  const struct plan_opts *e, const struct lb_platform *pf)
{
	char err[512];
	struct lb_algo_params prm = {
		.ranks = e->ranks, .root = e->root, .lanes = e->lanes, .bytes = e->bytes,
		.slice_bytes = e->slice, .stripe_off = e->stripe_off,
		.allgather = (enum lb_allgather)e->allgather, .sites = e->site_map.sites,
		.site_first = e->site_map.first, .platform = pf, .site_algo = e->site_algo,
		.balance = (enum lb_balance)e->balance, .super2 = (enum lb_super2)e->super2,
		.agents = e->agents,
	};
	if (e->slice == LB_SLICE_AUTO)
		prm.slice_bytes = lb_slice_auto(e->algo.algo, &prm, e->alpha, e->bw);
	double agents_auto_s;
	prm.agents = lb_agent_auto(e->algo.algo, &prm, &agents_auto_s);
	struct lb_lp_result lp = { .tp = NAN };
	if (lb_schedule_fits(e->algo.algo, &prm, err, sizeof(err))) { /* as sim refuses it */
		lb_cli_error(cmd, NULL, "%s", err);
		return LB_EXIT_TOO_BIG;
	}
	int rc = solve_lp(cmd, e->algo.algo, &prm, o->platform, &lp);
	struct lb_schedule *s = rc ? NULL : lb_algo_build(e->algo.algo, &prm, err, sizeof(err));
	if (!s && !rc) {
		lb_cli_error(cmd, NULL, "%s", err);
		rc = LB_EXIT_USAGE;
	}
	if (s)
		rc = show_plan(cmd, o, s, &prm, lp.tp, agents_auto_s);
	lb_sched_free(s);
	lb_lp_result_free(&lp);
	return rc;
}

static int plan(const struct lb_cmd *cmd, void *base)
{
	const struct plan_opts *o = base;
	if (o->algo.list) {
		lb_cli_list_algos(stdout);
		return 0;
	}
	if (lb_cli_check_targets(cmd, NULL, o->json))
		return LB_EXIT_USAGE;
	int bad;
	struct lb_platform *pf = load_platform(cmd, o, &bad);
	struct plan_opts e = *o;
	bad = bad || lb_cli_sites_resolve(cmd, o->sites, o->site_sizes, pf, &e.site_map);
	e = effective(&e, pf);
	bad = bad || (e.root == LB_ROOT_FASTEST_RANK && lb_cli_root_fastest(cmd, pf, &e.root));
	int rc = bad || check_plan_opts(cmd, &e) ? LB_EXIT_USAGE : build_and_show(cmd, o, &e, pf);
	free(e.site_map.first);
	lb_platform_free(pf);
	return rc;
}

/* lb_cmd.check_given: the algorithm takes every option given (bench/algo_opt.h),
 * and --alpha and --bw come with --slice auto, the only thing they choose. */
static int check_given(const struct lb_cmd *cmd, const void *base, const unsigned char *given)
{
	const struct plan_opts *o = base;
	const struct lb_cli_algo_opts ao = { .algos = &o->algo.algo, .n = 1,
					     .site_algo = o->site_algo,
					     .lanes = o->platform ? 0 : o->lanes };
	for (size_t i = 0; i < cmd->nopts; i++) {
		const char *name = cmd->opts[i].name;
		if (given[i] && o->slice != LB_SLICE_AUTO &&
		    (strcmp(name, "alpha") == 0 || strcmp(name, "bw") == 0)) {
			lb_cli_error(cmd, name, "chooses --slice auto's slice, and the slice is not auto");
			return -1;
		}
	}
	return o->algo.list ? 0 : lb_cli_check_algo_opts(cmd, given, &ao);
}

static int run_plan(const struct lb_cmd *cmd, int argc, char **argv)
{
	struct plan_opts o = { .algo = { NULL, 0 } };
	return lb_cli_run(cmd, argc, argv, &o, plan);
}

const struct lb_cmd lb_cmd_plan = {
	.name = "plan",
	.summary = "build one algorithm's schedule, validate it, print it (text, summary, dot)",
	.usage = "-a ALGO -p RANKS -m BYTES [-r ROOT] [-k LANES] [options]",
	.opts = opts,
	.nopts = sizeof(opts) / sizeof(opts[0]),
	.more_help = plan_more_help,
	.run = run_plan,
	.check_given = check_given,
};
