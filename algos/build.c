/* Helpers shared by the builders: lane striping and pipelined trees. */
#include "build.h"

#include <stdlib.h>

int lb_striper_init(struct lb_striper *st, const struct lb_schedule *s,
		    int stripe_off)
{
	st->lanes = stripe_off ? 1 : s->lanes;
	st->next = calloc(s->ranks, sizeof(*st->next));
	return st->next ? 0 : -1;
}

uint32_t lb_striper_lane(struct lb_striper *st, uint32_t src)
{
	uint32_t lane = st->next[src];
	st->next[src] = lane + 1 == st->lanes ? 0 : lane + 1;
	return lane;
}

void lb_striper_free(struct lb_striper *st)
{
	free(st->next);
	st->next = NULL;
}

int lb_emit_blocks(struct lb_schedule *s, struct lb_striper *st,
		   uint32_t src, uint32_t dst, uint32_t first, uint32_t n)
{
	for (uint32_t b = first; b < first + n; b++)
		if (lb_sched_transfer(s, src, dst, lb_striper_lane(st, src), b, 1))
			return -1;
	return 0;
}

int lb_emit_tree(struct lb_schedule *s, const struct lb_edge *edges,
		 size_t nedges, int stripe_off)
{
	struct lb_striper st;
	if (lb_striper_init(&st, s, stripe_off))
		return -1;
	int rc = 0;
	for (uint32_t b = 0; b < s->nblocks && rc == 0; b++)
		for (size_t e = 0; e < nedges && rc == 0; e++)
			rc = lb_emit_blocks(s, &st, lb_abs_rank(s, edges[e].src),
					    lb_abs_rank(s, edges[e].dst), b, 1);
	lb_striper_free(&st);
	return rc;
}

int lb_emit_tree_abs(struct lb_schedule *s, const struct lb_edge *edges,
		     size_t nedges, uint32_t lane)
{
	for (uint32_t b = 0; b < s->nblocks; b++)
		for (size_t e = 0; e < nedges; e++)
			if (lb_sched_transfer(s, edges[e].src, edges[e].dst, lane, b, 1))
				return -1;
	return 0;
}

int lb_sched_transfer_flags(struct lb_schedule *s, uint32_t src, uint32_t dst,
			    uint32_t lane, uint32_t block, uint8_t send_flags,
			    uint8_t recv_flags)
{
	if (lb_sched_transfer(s, src, dst, lane, block, 1))
		return -1;
	s->rank[src].ops[s->rank[src].count - 1].flags = send_flags;
	if (!s->sends_only) /* else the RECV was not stored */
		s->rank[dst].ops[s->rank[dst].count - 1].flags = recv_flags;
	return 0;
}

struct lb_schedule *lb_sched_for(const struct lb_algo_params *prm,
				 const char *name, uint32_t nblocks)
{
	struct lb_schedule *s = lb_sched_new(name, prm->ranks, prm->root, prm->lanes, nblocks,
					     prm->bytes);
	if (s)
		s->sends_only = prm->sends_only;
	return s;
}

struct lb_schedule *lb_sched_abandon(struct lb_schedule *s)
{
	lb_sched_free(s);
	return NULL;
}
