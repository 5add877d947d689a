/* Seed 003's sites (section 3.2, section 6; docs/papers.md#seed003-sites): the
 * site map (unequal sites), the WAN's latency paid once per path, not per
 * slice. */
#include <stdlib.h>

#include "algos/algos.h"
#include "algos/sites.h"
#include "check.h"
#include "repro/repro003.h"
#include "model/sim.h"

/* The network of docs/papers.md#model-timing: 1 Gbit/s lanes, l = 50 us, L = 10
 * ms, in flight. */
static const struct lb_sim_net WAN_NET = {
	.lane_bw = 125e6, .latency = 50e-6, .wan_latency = 10e-3, .sites = 2,
};

static struct lb_schedule *build(const char *algo, struct lb_algo_params prm)
{
	char err[256];
	struct lb_schedule *s = lb_algo_build(lb_algo_find(algo), &prm, err, sizeof(err));
	CHECK(s != NULL, "%s: %s", algo, err);
	if (s)
		CHECK(lb_sched_validate(s, err, sizeof(err)) == 0, "%s: %s", algo, err);
	return s;
}

static double simulate(const char *algo, struct lb_algo_params prm, struct lb_sim_net net,
		       double *rank_done)
{
	char err[256];
	struct lb_schedule *s = build(algo, prm);
	if (!s)
		return -1;
	net.site_first = prm.site_first;
	struct lb_sim_result res = { .rank_done = rank_done };
	CHECK(lb_sim_run(s, &net, &res, err, sizeof(err)) == 0, "%s: %s", algo, err);
	lb_sched_free(s);
	return res.seconds;
}

/* Latency in flight (docs/papers.md#model-timing): p = 32, k = 2, 128 KiB
 * slices, 256 MiB over two sites: the section-6 form gives 1.08 s; charging L
 * per slice gave 11.3 s. */
static void wan_latency_once(void)
{
	struct lb_algo_params prm = { .ranks = 32, .lanes = 2, .bytes = 256ull << 20,
				      .slice_bytes = 128 << 10, .sites = 2 };
	struct lb_cost_in in = { .ranks = 32, .lanes = 2, .bytes = prm.bytes,
				 .latency = 50e-6, .lane_bw = 125e6, .sites = 2,
				 .wan_latency = 10e-3 };
	const char *algos[] = { "multilane", "chain" };
	for (size_t i = 0; i < 2; i++) {
		double t = simulate(algos[i], prm, WAN_NET, NULL);
		double form = lb_algo_find(algos[i])->cost_two_site(&in);
		CHECK(check_close(form, 1.084, 1e-3), "%s two-site form %.6g", algos[i], form);
		CHECK(t > form && t < 1.05 * form, "%s: sim %.6g s, section 6 %.6g s",
		      algos[i], t, form);
	}
}

static void site_map_parse(void)
{
	char err[256];
	uint32_t *first = NULL, sites = 0;
	CHECK(lb_sites_parse_sizes("16,8,8", &first, &sites, err, sizeof(err)) == 0, "%s", err);
	CHECK(sites == 3 && first[0] == 0 && first[1] == 16 && first[2] == 24 && first[3] == 32,
	      "16,8,8 -> %u sites", sites);
	for (uint32_t r = 0; first && r < 32; r++)
		CHECK(lb_sites_find(first, 32, 3, r) == (r < 16 ? 0u : r < 24 ? 1u : 2u),
		      "rank %u in site %u", r, lb_sites_find(first, 32, 3, r));
	free(first);
	const char *bad[] = { "16,,8", "16,0", "x", "16,8a", "" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		CHECK(lb_sites_parse_sizes(bad[i], &first, &sites, err, sizeof(err)) == -1,
		      "'%s' accepted", bad[i]);
		CHECK(strstr(err, "site size '") != NULL, "'%s': %s", bad[i], err);
	}
	struct lb_algo_params prm = { .ranks = 31, .lanes = 2, .bytes = 1, .sites = 3,
				      .site_first = (const uint32_t[]){ 0, 16, 24, 32 } };
	CHECK(lb_algo_check(lb_algo_find("multilane"), &prm, err, sizeof(err)) == -1 &&
	      strstr(err, "not the 31 ranks"), "a map of 32 ranks for 31: %s", err);
}

/* The simulator's WAN follows the map: chain 0 -> 1 -> 2 -> 3, one WAN
 * hop either between ranks 0 and 1 or between 2 and 3. */
