/* Two check records, row by row (compare_check.h). */
#include "compare_check.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/units.h"

static const char *const phase_names[LB_CHK_NPHASES] = { "port", "aggregate", "bcast" };

const char *lb_chk_phase_name(enum lb_chk_phase p)
{
	return phase_names[p];
}

const char *lb_chk_row_kind(enum lb_chk_phase p)
{
	return p == LB_CHK_COLLECTIVE ? "collective" : phase_names[p];
}

const char *lb_chk_change_name(enum lb_chk_change c)
{
	static const char *const names[LB_CHK_NCHANGES] = {
		"same", "new failure", "fixed", "changed", "only in A", "only in B",
	};
	return names[c];
}

int lb_chk_is_record(const struct lb_table *t)
{
	return lb_table_col(t, "phase") >= 0 && lb_table_col(t, "verdict") >= 0;
}

double lb_chk_ratio(const double v[2])
{
	return v[0] > 0 && isfinite(v[1]) ? v[1] / v[0] : NAN;
}

/* The cell, "" when the file has no such column. */
static const char *cell(const struct lb_table *t, size_t row, const char *col)
{
	int c = lb_table_col(t, col);
	return c >= 0 ? lb_table_cell(t, row, c) : "";
}

/* A number of the row, NAN when empty, not a number or no column. */
static double number(const struct lb_table *t, size_t row, const char *col)
{
	double v;
	int c = lb_table_col(t, col);
	return c >= 0 && lb_table_finite(t, row, c, &v, NULL, 0) == 0 ? v : NAN;
}

/* The row's phase, or LB_CHK_NPHASES: one this comparison does not know. */
static enum lb_chk_phase phase_of(const struct lb_table *t, size_t row)
{
	const char *p = cell(t, row, "phase");
	for (int i = 0; i < LB_CHK_NPHASES; i++)
		if (strcmp(p, phase_names[i]) == 0)
			return (enum lb_chk_phase)i;
	return LB_CHK_NPHASES;
}

static int failing(const char *verdict)
{
	return strcmp(verdict, "FAIL") == 0 || strcmp(verdict, "ERROR") == 0;
}

static int passing(const char *verdict)
{
	return strcmp(verdict, "PASS") == 0 || strcmp(verdict, "WARN") == 0;
}

/* The columns every record has and the identities rest on: the rank and
 * lane of a port, the rank of an aggregate, whole numbers (else the
 * cell is named). */
static int check_record(const struct lb_table *t, const char *name, char *err, size_t len)
{
	static const char *const need[] = { "phase", "verdict", "rank", "lane" };
	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if (lb_table_col(t, need[i]) < 0)
			return lb_errf(err, len, "%s: no column '%s' (a check record has it)", name,
				       need[i]);
	uint64_t v;
	for (size_t r = 0; r < t->nrows; r++) {
		enum lb_chk_phase p = phase_of(t, r);
		if ((p == LB_CHK_PORT || p == LB_CHK_AGGREGATE) &&
		    lb_table_uint(t, r, lb_table_col(t, "rank"), 0, UINT32_MAX, &v, err, len))
			return -1;
		if (p == LB_CHK_PORT &&
		    lb_table_uint(t, r, lb_table_col(t, "lane"), 0, UINT32_MAX, &v, err, len))
			return -1;
	}
	return 0;
}

/* What identifies the row: its phase and the cells named in
 * compare_check.h, each as "<length>:<text>" (no cell can pass for two). */
static char *row_key(const struct lb_table *t, size_t row, enum lb_chk_phase p, int by_host)
{
	static const char *const cols[LB_CHK_NPHASES][2][3] = {
		[LB_CHK_PORT] = { { "rank", "lane" }, { "host", "lane" } },
		[LB_CHK_AGGREGATE] = { { "rank" }, { "host" } },
		[LB_CHK_COLLECTIVE] = { { "collective", "algorithm", "message_bytes" },
					{ "collective", "algorithm", "message_bytes" } },
	};
	char *s = NULL;
	size_t len;
	FILE *f = open_memstream(&s, &len);
	if (!f)
		return NULL;
	fprintf(f, "%d", (int)p);
	for (int i = 0; i < 3 && cols[p][by_host][i]; i++) {
		const char *v = cell(t, row, cols[p][by_host][i]);
		fprintf(f, "|%zu:%s", strlen(v), v);
	}
	int bad = ferror(f);
	if (fclose(f) || bad) {
		free(s);
		return NULL;
	}
	return s;
}

