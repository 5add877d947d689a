/* Bootstrap: a TCP rendezvous at rank 0, star topology.
 *
 * Wire protocol (version 1).  Every message is a 24-byte header in network
 * byte order, then `len` payload bytes:
 *
 *     u32 magic   0x4c42424f ("LBBO")
 *     u16 version 1
 *     u8  type    HELLO 1, WELCOME 2, COLL 3, REPLY 4, ABORT 5
 *     u8  op      collective: barrier 1, allgather 2, bcast 3, gather 4, agree 5
 *     u32 seq     collective number (1, 2, ...; 0 for HELLO/WELCOME/ABORT)
 *     u32 rank    sender's rank
 *     u32 arg     HELLO/WELCOME: job size; COLL/REPLY: the caller's per-rank len
 *     u32 len     payload bytes: HELLO 1..128 (the token), WELCOME 0,
 *                 COLL/REPLY <= 16 MiB, ABORT <= 1024; more is malformed
 *
 * Joining.  Rank 0 listens; each other rank connects (retrying every
 * 100 ms until the timeout) and sends HELLO{rank, size, token}.  Rank 0
 * reads hellos from all unidentified connections at once (non-blocking;
 * room for min(size, 1024) + 64, beyond that the oldest is dropped) and
 * refuses -- logs to stderr and closes, never counting it as a rank -- any
 * that sends garbage, a bad magic/version/type/length, the wrong token
 * (constant-time compare), another job size, a rank out of 1..size-1 or
 * one already connected, or nothing within 3 s.  A refused peer that speaks the
 * protocol first gets an ABORT with the reason.  Once all size-1 ranks
 * said hello, rank 0 closes the listener and sends WELCOME to each; on
 * timeout it sends them an ABORT naming the missing ranks instead.  A rank
 * whose connection is closed before WELCOME without an ABORT (dropped
 * unidentified) connects again while its connect timeout lasts; it waits
 * for WELCOME until timeout + 1 s after connecting.
 *
 * Collectives.  Each rank sends COLL{op, seq, arg, its contribution} to
 * rank 0.  Rank 0 poll()s all ranks until the deadline (timeout from entry),
 * checks that op, seq and arg agree with its own and the length is the one
 * expected, then sends each rank a REPLY{op, seq, result}:
 *     barrier    COLL 0 bytes,   REPLY 0 bytes
 *     allgather  COLL len bytes, REPLY size*len bytes (all contributions)
 *     bcast      COLL 0 bytes,   REPLY len bytes (rank 0's buffer)
 *     gather     COLL len bytes, REPLY 0 bytes
 *     agree      a gather of 256-byte {ok, reason} records, then a bcast of
 *                rank 0's verdict (empty string = all ok).
 * A non-root rank waits for the reply until timeout + 1 s, so that rank 0's
 * diagnosis (which it relays) normally arrives before the rank's own.
 *
 * Failures.  ABORT's payload is a reason.  From a non-root rank it is that
 * rank's raw reason; rank 0 reports "rank 3 aborted: <reason>".  From rank
 * 0 it is the final one-line message, which the receiver reports verbatim
 * ("rank 3 disconnected", "rank 3 did not answer within 30 s", "rank 2
 * called gather(8 bytes) but rank 0 called allgather(8 bytes)", "rank 0
 * aborted: ...").  Whenever rank 0's collective fails it sends that ABORT
 * to every rank still connected; a non-root rank that fails on its own
 * (timeout, malformed reply, bad arguments) sends its reason to rank 0; if
 * rank 0's connection closes, others fail with "coordinator (rank 0) at
 * HOST:PORT closed the connection".  A failed handle stays failed.
 *
 * Mechanics: sockets are non-blocking, close-on-exec and TCP_NODELAY; every
 * wait is a poll() with a deadline (CLOCK_MONOTONIC); EINTR and partial
 * reads/writes are retried; send() uses MSG_NOSIGNAL (no SIGPIPE); all
 * state lives in the handle. */
#include "bootstrap.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "lib/error.h"

#define MAGIC       0x4c42424fu
#define VERSION     1u
#define HDR_LEN     24u
#define MSG_CAP     (16u << 20)
#define ABORT_MAX   1024u
#define TOKEN_MAX   128u
#define MAX_RANKS   65536u
#define SPARE_SLOTS 64u   /* unidentified connections beyond the ranks expected */
#define HELLO_WAIT  3.0   /* s: an unidentified connection must say hello */
#define RETRY_GAP   0.1   /* s: between connect attempts */
#define GRACE       1.0   /* s: non-root ranks wait this much past the timeout */
#define ABORT_WAIT  1.0   /* s: best-effort ABORT sends, in all */
#define REC         256u  /* agree record: ok byte + NUL-terminated reason */
#define VERDICT     (REC + 64u)
#define ERR_LEN     512u

enum { T_HELLO = 1, T_WELCOME, T_COLL, T_REPLY, T_ABORT };
enum { OP_NONE, OP_BARRIER, OP_ALLGATHER, OP_BCAST, OP_GATHER, OP_AGREE };
/* I/O outcomes besides 0 (done) and -errno. */
enum { IO_EOF = 1, IO_TIMEOUT, IO_INPUT };

static const char *const op_names[] = { "nothing", "barrier", "allgather", "bcast",
					"gather", "agree" };

struct hdr {
	uint32_t magic;
	uint16_t version;
	uint8_t type, op;
	uint32_t seq, rank, arg, len;
};

struct lb_boot {
	uint32_t rank, size, seq;
	double timeout;
	char coord[256];
	int fd;               /* non-root: the connection to rank 0 */
	int *fds;             /* root: fds[r] is rank r's connection (fds[0] = -1) */
	uint8_t *got;         /* root: rank r has answered (joined) */
	struct pollfd *pfd;   /* root: poll set */
	uint32_t *pfd_rank;   /* root: rank of pfd[i] */
	int failed;
	int code;             /* what a failed handle returns: -1, or LB_EPEER */
	char why[ERR_LEN];
};

/* One collective as the engine sees it. */
struct coll {
	uint8_t op;
	uint32_t arg;         /* caller's len; every rank must pass the same */
	const void *mine;     /* what a non-root sends */
	uint32_t mine_len;
	uint8_t *gathered;    /* root: contributions land at [rank * mine_len] */
	const void *reply;    /* root: what every rank gets back */
	uint32_t reply_len;
	void *reply_dst;      /* non-root: where it goes */
};

/* ---- small helpers ------------------------------------------------------- */

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int ms_until(double deadline)
{
	double left = deadline - now();
	if (left <= 0)
		return 0;
	return left > 1e6 ? 1000000000 : (int)(left * 1000.0) + 1;
}

/* Control characters (newlines above all) become spaces. */
static void one_line(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = ' ';
}

static void copy_line(char *dst, size_t n, const char *src)
{
	snprintf(dst, n, "%s", src ? src : "");
	one_line(dst);
}

static int vfail(char *err, size_t len, const char *fmt, va_list ap)
{
	if (err && len) {
		vsnprintf(err, len, fmt, ap);
		one_line(err);
	}
	return -1;
}

