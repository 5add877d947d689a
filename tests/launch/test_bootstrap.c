/* Bootstrap tests.  Environment parsing and the single-rank case run in
 * this process; every multi-rank scenario forks one process per rank (and
 * per stranger) on 127.0.0.1 with a port found free by binding port 0.
 * Each child checks what it sees, exits 0 or 1, and has alarm() as a
 * safety net; the parent bounds its waits too and kills what is left. */
#include "launch/bootstrap.h"
#include "lib/error.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int failures;      /* in this process */
static char who[48] = "main";

#define T(cond, ...)                                                                 \
	do {                                                                         \
		if (!(cond)) {                                                       \
			failures++;                                                  \
			fprintf(stderr, "%s:%d: [%s] CHECK(%s) failed: ", __FILE__, \
				__LINE__, who, #cond);                               \
			fprintf(stderr, __VA_ARGS__);                                \
			fputc('\n', stderr);                                         \
		}                                                                    \
	} while (0)

#define ERRN 1200

struct job {
	const char *name;
	uint32_t size;
	double timeout;
	uint16_t port;
	char coord[64];
	const char *token;
};

typedef void (*rank_fn)(const struct job *j, uint32_t rank);

struct proc {
	rank_fn fn;
	uint32_t rank;
	int delay_ms;
};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int has(const char *s, const char *sub)
{
	return strstr(s, sub) != NULL;
}

static uint16_t free_port(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    getsockname(fd, (struct sockaddr *)&sa, &sl)) {
		perror("free_port");
		exit(2);
	}
	close(fd);
	return ntohs(sa.sin_port);
}

static struct job new_job(const char *name, uint32_t size, double timeout)
{
	struct job j = { .name = name, .size = size, .timeout = timeout, .port = free_port(),
			 .token = "test-token-42" };
	snprintf(j.coord, sizeof(j.coord), "127.0.0.1:%u", j.port);
	return j;
}

static struct lb_boot *join_as(const struct job *j, uint32_t rank, uint32_t size,
			       const char *token, char *err)
{
	struct lb_boot_cfg c = { .rank = rank, .size = size, .timeout = j->timeout };
	struct lb_boot *b = NULL;
	snprintf(c.coord, sizeof(c.coord), "%s", j->coord);
	snprintf(c.token, sizeof(c.token), "%s", token);
	err[0] = '\0';
	return lb_boot_open(&c, &b, err, ERRN) == 0 ? b : NULL;
}

static struct lb_boot *join(const struct job *j, uint32_t rank, char *err)
{
	return join_as(j, rank, j->size, j->token, err);
}

/* ---- running a scenario ---------------------------------------------------- */

static pid_t spawn(const struct job *j, const struct proc *p)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid != 0)
		return pid;
	failures = 0; /* the parent's are its own */
	snprintf(who, sizeof(who), "%s rank %u", j->name, p->rank);
	alarm(20);
	sleep_ms(p->delay_ms);
	p->fn(j, p->rank);
	fflush(NULL);
	exit(failures ? 1 : 0);
}

