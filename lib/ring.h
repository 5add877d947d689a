/* A growable FIFO of fixed-size records: a transport's posted sends or
 * receives on one channel, in posting order.  Push at the tail, look at
 * the i-th record from the head, pop the head.  Zeroed memory is an empty
 * ring, so rings live inside calloc'd connection structs; every call
 * passes the record size, which must be the same for one ring. */
#ifndef LB_RING_H
#define LB_RING_H

#include <stddef.h>
#include <stdint.h>

struct lb_ring {
	unsigned char *buf;
	uint32_t head, count, cap;
};

/* 0, or -1 when out of memory (the ring is unchanged). */
int lb_ring_push(struct lb_ring *r, const void *rec, size_t size);

/* The i-th record from the head, or NULL when i >= count. */
void *lb_ring_at(const struct lb_ring *r, uint32_t i, size_t size);

/* Drops the head record; the ring must not be empty. */
void lb_ring_pop(struct lb_ring *r);

void lb_ring_free(struct lb_ring *r);

#endif