__attribute__((format(printf, 3, 4)))
static int fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfail(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

/* Appends to out[n] at *used, never past the end. */
__attribute__((format(printf, 4, 5)))
static void append(char *out, size_t n, size_t *used, const char *fmt, ...)
{
	va_list ap;
	if (*used >= n)
		return;
	va_start(ap, fmt);
	int k = vsnprintf(out + *used, n - *used, fmt, ap);
	va_end(ap);
	*used = k < 0 ? n : *used + (size_t)k;
}

static int parse_u32(const char *s, uint32_t lo, uint32_t hi, uint32_t *out)
{
	char *end;
	if (!isdigit((unsigned char)s[0]))
		return -1;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* "host:port" (the last colon splits); host may be empty. */
static int parse_coord(const char *s, char host[256], uint16_t *port)
{
	const char *colon = strrchr(s, ':');
	uint32_t p;
	if (!colon || strlen(s) >= 256 || parse_u32(colon + 1, 1, 65535, &p))
		return -1;
	memcpy(host, s, (size_t)(colon - s));
	host[colon - s] = '\0';
	*port = (uint16_t)p;
	return 0;
}

/* ---- environment --------------------------------------------------------- */

static const char *env(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? v : NULL;
}

static int env_rank_size(struct lb_boot_cfg *c, char *err, size_t len)
{
	static const char *const pairs[][2] = {
		{ "LANEBENCH_RANK", "LANEBENCH_SIZE" }, { "SLURM_PROCID", "SLURM_NTASKS" },
		{ "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE" }, { "PMI_RANK", "PMI_SIZE" },
	};
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		const char *r = env(pairs[i][0]), *s = env(pairs[i][1]);
		if (!r || !s)
			continue;
		if (parse_u32(s, 1, MAX_RANKS, &c->size))
			return fail(err, len, "%s='%s' is not a job size (expected 1..%u)",
				    pairs[i][1], s, MAX_RANKS);
		if (parse_u32(r, 0, c->size - 1, &c->rank))
			return fail(err, len, "%s='%s' is not a rank (expected 0..%u)",
				    pairs[i][0], r, c->size - 1);
		c->size_from = pairs[i][1];
		return 0;
	}
	if (!env("LANEBENCH_RANK") != !env("LANEBENCH_SIZE"))
		return fail(err, len, "%s is set but %s is not",
			    env("LANEBENCH_RANK") ? "LANEBENCH_RANK" : "LANEBENCH_SIZE",
			    env("LANEBENCH_RANK") ? "LANEBENCH_SIZE" : "LANEBENCH_RANK");
	c->rank = 0;
	c->size = 1;
	return 0;
}

static int env_token(struct lb_boot_cfg *c, char *err, size_t len)
{
	static const char *const ids[][2] = { { "SLURM_JOB_ID", "slurm-" },
		{ "OMPI_MCA_orte_ess_jobid", "ompi-" }, { "PMIX_NAMESPACE", "pmix-" } };
	const char *v = env("LANEBENCH_TOKEN");
	if (v && strlen(v) > TOKEN_MAX)
		return fail(err, len, "LANEBENCH_TOKEN is %zu characters long (at most %u)",
			    strlen(v), TOKEN_MAX);
	if (v) {
		snprintf(c->token, sizeof(c->token), "%s", v);
		return 0;
	}
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		if (!(v = env(ids[i][0])))
			continue;
		if ((size_t)snprintf(c->token, sizeof(c->token), "%s%s", ids[i][1], v) >= sizeof(c->token))
			return fail(err, len, "%s='%s' is too long for a job token (at most %zu characters)",
				    ids[i][0], v, TOKEN_MAX - strlen(ids[i][1]));
		return 0;
	}
	if (c->size > 1)
		return fail(err, len, "LANEBENCH_TOKEN is not set (a job of %u ranks needs it unless "
			    "SLURM_JOB_ID, OMPI_MCA_orte_ess_jobid or PMIX_NAMESPACE is set)", c->size);
	return 0;
}

static int env_timeout(struct lb_boot_cfg *c, char *err, size_t len)
{
	const char *v = env("LANEBENCH_TIMEOUT");
	char *end;
	c->timeout = 60;
	if (!v)
		return 0;
	c->timeout = strtod(v, &end);
	if (*end || !(c->timeout > 0 && c->timeout <= 1e6))
		return fail(err, len, "LANEBENCH_TIMEOUT='%s' is not a timeout (expected seconds, "
			    "0 < t <= 1e6)", v);
	return 0;
}

static int env_coord(struct lb_boot_cfg *c, char *err, size_t len)
{
	const char *v = env("LANEBENCH_COORD");
	char host[256];
	uint16_t port;
	if (c->size == 1)
		return 0;
	if (!v)
		return fail(err, len, "LANEBENCH_COORD is not set (a job of %u ranks needs "
			    "host:port of rank 0's listener)", c->size);
	if (parse_coord(v, host, &port))
		return fail(err, len, "LANEBENCH_COORD='%s' is not host:port (port 1..65535)", v);
	snprintf(c->coord, sizeof(c->coord), "%s", v);
	return 0;
}

int lb_boot_env(struct lb_boot_cfg *cfg, char *err, size_t errlen)
{
	memset(cfg, 0, sizeof(*cfg));
	if (env_rank_size(cfg, err, errlen) || env_timeout(cfg, err, errlen) ||
	    env_token(cfg, err, errlen) || env_coord(cfg, err, errlen))
		return -1;
	return 0;
}

/* ---- socket I/O ---------------------------------------------------------- */

/* Returns revents (> 0), 0 at the deadline, or -errno. */
static int wait_fd(int fd, short events, double deadline)
{
	struct pollfd p = { .fd = fd, .events = events };
	for (;;) {
		int n = poll(&p, 1, ms_until(deadline));
		if (n > 0)
			return p.revents;
		if (n == 0 && now() >= deadline)
			return 0;
		if (n < 0 && errno != EINTR)
			return -errno;
	}
}

static int read_exact(int fd, void *buf, size_t n, double deadline)
{
	uint8_t *p = buf;
	size_t got = 0;
	while (got < n) {
		ssize_t r = recv(fd, p + got, n - got, 0);
		if (r > 0) {
			got += (size_t)r;
			continue;
		}
		if (r == 0)
			return IO_EOF;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return -errno;
		int w = wait_fd(fd, POLLIN, deadline);
		if (w <= 0)
			return w == 0 ? IO_TIMEOUT : w;
	}
	return 0;
}

/* stop_on_input: give up (IO_INPUT) when the peer has something to say
 * while we wait to write -- for a non-root rank that can only be an ABORT. */
