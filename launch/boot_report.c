/* Bootstrap: lb_boot_take_report, the report behind a lost peer. */
#include "boot_private.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "lib/error.h"

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
	boot_hdr_unpack(buf, h);
	return !boot_hdr_check(h) && h->type == T_ABORT ? REPORT_ABORT : REPORT_OTHER;
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
			return boot_fail_tell(b, err, len, "rank %u disconnected", r);
		if (k == REPORT_ABORT && aborted < 0) {
			aborted = (int)r;
			ah = h;
		}
		b->got[r] |= k == REPORT_OTHER;
	}
	if (aborted < 0)
		return 0;
	if (boot_recv_hdr(b->fds[aborted], &ah, boot_now() + ABORT_WAIT) ||
	    boot_recv_reason(b->fds[aborted], &ah, reason, boot_now() + ABORT_WAIT))
		return boot_fail_tell(b, err, len, "rank %d disconnected", aborted);
	return boot_fail_tell(b, err, len, "rank %d aborted: %s", aborted, reason);
}

/* A non-root rank: rank 0's relay, or its close. */
static int peer_report(struct lb_boot *b, char *err, size_t len)
{
	char reason[ABORT_MAX + 1];
	struct hdr h;
	switch (peek_report(b->fd, &h)) {
	case REPORT_CLOSED:
		return boot_peer_io_error(b, IO_EOF, err, len);
	case REPORT_ABORT:
		if (boot_recv_hdr(b->fd, &h, boot_now() + ABORT_WAIT) ||
		    boot_recv_reason(b->fd, &h, reason, boot_now() + ABORT_WAIT))
			return boot_peer_io_error(b, IO_EOF, err, len);
		return boot_fail_quiet(b, err, len, "%s", reason);
	case REPORT_OTHER:
		return 1; /* not a report: leave it to the next collective */
	default:
		return 0;
	}
}

int lb_boot_take_report(struct lb_boot *b, double wait, char *err, size_t errlen)
{
	double deadline = boot_now() + wait;
	if (!b || b->failed || b->size == 1)
		return 0;
	if (b->rank == 0)
		memset(b->got, 0, b->size);
	for (;;) {
		nfds_t n = 1;
		struct pollfd one = { .fd = b->fd, .events = POLLIN };
		struct pollfd *set = b->rank == 0 ? b->pfd : &one;
		if (b->rank == 0 && (n = boot_root_pollset(b)) == 0)
			return 0;
		int k = poll(set, n, boot_ms_until(deadline));
		if (k < 0 && errno != EINTR)
			return 0;
		int rc = k <= 0 ? 0 : b->rank == 0 ? root_report(b, n, err, errlen)
						    : peer_report(b, err, errlen);
		if (rc < 0) {
			b->code = LB_EPEER;
			return LB_EPEER;
		}
		if (rc > 0 || boot_now() >= deadline)
			return 0;
		if (k > 0)
			poll(NULL, 0, 1); /* a header still arriving: do not spin on it */
	}
}
