/* lib/textin: lines come back whole (with their '\n', the last one without
 * it), a line of exactly LB_TEXTIN_MAX_LINE bytes passes and one byte more
 * is refused, the file's bound counts every byte across lines, and a
 * line break resets the line's count. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lib/textin.h"

static void lines_whole(void)
{
	char text[] = "a,b\n\nlast";
	FILE *f = fmemopen(text, strlen(text), "r");
	char *buf = NULL;
	size_t cap = 0;
	struct lb_textin_count n = { 0 };
	const char *why = NULL;
	CHECK(lb_textin_line(f, &buf, &cap, &n, &why) == 4 && !strcmp(buf, "a,b\n"), "line 1");
	CHECK(lb_textin_line(f, &buf, &cap, &n, &why) == 1 && !strcmp(buf, "\n"), "line 2");
	CHECK(lb_textin_line(f, &buf, &cap, &n, &why) == 4 && !strcmp(buf, "last"), "line 3");
	CHECK(lb_textin_line(f, &buf, &cap, &n, &why) == -1, "end of file");
	CHECK(n.total == strlen(text) && n.line == 4, "counted %llu bytes, line %zu",
	      (unsigned long long)n.total, n.line);
	free(buf);
	fclose(f);
}

/* A line of `len` bytes then '\n': its length, or -2 with why. */
static ssize_t one_line(size_t len, const char **why)
{
	char *text = malloc(len + 1), *buf = NULL;
	size_t cap = 0;
	struct lb_textin_count n = { 0 };
	memset(text, 'x', len);
	text[len] = '\n';
	FILE *f = fmemopen(text, len + 1, "r");
	*why = NULL;
	ssize_t r = lb_textin_line(f, &buf, &cap, &n, why);
	fclose(f);
	free(buf);
	free(text);
	return r;
}

static void line_bound(void)
{
	const char *why;
	ssize_t r = one_line(LB_TEXTIN_MAX_LINE, &why);
	CHECK(r == (ssize_t)LB_TEXTIN_MAX_LINE + 1 && !why, "a line at the bound: %zd %s", r,
	      why ? why : "");
	r = one_line(LB_TEXTIN_MAX_LINE + 1, &why);
	CHECK(r == -2 && why && !strcmp(why, LB_TEXTIN_LONG_LINE), "a line past it: %zd %s", r,
	      why ? why : "(none)");
}

/* The file's bound, counted without reading 256 MiB: from just below it. */
static void file_bound(void)
{
	struct lb_textin_count n = { .total = LB_TEXTIN_MAX_BYTES - 2, .line = 0 };
	CHECK(!lb_textin_count(&n, 'x') && !lb_textin_count(&n, '\n') && n.line == 0,
	      "the last bytes within the bound");
	const char *why = lb_textin_count(&n, 'x');
	CHECK(why && !strcmp(why, LB_TEXTIN_TOO_BIG), "a byte past it: %s", why ? why : "(none)");
}

int main(void)
{
	lines_whole();
	line_bound();
	file_bound();
	return check_status("textin");
}
