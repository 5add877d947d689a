/* Seed 001's model reproduced (what `lanebench repro seed001` runs): the
 * planner and closed forms of algos/wu/agent.h on the seed's 8 workstations
 * (lb_agent_wu8; docs/papers.md#seed001-experiment), for every agent count m =
 * 1 .. 8, both algorithms (Gather-Broadcast, Two-Step) and both assignment tie
 * rules (fewest clients then lowest id; lowest id).  One row per (algorithm,
 * tie rule, m): the clients per agent, T1, T2, T3 and T_all, the expected
 * values (docs/papers.md#seed001-experiment) beside them and whether they are
 * equal (the target is exact: sums of the seed's integers); the row of the m
 * the planner chooses is marked, and carries the paper's choice (four agents
 * for GB, three for TS) and our verdict: PASS when the planner picks it,
 * DISCREPANCY when not (the lowest-id rule picks 2 for TS, which contradicts
 * the paper).  Under the printed T_R(i, n - 1) (`count`), the model gives TS at
 * m = 5 as 1160/500/440; every other value is the same.  The last column is the
 * row's plan as a schedule (algos/wu/agent_coll.h) run by the simulator's LogP
 * mode (model/sim.h) on the same platform with 0-byte messages: the algorithm
 * simulated beside its closed form. */
#ifndef LB_REPRO001_H
#define LB_REPRO001_H

#include <stddef.h>

#include "algos/wu/agent.h"
#include "engine/result.h"

struct lb_repro001_params {
	enum lb_agent_count count;  /* T_R's count for an agent without a message */
	const struct lb_prov *prov; /* the caller's; NULL: none */
};

/* The result columns; static storage. */
const struct lb_col *lb_repro001_columns(size_t *ncols);

/* Runs it, rows to sink.  Returns 0 (also when a value differs from the
 * expected one: the row says FAIL), or -1 with the reason in err (no memory,
 * the sink's failure). */
int lb_repro001_run(const struct lb_repro001_params *p, const struct lb_sink *sink,
		    char *err, size_t errlen);

#endif
