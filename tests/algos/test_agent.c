/* Seed 001's closed forms and planner (algos/wu/agent.h) on the seed's 8-node
 * network (docs/papers.md#seed001-experiment: 4 fast, 4 slow; microseconds, so
 * every sum is exact): the intermediate values at m = 3, the whole section 6
 * table under both assignment tie rules, the printed T_R(i, n - 1) variant at m
 * = 5, and the published agent counts (GB 4, tied with 3 at 1270 us; TS 3).
 *
 * Bandwidth (lb_agent_model_from_platform's rate term): on 8 nodes of equal
 * overheads, 4 of them capped at a quarter of the others' rate (the slow
 * ones numbered first, so that ids alone would make them the agents; the
 * platform of scripts/bench-allgather otherwise), T_send and T_recv carry
 * bytes / rate, the planner takes only fast nodes as agents and fewer than
 * all 8 for both algorithms at 32 B to 2 MiB (it took all 8 when it read no
 * rate), and at 2 MiB (where a message is in flight longer than
 * 7 sends' overheads) an agent issues all its sends before its first
 * receive (the CPU's overhead, not the NIC's time, spaces them); at 0 bytes the
 * caps change nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/wu/agent.h"
#include "check.h"

#define N 8

static double SEND[N], RECV[N], END[N * N];

/* Nodes 0-3 fast (UltraSparc 2), 4-7 slow (UltraSparc 1). */
static struct lb_agent_model wu8(void)
{
	for (int u = 0; u < N; u++) {
		SEND[u] = u < 4 ? 90 : 160, RECV[u] = u < 4 ? 70 : 130;
		for (int v = 0; v < N; v++)
			END[u * N + v] = u == v ? 0 : (u < 4) + (v < 4) == 2 ? 250
						    : (u < 4) + (v < 4) == 1 ? 350 : 450;
	}
	return (struct lb_agent_model){ .n = N, .send = SEND, .recv = RECV, .end = END };
}

struct row {
	uint32_t m;
	uint32_t clients[N]; /* per agent */
	double gb[3], ts[3]; /* T1, T2, T3 */
};

static const struct row FEWEST[] = {
	{ 1, { 7 }, { 670, 0, 980 }, { 670, 0, 980 } },
	{ 2, { 3, 3 }, { 420, 250, 620 }, { 460, 250, 620 } },
	{ 3, { 2, 2, 1 }, { 420, 320, 530 }, { 460, 320, 530 } },
	{ 4, { 1, 1, 1, 1 }, { 350, 480, 440 }, { 550, 480, 440 } },
	{ 5, { 1, 1, 1, 0, 0 }, { 350, 1160, 440 }, { 1160, 610, 440 } },
	{ 6, { 1, 1, 0, 0, 0, 0 }, { 350, 1450, 440 }, { 1450, 520, 440 } },
	{ 7, { 1, 0, 0, 0, 0, 0, 0 }, { 350, 1740, 440 }, { 1740, 540, 440 } },
	{ 8, { 0 }, { 0, 2030, 0 }, { 2030, 0, 0 } },
};

/* Lowest id differs from fewest clients at m = 3 only. */
static const struct row LOWEST_M3 = { 3, { 3, 1, 1 }, { 420, 320, 620 }, { 530, 320, 620 } };

