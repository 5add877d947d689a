/* The validator (algos/validate.c) accepts the schedule of every algorithm
 * of the registry (algos/registry.c) over ranks, roots, lanes and slices.
 * Nothing here lists algorithms: the test walks lb_algos[], so a new row is
 * in the matrix the day it is added.
 *
 *   test_validate_matrix sample|full [SHARD SHARDS]
 *
 * validates the algorithms whose registry index i has i mod SHARDS = SHARD
 * (default: all; meson runs the shards side by side).  "full" walks the
 * whole matrix (the slow suite), "sample" its edges -- small p, powers of
 * two and their neighbours, roots at both ends and the middle, 1, 2, 3, 7
 * and 16 slices -- for the quick suite.
 *
 * Homogeneous algorithms: p = 1..64, every root, k = 1, 2, 3 lanes, 1..16
 * slices; those that take --sites also over 2..4 sites, equal and skewed;
 * klane also at its promised extent, p = 1..1,024 and k = 1..4.
 * Platform algorithms (needs & LB_ALGO_NEEDS_PLATFORM): on a platform made
 * here for each p = 1..24 (full; a sample of p quick), every link present
 * with bandwidths and node overheads that differ, up to three sites, k = 1..3
 * lanes; those that need the LP bound get model/lp's loads for their root;
 * the options they take (--agents, --balance, --super2) varied too.
 * Where the full walk would take minutes it keeps some edges: a collective
 * (p^2 x slices per schedule) the sample's roots and slices, an LP row
 * (a solve per p and root) the sample's p and roots.  A configuration a
 * row refuses by its own check is counted, not validated. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "algos/algos.h"
#include "net/platform.h"
#include "check.h"
#include "model/lp.h"

#define SLICE 1000 /* bytes; messages are slices * SLICE - 7: unequal blocks */

/* Configurations an algorithm refuses by its own rule (recursive
 * doubling's power-of-two ranks, a platform row's check): counted, not
 * validated.  The homogeneous broadcasts refuse none of the matrix. */
static long refused;

static void check_one(const struct lb_algo *a, const struct lb_algo_params *prm)
{
	char err[300];
	uint32_t slices = lb_slice_count(prm->bytes, prm->slice_bytes);
	if (!lb_algo_homogeneous_bcast(a) && lb_algo_check(a, prm, err, sizeof(err))) {
		refused++;
		return;
	}
	struct lb_schedule *s = lb_algo_build(a, prm, err, sizeof(err));
	CHECK(s != NULL, "%s p=%u root=%u k=%u slices=%u: %s", a->name, prm->ranks, prm->root,
	      prm->lanes, slices, err);
	if (!s)
		return;
	CHECK(a->needs || s->nblocks >= slices || a->build == lb_build_vandegeijn,
	      "%s: %u blocks for %u slices", a->name, s->nblocks, slices);
	CHECK(lb_sched_validate(s, err, sizeof(err)) == 0,
	      "%s p=%u root=%u k=%u slices=%u sites=%u agents=%u balance=%d super2=%d: %s",
	      a->name, prm->ranks, prm->root, prm->lanes, slices, prm->sites, prm->agents,
	      prm->balance, prm->super2, err);
	lb_sched_free(s);
}

