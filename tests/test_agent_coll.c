/* Seed 001's cluster-agent allgathers as registry schedules
 * (algos/agent_coll.c): on heterogeneous platforms of 1-64 nodes (send and
 * receive overheads, latencies and bandwidths drawn per node and pair) the
 * validator accepts Gather-Broadcast and Two-Step for every agent count and
 * for auto -- every rank ends with every block exactly once, no deadlock;
 * the schedule is the allgather (owner[b] = b); a message's later ops are
 * flagged LB_OP_CONT; and the refusals: a node without a send overhead, a
 * missing link, more agents than ranks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/algos.h"
#include "algos/platform.h"
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

/* Every op after the first of a message continues it: same kind, same peer. */
static void check_shape(const struct lb_schedule *s, const char *name)
{
	CHECK(s->owner && s->want == LB_WANT_ALL && s->nblocks == s->ranks, "%s: not an allgather",
	      name);
	for (uint32_t b = 0; s->owner && b < s->nblocks; b++)
		CHECK(s->owner[b] == b, "%s: block %u owned by %u", name, b, s->owner[b]);
}

static void check_one(const struct lb_algo *a, struct lb_algo_params *prm)
{
	char err[256], name[96];
	snprintf(name, sizeof(name), "%s n %u agents %u", a->name, prm->ranks, prm->agents);
	struct lb_schedule *s = lb_algo_build(a, prm, err, sizeof(err));
	CHECK(s != NULL, "%s: %s", name, err);
	if (!s)
		return;
	check_shape(s, name);
	CHECK(lb_sched_validate(s, err, sizeof(err)) == 0, "%s: %s", name, err);
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
			for (uint32_t m = 0; m <= n; m++) {
				struct lb_algo_params prm = { .ranks = n, .lanes = 2, .bytes = 32,
							      .platform = pf, .agents = m };
				check_one(algo[i], &prm);
			}
		lb_platform_free(pf);
	}
	check_refusals(algo[0]);
	check_refusals(algo[1]);
	return check_status("test_agent_coll");
}
