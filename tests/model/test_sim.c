/* The simulator against closed forms where they are exact, and its
 * invariants: every non-root rank receives exactly M bytes. */
#include <stdlib.h>

#include "algos/algos.h"
#include "check.h"
#include "model/sim.h"

static const double ALPHA = 3e-6, BW = 1.25e9;

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

/* Pipelined chain, S slices: (p - 2 + ceil(S / k)) (alpha + M / (S B)). */
static void chain_closed_form(void)
{
	struct lb_sim_net net = { .alpha = ALPHA, .lane_bw = BW };
	for (uint32_t k = 1; k <= 3; k++)
		for (uint32_t p = 2; p <= 40; p += 7)
			for (uint32_t S = 1; S <= 64; S *= 4) {
				uint64_t M = (uint64_t)S * 65536;
				struct lb_algo_params prm = { .ranks = p, .root = p / 2, .lanes = k,
							      .bytes = M, .slice_bytes = 65536 };
				struct lb_sim_result res = { 0 };
				double t = sim("chain", prm, &net, &res);
				double per_lane = (S + k - 1) / k;
				double want = (p - 2 + per_lane) * (ALPHA + (double)M / S / BW);
				CHECK(check_close(t, want, 1e-9), "chain p=%u k=%u S=%u: sim %.12g closed %.12g",
				      p, k, S, t, want);
				struct lb_cost_in in = { .ranks = p, .lanes = k, .bytes = M,
							 .slice_bytes = 65536, .latency = ALPHA, .lane_bw = BW };
				CHECK(check_close(lb_cost_chain_refined(&in), want, 1e-12),
				      "refined chain model p=%u k=%u S=%u", p, k, S);
			}
}

/* Pipelined binary and multilane at full trees: the refined forms are exact. */
static void trees_closed_form(void)
{
	struct lb_sim_net net = { .alpha = ALPHA, .lane_bw = BW };
	uint32_t ps[] = { 3, 7, 15, 31, 63 };
	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		struct lb_algo_params prm = { .ranks = ps[i], .lanes = 2,
					      .bytes = 32 << 20, .slice_bytes = 1 << 20 };
		struct lb_cost_in in = { .ranks = ps[i], .lanes = 2, .bytes = 32 << 20,
					 .slice_bytes = 1 << 20, .latency = ALPHA, .lane_bw = BW };
		struct lb_sim_result res = { 0 };
		double t = sim("binary", prm, &net, &res);
		CHECK(check_close(t, lb_cost_binary_refined(&in), 1e-9),
		      "binary p=%u: sim %.9g refined %.9g", ps[i], t, lb_cost_binary_refined(&in));
		t = sim("multilane", prm, &net, &res);
		CHECK(check_close(t, lb_cost_multilane_refined(&in), 1e-9),
		      "multilane p=%u: sim %.9g refined %.9g", ps[i], t,
		      lb_cost_multilane_refined(&in));
	}
}

/* Every algorithm moves exactly (p - 1) M bytes and finishes every rank. */
static void conservation(void)
{
	struct lb_sim_net net = { .alpha = ALPHA, .lane_bw = BW };
	for (size_t a = 0; a < lb_nalgos; a++)
		for (uint32_t p = 1; lb_algo_homogeneous_bcast(&lb_algos[a]) && p <= 33; p += 4) {
			double done[33];
			struct lb_algo_params prm = { .ranks = p, .root = p - 1, .lanes = 2,
						      .bytes = 1000003, .slice_bytes = 65536 };
			struct lb_sim_result res = { .rank_done = done };
			double t = sim(lb_algos[a].name, prm, &net, &res);
			CHECK(res.bytes_moved == (uint64_t)(p - 1) * prm.bytes,
			      "%s p=%u moved %llu bytes", lb_algos[a].name, p,
			      (unsigned long long)res.bytes_moved);
			CHECK(done[p - 1] == 0, "%s: root done at %g", lb_algos[a].name, done[p - 1]);
			CHECK(res.period >= 0 && res.period <= t, "%s p=%u period %g", lb_algos[a].name,
			      p, res.period);
			for (uint32_t r = 0; r + 1 < p; r++)
				CHECK(done[r] > 0 && done[r] <= t, "%s p=%u rank %u done %g of %g",
				      lb_algos[a].name, p, r, done[r], t);
		}
}

