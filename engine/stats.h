/* Summary statistics of per-iteration times. */
#ifndef LB_STATS_H
#define LB_STATS_H

#include <stdint.h>

struct lb_stats {
	uint32_t n;
	double min, median, mean, p99, max;
};

/* Sorts a copy of samples[0..n).  n == 0 gives all zeros.  p99 is the
 * nearest-rank 99th percentile (the ceil(0.99 n)-th smallest). */
int lb_stats_compute(const double *samples, uint32_t n, struct lb_stats *out);

#endif
