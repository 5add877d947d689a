/* Bootstrap, the other ranks: connecting to rank 0 and being admitted. */
#include "boot_private.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define RETRY_GAP   0.1   /* s: between connect attempts */

/* Non-blocking connect, bounded by deadline: 0 or an errno value. */
static int connect_by(int fd, const struct sockaddr_in *sa, double deadline)
{
	int e = 0;
	socklen_t el = sizeof(e);
	if (connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) == 0)
		return 0;
	if (errno != EINPROGRESS)
		return errno;
	int w = boot_wait_fd(fd, POLLOUT, deadline);
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
	int rc = boot_resolve(host, port, 0, &sa, why, wl);
	if (rc)
		return rc;
	int fd = boot_tcp_socket();
	if (fd < 0)
		return boot_fail(why, wl, "socket: %s", strerror(errno));
	int e = connect_by(fd, &sa, deadline);
	if (e == 0) {
		b->fd = fd;
		return 0;
	}
	close(fd);
	boot_fail(why, wl, "%s", strerror(e));
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
			return boot_fail(err, len, "coordinator (rank 0) at %s: %s", b->coord, why);
		if (boot_now() + RETRY_GAP >= deadline)
			return boot_fail(err, len, "timeout after %g s: cannot reach coordinator (rank 0) "
					 "at %s: %s", b->timeout, b->coord, why);
		poll(NULL, 0, (int)(RETRY_GAP * 1000));
	}
}

/* HELLO, then WELCOME: 0 admitted, 1 closed without a word (retry), -1
 * refused or failed (err says why). */
static int peer_hello(struct lb_boot *b, const char *token, char *err, size_t len)
{
	char reason[ABORT_MAX + 1];
	double deadline = boot_now() + b->timeout;
	struct hdr h = { .type = T_HELLO, .rank = b->rank, .arg = b->size,
			 .len = (uint32_t)strlen(token) };
	int rc = boot_send_msg(b->fd, &h, token, deadline, 1);
	if (rc == 0 || rc == IO_INPUT || boot_readable_now(b->fd))
		rc = boot_recv_hdr(b->fd, &h, deadline + GRACE);
	if (rc == IO_EOF || rc == -ECONNRESET || rc == -EPIPE)
		return 1;
	if (rc == IO_TIMEOUT)
		return boot_fail(err, len, "timeout after %g s: coordinator (rank 0) at %s accepted the "
				 "connection but did not admit this rank", b->timeout, b->coord);
	if (rc)
		return boot_fail(err, len, "connection to coordinator (rank 0) at %s: %s", b->coord,
				 strerror(-rc));
	const char *bad = boot_hdr_check(&h);
	if (!bad && h.type == T_ABORT && boot_recv_reason(b->fd, &h, reason, deadline) == 0)
		return boot_fail(err, len, "%s", reason);
	if (bad || h.type != T_WELCOME || h.arg != b->size)
		return boot_fail(err, len, "coordinator (rank 0) at %s sent a malformed message (%s)",
				 b->coord, bad ? bad : "expected a welcome");
	return 0;
}

/* Connect and say hello; a connection closed before the welcome (say,
 * dropped among strangers) is tried again until the timeout. */
int boot_peer_open(struct lb_boot *b, const struct lb_boot_cfg *cfg, const char *host,
		   uint16_t port, char *err, size_t len)
{
	double deadline = boot_now() + b->timeout;
	if (!host[0] || strcmp(host, "*") == 0)
		return boot_fail(err, len, "coordinator address '%s' has no host to connect to", cfg->coord);
	for (;;) {
		if (peer_connect(b, host, port, deadline, err, len))
			return -1;
		int rc = peer_hello(b, cfg->token, err, len);
		if (rc <= 0)
			return rc;
		close(b->fd);
		b->fd = -1;
		if (boot_now() + RETRY_GAP >= deadline)
			return boot_fail(err, len, "timeout after %g s: coordinator (rank 0) at %s closed the "
					 "connection before admitting this rank", b->timeout, b->coord);
		poll(NULL, 0, (int)(RETRY_GAP * 1000));
	}
}
