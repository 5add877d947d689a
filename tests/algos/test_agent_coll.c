/* Seed 001's cluster-agent allgathers as registry schedules
 * (algos/wu/agent_coll.c): on heterogeneous platforms of 1-64 nodes (send and
 * receive overheads, latencies and bandwidths drawn per node and pair) the
 * validator accepts Gather-Broadcast and Two-Step for every agent count and
 * for auto, on 1 and 2 lanes -- every rank ends with every block exactly
 * once, no deadlock; the schedule is the allgather (block l n + r, part l
 * of rank r's contribution, owned by r); on 2 lanes every rank's every
 * message is on both, each lane carrying half the bytes; and the refusals:
 * a node without a send overhead, a missing link (on any lane used), more
 * agents than ranks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/algos.h"
#include "net/platform.h"
#include "check.h"

static uint32_t rng = 12345;

static double draw(double lo, double hi)
{
	rng = rng * 1103515245u + 12345u;
	return lo + (hi - lo) * ((rng >> 8) & 0xffff) / 65535.0;
}

/* n nodes of 1-3 speed classes: overheads 50-200 us, lat 100-500 us. */
static struct lb_platform *platform(uint32_t n)
{
	struct lb_platform *pf = lb_platform_new(n, 2);
	pf->dflt = (struct lb_link){ .lat = 300e-6, .bw = 12.5e6 };
	for (uint32_t u = 0; u < n; u++) {
		double speed = 1 + (uint32_t)draw(0, 2.99);
		pf->node[u].send = pf->node[u].gap = 60e-6 * speed;
		pf->node[u].recv = 45e-6 * speed + draw(0, 10e-6);
		for (uint32_t v = 0; v < n; v++) {
			struct lb_link l = { .lat = draw(100e-6, 500e-6), .bw = draw(5e6, 20e6) };
			if (u != v)
				lb_platform_set_link(pf, u, v, LB_PLATFORM_ALL_LANES, LB_LINK_LAT | LB_LINK_BW, &l);
		}
	}
	CHECK(lb_platform_seal(pf) == 0, "seal %u nodes", n);
	return pf;
}

/* The allgather of k parts per rank: block b owned by b mod n. */
static void check_shape(const struct lb_schedule *s, const char *name)
{
	CHECK(s->owner && s->want == LB_WANT_ALL && s->nblocks == s->ranks * s->lanes,
	      "%s: not an allgather of %u x %u blocks", name, s->ranks, s->lanes);
	for (uint32_t b = 0; s->owner && b < s->nblocks; b++)
		CHECK(s->owner[b] == b % s->ranks, "%s: block %u owned by %u", name, b, s->owner[b]);
}

/* Each lane of each rank has as many SENDs, RECVs and messages (ops not
 * continuing one) as lane 0 and its blocks are lane 0's moved by l n; the
 * lanes' SEND bytes are equal within a byte per block. */
static void check_lanes(const struct lb_schedule *s, const char *name)
{
	uint64_t sent[2] = { 0 };
	for (uint32_t r = 0; r < s->ranks; r++) {
		const struct lb_rank_ops *ro = &s->rank[r];
		uint32_t n0 = ro->lane_start[1] - ro->lane_start[0];
		for (uint32_t l = 0; l < s->lanes; l++) {
			uint32_t nl = ro->lane_start[l + 1] - ro->lane_start[l];
			CHECK(nl == n0, "%s rank %u: %u ops on lane %u, %u on lane 0", name, r, nl, l, n0);
			for (uint32_t i = 0; i < nl && i < n0; i++) {
				const struct lb_op *a = &ro->ops[ro->lane_start[0] + i];
				const struct lb_op *b = &ro->ops[ro->lane_start[l] + i];
				CHECK(a->kind == b->kind && a->peer == b->peer && a->flags == b->flags &&
					      b->first_block == a->first_block + l * s->ranks &&
					      b->nblocks == a->nblocks,
				      "%s rank %u op %u: lane %u is not lane 0's", name, r, i, l);
				if (b->kind == LB_SEND && l < 2)
					sent[l] += lb_range_bytes(s, b->first_block, b->nblocks);
			}
		}
	}
	uint64_t slack = s->nblocks * (uint64_t)s->ranks;
	CHECK(sent[0] > 0 && sent[1] + slack >= sent[0] && sent[0] + slack >= sent[1],
	      "%s: lane 0 sends %llu bytes, lane 1 %llu", name, (unsigned long long)sent[0],
	      (unsigned long long)sent[1]);
}