static void reap(const struct job *j, pid_t *pids, const struct proc *p, size_t n)
{
	double deadline = now() + 25;
	size_t left = n;
	while (left > 0) {
		for (size_t i = 0; i < n; i++) {
			int st;
			if (pids[i] <= 0 || waitpid(pids[i], &st, WNOHANG) != pids[i])
				continue;
			T(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: process for rank %u %s %d",
			  j->name, p[i].rank, WIFEXITED(st) ? "exited with" : "killed by signal",
			  WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
			pids[i] = 0;
			left--;
		}
		if (left > 0 && now() > deadline) {
			for (size_t i = 0; i < n; i++)
				if (pids[i] > 0)
					kill(pids[i], SIGKILL);
			T(0, "%s: %zu process(es) still running after 25 s", j->name, left);
			deadline = now() + 60; /* SIGKILLed: reaped on the next rounds */
		}
		sleep_ms(10);
	}
}

static void run(const struct job *j, const struct proc *p, size_t n)
{
	pid_t pids[16];
	double t0 = now();
	for (size_t i = 0; i < n; i++) {
		pids[i] = spawn(j, &p[i]);
		if (pids[i] < 0) {
			perror("fork");
			exit(2);
		}
	}
	reap(j, pids, p, n);
	printf("  %-12s %zu processes, %.2f s\n", j->name, n, now() - t0);
}

/* All ranks 0..size-1 running fn, no delays. */
static void run_all(const struct job *j, rank_fn fn)
{
	struct proc p[16];
	for (uint32_t r = 0; r < j->size; r++)
		p[r] = (struct proc){ fn, r, 0 };
	run(j, p, j->size);
}

/* ---- the normal case -------------------------------------------------------------- */

static void happy_allgather(struct lb_boot *b, uint32_t rank, uint32_t size)
{
	char err[ERRN];
	uint64_t mine = rank * 1000u + 7, all[8] = { 0 };
	T(lb_boot_allgather(b, &mine, sizeof(mine), all, err, ERRN) == 0, "allgather: %s", err);
	for (uint32_t r = 0; r < size; r++)
		T(all[r] == r * 1000u + 7, "allgather: slot %u holds %llu", r, (unsigned long long)all[r]);
	size_t len = 64 << 10; /* in place, 320 KiB in all: partial reads and writes */
	uint8_t *big = calloc(size, len);
	for (size_t i = 0; i < len; i++)
		big[rank * len + i] = (uint8_t)(rank * 31 + i);
	T(lb_boot_allgather(b, big + rank * len, len, big, err, ERRN) == 0, "big allgather: %s", err);
	size_t bad = 0;
	for (size_t i = 0; i < size * len; i++)
		bad += big[i] != (uint8_t)((i / len) * 31 + i % len);
	T(bad == 0, "big allgather: %zu wrong bytes", bad);
	free(big);
	T(lb_boot_allgather(b, NULL, 0, NULL, err, ERRN) == 0, "empty allgather: %s", err);
}

static void happy_bcast_gather(struct lb_boot *b, uint32_t rank, uint32_t size)
{
	char err[ERRN];
	size_t len = 200000, bad = 0;
	uint8_t *buf = calloc(1, len);
	for (size_t i = 0; rank == 0 && i < len; i++)
		buf[i] = (uint8_t)(i * 7 + 3);
	T(lb_boot_bcast(b, buf, len, err, ERRN) == 0, "bcast: %s", err);
	for (size_t i = 0; i < len; i++)
		bad += buf[i] != (uint8_t)(i * 7 + 3);
	T(bad == 0, "bcast: %zu wrong bytes", bad);
	free(buf);
	uint32_t mine[3] = { rank, rank * rank, 0xabcd }, all[8][3];
	memset(all, 0, sizeof(all));
	T(lb_boot_gather(b, mine, sizeof(mine), rank == 0 ? all : NULL, err, ERRN) == 0,
	  "gather: %s", err);
	for (uint32_t r = 0; rank == 0 && r < size; r++)
		T(all[r][0] == r && all[r][1] == r * r && all[r][2] == 0xabcd, "gather: slot %u", r);
}

static void happy_agree(struct lb_boot *b, uint32_t rank)
{
	char err[ERRN];
	T(lb_boot_agree(b, 1, "ignored", err, ERRN) == 0, "agree, all ok: %s", err);
	int rc = lb_boot_agree(b, rank != 3, "disk full\non /dev/sda", err, ERRN);
	/* -1 where it failed, LB_EPEER where another rank did */
	T(rc == (rank == 3 ? -1 : LB_EPEER) && strcmp(err, "rank 3: disk full on /dev/sda") == 0,
	  "agree, rank 3: %d '%s'", rc, err);
	snprintf(err, ERRN, "r%u failed", rank); /* reason and err the same buffer */
	rc = lb_boot_agree(b, rank != 2 && rank != 4, err, err, ERRN);
	T(rc == (rank == 2 || rank == 4 ? -1 : LB_EPEER) && strcmp(err, "rank 2: r2 failed (and 1 more)") == 0, "agree, ranks 2 and 4: %d '%s'",
	  rc, err);
	/* a failed agreement is not a failed job */
	T(lb_boot_barrier(b, err, ERRN) == 0, "barrier after a failed agree: %s", err);
}

static void r_happy(const struct job *j, uint32_t rank)
{
	char err[ERRN];
	struct lb_boot *b = join(j, rank, err);
	T(b != NULL, "open: %s", err);
	if (!b)
		return;
	T(lb_boot_rank(b) == rank && lb_boot_size(b) == j->size, "rank %u size %u",
	  lb_boot_rank(b), lb_boot_size(b));
	for (int i = 0; i < 100; i++)
		if (lb_boot_barrier(b, err, ERRN)) {
			T(0, "barrier %d: %s", i, err);
			break;
		}
	happy_allgather(b, rank, j->size);
	happy_bcast_gather(b, rank, j->size);
	happy_agree(b, rank);
	lb_boot_close(b);
}

/* ---- strangers ------------------------------------------------------------------------- */

/* A raw connection to the coordinator, retried for up to 5 s. */
static int raw_connect(const struct job *j)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(j->port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	for (double end = now() + 5; now() < end; sleep_ms(50)) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
			return fd;
		if (fd >= 0)
			close(fd);
	}
	T(0, "cannot connect to %s", j->coord);
	return -1;
}

/* Reads until EOF (or reset) for at most 6 s; what arrived goes to out. */
static int raw_until_eof(int fd, char *out, size_t n)
{
	size_t got = 0;
	for (double end = now() + 6; now() < end;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		if (poll(&p, 1, 100) <= 0)
			continue;
		ssize_t k = recv(fd, out + got, n - 1 - got, 0);
		if (k <= 0) {
			out[got] = '\0';
			return 0;
		}
		got += (size_t)k;
		for (size_t i = got - (size_t)k; i < got; i++)
			out[i] = out[i] ? out[i] : ' ';
	}
	out[got] = '\0';
	return -1;
}

static void s_garbage(const struct job *j, uint32_t rank)
{
	(void)rank;
	static const char junk[] = "GET / HTTP/1.1\r\nHost: lanebench\r\n\r\n";
	char got[256];
	int fd = raw_connect(j);
	if (fd < 0)
		return;
	T(send(fd, junk, sizeof(junk) - 1, MSG_NOSIGNAL) > 0, "send: %s", strerror(errno));
	T(raw_until_eof(fd, got, sizeof(got)) == 0, "garbage connection not closed within 6 s");
	close(fd);
}

