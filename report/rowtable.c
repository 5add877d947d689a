/* Rows kept as a table of text (rowtable.h). */
#include "rowtable.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "lib/error.h"

static int no_memory(char *err, size_t len)
{
	return lb_errf(err, len, "out of memory keeping the rows");
}

static int keep_provenance(void *ctx, const struct lb_prov *prov, char *err, size_t len)
{
	struct lb_table *t = &((struct lb_rowtable *)ctx)->t;
	if (!prov || !prov->n)
		return 0;
	if (!(t->prov = calloc(prov->n, sizeof(*t->prov))))
		return no_memory(err, len);
	for (size_t i = 0; i < prov->n; i++, t->nprov++) {
		t->prov[i].key = strdup(prov->items[i].key);
		t->prov[i].value = strdup(prov->items[i].value);
		if (!t->prov[i].key || !t->prov[i].value)
			return t->nprov++, no_memory(err, len);
	}
	return 0;
}

/* Room for one more row of cells (and its line number). */
static int grow(struct lb_rowtable *rt)
{
	struct lb_table *t = &rt->t;
	if (t->nrows < rt->cap)
		return 0;
	size_t cap = rt->cap ? rt->cap * 2 : 64;
	char **cells = realloc(t->cells, (cap + 1) * t->ncols * sizeof(*cells));
	if (!cells)
		return -1;
	t->cells = cells;
	size_t *lines = realloc(t->lines, cap * sizeof(*lines));
	if (!lines)
		return -1;
	t->lines = lines;
	rt->cap = cap;
	return 0;
}

static int keep_header(void *ctx, const struct lb_col *cols, size_t ncols, char *err,
		       size_t len)
{
	struct lb_rowtable *rt = ctx;
	struct lb_table *t = &rt->t;
	t->ncols = ncols;
	if (!(t->path = strdup("<rows>")) || !(t->cells = calloc(ncols, sizeof(*t->cells))))
		return no_memory(err, len);
	for (size_t i = 0; i < ncols; i++)
		if (!(t->cells[i] = strdup(cols[i].name)))
			return no_memory(err, len);
	return 0;
}

/* The cell as csv.c writes it, unquoted. */
static char *cell_text(const struct lb_col *col, const struct lb_result *r, union lb_val v)
{
	char buf[32];
	return strdup(lb_csv_field(col, r, v, buf, sizeof(buf)));
}

static int keep_row(void *ctx, const struct lb_result *r, char *err, size_t len)
{
	struct lb_rowtable *rt = ctx;
	struct lb_table *t = &rt->t;
	if (r->ncols != t->ncols)
		return lb_errf(err, len, "a row of %zu columns, not %zu", r->ncols, t->ncols);
	if (grow(rt))
		return no_memory(err, len);
	char **row = &t->cells[(t->nrows + 1) * t->ncols];
	for (size_t i = 0; i < t->ncols; i++)
		row[i] = NULL;
	t->lines[t->nrows] = t->nrows + 2; /* as if the header were line 1 */
	t->nrows++; /* counted now: lb_table_free frees what was kept */
	for (size_t i = 0; i < t->ncols; i++)
		if (!(row[i] = cell_text(&r->cols[i], r, r->vals[i])))
			return no_memory(err, len);
	return 0;
}

struct lb_sink lb_rowtable_sink(struct lb_rowtable *rt)
{
	return (struct lb_sink){ .provenance = keep_provenance, .begin = keep_header,
				 .row = keep_row, .ctx = rt };
}

void lb_rowtable_free(struct lb_rowtable *rt)
{
	lb_table_free(&rt->t);
	rt->cap = 0;
}
