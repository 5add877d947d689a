/* Comparing two result files (lanebench compare): which rows correspond,
 * what differs in the set-up, B/A per row with both runs' spread, and a
 * summary per algorithm.
 *
 * Rows are matched on what a user varies inside one run: collective,
 * algorithm, root, lane, direction and message size when both files have
 * the column; ranks, lanes and stripe when either file holds more than one
 * value of them (a sim sweep); slice_bytes when both files have the same
 * set of slice sizes (else rows are matched without it, and the comparison
 * says so).  Everything else that has one value per file (lanes, ranks,
 * transport, line rate, NICs, versions, options) is the set-up that the
 * comparison is about and is reported, not matched on. */
#ifndef LB_COMPARE_H
#define LB_COMPARE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "csvread.h"

enum lb_cmp_kind { LB_CMP_BCAST, LB_CMP_P2P, LB_CMP_SIM };

/* B relative to A, judged on both runs' spread; or not judged at all when
 * a figure it rests on is missing, not a finite time above 0, or out of
 * order (a min above the median): such a row is never "within noise". */
enum lb_cmp_verdict {
	LB_CMP_FASTER = -1,
	LB_CMP_NOISE = 0,
	LB_CMP_SLOWER = 1,
	LB_CMP_UNJUDGED = 2,
};

/* A value of both runs' time: median, and its spread [low, high] (low ==
 * high when the file has no spread, as sim's exact times). */
struct lb_cmp_time {
	double mid, low, high;
};

struct lb_cmp_row {
	size_t ra, rb;   /* data rows of A and B */
	char *label;     /* "multilane 1M": the key columns that vary */
	size_t group;    /* index into summary */
	unsigned long long bytes;
	struct lb_cmp_time a, b;
	double ratio;    /* B/A of the median times (NAN if one is unusable) */
	enum lb_cmp_verdict verdict;
	char *why;       /* LB_CMP_UNJUDGED: "B.csv:7:10: time_min_seconds: ..." */
	uint64_t slice[2]; /* A's and B's slice_bytes (0: not a column of both,
			    * or a key) */
};

/* One set-up item whose values differ (or agree) between the files. */
struct lb_cmp_item {
	char *name, *a, *b;
};

struct lb_cmp_summary {
	char *group;     /* "multilane", or "multilane root 3" */
	size_t rows, faster, slower, noise, unjudged;
	double geomean;  /* geometric mean of B/A over the group's judged rows */
};

struct lb_cmp {
	enum lb_cmp_kind kind;
	const char *time_col, *low_col, *high_col; /* low_col NULL: no spread */
	const char *spread;   /* "min..p99", "min..max" or "none" */
	const char *key[12];  /* columns matched on */
	unsigned char shown[12]; /* key[i] is named in row labels (it varies) */
	size_t nkey;
	char *slice_note;     /* rows whose slices differ (A -> B), or NULL */
	size_t slice_differs; /* matched rows whose slice_bytes differ */
	struct lb_cmp_item *items; /* set-up, differences first */
	size_t nitems, ndiffer;
	struct lb_cmp_row *rows;
	size_t nrows;
	char **only[2];       /* labels of rows found in one file only */
	size_t nonly[2];
	struct lb_cmp_summary *summary;
	size_t nsummary;
};

/* Kind name: "bcast", "p2p", "sim". */
const char *lb_cmp_kind_name(enum lb_cmp_kind kind);

/* Builds the comparison of t[0] (A) and t[1] (B), read from files
 * names[0], names[1].  Returns 0; or -1 with a message naming the file
 * (and column or lines) in err: not a lanebench CSV, a required column
 * missing, different kinds, an integer column's cell not a whole number in
 * range (file:line:column), two rows with the same key.  Zero matching
 * rows is not an error here (nrows == 0: see lb_cmp_describe_keys).
 * Matching sorts the keys: n log n in the rows. */
int lb_cmp_build(const struct lb_table t[2], const char *const names[2], struct lb_cmp *c,
		 char *err, size_t errlen);

/* "binomial 64K..4M (7 rows); multilane 64K..1M (5 rows)": the keys of
 * table t, for saying why nothing matched.  Caller frees; NULL out of
 * memory. */
char *lb_cmp_describe_keys(const struct lb_cmp *c, const struct lb_table *t);

void lb_cmp_free(struct lb_cmp *c);

/* Writing it (report/compare_out.c); names[] are the files' names. */

/* "faster", "slower", "within noise", "cannot judge". */
const char *lb_cmp_verdict_name(enum lb_cmp_verdict v);

/* "93.2 ms [90.1 ms..97 ms]"; "-" for a value the file did not give. */
void lb_cmp_format_time(struct lb_cmp_time t, char *buf, size_t len);

/* The files, the keys matched on and the set-up differences. */
void lb_cmp_print_head(FILE *out, const struct lb_cmp *c, const struct lb_table t[2],
		       const char *const names[2]);

/* The rows side by side, why any cannot be judged, the rows of one file
 * only, the summary per group. */
void lb_cmp_print_rows(FILE *out, const struct lb_cmp *c, const struct lb_table t[2]);

/* One JSON document (valid whatever bytes the files held); fail_pct < 0:
 * no gate. */
void lb_cmp_write_json(FILE *f, const struct lb_cmp *c, const struct lb_table t[2],
		       const char *const names[2], double fail_pct, size_t failed);

/* The matched rows as CSV, the comparison's set-up in '#' lines first. */
void lb_cmp_write_csv(FILE *f, const struct lb_cmp *c, const char *const names[2]);

/* Pieces of the writers, shared with the check records'
 * (report/compare_check_out.c). */

/* "A: a.csv (40 rows, lanebench v0.1, 2026-11-24T03:40:11Z)" */
void lb_cmp_file_line(FILE *out, const char *name, const char *path, const struct lb_table *t);

/* {"file": ..., "rows": N, "incomplete": ..., "provenance": {...}} */
void lb_cmp_json_file(FILE *f, const char *path, const struct lb_table *t);

/* "%.9g", or null for a value that is not finite. */
void lb_cmp_json_number(FILE *f, double v);

/* A CSV field, quoted when it holds a comma, quote, line break or '#'. */
void lb_cmp_csv_field(FILE *f, const char *s);

/* ",0.5", or "," for a value that is not finite. */
void lb_cmp_csv_number(FILE *f, double v);

/* Text inside a '#' line: control characters become '?'. */
void lb_cmp_comment_text(FILE *f, const char *s);

#endif
