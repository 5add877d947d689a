/* Seed 002's clusters of clusters (docs/papers.md#seed002-experiments): the
 * parameters of the paper's simulations and platforms that carry them.
 *
 * A setting gives three intervals, [002 Tables 1-2]:
 *   g5k  L 1-15 us,   g 100-600 ms,   T 200-3000 ms  (Grid'5000, Fig. 2)
 *   x5   L 5-75 us,   g 500-3000 ms,  T 40-600 ms    (L, g x 5, T / 5; Fig. 3 top)
 *   x10  L 10-150 us, g 1000-6000 ms, T 20-300 ms    (x 10, / 10; Fig. 3 bottom)
 * drawn uniformly: L_ij and g_ij once per unordered pair of clusters (links are
 * bidirectional), T_k once per cluster (our readings,
 * docs/papers.md#seed002-experiments); g already is the whole message's gap.
 * Pairs come from one splitmix64 stream (L then g, pairs (i < j) in order), T
 * from another, so the same seed gives the same draws on every machine.
 *
 * As a platform (lb_clustergen_make): cluster k is site k, `site_ranks`
 * ranks k R .. k R + R - 1, its coordinator the first; the message is
 * `bytes` bytes, so a gap g is the bandwidth bytes / g:
 *   - "coordinator k kR", "site k local-bcast T_k" (the model's T_k);
 *   - a link between every two coordinators, both directions, every lane:
 *     lat L_ij, bw bytes / g_ij -- what the simulator charges -- and the
 *     same numbers as "wan a b lat L bw RATE" (the sites' WAN);
 *   - inside site k every pair linked, lat 0, bw = bytes ceil(log2 R) /
 *     T_k: a binomial broadcast of the whole message (the paper's local
 *     algorithm, seed 002 section 3.1) takes T_k there;
 *   - no other link (ranks of different sites meet only through their
 *     coordinators).
 * Source: cluster 0. */
#ifndef LB_CLUSTERGEN_H
#define LB_CLUSTERGEN_H

#include <stddef.h>
#include <stdint.h>

#include "net/platform.h"

enum lb_clustergen_setting { LB_CLUSTERGEN_G5K, LB_CLUSTERGEN_X5, LB_CLUSTERGEN_X10 };

struct lb_clustergen {
	enum lb_clustergen_setting setting;
	uint64_t seed;
	uint32_t clusters;   /* >= 1 */
	uint32_t site_ranks; /* ranks per site, >= 1 (platforms only) */
	uint32_t lanes;      /* platform lanes (default 2: V1 overlap in sim) */
	uint64_t bytes;      /* the message g is the gap of (platforms only) */
};

/* One draw, seconds: g and lat [n * n] (row = sender, symmetric, diagonal
 * 0), T [n]. */
struct lb_cluster_draw {
	uint32_t n;
	double *g, *lat, *T;
};

/* Defaults: 10 clusters, 4 ranks per site, 2 lanes, 1 MiB, seed 1. */
void lb_clustergen_defaults(struct lb_clustergen *g, enum lb_clustergen_setting setting);

/* "g5k", "x5", "x10"; -1 for another name. */
int lb_clustergen_setting_find(const char *name);
const char *lb_clustergen_setting_name(enum lb_clustergen_setting s);

/* The draw (malloc'd; free with lb_cluster_draw_free).  -1: no memory. */
int lb_clustergen_draw(const struct lb_clustergen *g, struct lb_cluster_draw *d);
void lb_cluster_draw_free(struct lb_cluster_draw *d);

/* A sealed platform of the draw, or NULL with the reason in err (a
 * parameter out of range, named; no memory). */
struct lb_platform *lb_clustergen_make(const struct lb_clustergen *g, char *err,
				       size_t errlen);

/* "generator: clusters setting=g5k seed=7 clusters=10 ..." naming every
 * parameter and the intervals.  Returns what snprintf returns. */
int lb_clustergen_describe(const struct lb_clustergen *g, char *buf, size_t len);

#endif
