/* Seed 003 section 6.2 in simulation: 32 nodes, two NICs each.  The paper
 * reports: at large messages binary about 2x and binomial about 4x the
 * multi-lane time, the chain close to multi-lane (128 MB and up); at small
 * messages multi-lane about equal to binary, binary slightly faster.
 * Network: gigabit lanes, 50 us per hop, 128 KiB slices. */
#include "algos/algos.h"
#include "check.h"
#include "model/sim.h"

static double run(const char *algo, uint64_t bytes)
{
	char err[256];
	struct lb_algo_params prm = { .ranks = 32, .lanes = 2, .bytes = bytes,
				      .slice_bytes = 128 << 10 };
	struct lb_schedule *s = lb_algo_build(lb_algo_find(algo), &prm, err, sizeof(err));
	CHECK(s != NULL, "%s: %s", algo, err);
	if (!s)
		return -1;
	struct lb_sim_net net = { .alpha = 50e-6, .lane_bw = 125e6 };
	struct lb_sim_result res = { 0 };
	CHECK(lb_sim_run(s, &net, &res, err, sizeof(err)) == 0, "%s: %s", algo, err);
	lb_sched_free(s);
	return res.seconds;
}

int main(void)
{
	printf("%12s %12s %14s %16s %16s %16s\n", "bytes", "multilane_s",
	       "chain/multi", "binary/multi", "binomial/multi", "multi/binary");
	for (uint64_t m = 4 << 10; m <= (512ull << 20); m *= 8) {
		double ml = run("multilane", m), ch = run("chain", m);
		double bi = run("binary", m), bn = run("binomial", m);
		printf("%12llu %12.6f %14.3f %16.3f %16.3f %16.3f\n",
		       (unsigned long long)m, ml, ch / ml, bi / ml, bn / ml, ml / bi);
		if (m >= (128ull << 20)) {
			CHECK(bi / ml > 1.8 && bi / ml < 2.2, "binary/multilane %.3f at %llu", bi / ml,
			      (unsigned long long)m);
			/* Table 1's log p (l + M/b) gives log2 32 = 5 for the model;
			 * the paper's measured figure reads about 4. */
			CHECK(bn / ml > 3.5 && bn / ml < 5.5, "binomial/multilane %.3f", bn / ml);
			CHECK(ch / ml > 0.97 && ch / ml < 1.06, "chain/multilane %.3f", ch / ml);
		}
		if (m <= (64 << 10))
			CHECK(ml / bi >= 1.0 && ml / bi < 1.3, "small: multilane/binary %.3f", ml / bi);
	}
	return check_status("seed003-section-6.2");
}