static void s_silent(const struct job *j, uint32_t rank)
{
	(void)rank;
	char got[256];
	int fd = raw_connect(j);
	double t0 = now();
	if (fd < 0)
		return;
	T(raw_until_eof(fd, got, sizeof(got)) == 0, "silent connection not closed within 6 s");
	T(now() - t0 > 2.5, "silent connection dropped after %.2f s, before 3 s", now() - t0);
	close(fd);
}

/* A protocol header as launch/boot_private.h documents it (values < 256). */
static void raw_hdr(uint8_t *m, uint8_t type, uint8_t rank, uint8_t arg, uint8_t len)
{
	static const uint8_t head[8] = { 0x4c, 0x42, 0x42, 0x4f, 0, 1 };
	memset(m, 0, 24);
	memcpy(m, head, sizeof(head));
	m[6] = type;
	m[15] = rank;
	m[19] = arg;
	m[23] = len;
}

/* A well-formed HELLO claiming rank 0, with the right token. */
static void s_claims_rank0(const struct job *j, uint32_t rank)
{
	(void)rank;
	uint8_t m[24 + 64];
	size_t tl = strlen(j->token);
	char got[2048];
	raw_hdr(m, 1, 0, (uint8_t)j->size, (uint8_t)tl);
	memcpy(m + 24, j->token, tl);
	int fd = raw_connect(j);
	if (fd < 0)
		return;
	T(send(fd, m, 24 + tl, MSG_NOSIGNAL) == (ssize_t)(24 + tl), "send: %s", strerror(errno));
	T(raw_until_eof(fd, got, sizeof(got)) == 0, "not closed within 6 s");
	T(has(got, "refused this connection: rank 0 out of range 1..4"), "got '%s'", got);
	close(fd);
}

static void s_wrong(const struct job *j, uint32_t rank, uint32_t size, const char *token,
		    const char *want)
{
	char err[ERRN];
	double t0 = now();
	struct lb_boot *b = join_as(j, rank, size, token, err);
	T(b == NULL, "a stranger joined the job");
	lb_boot_close(b);
	T(has(err, want) && has(err, j->coord), "err '%s' lacks '%s'", err, want);
	T(now() - t0 < 3, "refusal took %.2f s", now() - t0);
}

static void s_token(const struct job *j, uint32_t rank)
{
	(void)rank;
	s_wrong(j, 1, j->size, "not-the-token", "refused this connection: wrong job token");
}

static void s_size(const struct job *j, uint32_t rank)
{
	(void)rank;
	s_wrong(j, 2, j->size - 1, j->token, "refused this connection: job size 4, expected 5");
}

static void s_dup(const struct job *j, uint32_t rank)
{
	(void)rank;
	s_wrong(j, 1, j->size, j->token, "refused this connection: rank 1 is already connected");
}

static void check_refusals(FILE *log)
{
	static const char *const want[] = {
		"refused connection from 127.0.0.1:", "wrong job token",
		"not a lanebench bootstrap message", "job size 4, expected 5",
		"rank 1 is already connected", "rank 0 out of range 1..4", "no hello within 3 s",
	};
	char text[8192];
	size_t n = (rewind(log), fread(text, 1, sizeof(text) - 1, log));
	text[n] = '\0';
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		T(has(text, want[i]), "rank 0's log lacks '%s':\n%s", want[i], text);
}

static void r_legit(const struct job *j, uint32_t rank)
{
	char err[ERRN];
	FILE *log = rank == 0 ? tmpfile() : NULL;
	int saved = dup(2);
	if (log)
		dup2(fileno(log), 2);
	struct lb_boot *b = join(j, rank, err);
	uint32_t all[8] = { 0 };
	int rc = b ? lb_boot_allgather(b, &rank, sizeof(rank), all, err, ERRN) : -1;
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	T(b != NULL && rc == 0, "open/allgather: %s", err);
	for (uint32_t r = 0; rc == 0 && r < j->size; r++)
		T(all[r] == r, "slot %u holds %u", r, all[r]);
	if (log) {
		check_refusals(log);
		fclose(log);
	}
	lb_boot_close(b);
}

/* ---- failures ------------------------------------------------------------------------------ */

static void r_missing(const struct job *j, uint32_t rank)
{
	char err[ERRN], want[256];
	double t0 = now();
	struct lb_boot *b = join(j, rank, err);
	double dt = now() - t0;
	snprintf(want, sizeof(want), "timeout after 2 s: rank(s) 2 never connected to coordinator %s",
		 j->coord);
	T(b == NULL, "open succeeded without rank 2");
	lb_boot_close(b);
	T(strcmp(err, want) == 0, "err '%s'", err);
	T(dt > 1.8 && dt < 3.5, "failed after %.2f s", dt);
}

/* Opens and passes a first barrier; NULL (checked) if that fails. */
static struct lb_boot *start(const struct job *j, uint32_t rank)
{
	char err[ERRN];
	struct lb_boot *b = join(j, rank, err);
	T(b != NULL, "open: %s", err);
	if (b && lb_boot_barrier(b, err, ERRN)) {
		T(0, "first barrier: %s", err);
		lb_boot_close(b);
		b = NULL;
	}
	return b;
}

/* The next barrier fails within limit seconds with exactly want and
 * code (-1: this rank's failure, LB_EPEER: another's). */
