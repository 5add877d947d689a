/* klane's promises, for p = 1..1024 ranks and k = 1..4 lanes (argv[1]
 * "full"; "sample" keeps small p and the powers of two and their
 * neighbours for the quick suite):
 *  - every non-root rank receives exactly M / k bytes on each lane, one
 *    part from one peer (k = 1: both parts, M), and sends at most what it
 *    receives on each lane; the root sends M / k on each lane;
 *  - the simulator at 1 GiB, p = 1,024, 1 MiB slices: time / (M / (k B))
 *    <= 1.05 for k = 1..4;
 *  - the refined model is the simulator's time where the trees are full
 *    K-ary heaps, and within 5 % of it at every other p <= 64 (k = 1: an
 *    upper bound within 10 %). */
#include <stdlib.h>
#include <string.h>

#include "algos/algos.h"
#include "check.h"
#include "model/sim.h"

static const double ALPHA = 5e-6, BW = 1.25e9; /* lanebench sim's defaults */

static struct lb_schedule *build(uint32_t p, uint32_t k, uint64_t bytes, uint64_t slice)
{
	char err[256];
	struct lb_algo_params prm = { .ranks = p, .root = p / 3, .lanes = k,
				      .bytes = bytes, .slice_bytes = slice };
	struct lb_schedule *s = lb_algo_build(lb_algo_find("klane"), &prm, err, sizeof(err));
	CHECK(s != NULL, "klane p=%u k=%u: %s", p, k, err);
	return s;
}

/* Bytes of one (rank, lane), [0] sent and [1] received, and the distinct
 * peers it receives from (counted up to 3). */
static void lane_totals(const struct lb_schedule *s, uint32_t r, uint32_t l,
			uint64_t bytes[2], uint32_t *from)
{
	uint32_t n, seen[3];
	const struct lb_op *op = lb_lane_ops(s, r, l, &n);
	bytes[0] = bytes[1] = *from = 0;
	for (uint32_t i = 0; i < n; i++) {
		bytes[op[i].kind] += lb_range_bytes(s, op[i].first_block, op[i].nblocks);
		uint32_t j = 0;
		while (op[i].kind == LB_RECV && j < *from && seen[j] != op[i].peer)
			j++;
		if (op[i].kind == LB_RECV && j == *from && *from < 3)
			seen[(*from)++] = op[i].peer;
	}
}

static void check_rank(const struct lb_schedule *s, uint32_t r, uint64_t per_lane)
{
	uint32_t streams = s->lanes == 1 ? 2 : 1;
	for (uint32_t l = 0; l < s->lanes; l++) {
		uint64_t b[2];
		uint32_t from;
		lane_totals(s, r, l, b, &from);
		if (r == s->root) {
			CHECK(b[1] == 0 && b[0] == (s->ranks > 1 ? per_lane : 0), "p=%u k=%u root lane %u: sent %llu, received %llu",
			      s->ranks, s->lanes, l, (unsigned long long)b[0], (unsigned long long)b[1]);
			continue;
		}
		CHECK(b[1] == per_lane && from <= streams,
		      "p=%u k=%u rank %u lane %u: received %llu bytes from %u peers, want %llu",
		      s->ranks, s->lanes, r, l, (unsigned long long)b[1], from,
		      (unsigned long long)per_lane);
		CHECK(b[0] <= b[1], "p=%u k=%u rank %u lane %u: sends %llu > receives %llu",
		      s->ranks, s->lanes, r, l, (unsigned long long)b[0], (unsigned long long)b[1]);
	}
}

static int in_sample(uint32_t p)
{
	for (uint32_t two = 2; two <= 1024; two *= 2)
		if (p + 1 >= two && p <= two + 1)
			return 1;
	return p <= 40 || p == 1000;
}

/* 12 slices of 4 KiB: M and every part divisible for k = 1..4. */
static long lane_balance(int full)
{
	long n = 0;
	for (uint32_t p = 1; p <= 1024; p++)
		for (uint32_t k = 1; k <= 4; k++) {
			if (!full && !in_sample(p))
				continue;
			struct lb_schedule *s = build(p, k, 12 * 4096, 4096);
			if (!s)
				continue;
			CHECK(s->nblocks == 12, "p=%u k=%u: %u blocks", p, k, s->nblocks);
			for (uint32_t r = 0; r < p; r++)
				check_rank(s, r, 12 * 4096 / k);
			lb_sched_free(s);
			n++;
		}
	return n;
}

static double sim_seconds(const struct lb_schedule *s)
{
	char err[256];
	struct lb_sim_net net = { .alpha = ALPHA, .lane_bw = BW };
	struct lb_sim_result res = { 0 };
	CHECK(lb_sim_run(s, &net, &res, err, sizeof(err)) == 0, "sim: %s", err);
	return res.seconds;
}

static void near_bound(void)
{
	for (uint32_t k = 1; k <= 4; k++) {
		struct lb_schedule *s = build(1024, k, 1ull << 30, 1 << 20);
		if (!s)
			continue;
		double bound = (double)(1ull << 30) / (k * BW), t = sim_seconds(s);
		printf("klane p=1024 k=%u 1G slice 1M: sim %.6f s, M/(kB) %.6f s, ratio %.4f\n",
		       k, t, bound, t / bound);
		CHECK(t / bound <= 1.05, "k=%u: sim / (M/(kB)) = %.4f > 1.05", k, t / bound);
		lb_sched_free(s);
	}
}

/* Full heaps: n - 1 = p - 2 a multiple of K, every tree (n - 1) / K
 * interior ranks of K children.  With k = 1 the refined form is an upper
 * bound (a hop between trees of different colours takes one step, not two). */
static void refined(void)
{
	for (uint32_t k = 1; k <= 4; k++)
		for (uint32_t p = 2; p <= 64; p++) {
			struct lb_schedule *s = build(p, k, 32 << 20, 1 << 20);
			if (!s)
				continue;
			struct lb_cost_in in = { .ranks = p, .lanes = k, .bytes = 32 << 20,
						 .slice_bytes = 1 << 20, .latency = ALPHA, .lane_bw = BW };
			double t = sim_seconds(s), model = lb_cost_klane_refined(&in);
			uint32_t K = k < 2 ? 2 : k;
			if (k > 1 && (p - 2) % K == 0)
				CHECK(check_close(t, model, 1e-6), "p=%u k=%u: sim %.9g refined %.9g",
				      p, k, t, model);
			if (k == 1)
				CHECK(t / model > 0.9 && t / model < 1 + 1e-9,
				      "p=%u k=1: sim / refined %.4f", p, t / model);
			else
				CHECK(t / model > 0.95 && t / model < 1.05,
				      "p=%u k=%u: sim / refined %.4f", p, k, t / model);
			lb_sched_free(s);
		}
}

int main(int argc, char **argv)
{
	const char *extent = argc > 1 ? argv[1] : "full";
	int full = strcmp(extent, "full") == 0;
	if (!full && strcmp(extent, "sample") != 0) {
		fprintf(stderr, "usage: %s [full|sample]\n", argv[0]);
		return 2;
	}
	long n = lane_balance(full);
	printf("klane: %ld schedules with M/k on every lane (%s)\n", n, extent);
	near_bound();
	refined();
	return check_status("klane");
}
