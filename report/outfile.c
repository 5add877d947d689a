/* Result files renamed into place when finished; see outfile.h. */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/error.h"

const char *lb_outfile_name(const struct lb_outfile *o)
{
	return o->path ? o->path : "<stdout>";
}

/* "<path>.tmp.<pid>.<n>": same directory, so rename() is atomic; O_EXCL so
 * two runs writing one path never share a temporary file. */
static int open_tmp(struct lb_outfile *o, char *err, size_t errlen)
{
	size_t len = strlen(o->path) + 48;
	int fd = -1;
	if (!(o->tmp = malloc(len)))
		return lb_errf(err, errlen, "cannot create '%s': %s", o->path, strerror(ENOMEM));
	for (int n = 0; fd < 0 && n < 100; n++) {
		snprintf(o->tmp, len, "%s.tmp.%ld.%d", o->path, (long)getpid(), n);
		fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
		int e = errno;
		if (fd >= 0) {
			close(fd);
			unlink(o->tmp);
		}
		free(o->tmp);
		o->tmp = NULL;
		return lb_errf(err, errlen, "cannot create '%s': %s", o->path, strerror(e));
	}
	return 0;
}

/* A device or FIFO cannot be replaced by a rename: it is written in
 * place.  So is a symbolic link, whatever it points to: a rename would
 * replace the link itself -- "-o /dev/stdout" with stdout redirected to a
 * file once turned /dev/stdout (a link to /proc/self/fd/1) into a regular
 * file.  lstat, not stat, so the link is seen. */
static int open_target(struct lb_outfile *o, char *err, size_t errlen)
{
	struct stat st;
	if (lstat(o->path, &st) != 0 || S_ISREG(st.st_mode))
		return open_tmp(o, err, errlen);
	if (!(o->f = fopen(o->path, "w")))
		return lb_errf(err, errlen, "cannot create '%s': %s", o->path, strerror(errno));
	return 0;
}

int lb_outfile_open(struct lb_outfile *o, const char *path, char *err, size_t errlen)
{
	memset(o, 0, sizeof(*o));
	o->f = stdout;
	if (!path || strcmp(path, "-") == 0)
		return 0;
	if (!(o->path = strdup(path)))
		return lb_errf(err, errlen, "cannot create '%s': %s", path, strerror(ENOMEM));
	if (open_target(o, err, errlen) == 0)
		return 0;
	free(o->path);
	o->path = NULL;
	return -1;
}

int lb_outfile_check(struct lb_outfile *o, char *err, size_t errlen)
{
	if (!ferror(o->f) && !o->failed)
		return 0;
	int e = errno ? errno : EIO;
	o->failed = 1;
	o->reader_gone |= e == EPIPE;
	return lb_errf(err, errlen, "cannot write '%s': %s", lb_outfile_name(o), strerror(e));
}

static void release(struct lb_outfile *o)
{
	free(o->path);
	free(o->tmp);
	memset(o, 0, sizeof(*o));
}

/* Everything reaches the disk before the name does.  stdout is flushed,
 * never closed. */
int lb_outfile_finish(struct lb_outfile *o, char *err, size_t errlen)
{
	int rc = 0;
	const char *name = lb_outfile_name(o);
	errno = 0;
	if (o->failed)
		rc = lb_errf(err, errlen, "cannot write '%s': an earlier write failed", name);
	else if (fflush(o->f) == EOF || (o->tmp && fsync(fileno(o->f)) != 0))
		rc = lb_errf(err, errlen, "cannot write '%s': %s", name, strerror(errno ? errno : EIO));
	if (o->path && fclose(o->f) != 0 && rc == 0)
		rc = lb_errf(err, errlen, "cannot write '%s': %s", o->path, strerror(errno));
	if (o->tmp && rc == 0 && rename(o->tmp, o->path) != 0)
		rc = lb_errf(err, errlen, "cannot rename '%s' to '%s': %s", o->tmp, o->path,
			     strerror(errno));
	if (o->tmp && rc != 0)
		unlink(o->tmp);
	release(o);
	return rc;
}

void lb_outfile_abort(struct lb_outfile *o)
{
	if (o->path)
		fclose(o->f);
	else
		fflush(o->f);
	if (o->tmp)
		unlink(o->tmp);
	release(o);
}
