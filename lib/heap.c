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

static void put(struct lb_heap *h, uint32_t i, uint32_t id)
{
	h->id[i] = id;
	if (h->track)
		h->pos[id] = i;
}

/* Where id, its place free at i, goes up: past the parents it is before. */
static uint32_t sift_up(struct lb_heap *h, uint32_t i, uint32_t id)
{
	for (; i > 0 && h->before(id, h->id[(i - 1) / 2], h->ctx); i = (i - 1) / 2)
		put(h, i, h->id[(i - 1) / 2]);
	return i;
}

/* Where id, its place free at i, goes down: past the first child while
 * that child is before it (the right one when strictly before the left). */
static uint32_t sift_down(struct lb_heap *h, uint32_t i, uint32_t id)
{
	for (uint32_t c = 2 * i + 1; c < h->n; i = c, c = 2 * i + 1) {
		if (c + 1 < h->n && h->before(h->id[c + 1], h->id[c], h->ctx))
			c++;
		if (!h->before(h->id[c], id, h->ctx))
			break;
		put(h, i, h->id[c]);
	}
	return i;
}

/* id put in its place, starting from the free place i (i < n).  Moved up,
 * it is before its new children already (the comparison is a strict weak
 * order), so it goes one way only. */
static void place(struct lb_heap *h, uint32_t i, uint32_t id)
{
	uint32_t up = sift_up(h, i, id);
	put(h, up != i ? up : sift_down(h, i, id), id);
}

void lb_heap_push(struct lb_heap *h, uint32_t id)
{
	place(h, h->n++, id);
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
