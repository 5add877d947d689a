/* The pairings of lanebench check (engine/check.c): every round pairs
 * ranks both ways, every rank meets two different partners (one when
 * there are two ranks), and no pair meets twice -- a pair's channel is
 * used in one round only, so a dead link's half-done transfers cannot
 * spoil a later round of the same two ranks.  The third partner, met by a
 * suspect port, is a new one. */
#include "../check.h"
#include "engine/check.h"

/* The third partner: someone new, both ways, and every rank but the
 * last of an odd count has one from 4 ranks on. */
static void check_third(uint32_t size, uint8_t met[64][64])
{
	for (uint32_t k = 0; k < size; k++) {
		int t = lb_check_third(k, size);
		int want = size >= 4 && !(size % 2 && k == size - 1);
		CHECK((t >= 0) == want, "size %u: rank %u's third partner %d", size, k, t);
		if (t < 0)
			continue;
		CHECK((uint32_t)t < size && (uint32_t)t != k && !met[k][t],
		      "size %u: rank %u's third partner %d is itself or met already", size, k, t);
		CHECK(lb_check_third((uint32_t)t, size) == (int)k, "size %u: %u -> %d but %d -> %d",
		      size, k, t, t, lb_check_third((uint32_t)t, size));
	}
}

static void check_size(uint32_t size)
{
	uint32_t rounds = lb_check_rounds(size);
	static uint8_t met[64][64];
	memset(met, 0, sizeof(met));
	for (uint32_t r = 0; r < rounds; r++)
		for (uint32_t k = 0; k < size; k++) {
			int q = lb_check_partner(k, size, r);
			if (q < 0)
				continue;
			CHECK((uint32_t)q < size && (uint32_t)q != k, "size %u round %u: rank %u -> %d", size, r, k, q);
			CHECK(lb_check_partner((uint32_t)q, size, r) == (int)k,
			      "size %u round %u: %u -> %d but %d -> %d", size, r, k, q, q,
			      lb_check_partner((uint32_t)q, size, r));
			CHECK(!met[k][q], "size %u: ranks %u and %d meet twice", size, k, q);
			met[k][q] = 1;
		}
	for (uint32_t k = 0; k < size; k++) {
		uint32_t n = 0;
		for (uint32_t q = 0; q < size; q++)
			n += met[k][q];
		CHECK(n == (size == 2 ? 1u : 2u), "size %u: rank %u has %u partners", size, k, n);
	}
	CHECK(lb_check_partner(0, size, rounds) == -1, "size %u: a round past the last", size);
	check_third(size, met);
}

int main(void)
{
	CHECK(lb_check_rounds(1) == 0, "one rank: no round");
	CHECK(lb_check_partner(0, 1, 0) == -1, "one rank: no partner");
	for (uint32_t size = 2; size <= 33; size++)
		check_size(size);
	return check_status("check-partner");
}
