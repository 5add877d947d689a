/* What every engine hands out: results as rows of described columns, given
 * to sinks.
 *
 * An engine (bcast, p2p, sim) describes its columns once, as a table of
 * struct lb_col: the CSV name (with its unit), the kind of value, and how
 * the table on stdout shows it.  A result is one row of values in that
 * order.  The CSV writer and the table printer (report/) are two sinks
 * that both work from the description, so their column lists cannot drift
 * apart, and no command formats a row of its own.
 *
 * Every engine has the same shape: an immutable params struct, a run
 * function, and results handed to a struct lb_sink on the rank that
 * records (rank 0 of a job; the only process for sim). */
#ifndef LB_RESULT_H
#define LB_RESULT_H

#include <stddef.h>
#include <stdint.h>

#include "lib/prov.h"

enum lb_col_kind {
	LB_COL_TEXT,    /* val.s; NULL: no value (an empty CSV field) */
	LB_COL_UINT,    /* val.u */
	LB_COL_REAL,    /* val.d; NaN: no value (an empty CSV field) */
	LB_COL_COUNTER, /* the result's counter named col.counter; none: no value */
};

/* How the table shows a value. */
enum lb_show {
	LB_SHOW_NONE = 0, /* not in the table */
	LB_SHOW_TEXT,
	LB_SHOW_UINT,
	LB_SHOW_SIZE,     /* bytes, binary units: "4 KiB", "1 MiB", "100000 B" */
	LB_SHOW_SECONDS,  /* "12.35 us" (lb_format_seconds) */
	LB_SHOW_FIXED,    /* value / per, with `decimals` digits: "354.02" */
};

/* One column of the table on stdout. */
struct lb_show_as {
	enum lb_show how;
	const char *heading;
	int width;        /* printf field width; negative: left-aligned */
	int decimals;     /* LB_SHOW_FIXED */
	double per;       /* LB_SHOW_FIXED: shown = value / per (Gbit/s: 1.25e8); 0: 1 */
	const char *nan;  /* shown for NaN; NULL: "-", the table's one empty marker */
	const char *legend; /* what the column means, for the legend under the
			     * table ("median time per iteration"); NULL: none */
};

/* A value may be shown twice (bandwidth in MB/s and in Gbit/s). */
#define LB_SHOWN_MAX 2

struct lb_col {
	const char *name;    /* CSV header, unit included: "time_median_seconds" */
	enum lb_col_kind kind;
	const char *counter; /* LB_COL_COUNTER: the counter's name */
	struct lb_show_as table[LB_SHOWN_MAX]; /* in order; unused ones LB_SHOW_NONE */
};

/* The positional part of a column; designated fields may follow:
 * { LB_COLUMN("message_bytes", LB_COL_UINT), .table = { { LB_SHOW_SIZE, "bytes", 7 } } } */
#define LB_COLUMN(name_, kind_) .name = (name_), .kind = (kind_)

/* One cell; the member read is the one the column's kind names. */
union lb_val {
	const char *s;
	uint64_t u;
	double d;
};

/* An event count a transport keeps (frames sent, dropped by reason...). */
struct lb_counter {
	const char *name;
	uint64_t value;
};

#define LB_COUNTERS_MAX 32

struct lb_result {
	const struct lb_col *cols;
	size_t ncols;
	const union lb_val *vals;          /* [ncols]; unused for counter columns */
	const struct lb_counter *counters; /* those the transport keeps; may be none */
	size_t ncounters;
};

/* Where results go.  provenance (optional) is called once, on the rank
 * that records, just before begin, with the run's provenance (lib/prov.h:
 * the caller's part -- version, command, options -- plus, in a job, the
 * launcher, transport, hosts and lanes); the list lives until the run
 * returns, so a sink copies what it keeps.  begin (optional) is called
 * once, when the run is set up and before its first row; an engine with
 * several ranks agrees on the outcome of both, so a sink that cannot
 * start (a file that cannot be created) stops every rank with its
 * reason.  row is called for every result, in sweep order.  All return
 * 0, or -1 with a message in err; the engine then stops. */
struct lb_sink {
	int (*begin)(void *ctx, const struct lb_col *cols, size_t ncols, char *err,
		     size_t errlen);
	int (*row)(void *ctx, const struct lb_result *r, char *err, size_t errlen);
	void *ctx;
	int (*provenance)(void *ctx, const struct lb_prov *prov, char *err, size_t errlen);
};

/* What every engine calls to start a sink: provenance (if any), then
 * begin (if any).  Returns 0 or -1 with the sink's message. */
int lb_sink_start(const struct lb_sink *s, const struct lb_prov *prov,
		  const struct lb_col *cols, size_t ncols, char *err, size_t errlen);

/* The value of column `name`, or NULL when the result has no such column. */
const union lb_val *lb_result_val(const struct lb_result *r, const char *name);

/* The counter named `name`: 1 with its value in *v, or 0 when the result
 * does not carry it. */
int lb_result_counter(const struct lb_result *r, const char *name, uint64_t *v);

/* Several sinks as one: each in turn, stopping at the first that fails. */
struct lb_tee {
	const struct lb_sink *sinks;
	size_t n;
};

/* provenance, begin and row of a struct lb_tee (ctx): a sink itself. */
int lb_tee_provenance(void *tee, const struct lb_prov *prov, char *err, size_t errlen);
int lb_tee_begin(void *tee, const struct lb_col *cols, size_t ncols, char *err, size_t errlen);
int lb_tee_row(void *tee, const struct lb_result *r, char *err, size_t errlen);

#endif
