#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int lb_stats_compute(const double *samples, uint32_t n, struct lb_stats *out)
{
	memset(out, 0, sizeof(*out));
	if (n == 0)
		return 0;
	double *s = malloc(n * sizeof(*s)), sum = 0;
	if (!s)
		return -1;
	memcpy(s, samples, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	for (uint32_t i = 0; i < n; i++)
		sum += s[i];
	out->n = n;
	out->min = s[0];
	out->max = s[n - 1];
	out->mean = sum / n;
	out->median = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	out->p99 = s[(uint32_t)ceil(0.99 * n) - 1];
	free(s);
	return 0;
}
