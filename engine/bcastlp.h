/* The LP bound's edge loads (model/lp.h) for the lp-* algorithms of a
 * broadcast sweep, one set per (root, slice) the sweep runs them with.
 *
 * Every rank must build the same tree, so every rank needs the same
 * loads.  Rank 0 solves the LP and sends the loads to the others through
 * the bootstrap, rather than every rank solving it: GLPK may differ from
 * host to host (version, build), and of several optimal vertices a
 * different one would give a different tree -- and a job whose ranks run
 * different schedules stalls.  One solve also spares the others' CPU. */
#ifndef LB_BCASTLP_H
#define LB_BCASTLP_H

#include <stddef.h>
#include <stdint.h>

#include "algos/platform.h"
#include "job.h"

struct lb_lp_loads {
	uint32_t root;
	uint64_t slice_bytes;
	double *load; /* [nodes * nodes]: n_{u,v} in slices/s, row u */
};

struct lb_lp_cache {
	struct lb_lp_loads *e;
	size_t n, cap;
};

/* Collective (every rank, the same calls in the same order): makes sure
 * the loads of (root, slice_bytes) on pf's lane 0 -- the lane the
 * platform algorithms use -- are in c.  Returns 0, or -1/LB_EPEER with
 * rank 0's reason (GLPK's failure, no memory) on every rank. */
int lb_lp_cache_add(struct lb_lp_cache *c, struct lb_job *job, const struct lb_platform *pf,
		    uint32_t root, uint64_t slice_bytes, char *err, size_t errlen);

/* The loads of (root, slice_bytes), or NULL when not added. */
const double *lb_lp_cache_find(const struct lb_lp_cache *c, uint32_t root, uint64_t slice_bytes);

void lb_lp_cache_free(struct lb_lp_cache *c);

#endif
