/* lanebench lp --platform FILE: seed 000's steady-state bound TP* of a
 * broadcast on a platform (model/lp.h: LP (2), solved with GLPK), and the
 * per-edge loads n_{u,v} of the solution phase 2 picks. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "lib/units.h"
#include "model/lp.h"
#include "platform_file.h"

struct lp_opts {
	const char *platform;
	uint32_t root, lane;
	uint64_t slice;
	int phase2; /* enum lb_lp_phase2 */
	const char *write_lp;
	const char *json;
};

#define OFF(f) offsetof(struct lp_opts, f)

/* In the order of enum lb_lp_phase2. */
static const char *const phase2_names[] = { "time", "sum", "none", NULL };

static const char *const phase2_meaning[] = {
	"'time' (min sum of T*n)",
	"'sum' (min sum of n)",
	"'none' (phase 1's loads)",
};

static const struct lb_opt opts[] = {
	{ LB_OPT("platform", 0, "FILE", "the platform file ('-': stdin; format: net/platform.h)",
		 LB_OPT_STRING, OFF(platform)), .required = 1 },
	{ LB_OPT("root", 0, "R", "the node that broadcasts", LB_OPT_UINT, OFF(root)),
	  .def = "0", .min = 0, .max = LB_PLATFORM_MAX_NODES - 1 },
	{ LB_OPT("lane", 0, "L", "the lane whose links carry the broadcast", LB_OPT_UINT, OFF(lane)),
	  .def = "0", .min = 0, .max = LB_PLATFORM_MAX_LANES - 1 },
	{ LB_OPT("slice", 0, "SIZE", "bytes per slice: T_{u,v} = occ + SIZE / bw", LB_OPT_SIZE,
		 OFF(slice)), .def = "1000000" },
	{ LB_OPT("lp-phase2", 0, NULL, "which optimal loads to report (see below)", LB_OPT_ENUM,
		 OFF(phase2)), .def = "time", .choices = phase2_names },
	{ LB_OPT("write-lp", 0, "FILE", "also write phase 1's LP in CPLEX-LP form (glpsol --lp FILE)",
		 LB_OPT_STRING, OFF(write_lp)) },
	{ LB_OPT("json", 0, "FILE", "also write the bound and the loads as rows of one JSON document "
		 "(results/README.md); '-': to stdout, the report then to stderr",
		 LB_OPT_STRING, OFF(json)) },
};

/* ---- the report ---- */

/* Loads below this fraction of TP* are the simplex's rounding, not flow. */
#define LOAD_SHOWN 1e-9

static int load_shown(const struct lb_lp_result *r, uint32_t u, uint32_t v)
{
	return r->load[u * r->nodes + v] > LOAD_SHOWN * r->tp;
}

static void print_report(FILE *f, const struct lp_opts *o, const struct lb_platform *pf,
			 const struct lb_lp_result *r)
{
	char slice[32], period[32];
	lb_format_size(o->slice, slice, sizeof(slice));
	lb_format_seconds(1 / r->tp, period, sizeof(period));
	fprintf(f, "platform %s: %u nodes, root %u, lane %u, slices of %s bytes\n",
		strcmp(o->platform, "-") == 0 ? "stdin" : o->platform, pf->nodes, o->root,
		o->lane, slice);
	fprintf(f, "TP* = %.10g slices/s = %.6g bytes/s; period 1/TP* = %s\n", r->tp,
		r->tp * (double)o->slice, period);
	fprintf(f, "loads, phase 2 %s: n in slices/s, occupation n*T in s/s\n",
		phase2_meaning[o->phase2]);
	for (uint32_t u = 0; u < r->nodes; u++)
		for (uint32_t v = 0; v < r->nodes; v++)
			if (load_shown(r, u, v)) {
				double n = r->load[u * r->nodes + v];
				fprintf(f, "  %u -> %u: %.10g, occupation %.10g\n", u, v, n,
					n * lb_platform_occupation(pf, u, v, o->lane, o->slice));
			}
}

/* ---- json: a "bound" row, then a "load" row per shown edge ---- */

