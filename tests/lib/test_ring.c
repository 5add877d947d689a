/* The transports' FIFO of posted transfers: order kept across wrap-around
 * and growth, records of any size, NULL past the end. */
#include "check.h"
#include "lib/ring.h"

struct rec {
	uint64_t off;
	uint32_t id;
};

int main(void)
{
	struct lb_ring r = { 0 }; /* zeroed is empty */
	CHECK(lb_ring_at(&r, 0, sizeof(struct rec)) == NULL, "empty ring has a head");
	uint32_t next = 0, first = 0;
	/* Interleave pushes and pops so the head wraps before each growth. */
	for (int round = 0; round < 5; round++) {
		for (int i = 0; i < 100; i++) {
			struct rec x = { .off = (uint64_t)next * 4096, .id = next };
			CHECK(lb_ring_push(&r, &x, sizeof(x)) == 0, "push %u", next);
			next++;
		}
		for (int i = 0; i < 60; i++, first++) {
			struct rec *h = lb_ring_at(&r, 0, sizeof(*h));
			CHECK(h && h->id == first && h->off == (uint64_t)first * 4096,
			      "round %d: head %u, want %u", round, h ? h->id : 0, first);
			lb_ring_pop(&r);
		}
	}
	CHECK(r.count == next - first, "count %u, want %u", r.count, next - first);
	for (uint32_t i = 0; i < r.count; i++) {
		struct rec *x = lb_ring_at(&r, i, sizeof(*x));
		CHECK(x && x->id == first + i, "record %u: id %u", i, x ? x->id : 0);
	}
	CHECK(lb_ring_at(&r, r.count, sizeof(struct rec)) == NULL, "record past the end");
	lb_ring_free(&r);
	CHECK(r.count == 0 && lb_ring_at(&r, 0, sizeof(struct rec)) == NULL, "freed ring not empty");

	struct lb_ring codes = { 0 }; /* 4-byte records, as rdma's notification codes */
	for (uint32_t c = 0; c < 200; c++)
		CHECK(lb_ring_push(&codes, &c, sizeof(c)) == 0, "push code %u", c);
	for (uint32_t c = 0; c < 200; c++) {
		const uint32_t *h = lb_ring_at(&codes, 0, sizeof(*h));
		CHECK(h && *h == c, "code %u", c);
		lb_ring_pop(&codes);
	}
	lb_ring_free(&codes);
	return check_status("ring");
}