struct entry {
	char *key;
	int file;
	size_t row;
};

static int by_key_file_row(const void *x, const void *y)
{
	const struct entry *a = x, *b = y;
	int c = strcmp(a->key, b->key);
	if (c)
		return c;
	if (a->file != b->file)
		return a->file - b->file;
	return (a->row > b->row) - (a->row < b->row);
}

struct keyed {
	struct entry *e;
	size_t n;
};

static void free_keyed(struct keyed *k)
{
	for (size_t i = 0; i < k->n; i++)
		free(k->e[i].key);
	free(k->e);
	k->e = NULL;
	k->n = 0;
}

/* Every known row of both files with its key, sorted: equal keys side by
 * side, A's first.  Counts the rows of other phases. */
static int key_rows(const struct lb_table t[2], int by_host, struct keyed *k, size_t other[2])
{
	k->e = calloc(t[0].nrows + t[1].nrows + 1, sizeof(*k->e));
	k->n = 0;
	if (!k->e)
		return -1;
	for (int f = 0; f < 2; f++) {
		other[f] = 0;
		for (size_t r = 0; r < t[f].nrows; r++) {
			enum lb_chk_phase p = phase_of(&t[f], r);
			if (p == LB_CHK_NPHASES) {
				other[f]++;
				continue;
			}
			if (!(k->e[k->n].key = row_key(&t[f], r, p, by_host)))
				return -1;
			k->e[k->n].file = f;
			k->e[k->n++].row = r;
		}
	}
	qsort(k->e, k->n, sizeof(*k->e), by_key_file_row);
	return 0;
}

/* The first key that one file holds twice: its index in k (the first of
 * the pair), or SIZE_MAX. */
static size_t first_twin(const struct keyed *k)
{
	for (size_t i = 1; i < k->n; i++)
		if (k->e[i].file == k->e[i - 1].file && strcmp(k->e[i].key, k->e[i - 1].key) == 0)
			return i - 1;
	return SIZE_MAX;
}

/* Every port and aggregate of both files names its host. */
static int hosts_named(const struct lb_table t[2])
{
	for (int f = 0; f < 2; f++)
		for (size_t r = 0; r < t[f].nrows; r++) {
			enum lb_chk_phase p = phase_of(&t[f], r);
			if ((p == LB_CHK_PORT || p == LB_CHK_AGGREGATE) && !*cell(&t[f], r, "host"))
				return 0;
		}
	return 1;
}

/* The keys: by host when every row names one and none is there twice,
 * else by rank; then two rows of one key are an error naming both. */
static int choose_keys(struct lb_chk *c, const struct lb_table t[2], const char *const names[2],
		       struct keyed *k, char *err, size_t len)
{
	c->by_host = hosts_named(t);
	if (c->by_host) {
		if (key_rows(t, 1, k, c->other))
			return lb_errf(err, len, "out of memory");
		if (first_twin(k) == SIZE_MAX)
			return 0;
		free_keyed(k);
		c->by_host = 0;
	}
	if (key_rows(t, 0, k, c->other))
		return lb_errf(err, len, "out of memory");
	size_t i = first_twin(k);
	if (i == SIZE_MAX)
		return 0;
	const struct entry *e = &k->e[i];
	const struct lb_table *tt = &t[e->file];
	return lb_errf(err, len, "%s: lines %zu and %zu are the same %s (rank %s, lane %s, "
		       "algorithm %s): compare needs one row per key; split the file or drop one",
		       names[e->file], tt->lines[e->row], tt->lines[k->e[i + 1].row],
		       cell(tt, e->row, "phase"), cell(tt, e->row, "rank"), cell(tt, e->row, "lane"),
		       cell(tt, e->row, "algorithm"));
}

