/* LP (2) of seed 000 built row by row into GLPK, solved in two phases
 * (model/lp.h; docs/papers.md#seed000-lp and Appendix B). */
#include "lp.h"

#include <glpk.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/memory.h"
#include "lib/stop.h"
#include "lib/units.h"

/* Phase 2 keeps TP within this fraction of TP* (docs/papers.md#seed000-lp):
 * looser than the simplex's tolerances, so phase 1's optimum stays feasible. */
#define PHASE2_SLACK 1e-7

struct lp_build {
	const struct lb_platform *pf;
	uint32_t root, nodes;
	enum lb_lp_model model;
	uint64_t slice_bytes;
	size_t m;                     /* edges */
	struct lb_platform_edge *e;   /* [m], (u, v) ascending */
	double *T;                    /* [m], seconds per slice */
	size_t *out_start;            /* [nodes + 1]: out-edges of u are e[out_start[u] ..] */
	size_t *in_start, *in_edge;   /* in-edges of v: in_edge[in_start[v] ..] (edge indices) */
	glp_prob *P;
	int *ia, *ja;                 /* 1-based triplets for glp_load_matrix */
	double *ar;
	size_t nz, cap;
	int oom;
};

/* ---- columns: TP, n per edge, x per (destination, edge) ---- */

#define COL_TP 1

static int col_n(const struct lp_build *b, size_t edge)
{
	return (int)(2 + edge);
}

/* Destinations are the nodes but the root, numbered without it. */
static int col_x(const struct lp_build *b, uint32_t w, size_t edge)
{
	size_t k = w < b->root ? w : w - 1;
	return (int)(2 + b->m + k * b->m + edge);
}

static void name_columns(struct lp_build *b)
{
	char name[64];
	glp_set_col_name(b->P, COL_TP, "TP");
	for (size_t i = 0; i < b->m; i++) {
		snprintf(name, sizeof(name), "n_%u_%u", b->e[i].u, b->e[i].v);
		glp_set_col_name(b->P, col_n(b, i), name);
	}
	for (uint32_t w = 0; w < b->nodes; w++)
		for (size_t i = 0; w != b->root && i < b->m; i++) {
			snprintf(name, sizeof(name), "x_%u_%u_%u", w, b->e[i].u, b->e[i].v);
			glp_set_col_name(b->P, col_x(b, w, i), name);
		}
}

static void add_columns(struct lp_build *b)
{
	int ncols = (int)(1 + b->m + (size_t)(b->nodes - 1) * b->m);
	glp_add_cols(b->P, ncols);
	for (int j = 1; j <= ncols; j++)
		glp_set_col_bnds(b->P, j, GLP_LO, 0.0, 0.0);
	name_columns(b);
}

/* ---- rows ---- */

static void add_entry(struct lp_build *b, int row, int col, double val)
{
	if (b->nz + 1 >= b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 4096;
		int *ia = realloc(b->ia, cap * sizeof(*ia));
		int *ja = ia ? realloc(b->ja, cap * sizeof(*ja)) : NULL;
		double *ar = ja ? realloc(b->ar, cap * sizeof(*ar)) : NULL;
		b->ia = ia ? ia : b->ia;
		b->ja = ja ? ja : b->ja;
		b->ar = ar ? ar : b->ar;
		if (!ar) {
			b->oom = 1;
			return;
		}
		b->cap = cap;
	}
	b->nz++; /* index 0 is unused: GLPK's arrays are 1-based */
	b->ia[b->nz] = row;
	b->ja[b->nz] = col;
	b->ar[b->nz] = val;
}

/* A new row of type GLP_FX, GLP_LO or GLP_UP with right-hand side rhs. */
__attribute__((format(printf, 4, 5)))
static int add_row(struct lp_build *b, int type, double rhs, const char *fmt, ...)
{
	char name[64];
	va_list ap;
	int row = glp_add_rows(b->P, 1);
	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	glp_set_row_name(b->P, row, name);
	glp_set_row_bnds(b->P, row, type, rhs, rhs);
	return row;
}

