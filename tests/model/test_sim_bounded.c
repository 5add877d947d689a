/* The simulator's bounded multi-port model (model/sim.h, LB_PORT_BOUNDED)
 * against makespans worked out by hand: a node's concurrent sends sharing
 * its send cap, its concurrent receives sharing its receive cap, no cap
 * (then receives overlap, where multi-port holds a receive port), and the
 * refusal without a platform.  Links: bandwidth B, no latency, no
 * occupation, no send overhead; one block of n bytes per transfer. */
#include <stdlib.h>

#include "net/platform.h"
#include "algos/schedule.h"
#include "check.h"
#include "model/sim.h"

static const double B = 1.25e7, n = 1e6; /* T = n / B = 80 ms */

/* When rank `at` holds every block. */
static double done_at(const struct lb_schedule *s, const struct lb_platform *pf,
		      enum lb_port_model model, uint32_t at)
{
	char err[256];
	double done[3] = { 0 };
	struct lb_sim_net net = { .platform = pf, .model = model };
	struct lb_sim_result res = { .rank_done = done };
	int rc = lb_sim_run(s, &net, &res, err, sizeof(err));
	CHECK(rc == 0, "%s", err);
	return done[at];
}

static double run(const struct lb_schedule *s, const struct lb_platform *pf,
		  enum lb_port_model model)
{
	return done_at(s, pf, model, 1) > done_at(s, pf, model, 2) ? done_at(s, pf, model, 1)
								    : done_at(s, pf, model, 2);
}

static struct lb_platform *platform(uint32_t nodes, const uint32_t (*links)[2], size_t nlinks,
				    const double *bw)
{
	struct lb_platform *pf = lb_platform_new(nodes, 1);
	for (size_t i = 0; pf && i < nlinks; i++) {
		struct lb_link l = { .bw = bw[i] };
		CHECK(lb_platform_set_link(pf, links[i][0], links[i][1], 0, LB_LINK_BW, &l) == 0,
		      "link %u %u", links[i][0], links[i][1]);
	}
	CHECK(pf && lb_platform_seal(pf) == 0, "platform of %u nodes", nodes);
	return pf;
}

/* Node 0 sends its one block to 1 and to 2 at t = 0 (no send overhead,
 * two links).  Its cap R: the first transfer's bytes are through at n / R,
 * the second's at 2 n / R, each link needs n / B: makespan
 * max(n / B, 2 n / R) -- what sharing R fairly would give, R / 2 each,
 * while R / 2 <= B.  No cap: n / B, as multi-port. */
static void send_cap(void)
{
	static const uint32_t links[][2] = { { 0, 1 }, { 0, 2 } };
	static const double bw[] = { B, B };
	struct lb_platform *pf = platform(3, links, 2, bw);
	struct lb_schedule *s = lb_sched_new("fan", 3, 0, 1, 1, (uint64_t)n);
	lb_sched_transfer(s, 0, 1, 0, 0, 1);
	lb_sched_transfer(s, 0, 2, 0, 0, 1);
	lb_sched_finalize(s);
	double t = run(s, pf, LB_PORT_BOUNDED);
	CHECK(check_close(t, n / B, 1e-12), "no cap: %.12g want %.12g", t, n / B);
	CHECK(check_close(run(s, pf, LB_PORT_MULTI), t, 1e-12), "no cap: multi-port differs");
	pf->node[0].rate = B; /* the cap binds: 2 n / B */
	t = run(s, pf, LB_PORT_BOUNDED);
	CHECK(check_close(t, 2 * n / B, 1e-12), "cap B: %.12g want %.12g", t, 2 * n / B);
	pf->node[0].rate = 1.5 * B; /* 2 n / 1.5 B: each transfer at 0.75 B */
	t = run(s, pf, LB_PORT_BOUNDED);
	CHECK(check_close(t, 2 * n / (1.5 * B), 1e-12), "cap 1.5 B: %.12g want %.12g", t,
	      2 * n / (1.5 * B));
	pf->node[0].rate = 4 * B; /* the links bind: n / B */
	t = run(s, pf, LB_PORT_BOUNDED);
	CHECK(check_close(t, n / B, 1e-12), "cap 4 B: %.12g want %.12g", t, n / B);
	lb_sched_free(s);
	lb_platform_free(pf);
}

/* Node 2 receives block 0 from the root and block 1 from node 1 at
 * once: 0 -> 1 takes n / 100 B over a fast link, then 0 -> 2 (from t = 0)
 * and 1 -> 2 (from t1 = n / 100 B) overlap.  Receive cap R of node 2:
 * the first transfer's bytes are through at n / R, the second's at
 * max(t1, n / R) + n / R: node 2 done at max(t1 + n / B, 2 n / R).
 * No cap: t1 + n / B; multi-port holds 2's receive port: n / B + n / B.
 * (Node 1 gets block 0 after block 1, over the fast link: it does not
 * touch node 2, whose completion is the figure.) */
static void receive_cap(void)
{
	static const uint32_t links[][2] = { { 0, 1 }, { 0, 2 }, { 1, 2 } };
	static const double bw[] = { 100 * B, B, B };
	const double t1 = n / (100 * B);
	struct lb_platform *pf = platform(3, links, 3, bw);
	struct lb_schedule *s = lb_sched_new("two-in", 3, 0, 1, 2, (uint64_t)(2 * n));
	lb_sched_transfer(s, 0, 1, 0, 1, 1);
	lb_sched_transfer(s, 0, 2, 0, 0, 1);
	lb_sched_transfer(s, 0, 1, 0, 0, 1);
	lb_sched_transfer(s, 1, 2, 0, 1, 1);
	lb_sched_finalize(s);
	double t = done_at(s, pf, LB_PORT_BOUNDED, 2);
	CHECK(check_close(t, t1 + n / B, 1e-12), "no cap: %.12g want %.12g", t, t1 + n / B);
	t = done_at(s, pf, LB_PORT_MULTI, 2);
	CHECK(check_close(t, 2 * n / B, 1e-12), "multi-port: %.12g want %.12g", t, 2 * n / B);
	pf->node[2].rate = B;
	t = done_at(s, pf, LB_PORT_BOUNDED, 2);
	CHECK(check_close(t, 2 * n / B, 1e-12), "receive cap B: %.12g want %.12g", t, 2 * n / B);
	pf->node[2].rate = 1.5 * B;
	t = done_at(s, pf, LB_PORT_BOUNDED, 2);
	CHECK(check_close(t, 2 * n / (1.5 * B), 1e-12), "receive cap 1.5 B: %.12g want %.12g", t,
	      2 * n / (1.5 * B));
	lb_sched_free(s);
	lb_platform_free(pf);
}

static void needs_platform(void)
{
	char err[256] = "";
	struct lb_schedule *s = lb_sched_new("hand", 2, 0, 1, 1, 10);
	lb_sched_transfer(s, 0, 1, 0, 0, 1);
	lb_sched_finalize(s);
	struct lb_sim_net net = { .alpha = 1e-6, .lane_bw = B, .model = LB_PORT_BOUNDED };
	struct lb_sim_result res = { 0 };
	CHECK(lb_sim_run(s, &net, &res, err, sizeof(err)) != 0 && strstr(err, "needs a platform"),
	      "bounded without a platform: %s", err);
	lb_sched_free(s);
}

int main(void)
{
	send_cap();
	receive_cap();
	needs_platform();
	return check_status("sim-bounded");
}
