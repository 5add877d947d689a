/* Reading CSV files back (for `lanebench compare`): RFC 4180 fields, the
 * first row is the header; every row must have the header's width.  Lines
 * starting with '#' are comments and skipped; the trailer lanebench
 * appends to a run that stopped early ("# lanebench: incomplete after 12
 * rows: ...") is kept as the table's note, and the provenance lines before
 * the header ("# version: v0.1.0-57-gac65485", see results/README.md) as
 * the table's provenance.  Files without them (older runs) read the same. */
#ifndef LB_CSVREAD_H
#define LB_CSVREAD_H

#include <stddef.h>

#include "lib/prov.h" /* struct lb_prov_item: one "# key: value" line of the head */

struct lb_table {
	size_t ncols, nrows; /* nrows excludes the header */
	char **cells;        /* (nrows + 1) x ncols, row 0 the header */
	size_t *lines;       /* file line where each data row starts (1-based) */
	char *note;          /* "incomplete after 12 rows: ...", or NULL */
	struct lb_prov_item *prov; /* the head's lines in file order */
	size_t nprov;
};

/* Returns 0, or -1 with a message naming the file and line. */
int lb_table_read(const char *path, struct lb_table *t, char *err, size_t errlen);

/* Column index of `name`, or -1. */
int lb_table_col(const struct lb_table *t, const char *name);

/* Cell of data row `row` (0-based, header excluded). */
const char *lb_table_cell(const struct lb_table *t, size_t row, int col);

/* Value of the provenance key (the last line with it), or NULL. */
const char *lb_table_prov(const struct lb_table *t, const char *key);

void lb_table_free(struct lb_table *t);

#endif
