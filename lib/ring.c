#include "ring.h"

#include <stdlib.h>
#include <string.h>

/* Doubles the capacity, unwrapping the records to the start. */
static int grow(struct lb_ring *r, size_t size)
{
	uint32_t cap = r->cap ? r->cap * 2 : 64;
	unsigned char *n = malloc((size_t)cap * size);
	if (!n)
		return -1;
	for (uint32_t i = 0; i < r->count; i++)
		memcpy(n + i * size, lb_ring_at(r, i, size), size);
	free(r->buf);
	r->buf = n;
	r->head = 0;
	r->cap = cap;
	return 0;
}

int lb_ring_push(struct lb_ring *r, const void *rec, size_t size)
{
	if (r->count == r->cap && grow(r, size))
		return -1;
	memcpy(r->buf + (size_t)((r->head + r->count) % r->cap) * size, rec, size);
	r->count++;
	return 0;
}

void *lb_ring_at(const struct lb_ring *r, uint32_t i, size_t size)
{
	return i < r->count ? r->buf + (size_t)((r->head + i) % r->cap) * size : NULL;
}

void lb_ring_pop(struct lb_ring *r)
{
	r->head = (r->head + 1) % r->cap;
	r->count--;
}

void lb_ring_free(struct lb_ring *r)
{
	free(r->buf);
	memset(r, 0, sizeof(*r));
}
