/* A CSV sink: results are data handed to it; it formats, never computes.
 *
 * The header row is written at open.  Strings are quoted per RFC 4180 when
 * they hold a comma, quote, CR or LF; unsigned integers print in decimal;
 * doubles as "%.9g", and NaN (a value that does not exist, such as a model
 * the algorithm lacks) as an empty field.  Lines end in "\n".
 *
 * A file is written to a temporary name in its directory and renamed into
 * place by a successful lb_csv_close(), so readers never see half a file;
 * after any error (or lb_csv_abort) the temporary file is removed.  A NULL
 * path or "-" writes to stdout; an existing device or FIFO ("/dev/stdout")
 * is written in place.  Errors name the path and strerror. */
#ifndef LB_CSV_H
#define LB_CSV_H

#include <stddef.h>
#include <stdint.h>

enum lb_csv_kind { LB_CSV_STRING, LB_CSV_UINT, LB_CSV_DOUBLE };

struct lb_csv_col {
	const char *name; /* with its unit: "sim_seconds" */
	enum lb_csv_kind kind;
};

/* One cell; the member read is the one its column's kind names.  A NULL
 * string is an empty field. */
union lb_csv_val {
	const char *s;
	uint64_t u;
	double d;
};

struct lb_csv;

/* Opens the sink and writes the header.  cols must outlive the sink.
 * Returns NULL with a message in err. */
struct lb_csv *lb_csv_open(const char *path, const struct lb_csv_col *cols,
			   size_t ncols, char *err, size_t errlen);

/* Writes one row of ncols values.  Returns 0, or -1 with a message; the
 * sink is then failed and close will discard the file. */
int lb_csv_row(struct lb_csv *c, const union lb_csv_val *vals,
	       char *err, size_t errlen);

/* Flushes and commits (renames the file into place) and frees c.  Returns 0,
 * or -1 with a message and the file discarded (a failed sink always gives
 * -1).  c may be NULL. */
int lb_csv_close(struct lb_csv *c, char *err, size_t errlen);

/* Discards the output (removes the temporary file) and frees c; for error
 * paths elsewhere.  c may be NULL. */
void lb_csv_abort(struct lb_csv *c);

#endif
