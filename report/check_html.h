/* A check record (lanebench check's rows, report/csvread.h's table: read
 * back from its CSV, or kept as the run went, report/rowtable.h) as one
 * HTML page a person acts on: the verdict, then every failure and warning
 * with its port or link and cause (a slow port's links folded under its
 * row); every host with its ranks, worst verdict and per lane rates; a
 * burn-in's ports with their intervals; per lane the N x N matrix of the
 * link rows (sender x receiver) as an SVG heatmap of the rate over the
 * expected;
 * the ports' inventory with values off their lane's majority marked; the
 * counters that grew; the collectives.
 *
 * The page stands alone: styles inline, no script, nothing fetched, so it
 * opens from a mail or an archive years later.  Every text from the record
 * (host names, reasons, firmware strings: the cluster's and files' words)
 * is escaped, so a record cannot put markup or script in the page. */
#ifndef LB_CHECK_HTML_H
#define LB_CHECK_HTML_H

#include <stddef.h>
#include <stdio.h>

#include "csvread.h"

/* Writes the page of record t to f (title: `name`, the record's file or
 * NULL).  Columns the record lacks are shown empty; a record without the
 * phase and verdict columns is refused.  Returns 0, or -1 with a message
 * in err (the stream's errors are the caller's, report/outfile.h). */
int lb_check_html_write(const struct lb_table *t, const char *name, FILE *f, char *err,
			size_t errlen);

/* The same into the file at path, written aside and renamed into place
 * (report/outfile.h); "-" or NULL: stdout.  Returns 0, or -1 with a
 * message naming the path. */
int lb_check_html_file(const struct lb_table *t, const char *name, const char *path,
		       char *err, size_t errlen);

#endif
