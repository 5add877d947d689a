/* Size estimates made before anything is built (lanebench sim refuses a
 * sweep that cannot fit in memory): the block count is the builder's own
 * for every algorithm, the op count a lower bound of the real one, and
 * absurd inputs saturate instead of wrapping to small numbers. */
#include <stdint.h>

#include "algos/algos.h"
#include "check.h"
#include "model/sim.h"

static void against_builder(const struct lb_algo *a, uint32_t p, uint32_t k, uint64_t m,
			    uint64_t slice)
{
	struct lb_algo_params prm = { .ranks = p, .lanes = k, .bytes = m, .slice_bytes = slice,
				      .sites = 1 };
	struct lb_sched_estimate e;
	char err[256];
	lb_algo_estimate(a, &prm, 1, &e);
	struct lb_schedule *s = lb_algo_build(a, &prm, err, sizeof(err));
	CHECK(s != NULL, "%s p=%u: %s", a->name, p, err);
	if (!s)
		return;
	CHECK(e.blocks == s->nblocks, "%s p=%u m=%llu slice=%llu: estimate %llu blocks, built %u",
	      a->name, p, (unsigned long long)m, (unsigned long long)slice,
	      (unsigned long long)e.blocks, s->nblocks);
	CHECK(e.ops <= lb_sched_op_count(s), "%s p=%u: estimate %llu ops, built only %zu", a->name,
	      p, (unsigned long long)e.ops, lb_sched_op_count(s));
	CHECK(e.bytes >= e.ops * sizeof(struct lb_op), "%s p=%u: %llu bytes for %llu ops", a->name,
	      p, (unsigned long long)e.bytes, (unsigned long long)e.ops);
	lb_sched_free(s);
}

int main(void)
{
	static const uint32_t ranks[] = { 1, 2, 7, 16, 33 };
	static const uint64_t sizes[][2] = { { 4096, 65536 }, { 1 << 20, 65536 },
					     { 1000003, 4096 }, { 1 << 20, 0 } };
	for (size_t a = 0; a < lb_nalgos; a++)
		for (size_t p = 0; lb_algo_homogeneous_bcast(&lb_algos[a]) && p < sizeof(ranks) / sizeof(ranks[0]); p++)
			for (size_t m = 0; m < sizeof(sizes) / sizeof(sizes[0]); m++)
				for (uint32_t k = 1; k <= 2; k++)
					against_builder(&lb_algos[a], ranks[p], k, sizes[m][0],
							sizes[m][1]);

	/* van de Geijn: p chunks of at least one block each. */
	const struct lb_algo *vdg = lb_algo_find("vandegeijn");
	struct lb_algo_params big = { .ranks = 1u << 20, .lanes = 2, .bytes = 1ull << 30,
				      .slice_bytes = 65536, .sites = 1 };
	struct lb_sched_estimate e;
	lb_algo_estimate(vdg, &big, 0, &e);
	CHECK(e.blocks == 1u << 20, "vandegeijn 2^20 ranks: %llu blocks", (unsigned long long)e.blocks);
	CHECK(lb_sim_bytes(big.ranks, big.lanes, e.blocks, e.ops / 2) >= 8ull << 40,
	      "simulating 2^20 x 2^20 blocks: %llu bytes", (unsigned long long)lb_sim_bytes(big.ranks, big.lanes, e.blocks, e.ops / 2));

	/* 1 TiB in 1-byte slices on 2^20 ranks: 2^61 ops, whose bytes
	 * saturate instead of wrapping; 2^62 bytes' ops saturate too. */
	struct lb_algo_params absurd = { .ranks = 1u << 20, .lanes = 64, .bytes = 1ull << 40,
					 .slice_bytes = 1, .sites = 1 };
	lb_algo_estimate(lb_algo_find("chain"), &absurd, 1, &e);
	CHECK(e.ops == 2 * ((1ull << 20) - 1) << 40 && e.bytes == UINT64_MAX,
	      "absurd: ops %llu bytes %llu", (unsigned long long)e.ops, (unsigned long long)e.bytes);
	absurd.bytes = 1ull << 62;
	lb_algo_estimate(lb_algo_find("chain"), &absurd, 0, &e);
	CHECK(e.ops == UINT64_MAX && e.bytes == UINT64_MAX, "more absurd: ops %llu bytes %llu",
	      (unsigned long long)e.ops, (unsigned long long)e.bytes);
	CHECK(lb_sim_bytes(absurd.ranks, absurd.lanes, UINT64_MAX, 0) == UINT64_MAX, "sim bytes wrap");
	CHECK(lb_sim_bytes(2, 1, 1, UINT64_MAX) == UINT64_MAX, "sim bytes of 2^64 SENDs wrap");
	/* The simulator's copy of the SENDs is counted: 12 bytes each at least. */
	CHECK(lb_sim_bytes(2, 1, 1, 1000) >= lb_sim_bytes(2, 1, 1, 0) + 12000,
	      "sim bytes count the SENDs: %llu", (unsigned long long)lb_sim_bytes(2, 1, 1, 1000));
	return check_status("estimate");
}
