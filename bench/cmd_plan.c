/* lanebench plan: build one schedule, validate it, and show it as text (per
 * rank and lane, the ordered ops), a per-lane byte summary, or a Graphviz
 * graph of the trees.  With --platform FILE the schedule is built for (and
 * checked against) that network, and the platform algorithms (seed 000)
 * also print their tree's steady-state period, seed 002's the
 * coordinators' send order and the model's completion time. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algos/agent_coll.h"
#include "algos/coord_platform.h"
#include "algos/platform.h"
#include "cli.h"
#include "engine/simsweep.h"
#include "model/agent_auto.h"
#include "model/lp.h"
#include "model/slice.h"
#include "report/table.h"
#include "lib/units.h"
#include "platform_file.h"
#include "algo_opt.h"
#include "root_opt.h"
#include "agents_opt.h"
#include "site_opt.h"

enum plan_format { FMT_TEXT, FMT_DOT, FMT_SUMMARY };

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
	{ LB_OPT("stripe", 0, NULL, "single-lane algorithms: spread slices over the lanes",
	  LB_OPT_ENUM, OFF(stripe_off)), .def = "on",
	  .choices = (const char *const[]){ "on", "off", NULL } },
	{ LB_OPT("allgather", 0, NULL, "vandegeijn's allgather; auto = doubling for 2^n ranks, else ring",
	  LB_OPT_ENUM, OFF(allgather)), .def = "auto",
	  .choices = (const char *const[]){ "auto", "doubling", "ring", NULL } },
	{ LB_OPT("balance", 0, NULL, "Williams & Parsons' HBSP^k (hbsp*, seed 004): each rank's share of the message, equal or proportional to its speed on the platform",
	  LB_OPT_ENUM, OFF(balance)), .def = "equal",
	  .choices = (const char *const[]){ "equal", "speed", NULL } },
	{ LB_OPT("super2", 0, NULL, "hbsp2-bcast: the root to the sites' coordinators in one phase (everything to each) or two (scatter, then exchange)",
	  LB_OPT_ENUM, OFF(super2)), .def = "1phase",
	  .choices = (const char *const[]){ "1phase", "2phase", NULL } },
	LB_AGENTS_OPT(OFF(agents)),
	{ LB_OPT("sites", 0, "N", "equal sites (as the multi-lane paper, seed 003 section 3.2): multilane chains them, binary and binomial: the root sends to each other site's first rank first, then per-site trees",
	  LB_OPT_UINT, OFF(sites)), .def = "1", .min = 1, .max = LB_MAX_RANKS },
	{ LB_OPT("site-sizes", 0, "LIST", "sites of these sizes, in rank order (16,8,8); -p defaults to their total; without it and --sites, a --platform's site lines",
	  LB_OPT_STRING, OFF(site_sizes)) },
	{ LB_OPT("format", 'f', NULL, "output: ops per rank and lane, Graphviz trees, or bytes per lane",
	  LB_OPT_ENUM, OFF(format)), .def = "text",
	  .choices = (const char *const[]){ "text", "dot", "summary", NULL } },
	{ LB_OPT("site-algo", 0, "NAME", "Fkaier et al.'s algorithms (flat ... mostcrit, seed 002): the homogeneous algorithm each site of the platform runs from its coordinator (default binomial, the paper's)",
	  LB_OPT_STRING, OFF(site_algo)) },
	{ LB_OPT("platform", 0, "FILE", "the network (algos/platform.h's text format): the platform algorithms need it, the others are checked against its links; -p defaults to its nodes, -k is capped at its lanes",
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

/* The op's name in the JSON rows: a transit op is told apart by its value,
 * so the columns stay those of every other plan. */
static const char *op_name(const struct lb_op *op)
{
	if (op->flags & LB_OP_TRANSIT)
		return op->kind == LB_SEND ? "transit-send" : "transit-recv";
	if (op->kind == LB_BARRIER)
		return "barrier";
	return op->kind == LB_SEND ? "send" : "recv";
}

/* ---- text: every op, per rank and lane ---- */

#define TEXT_WIDTH 100

