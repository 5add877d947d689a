/* Seed 002's Figs. 2-3 recomputed with the coordinator heuristics
 * (repro002.h). */
#include "repro002.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/clustergen.h"

#define TOLERANCE 0.15     /* heuristics within 15 % of each other */
#define FLAT_FACTOR 1.5    /* flat at least 1.5 x worse */
#define SAME_SHARE 0.95    /* MostCrit = BottomUp on >= 95 % */
#define JUDGED_FROM 10     /* the tolerances hold from 10 clusters */

/* The seven of the paper, in the cross-check's column order. */
static const enum lb_coord_heuristic HEUR[] = {
	LB_COORD_FLAT, LB_COORD_ECEF, LB_COORD_ECEF_LA, LB_COORD_ECEF_LAT_MIN,
	LB_COORD_ECEF_LAT_MAX, LB_COORD_BOTTOMUP, LB_COORD_MOSTCRIT,
};
#define NHEUR (sizeof(HEUR) / sizeof(HEUR[0]))
#define BOTTOMUP_AT 5

/* The cross-check's means (V1, 100 instances, ms;
 * docs/papers.md#reproductions-crosscheck), same column order. */
struct scratch {
	int setting;
	uint32_t clusters;
	double ms[NHEUR];
};

static const struct scratch SCRATCH[] = {
	{ LB_CLUSTERGEN_G5K, 5, { 3542, 3022, 3000, 3027, 2907, 2952, 2951 } },
	{ LB_CLUSTERGEN_G5K, 10, { 5246, 3259, 3264, 3337, 3158, 3265, 3265 } },
	{ LB_CLUSTERGEN_G5K, 20, { 8983, 3429, 3414, 3511, 3372, 3581, 3581 } },
	{ LB_CLUSTERGEN_G5K, 50, { 19322, 3590, 3578, 3690, 3665, 3990, 3990 } },
	{ LB_CLUSTERGEN_X5, 10, { 16262, 4041, 4024, 3998, 4193, 7421, 5053 } },
	{ LB_CLUSTERGEN_X5, 50, { 86240, 4370, 4324, 4400, 4533, 11769, 8601 } },
	{ LB_CLUSTERGEN_X10, 10, { 32058, 7586, 7528, 7497, 7790, 14487, 8810 } },
	{ LB_CLUSTERGEN_X10, 50, { 171984, 8090, 8003, 8068, 8210, 23625, 12025 } },
};

static const char *const CLOCKS[] = { "V1", "V2", "V3" };

static const struct lb_col columns[] = {
	{ LB_COLUMN("setting", LB_COL_TEXT),
	  .table = { { LB_SHOW_TEXT, "set", -4,
		       .legend = "the platform setting: g5k, x5 or x10 (docs/papers.md#seed002-experiments)" } } },
	{ LB_COLUMN("clusters", LB_COL_UINT),
	  .table = { { LB_SHOW_UINT, "clus", 4, .legend = "clusters (sites)" } } },
	{ LB_COLUMN("heuristic", LB_COL_TEXT),
	  .table = { { LB_SHOW_TEXT, "heuristic", -12,
		       .legend = "the coordinator heuristic (lanebench help repro lists them)" } } },
	{ LB_COLUMN("instances", LB_COL_UINT),
	  .table = { { LB_SHOW_UINT, "inst", 4,
		       .legend = "draws of the setting the row is over, seeds --seed, --seed + 1, ..." } } },
	{ LB_COLUMN("clock", LB_COL_TEXT) },
	{ LB_COLUMN("makespan_mean_seconds", LB_COL_REAL),
	  .table = { { LB_SHOW_FIXED, "mean s", 8, 3,
		       .legend = "mean completion time over the draws, under the --clock model, seconds" } } },
	{ LB_COLUMN("makespan_deviation_seconds", LB_COL_REAL),
	  .table = { { LB_SHOW_FIXED, "dev s", 6, 3,
		       .legend = "its standard deviation, seconds" } } },
	{ LB_COLUMN("ratio_to_best", LB_COL_REAL),
	  .table = { { LB_SHOW_FIXED, "/best", 6, 3,
		       .legend = "mean s over the least mean s of the non-flat heuristics here" } } },
	{ LB_COLUMN("same_schedule_as_bottomup", LB_COL_UINT),
	  .table = { { LB_SHOW_UINT, "=BU", 4,
		       .legend = "draws whose sends are BottomUp's, in the same order" } } },
	{ LB_COLUMN("same_makespan_as_bottomup", LB_COL_UINT),
	  .table = { { LB_SHOW_UINT, "=BUt", 4,
		       .legend = "draws whose completion time is BottomUp's" } } },
	{ LB_COLUMN("factor3_percent", LB_COL_REAL),
	  .table = { { LB_SHOW_FIXED, "f3 %", 5, 1,
		       .legend = "mostcrit only: the percentage of its steps that applied BottomUp's factor (the most loaded site)" } } },
	{ LB_COLUMN("spec_scratch_seconds", LB_COL_REAL),
	  .table = { { LB_SHOW_FIXED, "scratch", 7, 3,
		       .legend = "the cross-check's mean for this cell, seconds (docs/papers.md#reproductions-crosscheck)" } } },
	{ LB_COLUMN("deviation_percent", LB_COL_REAL),
	  .table = { { LB_SHOW_FIXED, "dev%", 6, 1,
		       .legend = "100 x (mean s / scratch - 1), percent" } } },
	{ LB_COLUMN("paper_claim", LB_COL_TEXT) },
	{ LB_COLUMN("verdict", LB_COL_TEXT),
	  .table = { { LB_SHOW_TEXT, "verdict", -11,
		       .legend = "PASS or FAIL against the paper's claim; DISCREPANCY where x5's or x10's does not reproduce; info below 10 clusters (no tolerance set)" } } },
};