static void barrier_fails(struct lb_boot *b, int code, const char *want, double limit)
{
	char err[ERRN];
	double t0 = now();
	int rc = lb_boot_barrier(b, err, ERRN);
	double dt = now() - t0;
	T(rc == code && strcmp(err, want) == 0, "barrier: %d '%s', expected %d '%s'", rc, err,
	  code, want);
	T(dt < limit, "failed after %.2f s", dt);
	rc = lb_boot_barrier(b, err, ERRN); /* the handle stays failed */
	T(rc == code && strcmp(err, want) == 0, "second barrier: %d '%s'", rc, err);
}

static void r_exit(const struct job *j, uint32_t rank)
{
	struct lb_boot *b = start(j, rank);
	if (b && rank == 3)
		_exit(0); /* no goodbye */
	if (b)
		barrier_fails(b, LB_EPEER, "rank 3 disconnected", 2);
	lb_boot_close(b);
}

static void r_root_gone(const struct job *j, uint32_t rank)
{
	char want[256];
	struct lb_boot *b = start(j, rank);
	if (b && rank == 0)
		_exit(0);
	snprintf(want, sizeof(want), "coordinator (rank 0) at %s closed the connection", j->coord);
	if (b)
		barrier_fails(b, LB_EPEER, want, 2);
	lb_boot_close(b);
}

static void r_abort(const struct job *j, uint32_t rank)
{
	uint32_t who_aborts = j->size == 4 ? 2 : 0;
	char want[256];
	struct lb_boot *b = start(j, rank);
	snprintf(want, sizeof(want), "rank %u aborted: %s", who_aborts,
		 who_aborts ? "GPU on fire" : "out of paper");
	if (b && rank == who_aborts) {
		sleep_ms(300); /* the others are waiting in the barrier by now */
		lb_boot_abort(b, who_aborts ? "GPU on fire" : "out\nof paper");
	}
	if (b)
		barrier_fails(b, rank == who_aborts ? -1 : LB_EPEER, want, 2);
	lb_boot_close(b);
}

static void r_mismatch(const struct job *j, uint32_t rank)
{
	char err[ERRN];
	uint8_t mine[16] = { 0 }, all[64];
	struct lb_boot *b = start(j, rank);
	if (!b)
		return;
	int rc = lb_boot_allgather(b, mine, rank == 2 ? 16 : 8, all, err, ERRN);
	T(rc == LB_EPEER && strcmp(err, "rank 2 called allgather(16 bytes) but rank 0 called "
			     "allgather(8 bytes)") == 0, "allgather: %d '%s'", rc, err);
	lb_boot_close(b);
}

static void r_silent_rank(const struct job *j, uint32_t rank)
{
	struct lb_boot *b = start(j, rank);
	if (b && rank == 2)
		sleep_ms(3300);
	if (b)
		barrier_fails(b, LB_EPEER, "rank 2 did not answer within 2 s", rank == 2 ? 1 : 3.2);
	lb_boot_close(b);
}

/* take_report finds the cause within limit seconds: want, LB_EPEER, and
 * the handle stays failed with it. */
static void report_is(struct lb_boot *b, const char *want, double limit)
{
	char err[ERRN] = "";
	double t0 = now();
	int rc = lb_boot_take_report(b, 3, err, ERRN);
	double dt = now() - t0;
	T(rc == LB_EPEER && strcmp(err, want) == 0, "report: %d '%s', expected '%s'", rc, err, want);
	T(dt < limit, "report after %.2f s", dt);
	barrier_fails(b, LB_EPEER, want, 0.5);
}

/* A rank dies in the data phase: rank 0 sees its connection close and
 * tells the others, who were looking for a report. */
static void r_report_death(const struct job *j, uint32_t rank)
{
	struct lb_boot *b = start(j, rank);
	if (b && rank == 3)
		_exit(0);
	if (b)
		report_is(b, "rank 3 disconnected", 1.5);
	lb_boot_close(b);
}

/* A rank fails and says why before it quits: its report wins. */
static void r_report_abort(const struct job *j, uint32_t rank)
{
	struct lb_boot *b = start(j, rank);
	if (b && rank == 2) {
		lb_boot_abort(b, "lane 0: rank 1 closed the connection");
		sleep_ms(500); /* then quits, as lanebench does */
	} else if (b) {
		report_is(b, "rank 2 aborted: lane 0: rank 1 closed the connection", 1.5);
	}
	lb_boot_close(b);
}

/* Nothing to report: take_report returns 0 after its wait and leaves the
 * barrier rank 1 already entered to the barrier. */
static void r_report_none(const struct job *j, uint32_t rank)
{
	char err[ERRN] = "untouched";
	struct lb_boot *b = start(j, rank);
	if (!b)
		return;
	if (rank != 1) {
		double t0 = now();
		int rc = lb_boot_take_report(b, 0.3, err, ERRN);
		T(rc == 0 && strcmp(err, "untouched") == 0, "report: %d '%s'", rc, err);
		T(now() - t0 < 1, "report took %.2f s", now() - t0);
	}
	T(lb_boot_barrier(b, err, ERRN) == 0, "barrier after no report: %s", err);
	lb_boot_close(b);
}

/* ---- a fake coordinator --------------------------------------------------------------------- */

