/* Seed 002's heuristics as registry algorithms (algos/fkaier/coord_platform.h): on the
 * four clusters of docs/papers.md#seed002-example made a platform (sites of two
 * ranks whose one transfer takes T_k), every heuristic's model time is the
 * example's makespan, its schedule validates, and the simulator (per-lane, one
 * slice) gives that same time under both clocks -- V1 on two lanes, V3 on one.
 * On generated g5k/x5/x10 platforms (net/clustergen.h) every heuristic with
 * every homogeneous site algorithm validates, and with binomial (the
 * generator's T_k) the simulator meets the model.  Refusals name what is
 * wrong. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/clustergen.h"
#include "algos/fkaier/coord_platform.h"
#include "net/platform.h"
#include "check.h"
#include "model/sim.h"

#define M 1000000ull
static const double G[4][4] = { { 0, 2, 5, 4 }, { 2, 0, 1, 6 }, { 5, 1, 0, 3 }, { 4, 6, 3, 0 } };
static const double T[4] = { 3, 2, 8, 5 };
static const double C2_MAKESPAN[] = { 17, 13, 13, 15, 13, 15, -1, 15 }; /* coord.h's order */

static void link2(struct lb_platform *pf, uint32_t u, uint32_t v, double lat, double bw)
{
	struct lb_link l = { .lat = lat, .bw = bw };
	lb_platform_set_link(pf, u, v, LB_PLATFORM_ALL_LANES, LB_LINK_LAT | LB_LINK_BW, &l);
	lb_platform_set_link(pf, v, u, LB_PLATFORM_ALL_LANES, LB_LINK_LAT | LB_LINK_BW, &l);
}

/* Site k = ranks 2k, 2k + 1, coordinator 2k; seconds = C.2's units. */
static struct lb_platform *c2_platform(void)
{
	struct lb_platform *pf = lb_platform_new(8, 2);
	pf->site = calloc(4, sizeof(*pf->site));
	pf->sites = 4;
	for (uint32_t k = 0; k < 4; k++) {
		pf->site[k] = (struct lb_site){ .coordinator = 2 * k, .local_bcast = T[k] };
		pf->node[2 * k].site = pf->node[2 * k + 1].site = k;
		link2(pf, 2 * k, 2 * k + 1, 0, M / T[k]);
		for (uint32_t j = k + 1; j < 4; j++)
			link2(pf, 2 * k, 2 * j, 1, M / G[k][j]);
	}
	lb_platform_seal(pf);
	return pf;
}

static double simulate(const struct lb_algo *a, const struct lb_algo_params *prm)
{
	char err[300] = "";
	struct lb_schedule *s = lb_algo_build(a, prm, err, sizeof(err));
	struct lb_sim_net net = { .platform = prm->platform };
	struct lb_sim_result res = { 0 };
	int rc = !s || lb_sched_validate(s, err, sizeof(err)) || lb_sim_run(s, &net, &res, err, sizeof(err));
	CHECK(rc == 0, "%s (site %s, k %u): %s", a->name, prm->site_algo ? prm->site_algo : "default",
	      prm->lanes, err);
	lb_sched_free(s);
	return rc ? NAN : res.seconds;
}

static void check_c2(void)
{
	struct lb_platform *pf = c2_platform();
	for (int h = 0; h < LB_COORD_HEURISTICS; h++) {
		const struct lb_algo *a = lb_algo_find(lb_coord_name(h));
		for (uint32_t k = 1; a && k <= 2; k++) {
			struct lb_algo_params prm = { .ranks = 8, .lanes = k, .bytes = M, .platform = pf };
			double model = a->makespan(&prm), sim = simulate(a, &prm);
			CHECK(C2_MAKESPAN[h] < 0 || k == 1 || model == C2_MAKESPAN[h],
			      "%s: model %g, C.2 %g", a->name, model, C2_MAKESPAN[h]);
			CHECK(fabs(sim - model) <= 1e-9 * model, "%s k %u: sim %.12g, model %.12g",
			      a->name, k, sim, model);
		}
	}
	lb_platform_free(pf);
}

