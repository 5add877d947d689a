/* Reading a platform file: the whole text, then lb_platform_parse. */
#include "platform_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"

/* The whole stream as one NUL-terminated string of *len bytes, or NULL
 * (errno set). */
static char *read_all(FILE *f, size_t *len)
{
	char *text = NULL;
	FILE *out = open_memstream(&text, len);
	if (!out)
		return NULL;
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, out);
	int bad = ferror(f) || ferror(out);
	if (fclose(out) != 0 || bad) {
		free(text);
		if (!errno)
			errno = EIO;
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
	char *text = read_all(f, &len);
	int read_errno = errno;
	if (!from_stdin)
		fclose(f);
	if (!text) {
		lb_errf(err, errlen, "%s: cannot read: %s", path, strerror(read_errno));
		return NULL;
	}
	if (strlen(text) != len) { /* the parser would stop at the NUL */
		free(text);
		lb_errf(err, errlen, "%s: not a text file (it holds a NUL byte)", path);
		return NULL;
	}
	struct lb_platform *pf = lb_platform_parse(text, from_stdin ? "stdin" : path,
						   err, errlen);
	free(text);
	return pf;
}