/* "lb-h5 lane 1 (rail1)", "rank 5 (lb-h5) lane 1 (rail1 -> eth1)": the
 * port as A names it (B where A has none), a NIC renamed in B shown. */
static void port_label(FILE *f, const struct lb_chk *c, const struct lb_table t[2],
		       const struct lb_chk_row *r, int s)
{
	const struct lb_table *tt = &t[s];
	size_t row = r->row[s];
	const char *host = cell(tt, row, "host"), *nic = cell(tt, row, "nic");
	if (c->by_host)
		fprintf(f, "%s", host);
	else
		fprintf(f, "rank %s%s%s%s", cell(tt, row, "rank"), *host ? " (" : "", host,
			*host ? ")" : "");
	if (r->phase == LB_CHK_AGGREGATE)
		return;
	fprintf(f, " lane %s (%s", cell(tt, row, "lane"), *nic ? nic : "-");
	if (s == 0 && r->row[1] != SIZE_MAX && strcmp(nic, cell(&t[1], r->row[1], "nic")) != 0)
		fprintf(f, " -> %s", cell(&t[1], r->row[1], "nic"));
	fputc(')', f);
}

/* "bcast binomial 1M", "allgather allgather-ring 64K"; "phase 3" for the
 * row that says it did not run (no algorithm). */
static void collective_label(FILE *f, const struct lb_table *t, size_t row)
{
	const char *coll = cell(t, row, "collective"), *algo = cell(t, row, "algorithm");
	uint64_t bytes;
	char size[24];
	int col = lb_table_col(t, "message_bytes");
	if (!*algo) {
		fputs("phase 3", f);
		return;
	}
	if (col >= 0 && lb_table_uint(t, row, col, 0, UINT64_MAX, &bytes, NULL, 0) == 0)
		lb_format_size(bytes, size, sizeof(size));
	else
		snprintf(size, sizeof(size), "-");
	fprintf(f, "%s %s %s", *coll ? coll : "bcast", algo, size);
}

static char *label_of(const struct lb_chk *c, const struct lb_table t[2], const struct lb_chk_row *r)
{
	int s = r->row[0] != SIZE_MAX ? 0 : 1;
	char *out = NULL;
	size_t len;
	FILE *f = open_memstream(&out, &len);
	if (!f)
		return NULL;
	if (r->phase == LB_CHK_COLLECTIVE)
		collective_label(f, &t[s], r->row[s]);
	else
		port_label(f, c, t, r, s);
	int bad = ferror(f);
	if (fclose(f) || bad) {
		free(out);
		return NULL;
	}
	return out;
}

static enum lb_chk_change change_of(const struct lb_chk_row *r)
{
	if (r->row[1] == SIZE_MAX)
		return LB_CHK_ONLY_A;
	if (r->row[0] == SIZE_MAX)
		return failing(r->verdict[1]) ? LB_CHK_NEW_FAILURE : LB_CHK_ONLY_B;
	if (!failing(r->verdict[0]) && failing(r->verdict[1]))
		return LB_CHK_NEW_FAILURE;
	if (failing(r->verdict[0]) && passing(r->verdict[1]))
		return LB_CHK_FIXED;
	return strcmp(r->verdict[0], r->verdict[1]) ? LB_CHK_CHANGED : LB_CHK_SAME;
}

/* The figures of both sides of a row whose row[] is set. */
static int fill_row(struct lb_chk *c, const struct lb_table t[2], struct lb_chk_row *r)
{
	for (int s = 0; s < 2; s++) {
		size_t row = r->row[s];
		int here = row != SIZE_MAX;
		r->tx[s] = here ? number(&t[s], row, "tx_bytes_per_second") : NAN;
		r->rx[s] = here ? number(&t[s], row, "rx_bytes_per_second") : NAN;
		r->lat[s] = here ? number(&t[s], row, "latency_seconds") : NAN;
		r->time[s] = here ? number(&t[s], row, "time_median_seconds") : NAN;
		r->verdict[s] = here ? cell(&t[s], row, "verdict") : "";
	}
	r->tx_ratio = lb_chk_ratio(r->tx);
	r->rx_ratio = lb_chk_ratio(r->rx);
	const double slower[2] = { fmin(r->tx[0], r->rx[0]), fmin(r->tx[1], r->rx[1]) };
	r->rate_ratio = lb_chk_ratio(slower);
	r->lat_ratio = lb_chk_ratio(r->lat);
	r->time_ratio = lb_chk_ratio(r->time);
	r->change = change_of(r);
	c->changes[r->change]++;
	return (r->label = label_of(c, t, r)) ? 0 : -1;
}