static void check_generated(enum lb_clustergen_setting setting)
{
	struct lb_clustergen g;
	char err[300];
	lb_clustergen_defaults(&g, setting);
	g.clusters = 6, g.seed = 11 + setting;
	struct lb_platform *pf = lb_clustergen_make(&g, err, sizeof(err));
	static const char *const SITE[] = { "binomial", "chain", "binary", "multilane", "klane",
					    "vandegeijn" };
	for (int h = 0; pf && h < LB_COORD_HEURISTICS; h++)
		for (size_t a = 0; a < sizeof(SITE) / sizeof(SITE[0]); a++)
			for (uint32_t k = 1; k <= 2; k++) {
				struct lb_algo_params prm = { .ranks = pf->nodes, .root = h % 3 ? 0 : 4,
							      .lanes = k, .bytes = g.bytes,
							      .slice_bytes = a ? g.bytes / 4 : 0,
							      .platform = pf, .site_algo = SITE[a] };
				const struct lb_algo *al = lb_algo_find(lb_coord_name(h));
				double sim = simulate(al, &prm), model = al->makespan(&prm);
				CHECK(a || fabs(sim - model) <= 1e-9 * model, "%s %s k %u root %u: sim %.12g, model %.12g",
				      al->name, lb_clustergen_setting_name(setting), k, prm.root, sim, model);
			}
	lb_platform_free(pf);
}

static void refused(const struct lb_algo_params *prm, const char *want)
{
	char err[300] = "";
	CHECK(lb_algo_check(lb_algo_find("mostcrit"), prm, err, sizeof(err)) == -1 && strstr(err, want),
	      "want '%s', got '%s'", want, err);
}

static void check_refusals(void)
{
	struct lb_platform *pf = c2_platform();
	struct lb_algo_params prm = { .ranks = 8, .lanes = 2, .bytes = M, .platform = pf,
				      .site_algo = "nope" };
	refused(&prm, "--site-algo nope: no such algorithm");
	prm.site_algo = NULL, prm.root = 3; /* not a coordinator: no links to the others */
	refused(&prm, "sites 0 and 1: no link from coordinator 0 to root 3 on lane 1");
	prm.root = 0;
	prm.site_algo = "lp-grow";
	refused(&prm, "a platform algorithm cannot run inside a site");
	prm.site_algo = "allgather-ring"; /* was accepted: an invalid schedule */
	refused(&prm, "--site-algo allgather-ring: an allgather, not a broadcast");
	prm.site_algo = NULL, prm.platform = NULL;
	refused(&prm, "needs --platform");
	struct lb_platform *bare = lb_platform_new(8, 2);
	struct lb_link all = { .bw = 1e6 };
	bare->dflt = all;
	prm.platform = bare;
	refused(&prm, "needs a platform with sites");
	pf->node[7].site = LB_PLATFORM_NO_SITE;
	prm.platform = pf;
	refused(&prm, "rank 7 is in no site");
	pf->node[7].site = 3, pf->node[6].site = 2; /* site 2 of three ranks, site 3 of one */
	prm.site_algo = "vandegeijn", prm.slice_bytes = M / 4;
	refused(&prm, "it needs one block count on every site");
	lb_platform_free(pf);
	lb_platform_free(bare);
	struct lb_clustergen g;
	char err[200] = "";
	lb_clustergen_defaults(&g, LB_CLUSTERGEN_G5K);
	g.lanes = 300; /* named: the message used to give only the range */
	CHECK(!lb_clustergen_make(&g, err, sizeof(err)) && strstr(err, "lanes 300: must be 1..255"),
	      "clusters of 300 lanes: %s", err);
}

int main(void)
{
	check_c2();
	for (int s = LB_CLUSTERGEN_G5K; s <= LB_CLUSTERGEN_X10; s++)
		check_generated((enum lb_clustergen_setting)s);
	check_refusals();
	return check_status("coord-platform");
}