/* (a) what the root sends towards w, (b) what w receives, both TP. */
static void add_source_sink_rows(struct lp_build *b, uint32_t w)
{
	int a = add_row(b, GLP_FX, 0.0, "a_%u", w);
	for (size_t i = b->out_start[b->root]; i < b->out_start[b->root + 1]; i++)
		add_entry(b, a, col_x(b, w, i), 1.0);
	add_entry(b, a, COL_TP, -1.0);
	int r = add_row(b, GLP_FX, 0.0, "b_%u", w);
	for (size_t i = b->in_start[w]; i < b->in_start[w + 1]; i++)
		add_entry(b, r, col_x(b, w, b->in_edge[i]), 1.0);
	add_entry(b, r, COL_TP, -1.0);
}

/* (c) every other node passes on what it receives for w. */
static void add_conservation_rows(struct lp_build *b, uint32_t w)
{
	for (uint32_t v = 0; v < b->nodes; v++) {
		if (v == b->root || v == w)
			continue;
		int c = add_row(b, GLP_FX, 0.0, "c_%u_%u", w, v);
		for (size_t i = b->in_start[v]; i < b->in_start[v + 1]; i++)
			add_entry(b, c, col_x(b, w, b->in_edge[i]), 1.0);
		for (size_t i = b->out_start[v]; i < b->out_start[v + 1]; i++)
			add_entry(b, c, col_x(b, w, i), -1.0);
	}
}

/* Clean-up rows (docs/papers.md#seed000-lp): nothing for w enters the root or
 * leaves w, so the optimum has no useless circulation.  An edge w -> root is in
 * both sets; it gets the first row only. */
static void add_cleanup_rows(struct lp_build *b, uint32_t w)
{
	for (size_t i = b->in_start[b->root]; i < b->in_start[b->root + 1]; i++) {
		size_t edge = b->in_edge[i];
		int z = add_row(b, GLP_FX, 0.0, "z1_%u_%u", w, b->e[edge].u);
		add_entry(b, z, col_x(b, w, edge), 1.0);
	}
	for (size_t i = b->out_start[w]; i < b->out_start[w + 1]; i++) {
		if (b->e[i].v == b->root)
			continue;
		int z = add_row(b, GLP_FX, 0.0, "z2_%u_%u", w, b->e[i].v);
		add_entry(b, z, col_x(b, w, i), 1.0);
	}
}

/* (d) n on an edge is at least every destination's flow on it. */
static void add_max_rows(struct lp_build *b)
{
	for (size_t i = 0; i < b->m; i++)
		for (uint32_t w = 0; w < b->nodes; w++) {
			if (w == b->root)
				continue;
			int d = add_row(b, GLP_LO, 0.0, "d_%u_%u_%u", w, b->e[i].u, b->e[i].v);
			add_entry(b, d, col_n(b, i), 1.0);
			add_entry(b, d, col_x(b, w, i), -1.0);
		}
}

/* (i), (j) one-port: a node receives, and sends, at most one second per
 * second ((e)-(g) substituted: t = n * T). */
static void add_capacity_rows(struct lp_build *b)
{
	for (uint32_t u = 0; u < b->nodes; u++) {
		int in = add_row(b, GLP_UP, 1.0, "i_%u", u);
		for (size_t i = b->in_start[u]; i < b->in_start[u + 1]; i++)
			add_entry(b, in, col_n(b, b->in_edge[i]), b->T[b->in_edge[i]]);
		int out = add_row(b, GLP_UP, 1.0, "o_%u", u);
		for (size_t i = b->out_start[u]; i < b->out_start[u + 1]; i++)
			add_entry(b, out, col_n(b, i), b->T[i]);
	}
}

/* A node's row when it has a positive coefficient: sum over its edges
 * [first, last) (through idx when given) of n * coef <= 1. */
static void add_node_row(struct lp_build *b, const size_t *idx, size_t first, size_t last,
			 double coef, const char *fmt, uint32_t u)
{
	if (!(coef > 0) || first == last)
		return;
	int row = add_row(b, GLP_UP, 1.0, fmt, u);
	for (size_t i = first; i < last; i++)
		add_entry(b, row, col_n(b, idx ? idx[i] : i), coef);
}

/* The bounded multi-port model (model/sim.h): every link carries one
 * transfer at a time (l: n * T <= 1); a node's sends share its rate (o)
 * and its CPU, `send` per message (s); its receives share its rate (i). */
