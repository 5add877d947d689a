/* The binary heap of ids (heap.h). */
#include "heap.h"

#include <stdlib.h>

int lb_heap_init(struct lb_heap *h, uint32_t cap, int flags, const double *key)
{
	*h = (struct lb_heap){ .flags = flags, .key = key };
	if (lb_heap_grow(h, cap)) {
		lb_heap_free(h);
		return -1;
	}
	return 0;
}

int lb_heap_grow(struct lb_heap *h, uint32_t cap)
{
	if (cap <= h->cap)
		return 0;
	uint32_t *id = realloc(h->id, (size_t)cap * sizeof(*id));
	if (!id)
		return -1;
	h->id = id;
	if (h->flags & LB_HEAP_TRACK) {
		uint32_t *pos = realloc(h->pos, (size_t)cap * sizeof(*pos));
		if (!pos)
			return -1; /* id grown, cap not: still consistent */
		h->pos = pos;
	}
	h->cap = cap;
	return 0;
}

void lb_heap_free(struct lb_heap *h)
{
	free(h->id);
	free(h->pos);
	h->id = h->pos = NULL;
	h->n = h->cap = 0;
}

/* What a sift reads, in locals: a store into the id array might alias the
 * heap's n and flags for all the compiler knows, and reloading them at
 * every step cost a sift half again its instructions. */
struct sift {
	uint32_t *id, *pos; /* pos NULL: not tracked */
	uint32_t n;
	const double *key;
	int ties_by_id;
};

#define ALWAYS_INLINE inline __attribute__((always_inline))

static ALWAYS_INLINE int comes_before(const struct sift *s, uint32_t a, uint32_t b)
{
	if (s->ties_by_id)
		return s->key[a] < s->key[b] || (s->key[a] == s->key[b] && a < b);
	return s->key[a] < s->key[b];
}

static ALWAYS_INLINE void put(const struct sift *s, uint32_t i, uint32_t id)
{
	s->id[i] = id;
	if (s->pos)
		s->pos[id] = i;
}

/* Where id, its place free at i, goes up: past the parents it is before. */
static ALWAYS_INLINE uint32_t sift_up(const struct sift *s, uint32_t i, uint32_t id)
{
	for (; i > 0 && comes_before(s, id, s->id[(i - 1) / 2]); i = (i - 1) / 2)
		put(s, i, s->id[(i - 1) / 2]);
	return i;
}

/* Where id, its place free at i, goes down: past the first child while
 * that child is before it (the right one when strictly before the left). */
static ALWAYS_INLINE uint32_t sift_down(const struct sift *s, uint32_t i, uint32_t id)
{
	for (uint32_t c = 2 * i + 1; c < s->n; i = c, c = 2 * i + 1) {
		if (c + 1 < s->n && comes_before(s, s->id[c + 1], s->id[c]))
			c++;
		if (!comes_before(s, s->id[c], id))
			break;
		put(s, i, s->id[c]);
	}
	return i;
}

/* id put in its place, starting from the free place i (i < n).  Moved up,
 * it is before its new children already (the order is a strict weak
 * order), so it goes one way only.  ties_by_id is a constant in each of
 * place's two copies, tested once per sift instead of once per step. */
static ALWAYS_INLINE void place_as(const struct lb_heap *h, uint32_t i, uint32_t id,
				   int ties_by_id)
{
	struct sift s = { h->id, h->flags & LB_HEAP_TRACK ? h->pos : NULL, h->n, h->key,
			  ties_by_id };
	uint32_t up = sift_up(&s, i, id);
	put(&s, up != i ? up : sift_down(&s, i, id), id);
}

static void place_by_key(const struct lb_heap *h, uint32_t i, uint32_t id)
{
	place_as(h, i, id, 0);
}

static void place_by_key_then_id(const struct lb_heap *h, uint32_t i, uint32_t id)
{
	place_as(h, i, id, 1);
}

static void place(const struct lb_heap *h, uint32_t i, uint32_t id)
{
	if (h->flags & LB_HEAP_TIES_BY_ID)
		place_by_key_then_id(h, i, id);
	else
		place_by_key(h, i, id);
}

/* Most pushes stay at the bottom (fluid's new flows: their end is INFINITY
 * until recomputed), found here without the call to place: 1.7 % of the
 * fluid simulator's instructions. */
void lb_heap_push(struct lb_heap *h, uint32_t id)
{
	uint32_t i = h->n++, parent = i ? h->id[(i - 1) / 2] : 0;
	const double *k = h->key;
	if (i > 0 && (k[id] < k[parent] || ((h->flags & LB_HEAP_TIES_BY_ID) && k[id] == k[parent] &&
					    id < parent))) {
		place(h, i, id);
		return;
	}
	h->id[i] = id;
	if (h->flags & LB_HEAP_TRACK)
		h->pos[id] = i;
}

uint32_t lb_heap_pop(struct lb_heap *h)
{
	uint32_t top = h->id[0], last = h->id[--h->n];
	if (h->n)
		place(h, 0, last);
	return top;
}

void lb_heap_update(struct lb_heap *h, uint32_t id)
{
	place(h, h->pos[id], id);
}

void lb_heap_remove(struct lb_heap *h, uint32_t id)
{
	uint32_t i = h->pos[id], last = h->id[--h->n];
	if (i < h->n)
		place(h, i, last);
}
