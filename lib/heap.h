/* A binary heap of ids: the simulators' queues of flows by end, links by
 * release, ranks by their next op.  It holds ids 0 .. cap - 1, each at
 * most once, ordered by a key array the caller owns (key[id], the least
 * first) or by the caller's comparison, which reads the keys wherever the
 * caller keeps them (a rank's clock, ties by rank): the heap stores ids
 * only.  The key array is the fast way (no call per comparison: the fluid
 * simulator sifts once per flow recomputed).  With tracking on it keeps pos[id], the id's place in
 * the array, current, so a queued id can be removed or, its key changed,
 * moved to its new place.
 *
 * The order among ids of equal keys, or that the comparison calls equal, is the heap's own (it
 * depends on the pushes and pops before), deterministic and the same as
 * the simulators' hand-written heaps had: sift-up passes a parent only when
 * strictly before it, sift-down takes the right child only when strictly
 * before the left and passes a child only when strictly before it.  A
 * caller wanting a fixed order at ties breaks them in the comparison. */
#ifndef LB_HEAP_H
#define LB_HEAP_H

#include <stdint.h>

/* Nonzero when id a comes strictly before id b. */
typedef int lb_heap_before_fn(uint32_t a, uint32_t b, const void *ctx);

struct lb_heap {
	uint32_t *id;  /* [cap]: id[0] is first; id[i] is before neither id[2i + 1] nor id[2i + 2] */
	uint32_t *pos; /* [cap] when tracking: an id's index in `id` while it is queued */
	uint32_t n, cap;
	int track;
	const double *key; /* [cap], the caller's (it may move it: set key again); NULL: before */
	lb_heap_before_fn *before;
	const void *ctx; /* passed to before; must outlive the heap */
};

/* An empty heap for ids below cap (0: none until lb_heap_grow) ordered by
 * before(a, b, ctx), tracking positions when track is nonzero.  Returns 0
 * or -1 (no memory). */
int lb_heap_init(struct lb_heap *h, uint32_t cap, int track, lb_heap_before_fn *before,
		 const void *ctx);

/* The same, ordered by key[id], never NaN. */
int lb_heap_init_by_key(struct lb_heap *h, uint32_t cap, int track, const double *key);

/* Room for ids below cap (>= the current cap), the heap kept.  Returns 0
 * or -1 (no memory; the heap unchanged). */
int lb_heap_grow(struct lb_heap *h, uint32_t cap);

void lb_heap_free(struct lb_heap *h);

/* Queues id (below cap, not queued). */
void lb_heap_push(struct lb_heap *h, uint32_t id);

/* Dequeues and returns the first id; the heap must not be empty. */
uint32_t lb_heap_pop(struct lb_heap *h);

/* Tracking only: queued id's key changed; it moves up or down to its place. */
void lb_heap_update(struct lb_heap *h, uint32_t id);

/* Tracking only: dequeues id, wherever it is. */
void lb_heap_remove(struct lb_heap *h, uint32_t id);

#endif
