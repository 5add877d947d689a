/* Seed 002's simulations reproduced (what `lanebench repro seed002` runs): for
 * each setting (g5k, x5, x10: net/clustergen.h) and cluster count,
 * `instances` draws of (L, g, T) (seeds seed, seed + 1, ...), every heuristic's
 * coordinator order and completion time on each (algos/fkaier/coord.h, the model of
 * docs/papers.md#seed002-clock under the chosen clock).  One row per (setting,
 * clusters, heuristic): the mean completion time, its ratio to the best
 * non-flat heuristic's mean, how many instances gave the very schedule of
 * BottomUp (the same sends in the same order) and how many its very completion
 * time, and the paper's claim beside our verdict:
 *   g5k  MostCrit "gives exactly the same values as BottomUp": the same
 *        completion time on >= 95 % of the instances (the schedules
 *        themselves differ more often: MostCrit takes factor 1 or 2 in
 *        about 4 % of its steps, and one such step changes the order);
 *        every non-flat heuristic within 15 % of the best; flat >= 1.5 x
 * the slowest of the others (the tolerances of docs/papers.md#reproductions,
 *        from 10 clusters on);
 *   x5, x10  BottomUp and MostCrit "keep giving good performances" (the
 *        best): within 15 % of the best, else DISCREPANCY -- the project found
 *        that this does not reproduce under any clock it tried; reported,
 *        never tuned away.
 * Beside each mean, the cross-check's value (V1, other random streams:
 * a sanity range of +- 5 %, not a target) and our deviation from it;
 * empty under another clock, which it has no numbers for
 * (docs/papers.md#reproductions-crosscheck). */
#ifndef LB_REPRO002_H
#define LB_REPRO002_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "algos/fkaier/coord.h"
#include "engine/result.h"

struct lb_repro002_params {
	const uint32_t *clusters; /* cluster counts */
	size_t nclusters;
	uint32_t instances;       /* per (setting, cluster count) */
	uint64_t seed;            /* instance i: seed + i */
	enum lb_coord_clock clock;
	const struct lb_prov *prov; /* the caller's; NULL: none */
	const atomic_int *stop;   /* non-zero: stop before the next point */
};

/* The result columns; static storage. */
const struct lb_col *lb_repro002_columns(size_t *ncols);

/* Runs it, rows to sink.  Returns 0 (also when stopped), or -1 with the
 * reason in err (no memory, the sink's failure). */
int lb_repro002_run(const struct lb_repro002_params *p, const struct lb_sink *sink,
		    char *err, size_t errlen);

#endif