static int write_exact(int fd, const void *buf, size_t n, double deadline, int stop_on_input)
{
	const uint8_t *p = buf;
	size_t done = 0;
	while (done < n) {
		ssize_t r = send(fd, p + done, n - done, MSG_NOSIGNAL);
		if (r >= 0) {
			done += (size_t)r;
			continue;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return -errno;
		int w = wait_fd(fd, POLLOUT | (stop_on_input ? POLLIN : 0), deadline);
		if (w <= 0)
			return w == 0 ? IO_TIMEOUT : w;
		if (stop_on_input && (w & POLLIN))
			return IO_INPUT;
	}
	return 0;
}

static int readable_now(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

static int tcp_socket(void)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), one = 1;
	if (fd >= 0)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

/* Half-close, read what is left (so close sends FIN rather than RST), close. */
static void close_quietly(int fd)
{
	uint8_t sink[4096];
	if (fd < 0)
		return;
	shutdown(fd, SHUT_WR);
	for (int i = 0; i < 64 && recv(fd, sink, sizeof(sink), MSG_DONTWAIT) > 0; i++)
		;
	close(fd);
}

/* IPv4 address of host (NULL or "" or "*" with passive: any). */
static int resolve(const char *host, uint16_t port, int passive, struct sockaddr_in *sa,
		   char *why, size_t wl)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM,
				  .ai_flags = passive ? AI_PASSIVE : 0 }, *ai;
	char service[8];
	if (passive && (!host[0] || strcmp(host, "*") == 0))
		host = NULL;
	snprintf(service, sizeof(service), "%u", port);
	int rc = getaddrinfo(host, service, &hints, &ai);
	if (rc) {
		fail(why, wl, "cannot resolve '%s': %s", host ? host : "*", gai_strerror(rc));
		return rc == EAI_AGAIN ? 1 : -1;
	}
	memcpy(sa, ai->ai_addr, sizeof(*sa));
	freeaddrinfo(ai);
	return 0;
}

/* ---- messages ------------------------------------------------------------ */

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void hdr_pack(const struct hdr *h, uint8_t *p)
{
	put32(p, MAGIC);
	p[4] = (uint8_t)(VERSION >> 8);
	p[5] = (uint8_t)VERSION;
	p[6] = h->type;
	p[7] = h->op;
	put32(p + 8, h->seq);
	put32(p + 12, h->rank);
	put32(p + 16, h->arg);
	put32(p + 20, h->len);
}

static void hdr_unpack(const uint8_t *p, struct hdr *h)
{
	h->magic = get32(p);
	h->version = (uint16_t)(p[4] << 8 | p[5]);
	h->type = p[6];
	h->op = p[7];
	h->seq = get32(p + 8);
	h->rank = get32(p + 12);
	h->arg = get32(p + 16);
	h->len = get32(p + 20);
}

/* NULL if the header is well-formed, else what is wrong with it. */
static const char *hdr_check(const struct hdr *h)
{
	static const uint32_t cap[] = { 0, TOKEN_MAX, 0, MSG_CAP, MSG_CAP, ABORT_MAX };
	if (h->magic != MAGIC)
		return "not a lanebench bootstrap message";
	if (h->version != VERSION)
		return "another bootstrap protocol version";
	if (h->type < T_HELLO || h->type > T_ABORT)
		return "unknown message type";
	if (h->len > cap[h->type] || (h->type == T_HELLO && h->len == 0))
		return "bad payload length";
	if (h->op > OP_AGREE)
		return "unknown collective";
	return NULL;
}

/* Header and payload; small messages go out in one send. */
static int send_msg(int fd, const struct hdr *h, const void *payload, double deadline,
		    int stop_on_input)
{
	uint8_t buf[HDR_LEN + ABORT_MAX];
	hdr_pack(h, buf);
	if (h->len <= ABORT_MAX) {
		if (h->len)
			memcpy(buf + HDR_LEN, payload, h->len);
		return write_exact(fd, buf, HDR_LEN + h->len, deadline, stop_on_input);
	}
	int rc = write_exact(fd, buf, HDR_LEN, deadline, stop_on_input);
	return rc ? rc : write_exact(fd, payload, h->len, deadline, stop_on_input);
}

static int recv_hdr(int fd, struct hdr *h, double deadline)
{
	uint8_t buf[HDR_LEN];
	int rc = read_exact(fd, buf, HDR_LEN, deadline);
	if (rc == 0)
		hdr_unpack(buf, h);
	return rc;
}

/* An ABORT's payload as a one-line string. */
static int recv_reason(int fd, const struct hdr *h, char out[ABORT_MAX + 1], double deadline)
{
	int rc = read_exact(fd, out, h->len, deadline);
	out[rc == 0 ? h->len : 0] = '\0';
	one_line(out);
	return rc;
}

static void send_abort(int fd, uint32_t rank, const char *reason, double deadline)
{
	size_t n = strnlen(reason, ABORT_MAX);
	struct hdr h = { .type = T_ABORT, .rank = rank, .len = (uint32_t)n };
	if (fd >= 0)
		send_msg(fd, &h, reason, deadline, 0);
}

/* ---- failure state ------------------------------------------------------- */

/* Best effort, ~1 s at most: rank 0 sends msg to every rank still
 * connected, another rank sends it to rank 0. */
static void tell_others(struct lb_boot *b, const char *msg)
{
	double deadline = now() + ABORT_WAIT;
	if (b->rank != 0) {
		send_abort(b->fd, b->rank, msg, deadline);
		return;
	}
	for (uint32_t r = 1; r < b->size; r++)
		send_abort(b->fds[r], 0, msg, deadline);
}

/* The handle fails for good with this reason (the first one sticks). */
static int vboot_fail(struct lb_boot *b, int tell, char *err, size_t len, const char *fmt,
		      va_list ap)
{
	if (!b->failed) {
		vfail(b->why, sizeof(b->why), fmt, ap);
		b->failed = 1;
		if (tell && b->size > 1)
			tell_others(b, b->why);
	}
	return fail(err, len, "%s", b->why);
}

/* Fails for good, telling the others. */
__attribute__((format(printf, 4, 5)))
static int fail_tell(struct lb_boot *b, char *err, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vboot_fail(b, 1, err, len, fmt, ap);
	va_end(ap);
	return -1;
}

/* Fails for good; the others already know (or cannot be told). */
__attribute__((format(printf, 4, 5)))
static int fail_quiet(struct lb_boot *b, char *err, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vboot_fail(b, 0, err, len, fmt, ap);
	va_end(ap);
	return -1;
}

/* "3, 5, 7" for the ranks r >= 1 with got[r] == 0; returns how many. */
static uint32_t missing_ranks(const struct lb_boot *b, char *out, size_t n)
{
	uint32_t count = 0;
	size_t used = 0;
	out[0] = '\0';
	for (uint32_t r = 1; r < b->size; r++) {
		if (b->got[r])
			continue;
		if (count < 10)
			append(out, n, &used, "%s%u", count ? ", " : "", r);
		count++;
	}
	if (count > 10)
		append(out, n, &used, ", ... (%u ranks)", count);
	return count;
}

/* ---- rank 0: the lobby (accepting hellos) -------------------------------- */

struct pending {
	int fd;
	int speaks;           /* sent a valid header: it gets told why it is refused */
	double deadline;
	size_t got;
	struct hdr h;
	uint8_t buf[HDR_LEN + TOKEN_MAX];
	char name[64];        /* "1.2.3.4:5678" */
};

