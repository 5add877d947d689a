/* The simulator's LogP mode (LB_PORT_LOGP, model/sim_logp.c).
 *
 * By hand: two messages queued at a busy receiver cost o_r each, an idle
 * receiver's overhead overlaps the flight, a message's later ops
 * (LB_OP_CONT) cost nothing more, sends never wait for the receiver, ops
 * run in program order, across lanes too (a 2-lane allgather); the
 * refusals (no platform, a barrier) and a stuck program.
 *
 * The nodes' NIC caps (`rate`, LogGP's G): two messages into a capped
 * receiver pass its cap one after the other in the order they were sent,
 * not the order the ranks are run in; and on the platform of
 * scripts/bench-allgather (4 nodes at 200 Mbit/s, 4 at 50, the scaled
 * rates of its 2026-11-24 run) cluster-agent-gb/-ts with all 8 nodes
 * agents take at least the (p - 1) m a slow rank must receive over its
 * caps, as the bounded model says (without the caps the LogP mode
 * predicted m / rate, 7 times less), and on 2 lanes (each contribution cut
 * in 2, one part per lane, the lanes' caps separate ports) half that.
 *
 * Seed 001 (docs/papers.md#seed001-experiment) on lb_agent_wu8, the platform
 * `platform gen wu-8` prints, 1-byte contributions: cluster-agent-gb / -ts at
 * every agent count against the closed form of algos/wu/agent.c at the same bytes.
 * The tolerance is the bytes: a concatenated message of k blocks takes k / bw
 * where the closed form charges every message one block's, at most 3 stages x 7
 * blocks x 80 ns here.  Within it:
 *   - m = 8 (every node an agent: the simultaneous broadcast, no stage
 *     before or after) equals the closed form: 2,030 us;
 *   - m = 1 is the closed form less one T_send of the agent: Definition 4
 *     sends the j-th result at j T_send, T_end after the send's end, where
 *     the sim takes T_end from the send's start (Definitions 1 and 4's
 *     T_R, and the seed's own definition of T_end);
 *   - every m is at most the closed form: the closed form adds the stages'
 *     maxima as if a barrier parted them, the schedule overlaps them (an
 *     agent with a small cluster starts its broadcast early); the sum is
 *     an upper bound on this platform, not in general (Definition 3's T_R
 *     ignores the senders' T_send apart, which delays the sim's stage 2).
 * The table printed is the one docs/guide/models.md quotes (the LogP simulation). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "algos/wu/agent.h"
#include "algos/algos.h"
#include "net/platform.h"
#include "check.h"
#include "model/sim.h"

/* n nodes, every pair with lat L, no occupation, bw huge enough that
 * bytes cost ~0, on two lanes. */
static struct lb_platform *nodes(uint32_t n, double os, double orecv, double L)
{
	struct lb_platform *pf = lb_platform_new(n, 2);
	pf->dflt = (struct lb_link){ .lat = L, .bw = 1e18 };
	for (uint32_t u = 0; u < n; u++)
		pf->node[u].send = pf->node[u].gap = os, pf->node[u].recv = orecv;
	lb_platform_seal(pf);
	return pf;
}

static double run(struct lb_schedule *s, const struct lb_platform *pf, char *err, size_t len)
{
	struct lb_sim_net net = { .platform = pf, .model = LB_PORT_LOGP };
	struct lb_sim_result res = { 0 };
	s->owner = NULL;
	lb_sched_finalize(s);
	int rc = lb_sim_run(s, &net, &res, err, len);
	lb_sched_free(s);
	return rc ? -1 : res.seconds;
}

/* Rank 0 sends blocks 0 and 1 to rank 2 (o_s 10, L 100), rank 1 sends
 * block 2 to rank 2 at once; rank 2 (o_r 30) receives from 0 twice, then
 * from 1.  From 0: at 100 (idle: the overhead hidden), the second sent at
 * 10 is there at 110 but the CPU is busy to 100 + 30.  From 1: there at
 * 100, taken after: 160. */
