/* The simulator on a platform (per-pair values, missing links) and its port
 * models, against forms derived by hand for each case. */
#include <stdlib.h>

#include "algos/algos.h"
#include "algos/build.h"
#include "net/platform.h"
#include "check.h"
#include "model/sim.h"

static const double BW = 1.25e9;

static double sim(const char *algo, struct lb_algo_params prm,
		  const struct lb_sim_net *net, struct lb_sim_result *res)
{
	char err[256];
	struct lb_schedule *s = lb_algo_build(lb_algo_find(algo), &prm, err, sizeof(err));
	CHECK(s != NULL, "%s: %s", algo, err);
	if (!s)
		return -1;
	int rc = lb_sim_run(s, net, res, err, sizeof(err));
	CHECK(rc == 0, "%s: %s", algo, err);
	lb_sched_free(s);
	return res->seconds;
}

static double run(const struct lb_schedule *s, const struct lb_sim_net *net)
{
	char err[256];
	struct lb_sim_result res = { 0 };
	int rc = lb_sim_run(s, net, &res, err, sizeof(err));
	CHECK(rc == 0, "%s", err);
	return res.seconds;
}

/* 0 - 1 - 2 - 3 with a slow middle link that has latency too: the chain
 * streams at the middle link's pace, each latency paid once. */
static struct lb_platform *four_node_line(double o, double L)
{
	struct lb_platform *pf = lb_platform_new(4, 1);
	unsigned all = LB_LINK_LAT | LB_LINK_OCC | LB_LINK_BW;
	for (uint32_t u = 0; u < 3; u++) {
		struct lb_link l = { u == 1 ? L : 0, o, u == 1 ? BW / 2 : BW };
		CHECK(pf && lb_platform_set_link(pf, u, u + 1, 0, all, &l) == 0 &&
		      lb_platform_set_link(pf, u + 1, u, 0, all, &l) == 0, "platform link %u", u);
	}
	CHECK(lb_platform_seal(pf) == 0, "seal");
	return pf;
}

static void platform_per_pair(void)
{
	enum { S = 32 };
	const double o = 2e-6, L = 5e-4, n = 100000;
	struct lb_platform *pf = four_node_line(o, L);
	/* alpha, bandwidth and latency of the net are not read on a platform */
	struct lb_sim_net net = { .alpha = 1, .lane_bw = 1, .latency = 1, .platform = pf };
	struct lb_algo_params prm = { .ranks = 4, .lanes = 1, .bytes = S * (uint64_t)n,
				      .slice_bytes = (uint64_t)n };
	struct lb_sim_result res = { 0 };
	double fast = o + n / BW, slow = o + n / (BW / 2);
	double want = fast + slow + L + fast + (S - 1) * slow;
	double t = sim("chain", prm, &net, &res);
	CHECK(check_close(t, want, 1e-9), "platform chain: sim %.12g want %.12g", t, want);
	lb_platform_free(pf);
}

/* A SEND over a pair the platform has no link for fails, naming it. */
static void platform_nolink(void)
{
	char err[256] = "";
	struct lb_platform *pf = four_node_line(0, 0);
	struct lb_schedule *s = lb_sched_new("hand", 4, 0, 1, 1, 10);
	lb_sched_transfer(s, 0, 1, 0, 0, 1);
	lb_sched_transfer(s, 1, 3, 0, 0, 1); /* 1 - 3: no link */
	lb_sched_transfer(s, 1, 2, 0, 0, 1);
	lb_sched_finalize(s);
	struct lb_sim_net net = { .platform = pf };
	struct lb_sim_result res = { 0 };
	CHECK(lb_sim_run(s, &net, &res, err, sizeof(err)) != 0 &&
	      strstr(err, "rank 1 lane 0 sends to rank 3 over no link"), "no link: %s", err);
	lb_sched_free(s);
	s = lb_sched_new("hand", 3, 0, 1, 1, 10);
	lb_sched_transfer(s, 0, 1, 0, 0, 1);
	lb_sched_transfer(s, 1, 2, 0, 0, 1);
	lb_sched_finalize(s);
	CHECK(lb_sim_run(s, &net, &res, err, sizeof(err)) != 0 && strstr(err, "4 nodes"),
	      "platform of the wrong size: %s", err);
	lb_sched_free(s);
	lb_platform_free(pf);
}

