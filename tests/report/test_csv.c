/* report/csv: exact bytes written (header, RFC 4180 quoting, numbers),
 * rows on disk as they are written, the temporary file renamed when the
 * run completes or stops early (then with a trailer), nothing left behind
 * on failure. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../check.h"
#include "report/csv.h"

static char dir[256];
static char err[512];

static const struct lb_col cols[] = {
	{ LB_COLUMN("name", LB_COL_TEXT) },
	{ LB_COLUMN("count", LB_COL_UINT) },
	{ LB_COLUMN("value, in seconds", LB_COL_REAL) },
};

static char *path_in_dir(const char *name)
{
	static char buf[512];
	snprintf(buf, sizeof(buf), "%s/%s", dir, name);
	return buf;
}

/* The whole file, or NULL when it does not exist.  Caller frees. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char *buf = calloc(1, 1 << 16);
	size_t n = fread(buf, 1, (1 << 16) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* Entries in dir besides . and .. */
/* The open unnamed (O_TMPFILE) file in dir, as a /proc/self/fd path:
 * its link reads "DIR/#INODE (deleted)".  0, or -1: none. */
static int unnamed_file(char *path, size_t len)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	char target[512];
	int rc = -1;
	while (d && rc && (e = readdir(d))) {
		snprintf(path, len, "/proc/self/fd/%s", e->d_name);
		ssize_t n = readlink(path, target, sizeof(target) - 1);
		target[n > 0 ? n : 0] = 0;
		if (strncmp(target, dir, strlen(dir)) == 0 && strstr(target, "/#") &&
		    strstr(target, "(deleted)"))
			rc = 0;
	}
	if (d)
		closedir(d);
	return rc;
}

static int dir_entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;
	while (d && (e = readdir(d)))
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	if (d)
		closedir(d);
	return n;
}

#define HEAD "# format: lanebench-csv 2\n"

static const char expected[] =
	HEAD
	"name,count,\"value, in seconds\"\n"
	"plain,0,0.1\n"
	"\"a,b\",18446744073709551615,0.333333333\n"
	"\"say \"\"hi\"\"\",42,1e-06\n"
	"\"two\nlines\",7,\n"
	"\"cr\rhere\",1,1.25e+09\n"
	",3,-2.5\n"
	"\"\"\"\",4,inf\n";

/* One row of the three columns above. */
static int put_row(struct lb_csv *c, const union lb_val *v)
{
	const struct lb_result r = { .cols = cols, .ncols = 3, .vals = v };
	return lb_csv_row(c, &r, err, sizeof(err));
}

static int write_rows(struct lb_csv *c)
{
	const union lb_val rows[][3] = {
		{ { .s = "plain" }, { .u = 0 }, { .d = 0.1 } },
		{ { .s = "a,b" }, { .u = UINT64_MAX }, { .d = 1.0 / 3 } },
		{ { .s = "say \"hi\"" }, { .u = 42 }, { .d = 1e-6 } },
		{ { .s = "two\nlines" }, { .u = 7 }, { .d = NAN } },
		{ { .s = "cr\rhere" }, { .u = 1 }, { .d = 1.25e9 } },
		{ { .s = NULL }, { .u = 3 }, { .d = -2.5 } },
		{ { .s = "\"" }, { .u = 4 }, { .d = INFINITY } },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (put_row(c, rows[i]))
			return -1;
	return 0;
}

static void quoting_and_rename(void)
{
	const char *path = path_in_dir("out.csv");
	struct lb_csv *c = lb_csv_open(path, cols, 3, err, sizeof(err));
	CHECK(c != NULL, "open: %s", err);
	if (!c)
		return;
	CHECK(slurp(path) == NULL, "'%s' exists before close", path);
	/* written unnamed (O_TMPFILE): a killed run leaves no file at all */
	CHECK(dir_entries() == 0, "want no file before close, have %d", dir_entries());
	CHECK(write_rows(c) == 0, "rows: %s", err);
	CHECK(lb_csv_close(c, err, sizeof(err)) == 0, "close: %s", err);
	char *got = slurp(path);
	CHECK(got && strcmp(got, expected) == 0, "content:\n%s\nwant:\n%s", got, expected);
	free(got);
	CHECK(dir_entries() == 1, "temporary file left behind: %d entries", dir_entries());
	struct stat st;
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0444) == 0444, "mode %o", st.st_mode);
	unlink(path);
}

