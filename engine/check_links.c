/* Links and ports of one lane's matrix; see check_links.h. */
#include "check_links.h"

#include <math.h>
#include <stdlib.h>

#include "stats.h"

static int measured(const double *rate, uint32_t n, uint32_t s, uint32_t r)
{
	return s != r && !isnan(rate[(size_t)s * n + r]);
}

static double median_of(double *v, uint32_t k)
{
	struct lb_stats st;
	if (k == 0)
		return NAN;
	lb_stats_compute(v, k, &st);
	return st.median;
}

/* The median of line i (a row, or a column when by_col), leaving out the
 * cells whose other end is in skip (NULL: none). */
static double line_median(const double *rate, uint32_t n, uint32_t i, int by_col,
			  const uint8_t *skip, double *scratch)
{
	uint32_t k = 0;
	for (uint32_t j = 0; j < n; j++) {
		uint32_t s = by_col ? j : i, r = by_col ? i : j;
		if (measured(rate, n, s, r) && !(skip && skip[j]))
			scratch[k++] = rate[(size_t)s * n + r];
	}
	return median_of(scratch, k);
}

static int below(double x, double share, double yardstick)
{
	return !isnan(x) && yardstick > 0 && x < share * yardstick;
}

/* Rows and columns low against the lane: first on their whole medians
 * (low0), then again without the other side's low ones -- where that
 * leaves nothing, on the whole median again. */
static void judge_lines(const double *rate, uint32_t n, double share, struct lb_link_verdicts *v,
			uint8_t *row_low0, uint8_t *col_low0, double *scratch)
{
	for (uint32_t i = 0; i < n; i++) {
		row_low0[i] = below(line_median(rate, n, i, 0, NULL, scratch), share, v->lane_median);
		col_low0[i] = below(line_median(rate, n, i, 1, NULL, scratch), share, v->lane_median);
	}
	for (uint32_t i = 0; i < n; i++) {
		v->row_median[i] = line_median(rate, n, i, 0, col_low0, scratch);
		v->col_median[i] = line_median(rate, n, i, 1, row_low0, scratch);
		if (isnan(v->row_median[i]))
			v->row_median[i] = line_median(rate, n, i, 0, NULL, scratch);
		if (isnan(v->col_median[i]))
			v->col_median[i] = line_median(rate, n, i, 1, NULL, scratch);
		v->row_low[i] = below(v->row_median[i], share, v->lane_median);
		v->col_low[i] = below(v->col_median[i], share, v->lane_median);
	}
}

int lb_link_judge(const double *rate, uint32_t n, double share, struct lb_link_verdicts *v)
{
	size_t cells = (size_t)n * n;
	double *scratch = calloc(cells + 1, sizeof(double));
	uint8_t *low0 = calloc(2 * (size_t)n + 1, 1);
	*v = (struct lb_link_verdicts){ .lane_median = NAN };
	v->row_median = calloc(n + 1, sizeof(double));
	v->col_median = calloc(n + 1, sizeof(double));
	v->row_low = calloc(n + 1, 1);
	v->col_low = calloc(n + 1, 1);
	v->link_low = calloc(cells + 1, 1);
	if (!scratch || !low0 || !v->row_median || !v->col_median || !v->row_low || !v->col_low ||
	    !v->link_low) {
		free(scratch);
		free(low0);
		lb_link_verdicts_free(v);
		return -1;
	}
	uint32_t k = 0;
	for (uint32_t s = 0; s < n; s++)
		for (uint32_t r = 0; r < n; r++)
			if (measured(rate, n, s, r))
				scratch[k++] = rate[(size_t)s * n + r];
	v->lane_median = median_of(scratch, k);
	judge_lines(rate, n, share, v, low0, low0 + n, scratch);
	for (uint32_t s = 0; s < n; s++)
		for (uint32_t r = 0; r < n; r++)
			v->link_low[(size_t)s * n + r] =
				measured(rate, n, s, r) && !v->row_low[s] && !v->col_low[r] &&
				below(rate[(size_t)s * n + r], share, v->row_median[s]) &&
				below(rate[(size_t)s * n + r], share, v->col_median[r]);
	free(scratch);
	free(low0);
	return 0;
}

void lb_link_verdicts_free(struct lb_link_verdicts *v)
{
	free(v->row_median);
	free(v->col_median);
	free(v->row_low);
	free(v->col_low);
	free(v->link_low);
	*v = (struct lb_link_verdicts){ .lane_median = NAN };
}
