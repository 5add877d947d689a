/* lib/heap: ids come out by key, ties by the smaller id when asked;
 * positions stay current under push, pop, remove and key updates, and
 * growth keeps the heap; with ties left to the heap the order is exactly
 * that of the simulators' former hand-written heaps (their results depend
 * on it). */
#include "check.h"
#include "lib/heap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define N 1000

static uint64_t rng_state = 88172645463325252ull;

static uint32_t rnd(uint32_t below)
{
	rng_state ^= rng_state << 13, rng_state ^= rng_state >> 7, rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state % below);
}

/* a strictly before b in the heap's order. */
static int before(const struct lb_heap *h, uint32_t a, uint32_t b)
{
	if (h->key[a] != h->key[b])
		return h->key[a] < h->key[b];
	return (h->flags & LB_HEAP_TIES_BY_ID) && a < b;
}

/* Every queued id at its tracked place, none before its parent. */
static int consistent(const struct lb_heap *h)
{
	for (uint32_t i = 0; i < h->n; i++) {
		if ((h->flags & LB_HEAP_TRACK) && h->pos[h->id[i]] != i)
			return 0;
		if (i > 0 && before(h, h->id[i], h->id[(i - 1) / 2]))
			return 0;
	}
	return 1;
}

static void shuffle(uint32_t *a, uint32_t n)
{
	for (uint32_t i = n; i > 1; i--) {
		uint32_t j = rnd(i), t = a[i - 1];
		a[i - 1] = a[j], a[j] = t;
	}
}

/* Pushed in random order, keys drawn from a few values (many ties): popped
 * in (key, id) order, every id once. */
static void test_ties_by_id(void)
{
	static double key[N];
	static uint32_t ids[N];
	for (uint32_t i = 0; i < N; i++)
		key[i] = rnd(20) * 0.5, ids[i] = i;
	shuffle(ids, N);
	struct lb_heap h;
	CHECK(lb_heap_init(&h, N, LB_HEAP_TIES_BY_ID, key) == 0, "init");
	for (uint32_t i = 0; i < N; i++)
		lb_heap_push(&h, ids[i]);
	CHECK(h.n == N && consistent(&h), "after pushes: %u queued or out of order", h.n);
	uint32_t prev = lb_heap_pop(&h), out = 1;
	while (h.n) {
		uint32_t id = lb_heap_pop(&h);
		CHECK(key[prev] < key[id] || (key[prev] == key[id] && prev < id),
		      "%u (key %g) came after %u (key %g)", id, key[id], prev, key[prev]);
		prev = id, out++;
	}
	CHECK(out == N, "%u popped, want %u", out, N);
	lb_heap_free(&h);
}

/* Random pushes, pops, removals and key changes on a tracked heap that
 * starts with no room and grows: the heap stays consistent, and each pop
 * gives what a scan of the queued ids finds first (with ties by id that
 * very id, else one of the least key). */
static void test_tracking(int flags)
{
	static double key[N];
	static uint8_t queued[N];
	memset(queued, 0, sizeof(queued));
	struct lb_heap h;
	CHECK(lb_heap_init(&h, 0, LB_HEAP_TRACK | flags, key) == 0, "init with no room");
	uint32_t room = 0, bad = 0, pops = 0, updates = 0, removes = 0;
	for (int step = 0; step < 20000; step++) {
		uint32_t id = rnd(N), op = rnd(4);
		if (id >= room) { /* as fluid: room doubles when an id needs it */
			uint32_t was = h.n;
			while (id >= room)
				room = room ? 2 * room : 16;
			room = room > N ? N : room;
			CHECK(lb_heap_grow(&h, room) == 0 && h.cap == room && h.n == was,
			      "grow to %u", room);
		}
		if (!queued[id] && op < 3) {
			key[id] = rnd(50);
			lb_heap_push(&h, id), queued[id] = 1;
		} else if (queued[id] && op == 0) {
			key[id] = rnd(50); /* earlier or later */
			lb_heap_update(&h, id), updates++;
		} else if (queued[id] && op == 1) {
			lb_heap_remove(&h, id), queued[id] = 0, removes++;
		} else if (h.n && op == 2) {
			uint32_t want = UINT32_MAX;
			for (uint32_t i = 0; i < room; i++)
				if (queued[i] && (want == UINT32_MAX || key[i] < key[want]))
					want = i; /* the least key, the smallest id of it */
			uint32_t got = lb_heap_pop(&h);
			queued[got] = 0, pops++;
			bad += (flags & LB_HEAP_TIES_BY_ID) ? got != want : key[got] != key[want];
		}
		if (!consistent(&h)) {
			CHECK(0, "step %d: heap or positions inconsistent", step);
			break;
		}
	}
	CHECK(pops > 1000 && updates > 1000 && removes > 1000, "%u pops, %u updates, %u removes",
	      pops, updates, removes);
	CHECK(bad == 0, "flags %d: %u of %u pops gave an id other than the first queued", flags,
	      bad, pops);
	uint32_t count = 0;
	for (uint32_t i = 0; i < N; i++)
		count += queued[i];
	CHECK(h.n == count, "%u queued, the heap holds %u", count, h.n);
	lb_heap_free(&h);
	CHECK(h.n == 0 && h.cap == 0 && !h.id && !h.pos, "freed heap not empty");
}

/* The release heap sim.c had by hand: entries (at, link), ordered by at
 * alone. */
struct entry {
	double at;
	uint32_t link;
};

static void ref_push(struct entry *a, size_t *n, struct entry r)
{
	size_t i = (*n)++;
	while (i > 0 && r.at < a[(i - 1) / 2].at) {
		a[i] = a[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	a[i] = r;
}

static struct entry ref_pop(struct entry *a, size_t *n)
{
	struct entry top = a[0], r = a[--*n];
	size_t i = 0;
	for (size_t c = 1; c < *n; c = 2 * i + 1) {
		if (c + 1 < *n && a[c + 1].at < a[c].at)
			c++;
		if (!(a[c].at < r.at))
			break;
		a[i] = a[c];
		i = c;
	}
	a[i] = r;
	return top;
}

/* Keys from three values, so most comparisons tie: every pop names the
 * link the hand-written heap names, tracked or not. */
static void test_ties_as_before(int flags)
{
	static double key[N];
	static struct entry ref[N];
	static uint8_t queued[N];
	memset(queued, 0, sizeof(queued));
	size_t nref = 0;
	struct lb_heap h;
	CHECK(lb_heap_init(&h, N, flags, key) == 0, "init");
	uint32_t differ = 0, pops = 0;
	for (int step = 0; step < 50000; step++) {
		uint32_t link = rnd(N);
		if (!queued[link] && rnd(2)) {
			key[link] = rnd(3);
			lb_heap_push(&h, link), ref_push(ref, &nref, (struct entry){ key[link], link });
			queued[link] = 1;
		} else if (h.n) {
			uint32_t got = lb_heap_pop(&h), want = ref_pop(ref, &nref).link;
			differ += got != want, pops++;
			queued[got] = 0, queued[want] = 0;
		}
	}
	CHECK(pops > 10000 && differ == 0, "flags %d: %u of %u pops differ from the hand-written heap's",
	      flags, differ, pops);
	lb_heap_free(&h);
}

int main(void)
{
	test_ties_by_id();
	test_tracking(0);
	test_tracking(LB_HEAP_TIES_BY_ID);
	test_ties_as_before(0);
	test_ties_as_before(LB_HEAP_TRACK);
	return check_status("heap");
}