static void r_fake_client(const struct job *j, uint32_t rank)
{
	char err[ERRN];
	double t0 = now();
	struct lb_boot *b = join(j, rank, err);
	T(b == NULL && strcmp(err, "go away") == 0, "open: '%s'", err);
	T(now() - t0 < 3, "took %.2f s", now() - t0);
	lb_boot_close(b);
}

/* Accepts one connection and reads its HELLO (all waits bounded). */
static int fake_hello(int lfd, const struct job *j)
{
	uint8_t m[24 + 128];
	size_t got = 0, want = 24;
	struct pollfd p = { .fd = lfd, .events = POLLIN };
	int fd = poll(&p, 1, 5000) == 1 ? accept(lfd, NULL, NULL) : -1;
	T(fd >= 0, "fake coordinator: no connection");
	for (double end = now() + 5; fd >= 0 && got < want && now() < end;) {
		p = (struct pollfd){ .fd = fd, .events = POLLIN };
		ssize_t k = poll(&p, 1, 100) == 1 ? recv(fd, m + got, want - got, 0) : 0;
		got += k > 0 ? (size_t)k : 0;
		want = got >= 24 ? 24 + (size_t)m[23] : 24;
	}
	T(got == want && got == 24 + strlen(j->token) && m[6] == 1 && m[15] == 1 &&
	  memcmp(m + 24, j->token, got - 24) == 0, "fake coordinator: bad hello (%zu bytes)", got);
	return fd;
}

/* Closes the first connection without a word (the rank must connect
 * again), answers the second with an ABORT (its reason, verbatim). */
static void test_fake_coord(void)
{
	struct job j = new_job("fake-coord", 2, 5);
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(j.port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 4)) {
		perror("fake coordinator");
		exit(2);
	}
	struct proc p = { r_fake_client, 1, 0 };
	pid_t pid = spawn(&j, &p);
	double t0 = now();
	int fd = fake_hello(lfd, &j);
	close(fd);
	fd = fake_hello(lfd, &j);
	uint8_t m[24 + 7];
	raw_hdr(m, 5, 0, 0, 7);
	memcpy(m + 24, "go away", 7);
	T(fd >= 0 && send(fd, m, sizeof(m), MSG_NOSIGNAL) == (ssize_t)sizeof(m), "send");
	close(fd);
	close(lfd);
	reap(&j, &pid, &p, 1);
	printf("  %-12s 1 process, %.2f s\n", j.name, now() - t0);
}

/* ---- in this process: environment, configuration, one rank --------------------------------- */

static const char *const env_names[] = {
	"LANEBENCH_RANK", "LANEBENCH_SIZE", "SLURM_PROCID", "SLURM_NTASKS", "OMPI_COMM_WORLD_RANK",
	"OMPI_COMM_WORLD_SIZE", "PMI_RANK", "PMI_SIZE", "LANEBENCH_COORD", "LANEBENCH_TOKEN",
	"SLURM_JOB_ID", "OMPI_MCA_orte_ess_jobid", "PMIX_NAMESPACE", "LANEBENCH_TIMEOUT",
};

struct env_case {
	const char *set[8];   /* "NAME=value", NULL-terminated */
	uint32_t rank, size;  /* expected, when want is NULL */
	const char *token;
	double timeout;
	const char *want;     /* expected in the error; NULL: success */
};

#define LONG64 "0123456789012345678901234567890123456789012345678901234567890123"

