/* Schedule storage: per-rank growable op lists, grouped by lane on finalize. */
#include "schedule.h"

#include <stdlib.h>
#include <string.h>

#include "lib/stop.h"

struct lb_schedule *lb_sched_new(const char *algo, uint32_t ranks,
				 uint32_t root, uint32_t lanes,
				 uint32_t nblocks, uint64_t bytes)
{
	if (ranks == 0 || lanes == 0 || lanes > 255 || nblocks == 0 ||
	    root >= ranks)
		return NULL;
	struct lb_schedule *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->rank = calloc(ranks, sizeof(*s->rank));
	if (!s->rank) {
		free(s);
		return NULL;
	}
	s->algo = algo;
	s->ranks = ranks;
	s->root = root;
	s->lanes = lanes;
	s->nblocks = nblocks;
	s->bytes = bytes;
	return s;
}

void lb_sched_free(struct lb_schedule *s)
{
	if (!s)
		return;
	for (uint32_t r = 0; r < s->ranks; r++) {
		free(s->rank[r].ops);
		free(s->rank[r].lane_start);
	}
	free(s->rank);
	lb_sched_free_collective(s);
	free(s);
}

void lb_sched_free_collective(struct lb_schedule *s)
{
	free(s->owner);
	free(s->block_offset);
	for (uint32_t g = 0; g < s->groups; g++)
		free(s->group[g].members);
	free(s->group);
	s->owner = NULL;
	s->block_offset = NULL;
	s->group = NULL;
	s->groups = 0;
}

uint32_t *lb_sched_set_owners(struct lb_schedule *s)
{
	if (!s->owner)
		s->owner = malloc((size_t)s->nblocks * sizeof(*s->owner));
	for (uint32_t b = 0; s->owner && b < s->nblocks; b++)
		s->owner[b] = s->root;
	return s->owner;
}

uint64_t *lb_sched_set_offsets(struct lb_schedule *s)
{
	uint64_t *off = malloc(((size_t)s->nblocks + 1) * sizeof(*off));
	if (!off)
		return NULL;
	free(s->block_offset);
	s->block_offset = NULL; /* lb_block_offset: the even split */
	for (uint32_t b = 0; b <= s->nblocks; b++)
		off[b] = lb_block_offset(s, b);
	return s->block_offset = off;
}

