/* The JSON sink: one document per run,
 *
 *	{"provenance": {"format": "lanebench-json 1", "version": ..., ...},
 *	 "columns": ["label", "transport", ...],
 *	 "rows": [{"label": "tcp-p3-k2", "message_bytes": 4096, ...}, ...]}
 *
 * with an "incomplete": "<reason>" member after "rows" when the run
 * stopped early (the JSON form of the CSV's trailer).  Provenance values
 * are strings (the CSV head's, results/README.md); unsigned integers and
 * counters are JSON numbers, doubles numbers printed as "%.9g" (as in the
 * CSV), text strings; no value -- NULL text, NaN or infinity, a counter
 * the transport does not keep -- is null.  Strings are escaped per RFC
 * 8259 (quote, backslash, control characters).
 *
 * The file is written like the CSV (report/outfile.h): to a temporary
 * name, renamed into place when closed; "-" or NULL is stdout.  Rows are
 * written as they come, so a killed process leaves a temporary file that
 * is only the start of a document.
 *
 * As a struct lb_sink: .provenance = lb_json_sink_provenance, .begin =
 * lb_json_sink_begin, .row = lb_json_sink_row, .ctx = the struct
 * lb_json; then lb_json_close or lb_json_close_incomplete. */
#ifndef LB_JSON_H
#define LB_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "engine/result.h"

#define LB_JSON_FORMAT "lanebench-json 1"

struct lb_json;

/* Creates the file; nothing is written until the provenance or begin.
 * Returns NULL with a message in err. */
struct lb_json *lb_json_open(const char *path, char *err, size_t errlen);

/* Sink callbacks (ctx: the struct lb_json).  provenance is optional: a
 * document begun without it has just the format in "provenance". */
int lb_json_sink_provenance(void *json, const struct lb_prov *prov, char *err, size_t errlen);
int lb_json_sink_begin(void *json, const struct lb_col *cols, size_t ncols, char *err,
		       size_t errlen);
int lb_json_sink_row(void *json, const struct lb_result *r, char *err, size_t errlen);

/* Ends the document and commits the file (a document not begun gets no
 * columns and no rows).  Returns 0, or -1 with a message and the file
 * discarded.  j may be NULL. */
int lb_json_close(struct lb_json *j, char *err, size_t errlen);

/* Ends it with "incomplete": reason and commits; with no row written the
 * file is discarded instead (as lb_csv_close_incomplete). */
int lb_json_close_incomplete(struct lb_json *j, const char *reason, char *err, size_t errlen);

/* Discards the file and frees j; NULL is fine. */
void lb_json_abort(struct lb_json *j);

/* A write failed because the reader of the pipe went away (EPIPE). */
int lb_json_reader_gone(const struct lb_json *j);

/* Rows written so far; 0 for NULL. */
uint64_t lb_json_rows(const struct lb_json *j);

/* ---- a whole table at once ----
 * For commands whose rows are all at hand when they write (plan's ops,
 * topo's NICs and lanes, lp's bound and loads): one document of one table,
 * its columns fixed, its rows added by a callback. */

struct lb_json_table {
	const struct lb_col *cols;
	size_t ncols;
	/* Adds every row with lb_json_table_row; ctx is what the caller passed
	 * to lb_json_write_table.  0, or -1 with a message in err. */
	int (*rows)(struct lb_json *j, const void *ctx, char *err, size_t errlen);
};

/* Writes path: prov (NULL: none), the table's columns, its rows, and
 * commits the file; on any failure the file is discarded.  0, or -1 with
 * a message in err. */
int lb_json_write_table(const char *path, const struct lb_prov *prov,
			const struct lb_json_table *t, const void *ctx, char *err,
			size_t errlen);

/* One row of the table being written: v[] in the order of its columns. */
int lb_json_table_row(struct lb_json *j, const union lb_val *v, char *err, size_t errlen);

/* s as a JSON string, quotes included; NULL as null.  Always valid JSON
 * whatever the bytes: control characters escaped, and each byte of s that
 * is not part of well-formed UTF-8 written as \ufffd (U+FFFD).  For other
 * writers of JSON (plan, topo, compare). */
void lb_json_put_string(FILE *f, const char *s);

#endif
