/* The event simulator's arrival times (sim_private.h, struct cells): a
 * time per segment of a rank's blocks -- the runs between the starts and
 * ends of the ranges its ops and the SENDs to it name, whose blocks always
 * arrive together -- found through a map word per 64 blocks, or per
 * (rank, block) where segments would not halve the cells.  Here they are
 * found before the run, cleared at its start and read for the result at
 * its end. */
#include "sim_private.h"

#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/memory.h"

/* Block b starts a segment at rank r (b == nblocks: the end, no mark). */
static void mark_start(struct cells *c, uint32_t r, uint32_t b, uint32_t nblocks)
{
	if (b < nblocks)
		c->map[(size_t)r * c->words + b / 64].start |= 1ull << (b % 64);
}

/* Each range of rank r's ops is its own segments at r, a SEND's at its
 * peer too (the receiver's RECV names the same range in a valid schedule;
 * the SEND is what writes there), an owned block one at its owner. */
static void mark_segments(struct cells *c, const struct lb_schedule *s, uint32_t r)
{
	const struct lb_rank_ops *ro = &s->rank[r];
	mark_start(c, r, 0, s->nblocks);
	for (uint32_t i = 0; i < ro->count; i++) {
		const struct lb_op *op = &ro->ops[i];
		if (op->kind == LB_BARRIER)
			continue;
		mark_start(c, r, op->first_block, s->nblocks);
		mark_start(c, r, op->first_block + op->nblocks, s->nblocks);
		if (op->kind == LB_SEND && op->peer < s->ranks) {
			mark_start(c, op->peer, op->first_block, s->nblocks);
			mark_start(c, op->peer, op->first_block + op->nblocks, s->nblocks);
		}
	}
}

/* Numbers the cells: each map word's first, and how many in all. */
static void number_cells(struct cells *c, uint32_t ranks)
{
	size_t total = 0;
	for (size_t w = 0; w < (size_t)ranks * c->words; w++) {
		c->map[w].cell = total;
		total += (size_t)__builtin_popcountll(c->map[w].start);
	}
	c->count = total;
}

/* x->cells for s (struct cells): start stays NULL where segments would not
 * halve the cells; the lookups then cost more than they save.  -1: out of
 * memory or stopped. */
int sim_find_segments(struct sim *x, const struct lb_schedule *s)
{
	struct cells *c = &x->cells;
	c->words = ((size_t)s->nblocks + 63) / 64;
	size_t words = (size_t)s->ranks * c->words, segments = 0;
	c->map = lb_alloc_large(words * sizeof(*c->map));
	if (!c->map)
		return -1;
	memset(c->map, 0, words * sizeof(*c->map));
	for (uint32_t r = 0; r < s->ranks; r++) {
		if (lb_stop_requested())
			return -1;
		mark_segments(c, s, r);
	}
	for (uint32_t b = 0; s->owner && b < s->nblocks; b++) {
		mark_start(c, s->owner[b], b, s->nblocks);
		mark_start(c, s->owner[b], b + 1, s->nblocks);
	}
	for (size_t w = 0; w < words; w++)
		segments += (size_t)__builtin_popcountll(c->map[w].start);
	if (segments * 2 > (size_t)s->ranks * s->nblocks) {
		free(c->map);
		c->map = NULL;
		return 0;
	}
	number_cells(c, s->ranks);
	return 0;
}

/* Nothing has arrived yet except at the owners: the root, which holds
 * every block, or each block's owner.  Gigabytes at 65,536 ranks (seconds
 * of page faults): -1 once a stop was asked. */
int sim_clear_arrivals(struct sim *x)
{
	const struct lb_schedule *s = x->s;
	for (uint32_t r = 0; r < s->ranks; r++) {
		if (lb_stop_requested())
			return -1;
		size_t from = cell(x, r, 0), to = r + 1 < s->ranks ? cell(x, r + 1, 0) : cell_count(x);
		double t = r == s->root && !s->owner ? 0 : INFINITY;
		for (size_t c = from; c < to; c++)
			x->arrival[c] = t;
	}
	for (uint32_t b = 0; s->owner && b < s->nblocks; b++)
		x->arrival[cell(x, s->owner[b], b)] = 0;
	return 0;
}

/* lb_sim_collect on cells (struct cells): a segment's blocks share its
 * time, so a rank's completion is its cells' latest; the period needs the
 * slowest rank's time of every block. */
/* Rank r's cells. */
static size_t rank_cells(const void *ctx, uint32_t r, size_t *from)
{
	const struct sim *x = ctx;
	*from = cell(x, r, 0);
	return (r + 1 < x->s->ranks ? cell(x, r + 1, 0) : cell_count(x)) - *from;
}

int sim_collect_cells(struct sim *x, char *err, size_t len)
{
	const struct lb_schedule *s = x->s;
	uint32_t slowest;
	int rc = lb_sim_makespan(s, x->arrival, rank_cells, x, x->released, x->res, &slowest, err,
				 len);
	double *row = rc == 0 ? malloc((size_t)s->nblocks * sizeof(*row)) : NULL;
	if (rc == 0 && !row)
		return lb_errf(err, len, "sim: out of memory for the period");
	for (uint32_t b = 0; row && b < s->nblocks; b++)
		row[b] = x->arrival[cell(x, slowest, b)];
	if (row)
		x->res->period = lb_sim_steady_period(row, s->nblocks);
	free(row);
	return rc;
}