static void by_hand(void)
{
	char err[256];
	struct lb_platform *pf = nodes(3, 10, 30, 100);
	struct lb_schedule *s = lb_sched_new("hand", 3, 0, 1, 3, 3);
	lb_sched_add(s, 0, LB_SEND, 2, 0, 0, 1), lb_sched_add(s, 0, LB_SEND, 2, 0, 1, 1);
	lb_sched_add(s, 1, LB_SEND, 2, 0, 2, 1);
	lb_sched_add(s, 2, LB_RECV, 0, 0, 0, 1), lb_sched_add(s, 2, LB_RECV, 0, 0, 1, 1);
	lb_sched_add(s, 2, LB_RECV, 1, 0, 2, 1);
	uint32_t *owner = lb_sched_set_owners(s);
	owner[0] = owner[1] = 0, owner[2] = 1;
	s->want = LB_WANT_ROOT, s->root = 2;
	struct lb_sim_net net = { .platform = pf, .model = LB_PORT_LOGP };
	struct lb_sim_result res = { 0 };
	lb_sched_finalize(s);
	CHECK(lb_sim_run(s, &net, &res, err, sizeof(err)) == 0 && fabs(res.seconds - 160) < 1e-9,
	      "by hand: %g, want 160 (%s)", res.seconds, err);
	/* the second op continues the first message: one o_s, one o_r, 100 */
	s->rank[0].ops[1].flags = s->rank[2].ops[1].flags = LB_OP_CONT;
	CHECK(lb_sim_run(s, &net, &res, err, sizeof(err)) == 0 && fabs(res.seconds - 130) < 1e-9,
	      "one message: %g, want 130 (%s)", res.seconds, err);
	lb_sched_free(s);
	lb_platform_free(pf);
}

/* Program order: rank 1 receives from 0 before it sends to 0; rank 0 sends
 * first.  Swapped at rank 0 (receive first), both wait: stuck. */
static void order_and_refusals(void)
{
	char err[256];
	struct lb_platform *pf = nodes(3, 10, 30, 100);
	struct lb_schedule *s = lb_sched_new("swap", 3, 0, 2, 3, 3);
	lb_sched_add(s, 0, LB_RECV, 1, 0, 1, 1), lb_sched_add(s, 0, LB_SEND, 1, 0, 0, 1);
	lb_sched_add(s, 1, LB_RECV, 0, 0, 0, 1), lb_sched_add(s, 1, LB_SEND, 0, 0, 1, 1);
	CHECK(run(s, pf, err, sizeof(err)) < 0 && strstr(err, "stuck: rank 0 waits at op 0"),
	      "crossed receives: '%s'", err);
	s = lb_sched_new("bar", 3, 0, 1, 3, 3);
	uint32_t all[] = { 0, 1, 2 };
	lb_sched_barrier(s, (uint32_t)lb_sched_add_group(s, all, 3, 0));
	CHECK(run(s, pf, err, sizeof(err)) < 0 && strstr(err, "no barriers"), "barrier: '%s'", err);
	s = lb_sched_new("noplat", 3, 0, 1, 3, 3);
	lb_sched_finalize(s);
	struct lb_sim_net net = { .alpha = 1e-6, .lane_bw = 1e9, .model = LB_PORT_LOGP };
	struct lb_sim_result res = { 0 };
	CHECK(lb_sim_run(s, &net, &res, err, sizeof(err)) < 0 && strstr(err, "needs a platform"),
	      "no platform: '%s'", err);
	lb_sched_free(s);
	lb_platform_free(pf);
}

/* A 2-lane allgather of 2 ranks, a block per lane each (o_s = gap 10,
 * o_r 30, L 100).  Rank 0 sends block 0 on lane 0 at 0 and block 1 on
 * lane 1 at 10 (there at 100, 110), then receives.  Rank 1 receives both
 * first, across the lanes: at 100 (idle) and 130 (busy: + o_r); then
 * sends block 2 on lane 0 at 130 and block 3 on lane 1 at 140 (there at
 * 230, 240); rank 0 takes them at 230 and 260.  Run lane by lane instead,
 * rank 1 would send block 2 after its first receive: 240. */
