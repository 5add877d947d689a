/* The validator accepts every algorithm for p = 1..64, every root,
 * k = 1, 2, 3 lanes and 1..16 slices (argv[1] names the algorithm, so
 * meson runs the five in parallel). */
#include <stdlib.h>

#include "algos/algos.h"
#include "check.h"

static void check_one(const struct lb_algo *a, uint32_t p, uint32_t root,
		      uint32_t k, uint32_t slices, uint32_t sites)
{
	char err[256];
	/* Odd slice and message sizes: blocks of unequal bytes. */
	struct lb_algo_params prm = {
		.ranks = p, .root = root, .lanes = k,
		.bytes = (uint64_t)slices * 1000 - 7, .slice_bytes = 1000,
		.sites = sites,
	};
	struct lb_schedule *s = lb_algo_build(a, &prm, err, sizeof(err));
	CHECK(s != NULL, "%s p=%u root=%u k=%u slices=%u: %s", a->name, p,
	      root, k, slices, err);
	if (!s)
		return;
	CHECK(s->nblocks >= slices || a->build == lb_build_vandegeijn,
	      "%s: %u blocks for %u slices", a->name, s->nblocks, slices);
	CHECK(lb_sched_validate(s, err, sizeof(err)) == 0,
	      "%s p=%u root=%u k=%u slices=%u sites=%u: %s", a->name, p, root,
	      k, slices, sites, err);
	lb_sched_free(s);
}

int main(int argc, char **argv)
{
	const struct lb_algo *a = argc > 1 ? lb_algo_find(argv[1]) : NULL;
	if (!a) {
		fprintf(stderr, "usage: %s ALGORITHM\n", argv[0]);
		return 2;
	}
	long n = 0;
	for (uint32_t p = 1; p <= 64; p++)
		for (uint32_t root = 0; root < p; root++)
			for (uint32_t k = 1; k <= 3; k++)
				for (uint32_t sl = 1; sl <= 16; sl++, n++)
					check_one(a, p, root, k, sl, 1);
	/* Multi-site multilane (section 3.2): 2..4 sites, any root. */
	if (a->build == lb_build_multilane)
		for (uint32_t p = 2; p <= 40; p++)
			for (uint32_t sites = 2; sites <= 4 && sites <= p; sites++)
				for (uint32_t root = 0; root < p; root += 3)
					for (uint32_t k = 1; k <= 3; k++, n++)
						check_one(a, p, root, k, 5, sites);
	printf("%s: %ld schedules validated\n", a->name, n);
	return check_status("validator-matrix");
}
