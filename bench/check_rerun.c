/* --rerun: an earlier check's record read back; see check_rerun.h. */
#include "check_rerun.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/job.h"
#include "engine/stats.h"
#include "lib/error.h"
#include "report/csvread.h"

struct lb_rerun_record {
	struct lb_table t;
};

/* A record's ranks are bounded where they are read: a job of this many
 * at most (the bootstrap's limit is far below). */
#define RERUN_MAX_RANKS 4096

/* The port rows of the record, by (rank, lane). */
struct ports {
	uint32_t ranks, lanes;
	const char **verdict;  /* [rank * LB_JOB_MAX_LANES + lane]; NULL: no row */
	const char **reason;
	double *expected;
};

static const char *cell(const struct lb_table *t, size_t row, const char *col)
{
	int c = lb_table_col(t, col);
	return c >= 0 ? lb_table_cell(t, row, c) : "";
}

static int need_columns(const struct lb_table *t, char *err, size_t len)
{
	static const char *const need[] = { "phase", "rank", "host", "lane", "verdict", "reason",
					    "expected_bytes_per_second" };
	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if (lb_table_col(t, need[i]) < 0)
			return lb_errf(err, len, "%s: no column '%s': not a record of lanebench check",
				       t->path, need[i]);
	return 0;
}

/* One port row: its rank, lane and host checked, kept. */
static int take_port(struct lb_rerun *r, struct ports *p, size_t row, char *err, size_t len)
{
	const struct lb_table *t = &r->rec->t;
	uint64_t k, l;
	if (lb_table_uint(t, row, lb_table_col(t, "rank"), 0, RERUN_MAX_RANKS - 1, &k, err, len) ||
	    lb_table_uint(t, row, lb_table_col(t, "lane"), 0, LB_JOB_MAX_LANES - 1, &l, err, len))
		return LB_EINPUT;
	if (strcmp(cell(t, row, "pattern"), "rerun") == 0)
		return lb_errf(err, len, "%s:%zu: a rerun's record (it holds only the suspects): "
			       "rerun the record of the check itself", t->path, t->lines[row]),
		       LB_EINPUT;
	size_t at = (size_t)k * LB_JOB_MAX_LANES + l;
	const char *host = cell(t, row, "host");
	if (r->hosts[k] && strcmp(r->hosts[k], host) != 0)
		return lb_errf(err, len, "%s:%zu: rank %llu on host %s, and on %s in an earlier row",
			       t->path, t->lines[row], (unsigned long long)k, host, r->hosts[k]),
		       LB_EINPUT;
	r->hosts[k] = host;
	p->verdict[at] = cell(t, row, "verdict");
	p->reason[at] = cell(t, row, "reason");
	if (lb_table_finite(t, row, lb_table_col(t, "expected_bytes_per_second"), &p->expected[at],
			    NULL, 0))
		p->expected[at] = NAN;
	p->ranks = (uint32_t)k + 1 > p->ranks ? (uint32_t)k + 1 : p->ranks;
	p->lanes = (uint32_t)l + 1 > p->lanes ? (uint32_t)l + 1 : p->lanes;
	return 0;
}

static int read_ports(struct lb_rerun *r, struct ports *p, char *err, size_t len)
{
	for (size_t row = 0; row < r->rec->t.nrows; row++) {
		r->link_fails += strcmp(cell(&r->rec->t, row, "phase"), "link") == 0 &&
				 strcmp(cell(&r->rec->t, row, "verdict"), "FAIL") == 0;
		if (strcmp(cell(&r->rec->t, row, "phase"), "port") != 0)
			continue;
		int rc = take_port(r, p, row, err, len);
		if (rc)
			return rc;
	}
	for (uint32_t k = 0; k < p->ranks; k++)
		if (!r->hosts[k])
			return lb_errf(err, len, "%s: no port row of rank %u: not a whole record", r->rec->t.path,
				       k), LB_EINPUT;
	if (p->ranks < 2)
		return lb_errf(err, len, "%s: no ports of two ranks or more", r->rec->t.path), LB_EINPUT;
	return 0;
}

static int passed(const struct ports *p, uint32_t k, uint32_t l)
{
	const char *v = p->verdict[(size_t)k * LB_JOB_MAX_LANES + l];
	return v && strcmp(v, "PASS") == 0;
}

/* FAIL, WARN, ERROR (the check could not tell which end); not SKIP (a
 * port that sat out bisection). */
static int suspect(const struct ports *p, uint32_t k, uint32_t l)
{
	const char *v = p->verdict[(size_t)k * LB_JOB_MAX_LANES + l];
	return v && (strcmp(v, "FAIL") == 0 || strcmp(v, "WARN") == 0 || strcmp(v, "ERROR") == 0);
}

