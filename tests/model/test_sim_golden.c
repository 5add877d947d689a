/* The simulator's results pinned to the bit: simulated seconds, period,
 * transfers and bytes of a few configurations as main's simulator (commit
 * 6fef506, before the lean simulator of issue 32) computed them.  A change
 * to how the simulator stores its state must not move a single result.
 * Each is run twice: from the whole schedule, and from its SENDs alone
 * (lb_algo_params.sends_only, as `lanebench sim` builds it).
 * Run with an argument, it prints the table instead of checking it (how
 * the values below were made, with the old simulator). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "algos/algos.h"
#include "check.h"
#include "model/sim.h"

struct golden {
	const char *algo;
	uint32_t ranks, lanes;
	uint64_t bytes, slice;
	enum lb_port_model model;
	uint32_t sites;
	double seconds, period; /* main's, as hex floats */
	uint64_t transfers, bytes_moved;
};

/* 10 Gbit/s lanes, 5 us: sim's defaults; sites add a slower WAN. */
static struct lb_sim_net net_of(const struct golden *g)
{
	return (struct lb_sim_net){ .alpha = 5e-6, .lane_bw = 1.25e9, .latency = 1e-6,
				    .sites = g->sites, .wan_alpha = 2e-5, .wan_bw = 2.5e8,
				    .wan_latency = 1e-4, .model = g->model };
}

static int run(const struct golden *g, int sends_only, struct lb_sim_result *res)
{
	struct lb_algo_params prm = { .ranks = g->ranks, .lanes = g->lanes, .bytes = g->bytes,
				      .slice_bytes = g->slice, .sites = g->sites,
				      .sends_only = sends_only };
	struct lb_sim_net net = net_of(g);
	char err[256];
	struct lb_schedule *s = lb_algo_build(lb_algo_find(g->algo), &prm, err, sizeof(err));
	CHECK(s != NULL, "%s p=%u: %s", g->algo, g->ranks, err);
	if (!s)
		return -1;
	int rc = lb_sim_run_free(s, &net, res, err, sizeof(err));
	CHECK(rc == 0, "%s p=%u: %s", g->algo, g->ranks, err);
	return rc;
}

static struct golden table[] = {
#include "sim_golden.inc"
};

int main(int argc, char **argv)
{
	int print = argc > 1;
	for (size_t i = 0; i < 2 * sizeof(table) / sizeof(table[0]); i++) {
		const struct golden *g = &table[i / 2];
		int sends_only = i % 2;
		struct lb_sim_result res = { 0 };
		if ((print && sends_only) || run(g, sends_only, &res))
			continue;
		if (print) {
			printf("{ \"%s\", %u, %u, %" PRIu64 "ull, %" PRIu64 "ull, %d, %u, %a, %a, %" PRIu64
			       "ull, %" PRIu64 "ull },\n",
			       g->algo, g->ranks, g->lanes, g->bytes, g->slice, (int)g->model, g->sites,
			       res.seconds, res.period, res.transfers, res.bytes_moved);
			continue;
		}
		CHECK(res.seconds == g->seconds && res.period == g->period &&
			      res.transfers == g->transfers && res.bytes_moved == g->bytes_moved,
		      "%s p=%u k=%u m=%" PRIu64 " slice=%" PRIu64 " model %d sites %u%s: "
		      "%a s period %a, %" PRIu64 " transfers %" PRIu64 " bytes; main: %a s period %a, %"
		      PRIu64 " transfers %" PRIu64 " bytes",
		      g->algo, g->ranks, g->lanes, g->bytes, g->slice, (int)g->model, g->sites,
		      sends_only ? " (SENDs only)" : "", res.seconds, res.period, res.transfers, res.bytes_moved, g->seconds, g->period,
		      g->transfers, g->bytes_moved);
	}
	return print ? 0 : check_status("sim-golden");
}