static void add_bounded_rows(struct lp_build *b)
{
	for (size_t i = 0; i < b->m; i++) {
		int l = add_row(b, GLP_UP, 1.0, "l_%u_%u", b->e[i].u, b->e[i].v);
		add_entry(b, l, col_n(b, i), b->T[i]);
	}
	for (uint32_t u = 0; u < b->nodes; u++) {
		const struct lb_node *node = &b->pf->node[u];
		double cap = node->rate > 0 ? (double)b->slice_bytes / node->rate : 0;
		add_node_row(b, b->in_edge, b->in_start[u], b->in_start[u + 1], cap, "i_%u", u);
		add_node_row(b, NULL, b->out_start[u], b->out_start[u + 1], cap, "o_%u", u);
		add_node_row(b, NULL, b->out_start[u], b->out_start[u + 1], node->send, "s_%u", u);
	}
}

/* ---- the graph: edges, their slice times, adjacency ---- */

static int index_edges(struct lp_build *b)
{
	size_t p = b->nodes;
	b->out_start = calloc(p + 1, sizeof(*b->out_start));
	b->in_start = calloc(p + 2, sizeof(*b->in_start));
	b->in_edge = malloc((b->m ? b->m : 1) * sizeof(*b->in_edge));
	if (!b->out_start || !b->in_start || !b->in_edge)
		return -1;
	for (size_t i = 0; i < b->m; i++) {
		b->out_start[b->e[i].u + 1]++;
		b->in_start[b->e[i].v + 2]++;
	}
	for (size_t u = 0; u < p; u++) {
		b->out_start[u + 1] += b->out_start[u];
		b->in_start[u + 2] += b->in_start[u + 1];
	}
	/* Counting sort by v; in_start[v + 1] is the next free slot of v and
	 * ends as the start of v + 1. */
	for (size_t i = 0; i < b->m; i++)
		b->in_edge[b->in_start[b->e[i].v + 1]++] = i;
	return 0;
}

static int read_edges(struct lp_build *b, uint32_t lane, uint64_t slice_bytes)
{
	if (lb_platform_edges(b->pf, lane, &b->e, &b->m) != 0)
		return -1;
	b->T = malloc((b->m ? b->m : 1) * sizeof(*b->T));
	if (!b->T)
		return -1;
	for (size_t i = 0; i < b->m; i++)
		b->T[i] = lb_platform_occupation(b->pf, b->e[i].u, b->e[i].v, lane, slice_bytes);
	return index_edges(b);
}

/* The simplex divides by the coefficients and scales them: each must be
 * finite and > 0 (a platform file's are: its values are bounded where they
 * enter; a caller's platform may not be).  The first bad one is named. */
static int check_coefficients(const struct lp_build *b, char *err, size_t errlen)
{
	for (size_t i = 0; i < b->m; i++)
		if (!(isfinite(b->T[i]) && b->T[i] > 0))
			return lb_errf(err, errlen, "link %u -> %u: a slice of %llu bytes takes %g s "
					  "(expected a finite time > 0: check its bw and occ)",
					  b->e[i].u, b->e[i].v, (unsigned long long)b->slice_bytes,
					  b->T[i]);
	for (uint32_t u = 0; u < b->nodes; u++) {
		const struct lb_node *n = &b->pf->node[u];
		double cap = n->rate > 0 ? (double)b->slice_bytes / n->rate : 0;
		if (!isfinite(cap) || !isfinite(n->send))
			return lb_errf(err, errlen, "node %u: a slice takes %g s through its rate and "
					  "%g s of its CPU (expected finite times)", u, cap, n->send);
	}
	return 0;
}

static void build_free(struct lp_build *b)
{
	if (b->P)
		glp_delete_prob(b->P);
	free(b->e);
	free(b->T);
	free(b->out_start);
	free(b->in_start);
	free(b->in_edge);
	free(b->ia);
	free(b->ja);
	free(b->ar);
}

static int check_range(const struct lb_platform *pf, uint32_t root, uint32_t lane,
		       char *err, size_t errlen)
{
	if (root >= pf->nodes) {
		snprintf(err, errlen, "root %u out of range for %u nodes (expected 0..%u)",
			 root, pf->nodes, pf->nodes - 1);
		return -1;
	}
	if (lane >= pf->lanes) {
		snprintf(err, errlen, "lane %u out of range for %u lanes (expected 0..%u)",
			 lane, pf->lanes, pf->lanes - 1);
		return -1;
	}
	if (pf->nodes < 2) {
		snprintf(err, errlen, "a platform of one node has no destination: TP is unbounded");
		return -1;
	}
	return 0;
}