/* Up to three partners for (k, l): ports of the lane that passed, on
 * another host, the ranks after k first (its neighbours). */
static int choose_partners(const struct lb_rerun *r, const struct ports *p,
			   struct lb_check_retest_port *pt, char *err, size_t len)
{
	for (uint32_t i = 1; i < p->ranks && pt->npartners < 3; i++) {
		uint32_t j = (pt->rank + i) % p->ranks;
		if (passed(p, j, pt->lane) && strcmp(r->hosts[j], r->hosts[pt->rank]) != 0)
			pt->partners[pt->npartners++] = j;
	}
	if (pt->npartners)
		return 0;
	return lb_errf(err, len, "%s: rank %u lane %u: no port of lane %u on another host passed "
		       "there to test it with", r->rec->t.path, pt->rank, pt->lane, pt->lane), LB_EINPUT;
}

/* What a port of lane l should reach: the median of what the record
 * expected of the lane's ports. */
static double lane_expected(const struct ports *p, uint32_t l)
{
	double *all = malloc(((size_t)p->ranks + 1) * sizeof(double));
	uint32_t n = 0;
	struct lb_stats st = { 0 };
	for (uint32_t k = 0; all && k < p->ranks; k++) {
		double x = p->expected[(size_t)k * LB_JOB_MAX_LANES + l];
		if (x > 0)
			all[n++] = x;
	}
	if (n)
		lb_stats_compute(all, n, &st);
	free(all);
	return n ? st.median : 0;
}

static int suspects(struct lb_rerun *r, const struct ports *p, char *err, size_t len)
{
	for (uint32_t k = 0; k < p->ranks; k++)
		for (uint32_t l = 0; l < p->lanes; l++) {
			size_t at = (size_t)k * LB_JOB_MAX_LANES + l;
			if (!suspect(p, k, l))
				continue;
			struct lb_check_retest_port *pt = &r->ports[r->retest.n];
			*pt = (struct lb_check_retest_port){ .rank = k, .lane = l };
			int rc = choose_partners(r, p, pt, err, len);
			if (rc)
				return rc;
			if (asprintf(&r->was[r->retest.n], "%s: %s", p->verdict[at], p->reason[at]) < 0)
				return lb_errf(err, len, "out of memory");
			pt->was = r->was[r->retest.n++];
		}
	return 0;
}

static int load(struct lb_rerun *r, struct ports *p, char *err, size_t len)
{
	int rc;
	size_t cells = (size_t)RERUN_MAX_RANKS * LB_JOB_MAX_LANES;
	p->verdict = calloc(cells, sizeof(*p->verdict));
	p->reason = calloc(cells, sizeof(*p->reason));
	p->expected = calloc(cells, sizeof(*p->expected));
	r->hosts = calloc(RERUN_MAX_RANKS, sizeof(*r->hosts));
	r->ports = calloc(r->rec->t.nrows + 1, sizeof(*r->ports));
	r->was = calloc(r->rec->t.nrows + 1, sizeof(*r->was));
	if (!p->verdict || !p->reason || !p->expected || !r->hosts || !r->ports || !r->was)
		return lb_errf(err, len, "out of memory");
	if ((rc = read_ports(r, p, err, len)) || (rc = suspects(r, p, err, len)))
		return rc;
	r->expected = calloc(p->lanes, sizeof(double));
	if (!r->expected)
		return lb_errf(err, len, "out of memory");
	for (uint32_t l = 0; l < p->lanes; l++)
		r->expected[l] = lane_expected(p, l);
	r->retest = (struct lb_check_retest){ .ports = r->ports, .n = r->retest.n,
					      .hosts = r->hosts, .nhosts = p->ranks,
					      .expected = r->expected, .nexpected = p->lanes };
	return 0;
}

int lb_rerun_load(const char *path, struct lb_rerun *r, char *err, size_t len)
{
	struct ports p = { 0 };
	*r = (struct lb_rerun){ .rec = calloc(1, sizeof(*r->rec)) };
	if (!r->rec)
		return lb_errf(err, len, "out of memory");
	int rc = lb_table_read(path, &r->rec->t, err, len) || need_columns(&r->rec->t, err, len) ? LB_EINPUT
										     : load(r, &p, err, len);
	free(p.verdict);
	free(p.reason);
	free(p.expected);
	return rc;
}

void lb_rerun_free(struct lb_rerun *r)
{
	for (size_t i = 0; r->was && i < r->retest.n; i++)
		free(r->was[i]);
	free(r->was);
	free(r->ports);
	free(r->hosts);
	free(r->expected);
	if (r->rec)
		lb_table_free(&r->rec->t);
	free(r->rec);
	*r = (struct lb_rerun){ .rec = NULL };
}
