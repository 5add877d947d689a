/* An output file written the way every lanebench result file is: to an
 * unnamed file in its directory (O_TMPFILE; where the file system has
 * none, a temporary name, "<path>.tmp.<pid>.<n>", O_EXCL), given its name
 * when it is finished (linked to a temporary name and renamed over the
 * path), so a file under its own name is never cut short and a killed run
 * leaves nothing; or in place for stdout (path NULL or "-"), devices,
 * FIFOs and symbolic links (a rename would replace the link).  Used by
 * the CSV (csv.h) and JSON (json.h) sinks; see csv.h for the whole story.
 * Errors name the path and strerror. */
#ifndef LB_OUTFILE_H
#define LB_OUTFILE_H

#include <stdio.h>

struct lb_outfile {
	FILE *f;
	char *path;      /* NULL: stdout */
	char *tmp;       /* the temporary name; NULL: none (yet) */
	int unnamed;     /* written to an O_TMPFILE file */
	int failed;      /* a write failed: finishing discards */
	int reader_gone; /* a write failed with EPIPE */
};

/* Opens o for path.  Returns 0, or -1 with a message (o then holds
 * nothing to release). */
int lb_outfile_open(struct lb_outfile *o, const char *path, char *err, size_t errlen);

/* Before a run, so that its results are not lost at the end: whether
 * path can be created or replaced -- not a directory, its directory
 * exists and takes new files (the file is written aside, then renamed),
 * an existing file is writable.  0, also for stdout (NULL or "-"); or -1
 * with "'path': why" in err. */
int lb_outfile_can_create(const char *path, char *err, size_t errlen);

/* Whether paths a and b name one file (stdout is no file): the same
 * existing file, or the same name in the same directory. */
int lb_outfile_same(const char *a, const char *b);

/* Written aside (unnamed or under a temporary name) and put in place at
 * the end: discarding it leaves the path as it was. */
int lb_outfile_aside(const struct lb_outfile *o);

/* The path as given, or "<stdout>". */
const char *lb_outfile_name(const struct lb_outfile *o);

/* After writes: 0, or -1 with a message once the stream has an error (the
 * file is then failed). */
int lb_outfile_check(struct lb_outfile *o, char *err, size_t errlen);

/* Flushes, syncs, closes and renames into place (stdout: flushed only);
 * a failed file is discarded with -1.  Releases o. */
int lb_outfile_finish(struct lb_outfile *o, char *err, size_t errlen);

/* Discards the output (removes the temporary file) and releases o. */
void lb_outfile_abort(struct lb_outfile *o);

#endif
