/* The validator accepts every algorithm for p = 1..64, every root,
 * k = 1, 2, 3 lanes and 1..16 slices (argv[1] names the algorithm, so
 * meson runs them in parallel), and klane also for p = 1..1,024 and
 * k = 1..4 (7 slices, one root per p).  argv[2] "full" walks that whole
 * matrix (the slow suite); "sample" keeps its edges -- small p, powers of
 * two and their neighbours, roots at both ends and the middle, 1, 2, 3, 7
 * and 16 slices -- for the quick suite.  The site-aware algorithms
 * (multilane, binary, binomial) also over 2..4 sites, equal and skewed. */
#include <stdlib.h>
#include <string.h>

#include "algos/algos.h"
#include "check.h"

static void check_one(const struct lb_algo *a, uint32_t p, uint32_t root,
		      uint32_t k, uint32_t slices, uint32_t sites, const uint32_t *site_first)
{
	char err[256];
	/* Odd slice and message sizes: blocks of unequal bytes. */
	struct lb_algo_params prm = {
		.ranks = p, .root = root, .lanes = k,
		.bytes = (uint64_t)slices * 1000 - 7, .slice_bytes = 1000,
		.sites = sites, .site_first = site_first,
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

static int in_sample_p(uint32_t p)
{
	return p <= 9 || p == 15 || p == 16 || p == 17 || p == 31 || p == 32 ||
	       p == 33 || p == 63 || p == 64;
}

static int in_sample_root(uint32_t p, uint32_t root)
{
	return root <= 1 || root == p / 2 || root == p - 1;
}

static int in_sample_slices(uint32_t sl)
{
	return sl <= 3 || sl == 7 || sl == 16;
}

static long single_site(const struct lb_algo *a, int full)
{
	long n = 0;
	for (uint32_t p = 1; p <= 64; p++)
		for (uint32_t root = 0; root < p; root++)
			for (uint32_t k = 1; k <= 3; k++)
				for (uint32_t sl = 1; sl <= 16; sl++) {
					if (!full && !(in_sample_p(p) && in_sample_root(p, root) &&
						       in_sample_slices(sl)))
						continue;
					check_one(a, p, root, k, sl, 1, NULL);
					n++;
				}
	return n;
}

/* Sites of unequal sizes: sites - 1 sites of one rank, then the rest. */
static void skewed_map(uint32_t p, uint32_t sites, uint32_t *first)
{
	for (uint32_t i = 0; i < sites; i++)
		first[i] = i;
	first[sites] = p;
}

/* The site-aware algorithms (multilane, section 3.2; binary and binomial,
 * section 6): 2..4 sites, even and skewed, roots every third rank. */
static long multi_site(const struct lb_algo *a, int full)
{
	long n = 0;
	uint32_t skewed[5];
	for (uint32_t p = 2; p <= 40; p++)
		for (uint32_t sites = 2; sites <= 4 && sites <= p; sites++)
			for (uint32_t root = 0; root < p; root += 3)
				for (uint32_t k = 1; k <= 3; k++) {
					if (!full && !(in_sample_p(p) && in_sample_root(p, root)))
						continue;
					skewed_map(p, sites, skewed);
					check_one(a, p, root, k, 5, sites, NULL);
					check_one(a, p, root, k, 5, sites, skewed);
					n += 2;
				}
	return n;
}

/* klane at its promised extent: p = 1..1,024, k = 1..4. */
static long wide(const struct lb_algo *a, int full)
{
	long n = 0;
	for (uint32_t p = 1; p <= 1024; p++)
		for (uint32_t k = 1; k <= 4; k++) {
			if (!full && !(in_sample_p(p) || (p & (p - 1)) == 0 ||
				       ((p - 1) & (p - 2)) == 0 || ((p + 1) & p) == 0))
				continue;
			check_one(a, p, p - 1 - p / 4, k, 7, 1, NULL);
			n++;
		}
	return n;
}

int main(int argc, char **argv)
{
	const struct lb_algo *a = argc > 1 ? lb_algo_find(argv[1]) : NULL;
	const char *extent = argc > 2 ? argv[2] : "full";
	int full = strcmp(extent, "full") == 0;
	if (!a || (!full && strcmp(extent, "sample") != 0)) {
		fprintf(stderr, "usage: %s ALGORITHM [full|sample]\n", argv[0]);
		return 2;
	}
	long n = single_site(a, full);
	if (a->build == lb_build_multilane || a->build == lb_build_binary ||
	    a->build == lb_build_binomial)
		n += multi_site(a, full);
	if (a->build == lb_build_klane)
		n += wide(a, full);
	printf("%s: %ld schedules validated (%s matrix)\n", a->name, n, extent);
	return check_status("validator-matrix");
}