/* Abort keeps an older file as it was and leaves no temporary file. */
static void abort_keeps_old(void)
{
	const char *path = path_in_dir("old.csv");
	FILE *f = fopen(path, "w");
	fputs("old\n", f);
	fclose(f);
	struct lb_csv *c = lb_csv_open(path, cols, 3, err, sizeof(err));
	CHECK(c && write_rows(c) == 0, "open/rows: %s", err);
	lb_csv_abort(c);
	char *got = slurp(path);
	CHECK(got && strcmp(got, "old\n") == 0, "old file changed: %s", got);
	free(got);
	CHECK(dir_entries() == 1, "abort left %d entries", dir_entries());
	unlink(path);
}

/* Rows reach the temporary file as they are written; a run that stops
 * early is committed with its rows and a trailer line saying why. */
static void incomplete_keeps_rows(void)
{
	const char *path = path_in_dir("part.csv");
	const union lb_val row[3] = { { .s = "#tag" }, { .u = 1 }, { .d = 0.5 } };
	struct lb_csv *c = lb_csv_open(path, cols, 3, err, sizeof(err));
	CHECK(c && put_row(c, row) == 0, "open/row: %s", err);
	if (!c)
		return;
	char tmp[600];
	CHECK(unnamed_file(tmp, sizeof(tmp)) == 0, "no unnamed file open in '%s'", dir);
	char *early = slurp(tmp);
	CHECK(early && strstr(early, "\"#tag\",1,0.5\n"), "row not flushed to '%s': %s", tmp,
	      early ? early : "(none)");
	free(early);
	CHECK(lb_csv_rows(c) == 1, "rows %llu", (unsigned long long)lb_csv_rows(c));
	CHECK(lb_csv_close_incomplete(c, "rank 2: lost, \"badly\"\nreally", err, sizeof(err)) == 0,
	      "close incomplete: %s", err);
	char *got = slurp(path);
	const char *want = HEAD "name,count,\"value, in seconds\"\n\"#tag\",1,0.5\n"
			   "# lanebench: incomplete after 1 rows: rank 2: lost; 'badly' really\n";
	CHECK(got && strcmp(got, want) == 0, "content:\n%s\nwant:\n%s", got, want);
	free(got);
	CHECK(dir_entries() == 1, "incomplete close left %d entries", dir_entries());
	unlink(path);
}

/* Stopped before the first row: nothing measured, no file, an older one
 * of the same name untouched. */
static void incomplete_without_rows(void)
{
	const char *path = path_in_dir("none.csv");
	FILE *f = fopen(path, "w");
	fputs("old\n", f);
	fclose(f);
	struct lb_csv *c = lb_csv_open(path, cols, 3, err, sizeof(err));
	CHECK(c && lb_csv_close_incomplete(c, "interrupted (SIGINT)", err, sizeof(err)) == 0,
	      "close: %s", err);
	char *got = slurp(path);
	CHECK(got && strcmp(got, "old\n") == 0, "old file changed: %s", got);
	free(got);
	CHECK(dir_entries() == 1, "left %d entries", dir_entries());
	unlink(path);
}

/* A counter column holds the counter of its name, or nothing when the
 * result does not carry it (a transport that does not count). */
