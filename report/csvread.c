#include "csvread.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/error.h"
#include "lib/textin.h"
#include "lib/units.h"

struct reader {
	FILE *f;
	size_t line;
	struct lb_textin_count count;
	const char *over;  /* a bound of lib/textin.h broken: reading stops */
	char *field;
	size_t len, cap;
};

/* The next byte, or EOF -- also once past a bound of lib/textin.h (then
 * r->over says which): /dev/zero or a FIFO without end is refused, not
 * read until memory runs out. */
static int next(struct reader *r)
{
	int c = r->over ? EOF : getc(r->f);
	if (c == EOF)
		return EOF;
	r->over = lb_textin_count(&r->count, c);
	return r->over ? EOF : c;
}

static int put(struct reader *r, int c)
{
	if (r->len + 1 >= r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 64;
		char *p = realloc(r->field, cap);
		if (!p)
			return -1;
		r->field = p;
		r->cap = cap;
	}
	r->field[r->len++] = (char)c;
	r->field[r->len] = 0;
	return 0;
}

/* Reads one field; *end is ',' (more on this row), '\n' or EOF.  Returns
 * 0, 1 at end of file before any field, -1 on a malformed quote. */
static int read_field(struct reader *r, int *end)
{
	int c = next(r), quoted = c == '"';
	r->len = 0;
	if (put(r, 0))
		return -1;
	r->len = 0;
	if (c == EOF)
		return 1;
	if (quoted)
		c = next(r);
	for (;; c = next(r)) {
		if (c == EOF && quoted)
			return -1;
		if (quoted && c == '"') {
			c = next(r);
			if (c != '"') {
				quoted = 0;
				if (c != ',' && c != '\n' && c != '\r' && c != EOF)
					return -1;
			}
		}
		if (!quoted && (c == ',' || c == '\n' || c == EOF))
			break;
		if (!quoted && c == '\r')
			continue;
		if (c == '\n')
			r->line++;
		if (put(r, c))
			return -1;
	}
	*end = c;
	return 0;
}

struct cells {
	char **v;
	size_t n, cap;
};

static int push_cell(struct cells *c, const char *s)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 256;
		char **v = realloc(c->v, cap * sizeof(*v));
		if (!v)
			return -1;
		c->v = v;
		c->cap = cap;
	}
	return (c->v[c->n++] = strdup(s)) ? 0 : -1;
}

#define TRAILER "# lanebench: "

/* The length of the key of a provenance line "# key: value"
 * ([a-z][a-z0-9_.-]*, then ": "), or 0 if the line is not one. */
static size_t prov_key_len(const char *line)
{
	if (line[0] != '#' || line[1] != ' ' || !islower((unsigned char)line[2]))
		return 0;
	size_t n = 2;
	while (islower((unsigned char)line[n]) || isdigit((unsigned char)line[n]) ||
	       (line[n] && strchr("_.-", line[n])))
		n++;
	return line[n] == ':' ? n - 2 : 0;
}

/* Appends the head line "# key: value" to t->prov; 0, or -1 out of memory. */
static int add_prov(struct lb_table *t, const char *line, size_t keylen)
{
	struct lb_prov_item *p = realloc(t->prov, (t->nprov + 1) * sizeof(*p));
	if (!p)
		return -1;
	t->prov = p;
	const char *value = line + 2 + keylen + 1;
	value += *value == ' ';
	p[t->nprov].key = strndup(line + 2, keylen);
	p[t->nprov].value = strdup(value);
	t->nprov++;
	return p[t->nprov - 1].key && p[t->nprov - 1].value ? 0 : -1;
}

/* A line starting with '#' (a comment, as gnuplot and pandas' comment='#'
 * read it): skipped, but lanebench's trailer is kept as t->note and a
 * "# key: value" line before the header as provenance.  Returns 1 if the
 * line was one (and is consumed), 0 if not, -1 out of memory. */
static int comment_line(struct reader *r, struct lb_table *t)
{
	int c = r->over ? EOF : getc(r->f); /* a look, counted when read */
	if (c != EOF)
		ungetc(c, r->f);
	if (c != '#' || (c = next(r)) == EOF) /* EOF: past a bound, said by the caller */
		return 0;
	r->len = 0;
	for (; c != EOF && c != '\n'; c = next(r))
		if (c != '\r' && put(r, c))
			return -1;
	if (strncmp(r->field, TRAILER, strlen(TRAILER)) == 0) {
		free(t->note);
		if (!(t->note = strdup(r->field + strlen(TRAILER))))
			return -1;
		return 1;
	}
	size_t keylen = prov_key_len(r->field);
	if (t->ncols == 0 && keylen && add_prov(t, r->field, keylen))
		return -1;
	return 1;
}

/* Notes that data row t->nrows starts at file line `line`. */
static int add_line(struct lb_table *t, size_t line)
{
	size_t *l = realloc(t->lines, (t->nrows + 1) * sizeof(*l));
	if (!l)
		return -1;
	t->lines = l;
	l[t->nrows] = line;
	return 0;
}