/* GLPK numbers columns, rows and matrix entries with int.  Each
 * (destination, edge) pair has a column x, a row (d) and about four
 * entries, so that product must stay well below INT_MAX; past it the
 * casts in col_x and add_columns would wrap and GLPK abort the process.
 * The edges are counted, not listed: at 4096 linked nodes their arrays
 * (and the reachability check's) would take over 500 MB to be refused. */
static int check_size(const struct lb_platform *pf, uint32_t lane, char *err, size_t errlen)
{
	size_t m = lb_platform_edge_count(pf, lane);
	double pairs = (double)(pf->nodes - 1) * (double)m; /* exact below 2^53 */
	if (4 * pairs + 4.0 * (double)m + 8.0 * pf->nodes <= INT_MAX)
		return 0;
	snprintf(err, errlen,
		 "the LP is too large for GLPK: %u destinations x %zu links = %.0f flow variables (at most about %d)",
		 pf->nodes - 1, m, pairs, INT_MAX / 4);
	return -1;
}

uint64_t lb_lp_memory(const struct lb_platform *pf, uint32_t lane)
{
	double pairs = (double)(pf->nodes - 1) * (double)lb_platform_edge_count(pf, lane);
	double bytes = pairs * LB_LP_BYTES_PER_FLOW;
	return bytes < 0x1p64 ? (uint64_t)bytes : UINT64_MAX;
}

int lb_lp_check_memory(const struct lb_platform *pf, uint32_t lane, char *err, size_t errlen)
{
	const char *what;
	uint64_t need = lb_lp_memory(pf, lane), available = lb_mem_available(&what);
	if (need <= available)
		return 0;
	char need_s[32], have_s[32];
	lb_format_memory(need, need_s, sizeof(need_s));
	lb_format_memory(available, have_s, sizeof(have_s));
	snprintf(err, errlen,
		 "the LP of %u nodes x %zu links (%.0f flow variables) needs about %s of memory, "
		 "more than the %s available (%s)", pf->nodes, lb_platform_edge_count(pf, lane),
		 (double)(pf->nodes - 1) * (double)lb_platform_edge_count(pf, lane), need_s, have_s,
		 what);
	return LB_LP_TOO_BIG;
}

/* The input checks, cheapest first: nothing large is allocated before the
 * size is known to fit.  0, -1 or LB_LP_TOO_BIG. */
static int check_input(const struct lb_platform *pf, uint32_t root, uint32_t lane,
		       char *err, size_t errlen)
{
	if (check_range(pf, root, lane, err, errlen) || check_size(pf, lane, err, errlen))
		return -1;
	if (lb_lp_check_memory(pf, lane, err, errlen))
		return LB_LP_TOO_BIG;
	return lb_platform_check_reachable(pf, root, lane, err, errlen);
}

/* The whole LP, phase 1's objective (maximise TP) set. */
/* A stop seen outside GLPK's output hook: the solve's caller reports it. */
static int stopped(char *err, size_t errlen)
{
	snprintf(err, errlen, "GLPK stopped: %s", lb_stop_reason(*lb_stop_flag()));
	return -1;
}

static int build(struct lp_build *b, const struct lb_platform *pf, uint32_t root,
		 uint32_t lane, uint64_t slice_bytes, enum lb_lp_model model,
		 char *err, size_t errlen)
{
	*b = (struct lp_build){ .pf = pf, .root = root, .nodes = pf->nodes, .model = model,
				.slice_bytes = slice_bytes };
	int rc = check_input(pf, root, lane, err, errlen);
	if (rc)
		return rc;
	glp_term_out(GLP_OFF);
	if (read_edges(b, lane, slice_bytes) != 0) {
		snprintf(err, errlen, "out of memory building the LP");
		return -1;
	}
	if (check_coefficients(b, err, errlen))
		return -1;
	b->P = glp_create_prob();
	glp_set_prob_name(b->P, "lanebench_ssb");
	glp_set_obj_dir(b->P, GLP_MAX);
	add_columns(b);
	glp_set_obj_coef(b->P, COL_TP, 1.0);
	for (uint32_t w = 0; w < b->nodes; w++) {
		if (w == root)
			continue;
		if (lb_stop_requested()) /* GLPK prints nothing while building */
			return stopped(err, errlen);
		add_source_sink_rows(b, w);
		add_conservation_rows(b, w);
		add_cleanup_rows(b, w);
	}
	add_max_rows(b);
	if (model == LB_LP_BOUNDED)
		add_bounded_rows(b);
	else
		add_capacity_rows(b);
	if (b->oom) {
		snprintf(err, errlen, "out of memory building the LP");
		return -1;
	}
	glp_load_matrix(b->P, (int)b->nz, b->ia, b->ja, b->ar);
	return 0;
}