static void check_row(const struct lb_agent_model *md, const struct row *r, enum lb_agent_tie tie)
{
	struct lb_agent_plan p;
	const char *rule = tie == LB_AGENT_TIE_FEWEST ? "fewest" : "lowest";
	CHECK(lb_agent_plan(md, r->m, tie, LB_AGENT_COUNT_N, &p) == 0, "m %u: plan failed", r->m);
	if (!p.agent)
		return;
	for (uint32_t a = 0; a < r->m; a++)
		CHECK(p.agent[a] == a && p.first[a + 1] - p.first[a] == r->clients[a],
		      "%s m %u agent %u: node %u with %u clients, want node %u with %u", rule, r->m,
		      a, p.agent[a], p.first[a + 1] - p.first[a], a, r->clients[a]);
	double ts3[3] = { p.t1[LB_AGENT_TS], p.t2[LB_AGENT_TS], p.t3 };
	double gb3[3] = { p.t1[LB_AGENT_GB], p.t2[LB_AGENT_GB], p.t3 };
	for (int s = 0; s < 3; s++)
		CHECK(gb3[s] == r->gb[s] && ts3[s] == r->ts[s], "%s m %u T%d: GB %g TS %g, want %g %g",
		      rule, r->m, s + 1, gb3[s], ts3[s], r->gb[s], r->ts[s]);
	CHECK(p.all[LB_AGENT_GB] == r->gb[0] + r->gb[1] + r->gb[2] &&
		      p.all[LB_AGENT_TS] == r->ts[0] + r->ts[1] + r->ts[2],
	      "%s m %u: T_all %g %g", rule, r->m, p.all[LB_AGENT_GB], p.all[LB_AGENT_TS]);
	lb_agent_plan_free(&p);
}

/* C.1: m = 3, fewest clients: clients F4, S1, S2, S3, S4 (nodes 3-7) go to
 * agents 0, 1, 2, 0, 1 with T_r 250, 350, 350, 350, 420; T_g 350, 420,
 * 350; T_B = 320 for every agent; k = 2 sends before the first receive. */
static void check_c1(const struct lb_agent_model *md)
{
	static const uint32_t client[5] = { 3, 6, 4, 7, 5 }; /* by cluster */
	static const double t_r[5] = { 250, 350, 350, 420, 350 };
	static const double t_g[3] = { 350, 420, 350 };
	static const uint32_t agents[3] = { 0, 1, 2 };
	static const unsigned char msg[3] = { 1, 1, 1 };
	struct lb_agent_plan p;
	if (lb_agent_plan(md, 3, LB_AGENT_TIE_FEWEST, LB_AGENT_COUNT_N, &p)) {
		CHECK(0, "C.1: plan failed");
		return;
	}
	for (int i = 0; i < 5; i++)
		CHECK(p.client[i] == client[i] && p.t_r[i] == t_r[i], "C.1 client %d: node %u at %g",
		      i, p.client[i], p.t_r[i]);
	for (int a = 0; a < 3; a++) {
		CHECK(p.t_g[a] == t_g[a], "C.1 T_g(%d) = %g", a, p.t_g[a]);
		double tb = lb_agent_bcast(md, agents, msg, 3, (uint32_t)a, LB_AGENT_COUNT_N);
		CHECK(tb == 320, "C.1 T_B(%d) = %g", a, tb);
		CHECK(lb_agent_sends_first(md, agents, 3, (uint32_t)a) == 2, "C.1 k(%d)", a);
	}
	CHECK(p.all[LB_AGENT_GB] == 1270 && p.all[LB_AGENT_TS] == 1310, "C.1 T_all %g %g",
	      p.all[LB_AGENT_GB], p.all[LB_AGENT_TS]);
	lb_agent_plan_free(&p);
}

/* The printed T_R(i, n - 1): TS at m = 5 has T2 = 500, T_all = 2100. */
static void check_printed_count(const struct lb_agent_model *md)
{
	struct lb_agent_plan p;
	if (lb_agent_plan(md, 5, LB_AGENT_TIE_FEWEST, LB_AGENT_COUNT_N_MINUS_1, &p)) {
		CHECK(0, "n-1: plan failed");
		return;
	}
	CHECK(p.t2[LB_AGENT_TS] == 500 && p.all[LB_AGENT_TS] == 2100, "n-1 m 5: T2 %g T_all %g",
	      p.t2[LB_AGENT_TS], p.all[LB_AGENT_TS]);
	CHECK(p.all[LB_AGENT_GB] == 1950, "n-1 m 5: GB %g", p.all[LB_AGENT_GB]);
	lb_agent_plan_free(&p);
}

/* Line 10: the published (4, 3) under fewest clients, under both counts; lowest
 * id gives (4, 2) (docs/papers.md#seed001-experiment: it contradicts the paper
 * for TS). */
