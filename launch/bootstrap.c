/* Bootstrap: the handle -- opening, closing, its failure state -- and the
 * small helpers every part uses.  boot_private.h describes the protocol
 * and where the other parts live. */
#include "boot_private.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <netdb.h>

#include "lib/error.h"

/* ---- small helpers ------------------------------------------------------- */

double boot_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int boot_ms_until(double deadline)
{
	double left = deadline - boot_now();
	if (left <= 0)
		return 0;
	return left > 1e6 ? 1000000000 : (int)(left * 1000.0) + 1;
}

/* Control characters (newlines above all) become spaces. */
void boot_one_line(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = ' ';
}

void boot_copy_line(char *dst, size_t n, const char *src)
{
	snprintf(dst, n, "%s", src ? src : "");
	boot_one_line(dst);
}

static int vfail(char *err, size_t len, const char *fmt, va_list ap)
{
	if (err && len) {
		vsnprintf(err, len, fmt, ap);
		boot_one_line(err);
	}
	return -1;
}

int boot_fail(char *err, size_t len, const char *fmt, ...)
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

/* ---- failure state ------------------------------------------------------- */

/* Best effort, ~1 s at most: rank 0 sends msg to every rank still
 * connected, another rank sends it to rank 0. */
static void tell_others(struct lb_boot *b, const char *msg)
{
	double deadline = boot_now() + ABORT_WAIT;
	if (b->rank != 0) {
		boot_send_abort(b->fd, b->rank, msg, deadline);
		return;
	}
	for (uint32_t r = 1; r < b->size; r++)
		boot_send_abort(b->fds[r], 0, msg, deadline);
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
	return boot_fail(err, len, "%s", b->why);
}

/* Fails for good, telling the others. */
int boot_fail_tell(struct lb_boot *b, char *err, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vboot_fail(b, 1, err, len, fmt, ap);
	va_end(ap);
	return -1;
}

/* Fails for good; the others already know (or cannot be told). */
int boot_fail_quiet(struct lb_boot *b, char *err, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vboot_fail(b, 0, err, len, fmt, ap);
	va_end(ap);
	return -1;
}

/* "3, 5, 7" for the ranks r >= 1 with got[r] == 0; returns how many. */
uint32_t boot_missing_ranks(const struct lb_boot *b, char *out, size_t n)
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

/* ---- opening and closing ------------------------------------------------- */

/* A coordinator host no name service knows (EAI_NONAME) is a bad input,
 * not worth the joins' retries until the timeout; a name service that
 * cannot answer now (EAI_AGAIN) is left to them.  0, or -1 (said). */
static int coord_unknown(const char *host, int passive, char *err, size_t len)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM,
				  .ai_flags = passive ? AI_PASSIVE : 0 }, *ai;
	if (!host[0] || (passive && strcmp(host, "*") == 0))
		return 0; /* rank 0 listens on any address */
	int rc = getaddrinfo(host, NULL, &hints, &ai);
	if (rc == 0)
		freeaddrinfo(ai);
	if (rc != EAI_NONAME)
		return 0;
	return boot_fail(err, len, "coordinator host '%s': cannot resolve it: %s", host,
			 gai_strerror(rc));
}

/* The configuration, then the coordinator's address: 0, or -1 (said). */
static int check_cfg(const struct lb_boot_cfg *c, char host[256], uint16_t *port, char *err,
		     size_t len)
{
	if (c->size < 1 || c->size > MAX_RANKS)
		return boot_fail(err, len, "job size %u out of range 1..%u", c->size, MAX_RANKS);
	if (c->rank >= c->size)
		return boot_fail(err, len, "rank %u out of range for a job of %u ranks", c->rank, c->size);
	if (c->size == 1)
		return 0;
	if (!c->token[0] || strnlen(c->token, sizeof(c->token)) > TOKEN_MAX)
		return boot_fail(err, len, "a job of %u ranks needs a job token of 1..%u characters",
				 c->size, TOKEN_MAX);
	if (!(c->timeout > 0 && c->timeout <= 1e6))
		return boot_fail(err, len, "timeout %g s out of range (0, 1e6]", c->timeout);
	if (strnlen(c->coord, sizeof(c->coord)) == sizeof(c->coord) ||
	    boot_parse_coord(c->coord, host, port))
		return boot_fail(err, len, "coordinator address '%.255s' is not host:port (port 1..65535)",
				 c->coord);
	if (c->rank != 0 && !host[0])
		return boot_fail(err, len, "coordinator address '%s' has no host to connect to",
				 c->coord);
	return coord_unknown(host, c->rank == 0, err, len);
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
		return LB_EINPUT; /* the same on every rank that reads it */
	struct lb_boot *b = boot_new(cfg);
	if (!b)
		return boot_fail(err, errlen, "bootstrap: out of memory");
	int rc = 0;
	if (b->size > 1 && b->rank == 0)
		rc = boot_root_open(b, cfg, host, port, err, errlen);
	else if (b->size > 1)
		rc = boot_peer_open(b, cfg, host, port, err, errlen);
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
	boot_close_quietly(b->fd);
	for (uint32_t r = 0; b->fds && r < b->size; r++)
		boot_close_quietly(b->fds[r]);
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

void lb_boot_set_timeout(struct lb_boot *b, double seconds)
{
	if (seconds > 0)
		b->timeout = seconds;
}

void lb_boot_abort(struct lb_boot *b, const char *reason)
{
	char r[ABORT_MAX + 1];
	if (!b || b->failed)
		return;
	boot_copy_line(r, sizeof(r), reason);
	b->failed = 1;
	b->code = -1;
	boot_fail(b->why, sizeof(b->why), "rank %u aborted: %s", b->rank, r);
	if (b->size > 1)
		tell_others(b, b->rank == 0 ? b->why : r);
}