static const struct env_case env_cases[] = {
	{ { NULL }, 0, 1, "", 60, NULL },
	{ { "LANEBENCH_RANK=2", "LANEBENCH_SIZE=4", "LANEBENCH_COORD=10.0.0.1:18515",
	    "LANEBENCH_TOKEN=abc", "LANEBENCH_TIMEOUT=2.5" }, 2, 4, "abc", 2.5, NULL },
	{ { "SLURM_PROCID=1", "SLURM_NTASKS=3", "SLURM_JOB_ID=777", "LANEBENCH_COORD=n1:5" },
	  1, 3, "slurm-777", 60, NULL },
	{ { "OMPI_COMM_WORLD_RANK=7", "OMPI_COMM_WORLD_SIZE=8", "OMPI_MCA_orte_ess_jobid=4242",
	    "LANEBENCH_COORD=h:1" }, 7, 8, "ompi-4242", 60, NULL },
	{ { "PMI_RANK=0", "PMI_SIZE=2", "PMIX_NAMESPACE=prterun-h-1@1", "LANEBENCH_COORD=h:1" },
	  0, 2, "pmix-prterun-h-1@1", 60, NULL },
	/* precedence */
	{ { "LANEBENCH_RANK=1", "LANEBENCH_SIZE=2", "SLURM_PROCID=5", "SLURM_NTASKS=9",
	    "SLURM_JOB_ID=3", "LANEBENCH_COORD=h:1" }, 1, 2, "slurm-3", 60, NULL },
	{ { "SLURM_PROCID=2", "SLURM_NTASKS=3", "OMPI_COMM_WORLD_RANK=0", "OMPI_COMM_WORLD_SIZE=5",
	    "LANEBENCH_TOKEN=mine", "SLURM_JOB_ID=3", "LANEBENCH_COORD=h:1" }, 2, 3, "mine", 60, NULL },
	{ { "SLURM_PROCID=2", "OMPI_COMM_WORLD_RANK=4", "OMPI_COMM_WORLD_SIZE=5", "PMI_RANK=1",
	    "PMI_SIZE=2", "SLURM_JOB_ID=9", "LANEBENCH_COORD=h:1" }, 4, 5, "slurm-9", 60, NULL },
	{ { "OMPI_COMM_WORLD_RANK=1", "OMPI_COMM_WORLD_SIZE=2", "PMIX_NAMESPACE=ns",
	    "OMPI_MCA_orte_ess_jobid=77", "LANEBENCH_COORD=h:1" }, 1, 2, "ompi-77", 60, NULL },
	{ { "LANEBENCH_COORD=bad", "LANEBENCH_TIMEOUT=0.25" }, 0, 1, "", 0.25, NULL },
	/* bad or missing values */
	{ { "LANEBENCH_RANK=x", "LANEBENCH_SIZE=4" }, 0, 0, NULL, 0,
	  "LANEBENCH_RANK='x' is not a rank (expected 0..3)" },
	{ { "LANEBENCH_RANK=4", "LANEBENCH_SIZE=4" }, 0, 0, NULL, 0, "LANEBENCH_RANK='4'" },
	{ { "LANEBENCH_RANK=1x", "LANEBENCH_SIZE=4" }, 0, 0, NULL, 0, "LANEBENCH_RANK='1x'" },
	{ { "LANEBENCH_RANK= 1", "LANEBENCH_SIZE=4" }, 0, 0, NULL, 0, "LANEBENCH_RANK=' 1'" },
	{ { "LANEBENCH_RANK=0", "LANEBENCH_SIZE=0" }, 0, 0, NULL, 0, "LANEBENCH_SIZE='0'" },
	{ { "LANEBENCH_RANK=0", "LANEBENCH_SIZE=99999999999" }, 0, 0, NULL, 0,
	  "LANEBENCH_SIZE='99999999999'" },
	{ { "SLURM_PROCID=0", "SLURM_NTASKS=-2" }, 0, 0, NULL, 0, "SLURM_NTASKS='-2'" },
	{ { "OMPI_COMM_WORLD_RANK=+1", "OMPI_COMM_WORLD_SIZE=2" }, 0, 0, NULL, 0,
	  "OMPI_COMM_WORLD_RANK='+1'" },
	{ { "PMI_RANK=3", "PMI_SIZE=3" }, 0, 0, NULL, 0, "PMI_RANK='3' is not a rank (expected 0..2)" },
	{ { "LANEBENCH_RANK=1" }, 0, 0, NULL, 0, "LANEBENCH_SIZE is not" },
	{ { "LANEBENCH_TIMEOUT=abc" }, 0, 0, NULL, 0, "LANEBENCH_TIMEOUT='abc'" },
	{ { "LANEBENCH_TIMEOUT=0" }, 0, 0, NULL, 0, "LANEBENCH_TIMEOUT='0'" },
	{ { "LANEBENCH_TIMEOUT=-3" }, 0, 0, NULL, 0, "LANEBENCH_TIMEOUT='-3'" },
	{ { "LANEBENCH_TIMEOUT=nan" }, 0, 0, NULL, 0, "LANEBENCH_TIMEOUT='nan'" },
	{ { "LANEBENCH_TIMEOUT=inf" }, 0, 0, NULL, 0, "LANEBENCH_TIMEOUT='inf'" },
	{ { "LANEBENCH_TIMEOUT=5s" }, 0, 0, NULL, 0, "LANEBENCH_TIMEOUT='5s'" },
	{ { "LANEBENCH_RANK=1", "LANEBENCH_SIZE=2", "LANEBENCH_TOKEN=t" }, 0, 0, NULL, 0,
	  "LANEBENCH_COORD is not set" },
	{ { "LANEBENCH_RANK=1", "LANEBENCH_SIZE=2", "LANEBENCH_TOKEN=t", "LANEBENCH_COORD=nohost" },
	  0, 0, NULL, 0, "LANEBENCH_COORD='nohost'" },
	{ { "LANEBENCH_RANK=1", "LANEBENCH_SIZE=2", "LANEBENCH_TOKEN=t", "LANEBENCH_COORD=h:0" },
	  0, 0, NULL, 0, "LANEBENCH_COORD='h:0'" },
	{ { "LANEBENCH_RANK=1", "LANEBENCH_SIZE=2", "LANEBENCH_TOKEN=t", "LANEBENCH_COORD=h:70000" },
	  0, 0, NULL, 0, "LANEBENCH_COORD='h:70000'" },
	{ { "LANEBENCH_RANK=1", "LANEBENCH_SIZE=2", "LANEBENCH_TOKEN=t", "LANEBENCH_COORD=h:x1" },
	  0, 0, NULL, 0, "LANEBENCH_COORD='h:x1'" },
	{ { "LANEBENCH_RANK=1", "LANEBENCH_SIZE=2", "LANEBENCH_COORD=h:1" }, 0, 0, NULL, 0,
	  "LANEBENCH_TOKEN is not set" },
	{ { "LANEBENCH_RANK=1", "LANEBENCH_SIZE=2", "LANEBENCH_COORD=h:1",
	    "LANEBENCH_TOKEN=" LONG64 LONG64 "x" }, 0, 0, NULL, 0, "LANEBENCH_TOKEN is 129 characters" },
	{ { "SLURM_PROCID=1", "SLURM_NTASKS=2", "LANEBENCH_COORD=h:1", "SLURM_JOB_ID=" LONG64 LONG64 },
	  0, 0, NULL, 0, "SLURM_JOB_ID='0123" },
};