static const struct lb_col lp_columns[] = {
	{ LB_COLUMN("row", LB_COL_TEXT) }, /* "bound" or "load" */
	{ LB_COLUMN("from", LB_COL_REAL) }, /* load rows: u */
	{ LB_COLUMN("to", LB_COL_REAL) },   /* load rows: v */
	{ LB_COLUMN("slices_per_second", LB_COL_REAL) }, /* TP*, or n_{u,v} */
	{ LB_COLUMN("bytes_per_second", LB_COL_REAL) },  /* the same times the slice */
	{ LB_COLUMN("period_seconds", LB_COL_REAL) },    /* bound: 1 / TP* */
	{ LB_COLUMN("occupation_seconds_per_second", LB_COL_REAL) }, /* load: n * T */
};

#define NLP_COLUMNS (sizeof(lp_columns) / sizeof(lp_columns[0]))

/* What the rows are made of: the options (slice, lane), the platform, the
 * solution. */
struct lp_json {
	const struct lp_opts *o;
	const struct lb_platform *pf;
	const struct lb_lp_result *r;
};

static int json_rows(struct lb_json *j, const void *ctx, char *err, size_t len)
{
	const struct lp_json *in = ctx;
	const struct lp_opts *o = in->o;
	const struct lb_lp_result *r = in->r;
	double slice = (double)o->slice;
	const union lb_val bound[NLP_COLUMNS] = {
		{ .s = "bound" }, { .d = NAN }, { .d = NAN }, { .d = r->tp },
		{ .d = r->tp * slice }, { .d = 1 / r->tp }, { .d = NAN },
	};
	if (lb_json_table_row(j, bound, err, len))
		return -1;
	for (uint32_t u = 0; u < r->nodes; u++)
		for (uint32_t v = 0; v < r->nodes; v++) {
			if (!load_shown(r, u, v))
				continue;
			double n = r->load[u * r->nodes + v];
			double T = lb_platform_occupation(in->pf, u, v, o->lane, o->slice);
			const union lb_val load[NLP_COLUMNS] = {
				{ .s = "load" }, { .d = u }, { .d = v }, { .d = n },
				{ .d = n * slice }, { .d = NAN }, { .d = n * T },
			};
			if (lb_json_table_row(j, load, err, len))
				return -1;
		}
	return 0;
}

static const struct lb_json_table lp_table = {
	.cols = lp_columns, .ncols = NLP_COLUMNS, .rows = json_rows,
};

/* ---- the command ---- */

/* Bad input is the user's (exit 2), found before GLPK runs, so that
 * lb_lp_bound's failures left are the solver's (exit 1). */
static int check_input(const struct lb_cmd *cmd, const struct lp_opts *o,
		       const struct lb_platform *pf)
{
	char err[512];
	if (o->root >= pf->nodes) {
		lb_cli_error(cmd, "root", "root %u out of range: the platform has %u nodes (0-%u)",
			     o->root, pf->nodes, pf->nodes - 1);
		return -1;
	}
	if (o->lane >= pf->lanes) {
		lb_cli_error(cmd, "lane", "lane %u out of range: the platform has %u lane%s (0-%u)",
			     o->lane, pf->lanes, pf->lanes == 1 ? "" : "s", pf->lanes - 1);
		return -1;
	}
	if (pf->nodes < 2) {
		lb_cli_error(cmd, "platform", "one node: no destination, TP* is unbounded");
		return -1;
	}
	if (lb_platform_check_reachable(pf, o->root, o->lane, err, sizeof(err)) != 0) {
		lb_cli_error(cmd, "platform", "%s", err);
		return -1;
	}
	return 0;
}

/* An LP that cannot fit in memory is refused (4), a GLPK failure is the
 * run's (1); either names the platform (opt: the option whose step failed). */
static int lp_failed(const struct lb_cmd *cmd, const char *opt, const struct lp_opts *o, int rc,
		     const char *err)
{
	lb_cli_error(cmd, rc == LB_LP_TOO_BIG ? NULL : opt, "platform %s: %s", o->platform, err);
	return rc == LB_LP_TOO_BIG ? LB_EXIT_TOO_BIG : LB_EXIT_FAILED;
}