#define NCOLUMNS (sizeof(columns) / sizeof(columns[0]))

const struct lb_col *lb_repro002_columns(size_t *ncols)
{
	*ncols = NCOLUMNS;
	return columns;
}

/* One (setting, clusters) point: sums over the instances. */
struct point {
	int setting;
	uint32_t clusters, done;
	double sum[NHEUR], sum2[NHEUR];
	uint32_t same[NHEUR], same_time[NHEUR];
	uint64_t factor3, steps;
};

static int same_order(const struct lb_coord_send *a, const struct lb_coord_send *b, uint32_t n)
{
	for (uint32_t k = 0; k + 1 < n; k++)
		if (a[k].from != b[k].from || a[k].to != b[k].to)
			return 0;
	return 1;
}

/* Every heuristic on one draw, into the sums. */
static int run_instance(struct point *pt, const struct lb_cluster_draw *d,
			enum lb_coord_clock clock, struct lb_coord_send *sends)
{
	uint32_t n = d->n, m = n > 1 ? n - 1 : 1;
	struct lb_coord_in in = { .n = n, .g = d->g, .lat = d->lat, .T = d->T, .clock = clock };
	double t[NHEUR];
	for (size_t h = 0; h < NHEUR; h++) {
		t[h] = lb_coord_order(&in, HEUR[h], sends + h * m);
		if (isnan(t[h]))
			return -1;
		pt->sum[h] += t[h], pt->sum2[h] += t[h] * t[h];
	}
	for (size_t h = 0; h < NHEUR; h++) {
		pt->same[h] += same_order(sends + h * m, sends + BOTTOMUP_AT * m, n);
		pt->same_time[h] += t[h] == t[BOTTOMUP_AT];
	}
	for (uint32_t k = 0; k + 1 < n; k++)
		pt->factor3 += sends[(NHEUR - 1) * m + k].factor == 3;
	pt->steps += n - 1;
	return 0;
}

/* The cross-check's values are V1's: none beside another clock. */
static double scratch_of(const struct point *pt, size_t h, enum lb_coord_clock clock)
{
	for (size_t i = 0; clock == LB_COORD_V1 && i < sizeof(SCRATCH) / sizeof(SCRATCH[0]); i++)
		if (SCRATCH[i].setting == pt->setting && SCRATCH[i].clusters == pt->clusters)
			return SCRATCH[i].ms[h] / 1000;
	return NAN;
}

/* The best and the slowest non-flat mean. */
static void best_worst(const struct point *pt, double *best, double *worst)
{
	*best = INFINITY, *worst = 0;
	for (size_t h = 1; h < NHEUR; h++) {
		*best = fmin(*best, pt->sum[h] / pt->done);
		*worst = fmax(*worst, pt->sum[h] / pt->done);
	}
}

