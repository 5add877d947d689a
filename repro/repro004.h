/* Seed 004's model predictions reproduced in the simulator (what `lanebench
 * repro seed004` runs; docs/papers.md#seed004-experiments).  The paper's own
 * measurements have no numbers left (its figures only say "grows with p" and
 * "negligible"), so the targets are the HBSP model's:
 *
 *  - bcast: the two-phase broadcast (hbsp1-bcast), root the slowest rank
 *    against root the fastest, on `bcast_ranks` ranks of which one is r_s
 *    times slower than the others: T_s/T_f = 2 r_s / (1 + r_s) (no L).
 *    One row per r_s, within `tolerance` percent or not.
 *  - gather: hbsp1-gather with equal shares, ranks of slowness 1, 1.5, 2,
 *    ... (every added rank slower): T_s/T_f above 1 and not decreasing in
 *    p from p = 3 on.  One row per p.
 *
 * A rank's slowness r is its node rate B / r on a platform whose default
 * link is B (1 Gbit/s), barriers free (L = 0).  The simulator runs its
 * default per-lane port model: one receive and one send port per rank and
 * lane, a transfer holding both ends' ports at the slower end's rate
 * (rendezvous), so a rank's receives are serialised where HBSP's fluid
 * h-relation overlaps them; its sim/HBSP ratio for each root is in the
 * rows, beside the HBSP closed form's own T_s/T_f. */
#ifndef LB_REPRO004_H
#define LB_REPRO004_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/result.h"

struct lb_repro004_params {
	uint32_t bcast_ranks;    /* ranks of the broadcast experiment (32) */
	const double *slowness;  /* r_s of each broadcast row */
	size_t nslowness;
	uint32_t gather_max_ranks; /* gather rows for p = 2 .. this */
	uint64_t bytes;          /* the message (n) */
	double tolerance;        /* percent, for the broadcast rows (2) */
	const struct lb_prov *prov; /* the caller's; NULL: none */
	const atomic_int *stop;  /* non-zero: stop before the next row */
};

const struct lb_col *lb_repro004_columns(size_t *ncols);

/* Runs it, rows to sink.  Returns 0 (also when stopped), or -1 with the
 * reason in err (a build or simulation failure, the sink's). */
int lb_repro004_run(const struct lb_repro004_params *p, const struct lb_sink *sink,
		    char *err, size_t errlen);

#endif