static void check_choice(const struct lb_agent_model *md)
{
	for (int c = 0; c < 2; c++) {
		enum lb_agent_count count = (enum lb_agent_count)c;
		uint32_t gb = lb_agent_choose(md, LB_AGENT_GB, LB_AGENT_TIE_FEWEST, count);
		uint32_t ts = lb_agent_choose(md, LB_AGENT_TS, LB_AGENT_TIE_FEWEST, count);
		CHECK(gb == 4 && ts == 3, "fewest, count %d: GB %u TS %u, want 4 3", c, gb, ts);
		gb = lb_agent_choose(md, LB_AGENT_GB, LB_AGENT_TIE_LOWEST, count);
		ts = lb_agent_choose(md, LB_AGENT_TS, LB_AGENT_TIE_LOWEST, count);
		CHECK(gb == 4 && ts == 2, "lowest, count %d: GB %u TS %u, want 4 2", c, gb, ts);
	}
}

/* The same network as a platform (lb_agent_wu8, seconds): its text parses
 * back to the same text (the node lines' recv included), and the model read
 * from the parsed copy gives the table's m = 3 row and the published choice. */
static void check_platform(void)
{
	char err[256];
	struct lb_platform *pf = lb_agent_wu8(), *back = NULL;
	char *text = pf ? lb_platform_format(pf) : NULL, *again = NULL;
	CHECK(text != NULL, "wu8: no platform");
	if (text && (back = lb_platform_parse(text, "wu8", err, sizeof(err))))
		again = lb_platform_format(back);
	CHECK(again && strcmp(text, again) == 0, "wu8: round trip differs:\n%s\n%s", text,
	      again ? again : err);
	CHECK(text && strstr(text, "node 7 send 0.00016000000000000001 recv 0.00012999999999999999"), "wu8: no slow recv in\n%s", text ? text : "");
	struct lb_agent_model md;
	struct lb_agent_plan p;
	if (back && lb_agent_model_from_platform(back, 1, 0, &md) == 0) {
		CHECK(lb_agent_end(&md, 0, 4) == 350e-6 && lb_agent_end(&md, 5, 6) == 450e-6 &&
			      md.recv[7] == 130e-6, "wu8: model %g %g %g", lb_agent_end(&md, 0, 4),
		      lb_agent_end(&md, 5, 6), md.recv[7]);
		CHECK(lb_agent_plan(&md, 3, LB_AGENT_TIE_FEWEST, LB_AGENT_COUNT_N, &p) == 0 &&
			      check_close(p.all[LB_AGENT_GB], 1270e-6, 1e-12) &&
			      check_close(p.all[LB_AGENT_TS], 1310e-6, 1e-12),
		      "wu8 m 3: %g %g", p.all[LB_AGENT_GB], p.all[LB_AGENT_TS]);
		lb_agent_plan_free(&p);
		CHECK(lb_agent_choose(&md, LB_AGENT_GB, LB_AGENT_TIE_FEWEST, LB_AGENT_COUNT_N) == 4 &&
			      lb_agent_choose(&md, LB_AGENT_TS, LB_AGENT_TIE_FEWEST, LB_AGENT_COUNT_N) == 3,
		      "wu8: choice in seconds");
		lb_agent_model_free(&md);
	} else {
		CHECK(0, "wu8: parse or model failed: %s", err);
	}
	free(text), free(again);
	lb_platform_free(pf), lb_platform_free(back);
}

/* 8 nodes, 10 us overheads, 2 lanes, links at FAST_RATE; nodes 0-3 capped
 * at a quarter of it (slow), 4-7 at it. */
#define FAST_RATE 23907500.0
static struct lb_platform *fast_slow(void)
{
	struct lb_platform *pf = lb_platform_new(8, 2);
	pf->dflt = (struct lb_link){ .bw = FAST_RATE };
	for (uint32_t u = 0; u < 8; u++) {
		pf->node[u].send = pf->node[u].recv = 10e-6;
		pf->node[u].rate = u < 4 ? FAST_RATE / 4 : FAST_RATE;
	}
	CHECK(lb_platform_seal(pf) == 0, "fast_slow: seal");
	return pf;
}