static void two_lanes(void)
{
	char err[256];
	struct lb_platform *pf = nodes(2, 10, 30, 100);
	struct lb_schedule *s = lb_sched_new("2-lane allgather", 2, 0, 2, 4, 4);
	lb_sched_add(s, 0, LB_SEND, 1, 0, 0, 1), lb_sched_add(s, 0, LB_SEND, 1, 1, 1, 1);
	lb_sched_add(s, 0, LB_RECV, 1, 0, 2, 1), lb_sched_add(s, 0, LB_RECV, 1, 1, 3, 1);
	lb_sched_add(s, 1, LB_RECV, 0, 0, 0, 1), lb_sched_add(s, 1, LB_RECV, 0, 1, 1, 1);
	lb_sched_add(s, 1, LB_SEND, 0, 0, 2, 1), lb_sched_add(s, 1, LB_SEND, 0, 1, 3, 1);
	uint32_t *owner = lb_sched_set_owners(s);
	owner[0] = owner[1] = 0, owner[2] = owner[3] = 1;
	struct lb_sim_net net = { .platform = pf, .model = LB_PORT_LOGP };
	double done[2];
	struct lb_sim_result res = { .rank_done = done };
	lb_sched_finalize(s);
	CHECK(lb_sched_validate(s, err, sizeof(err)) == 0, "2-lane allgather: %s", err);
	CHECK(lb_sim_run(s, &net, &res, err, sizeof(err)) == 0 && fabs(res.seconds - 260) < 1e-9 &&
		      fabs(done[0] - 260) < 1e-9 && fabs(done[1] - 130) < 1e-9 && res.transfers == 4,
	      "2-lane allgather: %g (ranks %g, %g), want 260 (260, 130) (%s)", res.seconds, done[0],
	      done[1], err);
	lb_sched_free(s);
	lb_platform_free(pf);
}

/* allgather-ring on 4 ranks (o_s = gap 10, o_r 30, L 100), a 1-byte
 * chunk each, on one lane and striped over two: every rank sends, then
 * receives, each step, so a step takes one hop: the send at the step's
 * start is there 100 later, the receive (idle) ends then.  3 steps: 300,
 * on either lane count.  (Receive first, as the builder had it, each
 * step was a chain round the ring: 4 hops, 1,200.) */
static void ring_steps_together(void)
{
	char err[256] = "";
	struct lb_platform *pf = nodes(4, 10, 30, 100);
	for (uint32_t lanes = 1; lanes <= 2; lanes++) {
		struct lb_algo_params prm = { .ranks = 4, .lanes = lanes, .bytes = 1, .slice_bytes = 1 };
		struct lb_schedule *s = lb_algo_build(lb_algo_find("allgather-ring"), &prm, err, sizeof(err));
		struct lb_sim_net net = { .platform = pf, .model = LB_PORT_LOGP };
		struct lb_sim_result res = { 0 };
		CHECK(s && lb_sim_run(s, &net, &res, err, sizeof(err)) == 0 && fabs(res.seconds - 300) < 1e-6,
		      "allgather-ring on %u lanes: %g, want 300 (%s)", lanes, res.seconds, err);
		lb_sched_free(s);
	}
	lb_platform_free(pf);
}

/* Rank 1 sends block 1 (200 bytes) to rank 2 at 0; rank 0 first receives
 * block 3 from rank 3 (there at 100), then sends it with block 0, one
 * message of 400 bytes, to rank 2 at 100.  Rank 2's receive cap passes 1
 * byte per unit: rank 1's bytes through it 0-200 (there at 300), rank
 * 0's, sent later, 200-600 (there at 700); rank 2 takes them at 300 and
 * 700.  Had rank 0 the cap first (run before rank 1), it would be 800. */
