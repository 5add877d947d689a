/* The ordered provenance list; see prov.h. */
#include "prov.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The documented order of key classes; a prefix ending in '.' matches
 * every key that starts with it. */
static const char *const classes[] = {
	"format", "version", "command", "time_utc", "launcher", "transport",
	"tp_opt.", "option.", "ranks", "lanes", "host.", "lane.",
};

#define NCLASSES (sizeof(classes) / sizeof(classes[0]))

static size_t class_of(const char *key)
{
	for (size_t i = 0; i < NCLASSES; i++) {
		size_t n = strlen(classes[i]);
		int prefix = classes[i][n - 1] == '.';
		if (prefix ? strncmp(key, classes[i], n) == 0 : strcmp(key, classes[i]) == 0)
			return i;
	}
	return NCLASSES;
}

/* After the last item of the same or an earlier class. */
static size_t position(const struct lb_prov *p, const char *key)
{
	size_t c = class_of(key), at = p->n;
	while (at > 0 && class_of(p->items[at - 1].key) > c)
		at--;
	return at;
}

static int grow(struct lb_prov *p)
{
	if (p->n < p->cap)
		return 0;
	size_t cap = p->cap ? 2 * p->cap : 32;
	struct lb_prov_item *items = realloc(p->items, cap * sizeof(*items));
	if (!items)
		return -1;
	p->items = items;
	p->cap = cap;
	return 0;
}

static void insert(struct lb_prov *p, char *key, char *value)
{
	if (!key || !value || grow(p)) {
		free(key);
		free(value);
		p->failed = 1;
		return;
	}
	for (char *c = value; *c; c++)
		if (*c == '\n' || *c == '\r')
			*c = ' ';
	size_t at = position(p, key);
	memmove(&p->items[at + 1], &p->items[at], (p->n - at) * sizeof(p->items[0]));
	p->items[at] = (struct lb_prov_item){ key, value };
	p->n++;
}

void lb_prov_add(struct lb_prov *p, const char *key, const char *fmt, ...)
{
	char *value = NULL;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&value, fmt, ap) < 0)
		value = NULL;
	va_end(ap);
	insert(p, strdup(key), value);
}

void lb_prov_add_all(struct lb_prov *p, const struct lb_prov *from)
{
	for (size_t i = 0; from && i < from->n; i++)
		insert(p, strdup(from->items[i].key), strdup(from->items[i].value));
	if (from && from->failed)
		p->failed = 1;
}

const char *lb_prov_get(const struct lb_prov *p, const char *key)
{
	for (size_t i = 0; p && i < p->n; i++)
		if (strcmp(p->items[i].key, key) == 0)
			return p->items[i].value;
	return NULL;
}

int lb_prov_failed(const struct lb_prov *p)
{
	return p && p->failed;
}

void lb_prov_free(struct lb_prov *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n; i++) {
		free(p->items[i].key);
		free(p->items[i].value);
	}
	free(p->items);
	memset(p, 0, sizeof(*p));
}

void lb_buf_add(struct lb_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int len = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (len < 0 || b->failed)
		return;
	if (b->n + (size_t)len + 1 > b->cap) {
		size_t cap = (b->n + (size_t)len + 1) * 2;
		char *s = realloc(b->s, cap);
		if (!s) {
			b->failed = 1;
			return;
		}
		b->s = s;
		b->cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(b->s + b->n, b->cap - b->n, fmt, ap);
	va_end(ap);
	b->n += (size_t)len;
}

void lb_buf_free(struct lb_buf *b)
{
	free(b->s);
	memset(b, 0, sizeof(*b));
}