static int by_rank(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

int64_t lb_sched_add_group(struct lb_schedule *s, const uint32_t *members,
			   uint32_t n, double cost_seconds)
{
	if (n == 0)
		return -1;
	struct lb_barrier_group *g = realloc(s->group, ((size_t)s->groups + 1) * sizeof(*g));
	if (!g)
		return -1;
	s->group = g;
	uint32_t *m = malloc((size_t)n * sizeof(*m));
	if (!m)
		return -1;
	memcpy(m, members, (size_t)n * sizeof(*m));
	qsort(m, n, sizeof(*m), by_rank);
	g[s->groups] = (struct lb_barrier_group){ m, n, cost_seconds };
	return s->groups++;
}

int lb_sched_barrier(struct lb_schedule *s, uint32_t g)
{
	const struct lb_barrier_group *grp = &s->group[g];
	if (s->sends_only) /* the simulator waits at a barrier for the RECVs before it */
		return -1;
	for (uint32_t i = 0; i < grp->count; i++)
		for (uint32_t l = 0; l < s->lanes; l++)
			if (lb_sched_add(s, grp->members[i], LB_BARRIER, g, l, 0, 0) != 0)
				return -1;
	return 0;
}

int lb_sched_poll_stop(struct lb_schedule *s)
{
	s->adds_unpolled = 0;
	return lb_stop_requested();
}

int lb_sched_grow(struct lb_rank_ops *ro)
{
	uint32_t cap = ro->cap ? ro->cap * 2 : 16;
	struct lb_op *ops = realloc(ro->ops, (size_t)cap * sizeof(*ops));
	if (!ops)
		return -1;
	ro->ops = ops;
	ro->cap = cap;
	return 0;
}

/* Stable counting sort of one rank's ops by lane. */
static int group_by_lane(struct lb_rank_ops *ro, uint32_t lanes)
{
	uint32_t *start = calloc((size_t)lanes + 1, sizeof(*start));
	struct lb_op *sorted = malloc(((size_t)ro->count + 1) * sizeof(*sorted));
	if (!start || !sorted) {
		free(start);
		free(sorted);
		return -1;
	}
	for (uint32_t i = 0; i < ro->count; i++)
		if (ro->ops[i].lane < lanes)
			start[ro->ops[i].lane + 1]++;
	for (uint32_t l = 0; l < lanes; l++)
		start[l + 1] += start[l];
	uint32_t *next = malloc((size_t)lanes * sizeof(*next));
	if (!next) {
		free(start);
		free(sorted);
		return -1;
	}
	memcpy(next, start, (size_t)lanes * sizeof(*next));
	/* Ops on a lane out of range are kept last, for the validator to name. */
	uint32_t tail = start[lanes];
	for (uint32_t i = 0; i < ro->count; i++) {
		uint32_t l = ro->ops[i].lane;
		sorted[l < lanes ? next[l]++ : tail++] = ro->ops[i];
	}
	free(next);
	free(ro->ops);
	ro->ops = sorted;
	ro->cap = ro->count + 1;
	free(ro->lane_start);
	ro->lane_start = start;
	return 0;
}

/* Program order as a chain of lanes, before grouping loses it. */
static void record_program_order(struct lb_rank_ops *ro)
{
	ro->first_lane = ro->count ? ro->ops[0].lane : LB_LANE_END;
	for (uint32_t i = 0; i < ro->count; i++)
		ro->ops[i].next_lane = i + 1 < ro->count ? ro->ops[i + 1].lane : LB_LANE_END;
}

int lb_sched_finalize(struct lb_schedule *s)
{
	for (uint32_t r = 0; r < s->ranks; r++) {
		if (lb_stop_requested())
			return -1; /* see LB_SCHED_POLL_EVERY */
		record_program_order(&s->rank[r]);
		if (group_by_lane(&s->rank[r], s->lanes) != 0)
			return -1;
	}
	s->finalized = 1;
	return 0;
}

size_t lb_sched_op_count(const struct lb_schedule *s)
{
	size_t n = 0;
	for (uint32_t r = 0; r < s->ranks; r++)
		n += s->rank[r].count;
	return n;
}

uint64_t lb_sched_min_bytes(uint32_t ranks, uint32_t lanes, uint64_t ops)
{
	uint64_t per_rank = sizeof(struct lb_rank_ops) + ((uint64_t)lanes + 1) * sizeof(uint32_t);
	return lb_add_sat(lb_mul_sat(ops, sizeof(struct lb_op)), ranks * per_rank);
}

int lb_sched_lane_peers(const struct lb_schedule *s, uint32_t r, uint32_t lane,
			uint32_t *peers)
{
	uint8_t *seen = calloc(s->ranks, 1);
	uint32_t n, count = 0;
	if (!seen)
		return -1;
	const struct lb_op *ops = lb_lane_ops(s, r, lane, &n);
	for (uint32_t i = 0; i < n; i++) {
		if (ops[i].kind != LB_BARRIER) {
			seen[ops[i].peer] = 1;
			continue;
		}
		/* a barrier's messages: between its leader and each member */
		const struct lb_barrier_group *g = &s->group[ops[i].peer];
		for (uint32_t m = 1; m < g->count; m++)
			if (g->members[0] == r)
				seen[g->members[m]] = 1;
		if (g->members[0] != r)
			seen[g->members[0]] = 1;
	}
	for (uint32_t p = 0; p < s->ranks; p++)
		if (seen[p])
			peers[count++] = p;
	free(seen);
	return (int)count;
}