static int solve_and_report(const struct lb_cmd *cmd, const struct lp_opts *o,
			    const struct lb_platform *pf)
{
	char err[512];
	struct lb_lp_result r;
	int rc = o->write_lp ? lb_lp_write_cplex(pf, o->root, o->lane, o->slice, o->write_lp, err,
						 sizeof(err)) : 0;
	if (rc)
		return lp_failed(cmd, "write-lp", o, rc, err);
	rc = lb_lp_bound(pf, o->root, o->lane, o->slice, (enum lb_lp_phase2)o->phase2, &r, err,
			 sizeof(err));
	if (rc)
		return lp_failed(cmd, NULL, o, rc, err);
	print_report(o->json && strcmp(o->json, "-") == 0 ? stderr : stdout, o, pf, &r);
	const struct lp_json in = { .o = o, .pf = pf, .r = &r };
	rc = o->json && lb_cli_write_json(cmd, o, o->json, &lp_table, &in) ? LB_EXIT_FAILED : 0;
	lb_lp_result_free(&r);
	return rc;
}

static int lp_body(const struct lb_cmd *cmd, void *base)
{
	const struct lp_opts *o = base;
	char err[1024];
	if (lb_cli_check_targets(cmd, NULL, o->json))
		return LB_EXIT_USAGE;
	struct lb_platform *pf = lb_platform_read_file(o->platform, err, sizeof(err));
	if (!pf) {
		lb_cli_error(cmd, "platform", "%s", err);
		return LB_EXIT_USAGE;
	}
	int rc = check_input(cmd, o, pf) ? LB_EXIT_USAGE : solve_and_report(cmd, o, pf);
	lb_platform_free(pf);
	return rc;
}

static int run_lp(const struct lb_cmd *cmd, int argc, char **argv)
{
	struct lp_opts o = { 0 };
	return lb_cli_run(cmd, argc, argv, &o, lp_body);
}

static void lp_more_help(FILE *out)
{
	fputs("TP* is the steady-state bound of seed 000 (Beaumont, Marchal, Robert): the most\n"
	      "slices per second a broadcast from the root can deliver to every node, over\n"
	      "any set of trees, when every node sends one slice at a time and receives one\n"
	      "at a time (one-port).  It is the optimum of linear program (2) of the paper,\n"
	      "solved with GLPK's simplex; heuristics' trees are scored as TP / TP*.\n"
	      "\n"
	      "Units: T_{u,v} = occ + SIZE / bw seconds, the time a slice keeps both ports of\n"
	      "the link u -> v busy (latency is left out: a pipelined stream pays it once).\n"
	      "TP* is in slices per second; times the slice it is bytes per second (with\n"
	      "the default 1000000-byte slice, slices/s are MB/s); its period 1/TP* is the\n"
	      "time between two slices.  n_{u,v} is how many slices cross u -> v per second,\n"
	      "its occupation n*T the fraction of a second it keeps u's and v's ports busy.\n"
	      "Loads below TP* x 1e-9 are rounding and not shown.\n"
	      "\n"
	      "Many loads reach TP*; --lp-phase2 picks one, deterministically: phase 1\n"
	      "maximises TP, phase 2 keeps TP >= TP* (1 - 1e-7) and minimises\n"
	      "  time  the sum of T*n (total link occupation; the default)\n"
	      "  sum   the sum of n\n"
	      "  none  no phase 2: phase 1's loads as the simplex left them\n"
	      "\n"
	      "Size: (nodes - 1) x edges columns: 65 nodes and 240 directed edges take about\n"
	      "20 s of CPU; a dense 50-node platform takes minutes.\n"
	      "\n"
	      "Exit 2 on bad input (the file, root, lane, or a node the root cannot reach:\n"
	      "named), 1 when GLPK fails (its reason given), 4 when the LP would not fit in\n"
	      "the memory available (about 2 KB per flow variable; the figures given).\n", out);
}

const struct lb_cmd lb_cmd_lp = {
	.name = "lp",
	.summary = "the steady-state broadcast bound TP* of a platform (Beaumont et al.'s LP, GLPK)",
	.usage = "--platform FILE [--root R] [--lane L] [--slice SIZE] [--lp-phase2 time|sum|none] "
		 "[--write-lp FILE] [--json FILE|-]",
	.opts = opts,
	.nopts = sizeof(opts) / sizeof(opts[0]),
	.more_help = lp_more_help,
	.run = run_lp,
};