static void caps_in_send_order(void)
{
	char err[256] = "";
	struct lb_platform *pf = lb_platform_new(4, 1);
	pf->dflt = (struct lb_link){ .lat = 100, .bw = 1e18 };
	for (uint32_t u = 0; u < 4; u++)
		pf->node[u].send = pf->node[u].gap = 10, pf->node[u].recv = 30;
	pf->node[2].rate = 1;
	lb_platform_seal(pf);
	struct lb_schedule *s = lb_sched_new("caps", 4, 2, 1, 4, 800);
	lb_sched_add(s, 3, LB_SEND, 0, 0, 3, 1);
	lb_sched_add(s, 0, LB_RECV, 3, 0, 3, 1), lb_sched_add(s, 0, LB_SEND, 2, 0, 0, 1);
	lb_sched_add(s, 0, LB_SEND, 2, 0, 3, 1);
	lb_sched_add(s, 1, LB_SEND, 2, 0, 1, 1);
	lb_sched_add(s, 2, LB_RECV, 1, 0, 1, 1), lb_sched_add(s, 2, LB_RECV, 0, 0, 0, 1);
	lb_sched_add(s, 2, LB_RECV, 0, 0, 3, 1);
	s->rank[0].ops[2].flags = s->rank[2].ops[2].flags = LB_OP_CONT;
	uint32_t *owner = lb_sched_set_owners(s);
	for (uint32_t b = 0; b < 4; b++)
		owner[b] = b;
	s->want = LB_WANT_ROOT;
	struct lb_sim_net net = { .platform = pf, .model = LB_PORT_LOGP };
	struct lb_sim_result res = { 0 };
	lb_sched_finalize(s);
	CHECK(lb_sim_run(s, &net, &res, err, sizeof(err)) == 0 && fabs(res.seconds - 700) < 1e-9,
	      "capped receiver: %g, want 700 (%s)", res.seconds, err);
	lb_sched_free(s);
	lb_platform_free(pf);
}

/* scripts/bench-allgather's platform (results of 2026-11-24): 2 lanes,
 * every link and the fast nodes at 23,907,500 B/s, the slow at a quarter,
 * 10 us overheads. */
static struct lb_platform *bench_allgather_platform(void)
{
	struct lb_platform *pf = lb_platform_new(8, 2);
	pf->dflt = (struct lb_link){ .bw = 23907500 };
	for (uint32_t u = 0; u < 8; u++) {
		pf->node[u].send = pf->node[u].recv = 10e-6;
		pf->node[u].rate = u < 4 ? 23907500 : 23907500 / 4.0;
	}
	lb_platform_seal(pf);
	return pf;
}

static double simulate_on(const struct lb_platform *pf, const char *name, uint64_t m,
			  uint32_t lanes, enum lb_port_model model)
{
	char err[256] = "";
	struct lb_algo_params prm = { .ranks = 8, .lanes = lanes, .bytes = m, .platform = pf,
				      .agents = 8 };
	struct lb_schedule *s = lb_algo_build(lb_algo_find(name), &prm, err, sizeof(err));
	struct lb_sim_net net = { .platform = pf, .model = model };
	struct lb_sim_result res = { 0 };
	CHECK(s && lb_sim_run(s, &net, &res, err, sizeof(err)) == 0, "%s %llu: %s", name,
	      (unsigned long long)m, err);
	lb_sched_free(s);
	return res.seconds;
}

/* Every slow rank receives 7 m through its caps, half on each lane when
 * the schedule cuts each contribution over 2 lanes (one cap per lane): at
 * least 7 m / (k rate), and the bounded model's time within 1 % (the caps
 * are all of it) -- on 2 lanes half the time on one. */
