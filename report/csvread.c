#include "csvread.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/error.h"

struct reader {
	FILE *f;
	size_t line;
	char *field;
	size_t len, cap;
};

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
	int c = fgetc(r->f), quoted = c == '"';
	r->len = 0;
	if (put(r, 0))
		return -1;
	r->len = 0;
	if (c == EOF)
		return 1;
	if (quoted)
		c = fgetc(r->f);
	for (;; c = fgetc(r->f)) {
		if (c == EOF && quoted)
			return -1;
		if (quoted && c == '"') {
			c = fgetc(r->f);
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

/* A line starting with '#' (a comment, as gnuplot and pandas' comment='#'
 * read it): skipped, but lanebench's trailer is kept as t->note.  Returns
 * 1 if the line was one (and is consumed), 0 if not, -1 out of memory. */
static int comment_line(struct reader *r, struct lb_table *t)
{
	int c = fgetc(r->f);
	if (c != '#') {
		if (c != EOF)
			ungetc(c, r->f);
		return 0;
	}
	r->len = 0;
	for (; c != EOF && c != '\n'; c = fgetc(r->f))
		if (c != '\r' && put(r, c))
			return -1;
	if (strncmp(r->field, TRAILER, strlen(TRAILER)) == 0) {
		free(t->note);
		if (!(t->note = strdup(r->field + strlen(TRAILER))))
			return -1;
	}
	return 1;
}

/* Reads every row into c; the header fixes the width. */
static int read_rows(struct reader *r, struct cells *c, struct lb_table *t,
		     const char *path, char *err, size_t len)
{
	for (;;) {
		size_t start = c->n;
		int end = ',', rc = 0;
		r->line++;
		int comment = comment_line(r, t);
		if (comment < 0)
			return lb_errf(err, len, "%s: out of memory", path);
		if (comment)
			continue;
		while (end == ',' && (rc = read_field(r, &end)) == 0)
			if (push_cell(c, r->field))
				return lb_errf(err, len, "%s: out of memory", path);
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
		else
			t->nrows++;
		if (end == EOF)
			return 0;
	}
}

int lb_table_read(const char *path, struct lb_table *t, char *err, size_t len)
{
	struct reader r = { .f = fopen(path, "r") };
	struct cells c = { 0 };
	memset(t, 0, sizeof(*t));
	if (!r.f)
		return lb_errf(err, len, "%s: %s", path, strerror(errno));
	int rc = read_rows(&r, &c, t, path, err, len);
	fclose(r.f);
	free(r.field);
	t->cells = c.v;
	if (rc == 0 && t->ncols == 0)
		rc = lb_errf(err, len, "%s: empty file (no header)", path);
	if (rc) {
		for (size_t i = 0; i < c.n; i++)
			free(c.v[i]);
		free(c.v);
		free(t->note);
		memset(t, 0, sizeof(*t));
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

void lb_table_free(struct lb_table *t)
{
	for (size_t i = 0; t->cells && i < (t->nrows + 1) * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t->note);
	memset(t, 0, sizeof(*t));
}