static void counters(void)
{
	static const struct lb_col ccols[] = {
		{ LB_COLUMN("name", LB_COL_TEXT) },
		{ LB_COLUMN("frames_sent_count", LB_COL_COUNTER), .counter = "frames_sent" },
		{ LB_COLUMN("acks_sent_count", LB_COL_COUNTER), .counter = "acks_sent" },
	};
	const char *path = path_in_dir("counters.csv");
	const union lb_val v[3] = { { .s = "dpdk" } };
	const struct lb_counter have[] = { { "acks_sent", 12 }, { "frames_sent", 7 } };
	struct lb_result r = { .cols = ccols, .ncols = 3, .vals = v, .counters = have,
			       .ncounters = 2 };
	struct lb_csv *c = lb_csv_open(path, ccols, 3, err, sizeof(err));
	CHECK(c && lb_csv_row(c, &r, err, sizeof(err)) == 0, "open/row: %s", err);
	r.ncounters = 0;
	CHECK(c && lb_csv_row(c, &r, err, sizeof(err)) == 0, "row without counters: %s", err);
	CHECK(lb_csv_close(c, err, sizeof(err)) == 0, "close: %s", err);
	char *got = slurp(path);
	const char *want = HEAD "name,frames_sent_count,acks_sent_count\ndpdk,7,12\ndpdk,,\n";
	CHECK(got && strcmp(got, want) == 0, "content:\n%s\nwant:\n%s", got, want);
	free(got);
	unlink(path);
}

static void open_fails(void)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/missing/x.csv", dir);
	struct lb_csv *c = lb_csv_open(path, cols, 3, err, sizeof(err));
	CHECK(c == NULL, "opened '%s'", path);
	char want[600];
	snprintf(want, sizeof(want), "cannot create '%s': %s", path, strerror(ENOENT));
	CHECK(strcmp(err, want) == 0, "message '%s', want '%s'", err, want);
	CHECK(dir_entries() == 0, "failed open left %d entries", dir_entries());
}

/* The file limit makes writes fail with EFBIG: close must fail, name the
 * path and the reason, and remove the partial file. */
static void write_fails(void)
{
	const char *path = path_in_dir("big.csv");
	struct rlimit old, small = { 64, 0 };
	getrlimit(RLIMIT_FSIZE, &old);
	small.rlim_max = old.rlim_max;
	signal(SIGXFSZ, SIG_IGN);
	struct lb_csv *c = lb_csv_open(path, cols, 3, err, sizeof(err));
	CHECK(c != NULL, "open: %s", err);
	if (!c)
		return;
	setrlimit(RLIMIT_FSIZE, &small);
	int rc = 0;
	for (int i = 0; i < 2000 && rc == 0; i++) /* past the stdio buffer */
		rc = write_rows(c);
	int crc = lb_csv_close(c, err, sizeof(err));
	setrlimit(RLIMIT_FSIZE, &old);
	CHECK(crc == -1, "close succeeded despite the file size limit");
	char want[600];
	snprintf(want, sizeof(want), "cannot write '%s': ", path);
	CHECK(strncmp(err, want, strlen(want)) == 0, "message '%s'", err);
	CHECK(slurp(path) == NULL && dir_entries() == 0,
	      "failed write left %d entries", dir_entries());
}

/* A directory is refused at open; nothing is created beside it. */
static void directory_fails(void)
{
	const char *path = path_in_dir("adir");
	mkdir(path, 0755);
	struct lb_csv *c = lb_csv_open(path, cols, 3, err, sizeof(err));
	CHECK(c == NULL, "opened a directory");
	lb_csv_abort(c);
	char want[600];
	snprintf(want, sizeof(want), "cannot create '%s': %s", path, strerror(EISDIR));
	CHECK(strcmp(err, want) == 0, "message '%s', want '%s'", err, want);
	CHECK(dir_entries() == 1, "directory open left %d entries", dir_entries());
	rmdir(path);
}