static void print_lane(FILE *out, const struct lb_schedule *s, uint32_t r, uint32_t lane)
{
	uint32_t n;
	const struct lb_op *op = lb_lane_ops(s, r, lane, &n);
	int indent = fprintf(out, "  lane %u:", lane), col = indent;
	if (n == 0)
		fputs(" (idle)", out);
	for (uint32_t i = 0; i < n; i++, op++) {
		char tok[64];
		int len = op->kind == LB_BARRIER
			? snprintf(tok, sizeof(tok), "barrier:%u", op->peer) /* its group */
			: op->flags & LB_OP_CONT
			? snprintf(tok, sizeof(tok), "+[%u,%u)", op->first_block,
				   op->first_block + op->nblocks)
			: snprintf(tok, sizeof(tok), "%s%u [%u,%u)%s",
				   op->kind == LB_SEND ? "send->" : "recv<-", op->peer,
				   op->first_block, op->first_block + op->nblocks,
				   op->flags & LB_OP_TRANSIT ? " transit" : "");
		if (col > indent && col + 2 + len > TEXT_WIDTH) { /* wrap under the first op */
			fprintf(out, "\n%*s", indent, "");
			col = indent;
		}
		col += fprintf(out, "%s%s", col > indent ? "  " : " ", tok);
	}
	fputc('\n', out);
}

static void print_header(FILE *out, const struct lb_schedule *s, const struct lb_algo *a)
{
	char size[32];
	lb_table_format_size(s->bytes, size, sizeof(size)); /* as tables write it */
	fprintf(out, "%s: %s\n", a->name, a->summary);
	fprintf(out, "algorithm %s, ranks %u, root %u, lanes %u, bytes %llu (%s), blocks %u, ops %zu\n",
		a->name, s->ranks, s->root, s->lanes, (unsigned long long)s->bytes, size,
		s->nblocks, lb_sched_op_count(s));
}

static void print_text(FILE *out, const struct lb_schedule *s, const struct lb_algo *a)
{
	print_header(out, s, a);
	for (uint32_t r = 0; r < s->ranks; r++) {
		fprintf(out, "rank %u%s:\n", r, r == s->root ? " (root)" : "");
		for (uint32_t l = 0; l < s->lanes; l++)
			print_lane(out, s, r, l);
	}
}

/* ---- summary: bytes per rank and lane ---- */

static void print_summary(FILE *out, const struct lb_schedule *s, const struct lb_algo *a)
{
	print_header(out, s, a);
	fprintf(out, "%6s %4s %7s %7s %14s %14s\n", "rank", "lane", "sends", "recvs",
		"sent_bytes", "received_bytes");
	for (uint32_t r = 0; r < s->ranks; r++) {
		for (uint32_t l = 0; l < s->lanes; l++) {
			uint32_t n, sends = 0, recvs = 0;
			uint64_t bytes[2] = { 0, 0 };
			const struct lb_op *op = lb_lane_ops(s, r, l, &n);
			for (uint32_t i = 0; i < n; i++) {
				if (op[i].kind == LB_BARRIER)
					continue;
				sends += op[i].kind == LB_SEND;
				recvs += op[i].kind == LB_RECV;
				bytes[op[i].kind] += lb_range_bytes(s, op[i].first_block,
								    op[i].nblocks);
			}
			fprintf(out, "%6u %4u %7u %7u %14llu %14llu\n", r, l, sends, recvs,
				(unsigned long long)bytes[LB_SEND],
				(unsigned long long)bytes[LB_RECV]);
		}
	}
}

/* ---- dot: one edge per (src, dst, lane), blocks summed ----
 * Colour is the tree: edges that start at the same block carry the same
 * part of the message (multilane's halves, klane's k parts; one colour for
 * a single tree, one per lane when its slices are striped); the line style
 * is the lane. */

static const char *const tree_colors[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
	"#9467bd", "#8c564b", "#e377c2", "#17becf",
};

static const char *const lane_styles[] = { "solid", "dashed", "dotted", "bold" };

#define NCOLORS (sizeof(tree_colors) / sizeof(tree_colors[0]))
#define NSTYLES (sizeof(lane_styles) / sizeof(lane_styles[0]))

struct edge {
	uint32_t dst, first;
	uint64_t blocks;
};

static int by_dst(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;
	return (x->dst > y->dst) - (x->dst < y->dst);
}

static int by_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* Edges out of (r, lane) into tmp: its SENDs sorted by peer, runs merged,
 * each with its first block.  Returns the count. */
