/* Seed 000's Table 3 reproduced (what `lanebench repro seed000-table3` runs):
 * for each node count, `platforms` TIERS-like platforms (net/platgen.h, seeds
 * seed, seed + 1, ...), the LP bound TP* of each (model/lp.h, one-port, phase 2
 * as asked), and every Table 3 heuristic's tree throughput TP = 1 / period (its
 * registry row's period) as a percentage of TP*.  One result per (node count,
 * heuristic): the mean and the deviation over the platforms beside the paper's
 * cell, the tolerance docs/papers.md#seed000-experiments gives for that column,
 * and whether the mean lies within it.
 *
 * The broadcast source is node 0 (the paper does not say which; with
 * shuffle_ids, as `repro` runs by default, that is a node anywhere in the
 * hierarchy, else a WAN node), the slice 1 MB (ratios do not depend on it: latency and
 * occupation are 0 on these platforms).  A ratio above 1 + 1e-6 is a bug
 * in the LP or in a tree's evaluation: the run fails naming the platform. */
#ifndef LB_REPRO000_H
#define LB_REPRO000_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "net/platgen.h"
#include "model/lp.h"
#include "engine/result.h"

struct lb_repro000_params {
	const uint32_t *sizes; /* node counts, each a tiers-like preset (30, 65) */
	size_t nsizes;
	uint32_t platforms;    /* per node count */
	uint64_t seed;         /* platform i of a node count: seed + i */
	enum lb_lp_phase2 phase2;
	int shuffle_ids;       /* node ids a random permutation (platgen.h) */
	const struct lb_prov *prov; /* the caller's; NULL: none */
	/* Non-zero (a signal's number) ends the run before the next
	 * platform; rows of finished node counts are kept. */
	const atomic_int *stop;
	/* Optional: called after each platform (progress). */
	void (*progress)(void *ctx, uint32_t nodes, uint32_t done, uint32_t of);
	void *progress_ctx;
};

/* The result columns; static storage. */
const struct lb_col *lb_repro000_columns(size_t *ncols);

/* The generator for a node count (a preset), seed set to p->seed: -1 when
 * the node count has none. */
int lb_repro000_generator(const struct lb_repro000_params *p, uint32_t nodes,
			  struct lb_platgen *g);

/* Runs it, rows to sink.  Returns 0 (also when stopped), or -1 with the
 * reason in err: a node count without a preset, a generator, LP or
 * heuristic failure (naming the platform's seed), a ratio above 1, or the
 * sink's failure. */
int lb_repro000_run(const struct lb_repro000_params *p, const struct lb_sink *sink,
		    char *err, size_t errlen);

#endif