/* A FIFO is written in place, not replaced by a renamed regular file. */
static void fifo_in_place(void)
{
	const char *path = path_in_dir("fifo");
	struct stat st;
	char buf[1024] = "";
	CHECK(mkfifo(path, 0644) == 0, "mkfifo: %s", strerror(errno));
	int rd = open(path, O_RDONLY | O_NONBLOCK); /* lets the writer open */
	struct lb_csv *c = lb_csv_open(path, cols, 3, err, sizeof(err));
	CHECK(c && write_rows(c) == 0, "fifo open/rows: %s", err);
	CHECK(lb_csv_close(c, err, sizeof(err)) == 0, "fifo close: %s", err);
	ssize_t n = read(rd, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	close(rd);
	CHECK(strcmp(buf, expected) == 0, "fifo content:\n%s", buf);
	CHECK(stat(path, &st) == 0 && S_ISFIFO(st.st_mode), "the FIFO was replaced");
	CHECK(dir_entries() == 1, "fifo write left %d entries", dir_entries());
	unlink(path);
}

/* A symbolic link (as /dev/stdout is) to a regular file is written
 * through, and stays a link: a rename would have replaced it. */
static void symlink_in_place(void)
{
	char target[600], link[600]; /* path_in_dir's buffer is reused */
	struct stat st;
	snprintf(target, sizeof(target), "%s", path_in_dir("target.csv"));
	snprintf(link, sizeof(link), "%s", path_in_dir("link.csv"));
	int fd = open(target, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	close(fd);
	CHECK(symlink(target, link) == 0, "symlink: %s", strerror(errno));
	struct lb_csv *c = lb_csv_open(link, cols, 3, err, sizeof(err));
	CHECK(c && write_rows(c) == 0, "link open/rows: %s", err);
	CHECK(lb_csv_close(c, err, sizeof(err)) == 0, "link close: %s", err);
	CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode), "the link was replaced");
	char *got = slurp(target);
	CHECK(got && strcmp(got, expected) == 0, "link target content:\n%s", got);
	free(got);
	CHECK(dir_entries() == 2, "link write left %d entries", dir_entries());
	unlink(link);
	unlink(target);
}

/* The provenance lines come before the header, in the documented key
 * order whatever the order of adding, each value on one line. */
static void provenance_head(void)
{
	const char *path = path_in_dir("prov.csv");
	struct lb_prov prov = { 0 };
	lb_prov_add(&prov, "host.0", "%s", "h0");
	lb_prov_add(&prov, "option.root", "%d", 0);
	lb_prov_add(&prov, "version", "%s", "v1-2-gabc");
	lb_prov_add(&prov, "command", "%s", "lanebench sim -m 'a b'\nx");
	lb_prov_add(&prov, "transport", "%s", "tcp");
	lb_prov_add(&prov, "host.1", "%s", "h1");
	CHECK(!lb_prov_failed(&prov), "provenance out of memory");
	struct lb_csv *c = lb_csv_create(path, &prov, cols, 3, err, sizeof(err));
	lb_prov_free(&prov);
	CHECK(c && lb_csv_close(c, err, sizeof(err)) == 0, "create/close: %s", err);
	char *got = slurp(path);
	const char *want = HEAD "# version: v1-2-gabc\n# command: lanebench sim -m 'a b' x\n"
			   "# transport: tcp\n# option.root: 0\n# host.0: h0\n# host.1: h1\n"
			   "name,count,\"value, in seconds\"\n";
	CHECK(got && strcmp(got, want) == 0, "content:\n%s\nwant:\n%s", got, want);
	free(got);
	unlink(path);
}

/* NULL and "-" write to stdout; capture it in a file. */
static void to_stdout(void)
{
	const char *cap = path_in_dir("stdout.txt");
	fflush(stdout);
	int saved = dup(1), fd = open(cap, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	dup2(fd, 1);
	close(fd);
	struct lb_csv *c = lb_csv_open("-", cols, 3, err, sizeof(err));
	int rc = c ? write_rows(c) : -1;
	rc |= lb_csv_close(c, err, sizeof(err));
	c = lb_csv_open(NULL, cols, 1, err, sizeof(err));
	rc |= lb_csv_close(c, err, sizeof(err));
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	CHECK(rc == 0, "stdout sink: %s", err);
	char *got = slurp(cap), want[sizeof(expected) + sizeof(HEAD) + 8];
	snprintf(want, sizeof(want), "%s" HEAD "name\n", expected);
	CHECK(got && strcmp(got, want) == 0, "stdout content:\n%s", got);
	free(got);
	unlink(cap);
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");
	umask(022); /* the mode check below */
	snprintf(dir, sizeof(dir), "%s/lb-csv-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	quoting_and_rename();
	abort_keeps_old();
	incomplete_keeps_rows();
	incomplete_without_rows();
	counters();
	provenance_head();
	open_fails();
	write_fails();
	directory_fails();
	fifo_in_place();
	symlink_in_place();
	to_stdout();
	rmdir(dir);
	return check_status("test_csv");
}
