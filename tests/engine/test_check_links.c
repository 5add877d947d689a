/* The matrix verdicts of lanebench check (engine/check_links.h): one slow
 * cell names that link and no port; a slow row or column names that port
 * and no link; a healthy lane names nothing -- on the whole matrix (shift)
 * and on the sparse one of two neighbours a port.  And the shift's buffer
 * colours: a rank never receives into the slot it sends from.  And the
 * most ranks shift's gather allows: a few hundred with 2 lanes, refused
 * beyond with LB_EINPUT and a reason naming the limit.  And --rerun's
 * fingerprint of a record: two copies alike agree, a partner, a lane or a
 * host changed does not.  And the pattern ids: a shift step's never a
 * pair's (a second look's), for every lane and step shift allows. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "../check.h"
#include "engine/check.h"
#include "engine/check_links.h"
#include "engine/check_private.h"
#include "engine/job.h"
#include "launch/bootstrap.h"
#include "lib/error.h"

#define N 8
#define RATE 12.5e6 /* 100 Mbit/s */

/* A healthy full matrix: every cell within +-4 % of RATE. */
static void full(double *m)
{
	for (uint32_t s = 0; s < N; s++)
		for (uint32_t r = 0; r < N; r++)
			m[s * N + r] = s == r ? NAN : RATE * (0.96 + 0.01 * ((s * 3 + r * 5) % 9));
}

/* Only the pairs of lanebench check's two neighbour rounds, both ways. */
static void sparse(double *m)
{
	full(m);
	for (uint32_t s = 0; s < N; s++)
		for (uint32_t r = 0; r < N; r++)
			if (lb_check_partner(s, N, 0) != (int)r && lb_check_partner(s, N, 1) != (int)r)
				m[s * N + r] = NAN;
}

/* What v names, as "links ... rows ... cols ..." counts, checked against
 * the one link (s, r) (-1: none), the one row and the one column expected. */
static void expect_named(const char *what, const struct lb_link_verdicts *v, int ls, int lr,
			 int row, int col)
{
	for (uint32_t s = 0; s < N; s++) {
		CHECK(v->row_low[s] == ((int)s == row), "%s: row %u low %d", what, s, v->row_low[s]);
		CHECK(v->col_low[s] == ((int)s == col), "%s: column %u low %d", what, s, v->col_low[s]);
		for (uint32_t r = 0; r < N; r++)
			CHECK(v->link_low[s * N + r] == ((int)s == ls && (int)r == lr),
			      "%s: link %u->%u low %d", what, s, r, v->link_low[s * N + r]);
	}
}

static void judge(const char *what, const double *m, int ls, int lr, int row, int col)
{
	struct lb_link_verdicts v;
	CHECK(lb_link_judge(m, N, 0.9, &v) == 0, "%s: judged", what);
	expect_named(what, &v, ls, lr, row, col);
	CHECK(v.lane_median > 0.9 * RATE, "%s: lane median %g", what, v.lane_median);
	lb_link_verdicts_free(&v);
}

/* A port at half rate both ways: its row and its column. */
static void slow_port(double *m, uint32_t k)
{
	for (uint32_t j = 0; j < N; j++) {
		m[k * N + j] *= 0.5;
		m[j * N + k] *= 0.5;
	}
}

static void shapes(const char *name, void (*make)(double *), uint32_t ls, uint32_t lr)
{
	double m[N * N];
	char what[64];
	make(m);
	snprintf(what, sizeof(what), "%s healthy", name);
	judge(what, m, -1, -1, -1, -1);
	make(m);
	m[ls * N + lr] *= 0.4;
	snprintf(what, sizeof(what), "%s link %u->%u at 40 %%", name, ls, lr);
	judge(what, m, (int)ls, (int)lr, -1, -1);
	make(m);
	slow_port(m, 5);
	snprintf(what, sizeof(what), "%s port 5 at half rate", name);
	judge(what, m, -1, -1, 5, 5);
	make(m);
	for (uint32_t j = 0; j < N; j++) /* sends slowly only */
		m[5 * N + j] *= 0.5;
	snprintf(what, sizeof(what), "%s port 5 sends at half rate", name);
	judge(what, m, -1, -1, 5, -1);
}

/* Nothing measured, and a one-cell row (bisection): nothing named. */
static void degenerate(void)
{
	double m[N * N];
	struct lb_link_verdicts v;
	for (uint32_t i = 0; i < N * N; i++)
		m[i] = NAN;
	CHECK(lb_link_judge(m, N, 0.9, &v) == 0 && isnan(v.lane_median), "empty: no median");
	expect_named("empty", &v, -1, -1, -1, -1);
	lb_link_verdicts_free(&v);
	for (uint32_t k = 0; k < N; k++)
		m[k * N + (k + N / 2) % N] = RATE;
	judge("bisection healthy", m, -1, -1, -1, -1);
}

static void shift_colours(void)
{
	for (uint32_t p = 2; p <= 33; p++)
		for (uint32_t d = 1; d < p; d++)
			for (uint32_t k = 0; k < p; k++) {
				uint32_t c = lb_check_shift_colour(k, p, d);
				CHECK(c < 3 && c != lb_check_shift_colour((k + d) % p, p, d),
				      "p %u d %u: rank %u colour %u, its receiver's %u", p, d, k, c,
				      lb_check_shift_colour((k + d) % p, p, d));
			}
}

