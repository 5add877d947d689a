/* Comparing two check records (lanebench compare on two `lanebench check`
 * CSVs): the same port, rank aggregate and collective in both, their rates
 * and times B/A, and how each verdict changed -- the new failures, the
 * fixed, what one record has and the other has not.
 *
 * A port is the same port when its host and lane match: ranks may be
 * numbered otherwise in the next run, the host and its cabling are what an
 * acceptance engineer checks.  When a record lacks hosts, or a host holds
 * several ranks (a (host, lane) twice in one file), ports match on (rank,
 * lane) instead, and aggregates on rank; the comparison says which.
 * Collectives match on (collective, algorithm, message_bytes).
 *
 * Columns other than those read here (a later record's inventory,
 * counters, level) are ignored; verdicts are compared as text, whatever
 * their value (PASS, WARN, FAIL, ERROR, SKIP, n/a): FAIL and ERROR are
 * failures, everything else is not. */
#ifndef LB_COMPARE_CHECK_H
#define LB_COMPARE_CHECK_H

#include <stddef.h>
#include <stdio.h>

#include "csvread.h"

enum lb_chk_phase { LB_CHK_PORT, LB_CHK_AGGREGATE, LB_CHK_COLLECTIVE, LB_CHK_NPHASES };

/* How a row's verdict went from A to B. */
enum lb_chk_change {
	LB_CHK_SAME,        /* the same verdict */
	LB_CHK_NEW_FAILURE, /* B fails (FAIL, ERROR) where A did not, or had no such row */
	LB_CHK_FIXED,       /* A failed, B does not */
	LB_CHK_CHANGED,     /* another change: PASS -> WARN, SKIP -> PASS, FAIL -> ERROR ... */
	LB_CHK_ONLY_A,      /* missing from B */
	LB_CHK_ONLY_B,      /* new in B, not failing */
	LB_CHK_NCHANGES,
};

struct lb_chk_row {
	enum lb_chk_phase phase;
	char *label;            /* "lb-h5 lane 1 (rail1)", "lb-h5", "bcast binomial 1M" */
	size_t row[2];          /* data row in A, B; SIZE_MAX: not in that record */
	double tx[2], rx[2];    /* B/s: port, aggregate; NAN where empty */
	double lat[2];          /* s: port */
	double time[2];         /* s: collective's median */
	const char *verdict[2]; /* cells of the tables; "" where absent */
	/* B/A (lb_chk_ratio); rate: of the slower way, min(tx, rx) */
	double tx_ratio, rx_ratio, rate_ratio, lat_ratio, time_ratio;
	enum lb_chk_change change;
};

struct lb_chk {
	int by_host;            /* ports by (host, lane), aggregates by host; else by rank */
	struct lb_chk_row *rows; /* by phase, then A's order, then B's rows of B only */
	size_t nrows;
	size_t changes[LB_CHK_NCHANGES];
	size_t compared[LB_CHK_NPHASES]; /* rows in both records */
	/* per phase, over its rows in both: the geometric mean of rate_ratio
	 * (port, aggregate) or time_ratio (collective); NAN: none */
	double geomean[LB_CHK_NPHASES];
	size_t other[2];        /* rows of phases this does not know, per file: not compared */
};

/* The phase's name: "port", "aggregate", "bcast" (as the CSV's column). */
const char *lb_chk_phase_name(enum lb_chk_phase p);

/* What a row is, for a reader: "port", "aggregate", "collective". */
const char *lb_chk_row_kind(enum lb_chk_phase p);

/* "new failure", "fixed", "changed", "same", "only in A", "only in B". */
const char *lb_chk_change_name(enum lb_chk_change c);

/* A lanebench check CSV: it has the columns phase and verdict. */
int lb_chk_is_record(const struct lb_table *t);

/* B/A of two values; NAN when either is missing or A is not above 0. */
double lb_chk_ratio(const double v[2]);

/* Builds the comparison of check records t[0] (A) and t[1] (B), read from
 * names[0], names[1].  Returns 0, or -1 with a message in err: a column
 * it needs missing (phase, verdict, rank, lane), a rank or lane that is
 * not a whole number (file:line:column), two rows with the same key in one
 * file (both lines named), out of memory. */
int lb_chk_build(const struct lb_table t[2], const char *const names[2], struct lb_chk *c,
		 char *err, size_t errlen);

void lb_chk_free(struct lb_chk *c);

/* Writing it (report/compare_check_out.c). */

/* The rows per phase in 80 columns, then the lists: NEW FAILURES, FIXED,
 * other verdict changes, only in A, only in B; a count line. */
void lb_chk_print(FILE *out, const struct lb_chk *c, const struct lb_table t[2],
		  const char *const names[2]);

/* One JSON document; fail_pct < 0: no gate. */
void lb_chk_write_json(FILE *f, const struct lb_chk *c, const struct lb_table t[2],
		       const char *const names[2], double fail_pct, size_t failed);

/* The rows as CSV, '#' lines naming the files first. */
void lb_chk_write_csv(FILE *f, const struct lb_chk *c, const char *const names[2]);

#endif
