/* libFuzzer target for the CSV reader behind `lanebench compare`: any
 * bytes, read from memory as a file would be.  A table it accepts must be
 * consistent (every cell there, rows' lines in order), and every cell must
 * go through the number readers without a sanitizer finding: a value they
 * accept is in range (whole numbers) or finite (reals). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "report/csvread.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void numbers(const struct lb_table *t)
{
	char err[256];
	for (size_t r = 0; r < t->nrows; r++)
		for (size_t c = 0; c < t->ncols; c++) {
			uint64_t u;
			double d;
			if (lb_table_uint(t, r, (int)c, 1, 1000000, &u, err, sizeof(err)) == 0 &&
			    (u < 1 || u > 1000000))
				abort();
			if (lb_table_finite(t, r, (int)c, &d, err, sizeof(err)) == 0 && !isfinite(d))
				abort();
		}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	struct lb_table t;
	char err[512];
	int rc = lb_table_read_stream(f, "fuzz.csv", &t, err, sizeof(err));
	fclose(f);
	if (rc)
		return 0;
	if (t.ncols == 0 || !t.path)
		abort();
	for (size_t i = 0; i < (t.nrows + 1) * t.ncols; i++)
		if (!t.cells[i])
			abort();
	for (size_t r = 1; r < t.nrows; r++)
		if (t.lines[r] <= t.lines[r - 1])
			abort();
	for (size_t i = 0; i < t.nprov; i++)
		if (!lb_table_prov(&t, t.prov[i].key))
			abort();
	if (t.ncols && lb_table_col(&t, t.cells[0]) != 0)
		abort();
	numbers(&t);
	lb_table_free(&t);
	return 0;
}
