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
#include <stdint.h>
#include <stdio.h>

#include "lib/prov.h" /* struct lb_prov_item: one "# key: value" line of the head */

struct lb_table {
	char *path;          /* the name errors give the file */
	size_t ncols, nrows; /* nrows excludes the header */
	char **cells;        /* (nrows + 1) x ncols, row 0 the header */
	size_t *lines;       /* file line where each data row starts (1-based) */
	char *note;          /* "incomplete after 12 rows: ...", or NULL */
	struct lb_prov_item *prov; /* the head's lines in file order */
	size_t nprov;
};

/* Returns 0, or -1 with a message naming the file and line. */
int lb_table_read(const char *path, struct lb_table *t, char *err, size_t errlen);

/* The same from an open stream (a file, or fmemopen's bytes); `name` is
 * what messages call it.  The stream is left open. */
int lb_table_read_stream(FILE *f, const char *name, struct lb_table *t, char *err,
			 size_t errlen);

/* Column index of `name`, or -1. */
int lb_table_col(const struct lb_table *t, const char *name);

/* Cell of data row `row` (0-based, header excluded). */
const char *lb_table_cell(const struct lb_table *t, size_t row, int col);

/* Numbers are checked where they are read, so that nothing downstream
 * meets a value the column cannot hold.  Each returns 0, or -1 with
 * "path:line:column: name: why" in err (err may be NULL). */

/* Formats "path:line:column: name: why" for the cell into err; -1. */
int lb_table_cell_error(const struct lb_table *t, size_t row, int col, char *err,
			size_t errlen, const char *why);

/* The cell as a whole number in [min, max] (plain decimal digits). */
int lb_table_uint(const struct lb_table *t, size_t row, int col, uint64_t min, uint64_t max,
		  uint64_t *out, char *err, size_t errlen);

/* The cell as a finite number (not empty, not nan or inf). */
int lb_table_finite(const struct lb_table *t, size_t row, int col, double *out, char *err,
		    size_t errlen);

/* Value of the provenance key (the last line with it), or NULL. */
const char *lb_table_prov(const struct lb_table *t, const char *key);

void lb_table_free(struct lb_table *t);

#endif