static void check_one(const struct lb_algo *a, struct lb_algo_params *prm)
{
	char err[256], name[96];
	snprintf(name, sizeof(name), "%s n %u agents %u k %u", a->name, prm->ranks, prm->agents,
		 prm->lanes);
	struct lb_schedule *s = lb_algo_build(a, prm, err, sizeof(err));
	CHECK(s != NULL, "%s: %s", name, err);
	if (!s)
		return;
	check_shape(s, name);
	CHECK(lb_sched_validate(s, err, sizeof(err)) == 0, "%s: %s", name, err);
	if (s->lanes > 1 && s->ranks > 1)
		check_lanes(s, name);
	lb_sched_free(s);
}

static void check_refusals(const struct lb_algo *a)
{
	char err[256];
	struct lb_platform *pf = platform(4);
	struct lb_algo_params prm = { .ranks = 4, .lanes = 1, .bytes = 32, .platform = pf,
				      .agents = 5 };
	CHECK(lb_algo_check(a, &prm, err, sizeof(err)) && strstr(err, "--agents 5"),
	      "%s: 5 agents of 4 ranks: '%s'", a->name, err);
	prm.agents = 0, pf->node[2].send = 0;
	CHECK(lb_algo_check(a, &prm, err, sizeof(err)) && strstr(err, "node 2 has no send overhead"),
	      "%s: no send overhead: '%s'", a->name, err);
	pf->node[2].send = 1e-4;
	struct lb_link none = { 0 };
	lb_platform_set_link(pf, 1, 3, 1, LB_LINK_BW, &none);
	lb_platform_seal(pf);
	CHECK(lb_algo_check(a, &prm, err, sizeof(err)) == 0, "%s: lane 1's gap refused on 1 lane: '%s'",
	      a->name, err);
	prm.lanes = 2;
	CHECK(lb_algo_check(a, &prm, err, sizeof(err)) && strstr(err, "no link 1 -> 3 on lane 1"),
	      "%s: missing link on lane 1 of 2: '%s'", a->name, err);
	prm.lanes = 1;
	lb_platform_set_link(pf, 1, 3, 0, LB_LINK_BW, &none);
	lb_platform_seal(pf);
	CHECK(lb_algo_check(a, &prm, err, sizeof(err)) && strstr(err, "no link 1 -> 3"),
	      "%s: missing link: '%s'", a->name, err);
	lb_platform_free(pf);
}

int main(void)
{
	const struct lb_algo *algo[] = { lb_algo_find("cluster-agent-gb"),
					 lb_algo_find("cluster-agent-ts") };
	CHECK(algo[0] && algo[1], "cluster-agent-gb and -ts are in the registry");
	if (!algo[0] || !algo[1])
		return check_status("test_agent_coll");
	for (uint32_t n = 1; n <= 64; n++) {
		struct lb_platform *pf = platform(n);
		for (int i = 0; i < 2; i++)
			for (uint32_t m = 0; m <= n; m++)
				for (uint32_t k = 1; k <= 2; k++) {
					struct lb_algo_params prm = { .ranks = n, .lanes = k, .bytes = 32,
								      .platform = pf, .agents = m };
					check_one(algo[i], &prm);
				}
		lb_platform_free(pf);
	}
	check_refusals(algo[0]);
	check_refusals(algo[1]);
	return check_status("test_agent_coll");
}