static void sim_follows_map(void)
{
	struct lb_algo_params prm = { .ranks = 4, .lanes = 1, .bytes = 1000, .sites = 2 };
	struct lb_sim_net net = { .lane_bw = 1e6, .latency = 0, .wan_latency = 1, .sites = 2 };
	double done[4];
	prm.site_first = (const uint32_t[]){ 0, 1, 4 };
	simulate("chain", prm, net, done);
	CHECK(check_close(done[1], 1.001, 1e-9), "sites 1,3: rank 1 at %.9g", done[1]);
	prm.site_first = (const uint32_t[]){ 0, 3, 4 };
	simulate("chain", prm, net, done);
	CHECK(check_close(done[1], 0.001, 1e-9) && check_close(done[3], 1.003, 1e-9),
	      "sites 3,1: ranks 1 and 3 at %.9g, %.9g", done[1], done[3]);
}

/* Transfers (one per block) whose ends are in different sites. */
static uint64_t wan_sends(const struct lb_schedule *s, const uint32_t *first, uint32_t sites)
{
	uint64_t n = 0;
	for (uint32_t r = 0; r < s->ranks; r++)
		for (uint32_t i = 0; i < s->rank[r].count; i++) {
			const struct lb_op *op = &s->rank[r].ops[i];
			n += op->kind == LB_SEND && lb_sites_find(first, s->ranks, sites, r) !=
				lb_sites_find(first, s->ranks, sites, op->peer);
		}
	return n;
}

/* Multilane over sites 16,8,8: each later site's two tree roots are fed
 * across the WAN, nothing else crosses it. */
static void multilane_unequal(void)
{
	const uint32_t first[] = { 0, 16, 24, 32 };
	struct lb_algo_params prm = { .ranks = 32, .lanes = 2, .bytes = 4, .slice_bytes = 1,
				      .sites = 3, .site_first = first };
	struct lb_schedule *s = build("multilane", prm);
	if (!s)
		return;
	CHECK(wan_sends(s, first, 3) == 2 * 2 * 2, "multilane 16,8,8: %llu WAN sends (want 8)",
	      (unsigned long long)wan_sends(s, first, 3));
	lb_sched_free(s);
}

/* rank r's SEND of block b to dst (any lane)? */
static int sends(const struct lb_schedule *s, uint32_t r, uint32_t dst, uint32_t b)
{
	for (uint32_t i = 0; i < s->rank[r].count; i++) {
		const struct lb_op *op = &s->rank[r].ops[i];
		if (op->kind == LB_SEND && op->peer == dst && op->first_block <= b &&
		    b < op->first_block + op->nblocks)
			return 1;
	}
	return 0;
}

/* docs/papers.md#seed003-sites, p = 29 over two sites: site 1 is ranks 0-14
 * (root 0, Tree A A_1..A_7 = ranks 1-7, Tree B B_1..B_7 = 8-14), site 2 ranks
 * 15-28 (Tree A 15-21, Tree B 22-28).  Section 3.2: A_7 (rank 7) sends half A
 * (block 0) to site 2's Tree A root (15), B_7 (rank 14) half B (block 1) to
 * Tree B's root (22).  With one-second hops and nothing else, the last rank is
 * done after 7 hops: root, A_1, A_3, A_7, 15, two levels, the swap (the other
 * tree's last leaf fed them one hop later: 8). */
static void multilane_feeder(void)
{
	struct lb_algo_params prm = { .ranks = 29, .lanes = 2, .bytes = 2, .slice_bytes = 1,
				      .sites = 2 };
	struct lb_schedule *s = build("multilane", prm);
	if (!s)
		return;
	CHECK(sends(s, 7, 15, 0) && !sends(s, 14, 15, 0), "half A to rank 15 not from A_7 (rank 7)");
	CHECK(sends(s, 14, 22, 1) && !sends(s, 7, 22, 1), "half B to rank 22 not from B_7 (rank 14)");
	CHECK(wan_sends(s, NULL, 2) == 2, "%llu WAN sends (want 2)",
	      (unsigned long long)wan_sends(s, NULL, 2));
	lb_sched_free(s);
	struct lb_sim_net net = { .alpha = 1, .lane_bw = 1e12, .sites = 2, .wan_alpha = 1 };
	double t = simulate("multilane", prm, net, NULL);
	CHECK(check_close(t, 7, 1e-9), "p = 29, two sites: %.9g one-second hops (want 7)", t);
}

