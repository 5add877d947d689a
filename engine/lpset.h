/* The LP bounds (model/lp.h) a sweep needs, one per (root, slice) on the
 * platform's lane 0 -- the lane the platform algorithms use.  GLPK is not
 * thread-safe, so the calling thread solves them all before any worker
 * starts; the workers only read them.  In a job (engine/bcastlp.h) rank 0
 * solves and the other ranks receive the loads into entries of their own
 * set (lb_lp_set_put). */
#ifndef LB_LPSET_H
#define LB_LPSET_H

#include <stddef.h>
#include <stdint.h>

#include "net/platform.h"
#include "model/lp.h"

struct lb_lp_entry {
	uint32_t root;
	uint64_t slice_bytes;
	struct lb_lp_result res;
};

struct lb_lp_set {
	struct lb_lp_entry *e;
	size_t n, cap;
};

/* Solves the LP of (root, slice_bytes) unless s has it (phase 2: least
 * total link time, as the lp-* algorithms want).  Returns 0, or -1 with
 * the solver's reason in err, naming root and slice. */
int lb_lp_set_add(struct lb_lp_set *s, const struct lb_platform *pf, uint32_t root,
		  uint64_t slice_bytes, char *err, size_t errlen);

/* An entry for (root, slice_bytes) with zeroed loads for `nodes` nodes
 * and tp 0, for a caller that fills it with what another process solved.
 * NULL when out of memory. */
struct lb_lp_result *lb_lp_set_put(struct lb_lp_set *s, uint32_t root, uint64_t slice_bytes,
				   uint32_t nodes);

/* The bound of (root, slice_bytes), or NULL when not added. */
const struct lb_lp_result *lb_lp_set_find(const struct lb_lp_set *s, uint32_t root,
					  uint64_t slice_bytes);

void lb_lp_set_free(struct lb_lp_set *s);

#endif
