/* Seed 001's section 6 table recomputed with the planner (repro001.h). */
#include "repro001.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "algos/wu/agent_coll.h"
#include "net/platform.h"
#include "model/sim.h"

#define NODES 8

/* The model's expected values (us; docs/papers.md#seed001-experiment): T1, T2,
 * T3 per m, GB then TS, under the fewest-clients rule and T_R(i, n); the
 * lowest-id rule differs at m = 3 only, the printed count at TS m = 5 only. */
static const double REF_FEWEST[NODES][2][3] = {
	{ { 670, 0, 980 }, { 670, 0, 980 } },
	{ { 420, 250, 620 }, { 460, 250, 620 } },
	{ { 420, 320, 530 }, { 460, 320, 530 } },
	{ { 350, 480, 440 }, { 550, 480, 440 } },
	{ { 350, 1160, 440 }, { 1160, 610, 440 } },
	{ { 350, 1450, 440 }, { 1450, 520, 440 } },
	{ { 350, 1740, 440 }, { 1740, 540, 440 } },
	{ { 0, 2030, 0 }, { 2030, 0, 0 } },
};
static const double REF_LOWEST_M3[2][3] = { { 420, 320, 620 }, { 530, 320, 620 } };
static const double REF_PRINTED_TS_M5_T2 = 500;

/* The paper's best agent counts [001 section 6], and what the
 * lowest-id rule picks instead (docs/papers.md#seed001-planner). */
static const uint32_t PAPER_BEST[2] = { 4, 3 };
static const uint32_t REF_LOWEST_BEST[2] = { 4, 2 };

static const char *const ALGO[2] = { "gather-broadcast", "two-step" };
static const char *const TIE[2] = { "fewest-clients", "lowest-id" };

static const struct lb_col columns[] = {
	{ LB_COLUMN("algorithm", LB_COL_TEXT),
	  .table = { { LB_SHOW_TEXT, "algorithm", -16,
		       .legend = "the Cluster-Agent algorithm: gather-broadcast or two-step (docs/papers.md#seed001)" } } },
	{ LB_COLUMN("tie_rule", LB_COL_TEXT),
	  .table = { { LB_SHOW_TEXT, "ties", -14,
		       .legend = "how clients are assigned on a tie: fewest-clients (then lowest id) or lowest-id" } } },
	{ LB_COLUMN("count_reading", LB_COL_TEXT) },
	{ LB_COLUMN("agents", LB_COL_UINT),
	  .table = { { LB_SHOW_UINT, "m", 2, .legend = "agents, m" } } },
	{ LB_COLUMN("clients_per_agent", LB_COL_TEXT),
	  .table = { { LB_SHOW_TEXT, "clients", -15,
		       .legend = "each agent's client count, fastest agent first" } } },
	{ LB_COLUMN("t1_seconds", LB_COL_REAL),
	  .table = { { LB_SHOW_FIXED, "T1 us", 6, 0, 1e-6,
		       .legend = "the cost model's stage 1 (gather, or Two-Step's own broadcast), microseconds" } } },
	{ LB_COLUMN("t2_seconds", LB_COL_REAL),
	  .table = { { LB_SHOW_FIXED, "T2 us", 6, 0, 1e-6,
		       .legend = "stage 2, the exchange between agents, microseconds" } } },
	{ LB_COLUMN("t3_seconds", LB_COL_REAL),
	  .table = { { LB_SHOW_FIXED, "T3 us", 6, 0, 1e-6,
		       .legend = "stage 3, the results back to the clients, microseconds" } } },
	{ LB_COLUMN("t_all_seconds", LB_COL_REAL),
	  .table = { { LB_SHOW_FIXED, "T_all us", 8, 0, 1e-6,
		       .legend = "T1 + T2 + T3, microseconds" } } },
	{ LB_COLUMN("spec_t_all_seconds", LB_COL_REAL),
	  .table = { { LB_SHOW_FIXED, "ref us", 7, 0, 1e-6,
		       .legend = "the T_all the project's reading of the paper expects for this row (docs/papers.md#seed001-experiment), microseconds" } } },
	{ LB_COLUMN("model_verdict", LB_COL_TEXT),
	  .table = { { LB_SHOW_TEXT, "model", -5,
		       .legend = "PASS when T1, T2 and T3 equal the expected ones, else FAIL" } } },
	{ LB_COLUMN("chosen", LB_COL_TEXT),
	  .table = { { LB_SHOW_TEXT, "best", -4,
		       .legend = "* on the m the planner picks (least T_all, ties to the larger m)" } } },
	{ LB_COLUMN("paper_best_agents", LB_COL_UINT),
	  .table = { { LB_SHOW_UINT, "paper", 5,
		       .legend = "the paper's choice of m: 4 for gather-broadcast, 3 for two-step" } } },
	{ LB_COLUMN("paper_claim", LB_COL_TEXT) },
	{ LB_COLUMN("verdict", LB_COL_TEXT),
	  .table = { { LB_SHOW_TEXT, "verdict", -11,
		       .legend = "on the chosen row: PASS when it is the paper's m, DISCREPANCY for the lowest-id rule's two-step choice of 2, else FAIL" } } },
	{ LB_COLUMN("sim_seconds", LB_COL_REAL),
	  .table = { { LB_SHOW_FIXED, "sim us", 6, 0, 1e-6,
		       .legend = "the row's plan as a schedule in the simulator's LogP mode (sim --model logp), microseconds" } } },
};

