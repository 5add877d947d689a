/* check at scale, within bounded CPU times.  The report
 * (engine/check_verdict.c, lb_check_report) on a --pattern shift record of
 * a few hundred ranks: a row per directed pair of every lane.  Each link
 * row asks what its sender should reach; computed afresh (a tally of the
 * lane's p ports) for each of the p^2 x lanes cells, the report grew with
 * p^3 (20 s at 400 x 2).  And --rerun's plan (check_patterns.c) of
 * hundreds of suspects: its steps and a rank's peers, once looked up by
 * rescanning inside the loop over the steps (cubic).  And a slow link
 * that shift's second looks, out of time, did not reach says so. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../check.h"
#include "engine/check_private.h"
#include "lib/error.h"

#define RANKS 400
#define LANES 2
#define SLOTS (RANKS - 1)
#define RATE 12.4e9 /* bytes/s: a 100 Gbit/s port */

/* The bounds are CPU time (not wall: other processes do not count), set
 * far between the linear code and the cubic one so that neither load nor
 * ASan's slowdown (about 3x here, SLOWDOWN below) can fail the linear
 * one, and the cubic one cannot pass. */
#if defined(__SANITIZE_ADDRESS__)
#define SLOWDOWN 4.0
#else
#define SLOWDOWN 1.0
#endif

/* CPU seconds the report may take: 0.4 s measured (plain build), the
 * cubic one 20 s. */
#define REPORT_CPU_MAX (6.0 * SLOWDOWN)

struct counted {
	size_t links;
};

static int count_row(void *ctx, const struct lb_result *r, char *err, size_t len)
{
	struct counted *c = ctx;
	(void)err;
	(void)len;
	c->links += strcmp(lb_result_val(r, "phase")->s, "link") == 0;
	return 0;
}

/* What check_shift.c gathers on rank 0: rank s sent rank s + d in slot
 * d - 1, heard from s - d there; every port a 100 Gbit/s NIC. */
static void shift_record(struct check_all *a)
{
	for (uint32_t k = 0; k < RANKS; k++) {
		snprintf(a->ranks[k].host, sizeof(a->ranks[k].host), "node%u", k);
		for (uint32_t l = 0; l < LANES; l++) {
			snprintf(a->ranks[k].nic[l], sizeof(a->ranks[k].nic[l]), "rail%u", l);
			struct lb_port_facts *f = (struct lb_port_facts *)&a->facts[k * LANES + l];
			f->speed_bps = 100e9, f->carrier = 1, f->mtu = 1500;
			for (uint32_t d = 1; d < RANKS; d++)
				a->pairs[(k * LANES + l) * SLOTS + d - 1] = (struct check_pair){
					.partner = (int32_t)((k + d) % RANKS),
					.from = (int32_t)((k + RANKS - d) % RANKS), .ok = 1, .lat = NAN,
					.tx = RATE * (0.97 + 0.01 * ((k + d) % 5)), .verified = 1 << 20,
				};
		}
	}
}

#define SUSPECTS 400 /* on lane 0 of 1,024 ranks, ranks 0 .. 399 */
#define PARTNERS 200 /* ranks 600 .. 799, three a suspect */
#define RERUN_CPU_MAX (2.0 * SLOWDOWN) /* CPU s: under 1 ms measured, the cubic plan 14 s */

static void rerun_plan(void)
{
	static struct lb_check_retest_port ports[SUSPECTS];
	for (uint32_t i = 0; i < SUSPECTS; i++)
		ports[i] = (struct lb_check_retest_port){
			.rank = i, .lane = 0, .npartners = 3,
			.partners = { 600 + i % PARTNERS, 600 + (i + 1) % PARTNERS, 600 + (i + 2) % PARTNERS },
		};
	struct lb_check_retest rt = { .ports = ports, .n = SUSPECTS };
	struct lb_check_params p = { .transport = "tcp", .retest = &rt };
	static struct check c;
	static uint32_t list[1024];
	uint32_t n = 0;
	c.p = &p, c.job.size = 1024, c.job.lanes = 1, c.job.rank = 600;
	clock_t t0 = clock();
	uint32_t slots = check_pattern_slots(&p, 1024, 1);
	check_pattern_peers(&c, 0, list, &n);
	double cpu = (double)(clock() - t0) / CLOCKS_PER_SEC;
	/* every suspect's three pairs, then the ring of the partners */
	CHECK(slots == 3 * SUSPECTS + PARTNERS, "%u steps, not %u", slots, 3 * SUSPECTS + PARTNERS);
	/* rank 600: partner of suspects 0, 200 (i), 199, 399 (i + 1), 198, 398
	 * (i + 2); its ring neighbours 601 and 799 */
	CHECK(n == 8, "rank 600 meets %u peers, not 8", n);
	CHECK(cpu < RERUN_CPU_MAX, "the plan of %u suspects took %.1f CPU s (at most %.0f)", SUSPECTS,
	      cpu, RERUN_CPU_MAX);
	printf("rerun plan of %u suspects: %.3f CPU s\n", SUSPECTS, cpu);
}

/* The reason of link s->r on lane 0 (empty: no such row). */
struct link_reason {
	uint32_t s, r;
	char reason[512];
};

static int catch_link(void *ctx, const struct lb_result *r, char *err, size_t len)
{
	struct link_reason *lr = ctx;
	(void)err;
	(void)len;
	if (strcmp(lb_result_val(r, "phase")->s, "link") == 0 &&
	    lb_result_val(r, "rank")->d == lr->s && lb_result_val(r, "peer")->d == lr->r)
		snprintf(lr->reason, sizeof(lr->reason), "%s", lb_result_val(r, "reason")->s);
	return 0;
}