/* A hand-built tree 0 -> {1, 2}, 1 -> 3 on four nodes with a bandwidth per
 * pair, one port per direction: each node sends every slice to its children in
 * turn, so the tree's period is max_u sum of T_{u,v} over u's children
 * (docs/papers.md#seed000-period), and S slices take S period plus the fill,
 * within 1 % + depth / S of S period (docs/papers.md#model-period). */
static void platform_tree_period(void)
{
	enum { S = 1000 };
	const double n = 50000, o = 1e-6;
	const uint32_t parent[] = { 0, 0, 0, 1 }; /* of 1, 2, 3 */
	const double bw[] = { 0, 2 * BW, BW, BW / 2 }; /* of the link into v */
	struct lb_platform *pf = lb_platform_new(4, 1);
	double outw[4] = { 0 };
	for (uint32_t v = 1; v < 4; v++) {
		struct lb_link l = { 0, o, bw[v] };
		CHECK(lb_platform_set_link(pf, parent[v], v, 0, LB_LINK_OCC | LB_LINK_BW, &l) == 0,
		      "link into %u", v);
		outw[parent[v]] += o + n / bw[v];
	}
	CHECK(lb_platform_seal(pf) == 0, "seal");
	double period = fmax(fmax(outw[0], outw[1]), fmax(outw[2], outw[3]));
	struct lb_schedule *s = lb_sched_new("hand", 4, 0, 1, S, (uint64_t)(S * n));
	for (uint32_t j = 0; j < S; j++)
		for (uint32_t v = 1; v < 4; v++)
			lb_sched_transfer(s, parent[v], v, 0, j, 1);
	lb_sched_finalize(s);
	struct lb_sim_net net = { .platform = pf };
	struct lb_sim_result res = { 0 };
	char err[256];
	CHECK(lb_sim_run(s, &net, &res, err, sizeof(err)) == 0, "%s", err);
	double ratio = res.seconds / (S * period);
	CHECK(ratio >= 1 && ratio <= 1.01 + 2.0 / S, "tree: sim / (S period) = %.6f", ratio);
	CHECK(check_close(res.period, period, 1e-9), "tree: sim period %.12g, evaluated %.12g",
	      res.period, period);
	lb_sched_free(s);
	lb_platform_free(pf);
}

/* A routed transfer 0 -> 2 through relay 1 (no link 0 - 2): its transit
 * copy, sent first, makes the block present at 1, which forwards it at T,
 * before its own delivery copy lands at 2 T.  Rank 2 holds it at 2 T (3 T
 * if only the delivery counted), rank 1 at T. */
static void transit_relay(void)
{
	const double n = 10000, o = 1e-6, T = o + n / BW;
	struct lb_platform *pf = lb_platform_new(3, 1);
	struct lb_link l = { 0, o, BW };
	for (uint32_t u = 0; u < 2; u++)
		CHECK(lb_platform_set_link(pf, u, u + 1, 0, LB_LINK_OCC | LB_LINK_BW, &l) == 0 &&
		      lb_platform_set_link(pf, u + 1, u, 0, LB_LINK_OCC | LB_LINK_BW, &l) == 0,
		      "link %u", u);
	CHECK(lb_platform_seal(pf) == 0, "seal");
	struct lb_schedule *s = lb_sched_new("hand", 3, 0, 1, 1, (uint64_t)n);
	lb_sched_transfer_flags(s, 0, 1, 0, 0, 0, LB_OP_TRANSIT);
	lb_sched_transfer_flags(s, 0, 1, 0, 0, 0, 0);
	lb_sched_transfer_flags(s, 1, 2, 0, 0, LB_OP_TRANSIT, 0);
	lb_sched_finalize(s);
	s->platform = pf;
	char err[256] = "";
	CHECK(lb_sched_validate(s, err, sizeof(err)) == 0, "routed schedule: %s", err);
	double done[3];
	struct lb_sim_net net = { .platform = pf };
	struct lb_sim_result res = { .rank_done = done };
	CHECK(lb_sim_run(s, &net, &res, err, sizeof(err)) == 0, "%s", err);
	CHECK(check_close(res.seconds, 2 * T, 1e-12) && check_close(done[1], T, 1e-12) &&
	      check_close(done[2], 2 * T, 1e-12), "transit: done %.12g %.12g, T %.12g",
	      done[1], done[2], T);
	lb_sched_free(s);
	lb_platform_free(pf);
}

/* Multi-port: the root of a star sends slice j to children 1, 2, 3 in
 * turn, its CPU busy `send` per send, each link T per slice, latency L.
 * CPU-bound (3 send >= T): the k-th send (from 0) starts at k send, so the
 * last ends at (3 S - 1) send + T + L.  Link-bound (3 send < T): slice j
 * goes to child c at j T + (c - 1) send, the last ends at
 * (S - 1) T + 2 send + T + L. */
