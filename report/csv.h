/* The CSV sink: results (engine/result.h) are data handed to it; it
 * formats, never computes.  Its columns are the engine's description.
 *
 * At open the head is written: provenance lines "# key: value" (the
 * first "# format: lanebench-csv 2", then the run's provenance in its
 * order, lib/prov.h; results/README.md lists the keys), then the header
 * row (the columns' names).  Strings are
 * quoted per RFC 4180 when they hold a comma, quote, CR or LF (or a '#');
 * unsigned integers and counters print in decimal; doubles as "%.9g".  No
 * value -- a NULL string, NaN (a model the algorithm lacks), a counter the
 * transport does not keep -- is an empty field.  Lines end in "\n".
 *
 * Every row is flushed as it is written.  A file is written to a temporary
 * name in its directory ("<path>.tmp.<pid>.<n>") and renamed into place by
 * lb_csv_close() (the run completed) or lb_csv_close_incomplete() (it
 * stopped early: interrupted, or an error), which first appends one
 * trailer line
 *
 *	# lanebench: incomplete after 12 rows: interrupted (SIGINT)
 *
 * So a file under its own name is either complete, with no '#' line
 * after the header, or ends in that trailer; never silently short.  After a write error (or
 * lb_csv_abort) the temporary file is removed; only a process killed
 * outright (SIGKILL, a crash) leaves it, holding every finished row.  A
 * NULL path or "-" writes to stdout; an existing device, FIFO or
 * symbolic link ("/dev/stdout") is written in place, through the link
 * (with the trailer too), never replaced.  Errors
 * name the path and strerror. */
#ifndef LB_CSV_H
#define LB_CSV_H

#include <stddef.h>
#include <stdint.h>

#include "engine/result.h"

struct lb_csv;

/* The value of the head's "format" line. */
#define LB_CSV_FORMAT "lanebench-csv 2"

/* Opens the sink and writes the head: provenance (prov may be NULL: only
 * the format line), then the header.  cols must outlive the sink; prov
 * is not kept.  Returns NULL with a message in err. */
struct lb_csv *lb_csv_create(const char *path, const struct lb_prov *prov,
			     const struct lb_col *cols, size_t ncols, char *err, size_t errlen);

/* lb_csv_create without provenance (only the format line). */
struct lb_csv *lb_csv_open(const char *path, const struct lb_col *cols,
			   size_t ncols, char *err, size_t errlen);

/* Writes one row: r's values of the columns the sink was opened with (r
 * has the same columns).  Returns 0, or -1 with a message; the sink is
 * then failed and close will discard the file. */
int lb_csv_row(struct lb_csv *c, const struct lb_result *r, char *err, size_t errlen);

/* The row callback of a struct lb_sink whose ctx is a struct lb_csv: like
 * lb_csv_row, except that when the reader of the pipe went away it asks
 * the run to stop as SIGPIPE would (lib/stop.h) and returns 0. */
int lb_csv_sink_row(void *csv, const struct lb_result *r, char *err, size_t errlen);

/* Flushes and commits (renames the file into place) and frees c.  Returns 0,
 * or -1 with a message and the file discarded (a failed sink always gives
 * -1).  c may be NULL. */
int lb_csv_close(struct lb_csv *c, char *err, size_t errlen);

/* The run stopped before its last row: appends the trailer with reason
 * (one line; commas and quotes are replaced) and commits like
 * lb_csv_close.  With no row written yet the file is discarded instead
 * (nothing was measured; an older file of that name is left alone), and
 * a pipe whose reader is gone is just closed.  Returns 0, or -1 with a
 * message and the file discarded. */
int lb_csv_close_incomplete(struct lb_csv *c, const char *reason, char *err, size_t errlen);

/* The path as given, or "<stdout>". */
const char *lb_csv_path(const struct lb_csv *c);

/* Rows written so far; 0 for NULL. */
uint64_t lb_csv_rows(const struct lb_csv *c);

/* A write failed because the reader of the pipe went away (EPIPE, with
 * SIGPIPE ignored): the caller stops as if it had got SIGPIPE. */
int lb_csv_reader_gone(const struct lb_csv *c);

/* Discards the output (removes the temporary file) and frees c; for error
 * paths elsewhere.  c may be NULL. */
void lb_csv_abort(struct lb_csv *c);

/* A value as a CSV field shows it, unquoted: a string as it is ("" for
 * none), a number as above ("" for none); what the page of a run's kept
 * rows (rowtable.h) shows too.  Returns buf. */
const char *lb_csv_field(const struct lb_col *col, const struct lb_result *r, union lb_val v,
			 char *buf, size_t len);

#endif
