/* The table sink: results as aligned text lines for people, on stdout.
 *
 * Its columns are the `table` views of the engine's column description
 * (engine/result.h): a heading line, then one line per result, each field
 * printed with its view's width and format, one space between fields.
 * Every row is flushed, so a reader sees it as it is measured and a closed
 * pipe is noticed at once. */
#ifndef LB_TABLE_H
#define LB_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "engine/result.h"
#include "table_size.h" /* lb_table_format_size */

/* Columns a legend can name: more are shown, not named. */
#define LB_TABLE_LEGEND_MAX 24

struct lb_table {
	FILE *out;
	int headed; /* the heading line is out */
	size_t rows; /* rows printed under it: a legend only when there are */
	/* the shown columns that have a legend, kept by the heading line */
	struct lb_show_as legend[LB_TABLE_LEGEND_MAX];
	size_t nlegend;
};

/* Prints the heading line of these columns (not flushed: it goes out
 * with the first row). */
void lb_table_header(struct lb_table *t, const struct lb_col *cols, size_t ncols);

/* Prints one result's line, after the heading if none was printed yet,
 * and flushes.  A reader gone (EPIPE) asks the run to stop as SIGPIPE
 * would (lib/stop.h) and returns 0; another write error returns -1 with
 * a message in err. */
int lb_table_row(struct lb_table *t, const struct lb_result *r, char *err, size_t errlen);

/* The legend under the table, after a blank line: "columns:", then a line
 * "  <heading>  <meaning>" for every shown column whose view has one and
 * one for the empty marker "-", wrapped to the stream's width
 * (lib/wrap.h).  Nothing when no row was printed or
 * no column has a legend.  Call it once the last row is out. */
void lb_table_legend(struct lb_table *t);

/* Sink callbacks (ctx: a struct lb_table): begin prints the heading,
 * row is lb_table_row. */
int lb_table_sink_begin(void *table, const struct lb_col *cols, size_t ncols, char *err,
			size_t errlen);
int lb_table_sink_row(void *table, const struct lb_result *r, char *err, size_t errlen);

#endif
