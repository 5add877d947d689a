/* lanebench plan's output of one schedule; see plan_out.h. */
#include "plan_out.h"

#include <math.h>
#include <stdlib.h>

#include "algos/wu/agent_coll.h"
#include "algos/fkaier/coord_platform.h"
#include "lib/units.h"
#include "table.h"

/* ---- the notes above the schedule ---- */

/* Each note's start: a comment in dot, nothing in the others. */
static const char *comment(const struct lb_plan_notes *n)
{
	return n->format == LB_PLAN_DOT ? "// " : "";
}

/* --slice auto: which slice the plan has and why (a comment in dot). */
static void print_auto_slice(FILE *out, const struct lb_algo *a, uint64_t chosen,
			     const struct lb_plan_notes *n)
{
	char slice[32], alpha[32];
	if (!n->slice_auto)
		return;
	lb_table_format_size(chosen, slice, sizeof(slice));
	lb_format_seconds(n->alpha, alpha, sizeof(alpha));
	if (!a->cost_refined)
		fprintf(out, "%sslice %s, chosen by --slice auto: seed 000's 1 MiB slice (or the message), the algorithm has no refined model\n",
			comment(n), slice);
	else
		fprintf(out, "%sslice %s, chosen by --slice auto: the fastest by the refined model and the simulator with alpha %s and %.0f Mbit/s per lane\n",
			comment(n), slice, alpha, n->bw * 8 / 1e6);
}

/* A platform algorithm's steady state on the platform
 * (docs/papers.md#seed000-period): seconds per slice of its tree under the
 * model it is built for, and 1 / that; beside the LP bound TP* where it was
 * solved (lp-*), the ratio. */
static void print_period(FILE *out, const struct lb_algo *a, const struct lb_algo_params *prm,
			 const struct lb_plan_notes *n)
{
	double tp_star = n->tp_star;
	if (!a->period)
		return;
	uint64_t slice = lb_div_ceil(prm->bytes, lb_slice_count(prm->bytes, prm->slice_bytes));
	double period = a->period(prm);
	fprintf(out, "%speriod %.9g s per slice of %llu bytes, throughput %.9g slices/s (%.6g MB/s)\n",
		comment(n), period, (unsigned long long)slice, 1 / period,
		(double)slice / period / 1e6);
	if (!isnan(tp_star))
		fprintf(out, "%slp bound %.9g slices/s (one-port, phase 2: least total link time), the tree %.4f of it\n",
			comment(n), tp_star, 1 / period / tp_star);
}

/* Seed 001's: the agent count (given; auto: the simulator's or the
 * planner's, model/agent_auto.h) and the closed form's T_all
 * (algos/agent_coll.h).  prm carries the count resolved; auto_s the
 * simulated seconds of the count auto chose (NaN: the planner chose). */
static void print_agents(FILE *out, const struct lb_algo *a, const struct lb_algo_params *prm,
			 const struct lb_plan_notes *n)
{
	double auto_s = n->agents_auto_s;
	struct lb_agent_model md;
	char why[96];
	if (a->build != lb_build_cluster_agent_gb && a->build != lb_build_cluster_agent_ts)
		return;
	enum lb_agent_algo algo = a->build == lb_build_cluster_agent_gb ? LB_AGENT_GB : LB_AGENT_TS;
	if (lb_agent_model_of(prm, &md))
		return;
	if (n->agents_given)
		snprintf(why, sizeof(why), "--agents");
	else if (!isnan(auto_s))
		snprintf(why, sizeof(why), "auto: the least LogP time of m = 1..%u, %.9g s",
			 prm->ranks, auto_s);
	else
		snprintf(why, sizeof(why), "auto: the planner's least T_all");
	fprintf(out, "%sagents %u (%s), model T_all %.9g s (seed 001's model)\n",
		comment(n), lb_agent_count_of(&md, prm, algo), why, a->makespan(prm));
	lb_agent_model_free(&md);
}

/* Seed 002's: the coordinators' sends in decision order (site:rank ->
 * site:rank @ arrival; mostcrit: fN, the factor of the step), each site's
 * T_k and the model's completion time
 * under the clock the schedule runs (algos/coord_platform.h). */
static void print_coord(FILE *out, const struct lb_algo *a, const struct lb_algo_params *prm,
			const struct lb_plan_notes *n)
{
	const char *c = comment(n);
	struct lb_coord_problem cp;
	char err[300];
	int h = lb_coord_find(a->name);
	if (!a->makespan || h < 0 || lb_coord_problem_make(prm, &cp, err, sizeof(err)))
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

void lb_plan_print_notes(FILE *out, const struct lb_algo *a, const struct lb_algo_params *prm,
			 const struct lb_plan_notes *n)
{
	print_auto_slice(out, a, prm->slice_bytes, n);
	print_period(out, a, prm, n);
	print_coord(out, a, prm, n);
	print_agents(out, a, prm, n);
}

/* ---- the schedule ---- */

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

int lb_plan_print(FILE *out, const struct lb_schedule *s, const struct lb_algo *a,
		  enum lb_plan_format format)
{
	switch (format) {
	case LB_PLAN_DOT:
		return print_dot(out, s, a);
	case LB_PLAN_SUMMARY:
		print_summary(out, s, a);
		return 0;
	default:
		print_text(out, s, a);
		return 0;
	}
}

/* ---- json: a row per op ---- */

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
		if (lb_json_table_row(j, v, err, len))
			return -1;
	}
	return 0;
}

static int json_ops(struct lb_json *j, const void *schedule, char *err, size_t len)
{
	const struct lb_schedule *s = schedule;
	for (uint32_t r = 0; r < s->ranks; r++)
		for (uint32_t l = 0; l < s->lanes; l++)
			if (json_lane(j, s, r, l, err, len))
				return -1;
	return 0;
}

const struct lb_json_table lb_plan_ops_json = {
	.cols = op_columns, .ncols = NOP_COLUMNS, .rows = json_ops,
};
