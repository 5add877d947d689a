/* The LP bound's edge loads (model/lp.h) for the lp-* algorithms of a
 * broadcast job, one set per (root, slice) the sweep runs them with, kept
 * in an lb_lp_set (engine/lpset.h).
 *
 * Every rank must build the same tree, so every rank needs the same
 * loads.  Rank 0 solves the LP and sends the loads to the others through
 * the bootstrap, rather than every rank solving it: GLPK may differ from
 * host to host (version, build), and of several optimal vertices a
 * different one would give a different tree -- and a job whose ranks run
 * different schedules stalls.  One solve also spares the others' CPU.
 * (The other ranks get the loads only: their entries' tp stays 0.) */
#ifndef LB_BCASTLP_H
#define LB_BCASTLP_H

#include <stddef.h>
#include <stdint.h>

#include "net/platform.h"
#include "job.h"
#include "lpset.h"

/* Collective (every rank, the same calls in the same order): makes sure
 * the loads of (root, slice_bytes) on pf's lane 0 are in s.  Returns 0,
 * or -1/LB_EPEER with rank 0's reason (GLPK's failure, no memory) on
 * every rank. */
int lb_bcast_lp_add(struct lb_lp_set *s, struct lb_job *job, const struct lb_platform *pf,
		    uint32_t root, uint64_t slice_bytes, char *err, size_t errlen);

#endif