#define SMALL 8

/* A shift record of 8 ranks x 1 lane whose link 2->5 runs at a third. */
static void slow_link_record(struct check_all *a, struct check_rank *ranks,
			     struct check_pair *pairs)
{
	for (uint32_t k = 0; k < SMALL; k++) {
		snprintf(ranks[k].host, sizeof(ranks[k].host), "node%u", k);
		snprintf(ranks[k].nic[0], sizeof(ranks[k].nic[0]), "rail0");
		for (uint32_t d = 1; d < SMALL; d++) {
			uint32_t to = (k + d) % SMALL;
			pairs[k * (SMALL - 1) + d - 1] = (struct check_pair){
				.partner = (int32_t)to, .from = (int32_t)((k + SMALL - d) % SMALL),
				.ok = 1, .lat = NAN, .tx = k == 2 && to == 5 ? RATE / 3 : RATE,
				.verified = 1 << 20,
			};
		}
	}
	a->size = SMALL, a->lanes = 1, a->slots = SMALL - 1, a->ranks = ranks, a->pairs = pairs;
}

static void looks_out_of_time(void)
{
	static struct check_rank ranks[SMALL];
	static struct check_pair pairs[SMALL * (SMALL - 1)], aggs[SMALL * 2];
	static struct check_port_end ends[SMALL];
	static struct lb_port_facts facts[SMALL];
	struct lb_check_params p = { .transport = "tcp", .pattern = LB_CHECK_SHIFT, .min_bw = 0.7,
				     .max_loss = 0.001, .max_model_ratio = 2, .max_bound_ratio = 2 };
	struct check_looks looks = { .from = { 0 }, .why = { LOOKS_OUT_OF_TIME }, .budget = 10 };
	struct check_all a = { .p = &p, .transport = "tcp", .rounds = 2, .pair_timeout = 5,
			       .aggs = aggs, .ends = ends, .ends_all = ends, .facts = facts,
			       .bcast_skipped = "not asked" };
	for (uint32_t i = 0; i < SMALL * 2; i++)
		aggs[i] = (struct check_pair){ .partner = -1, .lat = NAN, .tx = NAN };
	slow_link_record(&a, ranks, pairs);
	struct link_reason lr = { .s = 2, .r = 5 };
	const struct lb_sink sink = { .row = catch_link, .ctx = &lr };
	char err[512] = "";
	for (int stopped = 0; stopped < 2; stopped++) {
		a.looks = stopped ? &looks : NULL;
		lr.reason[0] = 0;
		CHECK(lb_check_report(&a, &sink, err, sizeof(err)) == 0, "report: %s", err);
		CHECK(strstr(lr.reason, "link 2->5 on lane 0") != NULL, "link 2->5 not named: '%s'",
		      lr.reason);
		CHECK(!strstr(lr.reason, "not measured again") == !stopped,
		      "looks %s: link 2->5's reason '%s'", stopped ? "out of time" : "all taken",
		      lr.reason);
		CHECK(!stopped || strstr(lr.reason, "stopped after 10 s (--timeout)"),
		      "looks out of time: the reason does not say when: '%s'", lr.reason);
	}
}

int main(void)
{
	looks_out_of_time();
	rerun_plan();
	struct lb_check_params p = { .transport = "tcp", .pattern = LB_CHECK_SHIFT, .min_bw = 0.9,
				     .max_loss = 0.001, .max_model_ratio = 2, .max_bound_ratio = 2 };
	struct check_all a = { .p = &p, .transport = "tcp", .size = RANKS, .lanes = LANES,
			       .rounds = 2, .slots = SLOTS, .pair_timeout = 5,
			       .bcast_skipped = "not asked" };
	a.ranks = calloc(RANKS, sizeof(*a.ranks));
	a.pairs = calloc((size_t)RANKS * LANES * SLOTS, sizeof(*a.pairs));
	a.aggs = calloc(RANKS * 2, sizeof(*a.aggs));
	a.ends_all = calloc(RANKS * LANES, sizeof(*a.ends_all));
	a.ends = a.ends_all;
	a.facts = calloc(RANKS * LANES, sizeof(*a.facts));
	if (!a.ranks || !a.pairs || !a.aggs || !a.ends_all || !a.facts)
		return fprintf(stderr, "out of memory\n"), 1;
	for (uint32_t i = 0; i < RANKS * 2; i++)
		a.aggs[i] = (struct check_pair){ .partner = -1, .lat = NAN, .tx = NAN };
	shift_record(&a);

	struct counted got = { 0 };
	const struct lb_sink sink = { .row = count_row, .ctx = &got };
	char err[512] = "";
	clock_t t0 = clock();
	int rc = lb_check_report(&a, &sink, err, sizeof(err));
	double cpu = (double)(clock() - t0) / CLOCKS_PER_SEC;
	CHECK(rc == 0, "report: %s", err);
	CHECK(got.links == (size_t)RANKS * (RANKS - 1) * LANES, "%zu link rows, not %u", got.links,
	      RANKS * (RANKS - 1) * LANES);
	CHECK(cpu < REPORT_CPU_MAX, "the report of %u ranks x %u lanes took %.1f CPU s (at most %.0f)",
	      RANKS, LANES, cpu, REPORT_CPU_MAX);
	printf("report of %u ranks x %u lanes: %.2f CPU s\n", RANKS, LANES, cpu);
	free(a.ranks);
	free(a.pairs);
	free(a.aggs);
	free(a.ends_all);
	free((void *)a.facts);
	return check_status("check-scale");
}
