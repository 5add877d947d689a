/* splitmix64: the generators' random stream (net/platgen.c,
 * net/clustergen.c).  Small, good enough for placement and draws, and the
 * same on every platform (rand() is not), so a seed names one platform. */
#ifndef LB_RNG_H
#define LB_RNG_H

#include <stdint.h>

struct lb_rng {
	uint64_t s;
};

static inline uint64_t lb_rng_next(struct lb_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline double lb_rng_unit(struct lb_rng *r) /* [0, 1) */
{
	return (double)(lb_rng_next(r) >> 11) * 0x1p-53;
}

#endif