/* The paper's claim for a row and whether ours meets it. */
static void judge(const struct point *pt, size_t h, const char **claim, const char **verdict)
{
	double best, worst, mean = pt->sum[h] / pt->done;
	best_worst(pt, &best, &worst);
	int judged = pt->clusters >= JUDGED_FROM, g5k = pt->setting == LB_CLUSTERGEN_G5K;
	*claim = "-", *verdict = "-";
	if (g5k && HEUR[h] == LB_COORD_MOSTCRIT) {
		*claim = "Fig. 2: MostCrit gives exactly the same values as BottomUp (>= 95 %)";
		*verdict = pt->same_time[h] >= SAME_SHARE * pt->done ? "PASS" : "FAIL";
	} else if (g5k && HEUR[h] == LB_COORD_FLAT) {
		*claim = "flat far worse (>= 1.5 x every other)";
		*verdict = mean >= FLAT_FACTOR * worst ? "PASS" : "FAIL";
	} else if (g5k) {
		*claim = "Fig. 2: all heuristics almost the same (within 15 %)";
		*verdict = mean <= (1 + TOLERANCE) * best ? "PASS" : "FAIL";
	} else if (HEUR[h] == LB_COORD_BOTTOMUP || HEUR[h] == LB_COORD_MOSTCRIT) {
		*claim = "Fig. 3: BottomUp and MostCrit keep giving good performances, others worse";
		*verdict = mean <= (1 + TOLERANCE) * best ? "PASS" : "DISCREPANCY";
	}
	if (!judged && strcmp(*verdict, "-"))
		*verdict = "info";
}

static int emit_rows(const struct point *pt, enum lb_coord_clock clock, const struct lb_sink *sink,
		     char *err, size_t len)
{
	double best, worst;
	best_worst(pt, &best, &worst);
	for (size_t h = 0; h < NHEUR; h++) {
		double mean = pt->sum[h] / pt->done, spec = scratch_of(pt, h, clock);
		double dev = sqrt(fmax(0, pt->sum2[h] / pt->done - mean * mean));
		const char *claim, *verdict;
		judge(pt, h, &claim, &verdict);
		double f3 = HEUR[h] == LB_COORD_MOSTCRIT && pt->steps ? 100.0 * pt->factor3 / pt->steps : NAN;
		const union lb_val v[NCOLUMNS] = {
			{ .s = lb_clustergen_setting_name(pt->setting) }, { .u = pt->clusters },
			{ .s = lb_coord_name(HEUR[h]) }, { .u = pt->done }, { .s = CLOCKS[clock] },
			{ .d = mean }, { .d = dev }, { .d = mean / best }, { .u = pt->same[h] },
			{ .u = pt->same_time[h] },
			{ .d = f3 }, { .d = spec }, { .d = 100 * (mean / spec - 1) }, { .s = claim },
			{ .s = verdict },
		};
		const struct lb_result r = { .cols = columns, .ncols = NCOLUMNS, .vals = v };
		if (sink->row(sink->ctx, &r, err, len))
			return -1;
	}
	return 0;
}

static int run_point(const struct lb_repro002_params *p, struct point *pt, char *err, size_t len)
{
	struct lb_clustergen g;
	lb_clustergen_defaults(&g, (enum lb_clustergen_setting)pt->setting);
	g.clusters = pt->clusters;
	struct lb_coord_send *sends = malloc(NHEUR * (size_t)pt->clusters * sizeof(*sends));
	int rc = sends ? 0 : -1;
	for (uint32_t i = 0; i < p->instances && rc == 0 && !(p->stop && *p->stop); i++) {
		struct lb_cluster_draw d = { 0 };
		g.seed = p->seed + i;
		rc = lb_clustergen_draw(&g, &d) || run_instance(pt, &d, p->clock, sends);
		lb_cluster_draw_free(&d);
		pt->done += rc == 0;
	}
	free(sends);
	if (rc)
		snprintf(err, len, "seed002: out of memory at %u clusters", pt->clusters);
	return rc;
}

int lb_repro002_run(const struct lb_repro002_params *p, const struct lb_sink *sink,
		    char *err, size_t errlen)
{
	if (p->instances == 0) {
		snprintf(err, errlen, "seed002: at least one instance per point");
		return -1;
	}
	if (lb_sink_start(sink, p->prov, columns, NCOLUMNS, err, errlen))
		return -1;
	for (int s = LB_CLUSTERGEN_G5K; s <= LB_CLUSTERGEN_X10; s++)
		for (size_t c = 0; c < p->nclusters; c++) {
			struct point pt = { .setting = s, .clusters = p->clusters[c] };
			if (p->stop && *p->stop)
				return 0;
			if (run_point(p, &pt, err, errlen))
				return -1;
			if (pt.done == p->instances && emit_rows(&pt, p->clock, sink, err, errlen))
				return -1;
		}
	return 0;
}