#define NCOLUMNS (sizeof(columns) / sizeof(columns[0]))

const struct lb_col *lb_repro001_columns(size_t *ncols)
{
	*ncols = NCOLUMNS;
	return columns;
}

/* The expected T1, T2, T3 (seconds) of one row. */
static void spec_row(int algo, int tie, uint32_t m, enum lb_agent_count count, double t[3])
{
	const double *us = tie == LB_AGENT_TIE_LOWEST && m == 3 ? REF_LOWEST_M3[algo]
								 : REF_FEWEST[m - 1][algo];
	for (int s = 0; s < 3; s++)
		t[s] = us[s] * 1e-6;
	if (algo == LB_AGENT_TS && m == 5 && count == LB_AGENT_COUNT_N_MINUS_1)
		t[1] = REF_PRINTED_TS_M5_T2 * 1e-6;
}

/* "2/2/1" (no commas: a CSV field as it is): each agent's client count. */
static void clients_text(const struct lb_agent_plan *p, char *buf, size_t len)
{
	size_t at = 0;
	buf[0] = 0;
	for (uint32_t a = 0; a < p->m && at < len; a++)
		at += (size_t)snprintf(buf + at, len - at, "%s%u", a ? "/" : "",
				       p->first[a + 1] - p->first[a]);
}

/* The choice's claim and verdict on the chosen row ("-" elsewhere). */
static void judge_choice(int algo, int tie, uint32_t m, uint32_t best, const char **claim,
			 const char **verdict)
{
	*claim = "-", *verdict = "-";
	if (m != best)
		return;
	*claim = algo == LB_AGENT_GB ? "Fig. 4: four agents best for Gather-Broadcast (the model: 3 and 4 tie at 1270 us; ties to the larger m)"
				     : "Fig. 4: three agents best for Two-Step";
	if (best == PAPER_BEST[algo])
		*verdict = "PASS";
	else
		*verdict = tie == LB_AGENT_TIE_LOWEST && best == REF_LOWEST_BEST[algo]
				   ? "DISCREPANCY" : "FAIL";
}

/* The plan's schedule in the simulator's LogP mode on pf (0-byte messages,
 * T_end = lat as the closed form reads it): seconds, or NaN (no memory). */