/* ---- solving ---- */

static const char *simplex_code_name(int rc)
{
	switch (rc) {
	case GLP_EBADB: return "GLP_EBADB (invalid initial basis)";
	case GLP_ESING: return "GLP_ESING (singular basis matrix)";
	case GLP_ECOND: return "GLP_ECOND (ill-conditioned basis matrix)";
	case GLP_EBOUND: return "GLP_EBOUND (incorrect bounds)";
	case GLP_EFAIL: return "GLP_EFAIL (solver failure)";
	case GLP_EOBJLL: return "GLP_EOBJLL (objective lower limit reached)";
	case GLP_EOBJUL: return "GLP_EOBJUL (objective upper limit reached)";
	case GLP_EITLIM: return "GLP_EITLIM (iteration limit exceeded)";
	case GLP_ETMLIM: return "GLP_ETMLIM (time limit exceeded)";
	case GLP_ENOPFS: return "GLP_ENOPFS (no primal feasible solution: infeasible)";
	case GLP_ENODFS: return "GLP_ENODFS (no dual feasible solution: unbounded)";
	default: return "unknown return code";
	}
}

static const char *status_name(int status)
{
	switch (status) {
	case GLP_OPT: return "GLP_OPT (optimal)";
	case GLP_FEAS: return "GLP_FEAS (feasible, not proved optimal)";
	case GLP_INFEAS: return "GLP_INFEAS (infeasible)";
	case GLP_NOFEAS: return "GLP_NOFEAS (no feasible solution)";
	case GLP_UNBND: return "GLP_UNBND (unbounded)";
	case GLP_UNDEF: return "GLP_UNDEF (undefined)";
	default: return "unknown status";
	}
}

/* How often a solve shows progress, in ms: GLPK has no way to interrupt
 * a solve, which can take minutes, but its terminal output is a hook
 * (see "GLPK's errors" below: the guard's hook polls the stop flag). */
#define POLL_MS 100

/* meth: GLP_PRIMAL or GLP_DUAL.  After a stop b->P is gone (NULL). */
static int simplex(struct lp_build *b, int meth, int presolve, const char *phase, char *err,
		   size_t errlen)
{
	glp_prob *P = b->P;
	glp_smcp parm;
	glp_init_smcp(&parm);
	parm.meth = meth;
	parm.presolve = presolve;
	/* Progress lines reach the guard's hook every POLL_MS, shown nowhere:
	 * only the output changes, so the solver's path and result do not. */
	parm.msg_lev = GLP_MSG_ON;
	parm.out_frq = POLL_MS;
	parm.out_dly = 0;
	glp_term_out(GLP_ON);
	int rc = glp_simplex(P, &parm);
	glp_term_out(GLP_OFF);
	if (rc != 0) {
		snprintf(err, errlen, "GLPK simplex, %s: glp_simplex returned %d, %s", phase, rc,
			 simplex_code_name(rc));
		return -1;
	}
	int status = glp_get_status(P);
	if (status != GLP_OPT) {
		snprintf(err, errlen, "GLPK simplex, %s: solution status %d, %s", phase, status,
			 status_name(status));
		return -1;
	}
	return 0;
}

/* Phase 2: the same optimum, the cheapest n by the chosen measure.  It
 * starts from the standard basis (every column at its bound 0), not from
 * phase 1's: the costs are >= 0, so that basis is dual feasible and the
 * dual simplex needs no phase of its own.  The primal simplex warm-started
 * from phase 1's optimum stalls on degenerate pivots (every x of an unused
 * edge is 0): over 10 minutes on 65 nodes and 240 edges, against seconds. */
