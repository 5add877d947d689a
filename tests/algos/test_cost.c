/* The analytic cost table (seed 003 Table 1 and section 6) at hand-computed
 * points, and the registry's parameter checks. */
#include "algos/algos.h"
#include "check.h"

/* p = 32, M = 128 MiB, l = 50 us, two lanes of 125 MB/s: M / b = 0.536870912 s. */
static const struct lb_cost_in IN = {
	.ranks = 32, .lanes = 2, .bytes = 128ull << 20, .latency = 50e-6,
	.lane_bw = 125e6, .sites = 2, .wan_latency = 10e-3,
};

static void table1(void)
{
	struct { const char *algo; double want; } t[] = {
		{ "chain", 31 * 50e-6 + 0.536870912 },
		{ "binary", 5 * 50e-6 + 2 * 0.536870912 },
		{ "binomial", 5 * (50e-6 + 0.536870912) },
		{ "vandegeijn", 2 * 5 * 50e-6 + 2 * 31.0 / 32 * 0.536870912 },
		{ "multilane", 5 * 50e-6 + 0.536870912 },
		{ "klane", 5 * 50e-6 + 0.536870912 }, /* log_2 32 with k = 2 */
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		const struct lb_algo *a = lb_algo_find(t[i].algo);
		double got = a->cost_table(&IN);
		CHECK(check_close(got, t[i].want, 1e-12), "%s table %.12g want %.12g",
		      t[i].algo, got, t[i].want);
		struct lb_cost_in one = IN;
		one.ranks = 1;
		CHECK(a->cost_table(&one) == 0 && a->cost_refined(&one) == 0,
		      "%s: one rank costs nothing", t[i].algo);
	}
}

/* Section 6, two sites of p' = 16 nodes, L = 10 ms. */
static void two_site(void)
{
	struct { const char *algo; double want; } t[] = {
		{ "chain", 15 * 50e-6 + 10e-3 + 0.536870912 },
		{ "binary", 4 * 50e-6 + 10e-3 + 3 * 0.536870912 },
		{ "binomial", 10e-3 + 0.536870912 + 4 * (50e-6 + 0.536870912) },
		{ "multilane", 2 * 4 * 50e-6 + 10e-3 + 0.536870912 },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		double got = lb_algo_find(t[i].algo)->cost_two_site(&IN);
		CHECK(check_close(got, t[i].want, 1e-12), "%s two-site %.12g want %.12g",
		      t[i].algo, got, t[i].want);
	}
	CHECK(lb_algo_find("vandegeijn")->cost_two_site == NULL,
	      "section 6 gives no two-site van de Geijn form");
}

/* klane's table form: log_K p l + M / (k B), K = max(k, 2). */
static void klane_table(void)
{
	const struct lb_algo *a = lb_algo_find("klane");
	struct lb_cost_in in = IN;
	in.ranks = 64, in.lanes = 4; /* log_4 64 = 3, M / b = 0.268435456 s */
	CHECK(check_close(a->cost_table(&in), 3 * 50e-6 + 0.268435456, 1e-12),
	      "klane k=4 table %.12g", a->cost_table(&in));
	in.lanes = 1; /* one lane: two trees, log_2 64 = 6, M / B */
	CHECK(check_close(a->cost_table(&in), 6 * 50e-6 + 1.073741824, 1e-12),
	      "klane k=1 table %.12g", a->cost_table(&in));
	CHECK(a->cost_two_site == NULL, "klane has no two-site form");
}

static void registry(void)
{
	size_t homogeneous = 0, allgathers = 0;
	for (size_t i = 0; i < lb_nalgos; i++) {
		const struct lb_algo *a = &lb_algos[i];
		/* closed forms for the homogeneous ones; a period for the
		 * platform ones (seed 000), which have no closed form, seed
		 * 002's model makespan or seed 004's HBSP cost */
		CHECK(a->name && a->summary && a->build &&
		      (a->needs ? (a->period || a->makespan || a->hbsp) && !a->cost_table && !a->cost_refined
				: a->cost_table && a->cost_refined && !a->period),
		      "entry %zu incomplete", i);
		homogeneous += lb_algo_homogeneous_bcast(a);
		allgathers += a->collective && strcmp(a->collective, "allgather") == 0;
		CHECK(lb_algo_find(a->name) == a, "%s not found by name", a->name);
	}
	CHECK(homogeneous == 6 && allgathers == 5 && lb_nalgos == 33,
	      "six homogeneous broadcasts, five allgathers (two of seed 001), eight of seed 000 and cap-trees, eight of seed 002 and five of seed 004, got %zu, %zu of %zu",
	      homogeneous, allgathers, lb_nalgos);
	CHECK(lb_algo_find("ring") == NULL, "unknown name must not resolve");
}

static void expect_error(struct lb_algo_params prm, const char *algo, const char *want)
{
	char err[256] = "";
	struct lb_schedule *s = lb_algo_build(lb_algo_find(algo), &prm, err, sizeof(err));
	CHECK(s == NULL && strstr(err, want), "%s: '%s' lacks '%s'", algo, err, want);
	lb_sched_free(s);
}

static void bad_params(void)
{
	struct lb_algo_params ok = { .ranks = 6, .lanes = 2, .bytes = 4096, .slice_bytes = 1024 };
	struct lb_algo_params p = ok;
	p.root = 6;
	expect_error(p, "chain", "root 6 out of range for 6 ranks");
	p = ok, p.lanes = 0;
	expect_error(p, "binary", "lanes 0 out of range");
	p = ok, p.bytes = 0;
	expect_error(p, "binomial", "at least 1 byte");
	p = ok, p.allgather = LB_ALLGATHER_DOUBLING;
	expect_error(p, "vandegeijn", "power-of-two rank count (got 6)");
	p = ok, p.sites = 7;
	expect_error(p, "multilane", "sites 7 exceeds ranks 6");
	p = ok, p.bytes = 1ull << 40, p.slice_bytes = 1;
	expect_error(p, "chain", "slice 1 bytes cuts");
}

int main(void)
{
	table1();
	two_site();
	klane_table();
	registry();
	bad_params();
	return check_status("cost");
}