/* Section 6's binary and binomial over sites: one edge per site pair
 * crosses the WAN (root -> each other site's first rank), the message
 * crosses it once per site; the simulated time is the section-6 form's. */
static void site_aware_trees(void)
{
	const char *algos[] = { "binary", "binomial" };
	const uint32_t first[] = { 0, 16, 24, 32 };
	for (size_t i = 0; i < 2; i++) {
		struct lb_algo_params prm = { .ranks = 32, .lanes = 2, .bytes = 64, .slice_bytes = 8,
					      .sites = 2 };
		struct lb_schedule *s = build(algos[i], prm);
		if (s)
			CHECK(wan_sends(s, NULL, 2) == 8 && sends(s, 0, 16, 0) && sends(s, 0, 16, 7),
			      "%s, two sites: %llu WAN sends (want 8, root -> 16)", algos[i],
			      (unsigned long long)wan_sends(s, NULL, 2));
		lb_sched_free(s);
		prm.sites = 3, prm.site_first = first, prm.root = 20;
		s = build(algos[i], prm);
		if (s)
			CHECK(wan_sends(s, first, 3) == 16 && sends(s, 20, 24, 0) && sends(s, 20, 0, 0),
			      "%s, sites 16,8,8, root 20: %llu WAN sends (want 16: 20 -> 24, 20 -> 0)",
			      algos[i], (unsigned long long)wan_sends(s, first, 3));
		lb_sched_free(s);
		struct lb_algo_params big = { .ranks = 32, .lanes = 2, .bytes = 256ull << 20,
					      .slice_bytes = 128 << 10, .sites = 2 };
		struct lb_cost_in in = { .ranks = 32, .lanes = 2, .bytes = big.bytes,
					 .latency = 50e-6, .lane_bw = 125e6, .sites = 2,
					 .wan_latency = 10e-3 };
		double t = simulate(algos[i], big, WAN_NET, NULL);
		double form = lb_algo_find(algos[i])->cost_two_site(&in);
		CHECK(check_close(t, form, 0.02), "%s two sites, 256 MiB: sim %.6g s, section 6 %.6g s",
		      algos[i], t, form);
	}
}

struct verdicts {
	unsigned rows, judged, outside;
};

static int count_verdict(void *ctx, const struct lb_result *r, char *err, size_t len)
{
	(void)err, (void)len;
	struct verdicts *v = ctx;
	const char *verdict = lb_result_val(r, "verdict")->s;
	v->rows++;
	v->judged += strcmp(verdict, "-") != 0;
	if (strcmp(verdict, "outside") == 0) {
		v->outside++;
		fprintf(stderr, "fig %s, %llu bytes, %s: %.4g outside [%.4g, %.4g]\n",
			lb_result_val(r, "figure")->s,
			(unsigned long long)lb_result_val(r, "message_bytes")->u,
			lb_result_val(r, "quantity")->s, lb_result_val(r, "ours")->d,
			lb_result_val(r, "target_low")->d, lb_result_val(r, "target_high")->d);
	}
	return 0;
}

/* repro seed003-fig8 over 1 MiB .. 512 MiB: Fig. 8's ratios within the ranges
 * of docs/papers.md#reproductions from 128 MiB on, Fig. 7's gap constant within
 * 5 %. */
static void repro_fig8(void)
{
	uint64_t sizes[10];
	for (int i = 0; i < 10; i++)
		sizes[i] = 1ull << (20 + i);
	struct verdicts v = { 0 };
	const struct lb_sink sink = { .row = count_verdict, .ctx = &v };
	struct lb_repro003_params p = { .sizes = sizes, .nsizes = 10 };
	char err[256];
	CHECK(lb_repro003_run(&p, &sink, err, sizeof(err)) == 0, "repro: %s", err);
	CHECK(v.rows == 10 * 4 + 10 && v.judged == 3 * 4 + 10 && v.outside == 0,
	      "repro: %u rows, %u judged, %u outside (want 50, 22, 0)", v.rows, v.judged,
	      v.outside);
}

int main(void)
{
	repro_fig8();
	site_aware_trees();
	multilane_feeder();
	wan_latency_once();
	site_map_parse();
	sim_follows_map();
	multilane_unequal();
	return check_status("seed003-sites");
}