static int phase2(struct lp_build *b, double tp, enum lb_lp_phase2 how, char *err,
		  size_t errlen)
{
	glp_set_obj_coef(b->P, COL_TP, 0.0);
	for (size_t i = 0; i < b->m; i++)
		glp_set_obj_coef(b->P, col_n(b, i), how == LB_LP_PHASE2_TIME ? b->T[i] : 1.0);
	glp_set_col_bnds(b->P, COL_TP, GLP_LO, tp * (1 - PHASE2_SLACK), 0.0);
	glp_set_obj_dir(b->P, GLP_MIN);
	glp_std_basis(b->P);
	return simplex(b, GLP_DUAL, GLP_OFF,
		       how == LB_LP_PHASE2_TIME ? "phase 2 (min sum T*n)" : "phase 2 (min sum n)",
		       err, errlen);
}

static int take_loads(const struct lp_build *b, double tp, struct lb_lp_result *out,
		      char *err, size_t errlen)
{
	size_t p = b->nodes;
	out->load = calloc(p * p, sizeof(*out->load));
	if (!out->load) {
		snprintf(err, errlen, "out of memory for the %zu x %zu loads", p, p);
		return -1;
	}
	out->tp = tp;
	out->nodes = b->nodes;
	for (size_t i = 0; i < b->m; i++) {
		/* A basic variable may sit a rounding error below its bound 0. */
		double n = glp_get_col_prim(b->P, col_n(b, i));
		out->load[b->e[i].u * p + b->e[i].v] = n > 0 ? n : 0;
	}
	return 0;
}

static int solve(struct lp_build *b, enum lb_lp_phase2 how, struct lb_lp_result *out,
		 char *err, size_t errlen)
{
	if (lb_stop_requested()) /* scaling prints nothing either */
		return stopped(err, errlen);
	glp_scale_prob(b->P, GLP_SF_AUTO);
	if (simplex(b, GLP_PRIMAL, GLP_ON, "phase 1 (max TP)", err, errlen))
		return -1;
	double tp = glp_get_obj_val(b->P);
	if (!(tp > 0) || !isfinite(tp)) {
		snprintf(err, errlen, "GLPK simplex, phase 1 (max TP): optimum TP %g, not a positive number",
			 tp);
		return -1;
	}
	if (how != LB_LP_PHASE2_NONE && phase2(b, tp, how, err, errlen))
		return -1;
	return take_loads(b, tp, out, err, errlen);
}

/* ---- GLPK's errors, and stopping it ----
 * On an error (a bad coefficient, no memory) GLPK prints why and calls
 * abort(), unless an error hook installed with glp_error_hook leaves first:
 * as its manual says, the hook frees GLPK's whole environment with
 * glp_free_env (every problem object with it) and longjmps back out.  All
 * its text goes through the terminal hook, which shows none of it: it
 * keeps the last lines (an error ends "<why>\nError detected in file
 * ..."), and once a stop was asked (lib/stop.h) raises an error itself. */

struct glpk_guard {
	jmp_buf back;
	char line[3][256]; /* the last two complete lines, the one being written */
	size_t len;        /* of line[2] */
	int stopped;       /* the error was ours: a stop */
};

static int on_glpk_output(void *info, const char *s)
{
	struct glpk_guard *g = info;
	for (; *s; s++) {
		if (*s == '\n') {
			memcpy(g->line[0], g->line[1], sizeof(g->line[0]));
			memcpy(g->line[1], g->line[2], g->len + 1);
			g->len = 0;
		} else if (g->len + 1 < sizeof(g->line[2])) {
			g->line[2][g->len++] = *s;
		}
		g->line[2][g->len] = '\0';
	}
	if (!g->stopped && lb_stop_requested()) {
		g->stopped = 1; /* glp_error prints through this hook too */
		glp_error("stopped\n");
	}
	return 1; /* printed nowhere */
}

/* Why GLPK failed: the line before its "Error detected in file ...". */
static void glpk_reason(const struct glpk_guard *g, char *err, size_t errlen)
{
	const char *why = strncmp(g->line[1], "Error detected", 14) ? g->line[1] : g->line[0];
	if (g->stopped)
		stopped(err, errlen);
	else
		snprintf(err, errlen, "GLPK failed: %s", why[0] ? why : "(no reason given)");
}