static void bench_allgather(void)
{
	struct lb_platform *pf = bench_allgather_platform();
	const char *names[] = { "cluster-agent-gb", "cluster-agent-ts" };
	for (int a = 0; a < 2; a++)
		for (uint64_t m = 1 << 20; m <= 8 << 20; m *= 8) {
			double logp[3];
			for (uint32_t k = 1; k <= 2; k++) {
				double bound = 7.0 * (double)m / (k * pf->node[7].rate);
				double bounded = simulate_on(pf, names[a], m, k, LB_PORT_BOUNDED);
				logp[k] = simulate_on(pf, names[a], m, k, LB_PORT_LOGP);
				CHECK(logp[k] >= bound * (1 - 1e-9),
				      "%s m %llu k %u: LogP %g s, under 7 m / (k rate) %g s", names[a],
				      (unsigned long long)m, k, logp[k], bound);
				CHECK(fabs(logp[k] / bounded - 1) < 0.01,
				      "%s m %llu k %u: LogP %g s, bounded %g s", names[a],
				      (unsigned long long)m, k, logp[k], bounded);
			}
			CHECK(fabs(logp[2] / logp[1] - 0.5) < 0.01, "%s m %llu: LogP %g s on 2 lanes, %g on 1",
			      names[a], (unsigned long long)m, logp[2], logp[1]);
		}
	lb_platform_free(pf);
}

static double closed_form(const struct lb_platform *pf, uint32_t m, enum lb_agent_algo algo)
{
	struct lb_agent_model md;
	struct lb_agent_plan p;
	lb_agent_model_from_platform(pf, 1, 1, &md);
	lb_agent_plan(&md, m, LB_AGENT_TIE_FEWEST, LB_AGENT_COUNT_N, &p);
	double t = p.all[algo];
	lb_agent_plan_free(&p);
	lb_agent_model_free(&md);
	return t;
}

static double simulate(const struct lb_platform *pf, uint32_t m, const char *name)
{
	char err[256];
	struct lb_algo_params prm = { .ranks = 8, .lanes = 1, .bytes = 1, .platform = pf,
				      .agents = m };
	struct lb_schedule *s = lb_algo_build(lb_algo_find(name), &prm, err, sizeof(err));
	struct lb_sim_net net = { .platform = pf, .model = LB_PORT_LOGP };
	struct lb_sim_result res = { 0 };
	CHECK(s && lb_sim_run(s, &net, &res, err, sizeof(err)) == 0, "%s m %u: %s", name, m, err);
	lb_sched_free(s);
	return res.seconds;
}

static void seed001(void)
{
	struct lb_platform *pf = lb_agent_wu8();
	const double tol = 3 * 7 / 12.5e6, fast_send = 90e-6;
	printf("  m   GB closed  GB sim (us)   TS closed  TS sim (us)\n");
	for (uint32_t m = 1; m <= 8; m++) {
		double c[2], t[2];
		for (int a = 0; a < 2; a++) {
			c[a] = closed_form(pf, m, (enum lb_agent_algo)a);
			t[a] = simulate(pf, m, a ? "cluster-agent-ts" : "cluster-agent-gb");
			CHECK(t[a] <= c[a] + tol, "%s m %u: sim %g above the closed form %g",
			      a ? "ts" : "gb", m, t[a], c[a]);
			if (m == 8)
				CHECK(fabs(t[a] - c[a]) <= tol, "m 8: sim %g, closed form %g", t[a], c[a]);
			if (m == 1)
				CHECK(fabs(t[a] - (c[a] - fast_send)) <= tol,
				      "m 1: sim %g, want the closed form %g less T_send", t[a], c[a]);
		}
		printf("  %u %10.2f %10.2f %11.2f %10.2f\n", m, c[0] * 1e6, t[0] * 1e6, c[1] * 1e6,
		       t[1] * 1e6);
	}
	CHECK(fabs(closed_form(pf, 8, LB_AGENT_GB) - 2030e-6) < tol, "m 8: 2,030 us");
	lb_platform_free(pf);
}

int main(void)
{
	by_hand();
	order_and_refusals();
	two_lanes();
	ring_steps_together();
	caps_in_send_order();
	bench_allgather();
	seed001();
	return check_status("test_sim_logp");
}
