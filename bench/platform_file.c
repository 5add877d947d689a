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
	char *text = NULL, *line = NULL;
	size_t cap = 0;
	struct lb_textin_count count = { 0 };
	ssize_t n;
	FILE *out = open_memstream(&text, len);
	*why = NULL;
	while (out && (n = lb_textin_line(f, &line, &cap, &count, why)) >= 0) {
		if (memchr(line, 0, (size_t)n)) { /* the parser would stop at the NUL */
			*why = "not a text file (it holds a NUL byte)";
			break;
		}
		fwrite(line, 1, (size_t)n, out);
	}
	free(line);
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
