/* Bootstrap, rank 0: the lobby that admits every other rank, and sending
 * one message to all of them. */
#include "boot_private.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/secret.h"

#define SPARE_SLOTS 64u   /* unidentified connections beyond the ranks expected */
#define HELLO_WAIT  3.0   /* s: an unidentified connection must say hello */
#define FD_MARGIN   64u   /* descriptors rank 0 keeps beyond the lobby's */

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
	fprintf(stderr, "lanebench: refused connection from %s: %s\n", p->name, why);
	if (p->speaks) {
		char msg[ERR_LEN];
		snprintf(msg, sizeof(msg), "coordinator (rank 0) at %s refused this connection: %s",
			 l->cfg->coord, why);
		boot_send_abort(p->fd, 0, msg, boot_now()); /* one try, no waiting */
	}
	close(p->fd);
	p->fd = -1;
}

/* A complete HELLO: admit it as its rank, or refuse it. */
static void lobby_hello(struct lb_boot *b, struct lobby *l, struct pending *p)
{
	char why[128];
	const struct hdr *h = &p->h;
	const char *token = l->cfg->token;
	if (!lb_secret_equal(p->buf + HDR_LEN, h->len, token, strnlen(token, TOKEN_MAX), TOKEN_MAX))
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
	if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK)) {
		refuse(l, p, n == 0 ? "closed without a hello" : strerror(errno));
		return;
	}
	if (n < 0)
		return;
	p->got += (size_t)n;
	if (p->got == HDR_LEN) {
		boot_hdr_unpack(p->buf, &p->h);
		const char *bad = boot_hdr_check(&p->h);
		if (!bad && p->h.type != T_HELLO)
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
	double t = boot_now();
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
		return boot_fail(err, len, "coordinator %s: accept: %s", l->cfg->coord, strerror(errno));
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
	p->deadline = boot_now() + HELLO_WAIT;
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
	if (boot_resolve(host, port, 1, &sa, why, sizeof(why)))
		return boot_fail(err, len, "coordinator %s: %s", l->cfg->coord, why);
	if ((l->lfd = boot_tcp_socket()) < 0 ||
	    setsockopt(l->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(l->lfd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(l->lfd, size + 16 < SOMAXCONN ? (int)size + 16 : SOMAXCONN))
		return boot_fail(err, len, "cannot listen on %s: %s", l->cfg->coord, strerror(errno));
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
	int n = poll(l->pfd, 1 + l->npend, boot_ms_until(wake));
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	return n;
}

static int lobby_run(struct lb_boot *b, struct lobby *l, double deadline, char *err, size_t len)
{
	char list[200];
	while (l->joined < b->size - 1) {
		if (boot_now() >= deadline) {
			boot_missing_ranks(b, list, sizeof(list));
			return boot_fail(err, len, "timeout after %g s: rank(s) %s never connected to "
					 "coordinator %s", b->timeout, list, b->coord);
		}
		int n = lobby_poll(l, deadline);
		if (n < 0)
			return boot_fail(err, len, "coordinator %s: poll: %s", b->coord, strerror(-n));
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

int boot_root_send_all(struct lb_boot *b, struct hdr *h, const void *payload, char *err,
		       size_t len)
{
	double deadline = boot_now() + b->timeout;
	for (uint32_t r = 1; r < b->size; r++) {
		int rc = boot_send_msg(b->fds[r], h, payload, deadline, 0);
		if (rc == 0)
			continue;
		close(b->fds[r]); /* its stream may end mid-message: no ABORT after that */
		b->fds[r] = -1;
		if (rc == IO_TIMEOUT)
			return boot_fail(err, len, "rank %u did not take a reply within %g s", r, b->timeout);
		if (rc == -EPIPE || rc == -ECONNRESET)
			return boot_fail(err, len, "rank %u disconnected", r);
		return boot_fail(err, len, "rank %u: send: %s", r, strerror(-rc));
	}
	return 0;
}

/* Rank 0 holds one connection per rank, and a soft limit of 1024 open
 * files (a common default) stopped a job of 1,024 ranks at accept with
 * EMFILE.  So a soft limit below what the lobby may hold is raised to the
 * hard limit (the job's transports open more later); a hard limit below it
 * fails at once, naming both.  0, or -1 (said). */
static int room_for_ranks(uint32_t size, char *err, size_t len)
{
	struct rlimit rl;
	rlim_t need = (rlim_t)size + SPARE_SLOTS + FD_MARGIN;
	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= need)
		return 0;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need)
		return boot_fail(err, len, "a job of %u ranks needs %llu open files at rank 0 (one "
				 "per rank): the limit is %llu, hard limit %llu (ulimit -n)", size,
				 (unsigned long long)need, (unsigned long long)rl.rlim_cur,
				 (unsigned long long)rl.rlim_max);
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		return boot_fail(err, len, "a job of %u ranks needs %llu open files at rank 0: "
				 "cannot raise the limit to %llu: %s", size, (unsigned long long)need,
				 (unsigned long long)rl.rlim_max, strerror(errno));
	return 0;
}

int boot_root_open(struct lb_boot *b, const struct lb_boot_cfg *cfg, const char *host,
		   uint16_t port, char *err, size_t len)
{
	double deadline = boot_now() + b->timeout;
	char why[ERR_LEN];
	struct lobby *l = lobby_new(cfg);
	if (!l)
		return boot_fail(err, len, "coordinator: out of memory");
	int rc = room_for_ranks(b->size, why, sizeof(why));
	if (rc == 0)
		rc = lobby_listen(l, host, port, b->size, why, sizeof(why));
	if (rc == 0)
		rc = lobby_run(b, l, deadline, why, sizeof(why));
	lobby_close(l);
	struct hdr h = { .type = T_WELCOME, .arg = b->size };
	if (rc == 0)
		rc = boot_root_send_all(b, &h, NULL, why, sizeof(why));
	return rc ? boot_fail_tell(b, err, len, "%s", why) : 0;
}
