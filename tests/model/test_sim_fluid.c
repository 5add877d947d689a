/* The simulator's fluid model (model/sim.h, LB_PORT_FLUID) against
 * completion times worked out by hand: transfers that overlap on a port
 * share it max-min fairly, a transfer that ends frees its share, a port
 * held down elsewhere leaves the rest to the others, a busy link holds up
 * only its own SENDs, the WAN link is shared, a chain (one transfer per port at a time) is what per-lane
 * gives, and on a platform a node's rate is its ports' limit.  One lane;
 * bandwidth B, no alpha or latency unless a case says. */
#include <math.h>
#include <stdlib.h>

#include "net/platform.h"
#include "algos/schedule.h"
#include "check.h"
#include "model/sim.h"

static const double B = 1.25e7, n = 1e6; /* n / B = 80 ms */

/* Each rank's completion time under `model` (done[ranks]). */
static void run(const struct lb_schedule *s, struct lb_sim_net net, enum lb_port_model model,
		double *done)
{
	char err[256];
	struct lb_sim_result res = { .rank_done = done };
	net.model = model;
	int rc = lb_sim_run(s, &net, &res, err, sizeof(err));
	CHECK(rc == 0, "%s", err);
}

static void expect(double got, double want, const char *what)
{
	CHECK(check_close(got, want, 1e-9), "%s: %.12g, want %.12g", what, got, want);
}

/* A gather to rank 0 of blocks 1 .. ranks-1 of these sizes, each sent by
 * its owner to the root at t = 0 (block 0 is the root's: 1 byte). */
static struct lb_schedule *gather(uint32_t ranks, const double *size)
{
	uint64_t total = 1;
	for (uint32_t r = 1; r < ranks; r++)
		total += (uint64_t)size[r - 1];
	struct lb_schedule *s = lb_sched_new("gather", ranks, 0, 1, ranks, total);
	uint32_t *owner = lb_sched_set_owners(s);
	uint64_t *off = lb_sched_set_offsets(s);
	CHECK(owner && off, "out of memory");
	s->want = LB_WANT_ROOT;
	off[1] = 1;
	for (uint32_t r = 1; r < ranks; r++) {
		owner[r] = r;
		off[r + 1] = off[r] + (uint64_t)size[r - 1];
		lb_sched_transfer(s, r, 0, 0, r, 1);
	}
	lb_sched_finalize(s);
	return s;
}

/* The root sends its block to 1 and 2 at once: both at B / 2, both done
 * at 2 n / B (per-lane: one after the other, n / B and 2 n / B). */
static void two_out(void)
{
	struct lb_schedule *s = lb_sched_new("fan", 3, 0, 1, 1, (uint64_t)n);
	lb_sched_transfer(s, 0, 1, 0, 0, 1);
	lb_sched_transfer(s, 0, 2, 0, 0, 1);
	lb_sched_finalize(s);
	struct lb_sim_net net = { .lane_bw = B };
	double done[3];
	run(s, net, LB_PORT_FLUID, done);
	expect(done[1], 2 * n / B, "two out, rank 1");
	expect(done[2], 2 * n / B, "two out, rank 2");
	run(s, net, LB_PORT_PER_LANE, done);
	expect(done[1], n / B, "two out per-lane, rank 1");
	lb_sched_free(s);
}

/* The root's lane sends blocks 0 and 1 to rank 1, then both to rank 2:
 * block 1 waits for link 0 -> 1, but the lane's SENDs to rank 2 do not
 * wait for it (each link is a stream of its own, as the executor posts
 * every SEND whose blocks are there): block 0 goes to 1 and 2 at B / 2
 * each, then block 1 likewise, both ranks done at 4 n / B.  (Were the
 * lane held up behind the busy link, rank 1 would be done at 3 n / B.) */
static void queue_per_link(void)
{
	struct lb_schedule *s = lb_sched_new("queues", 3, 0, 1, 2, (uint64_t)(2 * n));
	lb_sched_transfer(s, 0, 1, 0, 0, 1);
	lb_sched_transfer(s, 0, 1, 0, 1, 1);
	lb_sched_transfer(s, 0, 2, 0, 0, 1);
	lb_sched_transfer(s, 0, 2, 0, 1, 1);
	lb_sched_finalize(s);
	struct lb_sim_net net = { .lane_bw = B };
	double done[3];
	run(s, net, LB_PORT_FLUID, done);
	expect(done[1], 4 * n / B, "queue per link, rank 1");
	expect(done[2], 4 * n / B, "queue per link, rank 2");
	lb_sched_free(s);
}