static uint32_t lane_edges(const struct lb_schedule *s, uint32_t r, uint32_t lane,
			   struct edge *tmp)
{
	uint32_t n, m = 0, out = 0;
	const struct lb_op *op = lb_lane_ops(s, r, lane, &n);
	for (uint32_t i = 0; i < n; i++)
		if (op[i].kind == LB_SEND)
			tmp[m++] = (struct edge){ op[i].peer, op[i].first_block, op[i].nblocks };
	qsort(tmp, m, sizeof(*tmp), by_dst);
	for (uint32_t i = 0; i < m; i++) {
		struct edge e = tmp[i];
		while (i + 1 < m && tmp[i + 1].dst == e.dst) {
			i++;
			e.blocks += tmp[i].blocks;
			e.first = tmp[i].first < e.first ? tmp[i].first : e.first;
		}
		tmp[out++] = e;
	}
	return out;
}

/* The distinct first blocks of all edges, ascending: index = tree.
 * (There are no more edges than ops.) */
static uint32_t *tree_starts(const struct lb_schedule *s, struct edge *tmp, size_t *count)
{
	size_t n = 0;
	uint32_t *first = malloc((lb_sched_op_count(s) + 1) * sizeof(*first));
	if (!first)
		return NULL;
	for (uint32_t r = 0; r < s->ranks; r++)
		for (uint32_t l = 0; l < s->lanes; l++) {
			uint32_t m = lane_edges(s, r, l, tmp);
			for (uint32_t i = 0; i < m; i++)
				first[n++] = tmp[i].first;
		}
	qsort(first, n, sizeof(*first), by_u32);
	size_t u = 0;
	for (size_t i = 0; i < n; i++)
		if (u == 0 || first[u - 1] != first[i])
			first[u++] = first[i];
	*count = u;
	return first;
}

static void print_lane_edges(FILE *out, const struct lb_schedule *s, uint32_t r,
			     uint32_t lane, struct edge *tmp, const uint32_t *starts,
			     size_t nstarts)
{
	uint32_t m = lane_edges(s, r, lane, tmp);
	for (uint32_t i = 0; i < m; i++) {
		const uint32_t *t = bsearch(&tmp[i].first, starts, nstarts, sizeof(*starts), by_u32);
		const char *color = tree_colors[(size_t)(t - starts) % NCOLORS];
		fprintf(out, "\tr%u -> r%u [label=\"lane %u: %llu blocks\", color=\"%s\", fontcolor=\"%s\", style=%s];\n",
			r, tmp[i].dst, lane, (unsigned long long)tmp[i].blocks, color, color,
			lane_styles[lane % NSTYLES]);
	}
}

static int print_dot(FILE *out, const struct lb_schedule *s, const struct lb_algo *a)
{
	char size[32];
	size_t most = 1, nstarts = 0;
	for (uint32_t r = 0; r < s->ranks; r++)
		if (s->rank[r].count > most)
			most = s->rank[r].count;
	struct edge *tmp = malloc(most * sizeof(*tmp));
	uint32_t *starts = tmp ? tree_starts(s, tmp, &nstarts) : NULL;
	if (!starts) {
		free(tmp);
		return -1;
	}
	lb_table_format_size(s->bytes, size, sizeof(size));
	fprintf(out, "digraph \"%s\" {\n\tlabel=\"%s: %u ranks, root %u, %u lanes, %s, %u blocks\\n"
		"colour: tree (the block its edges start at); line: lane (solid 0, dashed 1, dotted 2, bold 3)\";\n"
		"\tlabelloc=t;\n\tnode [shape=circle];\n",
		a->name, a->name, s->ranks, s->root, s->lanes, size, s->nblocks);
	for (uint32_t r = 0; r < s->ranks; r++)
		fprintf(out, "\tr%u [label=\"%u\"%s];\n", r, r,
			r == s->root ? ", shape=doublecircle, style=filled, fillcolor=gold" : "");
	for (uint32_t r = 0; r < s->ranks; r++)
		for (uint32_t l = 0; l < s->lanes; l++)
			print_lane_edges(out, s, r, l, tmp, starts, nstarts);
	fputs("}\n", out);
	free(starts);
	free(tmp);
	return 0;
}

/* ---- json: a row per op ---- */

static const struct lb_col op_columns[] = {
	{ LB_COLUMN("rank", LB_COL_UINT) },
	{ LB_COLUMN("lane", LB_COL_UINT) },
	{ LB_COLUMN("index", LB_COL_UINT) },
	{ LB_COLUMN("op", LB_COL_TEXT) },
	{ LB_COLUMN("peer", LB_COL_UINT) },
	{ LB_COLUMN("first_block", LB_COL_UINT) },
	{ LB_COLUMN("blocks", LB_COL_UINT) },
	{ LB_COLUMN("bytes", LB_COL_UINT) },
};

