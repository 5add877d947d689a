/* Barrier ops expanded into zero-byte messages; see exec_barrier.h. */
#include "exec_barrier.h"

#include <stdlib.h>

/* Ops one BARRIER of group g expands into at rank r. */
static uint32_t expanded_size(const struct lb_barrier_group *g, uint32_t r)
{
	if (g->count < 2)
		return 0;
	return g->members[0] == r ? 2 * (g->count - 1) + 1 : 2;
}

static struct lb_op xop(uint8_t kind, uint32_t peer, uint8_t lane)
{
	return (struct lb_op){ .peer = peer, .kind = kind, .lane = lane };
}

static uint32_t expand_one(const struct lb_barrier_group *g, uint32_t r, uint8_t lane,
			   struct lb_op *out)
{
	uint32_t k = 0, leader = g->members[0];
	if (g->count < 2)
		return 0;
	if (r != leader) {
		out[k++] = xop(LB_XOP_TOKEN_SEND, leader, lane);
		out[k++] = xop(LB_XOP_RELEASE_RECV, leader, lane);
		return k;
	}
	for (uint32_t i = 1; i < g->count; i++)
		out[k++] = xop(LB_XOP_TOKEN_RECV, g->members[i], lane);
	out[k++] = xop(LB_XOP_LOCAL, r, lane);
	for (uint32_t i = 1; i < g->count; i++)
		out[k++] = xop(LB_XOP_RELEASE_SEND, g->members[i], lane);
	return k;
}

int lb_exec_expand(const struct lb_schedule *s, uint32_t r, uint32_t lane,
		   struct lb_op **out, uint32_t *n)
{
	uint32_t count, total = 0;
	const struct lb_op *ops = lb_lane_ops(s, r, lane, &count);
	*out = NULL;
	*n = count;
	if (!s->groups)
		return 0;
	for (uint32_t i = 0; i < count; i++)
		total += ops[i].kind == LB_BARRIER ? expanded_size(&s->group[ops[i].peer], r) : 1;
	*out = malloc(((size_t)total + 1) * sizeof(**out));
	if (!*out)
		return -1;
	uint32_t k = 0;
	for (uint32_t i = 0; i < count; i++) {
		if (ops[i].kind == LB_BARRIER)
			k += expand_one(&s->group[ops[i].peer], r, ops[i].lane, *out + k);
		else
			(*out)[k++] = ops[i];
	}
	*n = k;
	return 0;
}