/* One slow rank (half bandwidth on every lane) paces the whole chain; a WAN
 * hop with latency L is paid once plus as the pipeline's slowest stage. */
static void heterogeneous_and_wan(void)
{
	enum { P = 6, S = 16 };
	uint64_t M = S * 100000ull;
	double alpha[P], bw[P];
	for (int r = 0; r < P; r++)
		alpha[r] = ALPHA, bw[r] = r == 3 ? BW / 2 : BW;
	struct lb_sim_net net = { .alpha = ALPHA, .lane_bw = BW, .rank_alpha = alpha, .rank_bw = bw };
	struct lb_algo_params prm = { .ranks = P, .lanes = 1, .bytes = M, .slice_bytes = M / S };
	struct lb_sim_result res = { 0 };
	double fast = ALPHA + (double)M / S / BW, slow = ALPHA + (double)M / S / (BW / 2);
	/* hops 2->3 and 3->4 are slow: 3 fast + 2 slow hops, S - 1 slow beats */
	double want = 3 * fast + 2 * slow + (S - 1) * slow;
	double t = sim("chain", prm, &net, &res);
	CHECK(check_close(t, want, 1e-9), "slow rank: sim %.12g want %.12g", t, want);

	const double L = 2e-3;
	struct lb_sim_net wan = { .alpha = ALPHA, .lane_bw = BW, .sites = 2, .wan_alpha = L };
	double hop_wan = L + (double)M / S / BW;
	want = (P - 2) * fast + hop_wan + (S - 1) * hop_wan;
	t = sim("chain", prm, &wan, &res);
	CHECK(check_close(t, want, 1e-9), "wan hop: sim %.12g want %.12g", t, want);
}

/* Latency is in flight: a slice waits for it once per hop, the next slice
 * is sent meanwhile.  Rank i (from the root) holds slice j (from 0) at
 * i (T + L) + j T, so the chain ends at (p - 1)(T + L) + (S - 1) T. */
static void latency_once_per_path(void)
{
	const double L = 1e-3;
	for (uint32_t p = 2; p <= 30; p += 7)
		for (uint32_t S = 1; S <= 64; S *= 4) {
			uint64_t M = (uint64_t)S * 65536;
			struct lb_algo_params prm = { .ranks = p, .lanes = 1, .bytes = M,
						      .slice_bytes = 65536 };
			struct lb_sim_net net = { .alpha = ALPHA, .lane_bw = BW, .latency = L };
			struct lb_sim_result res = { 0 };
			double T = ALPHA + 65536 / BW;
			double want = (p - 1) * (T + L) + (S - 1) * T;
			double t = sim("chain", prm, &net, &res);
			CHECK(check_close(t, want, 1e-9), "latency p=%u S=%u: sim %.12g want %.12g",
			      p, S, t, want);
			CHECK(S == 1 ? res.period == 0 : check_close(res.period, T, 1e-9),
			      "chain period p=%u S=%u: %.12g, T %.12g", p, S, res.period, T);
		}
}

static void bad_input(void)
{
	char err[256] = "";
	struct lb_schedule *s = lb_sched_new("hand", 2, 0, 1, 1, 10);
	lb_sched_transfer(s, 1, 0, 0, 0, 1); /* rank 1 sends what it never has */
	lb_sched_finalize(s);
	struct lb_sim_net net = { .alpha = ALPHA, .lane_bw = BW };
	struct lb_sim_result res = { 0 };
	CHECK(lb_sim_run(s, &net, &res, err, sizeof(err)) != 0 && strstr(err, "stuck: rank 1 lane 0"),
	      "stuck schedule: %s", err);
	net.lane_bw = 0;
	CHECK(lb_sim_run(s, &net, &res, err, sizeof(err)) != 0 && strstr(err, "bandwidth 0"),
	      "zero bandwidth: %s", err);
	net.lane_bw = BW;
	net.alpha = -1;
	CHECK(lb_sim_run(s, &net, &res, err, sizeof(err)) != 0 && strstr(err, "alpha -1"),
	      "negative alpha: %s", err);
	lb_sched_free(s);
}

int main(void)
{
	chain_closed_form();
	trees_closed_form();
	conservation();
	heterogeneous_and_wan();
	latency_once_per_path();
	bad_input();
	return check_status("sim");
}