static void env_set(const char *const *set)
{
	for (size_t i = 0; i < sizeof(env_names) / sizeof(env_names[0]); i++)
		unsetenv(env_names[i]);
	for (size_t i = 0; set[i]; i++) {
		char name[64];
		const char *eq = strchr(set[i], '=');
		snprintf(name, sizeof(name), "%.*s", (int)(eq - set[i]), set[i]);
		setenv(name, eq + 1, 1);
	}
}

static void test_env(void)
{
	for (size_t i = 0; i < sizeof(env_cases) / sizeof(env_cases[0]); i++) {
		const struct env_case *e = &env_cases[i];
		struct lb_boot_cfg c;
		char err[ERRN] = "";
		env_set(e->set);
		int rc = lb_boot_env(&c, err, ERRN);
		if (e->want) {
			T(rc == -1 && has(err, e->want), "env case %zu: %d '%s', want '%s'", i, rc, err,
			  e->want);
			continue;
		}
		T(rc == 0, "env case %zu: %s", i, err);
		T(rc || (c.rank == e->rank && c.size == e->size && strcmp(c.token, e->token) == 0 &&
			 c.timeout == e->timeout), "env case %zu: rank %u size %u token '%s' timeout %g",
		  i, c.rank, c.size, c.token, c.timeout);
	}
	struct lb_boot_cfg c;
	char err[ERRN];
	/* Where the size came from: callers refuse a job nobody launched. */
	env_set((const char *const[]){ NULL });
	T(lb_boot_env(&c, err, ERRN) == 0 && c.size_from == NULL, "no job: size_from '%s'",
	  c.size_from ? c.size_from : "(null)");
	env_set((const char *const[]){ "LANEBENCH_RANK=0", "LANEBENCH_SIZE=1", NULL });
	T(lb_boot_env(&c, err, ERRN) == 0 && c.size_from && strcmp(c.size_from, "LANEBENCH_SIZE") == 0,
	  "explicit size 1: size_from '%s'", c.size_from ? c.size_from : "(null)");
	env_set((const char *const[]){ "SLURM_PROCID=0", "SLURM_NTASKS=3", "SLURM_JOB_ID=1",
				       "LANEBENCH_COORD=h:1", NULL });
	T(lb_boot_env(&c, err, ERRN) == 0 && c.size_from && strcmp(c.size_from, "SLURM_NTASKS") == 0,
	  "slurm: size_from '%s'", c.size_from ? c.size_from : "(null)");
	env_set((const char *const[]){ "LANEBENCH_RANK=1", "LANEBENCH_SIZE=2", "LANEBENCH_TOKEN=t",
				       "LANEBENCH_COORD=127.0.0.1:18515", NULL });
	T(lb_boot_env(&c, err, ERRN) == 0 && strcmp(c.coord, "127.0.0.1:18515") == 0, "coord '%s'",
	  c.coord);
	env_set((const char *const[]){ NULL });
	printf("  %-12s %zu cases\n", "env", sizeof(env_cases) / sizeof(env_cases[0]));
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;
	while (d && readdir(d))
		n++;
	if (d)
		closedir(d);
	return n;
}

static void test_single(void)
{
	struct lb_boot_cfg c = { .rank = 0, .size = 1, .timeout = 1 };
	struct lb_boot *b = NULL;
	char err[ERRN];
	uint64_t v = 42, all = 0;
	int fds = count_fds();
	T(lb_boot_open(&c, &b, err, ERRN) == 0 && b, "open: %s", err);
	if (!b)
		return;
	T(count_fds() == fds, "size 1 opened %d descriptor(s)", count_fds() - fds);
	T(lb_boot_barrier(b, err, ERRN) == 0, "barrier: %s", err);
	T(lb_boot_allgather(b, &v, 8, &all, err, ERRN) == 0 && all == 42, "allgather: %s", err);
	all = 0;
	T(lb_boot_gather(b, &v, 8, &all, err, ERRN) == 0 && all == 42, "gather: %s", err);
	T(lb_boot_bcast(b, &v, 8, err, ERRN) == 0 && v == 42, "bcast: %s", err);
	T(lb_boot_agree(b, 1, NULL, err, ERRN) == 0, "agree: %s", err);
	T(lb_boot_take_report(b, 0.1, err, ERRN) == 0, "report, alone: '%s'", err);
	T(lb_boot_agree(b, 0, "no lanes", err, ERRN) == -1 && strcmp(err, "rank 0: no lanes") == 0,
	  "agree: '%s'", err);
	T(lb_boot_bcast(b, &v, 17u << 20, err, ERRN) == -1 && has(err, "over the bootstrap's limit"),
	  "oversized bcast: '%s'", err);
	T(lb_boot_barrier(b, err, ERRN) == -1, "barrier after a failed collective succeeded");
	lb_boot_close(b);
	T(lb_boot_open(&c, &b, err, ERRN) == 0, "open: %s", err);
	lb_boot_abort(b, "stop");
	T(lb_boot_barrier(b, err, ERRN) == -1 && strcmp(err, "rank 0 aborted: stop") == 0, "'%s'", err);
	lb_boot_close(b);
	T(count_fds() == fds, "descriptors leaked");
	printf("  %-12s ok\n", "single");
}