static void multi_port_star(void)
{
	enum { S = 50 };
	const double n = 100000, o = 1e-6, L = 3e-4, T = o + n / BW;
	struct lb_platform *pf = lb_platform_new(4, 1);
	struct lb_link l = { L, o, BW };
	for (uint32_t c = 1; c < 4; c++)
		CHECK(lb_platform_set_link(pf, 0, c, 0, LB_LINK_LAT | LB_LINK_OCC | LB_LINK_BW,
					   &l) == 0, "link 0 %u", c);
	CHECK(lb_platform_seal(pf) == 0, "seal");
	struct lb_schedule *s = lb_sched_new("hand", 4, 0, 1, S, (uint64_t)(S * n));
	for (uint32_t j = 0; j < S; j++)
		for (uint32_t c = 1; c < 4; c++)
			lb_sched_transfer(s, 0, c, 0, j, 1);
	lb_sched_finalize(s);
	struct lb_sim_net net = { .platform = pf, .model = LB_PORT_MULTI };
	pf->node[0].send = T / 2;
	double want = (3 * S - 1) * (T / 2) + T + L, t = run(s, &net);
	CHECK(check_close(t, want, 1e-12), "multi-port, send binds: sim %.12g want %.12g", t, want);
	pf->node[0].send = T / 10;
	want = (S - 1) * T + 2 * (T / 10) + T + L, t = run(s, &net);
	CHECK(check_close(t, want, 1e-12), "multi-port, T binds: sim %.12g want %.12g", t, want);
	/* one port per lane sends to one child at a time: 3 S T + L */
	net.model = LB_PORT_PER_LANE;
	want = 3 * S * T + L, t = run(s, &net);
	CHECK(check_close(t, want, 1e-12), "per-lane star: sim %.12g want %.12g", t, want);
	lb_sched_free(s);
	lb_platform_free(pf);
}

/* One-port-uni on a chain 0 -> 1 -> 2: rank 1's single port receives and
 * forwards every slice, and is never idle from 0 until it has forwarded
 * the last one: 2 S T, against (S + 1) T with a send and a receive port. */
static void one_port_uni_chain(void)
{
	const double alpha = 3e-6, n = 65536, T = alpha + n / BW;
	for (uint32_t S = 1; S <= 256; S *= 4) {
		struct lb_algo_params prm = { .ranks = 3, .lanes = 1, .bytes = S * (uint64_t)n,
					      .slice_bytes = (uint64_t)n };
		struct lb_sim_net net = { .alpha = alpha, .lane_bw = BW };
		struct lb_sim_result res = { 0 };
		double duplex = sim("chain", prm, &net, &res);
		net.model = LB_PORT_ONE_PORT_UNI;
		double uni = sim("chain", prm, &net, &res);
		CHECK(check_close(duplex, (S + 1) * T, 1e-12), "per-lane chain S=%u: %.12g", S, duplex);
		CHECK(check_close(uni, 2 * S * T, 1e-12), "one-port-uni chain S=%u: %.12g want %.12g",
		      S, uni, 2 * S * T);
		CHECK(check_close(uni / duplex, 2.0 * S / (S + 1), 1e-12), "uni/duplex S=%u", S);
	}
}

static void bad_models(void)
{
	char err[256] = "";
	struct lb_schedule *s = lb_sched_new("hand", 2, 0, 1, 1, 10);
	lb_sched_transfer(s, 0, 1, 0, 0, 1);
	lb_sched_finalize(s);
	struct lb_sim_net net = { .alpha = 1e-6, .lane_bw = BW, .model = LB_PORT_MULTI };
	struct lb_sim_result res = { 0 };
	CHECK(lb_sim_run(s, &net, &res, err, sizeof(err)) != 0 && strstr(err, "needs a platform"),
	      "multi-port without a platform: %s", err);
	net.model = (enum lb_port_model)7;
	CHECK(lb_sim_run(s, &net, &res, err, sizeof(err)) != 0 && strstr(err, "port model 7"),
	      "unknown model: %s", err);
	lb_sched_free(s);
}

int main(void)
{
	platform_per_pair();
	platform_nolink();
	platform_tree_period();
	transit_relay();
	multi_port_star();
	one_port_uni_chain();
	bad_models();
	return check_status("sim-platform");
}