static double simulate(const struct lb_platform *pf, const struct lb_agent_model *md,
		       const struct lb_agent_plan *plan, int algo)
{
	struct lb_algo_params prm = { .ranks = md->n, .lanes = 1, .bytes = 0, .platform = pf };
	struct lb_sim_net net = { .platform = pf, .model = LB_PORT_LOGP };
	struct lb_sim_result res = { 0 };
	char err[256];
	struct lb_schedule *s = lb_agent_schedule(&prm, md, plan, (enum lb_agent_algo)algo);
	int rc = !s || lb_sched_finalize(s) || lb_sim_run(s, &net, &res, err, sizeof(err));
	lb_sched_free(s);
	return rc ? NAN : res.seconds;
}

static int emit_row(const struct lb_repro001_params *p, const struct lb_platform *pf,
		    const struct lb_agent_model *md, const struct lb_agent_plan *plan,
		    int algo, int tie, uint32_t best, const struct lb_sink *sink, char *err,
		    size_t len)
{
	double spec[3];
	char clients[64];
	const char *claim, *verdict;
	spec_row(algo, tie, plan->m, p->count, spec);
	int equal = lb_agent_cost_tie(plan->t1[algo], spec[0]) &&
		    lb_agent_cost_tie(plan->t2[algo], spec[1]) && lb_agent_cost_tie(plan->t3, spec[2]);
	clients_text(plan, clients, sizeof(clients));
	judge_choice(algo, tie, plan->m, best, &claim, &verdict);
	const union lb_val v[NCOLUMNS] = {
		{ .s = ALGO[algo] }, { .s = TIE[tie] },
		{ .s = p->count == LB_AGENT_COUNT_N ? "n" : "n-1" }, { .u = plan->m },
		{ .s = clients }, { .d = plan->t1[algo] }, { .d = plan->t2[algo] }, { .d = plan->t3 },
		{ .d = plan->all[algo] }, { .d = spec[0] + spec[1] + spec[2] },
		{ .s = equal ? "PASS" : "FAIL" }, { .s = plan->m == best ? "*" : "" },
		{ .u = PAPER_BEST[algo] }, { .s = claim }, { .s = verdict },
		{ .d = simulate(pf, md, plan, algo) },
	};
	const struct lb_result r = { .cols = columns, .ncols = NCOLUMNS, .vals = v };
	return sink->row(sink->ctx, &r, err, len);
}

/* Every m for one (algorithm, tie rule). */
static int run_series(const struct lb_repro001_params *p, const struct lb_platform *pf,
		      const struct lb_agent_model *md, int algo, int tie,
		      const struct lb_sink *sink, char *err, size_t len)
{
	uint32_t best = lb_agent_choose(md, (enum lb_agent_algo)algo, (enum lb_agent_tie)tie,
					p->count);
	for (uint32_t m = 1; m <= md->n; m++) {
		struct lb_agent_plan plan;
		if (best == 0 || lb_agent_plan(md, m, (enum lb_agent_tie)tie, p->count, &plan)) {
			snprintf(err, len, "seed001: out of memory");
			return -1;
		}
		int rc = emit_row(p, pf, md, &plan, algo, tie, best, sink, err, len);
		lb_agent_plan_free(&plan);
		if (rc)
			return -1;
	}
	return 0;
}

int lb_repro001_run(const struct lb_repro001_params *p, const struct lb_sink *sink,
		    char *err, size_t errlen)
{
	struct lb_platform *pf = lb_agent_wu8();
	struct lb_agent_model md;
	if (!pf || lb_agent_model_from_platform(pf, 1, 0, &md)) {
		lb_platform_free(pf);
		snprintf(err, errlen, "seed001: out of memory");
		return -1;
	}
	int rc = lb_sink_start(sink, p->prov, columns, NCOLUMNS, err, errlen);
	for (int algo = 0; algo < 2 && rc == 0; algo++)
		for (int tie = 0; tie < 2 && rc == 0; tie++)
			rc = run_series(p, pf, &md, algo, tie, sink, err, errlen);
	lb_agent_model_free(&md);
	lb_platform_free(pf);
	return rc;
}