struct lobby {
	const struct lb_boot_cfg *cfg;
	int lfd;
	uint32_t joined, npend, cap;
	struct pending *pend;  /* [cap], oldest first */
	struct pollfd *pfd;    /* [1 + cap]: the listener, then pend[] */
};

static void refuse(struct lobby *l, struct pending *p, const char *why)
{
	char msg[ERR_LEN];
	fprintf(stderr, "lanebench: refused connection from %s: %s\n", p->name, why);
	if (p->speaks) {
		snprintf(msg, sizeof(msg), "coordinator (rank 0) at %s refused this connection: %s",
			 l->cfg->coord, why);
		send_abort(p->fd, 0, msg, now()); /* one try, no waiting */
	}
	close(p->fd);
	p->fd = -1;
}

static int same_token(const uint8_t *got, size_t n, const char *want)
{
	uint8_t a[TOKEN_MAX] = { 0 }, b[TOKEN_MAX] = { 0 };
	size_t wn = strnlen(want, TOKEN_MAX);
	unsigned diff = (unsigned)(n ^ wn);
	memcpy(a, got, n < TOKEN_MAX ? n : TOKEN_MAX);
	memcpy(b, want, wn);
	for (size_t i = 0; i < TOKEN_MAX; i++)
		diff |= (unsigned)(a[i] ^ b[i]);
	return diff == 0;
}

/* A complete HELLO: admit it as its rank, or refuse it. */
static void lobby_hello(struct lb_boot *b, struct lobby *l, struct pending *p)
{
	char why[128];
	const struct hdr *h = &p->h;
	if (!same_token(p->buf + HDR_LEN, h->len, l->cfg->token))
		snprintf(why, sizeof(why), "wrong job token");
	else if (h->arg != b->size)
		snprintf(why, sizeof(why), "job size %u, expected %u", h->arg, b->size);
	else if (h->rank == 0 || h->rank >= b->size)
		snprintf(why, sizeof(why), "rank %u out of range 1..%u", h->rank, b->size - 1);
	else if (b->fds[h->rank] >= 0)
		snprintf(why, sizeof(why), "rank %u is already connected", h->rank);
	else
		why[0] = '\0';
	if (why[0]) {
		refuse(l, p, why);
		return;
	}
	b->fds[h->rank] = p->fd;
	b->got[h->rank] = 1;
	p->fd = -1;
	l->joined++;
}

static void lobby_read(struct lb_boot *b, struct lobby *l, struct pending *p)
{
	size_t want = p->got < HDR_LEN ? HDR_LEN : HDR_LEN + p->h.len;
	ssize_t n = recv(p->fd, p->buf + p->got, want - p->got, 0);
	const char *bad;
	if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK)) {
		refuse(l, p, n == 0 ? "closed without a hello" : strerror(errno));
		return;
	}
	if (n < 0)
		return;
	p->got += (size_t)n;
	if (p->got == HDR_LEN) {
		hdr_unpack(p->buf, &p->h);
		if (!(bad = hdr_check(&p->h)) && p->h.type != T_HELLO)
			bad = "expected a hello";
		p->speaks = p->h.magic == MAGIC && p->h.version == VERSION;
		if (bad) {
			refuse(l, p, bad);
			return;
		}
	}
	if (p->got > HDR_LEN && p->got == HDR_LEN + p->h.len)
		lobby_hello(b, l, p);
}

/* Reads what arrived, drops the silent, and compacts the pending list. */
static void lobby_service(struct lb_boot *b, struct lobby *l)
{
	double t = now();
	uint32_t k = 0;
	for (uint32_t i = 0; i < l->npend; i++) {
		struct pending *p = &l->pend[i];
		if (l->pfd[1 + i].revents)
			lobby_read(b, l, p);
		if (p->fd >= 0 && t >= p->deadline)
			refuse(l, p, "no hello within 3 s");
		if (p->fd >= 0 && k != i)
			l->pend[k] = *p;
		k += p->fd >= 0;
	}
	l->npend = k;
}

/* Nothing to accept now, or a network error of that one connection
 * (Linux reports those from accept: accept(2), "Error handling"). */
static int accept_again(int e)
{
	static const int again[] = { EAGAIN, EWOULDBLOCK, EINTR, ECONNABORTED, EPROTO, ENETDOWN,
				     ENOPROTOOPT, EHOSTDOWN, ENONET, EHOSTUNREACH, EOPNOTSUPP,
				     ENETUNREACH, EPERM };
	for (size_t i = 0; i < sizeof(again) / sizeof(again[0]); i++)
		if (e == again[i])
			return 1;
	return 0;
}

/* Takes one waiting connection as pending: 0, 1 if none, -1 if accept fails. */
static int lobby_accept(struct lobby *l, char *err, size_t len)
{
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);
	int fd = accept4(l->lfd, (struct sockaddr *)&sa, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC), one = 1;
	if (fd < 0 && accept_again(errno))
		return 1;
	if (fd < 0)
		return fail(err, len, "coordinator %s: accept: %s", l->cfg->coord, strerror(errno));
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (l->npend == l->cap) { /* drop the oldest, silently: a rank would connect again */
		l->pend[0].speaks = 0;
		refuse(l, &l->pend[0], "too many connections without a hello");
		memmove(&l->pend[0], &l->pend[1], (l->cap - 1) * sizeof(l->pend[0]));
		l->npend--;
	}
	struct pending *p = &l->pend[l->npend++];
	memset(p, 0, sizeof(*p));
	p->fd = fd;
	p->deadline = now() + HELLO_WAIT;
	char ip[INET_ADDRSTRLEN] = "?";
	inet_ntop(AF_INET, &sa.sin_addr, ip, sizeof(ip));
	snprintf(p->name, sizeof(p->name), "%s:%u", ip, ntohs(sa.sin_port));
	return 0;
}

