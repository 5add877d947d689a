/* A binary heap of ids: the simulators' queues of flows by end (fluid.c)
 * and of ranks by their next op (sim_logp.c).  The event simulator's tie
 * and release heaps stay its own, their entries carrying their keys
 * (model/sim_queue.h and model/sim_fluid.c say what the port cost).  It
 * holds ids 0 .. cap - 1, each at most once, ordered by a key array the
 * caller owns: key[id], the least first.  The caller
 * sets an id's key before pushing it and leaves it alone while the id is
 * queued (or, tracking, calls lb_heap_update after changing it).  With
 * tracking on the heap keeps pos[id], the id's place in its array,
 * current, so a queued id can be removed or moved.
 *
 * Equal keys: with LB_HEAP_TIES_BY_ID the smaller id first; without it the
 * heap's own order (it depends on the pushes and pops before),
 * deterministic and the same as the simulators' hand-written heaps had:
 * sift-up passes a parent only when strictly before it, sift-down takes
 * the right child only when strictly before the left and passes a child
 * only when strictly before it.
 *
 * Why keys and not a comparison callback: a call per comparison, the key
 * behind it recomputed every time, cost the LogP simulator 1.34 times its
 * instructions; by key a sift is loads and compares. */
#ifndef LB_HEAP_H
#define LB_HEAP_H

#include <stdint.h>

enum {
	LB_HEAP_TRACK = 1,       /* keep pos: lb_heap_update and lb_heap_remove */
	LB_HEAP_TIES_BY_ID = 2,  /* equal keys: the smaller id first */
};

struct lb_heap {
	uint32_t *id;  /* [cap]: id[0] is first; id[i] is before neither id[2i + 1] nor id[2i + 2] */
	uint32_t *pos; /* [cap] when tracking: an id's index in `id` while it is queued */
	uint32_t n, cap;
	int flags;
	const double *key; /* [cap], the caller's, never NaN; moved by the caller: set it again */
};

/* An empty heap for ids below cap (0: none until lb_heap_grow), ordered by
 * key (which may be NULL until the first push).  Returns 0 or -1 (no
 * memory). */
int lb_heap_init(struct lb_heap *h, uint32_t cap, int flags, const double *key);

/* Room for ids below cap (>= the current cap), the heap kept.  Returns 0
 * or -1 (no memory; the heap unchanged). */
int lb_heap_grow(struct lb_heap *h, uint32_t cap);

void lb_heap_free(struct lb_heap *h);

/* Queues id (below cap, not queued, its key set). */
void lb_heap_push(struct lb_heap *h, uint32_t id);

/* Dequeues and returns the first id; the heap must not be empty. */
uint32_t lb_heap_pop(struct lb_heap *h);

/* Tracking only: queued id's key changed; it moves up or down to its place. */
void lb_heap_update(struct lb_heap *h, uint32_t id);

/* Tracking only: dequeues id, wherever it is. */
void lb_heap_remove(struct lb_heap *h, uint32_t id);

#endif
