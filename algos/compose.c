/* Sub-schedule composition: build on a subset, map ranks and lanes. */
#include "compose.h"

#include <stdio.h>
#include <stdlib.h>

static int root_index(const struct lb_subschedule *sub, uint32_t *index)
{
	for (uint32_t i = 0; i < sub->n; i++)
		if (sub->ranks[i] == sub->root) {
			*index = i;
			return 0;
		}
	return -1;
}

int lb_subschedule_params(const struct lb_subschedule *sub, uint64_t bytes,
			  struct lb_algo_params *prm)
{
	uint32_t root;
	if (root_index(sub, &root))
		return -1;
	*prm = (struct lb_algo_params){
		.ranks = sub->n, .root = root, .lanes = sub->sub_lanes, .bytes = bytes,
		.slice_bytes = sub->slice_bytes, .stripe_off = sub->stripe_off,
		.allgather = sub->allgather,
	};
	return 0;
}

uint64_t lb_subschedule_blocks(const struct lb_subschedule *sub, uint64_t bytes)
{
	struct lb_algo_params prm;
	if (lb_subschedule_params(sub, bytes, &prm))
		return 0;
	return sub->algo->blocks ? sub->algo->blocks(&prm)
				 : lb_slice_count(bytes, sub->slice_bytes);
}

/* Ranks in range and distinct, lanes within s: NULL, or why not. */
static const char *check_subset(const struct lb_schedule *s, const struct lb_subschedule *sub,
				char *buf, size_t len)
{
	if (sub->n == 0 || sub->sub_lanes == 0) {
		snprintf(buf, len, "%u ranks on %u lanes: needs at least one of each", sub->n,
			 sub->sub_lanes);
		return buf;
	}
	/* in 64 bits: first_lane + sub_lanes must not wrap back into range */
	if ((uint64_t)sub->first_lane + sub->sub_lanes > s->lanes) {
		snprintf(buf, len, "%u ranks on lanes %u..%llu of a %u-lane schedule", sub->n,
			 sub->first_lane,
			 (unsigned long long)sub->first_lane + sub->sub_lanes - 1, s->lanes);
		return buf;
	}
	char *seen = calloc(s->ranks, 1);
	if (!seen)
		return "out of memory";
	const char *why = NULL;
	for (uint32_t i = 0; i < sub->n && !why; i++) {
		uint32_t r = sub->ranks[i];
		if (r >= s->ranks || seen[r])
			snprintf(buf, len, "rank %u %s", r, r >= s->ranks ? "out of range" : "given twice"),
				why = buf;
		else
			seen[r] = 1;
	}
	free(seen);
	return why;
}

/* Copies sub's ops, lane by lane, into s in absolute ranks and lanes. */
static int append_mapped(struct lb_schedule *s, const struct lb_schedule *sub,
			 const struct lb_subschedule *map)
{
	for (uint32_t i = 0; i < sub->ranks; i++)
		for (uint32_t l = 0; l < sub->lanes; l++) {
			uint32_t count;
			const struct lb_op *op = lb_lane_ops(sub, i, l, &count);
			for (uint32_t k = 0; k < count; k++) {
				uint32_t r = map->ranks[i];
				if (lb_sched_add(s, r, (enum lb_op_kind)op[k].kind, map->ranks[op[k].peer],
						 map->first_lane + l, op[k].first_block, op[k].nblocks))
					return -1;
				s->rank[r].ops[s->rank[r].count - 1].flags = op[k].flags;
			}
		}
	return 0;
}

int lb_emit_subschedule(struct lb_schedule *s, const struct lb_subschedule *sub,
			char *err, size_t errlen)
{
	char buf[200];
	struct lb_algo_params prm;
	const char *why = check_subset(s, sub, buf, sizeof(buf));
	if (!why && sub->algo->needs)
		why = "a platform algorithm cannot run inside a subset (homogeneous ones only)";
	if (!why && lb_subschedule_params(sub, s->bytes, &prm))
		snprintf(buf, sizeof(buf), "root %u is not among the subset's ranks", sub->root), why = buf;
	if (!why && lb_subschedule_blocks(sub, s->bytes) != s->nblocks)
		snprintf(buf, sizeof(buf), "it cuts the message into %llu blocks on %u ranks, the schedule into %u",
			 (unsigned long long)lb_subschedule_blocks(sub, s->bytes), sub->n, s->nblocks),
			why = buf;
	if (why) {
		snprintf(err, errlen, "%s on a subset: %s", sub->algo->name, why);
		return -1;
	}
	struct lb_schedule *part = lb_algo_build(sub->algo, &prm, err, errlen);
	if (!part)
		return -1;
	int rc = append_mapped(s, part, sub);
	lb_sched_free(part);
	if (rc)
		snprintf(err, errlen, "%s on a subset: out of memory", sub->algo->name);
	return rc;
}