/* lb_boot_open fails with rc (LB_EINPUT: a configuration that cannot
 * work; -1: one that did not) and an error containing want. */
static void failed_open(struct lb_boot_cfg c, int rc, const char *want)
{
	struct lb_boot *b = (struct lb_boot *)&c; /* must be reset to NULL */
	char err[ERRN] = "";
	int got = lb_boot_open(&c, &b, err, ERRN);
	T(got == rc && b == NULL && has(err, want), "cfg: %d '%s', want %d '%s'", got, err, rc,
	  want);
}

static void bad_cfg(struct lb_boot_cfg c, const char *want)
{
	failed_open(c, LB_EINPUT, want);
}

/* A host no name service knows (RFC 6761's .invalid) is a bad input at
 * once, not retried until the timeout -- where name lookups work at all
 * (a sandbox without DNS answers EAI_AGAIN: left to the retries). */
static void unknown_coord_host(struct lb_boot_cfg c)
{
	struct addrinfo hints = { .ai_family = AF_INET }, *ai;
	int rc = getaddrinfo("no-such-host.invalid", NULL, &hints, &ai);
	if (rc == 0)
		freeaddrinfo(ai);
	if (rc != EAI_NONAME) {
		printf("  skip: name lookups answer '%s' for .invalid\n", gai_strerror(rc));
		return;
	}
	snprintf(c.coord, sizeof(c.coord), "no-such-host.invalid:9");
	c.timeout = 30;
	double t0 = now();
	bad_cfg(c, "cannot resolve");
	T(now() - t0 < 5, "an unknown host took %.2f s", now() - t0);
}

static void test_cfg(void)
{
	struct lb_boot_cfg c = { .rank = 1, .size = 2, .coord = "127.0.0.1:9", .token = "t",
				 .timeout = 1 };
	struct lb_boot_cfg x = c;
	x.token[0] = '\0';
	bad_cfg(x, "job token");
	x = c;
	x.rank = 2;
	bad_cfg(x, "rank 2 out of range");
	x = c;
	snprintf(x.coord, sizeof(x.coord), "nocolon");
	bad_cfg(x, "'nocolon' is not host:port");
	x = c;
	snprintf(x.coord, sizeof(x.coord), ":9");
	bad_cfg(x, "no host");
	x = c;
	x.timeout = 0;
	bad_cfg(x, "timeout");
	unknown_coord_host(c);
	/* nobody listens: retried until the timeout, then the last error */
	struct job j = new_job("unreachable", 2, 0.5);
	snprintf(c.coord, sizeof(c.coord), "%s", j.coord);
	c.timeout = 0.5;
	double t0 = now();
	char want[256];
	snprintf(want, sizeof(want), "timeout after 0.5 s: cannot reach coordinator (rank 0) at %s: "
		 "Connection refused", j.coord);
	failed_open(c, -1, want);
	T(now() - t0 > 0.4 && now() - t0 < 2, "gave up after %.2f s", now() - t0);
	printf("  %-12s ok\n", "config");
}

int main(void)
{
	double t0 = now();
	signal(SIGPIPE, SIG_IGN); /* raw test sockets; the library needs no help */
	test_env();
	test_single();
	test_cfg();
	test_fake_coord();
	struct job j = new_job("happy", 5, 10);
	run_all(&j, r_happy);
	j = new_job("strangers", 5, 10);
	const struct proc strangers[] = {
		{ r_legit, 0, 0 }, { r_legit, 1, 0 }, { r_legit, 2, 100 }, { r_legit, 3, 100 },
		{ r_legit, 4, 4000 }, { s_token, 1, 200 }, { s_size, 2, 200 }, { s_dup, 1, 600 },
		{ s_garbage, 9, 200 }, { s_silent, 9, 200 }, { s_claims_rank0, 0, 300 },
	};
	run(&j, strangers, sizeof(strangers) / sizeof(strangers[0]));
	j = new_job("missing", 3, 2);
	run(&j, (const struct proc[]){ { r_missing, 0, 0 }, { r_missing, 1, 0 } }, 2);
	/* Jobs whose ranks all run the same function. */
	static const struct { const char *name; uint32_t size; double timeout; rank_fn fn; } same[] = {
		{ "rank-exit", 5, 5, r_exit },           { "root-gone", 3, 5, r_root_gone },
		{ "abort", 4, 5, r_abort },              { "root-abort", 3, 5, r_abort },
		{ "mismatch", 3, 5, r_mismatch },        { "no-answer", 3, 2, r_silent_rank },
		{ "report-death", 4, 5, r_report_death }, { "report-abort", 4, 5, r_report_abort },
		{ "report-none", 4, 5, r_report_none },
	};
	for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
		j = new_job(same[i].name, same[i].size, same[i].timeout);
		run_all(&j, same[i].fn);
	}
	printf("bootstrap: %.2f s, %s\n", now() - t0, failures ? "FAILED" : "all checks passed");
	return failures ? 1 : 0;
}
