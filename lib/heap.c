/* The binary heap of ids (heap.h). */
#include "heap.h"

#include <stdlib.h>

int lb_heap_init(struct lb_heap *h, uint32_t cap, int track, lb_heap_before_fn *before,
		 const void *ctx)
{
	*h = (struct lb_heap){ .before = before, .ctx = ctx, .track = track != 0 };
	if (lb_heap_grow(h, cap)) {
		lb_heap_free(h);
		return -1;
	}
	return 0;
}

int lb_heap_init_by_key(struct lb_heap *h, uint32_t cap, int track, const double *key)
{
	int rc = lb_heap_init(h, cap, track, NULL, NULL);
	h->key = key;
	return rc;
}

int lb_heap_grow(struct lb_heap *h, uint32_t cap)
{
	if (cap <= h->cap)
		return 0;
	uint32_t *id = realloc(h->id, (size_t)cap * sizeof(*id));
	if (!id)
		return -1;
	h->id = id;
	if (h->track) {
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

/* What a sift reads, in locals (a store into the id array might alias the
 * heap's n and track for all the compiler knows), and whether the order is
 * the key array's: a constant in each of place's two copies, so the one by
 * key is a loop of loads and compares with no call in it, as the
 * simulators' own heaps were (with the test inside each comparison and
 * one copy, a sift ran 1.6 times their instructions). */
struct sift {
	uint32_t *id, *pos; /* pos NULL: not tracked */
	uint32_t n;
	int by_key;
	const double *key;
	lb_heap_before_fn *before;
	const void *ctx;
};

#define ALWAYS_INLINE inline __attribute__((always_inline))

static ALWAYS_INLINE int comes_before(const struct sift *s, uint32_t a, uint32_t b)
{
	return s->by_key ? s->key[a] < s->key[b] : s->before(a, b, s->ctx);
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
 * it is before its new children already (the comparison is a strict weak
 * order), so it goes one way only. */
static ALWAYS_INLINE void place_as(const struct lb_heap *h, uint32_t i, uint32_t id, int by_key)
{
	struct sift s = { h->id, h->track ? h->pos : NULL, h->n, by_key, h->key, h->before, h->ctx };
	uint32_t up = sift_up(&s, i, id);
	put(&s, up != i ? up : sift_down(&s, i, id), id);
}

/* Apart, so that the one by key saves no registers for a call it never
 * makes. */
static void place_by_key(const struct lb_heap *h, uint32_t i, uint32_t id)
{
	place_as(h, i, id, 1);
}

static void place_by_call(const struct lb_heap *h, uint32_t i, uint32_t id)
{
	place_as(h, i, id, 0);
}

static void place(const struct lb_heap *h, uint32_t i, uint32_t id)
{
	if (h->key)
		place_by_key(h, i, id);
	else
		place_by_call(h, i, id);
}

/* Most pushes by key stay at the bottom (fluid's new flows: their end is
 * INFINITY until recomputed), found without the call to place: 1.7 % of
 * the fluid simulator's instructions. */
void lb_heap_push(struct lb_heap *h, uint32_t id)
{
	uint32_t i = h->n++;
	if (h->key && (i == 0 || !(h->key[id] < h->key[h->id[(i - 1) / 2]]))) {
		h->id[i] = id;
		if (h->track)
			h->pos[id] = i;
		return;
	}
	place(h, i, id);
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
