/* Result files renamed into place when finished; see outfile.h. */
#include "outfile.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/error.h"

const char *lb_outfile_name(const struct lb_outfile *o)
{
	return o->path ? o->path : "<stdout>";
}

/* Tries "<path>.tmp.<pid>.<n>" for n = 0, 1, ... as o->tmp until make
 * (an O_EXCL open, a link) does not fail with EEXIST: same directory, so
 * rename() is atomic; never a name another run writes.  Returns make's
 * result, o->tmp NULL again (errno kept) when it failed. */
static int with_tmp_name(struct lb_outfile *o, int (*make)(const char *name, void *ctx),
			 void *ctx)
{
	size_t len = strlen(o->path) + 48;
	int rc = -1;
	if (!(o->tmp = malloc(len))) {
		errno = ENOMEM;
		return -1;
	}
	for (int n = 0; rc < 0 && n < 100; n++) {
		snprintf(o->tmp, len, "%s.tmp.%ld.%d", o->path, (long)getpid(), n);
		rc = make(o->tmp, ctx);
		if (rc < 0 && errno != EEXIST)
			break;
	}
	if (rc < 0) {
		int e = errno;
		free(o->tmp);
		o->tmp = NULL;
		errno = e;
	}
	return rc;
}

static int create_excl(const char *name, void *ctx)
{
	(void)ctx;
	return open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
}

static int link_proc_fd(const char *name, void *proc)
{
	return linkat(AT_FDCWD, proc, AT_FDCWD, name, AT_SYMLINK_FOLLOW);
}

/* An unnamed file is named through /proc/self/fd (link_unnamed): without
 * /proc (a chroot, a bare container) it never could be, and a finished
 * run would be lost, so the named temporary file is used instead. */
static int proc_names(int fd)
{
	char proc[64];
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	return access(proc, F_OK) == 0;
}

/* path's directory ("." for a bare name); caller frees; NULL out of
 * memory. */
static char *dir_of(const char *path)
{
	char *dir = strdup(path);
	char *slash = dir ? strrchr(dir, '/') : NULL;
	if (dir && !slash)
		strcpy(dir, ".");
	else if (slash)
		slash[slash == dir] = 0; /* "/x": "/" */
	return dir;
}

/* An unnamed file in path's directory (O_TMPFILE): a run killed before it
 * finishes (SIGKILL, a crash) leaves nothing behind.  -1 (errno) where
 * the file system has no O_TMPFILE (EOPNOTSUPP, EISDIR: an old kernel)
 * or there is no /proc to name it by (EOPNOTSUPP too). */
static int create_unnamed(const char *path)
{
	char *dir = dir_of(path);
	if (!dir)
		return -1;
	int fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
	int e = errno;
	free(dir);
	if (fd >= 0 && !proc_names(fd)) {
		close(fd);
		fd = -1;
		e = EOPNOTSUPP;
	}
	errno = e;
	return fd;
}

static int open_tmp(struct lb_outfile *o, char *err, size_t errlen)
{
	int fd = create_unnamed(o->path);
	o->unnamed = fd >= 0;
	if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR))
		fd = with_tmp_name(o, create_excl, NULL);
	if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		if (o->tmp)
			unlink(o->tmp);
		free(o->tmp);
		o->tmp = NULL;
		return lb_errf(err, errlen, "cannot create '%s': %s", o->path, strerror(e));
	}
	return 0;
}

/* Gives the finished unnamed file its name: linked to a temporary name,
 * then (lb_outfile_finish) renamed over path, as a link cannot replace a
 * file.  Only between the two can a kill leave a temporary file.  0, or
 * -1 (errno). */
static int link_unnamed(struct lb_outfile *o)
{
	char proc[64];
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fileno(o->f));
	return with_tmp_name(o, link_proc_fd, proc) < 0 ? -1 : 0;
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

int lb_outfile_aside(const struct lb_outfile *o)
{
	return o->tmp || o->unnamed;
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
	else if (fflush(o->f) == EOF || (lb_outfile_aside(o) && fsync(fileno(o->f)) != 0))
		rc = lb_errf(err, errlen, "cannot write '%s': %s", name, strerror(errno ? errno : EIO));
	if (o->unnamed && rc == 0 && link_unnamed(o) != 0)
		rc = lb_errf(err, errlen, "cannot create '%s': %s", o->path, strerror(errno));
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

static int dir_takes_files(const char *path, char *err, size_t errlen)
{
	struct stat st;
	char *dir = dir_of(path);
	int rc = 0;
	if (!dir)
		rc = lb_errf(err, errlen, "'%s': %s", path, strerror(ENOMEM));
	else if (stat(dir, &st) != 0)
		rc = lb_errf(err, errlen, "'%s': its directory '%s': %s", path, dir, strerror(errno));
	else if (!S_ISDIR(st.st_mode))
		rc = lb_errf(err, errlen, "'%s': '%s' is not a directory", path, dir);
	else if (access(dir, W_OK | X_OK) != 0)
		rc = lb_errf(err, errlen, "'%s': cannot create files in '%s': %s", path, dir,
			     strerror(errno));
	free(dir);
	return rc;
}

int lb_outfile_can_create(const char *path, char *err, size_t errlen)
{
	struct stat st;
	if (!path || strcmp(path, "-") == 0)
		return 0;
	if (!*path)
		return lb_errf(err, errlen, "'': an empty file name");
	if (stat(path, &st) != 0)
		return errno == ENOENT ? dir_takes_files(path, err, errlen)
				       : lb_errf(err, errlen, "'%s': %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode))
		return lb_errf(err, errlen, "'%s': a directory, not a file name", path);
	if (access(path, W_OK) != 0)
		return lb_errf(err, errlen, "'%s': %s", path, strerror(errno));
	return S_ISREG(st.st_mode) ? dir_takes_files(path, err, errlen) : 0;
}

/* The directory's real path and the last name: "/abs/dir/name"; NULL if
 * the directory cannot be resolved. */
static char *canonical(const char *path)
{
	char *dir = dir_of(path), real[PATH_MAX], *out = NULL;
	const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
	if (dir && realpath(dir, real) && asprintf(&out, "%s/%s", real, name) < 0)
		out = NULL;
	free(dir);
	return out;
}

int lb_outfile_same(const char *a, const char *b)
{
	struct stat sa, sb;
	if (!a || !b || strcmp(a, "-") == 0 || strcmp(b, "-") == 0)
		return 0;
	if (stat(a, &sa) == 0 && stat(b, &sb) == 0) /* two writes to one device are fine */
		return S_ISREG(sa.st_mode) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	if (strcmp(a, b) == 0)
		return 1;
	char *ca = canonical(a), *cb = canonical(b);
	int same = ca && cb && strcmp(ca, cb) == 0;
	free(ca);
	free(cb);
	return same;
}
