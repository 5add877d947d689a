/* Seed 004 (HBSP^k): the closed forms against the values of
 * docs/papers.md#seed004-costs exactly, the machine read from a platform, and
 * every builder's schedule valid and simulated on platforms with sites, both
 * balances, both super^2 variants. */
#include <stdlib.h>

#include "algos/williams_parsons/hbsp.h"
#include "net/platform.h"
#include "check.h"
#include "model/sim.h"

/* A machine by hand in the paper's units (g = 1 per item, n items). */
struct hand {
	struct lb_hbsp_machine m;
	double r[8], c[8], cs[8], cc[2], L1[2];
	uint32_t site[8], order[8], first[3], coord[2], members[2];
};

static void hand_hbsp1(struct hand *h, const double *r, uint32_t root, int balanced)
{
	double inv = 0;
	for (uint32_t j = 0; j < 4; j++)
		inv += 1 / r[j];
	for (uint32_t j = 0; j < 4; j++) {
		h->r[j] = r[j];
		h->c[j] = balanced ? (1 / r[j]) / inv : 0.25;
		h->site[j] = 0, h->order[j] = j;
	}
	h->first[0] = 0, h->first[1] = 4, h->coord[0] = root, h->members[0] = 4;
	h->L1[0] = 0;
	h->m = (struct lb_hbsp_machine){
		.p = 4, .root = root, .sites = 1, .n = 1000, .g = 1, .r = h->r, .c = h->c,
		.cs = h->c, .cc = h->cc, .site = h->site, .order = h->order,
		.site_first = h->first, .coord = h->coord, .members = h->members,
		.L1 = h->L1, .L2 = 100,
	};
}

/* C.3, HBSP^1: r = (1, 1.5, 2, 2.5), n = 1000, g = 1 us, L = 100 us. */
static void appendix_c3_hbsp1(void)
{
	const double r[4] = { 1, 1.5, 2, 2.5 };
	struct hand h;
	hand_hbsp1(&h, r, 0, 0);
	double two = lb_hbsp_cost(LB_HBSP1_BCAST, &h.m), one = lb_hbsp_cost(LB_HBSP1_BCAST_1PHASE, &h.m);
	double gather = lb_hbsp_cost(LB_HBSP1_GATHER, &h.m);
	CHECK(two == 3700, "two-phase broadcast %.17g, C.3: 3700", two);
	CHECK(one == 4100, "one-phase broadcast %.17g, C.3: 4100", one);
	CHECK(gather == 1100, "gather, equal c: %.17g, C.3: 1100", gather);
	hand_hbsp1(&h, r, 0, 1);
	double balanced = lb_hbsp_cost(LB_HBSP1_GATHER, &h.m);
	CHECK(balanced == 1100, "gather, balanced c: %.17g, C.3: 1100", balanced);
	hand_hbsp1(&h, r, 3, 0); /* the slow root, r = 2.5 */
	double gather_s = lb_hbsp_cost(LB_HBSP1_GATHER, &h.m), two_s = lb_hbsp_cost(LB_HBSP1_BCAST, &h.m);
	CHECK(gather_s == 2600, "gather, slow root: %.17g, C.3: 2600", gather_s);
	CHECK(fabs(gather_s / gather - 2.36) < 0.005, "gather T_s/T_f %.4f, C.3: 2.36", gather_s / gather);
	CHECK(two_s == 5200, "two-phase broadcast, slow root: %.17g, C.3: 5200", two_s);
	CHECK(fabs(two_s / two - 1.41) < 0.005, "broadcast T_s/T_f %.4f, C.3: 1.41", two_s / two);
}

/* C.3, HBSP^2: clusters {1, 2, 3} (coordinator and root r = 1) and
 * {1.5, 2, 4} (coordinator 1.5), n = 600, g = 1, L_{1,c} = 10,
 * L_{2,0} = 100. */
static void hand_hbsp2(struct hand *h, enum lb_super2 super2)
{
	const double r[6] = { 1, 2, 3, 1.5, 2, 4 };
	for (uint32_t j = 0; j < 6; j++) {
		h->r[j] = r[j], h->c[j] = 1.0 / 6, h->cs[j] = 1.0 / 3;
		h->site[j] = j / 3, h->order[j] = j;
	}
	h->first[0] = 0, h->first[1] = 3, h->first[2] = 6;
	h->coord[0] = 0, h->coord[1] = 3, h->members[0] = h->members[1] = 3;
	h->cc[0] = h->cc[1] = 0.5, h->L1[0] = h->L1[1] = 10;
	h->m = (struct lb_hbsp_machine){
		.p = 6, .root = 0, .sites = 2, .n = 600, .g = 1, .r = h->r, .c = h->c,
		.cs = h->cs, .cc = h->cc, .site = h->site, .order = h->order,
		.site_first = h->first, .coord = h->coord, .members = h->members,
		.L1 = h->L1, .L2 = 100, .super2 = super2,
	};
}

static void appendix_c3_hbsp2(void)
{
	struct hand h;
	hand_hbsp2(&h, LB_SUPER2_1PHASE);
	double one = lb_hbsp_cost(LB_HBSP2_BCAST, &h.m), gather = lb_hbsp_cost(LB_HBSP2_GATHER, &h.m);
	hand_hbsp2(&h, LB_SUPER2_2PHASE);
	double two = lb_hbsp_cost(LB_HBSP2_BCAST, &h.m);
	CHECK(fabs(one - 4620) < 1e-9, "HBSP^2 broadcast, one-phase super^2: %.17g, C.3: 4620", one);
	CHECK(fabs(two - 5020) < 1e-9, "HBSP^2 broadcast, two-phase super^2: %.17g, C.3: 5020", two);
	CHECK(fabs(gather - 1160) < 1e-9, "HBSP^2 gather: %.17g, C.3: 1160", gather);
}