static int lobby_listen(struct lobby *l, const char *host, uint16_t port, uint32_t size,
			char *err, size_t len)
{
	struct sockaddr_in sa;
	char why[300];
	int one = 1;
	if (resolve(host, port, 1, &sa, why, sizeof(why)))
		return fail(err, len, "coordinator %s: %s", l->cfg->coord, why);
	if ((l->lfd = tcp_socket()) < 0 ||
	    setsockopt(l->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(l->lfd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(l->lfd, size + 16 < SOMAXCONN ? (int)size + 16 : SOMAXCONN))
		return fail(err, len, "cannot listen on %s: %s", l->cfg->coord, strerror(errno));
	return 0;
}

/* Wake for the deadline, the next silent connection's, or activity. */
static int lobby_poll(struct lobby *l, double deadline)
{
	double wake = deadline;
	l->pfd[0] = (struct pollfd){ .fd = l->lfd, .events = POLLIN };
	for (uint32_t i = 0; i < l->npend; i++) {
		l->pfd[1 + i] = (struct pollfd){ .fd = l->pend[i].fd, .events = POLLIN };
		wake = l->pend[i].deadline < wake ? l->pend[i].deadline : wake;
	}
	int n = poll(l->pfd, 1 + l->npend, ms_until(wake));
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	return n;
}

static int lobby_run(struct lb_boot *b, struct lobby *l, double deadline, char *err, size_t len)
{
	char list[200];
	while (l->joined < b->size - 1) {
		if (now() >= deadline) {
			missing_ranks(b, list, sizeof(list));
			return fail(err, len, "timeout after %g s: rank(s) %s never connected to "
				    "coordinator %s", b->timeout, list, b->coord);
		}
		int n = lobby_poll(l, deadline);
		if (n < 0)
			return fail(err, len, "coordinator %s: poll: %s", b->coord, strerror(-n));
		if (n == 0) /* nothing ready: only expiries */
			memset(l->pfd, 0, (1 + l->npend) * sizeof(l->pfd[0]));
		lobby_service(b, l);
		int rc = l->pfd[0].revents ? 0 : 1;
		for (int i = 0; rc == 0 && i < 16; i++)
			rc = lobby_accept(l, err, len);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* Room for every rank (up to 1024 at once) plus strangers. */
static struct lobby *lobby_new(const struct lb_boot_cfg *cfg)
{
	struct lobby *l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	l->cfg = cfg;
	l->lfd = -1;
	l->cap = (cfg->size < 1024 ? cfg->size : 1024) + SPARE_SLOTS;
	l->pend = calloc(l->cap, sizeof(*l->pend));
	l->pfd = calloc(1 + l->cap, sizeof(*l->pfd));
	if (l->pend && l->pfd)
		return l;
	free(l->pend);
	free(l->pfd);
	free(l);
	return NULL;
}

static void lobby_close(struct lobby *l)
{
	for (uint32_t i = 0; i < l->npend; i++)
		close(l->pend[i].fd);
	if (l->lfd >= 0)
		close(l->lfd);
	free(l->pend);
	free(l->pfd);
	free(l);
}

/* ---- rank 0: sending to every rank --------------------------------------- */

static int root_send_all(struct lb_boot *b, struct hdr *h, const void *payload, char *err,
			 size_t len)
{
	double deadline = now() + b->timeout;
	for (uint32_t r = 1; r < b->size; r++) {
		int rc = send_msg(b->fds[r], h, payload, deadline, 0);
		if (rc == 0)
			continue;
		close(b->fds[r]); /* its stream may end mid-message: no ABORT after that */
		b->fds[r] = -1;
		if (rc == IO_TIMEOUT)
			return fail(err, len, "rank %u did not take a reply within %g s", r, b->timeout);
		if (rc == -EPIPE || rc == -ECONNRESET)
			return fail(err, len, "rank %u disconnected", r);
		return fail(err, len, "rank %u: send: %s", r, strerror(-rc));
	}
	return 0;
}

static int root_open(struct lb_boot *b, const struct lb_boot_cfg *cfg, const char *host,
		     uint16_t port, char *err, size_t len)
{
	double deadline = now() + b->timeout;
	char why[ERR_LEN];
	struct lobby *l = lobby_new(cfg);
	if (!l)
		return fail(err, len, "coordinator: out of memory");
	int rc = lobby_listen(l, host, port, b->size, why, sizeof(why));
	if (rc == 0)
		rc = lobby_run(b, l, deadline, why, sizeof(why));
	lobby_close(l);
	struct hdr h = { .type = T_WELCOME, .arg = b->size };
	if (rc == 0)
		rc = root_send_all(b, &h, NULL, why, sizeof(why));
	return rc ? fail_tell(b, err, len, "%s", why) : 0;
}

/* ---- other ranks: joining ------------------------------------------------ */

/* Non-blocking connect, bounded by deadline: 0 or an errno value. */
static int connect_by(int fd, const struct sockaddr_in *sa, double deadline)
{
	int e = 0;
	socklen_t el = sizeof(e);
	if (connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) == 0)
		return 0;
	if (errno != EINPROGRESS)
		return errno;
	int w = wait_fd(fd, POLLOUT, deadline);
	if (w <= 0)
		return w == 0 ? ETIMEDOUT : -w;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el))
		return errno;
	return e;
}

/* One attempt: 0 connected, 1 worth retrying, -1 not (why says why). */
static int connect_once(struct lb_boot *b, const char *host, uint16_t port, double deadline,
			char *why, size_t wl)
{
	struct sockaddr_in sa;
	int rc = resolve(host, port, 0, &sa, why, wl);
	if (rc)
		return rc;
	int fd = tcp_socket();
	if (fd < 0)
		return fail(why, wl, "socket: %s", strerror(errno));
	int e = connect_by(fd, &sa, deadline);
	if (e == 0) {
		b->fd = fd;
		return 0;
	}
	close(fd);
	fail(why, wl, "%s", strerror(e));
	return 1;
}

static int peer_connect(struct lb_boot *b, const char *host, uint16_t port, double deadline,
			char *err, size_t len)
{
	char why[300];
	for (;;) {
		int rc = connect_once(b, host, port, deadline, why, sizeof(why));
		if (rc == 0)
			return 0;
		if (rc < 0)
			return fail(err, len, "coordinator (rank 0) at %s: %s", b->coord, why);
		if (now() + RETRY_GAP >= deadline)
			return fail(err, len, "timeout after %g s: cannot reach coordinator (rank 0) "
				    "at %s: %s", b->timeout, b->coord, why);
		poll(NULL, 0, (int)(RETRY_GAP * 1000));
	}
}

/* HELLO, then WELCOME: 0 admitted, 1 closed without a word (retry), -1
 * refused or failed (err says why). */
static int peer_hello(struct lb_boot *b, const char *token, char *err, size_t len)
{
	char reason[ABORT_MAX + 1];
	double deadline = now() + b->timeout;
	struct hdr h = { .type = T_HELLO, .rank = b->rank, .arg = b->size,
			 .len = (uint32_t)strlen(token) };
	int rc = send_msg(b->fd, &h, token, deadline, 1);
	if (rc == 0 || rc == IO_INPUT || readable_now(b->fd))
		rc = recv_hdr(b->fd, &h, deadline + GRACE);
	if (rc == IO_EOF || rc == -ECONNRESET || rc == -EPIPE)
		return 1;
	if (rc == IO_TIMEOUT)
		return fail(err, len, "timeout after %g s: coordinator (rank 0) at %s accepted the "
			    "connection but did not admit this rank", b->timeout, b->coord);
	if (rc)
		return fail(err, len, "connection to coordinator (rank 0) at %s: %s", b->coord,
			    strerror(-rc));
	const char *bad = hdr_check(&h);
	if (!bad && h.type == T_ABORT && recv_reason(b->fd, &h, reason, deadline) == 0)
		return fail(err, len, "%s", reason);
	if (bad || h.type != T_WELCOME || h.arg != b->size)
		return fail(err, len, "coordinator (rank 0) at %s sent a malformed message (%s)",
			    b->coord, bad ? bad : "expected a welcome");
	return 0;
}

/* Connect and say hello; a connection closed before the welcome (say,
 * dropped among strangers) is tried again until the timeout. */
static int peer_open(struct lb_boot *b, const struct lb_boot_cfg *cfg, const char *host,
		     uint16_t port, char *err, size_t len)
{
	double deadline = now() + b->timeout;
	if (!host[0] || strcmp(host, "*") == 0)
		return fail(err, len, "coordinator address '%s' has no host to connect to", cfg->coord);
	for (;;) {
		if (peer_connect(b, host, port, deadline, err, len))
			return -1;
		int rc = peer_hello(b, cfg->token, err, len);
		if (rc <= 0)
			return rc;
		close(b->fd);
		b->fd = -1;
		if (now() + RETRY_GAP >= deadline)
			return fail(err, len, "timeout after %g s: coordinator (rank 0) at %s closed the "
				    "connection before admitting this rank", b->timeout, b->coord);
		poll(NULL, 0, (int)(RETRY_GAP * 1000));
	}
}

/* ---- opening and closing ------------------------------------------------- */

static int check_cfg(const struct lb_boot_cfg *c, char host[256], uint16_t *port, char *err,
		     size_t len)
{
	if (c->size < 1 || c->size > MAX_RANKS)
		return fail(err, len, "job size %u out of range 1..%u", c->size, MAX_RANKS);
	if (c->rank >= c->size)
		return fail(err, len, "rank %u out of range for a job of %u ranks", c->rank, c->size);
	if (c->size == 1)
		return 0;
	if (!c->token[0] || strnlen(c->token, sizeof(c->token)) > TOKEN_MAX)
		return fail(err, len, "a job of %u ranks needs a job token of 1..%u characters",
			    c->size, TOKEN_MAX);
	if (!(c->timeout > 0 && c->timeout <= 1e6))
		return fail(err, len, "timeout %g s out of range (0, 1e6]", c->timeout);
	if (strnlen(c->coord, sizeof(c->coord)) == sizeof(c->coord) ||
	    parse_coord(c->coord, host, port))
		return fail(err, len, "coordinator address '%.255s' is not host:port (port 1..65535)",
			    c->coord);
	return 0;
}

static struct lb_boot *boot_new(const struct lb_boot_cfg *c)
{
	struct lb_boot *b = calloc(1, sizeof(*b));
	int root = c->rank == 0 && c->size > 1;
	if (!b)
		return NULL;
	b->rank = c->rank;
	b->size = c->size;
	b->timeout = c->timeout;
	b->fd = -1;
	b->code = -1;
	snprintf(b->coord, sizeof(b->coord), "%.255s", c->coord);
	if (!root)
		return b;
	b->fds = malloc(c->size * sizeof(*b->fds));
	b->got = calloc(c->size, 1);
	b->pfd = calloc(c->size, sizeof(*b->pfd));
	b->pfd_rank = calloc(c->size, sizeof(*b->pfd_rank));
	for (uint32_t r = 0; b->fds && r < c->size; r++)
		b->fds[r] = -1;
	if (!b->fds || !b->got || !b->pfd || !b->pfd_rank) {
		lb_boot_close(b);
		return NULL;
	}
	return b;
}

int lb_boot_open(const struct lb_boot_cfg *cfg, struct lb_boot **out, char *err, size_t errlen)
{
	char host[256];
	uint16_t port = 0;
	*out = NULL;
	if (check_cfg(cfg, host, &port, err, errlen))
		return -1;
	struct lb_boot *b = boot_new(cfg);
	if (!b)
		return fail(err, errlen, "bootstrap: out of memory");
	int rc = 0;
	if (b->size > 1 && b->rank == 0)
		rc = root_open(b, cfg, host, port, err, errlen);
	else if (b->size > 1)
		rc = peer_open(b, cfg, host, port, err, errlen);
	if (rc) {
		lb_boot_close(b);
		return -1;
	}
	*out = b;
	return 0;
}

void lb_boot_close(struct lb_boot *b)
{
	if (!b)
		return;
	close_quietly(b->fd);
	for (uint32_t r = 0; b->fds && r < b->size; r++)
		close_quietly(b->fds[r]);
	free(b->fds);
	free(b->got);
	free(b->pfd);
	free(b->pfd_rank);
	free(b);
}

uint32_t lb_boot_rank(const struct lb_boot *b)
{
	return b->rank;
}

uint32_t lb_boot_size(const struct lb_boot *b)
{
	return b->size;
}

void lb_boot_abort(struct lb_boot *b, const char *reason)
{
	char r[ABORT_MAX + 1];
	if (!b || b->failed)
		return;
	copy_line(r, sizeof(r), reason);
	b->failed = 1;
	b->code = -1;
	fail(b->why, sizeof(b->why), "rank %u aborted: %s", b->rank, r);
	if (b->size > 1)
		tell_others(b, b->rank == 0 ? b->why : r);
}

/* ---- collectives: rank 0 ------------------------------------------------- */

/* Reads rank r's message for collective c. */
static int root_take(struct lb_boot *b, uint32_t r, const struct coll *c, double deadline,
		     char *err, size_t len)
{
	char reason[ABORT_MAX + 1];
	struct hdr h;
	int rc = recv_hdr(b->fds[r], &h, deadline);
	const char *bad = rc ? NULL : hdr_check(&h);
	if (rc == 0 && !bad && h.type == T_ABORT && recv_reason(b->fds[r], &h, reason, deadline) == 0)
		return fail(err, len, "rank %u aborted: %s", r, reason);
	if (rc == IO_EOF || rc == -ECONNRESET) {
		close(b->fds[r]);
		b->fds[r] = -1;
		return fail(err, len, "rank %u disconnected", r);
	}
	if (rc == IO_TIMEOUT)
		return fail(err, len, "rank %u did not answer within %g s", r, b->timeout);
	if (rc)
		return fail(err, len, "rank %u: receive: %s", r, strerror(-rc));
	if (bad || h.type != T_COLL || h.rank != r)
		return fail(err, len, "rank %u sent a malformed message (%s)", r,
			    bad ? bad : h.type == T_ABORT ? "truncated abort" : "not a collective");
	if (h.seq != b->seq)
		return fail(err, len, "rank %u is at collective #%u but rank 0 at #%u", r, h.seq, b->seq);
	if (h.op != c->op || h.arg != c->arg || h.len != c->mine_len)
		return fail(err, len, "rank %u called %s(%u bytes) but rank 0 called %s(%u bytes)", r,
			    op_names[h.op], h.arg, op_names[c->op], c->arg);
	if (c->mine_len)
		rc = read_exact(b->fds[r], c->gathered + (size_t)r * c->mine_len, c->mine_len, deadline);
	if (rc == IO_TIMEOUT)
		return fail(err, len, "rank %u did not finish its message within %g s", r, b->timeout);
	return rc ? fail(err, len, "rank %u disconnected", r) : 0;
}

/* Ranks that have not answered yet, into the poll set. */
static nfds_t root_pollset(struct lb_boot *b)
{
	nfds_t n = 0;
	for (uint32_t r = 1; r < b->size; r++) {
		if (b->got[r])
			continue;
		b->pfd[n] = (struct pollfd){ .fd = b->fds[r], .events = POLLIN };
		b->pfd_rank[n++] = r;
	}
	return n;
}

static int root_collect(struct lb_boot *b, const struct coll *c, char *err, size_t len)
{
	double deadline = now() + b->timeout;
	char list[200];
	memset(b->got, 0, b->size);
	for (nfds_t n; (n = root_pollset(b)) > 0;) {
		int k = poll(b->pfd, n, ms_until(deadline));
		if (k < 0 && errno != EINTR)
			return fail(err, len, "poll: %s", strerror(errno));
		if (k == 0 && now() >= deadline) {
			uint32_t m = missing_ranks(b, list, sizeof(list));
			return fail(err, len, "rank%s %s did not answer within %g s", m > 1 ? "s" : "",
				    list, b->timeout);
		}
		for (nfds_t i = 0; k > 0 && i < n; i++) {
			if (!b->pfd[i].revents)
				continue;
			if (root_take(b, b->pfd_rank[i], c, deadline, err, len))
				return -1;
			b->got[b->pfd_rank[i]] = 1;
		}
	}
	return 0;
}

static int root_coll(struct lb_boot *b, const struct coll *c, char *err, size_t len)
{
	char why[ERR_LEN];
	struct hdr h = { .type = T_REPLY, .op = c->op, .seq = b->seq, .arg = c->arg,
			 .len = c->reply_len };
	if (root_collect(b, c, why, sizeof(why)) || root_send_all(b, &h, c->reply, why, sizeof(why)))
		return fail_tell(b, err, len, "%s", why);
	return 0;
}

/* ---- collectives: other ranks -------------------------------------------- */

/* A read or write towards rank 0 failed with rc. */
static int peer_io_error(struct lb_boot *b, int rc, char *err, size_t len)
{
	if (rc == IO_EOF || rc == -ECONNRESET || rc == -EPIPE)
		return fail_quiet(b, err, len, "coordinator (rank 0) at %s closed the connection",
				  b->coord);
	if (rc == IO_TIMEOUT)
		return fail_tell(b, err, len, "coordinator (rank 0) at %s did not answer within %g s",
				 b->coord, b->timeout);
	return fail_tell(b, err, len, "connection to coordinator (rank 0) at %s: %s", b->coord,
			 strerror(-rc));
}

/* Waits for rank 0's REPLY to collective c (or its ABORT). */
static int peer_reply(struct lb_boot *b, const struct coll *c, double deadline, char *err,
		      size_t len)
{
	char reason[ABORT_MAX + 1];
	struct hdr h;
	int rc = recv_hdr(b->fd, &h, deadline);
	const char *bad = rc ? NULL : hdr_check(&h);
	if (rc)
		return peer_io_error(b, rc, err, len);
	if (bad)
		return fail_tell(b, err, len, "coordinator (rank 0) at %s sent a malformed message "
				 "(%s)", b->coord, bad);
	if (h.type == T_ABORT) {
		rc = recv_reason(b->fd, &h, reason, deadline);
		return rc ? peer_io_error(b, rc, err, len) : fail_quiet(b, err, len, "%s", reason);
	}
	if (h.type != T_REPLY || h.seq != b->seq || h.op != c->op || h.len != c->reply_len)
		return fail_tell(b, err, len, "coordinator (rank 0) at %s sent a %s #%u of %u bytes, "
				 "expected %s #%u of %u bytes", b->coord, op_names[h.op], h.seq,
				 h.len, op_names[c->op], b->seq, c->reply_len);
	rc = read_exact(b->fd, c->reply_dst, c->reply_len, deadline);
	return rc ? peer_io_error(b, rc, err, len) : 0;
}

/* Sends this rank's COLL, then waits for the answer.  A failed send may
 * hide an ABORT from rank 0 already waiting: read that first. */
static int peer_coll(struct lb_boot *b, const struct coll *c, char *err, size_t len)
{
	double deadline = now() + b->timeout;
	struct hdr h = { .type = T_COLL, .op = c->op, .seq = b->seq, .rank = b->rank,
			 .arg = c->arg, .len = c->mine_len };
	int rc = send_msg(b->fd, &h, c->mine, deadline, 1);
	if (rc != 0 && rc != IO_INPUT && !readable_now(b->fd))
		return peer_io_error(b, rc, err, len);
	return peer_reply(b, c, deadline + GRACE, err, len);
}

/* ---- the report behind a lost peer ---------------------------------------- */

enum report { REPORT_NONE, REPORT_PARTIAL, REPORT_OTHER, REPORT_ABORT, REPORT_CLOSED };

/* What a connection holds now, without taking it: an ABORT (its header in
 * *h), a close, something else (a collective a rank already entered), a
 * header not all there yet, or nothing. */
static enum report peek_report(int fd, struct hdr *h)
{
	uint8_t buf[HDR_LEN];
	ssize_t n = recv(fd, buf, HDR_LEN, MSG_PEEK | MSG_DONTWAIT);
	if (n == 0 || (n < 0 && errno == ECONNRESET))
		return REPORT_CLOSED;
	if (n < 0)
		return REPORT_NONE;
	if (n < (ssize_t)HDR_LEN)
		return REPORT_PARTIAL;
	hdr_unpack(buf, h);
	return !hdr_check(h) && h->type == T_ABORT ? REPORT_ABORT : REPORT_OTHER;
}

/* Rank 0, one look at every rank not yet ruled out (got[r]): the lowest
 * rank that closed without a word (it died: the cause itself), else the
 * first ABORT.  Fails the handle with it, telling everyone. */
static int root_report(struct lb_boot *b, nfds_t n, char *err, size_t len)
{
	char reason[ABORT_MAX + 1];
	int aborted = -1;
	struct hdr h, ah;
	for (nfds_t i = 0; i < n; i++) {
		uint32_t r = b->pfd_rank[i];
		enum report k = b->pfd[i].revents ? peek_report(b->fds[r], &h) : REPORT_NONE;
		if (k == REPORT_CLOSED)
			return fail_tell(b, err, len, "rank %u disconnected", r);
		if (k == REPORT_ABORT && aborted < 0) {
			aborted = (int)r;
			ah = h;
		}
		b->got[r] |= k == REPORT_OTHER;
	}
	if (aborted < 0)
		return 0;
	if (recv_hdr(b->fds[aborted], &ah, now() + ABORT_WAIT) ||
	    recv_reason(b->fds[aborted], &ah, reason, now() + ABORT_WAIT))
		return fail_tell(b, err, len, "rank %d disconnected", aborted);
	return fail_tell(b, err, len, "rank %d aborted: %s", aborted, reason);
}

/* A non-root rank: rank 0's relay, or its close. */
static int peer_report(struct lb_boot *b, char *err, size_t len)
{
	char reason[ABORT_MAX + 1];
	struct hdr h;
	switch (peek_report(b->fd, &h)) {
	case REPORT_CLOSED:
		return peer_io_error(b, IO_EOF, err, len);
	case REPORT_ABORT:
		if (recv_hdr(b->fd, &h, now() + ABORT_WAIT) ||
		    recv_reason(b->fd, &h, reason, now() + ABORT_WAIT))
			return peer_io_error(b, IO_EOF, err, len);
		return fail_quiet(b, err, len, "%s", reason);
	case REPORT_OTHER:
		return 1; /* not a report: leave it to the next collective */
	default:
		return 0;
	}
}

int lb_boot_take_report(struct lb_boot *b, double wait, char *err, size_t errlen)
{
	double deadline = now() + wait;
	if (!b || b->failed || b->size == 1)
		return 0;
	if (b->rank == 0)
		memset(b->got, 0, b->size);
	for (;;) {
		nfds_t n = 1;
		struct pollfd one = { .fd = b->fd, .events = POLLIN };
		struct pollfd *set = b->rank == 0 ? b->pfd : &one;
		if (b->rank == 0 && (n = root_pollset(b)) == 0)
			return 0;
		int k = poll(set, n, ms_until(deadline));
		if (k < 0 && errno != EINTR)
			return 0;
		int rc = k <= 0 ? 0 : b->rank == 0 ? root_report(b, n, err, errlen)
						    : peer_report(b, err, errlen);
		if (rc < 0) {
			b->code = LB_EPEER;
			return LB_EPEER;
		}
		if (rc > 0 || now() >= deadline)
			return 0;
		if (k > 0)
			poll(NULL, 0, 1); /* a header still arriving: do not spin on it */
	}
}

/* ---- collectives: all ranks ---------------------------------------------- */

/* A failed handle's reason and code. */
static int still_failed(const struct lb_boot *b, char *err, size_t len)
{
	fail(err, len, "%s", b->why);
	return b->code;
}

/* Whatever fails in the exchange itself is another rank's doing: it went
 * away, stopped answering, aborted or broke the protocol (LB_EPEER). */
static int coll_run(struct lb_boot *b, const struct coll *c, char *err, size_t len)
{
	b->seq++;
	if (b->failed)
		return still_failed(b, err, len);
	if (b->size == 1)
		return 0;
	if ((b->rank == 0 ? root_coll(b, c, err, len) : peer_coll(b, c, err, len)) == 0)
		return 0;
	b->code = LB_EPEER;
	return b->code;
}

/* Bad arguments on one rank fail the job: the others are told. */
static int coll_args(struct lb_boot *b, const char *name, size_t n, size_t limit, int bufs_ok,
		     char *err, size_t len)
{
	if (b->failed)
		return still_failed(b, err, len);
	if (n > limit)
		return fail_tell(b, err, len, "rank %u: %s of %zu bytes is over the bootstrap's limit "
				 "of %zu bytes", b->rank, name, n, limit);
	if (!bufs_ok)
		return fail_tell(b, err, len, "rank %u: %s of %zu bytes with a NULL buffer",
				 b->rank, name, n);
	return 0;
}

int lb_boot_barrier(struct lb_boot *b, char *err, size_t errlen)
{
	struct coll c = { .op = OP_BARRIER };
	return coll_run(b, &c, err, errlen);
}

int lb_boot_allgather(struct lb_boot *b, const void *mine, size_t len, void *all, char *err,
		      size_t errlen)
{
	int rc = coll_args(b, "allgather", len, MSG_CAP / b->size, len == 0 || (mine && all), err,
			   errlen);
	if (rc) {
		b->seq++;
		return rc;
	}
	if (len)
		memmove((uint8_t *)all + (size_t)b->rank * len, mine, len);
	struct coll c = { .op = OP_ALLGATHER, .arg = (uint32_t)len, .mine = mine,
			  .mine_len = (uint32_t)len, .gathered = all, .reply = all,
			  .reply_len = (uint32_t)(len * b->size), .reply_dst = all };
	return coll_run(b, &c, err, errlen);
}

int lb_boot_bcast(struct lb_boot *b, void *buf, size_t len, char *err, size_t errlen)
{
	int rc = coll_args(b, "bcast", len, MSG_CAP, len == 0 || buf, err, errlen);
	if (rc) {
		b->seq++;
		return rc;
	}
	struct coll c = { .op = OP_BCAST, .arg = (uint32_t)len, .reply = buf,
			  .reply_len = (uint32_t)len, .reply_dst = buf };
	return coll_run(b, &c, err, errlen);
}

static int gather_op(struct lb_boot *b, uint8_t op, const void *mine, size_t len, void *all,
		     char *err, size_t errlen)
{
	int bufs_ok = len == 0 || (mine && (all || b->rank != 0));
	int rc = coll_args(b, op_names[op], len, MSG_CAP, bufs_ok, err, errlen);
	if (rc) {
		b->seq++;
		return rc;
	}
	if (len && b->rank == 0)
		memmove(all, mine, len);
	struct coll c = { .op = op, .arg = (uint32_t)len, .mine = mine,
			  .mine_len = (uint32_t)len, .gathered = all };
	return coll_run(b, &c, err, errlen);
}

int lb_boot_gather(struct lb_boot *b, const void *mine, size_t len, void *all, char *err,
		   size_t errlen)
{
	return gather_op(b, OP_GATHER, mine, len, all, err, errlen);
}

/* ---- status agreement ---------------------------------------------------- */

/* Rank 0: "" if every record says ok, else "rank 3: reason (and N more)". */
static void agree_verdict(uint8_t *recs, uint32_t size, char *out, size_t n)
{
	uint32_t first = 0, bad = 0;
	out[0] = '\0';
	for (uint32_t r = 0; r < size; r++) {
		uint8_t *rec = recs + (size_t)r * REC;
		rec[REC - 1] = '\0';
		if (rec[0])
			continue;
		first = bad++ ? first : r;
	}
	if (bad == 0)
		return;
	int k = snprintf(out, n, "rank %u: %s", first, (char *)recs + (size_t)first * REC + 1);
	if (bad > 1 && k > 0 && (size_t)k < n)
		snprintf(out + k, n - (size_t)k, " (and %u more)", bad - 1);
}

/* A gather of {ok, reason} records to rank 0, then a bcast of its verdict. */
int lb_boot_agree(struct lb_boot *b, int ok, const char *reason, char *err, size_t errlen)
{
	uint8_t rec[REC] = { ok ? 1 : 0 };
	char verdict[VERDICT] = "";
	if (!ok)
		copy_line((char *)rec + 1, REC - 1, reason && *reason ? reason : "failed (no reason given)");
	uint8_t *recs = b->rank == 0 ? calloc(b->size, REC) : NULL;
	if (b->rank == 0 && !recs)
		return fail_tell(b, err, errlen, "rank 0: out of memory");
	int rc = gather_op(b, OP_AGREE, rec, REC, recs, err, errlen);
	if (rc == 0 && b->rank == 0)
		agree_verdict(recs, b->size, verdict, sizeof(verdict));
	free(recs);
	if (rc == 0) {
		struct coll c = { .op = OP_AGREE, .arg = VERDICT, .reply = verdict,
				  .reply_len = VERDICT, .reply_dst = verdict };
		rc = coll_run(b, &c, err, errlen);
	}
	verdict[VERDICT - 1] = '\0';
	if (rc == 0 && verdict[0]) {
		fail(err, errlen, "%s", verdict);
		return ok ? LB_EPEER : -1;
	}
	return rc;
}