/* Reads every row into c; the header fixes the width. */
static int read_rows(struct reader *r, struct cells *c, struct lb_table *t,
		     const char *path, char *err, size_t len)
{
	for (;;) {
		size_t start = c->n;
		int end = ',', rc = 0;
		size_t first = ++r->line;
		int comment = comment_line(r, t);
		if (comment < 0)
			return lb_errf(err, len, "%s: out of memory", path);
		if (r->over)
			return lb_errf(err, len, "%s:%zu: %s", path, r->line, r->over);
		if (comment)
			continue;
		while (end == ',' && (rc = read_field(r, &end)) == 0)
			if (push_cell(c, r->field))
				return lb_errf(err, len, "%s: out of memory", path);
		if (r->over)
			return lb_errf(err, len, "%s:%zu: %s", path, r->line, r->over);
		if (rc < 0)
			return lb_errf(err, len, "%s:%zu: malformed quoted field", path, r->line);
		size_t width = c->n - start;
		if (width == 1 && !c->v[start][0]) { /* blank line */
			free(c->v[--c->n]);
			if (end == EOF || rc == 1)
				return 0;
			continue;
		}
		if (rc == 1 && width == 0)
			return 0;
		if (!t->ncols)
			t->ncols = width;
		else if (width != t->ncols)
			return lb_errf(err, len, "%s:%zu: %zu fields, the header has %zu", path,
				    r->line, width, t->ncols);
		else if (add_line(t, first))
			return lb_errf(err, len, "%s: out of memory", path);
		else
			t->nrows++;
		if (end == EOF)
			return 0;
	}
}

int lb_table_read(const char *path, struct lb_table *t, char *err, size_t len)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		memset(t, 0, sizeof(*t));
		return lb_errf(err, len, "%s: %s", path, strerror(errno));
	}
	int rc = lb_table_read_stream(f, path, t, err, len);
	fclose(f);
	return rc;
}

int lb_table_read_stream(FILE *f, const char *path, struct lb_table *t, char *err, size_t len)
{
	struct reader r = { .f = f };
	struct cells c = { 0 };
	memset(t, 0, sizeof(*t));
	int rc = read_rows(&r, &c, t, path, err, len);
	free(r.field);
	t->cells = c.v;
	if (rc == 0 && t->ncols == 0)
		rc = lb_errf(err, len, "%s: empty file (no header)", path);
	if (rc == 0 && !(t->path = strdup(path)))
		rc = lb_errf(err, len, "%s: out of memory", path);
	if (rc) {
		for (size_t i = 0; i < c.n; i++)
			free(c.v[i]);
		free(c.v);
		t->cells = NULL;
		t->nrows = 0;
		lb_table_free(t);
	}
	return rc;
}

int lb_table_col(const struct lb_table *t, const char *name)
{
	for (size_t i = 0; i < t->ncols; i++)
		if (strcmp(t->cells[i], name) == 0)
			return (int)i;
	return -1;
}

const char *lb_table_cell(const struct lb_table *t, size_t row, int col)
{
	return t->cells[(row + 1) * t->ncols + (size_t)col];
}

int lb_table_cell_error(const struct lb_table *t, size_t row, int col, char *err, size_t len,
			const char *why)
{
	return lb_errf(err, len, "%s:%zu:%d: %s: %s", t->path, t->lines[row], col + 1,
		       t->cells[col], why);
}

int lb_table_uint(const struct lb_table *t, size_t row, int col, uint64_t min, uint64_t max,
		  uint64_t *out, char *err, size_t len)
{
	char why[160];
	const char *s = lb_table_cell(t, row, col);
	if (!*s)
		return lb_table_cell_error(t, row, col, err, len, "empty, expected a whole number");
	if (lb_parse_uint(s, min, max, out, why, sizeof(why)) == 0)
		return 0;
	return lb_table_cell_error(t, row, col, err, len, why);
}

int lb_table_finite(const struct lb_table *t, size_t row, int col, double *out, char *err,
		    size_t len)
{
	char why[160];
	const char *s = lb_table_cell(t, row, col);
	char *end;
	double v = strtod(s, &end);
	if (!*s)
		return lb_table_cell_error(t, row, col, err, len, "empty (no value)");
	if (end == s || *end || isspace((unsigned char)*s)) {
		snprintf(why, sizeof(why), "'%.40s%s' is not a number", s, strlen(s) > 40 ? "..." : "");
		return lb_table_cell_error(t, row, col, err, len, why);
	}
	if (!isfinite(v)) {
		snprintf(why, sizeof(why), "'%.40s' is not a finite number", s);
		return lb_table_cell_error(t, row, col, err, len, why);
	}
	*out = v;
	return 0;
}

const char *lb_table_prov(const struct lb_table *t, const char *key)
{
	for (size_t i = t->nprov; i-- > 0;)
		if (strcmp(t->prov[i].key, key) == 0)
			return t->prov[i].value;
	return NULL;
}

void lb_table_free(struct lb_table *t)
{
	for (size_t i = 0; t->cells && i < (t->nrows + 1) * t->ncols; i++)
		free(t->cells[i]);
	for (size_t i = 0; i < t->nprov; i++) {
		free(t->prov[i].key);
		free(t->prov[i].value);
	}
	free(t->prov);
	free(t->lines);
	free(t->cells);
	free(t->note);
	free(t->path);
	memset(t, 0, sizeof(*t));
}
