/* The simulator's shared helpers (sim_shared.h): a run's result from its
 * arrival times, for the event simulator and the LogP mode alike. */
#include "sim_shared.h"

#include <math.h>
#include <stdlib.h>

#include "lib/error.h"

static int by_time(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double lb_sim_steady_period(double *row, uint32_t n)
{
	uint32_t half = n - n / 2; /* ceil(n / 2) */
	if (n < 2)
		return 0;
	qsort(row, n, sizeof(*row), by_time);
	return (row[n - 1] - row[half - 1]) / (n - half);
}

double lb_sim_rank_done(const struct lb_schedule *s, const double *arr, size_t n, uint32_t r)
{
	double done = 0;
	if (lb_sched_wants(s, r)) {
		for (size_t b = 0; b < n; b++)
			done = later(done, arr[b]);
		return done;
	}
	for (size_t b = 0; b < n; b++)
		if (!isinf(arr[b]))
			done = later(done, arr[b]);
	return done;
}

int lb_sim_makespan(const struct lb_schedule *s, const double *arrival, lb_sim_rank_span span,
		    const void *ctx, double released, struct lb_sim_result *res, uint32_t *slowest,
		    char *err, size_t len)
{
	res->seconds = 0;
	*slowest = s->root;
	for (uint32_t r = 0; r < s->ranks; r++) {
		size_t from, n = span(ctx, r, &from);
		double done = lb_sim_rank_done(s, arrival + from, n, r);
		if (isinf(done))
			return lb_errf(err, len, "simulation: rank %u never receives every block (schedule not valid?)", r);
		if (res->rank_done)
			res->rank_done[r] = done;
		if (done > res->seconds && lb_sched_wants(s, r))
			res->seconds = done, *slowest = r;
	}
	res->seconds = later(res->seconds, released);
	return 0;
}

/* Rank r's row of a plain [rank * nblocks + block] array. */
static size_t plain_row(const void *ctx, uint32_t r, size_t *from)
{
	const struct lb_schedule *s = ctx;
	*from = (size_t)r * s->nblocks;
	return s->nblocks;
}

int lb_sim_collect(const struct lb_schedule *s, double *arrival, double released,
		   struct lb_sim_result *res, char *err, size_t len)
{
	uint32_t slowest;
	int rc = lb_sim_makespan(s, arrival, plain_row, s, released, res, &slowest, err, len);
	if (rc == 0)
		res->period = lb_sim_steady_period(arrival + (size_t)slowest * s->nblocks, s->nblocks);
	return rc;
}
