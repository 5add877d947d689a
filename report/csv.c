/* The CSV sink.  Rows are flushed as they come, to a temporary name that
 * is renamed into place at the end -- complete, or with a trailer that
 * says why it stopped -- so a file under its own name is never a
 * truncated result that looks like a whole one. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "csv.h"
#include "lib/error.h"
#include "lib/stop.h"

/* Three sinks: stdout (path NULL); a device or pipe named by path, written
 * in place (tmp NULL); a regular file, via tmp. */
struct lb_csv {
	FILE *f;
	char *path;
	char *tmp;
	const struct lb_col *cols;
	size_t ncols;
	uint64_t rows;
	int failed;
	int reader_gone; /* a write failed with EPIPE */
};

static const char *shown(const struct lb_csv *c)
{
	return c->path ? c->path : "<stdout>";
}

/* "<path>.tmp.<pid>.<n>": same directory, so rename() is atomic; O_EXCL so
 * two runs writing one path never share a temporary file. */
static int open_tmp(struct lb_csv *c, char *err, size_t errlen)
{
	size_t len = strlen(c->path) + 48;
	int fd = -1;
	if (!(c->tmp = malloc(len)))
		return lb_errf(err, errlen, "cannot create '%s': %s", c->path, strerror(ENOMEM));
	for (int n = 0; fd < 0 && n < 100; n++) {
		snprintf(c->tmp, len, "%s.tmp.%ld.%d", c->path, (long)getpid(), n);
		fd = open(c->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0 || !(c->f = fdopen(fd, "w"))) {
		int e = errno;
		if (fd >= 0) {
			close(fd);
			unlink(c->tmp);
		}
		free(c->tmp);
		c->tmp = NULL;
		return lb_errf(err, errlen, "cannot create '%s': %s", c->path, strerror(e));
	}
	return 0;
}

/* A device or FIFO cannot be replaced by a rename: it is written in
 * place.  So is a symbolic link, whatever it points to: a rename would
 * replace the link itself -- "-o /dev/stdout" with stdout redirected to a
 * file once turned /dev/stdout (a link to /proc/self/fd/1) into a regular
 * file.  lstat, not stat, so the link is seen. */
static int open_target(struct lb_csv *c, char *err, size_t errlen)
{
	struct stat st;
	if (lstat(c->path, &st) != 0 || S_ISREG(st.st_mode))
		return open_tmp(c, err, errlen);
	if (!(c->f = fopen(c->path, "w")))
		return lb_errf(err, errlen, "cannot create '%s': %s", c->path, strerror(errno));
	return 0;
}

static void free_sink(struct lb_csv *c)
{
	free(c->path);
	free(c->tmp);
	free(c);
}

/* RFC 4180: quote a field holding a delimiter, quote or line break, and
 * double the quotes inside.  A '#' is quoted too: readers that skip
 * comments (gnuplot, pandas comment='#') must not take a row for one. */
static void put_string(FILE *f, const char *s)
{
	if (!s)
		return;
	if (!s[strcspn(s, ",\"\r\n#")]) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void put_value(FILE *f, const struct lb_col *col, const struct lb_result *r,
		      union lb_val v)
{
	uint64_t n;
	switch (col->kind) {
	case LB_COL_TEXT:
		put_string(f, v.s);
		break;
	case LB_COL_UINT:
		fprintf(f, "%llu", (unsigned long long)v.u);
		break;
	case LB_COL_REAL:
		if (!isnan(v.d))
			fprintf(f, "%.9g", v.d);
		break;
	case LB_COL_COUNTER:
		if (lb_result_counter(r, col->counter, &n))
			fprintf(f, "%llu", (unsigned long long)n);
		break;
	}
}

/* Reports a write error once and marks the sink failed. */
static int check_stream(struct lb_csv *c, char *err, size_t errlen)
{
	if (!ferror(c->f) && !c->failed)
		return 0;
	int e = errno ? errno : EIO;
	c->failed = 1;
	c->reader_gone |= e == EPIPE;
	return lb_errf(err, errlen, "cannot write '%s': %s", shown(c), strerror(e));
}

static int write_header(struct lb_csv *c, char *err, size_t errlen)
{
	errno = 0;
	for (size_t i = 0; i < c->ncols; i++) {
		if (i)
			fputc(',', c->f);
		put_string(c->f, c->cols[i].name);
	}
	fputc('\n', c->f);
	fflush(c->f);
	return check_stream(c, err, errlen);
}

struct lb_csv *lb_csv_open(const char *path, const struct lb_col *cols,
			   size_t ncols, char *err, size_t errlen)
{
	struct lb_csv *c = calloc(1, sizeof(*c));
	if (!c) {
		lb_errf(err, errlen, "cannot create '%s': %s", path ? path : "<stdout>",
		     strerror(ENOMEM));
		return NULL;
	}
	c->cols = cols;
	c->ncols = ncols;
	c->f = stdout;
	if (path && strcmp(path, "-") != 0) {
		if (!(c->path = strdup(path))) {
			lb_errf(err, errlen, "cannot create '%s': %s", path, strerror(ENOMEM));
			goto out_free;
		}
		if (open_target(c, err, errlen))
			goto out_free;
	}
	if (write_header(c, err, errlen))
		goto out_abort;
	return c;

out_abort:
	lb_csv_abort(c);
	return NULL;
out_free:
	free_sink(c);
	return NULL;
}

int lb_csv_row(struct lb_csv *c, const struct lb_result *r, char *err, size_t errlen)
{
	if (c->failed)
		return lb_errf(err, errlen, "cannot write '%s': an earlier write failed", shown(c));
	if (r->ncols != c->ncols)
		return lb_errf(err, errlen, "cannot write '%s': a row of %zu columns, not %zu",
			       shown(c), r->ncols, c->ncols);
	errno = 0;
	for (size_t i = 0; i < c->ncols; i++) {
		if (i)
			fputc(',', c->f);
		put_value(c->f, &c->cols[i], r, r->vals[i]);
	}
	fputc('\n', c->f);
	/* Flushed per row: a sweep killed outright (SIGKILL, a crash) keeps
	 * what it measured in the temporary file, and a pipe reader sees
	 * each row as it is measured. */
	fflush(c->f);
	if (check_stream(c, err, errlen))
		return -1;
	c->rows++;
	return 0;
}

int lb_csv_sink_row(void *csv, const struct lb_result *r, char *err, size_t errlen)
{
	struct lb_csv *c = csv;
	if (lb_csv_row(c, r, err, errlen) == 0)
		return 0;
	if (!c->reader_gone)
		return -1;
	lb_stop_request(SIGPIPE); /* the CSV's reader left: stop, quietly */
	return 0;
}

/* Flushes (and for files syncs, closes, renames): everything reaches the
 * disk before the name does.  stdout is flushed, never closed. */
static int finish(struct lb_csv *c, char *err, size_t errlen)
{
	int rc = 0;
	errno = 0;
	if (c->failed)
		rc = lb_errf(err, errlen, "cannot write '%s': an earlier write failed", shown(c));
	else if (fflush(c->f) == EOF || (c->tmp && fsync(fileno(c->f)) != 0))
		rc = lb_errf(err, errlen, "cannot write '%s': %s", shown(c),
			  strerror(errno ? errno : EIO));
	if (c->path && fclose(c->f) != 0 && rc == 0)
		rc = lb_errf(err, errlen, "cannot write '%s': %s", c->path, strerror(errno));
	if (c->tmp && rc == 0 && rename(c->tmp, c->path) != 0)
		rc = lb_errf(err, errlen, "cannot rename '%s' to '%s': %s", c->tmp, c->path,
			  strerror(errno));
	if (c->tmp && rc != 0)
		unlink(c->tmp);
	return rc;
}

int lb_csv_close(struct lb_csv *c, char *err, size_t errlen)
{
	if (!c)
		return 0;
	int rc = finish(c, err, errlen);
	free_sink(c);
	return rc;
}

/* "# lanebench: incomplete after 12 rows: <reason>", the reason on one
 * line and without commas or quotes, so that a reader that does not skip
 * comments sees one short field, never a shifted row. */
static void write_trailer(struct lb_csv *c, const char *reason)
{
	fprintf(c->f, "# lanebench: incomplete after %llu rows: ", (unsigned long long)c->rows);
	for (const char *s = reason && *reason ? reason : "stopped"; *s; s++)
		fputc(*s == ',' ? ';' : *s == '"' ? '\'' : (unsigned char)*s < 0x20 ? ' ' : *s, c->f);
	fputc('\n', c->f);
}

int lb_csv_close_incomplete(struct lb_csv *c, const char *reason, char *err, size_t errlen)
{
	if (!c)
		return 0;
	if (c->reader_gone || (c->tmp && c->rows == 0)) {
		lb_csv_abort(c); /* nobody to tell, or nothing measured to keep */
		return 0;
	}
	if (!c->failed)
		write_trailer(c, reason);
	return lb_csv_close(c, err, errlen);
}

const char *lb_csv_path(const struct lb_csv *c)
{
	return shown(c);
}

uint64_t lb_csv_rows(const struct lb_csv *c)
{
	return c ? c->rows : 0;
}

int lb_csv_reader_gone(const struct lb_csv *c)
{
	return c && c->reader_gone;
}

void lb_csv_abort(struct lb_csv *c)
{
	if (!c)
		return;
	if (c->path)
		fclose(c->f);
	else
		fflush(c->f);
	if (c->tmp)
		unlink(c->tmp);
	free_sink(c);
}