static void leave_glpk(void *info)
{
	struct glpk_guard *g = info;
	glp_free_env();
	longjmp(g->back, 1);
}

/* GLPK's allocations fail (an error, caught) before the system's memory
 * runs out and the OOM killer ends the process. */
static void limit_memory(void)
{
	const char *what;
	uint64_t mib = lb_mem_available(&what) >> 20;
	if (mib < (uint64_t)INT_MAX)
		glp_mem_limit(mib ? (int)mib : 1);
}

/* step(b, ...) with GLPK's errors returned as -1 and a message.  The
 * guard lives in the caller's frame: nothing this function's frame holds
 * changes between setjmp and longjmp. */
static int guarded(struct glpk_guard *g, int (*step)(struct lp_build *b, const void *arg,
						     char *err, size_t errlen),
		   struct lp_build *b, const void *arg, char *err, size_t errlen)
{
	*g = (struct glpk_guard){ .stopped = 0 };
	if (setjmp(g->back)) {
		b->P = NULL; /* freed with GLPK's environment */
		glpk_reason(g, err, errlen);
		return -1;
	}
	glp_term_hook(on_glpk_output, g);
	glp_error_hook(leave_glpk, g);
	limit_memory();
	int rc = step(b, arg, err, errlen);
	glp_error_hook(NULL, NULL);
	glp_term_hook(NULL, NULL);
	return rc;
}

int lb_lp_bound(const struct lb_platform *pf, uint32_t root, uint32_t lane,
		uint64_t slice_bytes, enum lb_lp_phase2 phase2_how,
		struct lb_lp_result *out, char *err, size_t errlen)
{
	return lb_lp_bound_model(pf, root, lane, slice_bytes, phase2_how, LB_LP_ONE_PORT, out,
				 err, errlen);
}

/* What a guarded step computes. */
struct lp_call {
	const struct lb_platform *pf;
	uint32_t root, lane;
	uint64_t slice_bytes;
	enum lb_lp_model model;
	enum lb_lp_phase2 phase2;
	struct lb_lp_result *out;
	const char *path; /* lb_lp_write_cplex's file */
};

static int bound_step(struct lp_build *b, const void *arg, char *err, size_t errlen)
{
	const struct lp_call *c = arg;
	int rc = build(b, c->pf, c->root, c->lane, c->slice_bytes, c->model, err, errlen);
	return rc ? rc : solve(b, c->phase2, c->out, err, errlen);
}

int lb_lp_bound_model(const struct lb_platform *pf, uint32_t root, uint32_t lane,
		      uint64_t slice_bytes, enum lb_lp_phase2 phase2_how,
		      enum lb_lp_model model, struct lb_lp_result *out, char *err, size_t errlen)
{
	struct lp_build b = { 0 };
	struct glpk_guard g;
	const struct lp_call c = { .pf = pf, .root = root, .lane = lane, .slice_bytes = slice_bytes,
				   .model = model, .phase2 = phase2_how, .out = out };
	*out = (struct lb_lp_result){ 0 };
	int rc = guarded(&g, bound_step, &b, &c, err, errlen);
	build_free(&b);
	if (rc)
		lb_lp_result_free(out);
	return rc;
}

void lb_lp_result_free(struct lb_lp_result *r)
{
	if (!r)
		return;
	free(r->load);
	r->load = NULL;
}

static int write_step(struct lp_build *b, const void *arg, char *err, size_t errlen)
{
	const struct lp_call *c = arg;
	int rc = build(b, c->pf, c->root, c->lane, c->slice_bytes, LB_LP_ONE_PORT, err, errlen);
	if (rc)
		return rc;
	if (glp_write_lp(b->P, NULL, c->path) != 0)
		return lb_errf(err, errlen, "%s: cannot write the LP (glp_write_lp failed)", c->path);
	return 0;
}

int lb_lp_write_cplex(const struct lb_platform *pf, uint32_t root, uint32_t lane,
		      uint64_t slice_bytes, const char *path, char *err, size_t errlen)
{
	struct lp_build b = { 0 };
	struct glpk_guard g;
	const struct lp_call c = { .pf = pf, .root = root, .lane = lane, .slice_bytes = slice_bytes,
				   .path = path };
	int rc = guarded(&g, write_step, &b, &c, err, errlen);
	build_free(&b);
	return rc;
}
