/* Reading a platform file: the whole text, then lb_platform_parse. */
#include "platform_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/textin.h"

/* The whole stream as one NUL-terminated string of *len bytes, or NULL
 * with *why (errno's text, or a bound of lib/textin.h broken: /dev/zero
 * and a FIFO without end are refused, not read until memory runs out). */
static char *read_all(FILE *f, size_t *len, const char **why)
{
	char *text = NULL;
	FILE *out = open_memstream(&text, len);
	char buf[65536];
	size_t n, total = 0, line = 0; /* line: bytes since the last line break */
	*why = NULL;
	while (out && !*why && (n = fread(buf, 1, sizeof(buf), f)) > 0) {
		const char *first = memchr(buf, '\n', n), *last = memrchr(buf, '\n', n);
		line += first ? (size_t)(first - buf) : n; /* the line this buffer continues */
		total += n;
		if (memchr(buf, 0, n)) /* the parser would stop at the NUL */
			*why = "not a text file (it holds a NUL byte)";
		else if (total > LB_TEXTIN_MAX_BYTES)
			*why = LB_TEXTIN_TOO_BIG;
		else if (line > LB_TEXTIN_MAX_LINE) /* lines within one buffer are shorter */
			*why = LB_TEXTIN_LONG_LINE;
		else
			fwrite(buf, 1, n, out);
		if (last)
			line = n - (size_t)(last - buf) - 1;
	}
	int bad = !out || ferror(f) || ferror(out);
	if (!out || fclose(out) != 0 || bad || *why) {
		if (!*why)
			*why = strerror(errno ? errno : EIO);
		free(text);
		return NULL;
	}
	return text;
}

struct lb_platform *lb_platform_read_file(const char *path, char *err, size_t errlen)
{
	int from_stdin = strcmp(path, "-") == 0;
	FILE *f = from_stdin ? stdin : fopen(path, "r");
	if (!f) {
		lb_errf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		return NULL;
	}
	errno = 0;
	size_t len;
	const char *why;
	char *text = read_all(f, &len, &why);
	if (!from_stdin)
		fclose(f);
	if (!text) {
		lb_errf(err, errlen, "%s: cannot read: %s", path, why);
		return NULL;
	}
	struct lb_platform *pf = lb_platform_parse(text, from_stdin ? "stdin" : path,
						   err, errlen);
	free(text);
	return pf;
}