static struct lb_algo_params params(uint32_t p, uint32_t root, uint32_t k, uint32_t slices)
{
	return (struct lb_algo_params){
		.ranks = p, .root = root, .lanes = k,
		.bytes = (uint64_t)slices * SLICE - 7, .slice_bytes = SLICE,
	};
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

/* ---- homogeneous algorithms ---- */

/* Whether the configuration is in the matrix.  A collective's schedule
 * grows as p^2 x slices and its root only renumbers blocks: its full
 * matrix takes every p and lane count but the sample's roots and slices. */
static int in_matrix(const struct lb_algo *a, int full, uint32_t p, uint32_t root, uint32_t sl)
{
	int edges = in_sample_root(p, root) && in_sample_slices(sl);
	return full ? !a->collective || edges : in_sample_p(p) && edges;
}

static long single_site(const struct lb_algo *a, int full)
{
	long n = 0;
	for (uint32_t p = 1; p <= 64; p++)
		for (uint32_t root = 0; root < p; root++)
			for (uint32_t k = 1; k <= 3; k++)
				for (uint32_t sl = 1; sl <= 16; sl++) {
					if (!in_matrix(a, full, p, root, sl))
						continue;
					struct lb_algo_params prm = params(p, root, k, sl);
					prm.sites = 1;
					check_one(a, &prm);
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

/* The site-aware forms (takes --sites: seed 003's multilane, section
 * 3.2; binary and binomial, section 6): 2..4 sites, even and skewed,
 * roots every third rank. */
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
					struct lb_algo_params prm = params(p, root, k, 5);
					prm.sites = sites;
					check_one(a, &prm);
					skewed_map(p, sites, skewed);
					prm.site_first = skewed;
					check_one(a, &prm);
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
			struct lb_algo_params prm = params(p, p - 1 - p / 4, k, 7);
			prm.sites = 1;
			check_one(a, &prm);
			n++;
		}
	return n;
}

static long homogeneous(const struct lb_algo *a, int full)
{
	long n = single_site(a, full);
	if (a->takes & LB_TAKES_SITE_FORM)
		n += multi_site(a, full);
	if (a->build == lb_build_klane)
		n += wide(a, full);
	return n;
}

/* ---- platform algorithms ---- */

#define PLATFORM_LANES 3
#define PLATFORM_MAX_P 24

static int in_platform_sample_p(uint32_t p)
{
	return p <= 5 || p == 8 || p == 9 || p == 16 || p == 17;
}

/* A platform's text, grown line by line (sized for p <= PLATFORM_MAX_P). */
struct text {
	char buf[64 * 1024];
	size_t len;
};

static void line(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line(struct text *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(t->buf + t->len, sizeof(t->buf) - t->len, fmt, ap);
	va_end(ap);
	CHECK(n >= 0 && (size_t)n < sizeof(t->buf) - t->len, "platform text too long");
	if (n >= 0 && (size_t)n < sizeof(t->buf) - t->len)
		t->len += (size_t)n;
}

/* p nodes on PLATFORM_LANES lanes, every ordered pair linked: a default
 * link and, for one pair in three, a slower one on one lane (so the lanes
 * differ); every node a send and receive overhead (seed 001's planner
 * needs them), one in four a rate cap; min(p, 3) contiguous sites. */
static struct lb_platform *platform_of(uint32_t p)
{
	static struct text t;
	char err[300];
	uint32_t sites = p < 3 ? p : 3;
	t.len = 0;
	line(&t, "nodes %u\nlanes %u\ndefault lat 5us bw 1gbit\n", p, PLATFORM_LANES);
	for (uint32_t u = 0; u < p; u++)
		line(&t, "node %u send %uus recv %uus%s\n", u, 1 + u % 3, 1 + u % 2,
		     u % 4 == 1 ? " rate 600mbit" : "");
	for (uint32_t u = 0; u < p; u++)
		for (uint32_t v = u + 1; v < p; v++)
			if ((u + 2 * v) % 3 == 0)
				line(&t, "link %u %u lane %u bw %umbit lat %uus\n", u, v,
				     (u + v) % PLATFORM_LANES, 200 + 100 * ((u + v) % 5), 1 + (u * v) % 20);
	for (uint32_t i = 0; i < sites; i++) {
		uint32_t first = i * p / sites, last = (i + 1) * p / sites - 1;
		if (first < last)
			line(&t, "site %u ranks %u-%u\n", i, first, last);
		else
			line(&t, "site %u ranks %u\n", i, first);
	}
	struct lb_platform *pf = lb_platform_parse(t.buf, "matrix", err, sizeof(err));
	CHECK(pf != NULL, "p=%u: %s", p, err);
	return pf;
}

/* model/lp's edge loads for root on lane 0, or for one node (no
 * destination, no LP) loads of nothing; NULL when the LP fails. */
static double *lp_loads(const struct lb_platform *pf, uint32_t root)
{
	struct lb_lp_result lp = { 0 };
	char err[300];
	if (pf->nodes == 1)
		return calloc(1, sizeof(double));
	int rc = lb_lp_bound(pf, root, 0, SLICE, LB_LP_PHASE2_TIME, &lp, err, sizeof(err));
	CHECK(rc == 0, "p=%u root=%u: lp: %s", pf->nodes, root, err);
	return rc == 0 ? lp.load : NULL;
}

/* The options a takes, each varied: --agents (the planner's, then half
 * the ranks), --balance, --super2.  Variant v's parameters into prm;
 * 0 when a takes none of them beyond v. */
static int option_variant(const struct lb_algo *a, unsigned v, struct lb_algo_params *prm)
{
	unsigned agents = !!(a->takes & LB_TAKES_AGENTS), balance = !!(a->takes & LB_TAKES_BALANCE),
		 super2 = !!(a->takes & LB_TAKES_SUPER2);
	if (v >= (1u << (agents + balance + super2)))
		return 0;
	prm->agents = agents && (v & 1) ? 1 + prm->ranks / 2 : 0;
	v >>= agents;
	prm->balance = balance && (v & 1) ? LB_BALANCE_SPEED : LB_BALANCE_EQUAL;
	v >>= balance;
	prm->super2 = super2 && (v & 1) ? LB_SUPER2_2PHASE : LB_SUPER2_1PHASE;
	return 1;
}

static long platform_root(const struct lb_algo *a, const struct lb_platform *pf, uint32_t root,
			  const double *load, int full)
{
	long n = 0;
	for (uint32_t k = 1; k <= PLATFORM_LANES; k++)
		for (uint32_t sl = 1; sl <= 16; sl++) {
			if (!in_sample_slices(sl) || (!full && sl != 1 && sl != 3 && sl != 16))
				continue;
			struct lb_algo_params prm = params(pf->nodes, root, k, sl);
			prm.platform = pf, prm.lp_load = load;
			for (unsigned v = 0; option_variant(a, v, &prm); v++, n++)
				check_one(a, &prm);
		}
	return n;
}

static long on_platforms(const struct lb_algo *a, int full)
{
	long n = 0;
	/* an LP per (p, root): those rows take the sample's p and roots (with
	 * every slice count when full) */
	int lp = (a->needs & LB_ALGO_NEEDS_LP) != 0;
	for (uint32_t p = 1; p <= PLATFORM_MAX_P; p++) {
		if ((!full || lp) && !in_platform_sample_p(p))
			continue;
		struct lb_platform *pf = platform_of(p);
		for (uint32_t root = 0; pf && root < p; root++) {
			if ((!full || lp) && !in_sample_root(p, root))
				continue;
			double *load = lp ? lp_loads(pf, root) : NULL;
			if (!lp || load)
				n += platform_root(a, pf, root, load, full);
			free(load);
		}
		lb_platform_free(pf);
	}
	return n;
}

int main(int argc, char **argv)
{
	const char *extent = argc > 1 ? argv[1] : "";
	int full = strcmp(extent, "full") == 0;
	long shard = argc > 3 ? strtol(argv[2], NULL, 10) : 0;
	long shards = argc > 3 ? strtol(argv[3], NULL, 10) : 1;
	if ((!full && strcmp(extent, "sample") != 0) || argc == 3 || argc > 4 || shards < 1 ||
	    shard < 0 || shard >= shards) {
		fprintf(stderr, "usage: %s sample|full [SHARD SHARDS]\n", argv[0]);
		return 2;
	}
	for (size_t i = (size_t)shard; i < lb_nalgos; i += (size_t)shards) {
		const struct lb_algo *a = &lb_algos[i];
		refused = 0;
		long n = a->needs & LB_ALGO_NEEDS_PLATFORM ? on_platforms(a, full) : homogeneous(a, full);
		n -= refused;
		CHECK(n > 0, "%s: %ld schedules validated, %ld refused", a->name, n, refused);
		printf("%s: %ld schedules validated, %ld refused (%s matrix)\n", a->name, n, refused,
		       extent);
	}
	return check_status("validate-matrix");
}
