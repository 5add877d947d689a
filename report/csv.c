/* The CSV sink.  Rows are flushed as they come, to a temporary name that
 * is renamed into place at the end -- complete, or with a trailer that
 * says why it stopped -- so a file under its own name is never a
 * truncated result that looks like a whole one. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "outfile.h"
#include "lib/error.h"
#include "lib/stop.h"

struct lb_csv {
	struct lb_outfile out;
	FILE *f; /* out.f */
	const struct lb_col *cols;
	size_t ncols;
	uint64_t rows;
};

static const char *shown(const struct lb_csv *c)
{
	return lb_outfile_name(&c->out);
}

/* RFC 4180: quote a field holding a delimiter, quote or line break, and
 * double the quotes inside.  A '#' is quoted too: readers that skip
 * comments (gnuplot, pandas comment='#') must not take a row for one. */
static void put_string(FILE *f, const char *s)
{
	if (!s)
		return;
	if (!s[strcspn(s, ",\"\r\n#")]) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

const char *lb_csv_field(const struct lb_col *col, const struct lb_result *r, union lb_val v,
			 char *buf, size_t len)
{
	uint64_t n;
	buf[0] = '\0';
	switch (col->kind) {
	case LB_COL_TEXT:
		return v.s ? v.s : "";
	case LB_COL_UINT:
		snprintf(buf, len, "%llu", (unsigned long long)v.u);
		break;
	case LB_COL_REAL:
		if (!isnan(v.d))
			snprintf(buf, len, "%.9g", v.d);
		break;
	case LB_COL_COUNTER:
		if (lb_result_counter(r, col->counter, &n))
			snprintf(buf, len, "%llu", (unsigned long long)n);
		break;
	}
	return buf;
}

static void put_value(FILE *f, const struct lb_col *col, const struct lb_result *r,
		      union lb_val v)
{
	char buf[32];
	if (col->kind == LB_COL_TEXT)
		put_string(f, v.s);
	else
		fputs(lb_csv_field(col, r, v, buf, sizeof(buf)), f);
}

/* Reports a write error once and marks the sink failed. */
static int check_stream(struct lb_csv *c, char *err, size_t errlen)
{
	return lb_outfile_check(&c->out, err, errlen);
}

/* "# key: value" lines before the header (results/README.md): the format
 * first, then the provenance in its order.  Keys are the list's own;
 * values are single lines (lib/prov.h). */
static void write_head(struct lb_csv *c, const struct lb_prov *prov)
{
	fprintf(c->f, "# format: %s\n", LB_CSV_FORMAT);
	for (size_t i = 0; prov && i < prov->n; i++)
		if (strcmp(prov->items[i].key, "format") != 0)
			fprintf(c->f, "# %s: %s\n", prov->items[i].key, prov->items[i].value);
}

static int write_header(struct lb_csv *c, const struct lb_prov *prov, char *err,
			size_t errlen)
{
	errno = 0;
	write_head(c, prov);
	for (size_t i = 0; i < c->ncols; i++) {
		if (i)
			fputc(',', c->f);
		put_string(c->f, c->cols[i].name);
	}
	fputc('\n', c->f);
	fflush(c->f);
	return check_stream(c, err, errlen);
}

struct lb_csv *lb_csv_open(const char *path, const struct lb_col *cols,
			   size_t ncols, char *err, size_t errlen)
{
	return lb_csv_create(path, NULL, cols, ncols, err, errlen);
}

struct lb_csv *lb_csv_create(const char *path, const struct lb_prov *prov,
			     const struct lb_col *cols, size_t ncols, char *err, size_t errlen)
{
	struct lb_csv *c = calloc(1, sizeof(*c));
	if (!c) {
		lb_errf(err, errlen, "cannot create '%s': %s", path ? path : "<stdout>",
			strerror(ENOMEM));
		return NULL;
	}
	c->cols = cols;
	c->ncols = ncols;
	if (lb_outfile_open(&c->out, path, err, errlen)) {
		free(c);
		return NULL;
	}
	c->f = c->out.f;
	if (write_header(c, prov, err, errlen) == 0)
		return c;
	lb_csv_abort(c);
	return NULL;
}

int lb_csv_row(struct lb_csv *c, const struct lb_result *r, char *err, size_t errlen)
{
	if (c->out.failed)
		return lb_errf(err, errlen, "cannot write '%s': an earlier write failed", shown(c));
	if (r->ncols != c->ncols)
		return lb_errf(err, errlen, "cannot write '%s': a row of %zu columns, not %zu",
			       shown(c), r->ncols, c->ncols);
	errno = 0;
	for (size_t i = 0; i < c->ncols; i++) {
		if (i)
			fputc(',', c->f);
		put_value(c->f, &c->cols[i], r, r->vals[i]);
	}
	fputc('\n', c->f);
	/* Flushed per row: a sweep killed outright (SIGKILL, a crash) keeps
	 * what it measured in the temporary file, and a pipe reader sees
	 * each row as it is measured. */
	fflush(c->f);
	if (check_stream(c, err, errlen))
		return -1;
	c->rows++;
	return 0;
}

int lb_csv_sink_row(void *csv, const struct lb_result *r, char *err, size_t errlen)
{
	struct lb_csv *c = csv;
	if (lb_csv_row(c, r, err, errlen) == 0)
		return 0;
	if (!c->out.reader_gone)
		return -1;
	lb_stop_request(SIGPIPE); /* the CSV's reader left: stop, quietly */
	return 0;
}

int lb_csv_close(struct lb_csv *c, char *err, size_t errlen)
{
	if (!c)
		return 0;
	int rc = lb_outfile_finish(&c->out, err, errlen);
	free(c);
	return rc;
}

/* "# lanebench: incomplete after 12 rows: <reason>", the reason on one
 * line and without commas or quotes, so that a reader that does not skip
 * comments sees one short field, never a shifted row. */
static void write_trailer(struct lb_csv *c, const char *reason)
{
	fprintf(c->f, "# lanebench: incomplete after %llu rows: ", (unsigned long long)c->rows);
	for (const char *s = reason && *reason ? reason : "stopped"; *s; s++)
		fputc(*s == ',' ? ';' : *s == '"' ? '\'' : (unsigned char)*s < 0x20 ? ' ' : *s, c->f);
	fputc('\n', c->f);
}

int lb_csv_close_incomplete(struct lb_csv *c, const char *reason, char *err, size_t errlen)
{
	if (!c)
		return 0;
	if (c->out.reader_gone || (lb_outfile_aside(&c->out) && c->rows == 0)) {
		lb_csv_abort(c); /* nobody to tell, or nothing measured to keep */
		return 0;
	}
	if (!c->out.failed)
		write_trailer(c, reason);
	return lb_csv_close(c, err, errlen);
}

const char *lb_csv_path(const struct lb_csv *c)
{
	return shown(c);
}

uint64_t lb_csv_rows(const struct lb_csv *c)
{
	return c ? c->rows : 0;
}

int lb_csv_reader_gone(const struct lb_csv *c)
{
	return c && c->out.reader_gone;
}

void lb_csv_abort(struct lb_csv *c)
{
	if (!c)
		return;
	lb_outfile_abort(&c->out);
	free(c);
}