/* A's rows in A's order, then B's rows of B only, phase by phase. */
static int by_phase_then_file_order(const void *x, const void *y)
{
	const struct lb_chk_row *a = x, *b = y;
	if (a->phase != b->phase)
		return (int)a->phase - (int)b->phase;
	int sa = a->row[0] == SIZE_MAX, sb = b->row[0] == SIZE_MAX;
	if (sa != sb)
		return sa - sb;
	return (a->row[sa] > b->row[sb]) - (a->row[sa] < b->row[sb]);
}

/* One row per key: the key's run in k holds at most one row of each file
 * (choose_keys), A's first. */
static int pair_rows(struct lb_chk *c, const struct lb_table t[2], const struct keyed *k)
{
	c->rows = calloc(k->n + 1, sizeof(*c->rows));
	if (!c->rows)
		return -1;
	for (size_t i = 0; i < k->n;) {
		struct lb_chk_row *r = &c->rows[c->nrows++];
		r->row[0] = r->row[1] = SIZE_MAX;
		r->phase = phase_of(&t[k->e[i].file], k->e[i].row);
		r->row[k->e[i].file] = k->e[i].row;
		if (i + 1 < k->n && strcmp(k->e[i].key, k->e[i + 1].key) == 0) {
			r->row[1] = k->e[i + 1].row;
			i++;
		}
		i++;
	}
	qsort(c->rows, c->nrows, sizeof(*c->rows), by_phase_then_file_order);
	for (size_t i = 0; i < c->nrows; i++)
		if (fill_row(c, t, &c->rows[i]))
			return -1;
	return 0;
}

/* Per phase: how many rows both records have, and the geometric mean of
 * their B/A (the slower way's rate; a collective's time). */
static void summarise(struct lb_chk *c)
{
	double logs[LB_CHK_NPHASES] = { 0 };
	size_t logged[LB_CHK_NPHASES] = { 0 };
	for (size_t i = 0; i < c->nrows; i++) {
		const struct lb_chk_row *r = &c->rows[i];
		if (r->row[0] == SIZE_MAX || r->row[1] == SIZE_MAX)
			continue;
		c->compared[r->phase]++;
		double x = r->phase == LB_CHK_COLLECTIVE ? r->time_ratio : r->rate_ratio;
		if (x > 0 && isfinite(log(x))) {
			logs[r->phase] += log(x);
			logged[r->phase]++;
		}
	}
	for (int p = 0; p < LB_CHK_NPHASES; p++)
		c->geomean[p] = logged[p] ? exp(logs[p] / (double)logged[p]) : NAN;
}

int lb_chk_build(const struct lb_table t[2], const char *const names[2], struct lb_chk *c,
		 char *err, size_t len)
{
	struct keyed k = { 0 };
	memset(c, 0, sizeof(*c));
	for (int f = 0; f < 2; f++)
		if (check_record(&t[f], names[f], err, len))
			return -1;
	int rc = choose_keys(c, t, names, &k, err, len);
	if (rc == 0 && pair_rows(c, t, &k))
		rc = lb_errf(err, len, "out of memory");
	if (rc == 0)
		summarise(c);
	free_keyed(&k);
	return rc;
}

void lb_chk_free(struct lb_chk *c)
{
	for (size_t i = 0; i < c->nrows; i++)
		free(c->rows[i].label);
	free(c->rows);
	memset(c, 0, sizeof(*c));
}
