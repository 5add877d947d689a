/* The JSON sink; see json.h.  The document is streamed: provenance and
 * columns at begin, each row as it comes, the closing brackets at close. */
#include "json.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "outfile.h"

enum stage { FRESH, PROVENANCE_DONE, BEGUN };

struct lb_json {
	struct lb_outfile out;
	enum stage stage;
	const struct lb_col *cols;
	size_t ncols;
	uint64_t rows;
};

/* Length of the well-formed UTF-8 sequence at s (1 to 4 bytes), or 0
 * when it is not one: a stray continuation byte, an overlong form, a
 * surrogate, a code point above U+10FFFF, or a sequence cut short (by the
 * terminating NUL too: each byte is checked before the next is read). */
static size_t utf8_len(const unsigned char *s)
{
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (s[0] >= 0xe0 && s[0] <= 0xef) {
		unsigned lo = s[0] == 0xe0 ? 0xa0 : 0x80, hi = s[0] == 0xed ? 0x9f : 0xbf;
		return s[1] >= lo && s[1] <= hi && (s[2] & 0xc0) == 0x80 ? 3 : 0;
	}
	if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		unsigned lo = s[0] == 0xf0 ? 0x90 : 0x80, hi = s[0] == 0xf4 ? 0x8f : 0xbf;
		return s[1] >= lo && s[1] <= hi && (s[2] & 0xc0) == 0x80 && (s[3] & 0xc0) == 0x80 ?
		       4 : 0;
	}
	return 0;
}

void lb_json_put_string(FILE *f, const char *s)
{
	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (const unsigned char *c = (const unsigned char *)s; *c;) {
		size_t n = utf8_len(c);
		if (*c == '"' || *c == '\\')
			fprintf(f, "\\%c", *c);
		else if (*c == '\n')
			fputs("\\n", f);
		else if (*c == '\t')
			fputs("\\t", f);
		else if (*c < 0x20 || *c == 0x7f)
			fprintf(f, "\\u%04x", *c);
		else if (n == 0)
			fputs("\\ufffd", f); /* JSON is UTF-8: a byte that is not, replaced */
		else
			fwrite(c, 1, n, f);
		c += n ? n : 1;
	}
	fputc('"', f);
}

struct lb_json *lb_json_open(const char *path, char *err, size_t errlen)
{
	struct lb_json *j = calloc(1, sizeof(*j));
	if (!j) {
		lb_errf(err, errlen, "cannot create '%s': %s", path ? path : "<stdout>",
			strerror(ENOMEM));
		return NULL;
	}
	if (lb_outfile_open(&j->out, path, err, errlen) == 0)
		return j;
	free(j);
	return NULL;
}

static int checked(struct lb_json *j, char *err, size_t errlen)
{
	return lb_outfile_check(&j->out, err, errlen);
}

/* {"provenance": {...}: the format first, then the list in its order. */
static void write_provenance(struct lb_json *j, const struct lb_prov *prov)
{
	FILE *f = j->out.f;
	fprintf(f, "{\"provenance\": {\"format\": \"%s\"", LB_JSON_FORMAT);
	for (size_t i = 0; prov && i < prov->n; i++) {
		if (strcmp(prov->items[i].key, "format") == 0)
			continue;
		fputs(",\n  ", f);
		lb_json_put_string(f, prov->items[i].key);
		fputs(": ", f);
		lb_json_put_string(f, prov->items[i].value);
	}
	fputs("}", f);
	j->stage = PROVENANCE_DONE;
}

int lb_json_sink_provenance(void *ctx, const struct lb_prov *prov, char *err, size_t errlen)
{
	struct lb_json *j = ctx;
	errno = 0;
	if (j->stage == FRESH)
		write_provenance(j, prov);
	return checked(j, err, errlen);
}

static void write_columns(struct lb_json *j)
{
	FILE *f = j->out.f;
	fputs(",\n \"columns\": [", f);
	for (size_t i = 0; i < j->ncols; i++) {
		fputs(i ? ", " : "", f);
		lb_json_put_string(f, j->cols[i].name);
	}
	fputs("],\n \"rows\": [", f);
	j->stage = BEGUN;
}

int lb_json_sink_begin(void *ctx, const struct lb_col *cols, size_t ncols, char *err,
		       size_t errlen)
{
	struct lb_json *j = ctx;
	errno = 0;
	if (j->stage == FRESH)
		write_provenance(j, NULL);
	j->cols = cols;
	j->ncols = ncols;
	if (j->stage != BEGUN)
		write_columns(j);
	fflush(j->out.f);
	return checked(j, err, errlen);
}

