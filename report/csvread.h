/* Reading CSV files back (for `lanebench compare`): RFC 4180 fields, the
 * first row is the header; every row must have the header's width.  Lines
 * starting with '#' are comments and skipped; the trailer lanebench
 * appends to a run that stopped early ("# lanebench: incomplete after 12
 * rows: ...") is kept as the table's note. */
#ifndef LB_CSVREAD_H
#define LB_CSVREAD_H

#include <stddef.h>

struct lb_table {
	size_t ncols, nrows; /* nrows excludes the header */
	char **cells;        /* (nrows + 1) x ncols, row 0 the header */
	char *note;          /* "incomplete after 12 rows: ...", or NULL */
};

/* Returns 0, or -1 with a message naming the file and line. */
int lb_table_read(const char *path, struct lb_table *t, char *err, size_t errlen);

/* Column index of `name`, or -1. */
int lb_table_col(const struct lb_table *t, const char *name);

/* Cell of data row `row` (0-based, header excluded). */
const char *lb_table_cell(const struct lb_table *t, size_t row, int col);

void lb_table_free(struct lb_table *t);

#endif