/* Two senders of B / 2 into a root of B (bench-hbsp's fast root): both
 * flows at B / 2 fill the root's port, done at 2 n / B; per-lane takes
 * them one after the other at B / 2: 4 n / B. */
static void two_in(void)
{
	static const double size[] = { n, n };
	double bw[] = { B, B / 2, B / 2 }, done[3];
	struct lb_schedule *s = gather(3, size);
	struct lb_sim_net net = { .lane_bw = B, .rank_bw = bw };
	run(s, net, LB_PORT_FLUID, done);
	expect(done[0], 2 * n / B, "two in");
	run(s, net, LB_PORT_PER_LANE, done);
	expect(done[0], 4 * n / B, "two in per-lane");
	bw[1] = bw[2] = B; /* senders as fast as the root: 2 n / B either way */
	run(s, net, LB_PORT_FLUID, done);
	expect(done[0], 2 * n / B, "two in, equal ports");
	lb_sched_free(s);
}

/* n / 2 and n into the root at once, B / 2 each: the first ends at n / B
 * and the second, n / 2 left, takes all of B: 1.5 n / B (2 n / B if the
 * share were not freed). */
static void early_end_frees(void)
{
	static const double size[] = { n / 2, n };
	double done[3];
	struct lb_schedule *s = gather(3, size);
	struct lb_sim_net net = { .lane_bw = B };
	run(s, net, LB_PORT_FLUID, done);
	expect(done[0], 1.5 * n / B, "early end");
	lb_sched_free(s);
}

/* Rank 1 sends to 2 and 3 at once; rank 3's port passes B / 4.  Max-min:
 * 1 -> 3 held at B / 4 by rank 3, 1 -> 2 takes the rest of rank 1's
 * port, 3 B / 4: rank 2 done at 4 n / 3 B (equal shares would give 2 n /
 * B), rank 3 at 4 n / B.  Rank 0 gets it from 2 afterwards. */
static void bottleneck_elsewhere(void)
{
	struct lb_schedule *s = lb_sched_new("maxmin", 4, 1, 1, 1, (uint64_t)n);
	lb_sched_transfer(s, 1, 2, 0, 0, 1);
	lb_sched_transfer(s, 1, 3, 0, 0, 1);
	lb_sched_transfer(s, 2, 0, 0, 0, 1);
	lb_sched_finalize(s);
	double bw[] = { B, B, B, B / 4 }, done[4];
	struct lb_sim_net net = { .lane_bw = B, .rank_bw = bw };
	run(s, net, LB_PORT_FLUID, done);
	expect(done[2], 4 * n / (3 * B), "max-min, rank 2");
	expect(done[3], 4 * n / B, "max-min, rank 3");
	expect(done[0], 4 * n / (3 * B) + n / B, "max-min, rank 0");
	lb_sched_free(s);
}

/* Sites {0, 1} and {2}: 0 and 1 send to 2 across a WAN of B / 2 (shared:
 * B / 4 each, where a per-transfer cap would let each pass B / 2 and the
 * root's port bind at 2 n / B); wan_alpha a and wan_latency L paid once
 * per transfer, after its bytes: done at 4 n / B + a + L. */
static void wan_shared(void)
{
	static const uint32_t first[] = { 0, 2, 3 };
	struct lb_schedule *s = lb_sched_new("wan", 3, 2, 1, 3, (uint64_t)(2 * n + 1));
	uint32_t *owner = lb_sched_set_owners(s);
	uint64_t *off = lb_sched_set_offsets(s);
	CHECK(owner && off, "out of memory");
	s->want = LB_WANT_ROOT;
	owner[0] = 0, owner[1] = 1, owner[2] = 2;
	off[1] = (uint64_t)n, off[2] = (uint64_t)(2 * n);
	lb_sched_transfer(s, 0, 2, 0, 0, 1);
	lb_sched_transfer(s, 1, 2, 0, 1, 1);
	lb_sched_finalize(s);
	const double a = 1e-4, L = 1e-3;
	struct lb_sim_net net = { .lane_bw = B, .sites = 2, .site_first = first, .wan_alpha = a,
				  .wan_bw = B / 2, .wan_latency = L, .alpha = 1 };
	double done[3];
	run(s, net, LB_PORT_FLUID, done);
	expect(done[2], 4 * n / B + a + L, "WAN shared");
	lb_sched_free(s);
}

