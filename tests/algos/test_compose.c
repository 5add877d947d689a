/* Sub-schedule composition (algos/compose.h): every homogeneous algorithm
 * run inside two rank subsets of an 8-rank schedule, fed by one transfer
 * between their roots, passes the validator; ranks and lanes land where the
 * map says; and each refusal names its reason. */
#include <stdio.h>
#include <string.h>

#include "algos/compose.h"
#include "check.h"

static const uint32_t SITE_A[] = { 5, 2, 7 };          /* root 2 */
static const uint32_t SITE_B[] = { 6, 0, 1, 3, 4 };    /* root 0, fed by 2 */

static struct lb_subschedule sub_of(const uint32_t *ranks, uint32_t n, uint32_t root,
				    const struct lb_algo *a, uint32_t first_lane, uint32_t lanes)
{
	return (struct lb_subschedule){ .ranks = ranks, .n = n, .root = root, .algo = a,
					.first_lane = first_lane, .sub_lanes = lanes,
					.slice_bytes = 1000 };
}

/* Rank 2 feeds 0 on lane 2; site A on lanes 0-1, site B on lanes 0-1. */
static void compose_all(const struct lb_algo *a)
{
	struct lb_subschedule sa = sub_of(SITE_A, 3, 2, a, 0, 2), sb = sub_of(SITE_B, 5, 0, a, 0, 2);
	uint32_t blocks = (uint32_t)lb_subschedule_blocks(&sa, 4000);
	if (blocks != lb_subschedule_blocks(&sb, 4000))
		return; /* vandegeijn: per-size block counts; refused below */
	struct lb_schedule *s = lb_sched_new("test", 8, 2, 3, blocks, 4000);
	char err[300] = "";
	int rc = !s;
	for (uint32_t b = 0; b < blocks && !rc; b++)
		rc = lb_sched_transfer(s, 2, 0, 2, b, 1);
	rc = rc || lb_emit_subschedule(s, &sa, err, sizeof(err)) ||
	     lb_emit_subschedule(s, &sb, err, sizeof(err)) || lb_sched_finalize(s) ||
	     lb_sched_validate(s, err, sizeof(err));
	CHECK(rc == 0, "%s composed: %s", a->name, err);
	for (uint32_t r = 0; s && r < 8; r++) /* ranks of site A talk only among themselves */
		for (uint32_t k = 0; k < s->rank[r].count; k++) {
			const struct lb_op *op = &s->rank[r].ops[k];
			int in_a = r == 5 || r == 2 || r == 7, peer_a = op->peer == 5 || op->peer == 2 ||
									    op->peer == 7;
			CHECK(in_a == peer_a || op->lane == 2, "%s: rank %u lane %u peer %u crosses sites",
			      a->name, r, op->lane, op->peer);
		}
	lb_sched_free(s);
}

/* Positions in ranks[] are the algorithm's absolute ranks: on {5, 2, 7}
 * from 2 (position 1) the chain runs positions 1 -> 2 -> 0, 2 -> 7 -> 5. */
static void check_chain_map(void)
{
	struct lb_subschedule sa = sub_of(SITE_A, 3, 2, lb_algo_find("chain"), 1, 1);
	sa.slice_bytes = 0;
	struct lb_schedule *s = lb_sched_new("test", 8, 2, 2, 1, 100);
	char err[300] = "";
	CHECK(s && lb_emit_subschedule(s, &sa, err, sizeof(err)) == 0, "chain map: %s", err);
	CHECK(s && s->rank[2].count == 1 && s->rank[2].ops[0].peer == 7 &&
		      s->rank[2].ops[0].lane == 1 && s->rank[7].count == 2 &&
		      s->rank[7].ops[1].peer == 5 && s->rank[5].count == 1,
	      "chain on {5, 2, 7} from 2 must run 2 -> 7 -> 5 on lane 1");
	lb_sched_free(s);
}

static void refused(const struct lb_subschedule *sub, uint32_t nblocks, const char *want)
{
	struct lb_schedule *s = lb_sched_new("test", 8, 2, 2, nblocks, 4000);
	char err[300] = "";
	CHECK(s && lb_emit_subschedule(s, sub, err, sizeof(err)) == -1 && strstr(err, want),
	      "want '%s', got '%s'", want, err);
	lb_sched_free(s);
}

static void check_refusals(void)
{
	const struct lb_algo *chain = lb_algo_find("chain");
	static const uint32_t twice[] = { 1, 1 }, far[] = { 1, 9 };
	struct lb_subschedule sub = sub_of(SITE_A, 3, 0, chain, 0, 1);
	refused(&sub, 4, "root 0 is not among");
	sub = sub_of(twice, 2, 1, chain, 0, 1);
	refused(&sub, 4, "rank 1 given twice");
	sub = sub_of(far, 2, 1, chain, 0, 1);
	refused(&sub, 4, "rank 9 out of range");
	sub = sub_of(SITE_A, 3, 2, chain, 1, 2);
	refused(&sub, 4, "lanes 1..2 of a 2-lane");
	sub = sub_of(SITE_A, 3, 2, chain, 0, 0); /* the last lane was 0 - 1, wrapped */
	refused(&sub, 4, "3 ranks on 0 lanes: needs at least one");
	sub = sub_of(SITE_A, 3, 2, chain, UINT32_MAX, 2); /* the sum wrapped to 1 */
	refused(&sub, 4, "lanes 4294967295..4294967296 of a 2-lane");
	sub = sub_of(SITE_A, 3, 2, chain, 0, 1);
	refused(&sub, 3, "4 blocks on 3 ranks, the schedule into 3");
	sub = sub_of(SITE_A, 3, 2, lb_algo_find("topo-grow"), 0, 1);
	refused(&sub, 4, "homogeneous ones only");
}

/* The validator sees a subset whose root nobody fed. */
static void check_unfed(void)
{
	struct lb_subschedule sb = sub_of(SITE_B, 5, 0, lb_algo_find("binomial"), 0, 1);
	struct lb_schedule *s = lb_sched_new("test", 8, 2, 1, 4, 4000);
	char err[300] = "";
	int rc = !s || lb_emit_subschedule(s, &sb, err, sizeof(err)) || lb_sched_finalize(s);
	CHECK(rc == 0 && lb_sched_validate(s, err, sizeof(err)) == -1,
	      "an unfed subset must fail validation");
	lb_sched_free(s);
}

int main(void)
{
	for (size_t i = 0; i < lb_nalgos; i++)
		if (lb_algo_homogeneous_bcast(&lb_algos[i]))
			compose_all(&lb_algos[i]);
	check_chain_map();
	check_refusals();
	check_unfed();
	return check_status("compose");
}
