/* lanebench plan's output of one schedule: the notes above it (the slice
 * --slice auto chose, a platform algorithm's period, seed 002's
 * coordinator order, seed 001's agent count), the schedule itself as text
 * (per rank and lane, the ordered ops), a per-lane byte summary or a
 * Graphviz graph of its trees, and its ops as the rows of a JSON table.
 * bench/cmd_plan.c reads the options, builds and validates; this writes. */
#ifndef LB_PLAN_OUT_H
#define LB_PLAN_OUT_H

#include <stdio.h>

#include "algos/algos.h"
#include "json.h"

/* In the order of plan -f's choices (text, dot, summary). */
enum lb_plan_format { LB_PLAN_TEXT, LB_PLAN_DOT, LB_PLAN_SUMMARY };

/* What the notes say beyond the schedule's parameters. */
struct lb_plan_notes {
	enum lb_plan_format format; /* dot: each note a "// " comment */
	int slice_auto;       /* --slice auto: say which slice and why */
	double alpha, bw;     /* the network --slice auto modelled */
	int agents_given;     /* --agents N (else auto chose the count) */
	double agents_auto_s; /* auto's: the count's simulated seconds; NaN: the planner's */
	double tp_star;       /* the LP bound TP* (slices/s); NaN: not solved */
};

/* The notes that apply to algorithm a built with prm (prm's slice and
 * agent count resolved), each a line; none for most algorithms. */
void lb_plan_print_notes(FILE *out, const struct lb_algo *a, const struct lb_algo_params *prm,
			 const struct lb_plan_notes *n);

/* The schedule s of a in format.  0, or -1 out of memory (dot). */
int lb_plan_print(FILE *out, const struct lb_schedule *s, const struct lb_algo *a,
		  enum lb_plan_format format);

/* Every op of a schedule as a row (rank, lane, index, op, peer,
 * first_block, blocks, bytes), for lb_json_write_table with the
 * struct lb_schedule as its ctx.  A transit op's op is "transit-send" or
 * "transit-recv", a barrier's "barrier". */
extern const struct lb_json_table lb_plan_ops_json;

#endif