/* Every agent of the plan for m agents is a fast node (4-7). */
static int fast_agents(const struct lb_agent_model *md, uint32_t m)
{
	struct lb_agent_plan p;
	int fast = lb_agent_plan(md, m, LB_AGENT_TIE_FEWEST, LB_AGENT_COUNT_N, &p) == 0;
	for (uint32_t a = 0; fast && a < m; a++)
		fast = p.agent[a] >= 4;
	lb_agent_plan_free(&p);
	return fast;
}

static void check_rates(void)
{
	struct lb_platform *pf = fast_slow();
	struct lb_agent_model md;
	for (uint64_t bytes = 32; bytes <= 2u << 20; bytes *= 16) {
		if (lb_agent_model_from_platform(pf, 1, bytes, &md)) {
			CHECK(0, "rates %llu: no model", (unsigned long long)bytes);
			continue;
		}
		double slow = 10e-6 + (double)bytes / (FAST_RATE / 4), fast = 10e-6 + bytes / FAST_RATE;
		CHECK(check_close(md.send[0], slow, 1e-12) && check_close(md.recv[3], slow, 1e-12) &&
			      check_close(md.send[4], fast, 1e-12) && check_close(md.recv[7], fast, 1e-12),
		      "rates %llu: T_send %g %g T_recv %g %g, want %g (slow) %g (fast)",
		      (unsigned long long)bytes, md.send[0], md.send[4], md.recv[3], md.recv[7], slow, fast);
		CHECK(check_close(lb_agent_end(&md, 4, 0), (double)bytes / (FAST_RATE / 4), 1e-12),
		      "rates %llu: T_end 4 -> 0 %g", (unsigned long long)bytes, lb_agent_end(&md, 4, 0));
		for (int g = 0; g < LB_AGENT_NALGOS; g++) {
			uint32_t m = lb_agent_choose(&md, (enum lb_agent_algo)g, LB_AGENT_TIE_FEWEST,
						     LB_AGENT_COUNT_N);
			CHECK(m >= 1 && m <= 4 && fast_agents(&md, m),
			      "rates %llu %s: %u agents (or a slow one among them), want 1-4 fast",
			      (unsigned long long)bytes, g ? "TS" : "GB", m);
		}
		CHECK(fast_agents(&md, 4), "rates %llu: m 4's agents not nodes 4-7",
		      (unsigned long long)bytes);
		static const uint32_t all[8] = { 4, 5, 6, 7, 0, 1, 2, 3 };
		CHECK(bytes < 1u << 20 || lb_agent_sends_first(&md, all, 8, 0) == 7,
		      "rates %llu: %u sends before the first receive, want all 7 (a send's CPU is "
		      "its overhead; its bytes queue at the cap)", (unsigned long long)bytes,
		      lb_agent_sends_first(&md, all, 8, 0));
		lb_agent_model_free(&md);
	}
	if (lb_agent_model_from_platform(pf, 1, 0, &md) == 0) {
		CHECK(md.send[0] == 10e-6 && md.recv[0] == 10e-6 && lb_agent_end(&md, 4, 0) == 0,
		      "rates at 0 bytes: %g %g %g", md.send[0], md.recv[0], lb_agent_end(&md, 4, 0));
		lb_agent_model_free(&md);
	}
	CHECK(lb_agent_model_from_platform(pf, 0, 32, &md) == -1 &&
		      lb_agent_model_from_platform(pf, 3, 32, &md) == -1,
	      "lanes 0 and 3 of a 2-lane platform accepted");
	lb_platform_free(pf);
}

int main(void)
{
	struct lb_agent_model md = wu8();
	for (size_t i = 0; i < sizeof(FEWEST) / sizeof(FEWEST[0]); i++) {
		check_row(&md, &FEWEST[i], LB_AGENT_TIE_FEWEST);
		check_row(&md, FEWEST[i].m == 3 ? &LOWEST_M3 : &FEWEST[i], LB_AGENT_TIE_LOWEST);
	}
	check_c1(&md);
	check_printed_count(&md);
	check_choice(&md);
	check_platform();
	check_rates();
	return check_status("test_agent");
}