static void bisection(void)
{
	for (uint32_t p = 2; p <= 33; p++)
		for (uint32_t k = 0; k < p; k++) {
			int q = lb_check_bisection_partner(k, p);
			int want = !(p % 2 && k == p - 1);
			CHECK((q >= 0) == want, "p %u: rank %u's partner %d", p, k, q);
			CHECK(q < 0 || ((uint32_t)q != k && lb_check_bisection_partner((uint32_t)q, p) == (int)k),
			      "p %u: %u -> %d, not back", p, k, q);
			CHECK(q < 0 || (uint32_t)abs(q - (int)k) == p / 2, "p %u: %u -> %d: not half way", p, k, q);
		}
}

/* Shift's gather fits the bootstrap's allgather up to the limit and not
 * one rank past it (size * len <= LB_BOOT_MSG_MAX); past it, refused. */
static void shift_limit(void)
{
	char why[256];
	for (uint32_t lanes = 1; lanes <= 8; lanes *= 2) {
		uint32_t m = check_shift_max_ranks(lanes);
		CHECK(m >= (lanes <= 2 ? 300u : 150u), "%u lanes: shift allows only %u ranks", lanes, m);
		CHECK(check_shift_fits(m, lanes, why, sizeof(why)) == 0, "%u lanes, %u ranks: %s",
		      lanes, m, why);
		CHECK(check_shift_fits(m + 1, lanes, why, sizeof(why)) == LB_EINPUT &&
			      strstr(why, "use neighbours or bisection"),
		      "%u lanes, %u ranks: not refused (%s)", lanes, m + 1, why);
	}
	CHECK(check_shift_fits(1024, 8, why, sizeof(why)) == LB_EINPUT &&
		      strstr(why, "1024 ranks x 8 lanes"), "1,024 x 8 not refused: %s", why);
}

static void retest_fingerprint(void)
{
	struct lb_check_retest_port ports[2] = { { .rank = 1, .lane = 0, .partners = { 0, 2 }, .npartners = 2 },
						 { .rank = 3, .lane = 1, .partners = { 2 }, .npartners = 1 } };
	const char *hosts[4] = { "h0", "h1", "h2", "h3" }, *other[4] = { "h0", "h1", "h2", "h9" };
	char h0[] = "h0"; /* the same text elsewhere: a copy */
	const char *copy[4] = { h0, "h1", "h2", "h3" };
	struct lb_check_retest a = { .ports = ports, .n = 2, .hosts = hosts, .nhosts = 4 }, b = a;
	uint64_t was = check_retest_hash(&a);
	b.hosts = copy;
	CHECK(check_retest_hash(&b) == was, "a copy of the record: another fingerprint");
	b.hosts = other;
	CHECK(check_retest_hash(&b) != was, "another host: the same fingerprint");
	ports[0].partners[1] = 3;
	CHECK(check_retest_hash(&a) != was, "another partner: the same fingerprint");
	ports[0].partners[1] = 2, ports[1].lane = 0;
	CHECK(check_retest_hash(&a) != was, "another lane: the same fingerprint");
	ports[1].lane = 1, a.n = 1;
	CHECK(check_retest_hash(&a) != was, "a suspect fewer: the same fingerprint");
}

static void pattern_ids(void)
{
	uint32_t most_pair = 0, least_shift = UINT32_MAX, most_shift = 0;
	for (uint32_t phase = 0; phase <= 5; phase++) /* PHASE_LINK_AGAIN, the last */
		for (uint32_t lane = 0; lane < LB_JOB_MAX_LANES; lane++)
			for (uint32_t round = 0; round < 4; round++)
				for (uint32_t dir = 0; dir < 2; dir++) {
					uint32_t id = check_pattern_id(phase, lane, round, dir, 1000);
					most_pair = id > most_pair ? id : most_pair;
				}
	for (uint32_t lane = 0; lane < LB_JOB_MAX_LANES; lane++) {
		uint32_t d_most = check_shift_max_ranks(lane + 1) - 1;
		uint32_t lo = check_shift_id(lane, 1, 0), hi = check_shift_id(lane, d_most, 500);
		least_shift = lo < least_shift ? lo : least_shift;
		most_shift = hi > most_shift ? hi : most_shift;
		CHECK(lane == 0 || lo > check_shift_id(lane - 1, 2047, 1023),
		      "lane %u's shift ids meet lane %u's", lane, lane - 1);
		CHECK(check_shift_id(lane, d_most, 1023) < check_shift_id(lane, d_most + 1, 0),
		      "lane %u: step %u's ids meet the next's", lane, d_most);
	}
	CHECK(most_pair < least_shift, "a pair's id %u reaches shift's first %u", most_pair,
	      least_shift);
	CHECK(most_shift > least_shift, "shift ids wrapped: %u .. %u", least_shift, most_shift);
}

int main(void)
{
	shift_limit();
	pattern_ids();
	retest_fingerprint();
	shapes("full", full, 3, 7);
	shapes("neighbours", sparse, 2, 3);
	degenerate();
	shift_colours();
	bisection();
	return check_status("check-links");
}