/* Sites {0, 1} and {2}, no WAN cap: the root sends its block to 1 (latency
 * l) and to 2 (wan_latency 3 l) at once through its port of B.  Fair: both
 * at B / 2, done at 2 n / B (+ latency).  By round trip (weights 1 / 2 l
 * and 1 / 6 l, 3 : 1): 3 B / 4 to rank 1, done at 4 n / 3 B; the WAN flow
 * has n / 3 through by then, the rest at B: done at 2 n / B. */
static void rtt_weighted(void)
{
	static const uint32_t first[] = { 0, 2, 3 };
	struct lb_schedule *s = lb_sched_new("fan", 3, 0, 1, 1, (uint64_t)n);
	lb_sched_transfer(s, 0, 1, 0, 0, 1);
	lb_sched_transfer(s, 0, 2, 0, 0, 1);
	lb_sched_finalize(s);
	const double l = 1e-3;
	struct lb_sim_net net = { .lane_bw = B, .sites = 2, .site_first = first, .latency = l,
				  .wan_latency = 3 * l };
	double done[3];
	run(s, net, LB_PORT_FLUID, done);
	expect(done[1], 2 * n / B + l, "fair, rank 1");
	expect(done[2], 2 * n / B + 3 * l, "fair, rank 2");
	net.share = LB_SHARE_RTT;
	run(s, net, LB_PORT_FLUID, done);
	expect(done[1], 4 * n / (3 * B) + l, "by round trip, rank 1");
	expect(done[2], 2 * n / B + 3 * l, "by round trip, rank 2");
	lb_sched_free(s);
}

/* A chain of 4 ranks, 8 slices, alpha and latency: one transfer per port
 * at a time, so fluid gives what per-lane gives. */
static void chain_as_per_lane(void)
{
	struct lb_schedule *s = lb_sched_new("chain", 4, 0, 1, 8, (uint64_t)n);
	for (uint32_t b = 0; b < 8; b++)
		for (uint32_t r = 0; r < 3; r++)
			lb_sched_transfer(s, r, r + 1, 0, b, 1);
	lb_sched_finalize(s);
	struct lb_sim_net net = { .lane_bw = B, .alpha = 2e-5, .latency = 1e-4 };
	double fluid[4], per_lane[4];
	run(s, net, LB_PORT_FLUID, fluid);
	run(s, net, LB_PORT_PER_LANE, per_lane);
	for (uint32_t r = 1; r < 4; r++)
		expect(fluid[r], per_lane[r], "chain");
	lb_sched_free(s);
}

/* On a platform: node 0's rate R is what its two sends share (links of
 * B each): max(n / B, 2 n / R), as the bounded model gives when both
 * start together; with no rate the links alone: n / B. */
static void platform_rate(void)
{
	struct lb_platform *pf = lb_platform_new(3, 1);
	struct lb_link l = { .bw = B };
	CHECK(pf && lb_platform_set_link(pf, 0, 1, 0, LB_LINK_BW, &l) == 0 &&
		      lb_platform_set_link(pf, 0, 2, 0, LB_LINK_BW, &l) == 0 &&
		      lb_platform_set_link(pf, 1, 2, 0, LB_LINK_BW, &l) == 0 &&
		      lb_platform_seal(pf) == 0,
	      "platform");
	struct lb_schedule *s = lb_sched_new("fan", 3, 0, 1, 1, (uint64_t)n);
	lb_sched_transfer(s, 0, 1, 0, 0, 1);
	lb_sched_transfer(s, 0, 2, 0, 0, 1);
	lb_sched_finalize(s);
	struct lb_sim_net net = { .platform = pf };
	double done[3];
	run(s, net, LB_PORT_FLUID, done);
	expect(done[2], n / B, "platform, no rate");
	pf->node[0].rate = 1.5 * B;
	run(s, net, LB_PORT_FLUID, done);
	expect(done[2], 2 * n / (1.5 * B), "platform, rate 1.5 B");
	expect(done[1], 2 * n / (1.5 * B), "platform, rate 1.5 B, rank 1");
	lb_sched_free(s);
	lb_platform_free(pf);
}

int main(void)
{
	two_out();
	queue_per_link();
	two_in();
	early_end_frees();
	bottleneck_elsewhere();
	wan_shared();
	chain_as_per_lane();
	rtt_weighted();
	platform_rate();
	return check_status("sim-fluid");
}
