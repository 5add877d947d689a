/* Sub-schedule composition: a homogeneous registry
 * algorithm run inside a subset of the ranks of a larger schedule, so that
 * a site's broadcast (seed 002's clusters, seed 003's and 004's sites) can
 * be any algorithm the registry has -- chain, binomial, multilane, ...
 *
 * The algorithm is built on n ranks with the root at the subset's position
 * of `root`, exactly as it would be on a job of n ranks; relative rank i is
 * then absolute rank ranks[i], and its lanes 0 .. sub_lanes - 1 become lanes
 * first_lane .. first_lane + sub_lanes - 1 of the big schedule.  Its ops are
 * appended to each rank's list after what is there, in the sub-schedule's
 * per-lane order, so the ordering rules of algos/schedule.h carry over: a
 * rank's earlier ops on the same lane come first.  The blocks are the big
 * schedule's: the algorithm must cut the message into s->nblocks blocks
 * (lb_subschedule_blocks says how many it would). */
#ifndef LB_COMPOSE_H
#define LB_COMPOSE_H

#include <stddef.h>
#include <stdint.h>

#include "algos.h"

struct lb_subschedule {
	const uint32_t *ranks; /* [n], absolute ranks of s, distinct */
	uint32_t n;
	uint32_t root;         /* an absolute rank among ranks[] */
	const struct lb_algo *algo; /* homogeneous (needs == 0) */
	uint32_t first_lane, sub_lanes; /* the lanes of s it runs on */
	uint64_t slice_bytes;  /* its slice (0: whole message) */
	int stripe_off;
	enum lb_allgather allgather;
};

/* The algorithm's parameters on the subset: n ranks, the root's position,
 * sub_lanes lanes, s's message size.  -1 when root is not among ranks. */
int lb_subschedule_params(const struct lb_subschedule *sub, uint64_t bytes,
			  struct lb_algo_params *prm);

/* Blocks the algorithm cuts `bytes` into on the subset (its registry block
 * count, or one per slice). */
uint64_t lb_subschedule_blocks(const struct lb_subschedule *sub, uint64_t bytes);

/* Builds the algorithm on the subset and appends its ops to s (not yet
 * finalized) in absolute ranks and lanes.  Returns 0, or -1 with the reason
 * in err: a rank or lane out of s's range, a rank twice, a root not in the
 * subset, a platform algorithm, a block count other than s->nblocks, the
 * algorithm's own refusal, or no memory. */
int lb_emit_subschedule(struct lb_schedule *s, const struct lb_subschedule *sub,
			char *err, size_t errlen);

#endif