#define NOP_COLUMNS (sizeof(op_columns) / sizeof(op_columns[0]))

static int json_lane(struct lb_json *j, const struct lb_schedule *s, uint32_t r, uint32_t l,
		     char *err, size_t len)
{
	uint32_t n;
	const struct lb_op *op = lb_lane_ops(s, r, l, &n);
	for (uint32_t i = 0; i < n; i++) {
		const union lb_val v[NOP_COLUMNS] = {
			{ .u = r }, { .u = l }, { .u = i },
			{ .s = op_name(&op[i]) }, { .u = op[i].peer },
			{ .u = op[i].first_block }, { .u = op[i].nblocks },
			{ .u = lb_range_bytes(s, op[i].first_block, op[i].nblocks) },
		};
		const struct lb_result res = { .cols = op_columns, .ncols = NOP_COLUMNS, .vals = v };
		if (lb_json_sink_row(j, &res, err, len))
			return -1;
	}
	return 0;
}

/* The document: the provenance (command, options), then every op. */
static int write_json(const struct lb_cmd *cmd, const struct plan_opts *o,
		      const struct lb_schedule *s)
{
	char err[512];
	struct lb_prov prov = { 0 };
	struct lb_json *j = lb_json_open(o->json, err, sizeof(err));
	int rc = j ? 0 : -1;
	lb_cli_provenance(&prov, cmd, o);
	if (rc == 0)
		rc = lb_json_sink_provenance(j, &prov, err, sizeof(err)) ||
		     lb_json_sink_begin(j, op_columns, NOP_COLUMNS, err, sizeof(err));
	for (uint32_t r = 0; rc == 0 && r < s->ranks; r++)
		for (uint32_t l = 0; rc == 0 && l < s->lanes; l++)
			rc = json_lane(j, s, r, l, err, sizeof(err));
	if (rc == 0)
		rc = lb_json_close(j, err, sizeof(err));
	else
		lb_json_abort(j);
	lb_prov_free(&prov);
	if (rc)
		lb_cli_error(cmd, "json", "%s", err);
	return rc;
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

/* --slice auto: which slice the plan has and why (a comment in dot). */
static void print_auto_slice(FILE *out, const struct plan_opts *o, uint64_t chosen)
{
	char slice[32], alpha[32];
	if (o->slice != LB_SLICE_AUTO)
		return;
	lb_table_format_size(chosen, slice, sizeof(slice));
	lb_format_seconds(o->alpha, alpha, sizeof(alpha));
	if (!o->algo.algo->cost_refined)
		fprintf(out, "%sslice %s, chosen by --slice auto: seed 000's 1 MiB slice (or the message), the algorithm has no refined model\n",
			o->format == FMT_DOT ? "// " : "", slice);
	else
		fprintf(out, "%sslice %s, chosen by --slice auto: the fastest by the refined model and the simulator with alpha %s and %.0f Mbit/s per lane\n",
			o->format == FMT_DOT ? "// " : "", slice, alpha, o->bw * 8 / 1e6);
}

/* A platform algorithm's steady state on the platform
 * (docs/papers.md#seed000-period): seconds per slice of its tree under the
 * model it is built for, and 1 / that; beside the LP bound TP* where it was
 * solved (lp-*), the ratio. */
static void print_period(FILE *out, const struct plan_opts *o, const struct lb_algo_params *prm,
			 double tp_star)
{
	const struct lb_algo *a = o->algo.algo;
	if (!a->period)
		return;
	uint64_t slice = lb_div_ceil(prm->bytes, lb_slice_count(prm->bytes, prm->slice_bytes));
	double period = a->period(prm);
	fprintf(out, "%speriod %.9g s per slice of %llu bytes, throughput %.9g slices/s (%.6g MB/s)\n",
		o->format == FMT_DOT ? "// " : "", period, (unsigned long long)slice, 1 / period,
		(double)slice / period / 1e6);
	if (!isnan(tp_star))
		fprintf(out, "%slp bound %.9g slices/s (one-port, phase 2: least total link time), the tree %.4f of it\n",
			o->format == FMT_DOT ? "// " : "", tp_star, 1 / period / tp_star);
}

/* Seed 001's: the agent count (given; auto: the simulator's or the
 * planner's, model/agent_auto.h) and the closed form's T_all
 * (algos/agent_coll.h).  prm carries the count resolved; auto_s the
 * simulated seconds of the count auto chose (NaN: the planner chose). */
static void print_agents(FILE *out, const struct plan_opts *o, const struct lb_algo_params *prm,
			 double auto_s)
{
	const struct lb_algo *a = o->algo.algo;
	struct lb_agent_model md;
	char why[96];
	if (a->build != lb_build_cluster_agent_gb && a->build != lb_build_cluster_agent_ts)
		return;
	enum lb_agent_algo algo = a->build == lb_build_cluster_agent_gb ? LB_AGENT_GB : LB_AGENT_TS;
	if (lb_agent_model_of(prm, &md))
		return;
	if (o->agents)
		snprintf(why, sizeof(why), "--agents");
	else if (!isnan(auto_s))
		snprintf(why, sizeof(why), "auto: the least LogP time of m = 1..%u, %.9g s",
			 prm->ranks, auto_s);
	else
		snprintf(why, sizeof(why), "auto: the planner's least T_all");
	fprintf(out, "%sagents %u (%s), model T_all %.9g s (seed 001's model)\n",
		o->format == FMT_DOT ? "// " : "", lb_agent_count_of(&md, prm, algo), why,
		a->makespan(prm));
	lb_agent_model_free(&md);
}

/* Seed 002's: the coordinators' sends in decision order (site:rank ->
 * site:rank @ arrival; mostcrit: fN, the factor of the step), each site's
 * T_k and the model's completion time
 * under the clock the schedule runs (algos/coord_platform.h). */
static void print_coord(FILE *out, const struct plan_opts *o, const struct lb_algo_params *prm)
{
	const char *c = o->format == FMT_DOT ? "// " : "";
	struct lb_coord_problem cp;
	char err[300];
	int h = lb_coord_find(o->algo.algo->name);
	if (!o->algo.algo->makespan || h < 0 || lb_coord_problem_make(prm, &cp, err, sizeof(err)))
		return;
	struct lb_coord_send *send = malloc(cp.in.n * sizeof(*send));
	double t = send ? lb_coord_order(&cp.in, (enum lb_coord_heuristic)h, send) : NAN;
	if (cp.in.clock == LB_COORD_V1)
		fprintf(out, "%scoordinators (clock V1, overlap: between sites on lane %u, each site's %s on "
			"lanes 0-%u):", c, cp.wan_lane, cp.site_algo->name, cp.site_lanes - 1);
	else
		fprintf(out, "%scoordinators (clock V3, one lane: each site's %s after its coordinator's "
			"last send):", c, cp.site_algo->name);
	for (uint32_t k = 0; send && k + 1 < cp.in.n; k++) {
		fprintf(out, "%s %u:%u->%u:%u@%.6g", k ? "," : "", send[k].from, cp.coord[send[k].from],
			send[k].to, cp.coord[send[k].to], send[k].arrive);
		if (send[k].factor) /* mostcrit: the factor of this step */
			fprintf(out, " f%u", send[k].factor);
	}
	fprintf(out, "\n%ssite T_k (s):", c);
	for (uint32_t k = 0; k < cp.in.n; k++)
		fprintf(out, " %.6g", cp.in.T[k]);
	fprintf(out, "\n%smodel completion %.9g s (seed 002's clock)\n", c, t);
	free(send);
	lb_coord_problem_free(&cp);
}

static int print_plan(FILE *out, const struct lb_schedule *s, const struct lb_algo *a,
		      int format)
{
	switch (format) {
	case FMT_DOT:
		return print_dot(out, s, a);
	case FMT_SUMMARY:
		print_summary(out, s, a);
		return 0;
	default:
		print_text(out, s, a);
		return 0;
	}
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
	print_auto_slice(out, o, prm->slice_bytes);
	print_period(out, o, prm, tp_star);
	print_coord(out, o, prm);
	print_agents(out, o, prm, agents_auto_s);
	if (print_plan(out, s, o->algo.algo, o->format)) {
		lb_cli_error(cmd, NULL, "out of memory");
		return 1;
	}
	if (fflush(out) == EOF || ferror(out)) {
		lb_cli_error(cmd, NULL, "cannot write the plan: %s", strerror(errno));
		return 1;
	}
	return o->json && write_json(cmd, o, s) ? 1 : 0;
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
