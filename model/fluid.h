/* Flow-level bandwidth sharing for the simulator's fluid port model
 * (model/sim.h, LB_PORT_FLUID): transfers in progress are flows of bytes
 * through shared resources (ports, node caps, a WAN link), each resource
 * of a capacity in bytes/s that the flows through it share by weighted
 * max-min (progressive filling: every unfrozen flow's rate rises together,
 * in proportion to its weight, until a resource is full or the flow
 * reaches its own cap, then the flows of that resource, or that flow,
 * freeze, and so on; weights 1: max-min fair).  Rates are recomputed only
 * when a flow starts or ends; between those they are constant, so a flow's
 * bytes left fall linearly and its end is known until the next change.
 *
 * Cost: a max-min fair allocation splits over the connected components of
 * the graph of flows and resources (a flow's rate depends only on the
 * flows it shares a resource with, transitively), so a change recomputes
 * only the component of the flow that started or ended: each resource
 * keeps the list of its flows, a search from the changed flow's resources
 * collects the component, and the filling runs over it alone -- O(c x
 * LB_FLUID_MAX_RES) per round for a component of c flows, at most c
 * rounds.  The others keep their rates, their bytes left as of their last
 * recomputation (brought forward only when recomputed) and their ends, in
 * a heap: the next end is its top, O(log flows) per flow recomputed.  A
 * transfer is two changes (its start and its end). */
#ifndef LB_FLUID_H
#define LB_FLUID_H

#include <stddef.h>
#include <stdint.h>

#include "lib/heap.h"

#define LB_FLUID_MAX_RES 3 /* a sender's port, a receiver's port, a WAN link */
#define LB_FLUID_NONE UINT32_MAX

struct lb_fluid_flow {
	double left;  /* bytes still to pass at `since` */
	double since; /* when `left` and `rate` were last set */
	double rate;  /* bytes/s from `since`; INFINITY: unconstrained */
	double cap;   /* its own limit (a link's bandwidth); INFINITY: none */
	double weight; /* its share against the others', > 0 (1: fair) */
	uint32_t res[LB_FLUID_MAX_RES];
	/* Its place in each resource's list of flows: neighbours as nodes
	 * (flow id x LB_FLUID_MAX_RES + k, LB_FLUID_NONE: none). */
	uint32_t next[LB_FLUID_MAX_RES], prev[LB_FLUID_MAX_RES];
	uint32_t nres;
	uint32_t tag;   /* the caller's name for it */
	uint32_t order; /* its place in `order`; a free id: the next free one */
	uint32_t mark;  /* the recomputation that collected it last */
	uint8_t frozen; /* scratch of the filling */
};

struct lb_fluid {
	const double *capacity; /* [resources], bytes/s, > 0: the caller's */
	double *spare;          /* [resources]: scratch of the filling */
	double *users;          /* [resources]: the weights of its unfrozen flows */
	uint32_t *head;         /* [resources]: its first flow's node */
	uint32_t *res_mark;     /* [resources]: the recomputation that reached it last */
	uint32_t *touched;      /* [resources]: those of the pending recomputation */
	uint32_t ntouched;
	uint32_t resources;
	struct lb_fluid_flow *flow; /* [flow_cap], by id */
	uint32_t *order;  /* [nflows]: the flows in progress, oldest first but for
			   * the last moved into a removed one's place */
	double *end;      /* [flow_cap]: when the flow ends at its rate */
	struct lb_heap ends; /* the flows in progress by `end`, positions tracked */
	uint32_t *comp;   /* [flow_cap]: the component being recomputed */
	uint32_t ncomp;
	uint64_t *ended;  /* [flow_cap]: the batch of ended flows, (order, id) */
	uint32_t nended, ended_next;
	int batch;        /* `ended` holds the flows ended at `now` */
	uint32_t free_id; /* first free id, LB_FLUID_NONE: none */
	uint32_t epoch;   /* the pending recomputation's mark */
	size_t nflows, flow_cap;
	double now;       /* time of the last change */
	int dirty;        /* a change not yet recomputed */
};

/* A sharing of `resources` resources of the given capacities (kept by
 * pointer).  Returns 0 or -1 (no memory). */
int lb_fluid_init(struct lb_fluid *f, const double *capacity, uint32_t resources);
void lb_fluid_free(struct lb_fluid *f);

/* A flow of `bytes` starting at `at` (>= the last change) through res[0 ..
 * nres), at most `cap` bytes/s, of the given weight.  Returns 0 or -1 (no
 * memory). */
int lb_fluid_add(struct lb_fluid *f, double at, double bytes, double cap, double weight,
		 const uint32_t *res, uint32_t nres, uint32_t tag);

/* When the next flow in progress ends at the current rates; INFINITY when
 * there is none. */
double lb_fluid_next_end(struct lb_fluid *f);

/* Moves to `at` (no later than lb_fluid_next_end) and removes one flow
 * that has ended by then, returning its tag; LB_FLUID_NONE when none has.
 * Of several, the first in `order`. */
uint32_t lb_fluid_take_ended(struct lb_fluid *f, double at);

#endif