static struct lb_platform *parse(const char *text)
{
	char err[256] = "";
	struct lb_platform *pf = lb_platform_parse(text, "test", err, sizeof(err));
	CHECK(pf != NULL, "platform: %s", err);
	return pf;
}

/* The same HBSP^2 machine as a platform: 1 byte an item, B_fast = 1 MB/s
 * (g = 1 us), the closed forms in seconds. */
static const char *c3_platform =
	"nodes 6\n"
	"default bw 1MB/s\n"
	"node 1 rate 500000B/s\nnode 2 rate 333333.33333333333B/s\n"
	"node 3 rate 666666.66666666667B/s\nnode 4 rate 500000B/s\nnode 5 rate 250000B/s\n"
	"site 0 ranks 0-2\nsite 1 ranks 3-5\n"
	"barrier site 0 10us\nbarrier site 1 10us\nbarrier all 100us\n";

static void from_platform(void)
{
	struct lb_platform *pf = parse(c3_platform);
	struct lb_algo_params prm = { .ranks = 6, .lanes = 1, .bytes = 600, .platform = pf };
	struct { const char *algo; enum lb_super2 super2; double want_us; } cases[] = {
		{ "hbsp2-bcast", LB_SUPER2_1PHASE, 4620 },
		{ "hbsp2-bcast", LB_SUPER2_2PHASE, 5020 },
		{ "hbsp2-gather", LB_SUPER2_1PHASE, 1160 },
	};
	for (size_t i = 0; pf && i < sizeof(cases) / sizeof(cases[0]); i++) {
		prm.super2 = cases[i].super2;
		double t = lb_algo_find(cases[i].algo)->hbsp(&prm);
		CHECK(fabs(t * 1e6 - cases[i].want_us) < 1e-6, "%s from the platform: %.17g us, C.3: %g",
		      cases[i].algo, t * 1e6, cases[i].want_us);
	}
	struct lb_hbsp_machine m;
	CHECK(pf && lb_hbsp_machine_of(&prm, &m) == 0, "machine");
	if (pf) {
		CHECK(m.coord[0] == 0 && m.coord[1] == 3, "coordinators %u %u, want 0 3", m.coord[0], m.coord[1]);
		CHECK(fabs(m.r[5] - 4) < 1e-12 && fabs(m.g - 1e-6) < 1e-18, "r_5 %g, g %g", m.r[5], m.g);
		lb_hbsp_machine_free(&m);
	}
	lb_platform_free(pf);
}

/* 11 ranks in sites of 4, 5 and 2 (one listed out of order), speeds
 * spread; every builder, both balances and super^2 variants, several
 * roots: valid, and simulated. */
static const char *sites_platform =
	"nodes 11\nlanes 2\n"
	"default bw 1gbit occ 2us\n"
	"node 0 rate 300mbit\nnode 2 rate 600mbit\nnode 4 rate 200mbit\nnode 7 rate 800mbit\n"
	"node 9 rate 100mbit\n"
	"site 0 ranks 0-3\nsite 1 ranks 4-7,10\nsite 2 ranks 8-9\n"
	"barrier site 0 20us\nbarrier site 1 30us\nbarrier all 50us\n";

static void check_one(const char *algo, struct lb_algo_params *prm)
{
	char err[256] = "";
	struct lb_schedule *s = lb_algo_build(lb_algo_find(algo), prm, err, sizeof(err));
	CHECK(s != NULL, "%s root %u: %s", algo, prm->root, err);
	if (!s)
		return;
	CHECK(lb_sched_validate(s, err, sizeof(err)) == 0, "%s root %u balance %d super2 %d: %s",
	      algo, prm->root, prm->balance, prm->super2, err);
	struct lb_sim_net net = { .platform = prm->platform };
	struct lb_sim_result res = { 0 };
	CHECK(lb_sim_run_free(s, &net, &res, err, sizeof(err)) == 0, "%s sim: %s", algo, err);
	double hbsp = lb_algo_find(algo)->hbsp(prm);
	CHECK(res.seconds > 0 && hbsp > 0, "%s: sim %g s, hbsp %g s", algo, res.seconds, hbsp);
}

static void builders(void)
{
	const char *algos[] = { "hbsp1-gather", "hbsp2-gather", "hbsp1-bcast",
				"hbsp1-bcast-1phase", "hbsp2-bcast" };
	struct lb_platform *pf = parse(sites_platform);
	struct lb_algo_params prm = { .ranks = 11, .lanes = 2, .bytes = 1000003, .platform = pf };
	for (uint32_t root = 0; pf && root < 11; root += 3)
		for (int bal = 0; bal < 2; bal++)
			for (int sup = 0; sup < 2; sup++)
				for (size_t a = 0; a < sizeof(algos) / sizeof(algos[0]); a++) {
					prm.root = root, prm.balance = bal, prm.super2 = sup;
					check_one(algos[a], &prm);
				}
	prm.bytes = 10; /* fewer bytes than ranks: refused, named */
	char err[200] = "";
	CHECK(lb_algo_build(lb_algo_find("hbsp1-gather"), &prm, err, sizeof(err)) == NULL &&
	      strstr(err, "10 bytes cannot give each of 11 ranks") != NULL, "tiny message: %s", err);
	lb_platform_free(pf);
}

int main(void)
{
	appendix_c3_hbsp1();
	appendix_c3_hbsp2();
	from_platform();
	builders();
	return check_status("hbsp");
}
