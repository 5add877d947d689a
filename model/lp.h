/* The steady-state broadcast bound of seed 000: linear program (2) of Beaumont,
 * Marchal and Robert [000 section 4.1], docs/papers.md#seed000-lp, solved with
 * GLPK.
 *
 * The LP: a broadcast from `root` sends TP slices per second to every other
 * node w; x[w][u][v] is how many slices destined to w cross the edge u -> v
 * per second (flow conservation per w), n[u][v] >= x[w][u][v] for every w
 * (a slice crossing an edge serves every destination behind it), and the
 * one-port rows: every node sends for at most one second per second,
 * sum over its out-edges of n * T <= 1, and receives as long,
 * sum over its in-edges of n * T <= 1.  T_{u,v} is the port occupation of
 * one slice, lb_platform_occupation(pf, u, v, lane, slice_bytes): latency is
 * left out, since a pipelined stream pays it once, not once per slice.
 * Units: T in seconds, so TP is in slices per second and n in slices per
 * second; TP * slice_bytes is the bound in bytes per second.
 *
 * TP* is the optimum.  Many optima have different n; the LP-based
 * heuristics depend on which one, so a second phase makes it deterministic
 * (docs/papers.md#seed000-lp): keep TP >= TP* (1 - 1e-7) and minimise
 *   LB_LP_PHASE2_TIME: sum of T * n (total link occupation; the default),
 *   LB_LP_PHASE2_SUM:  sum of n,
 *   LB_LP_PHASE2_NONE: no second phase, phase 1's n as the simplex left it.
 * The loads of phase 2 carry that TP, at least TP* (1 - 1e-7); the result's
 * tp is phase 1's TP*.
 *
 * The matrix: columns TP, n per edge, x per (destination, edge); rows (a), (b),
 * (c) per destination, the clean-up rows (no slice destined to w enters the
 * root or leaves w), (d) per (edge, destination) and the two capacity rows per
 * node; (e)-(h) are definitions substituted away (docs/papers.md#seed000-lp).
 * 65 nodes and 240 edges: about 16,000 columns and 20,000 rows, about 20 s of
 * CPU for both phases (tests/model/test_lp large).  Sizes grow as nodes x edges: a
 * dense 50-node platform takes minutes.
 *
 * GLPK: its terminal output is switched off (glp_term_out), and it is not
 * called from several threads at once: call these functions from one
 * thread, never from the simulator's worker threads (engine/simsweep).
 * GLPK would abort the process on an error (a coefficient it cannot scale,
 * no memory): its error hook frees its environment and returns here
 * instead, the error its message (glp_error_hook, glp_free_env), and its
 * memory is limited to what the system has left (glp_mem_limit).  An LP
 * whose estimate (lb_lp_memory) exceeds that is refused before it is built. */
#ifndef LB_LP_H
#define LB_LP_H

#include <stddef.h>
#include <stdint.h>

#include "net/platform.h"

enum lb_lp_phase2 { LB_LP_PHASE2_TIME = 0, LB_LP_PHASE2_SUM, LB_LP_PHASE2_NONE };

struct lb_lp_result {
	double tp;      /* TP*: slices per second */
	uint32_t nodes;
	double *load;   /* [nodes * nodes], load[u * nodes + v] = n_{u,v}, slices/s */
};

/* GLPK's problem, its presolved copy and the simplex's factorisation take
 * about 1.65 KB per flow variable (its x column, its row (d) and about four
 * matrix entries): measured on dense platforms of 20 to 40 nodes; with a
 * margin. */
#define LB_LP_BYTES_PER_FLOW 2048

/* The memory the LP of pf's lane takes, from its size alone: (nodes - 1) x
 * links flow variables x LB_LP_BYTES_PER_FLOW (UINT64_MAX past 2^64). */
uint64_t lb_lp_memory(const struct lb_platform *pf, uint32_t lane);

/* What lb_lp_bound and lb_lp_write_cplex return when the LP's estimate
 * exceeds the memory available (lib/memory.h), before building it. */
#define LB_LP_TOO_BIG (-2)

/* 0 when the LP of pf's lane fits in the memory available, else
 * LB_LP_TOO_BIG with both figures in err: GLPK would take it all (and
 * abort, or the OOM killer end the process) first. */
int lb_lp_check_memory(const struct lb_platform *pf, uint32_t lane, char *err, size_t errlen);

/* Solves the LP of the sealed platform pf for a broadcast from root over
 * lane, slices of slice_bytes.  Returns 0 with *out filled (free it with
 * lb_lp_result_free), or -1 with a message in err: root or lane out of
 * range, a node unreachable from root (named), a platform of one node (no
 * destination: TP unbounded), an LP past GLPK's int indices (about
 * 5e8 destination x link pairs), no memory, or GLPK's failure (its error,
 * its return code or the solution's status named); LB_LP_TOO_BIG, the
 * figures in err, when the LP would not fit in memory. */
int lb_lp_bound(const struct lb_platform *pf, uint32_t root, uint32_t lane,
		uint64_t slice_bytes, enum lb_lp_phase2 phase2,
		struct lb_lp_result *out, char *err, size_t errlen);

/* The node model of the capacity rows.  LB_LP_ONE_PORT is seed 000's
 * (i), (j) above.  LB_LP_BOUNDED is the simulator's bounded multi-port
 * model (model/sim.h, `sim --model bounded`; what algos/beaumont/hetero_cap.h
 * plans with): a link carries one transfer at a time (l_u_v: n T <= 1);
 * a node of rate R sends, and receives, at most R (o_u, i_u: the sum of
 * its out-edges', in-edges', n * slice_bytes / R <= 1; no row when R is
 * 0); its CPU sends at most one message per `send` seconds (s_u: the sum
 * of its out-edges' n * send <= 1; none when send is 0).  Every tree, or
 * set of trees sharing the blocks, sending under the bounded model is a
 * feasible point, so TP* bounds their throughput (tests/algos/test_hetero_cap). */
enum lb_lp_model { LB_LP_ONE_PORT = 0, LB_LP_BOUNDED };

/* lb_lp_bound with the capacity rows of `model`. */
int lb_lp_bound_model(const struct lb_platform *pf, uint32_t root, uint32_t lane,
		      uint64_t slice_bytes, enum lb_lp_phase2 phase2, enum lb_lp_model model,
		      struct lb_lp_result *out, char *err, size_t errlen);

void lb_lp_result_free(struct lb_lp_result *r);

/* Writes phase 1 of the same LP in CPLEX-LP text (glp_write_lp) to path, named
 * as docs/papers.md#seed000-lp names it (TP, n_u_v, x_w_u_v; rows a_w, b_w,
 * c_w_v, z1_w_u, z2_w_v, d_w_u_v, i_u, o_u), so `glpsol --lp path` solves it.
 * Returns 0, or -1 with a message in err (the errors of lb_lp_bound but the
 * solver's, or the file not written). */
int lb_lp_write_cplex(const struct lb_platform *pf, uint32_t root, uint32_t lane,
		      uint64_t slice_bytes, const char *path, char *err, size_t errlen);

#endif
