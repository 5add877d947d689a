/* Bounds on what lanebench reads from a user's file (result CSVs, platform
 * files, --expect rules): a path may name /dev/zero, a FIFO fed without
 * end, or a binary file, and a reader without a bound grows its buffer
 * until memory runs out, or hangs.  Every reader stops at the same bounds
 * and says which file broke them. */
#ifndef LB_TEXTIN_H
#define LB_TEXTIN_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* A line longer than this is not a text file of ours (the longest real
 * line, a check record's counter_deltas, is a few KiB). */
#define LB_TEXTIN_MAX_LINE ((size_t)1 << 20)

/* A file larger than this is not one either (a sweep of every size, slice
 * and algorithm is a few MiB). */
#define LB_TEXTIN_MAX_BYTES ((uint64_t)256 << 20)

/* "a line longer than 1 MiB (no line break): not a text file" or "more
 * than 256 MiB: not a text file": what the readers say past a bound. */
#define LB_TEXTIN_LONG_LINE "a line longer than 1 MiB (no line break): not a text file"
#define LB_TEXTIN_TOO_BIG "more than 256 MiB: not a text file"

/* What a reader has read so far, for the bounds. */
struct lb_textin_count {
	uint64_t total; /* bytes */
	size_t line;    /* bytes since the last line break */
};

/* Counts byte c; NULL, or the message of the bound it breaks (then the
 * reader stops).  The one place the bounds are applied. */
const char *lb_textin_count(struct lb_textin_count *n, int c);

/* getline with the bounds: the next line of f into *buf (grown as
 * needed, NUL-terminated, with its '\n'); *n counts what was read so far
 * (zeroed before the first line).  Returns its length; -1 at end of file or on a read error (ferror);
 * -2 past a bound (*why one of the messages above) or out of memory (*why
 * says so). */
ssize_t lb_textin_line(FILE *f, char **buf, size_t *cap, struct lb_textin_count *n,
		       const char **why);

#endif
