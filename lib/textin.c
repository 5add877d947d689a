/* Bounded line reading; see textin.h. */
#include "textin.h"

#include <stdlib.h>

/* Room for one more byte and the NUL; 0, or -1 out of memory. */
static int grow(char **buf, size_t *cap, size_t len)
{
	if (len + 2 <= *cap)
		return 0;
	size_t n = *cap ? *cap * 2 : 256;
	char *p = realloc(*buf, n);
	if (!p)
		return -1;
	*buf = p;
	*cap = n;
	return 0;
}

const char *lb_textin_count(struct lb_textin_count *n, int c)
{
	n->line = c == '\n' ? 0 : n->line + 1;
	if (++n->total > LB_TEXTIN_MAX_BYTES)
		return LB_TEXTIN_TOO_BIG;
	return n->line > LB_TEXTIN_MAX_LINE ? LB_TEXTIN_LONG_LINE : NULL;
}

ssize_t lb_textin_line(FILE *f, char **buf, size_t *cap, struct lb_textin_count *n,
		       const char **why)
{
	size_t len = 0;
	int c = 0;
	while (c != '\n' && (c = getc(f)) != EOF) {
		if ((*why = lb_textin_count(n, c)))
			return -2;
		if (grow(buf, cap, len)) {
			*why = "out of memory";
			return -2;
		}
		(*buf)[len++] = (char)c;
	}
	if (len == 0)
		return -1;
	(*buf)[len] = 0;
	return (ssize_t)len;
}
