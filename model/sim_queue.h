/* The event simulator's queue (sim.c and its parts): the SENDs ready to
 * start, at most one per (rank, lane), taken in (at, ready, slot) order,
 * and what an event carries.  Inline, in a header: pushing and popping
 * are the per-lane run's inner loop, and a call each would cost on every
 * event (see the tie heap below). */
#ifndef LB_SIM_QUEUE_H
#define LB_SIM_QUEUE_H

#include <math.h>
#include <stdint.h>
#include <string.h>

/* A SEND as the simulator needs it: to whom, which blocks.  Schedules
 * with barriers add marks to the stream, told by peer: a RECV's blocks
 * (placed just before the lane's next BARRIER: the lane has reached it once
 * they have arrived, yet its SENDs never wait for them) and the BARRIER
 * itself (first_block = its group). */
struct send {
	uint32_t peer;
	uint32_t first_block;
	uint32_t nblocks;
};

#define MARK_RECV (UINT32_MAX - 1)
#define MARK_BARRIER UINT32_MAX

/* The SEND rides in its event, so starting it reads no schedule memory. */
struct event {
	double at;      /* when the SEND can start */
	double ready;   /* when it first could have (FCFS at busy receivers) */
	uint32_t slot;  /* rank * lanes + lane */
	struct send op;
};

/* The event queue.  Events come out in (at, ready, slot) order, and a
 * simulator never queues an event before the one it is handling, so a
 * monotone queue fits: a radix heap over the bits of at (non-negative
 * doubles order as their bit patterns).  An event waits in the bucket of
 * the highest bit in which its at differs from that of the last event
 * out; when the ties (at equal to it) run out, the lowest non-empty
 * bucket's least at becomes the last, and that bucket is spread over the
 * lower ones.  An event moves at most 64 times in all, and in practice a
 * few, against a heap's sift through every level at each event.  The
 * ties are a binary heap on (ready, slot), which keeps the order exact.
 * A slot has at most one event queued, so events live in ev[slot] and a
 * bucket is a list linked through link[slot].
 *
 * The tie heap is its own, not lib/heap's: its entries carry their key, so
 * a sift reads the heap's array alone and inline, where lib/heap's ids
 * read a key array at random and pay a call per push and pop -- and this
 * queue is the per-lane run's inner loop.  Tried, with ready[slot] as
 * the keys and ties by slot (the same results): `sim -a all -p 4096 -k 4
 * -m 64M -s 1M` took 1.15 times the instructions (callgrind), and 1.04
 * times the CPU at 256M. */
#define NO_SLOT UINT32_MAX

struct tie {
	double ready;
	uint32_t slot;
};

struct queue {
	struct event *ev;      /* [slot] */
	uint32_t *link;        /* [slot]: the next slot in its bucket */
	struct tie *ties;      /* binary heap of the events at `last` */
	size_t nties;
	uint64_t last;         /* bits of the at of the last event out */
	uint64_t nonempty;     /* bit b - 1: bucket b has events */
	uint32_t head[65];     /* bucket b (1..64): at differs from last first in bit b - 1 */
	/* Fluid's peek: the lowest bucket's least at, while least_known
	 * (cleared whenever a bucket gains or loses an event). */
	uint64_t least;
	int least_known;
};

static inline uint64_t time_bits(double t)
{
	uint64_t u;
	memcpy(&u, &t, sizeof(u));
	return u;
}

static inline int tie_before(struct tie a, struct tie b)
{
	return a.ready != b.ready ? a.ready < b.ready : a.slot < b.slot;
}

static inline void tie_push(struct queue *q, struct tie t)
{
	size_t i = q->nties++;
	while (i > 0 && tie_before(t, q->ties[(i - 1) / 2])) {
		q->ties[i] = q->ties[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	q->ties[i] = t;
}

static inline void tie_pop(struct queue *q)
{
	struct tie t = q->ties[--q->nties];
	size_t i = 0, n = q->nties;
	for (size_t c = 1; c < n; c = 2 * i + 1) {
		if (c + 1 < n && tie_before(q->ties[c + 1], q->ties[c]))
			c++;
		if (!tie_before(q->ties[c], t))
			break;
		q->ties[i] = q->ties[c];
		i = c;
	}
	q->ties[i] = t;
}

/* Files the event of slot (already in ev[slot]) by its at. */
static inline void queue_file(struct queue *q, uint32_t slot)
{
	uint64_t diff = time_bits(q->ev[slot].at) ^ q->last;
	if (!diff) {
		tie_push(q, (struct tie){ q->ev[slot].ready, slot });
		return;
	}
	unsigned b = 64 - (unsigned)__builtin_clzll(diff);
	q->least_known = 0;
	q->link[slot] = q->head[b];
	q->head[b] = slot;
	q->nonempty |= 1ull << (b - 1);
}

static inline void queue_push(struct queue *q, struct event ev)
{
	q->ev[ev.slot] = ev;
	queue_file(q, ev.slot);
}

/* No ties left: the lowest bucket's least at becomes the last, and the
 * bucket is spread over the ties and the buckets below it. */
static inline void queue_refill(struct queue *q)
{
	unsigned b = (unsigned)__builtin_ctzll(q->nonempty) + 1;
	uint64_t least = UINT64_MAX;
	for (uint32_t s = q->head[b]; s != NO_SLOT; s = q->link[s]) {
		uint64_t k = time_bits(q->ev[s].at);
		least = k < least ? k : least;
	}
	uint32_t s = q->head[b];
	q->head[b] = NO_SLOT;
	q->nonempty &= ~(1ull << (b - 1));
	q->last = least;
	q->least_known = 0;
	while (s != NO_SLOT) {
		uint32_t next = q->link[s];
		queue_file(q, s);
		s = next;
	}
}

/* The slot whose event is first, or NO_SLOT when none is queued. */
static inline uint32_t queue_top(struct queue *q)
{
	if (!q->nties && q->nonempty)
		queue_refill(q);
	return q->nties ? q->ties[0].slot : NO_SLOT;
}

/* The fluid loop's peek: the least `at` queued, without moving the
 * queue's `last` (an end may still come before it and queue events earlier
 * than that).  The lowest bucket's least is kept until a bucket changes:
 * the run peeks at every event, and that bucket can hold most of the
 * lanes. */
static inline double queue_peek_at(struct queue *q)
{
	uint64_t least = q->last;
	if (!q->nties) {
		if (!q->nonempty)
			return INFINITY;
		if (!q->least_known) {
			q->least = UINT64_MAX, q->least_known = 1;
			for (uint32_t s = q->head[__builtin_ctzll(q->nonempty) + 1]; s != NO_SLOT;
			     s = q->link[s])
				q->least = time_bits(q->ev[s].at) < q->least ? time_bits(q->ev[s].at)
									     : q->least;
		}
		least = q->least;
	}
	double t;
	memcpy(&t, &least, sizeof(t));
	return t;
}

/* An empty queue (its arrays allocated). */
static inline void queue_clear(struct queue *q)
{
	for (unsigned b = 0; b < 65; b++)
		q->head[b] = NO_SLOT;
}

#endif