static void put_value(FILE *f, const struct lb_col *col, const struct lb_result *r,
		      union lb_val v)
{
	uint64_t n;
	switch (col->kind) {
	case LB_COL_TEXT:
		lb_json_put_string(f, v.s);
		break;
	case LB_COL_UINT:
		fprintf(f, "%llu", (unsigned long long)v.u);
		break;
	case LB_COL_REAL:
		if (isfinite(v.d))
			fprintf(f, "%.9g", v.d);
		else
			fputs("null", f);
		break;
	case LB_COL_COUNTER:
		if (lb_result_counter(r, col->counter, &n))
			fprintf(f, "%llu", (unsigned long long)n);
		else
			fputs("null", f);
		break;
	}
}

int lb_json_sink_row(void *ctx, const struct lb_result *r, char *err, size_t errlen)
{
	struct lb_json *j = ctx;
	if (j->stage != BEGUN && lb_json_sink_begin(j, r->cols, r->ncols, err, errlen))
		return -1;
	if (r->ncols != j->ncols)
		return lb_errf(err, errlen, "cannot write '%s': a row of %zu columns, not %zu",
			       lb_outfile_name(&j->out), r->ncols, j->ncols);
	errno = 0;
	fputs(j->rows ? ",\n  {" : "\n  {", j->out.f);
	for (size_t i = 0; i < j->ncols; i++) {
		fputs(i ? ", " : "", j->out.f);
		lb_json_put_string(j->out.f, j->cols[i].name);
		fputs(": ", j->out.f);
		put_value(j->out.f, &j->cols[i], r, r->vals[i]);
	}
	fputc('}', j->out.f);
	fflush(j->out.f);
	if (checked(j, err, errlen))
		return -1;
	j->rows++;
	return 0;
}

/* "]" of the rows, the reason if any, "}". */
static void write_end(struct lb_json *j, const char *reason)
{
	if (j->stage != BEGUN)
		lb_json_sink_begin(j, NULL, 0, NULL, 0);
	fputs(j->rows ? "\n ]" : "]", j->out.f);
	if (reason) {
		fputs(",\n \"incomplete\": ", j->out.f);
		lb_json_put_string(j->out.f, *reason ? reason : "stopped");
	}
	fputs("}\n", j->out.f);
}

static int finish(struct lb_json *j, const char *reason, char *err, size_t errlen)
{
	if (!j->out.failed)
		write_end(j, reason);
	int rc = lb_outfile_finish(&j->out, err, errlen);
	free(j);
	return rc;
}

int lb_json_close(struct lb_json *j, char *err, size_t errlen)
{
	return j ? finish(j, NULL, err, errlen) : 0;
}

int lb_json_close_incomplete(struct lb_json *j, const char *reason, char *err, size_t errlen)
{
	if (!j)
		return 0;
	if (j->out.reader_gone || (lb_outfile_aside(&j->out) && j->rows == 0)) {
		lb_json_abort(j);
		return 0;
	}
	return finish(j, reason ? reason : "stopped", err, errlen);
}

void lb_json_abort(struct lb_json *j)
{
	if (!j)
		return;
	lb_outfile_abort(&j->out);
	free(j);
}

uint64_t lb_json_rows(const struct lb_json *j)
{
	return j ? j->rows : 0;
}

int lb_json_reader_gone(const struct lb_json *j)
{
	return j && j->out.reader_gone;
}

int lb_json_write_table(const char *path, const struct lb_prov *prov,
			const struct lb_json_table *t, const void *ctx, char *err,
			size_t errlen)
{
	struct lb_json *j = lb_json_open(path, err, errlen);
	if (!j)
		return -1;
	if (lb_json_sink_provenance(j, prov, err, errlen) ||
	    lb_json_sink_begin(j, t->cols, t->ncols, err, errlen) ||
	    t->rows(j, ctx, err, errlen)) {
		lb_json_abort(j);
		return -1;
	}
	return lb_json_close(j, err, errlen);
}

int lb_json_table_row(struct lb_json *j, const union lb_val *v, char *err, size_t errlen)
{
	const struct lb_result r = { .cols = j->cols, .ncols = j->ncols, .vals = v };
	return lb_json_sink_row(j, &r, err, errlen);
}
