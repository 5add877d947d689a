/* Bootstrap: socket I/O (deadlines, partial reads and writes, EINTR) and
 * the messages on the wire (boot_private.h documents the format). */
#include "boot_private.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* ---- socket I/O ---------------------------------------------------------- */

/* Returns revents (> 0), 0 at the deadline, or -errno. */
int boot_wait_fd(int fd, short events, double deadline)
{
	struct pollfd p = { .fd = fd, .events = events };
	for (;;) {
		int n = poll(&p, 1, boot_ms_until(deadline));
		if (n > 0)
			return p.revents;
		if (n == 0 && boot_now() >= deadline)
			return 0;
		if (n < 0 && errno != EINTR)
			return -errno;
	}
}

int boot_read_exact(int fd, void *buf, size_t n, double deadline)
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
		int w = boot_wait_fd(fd, POLLIN, deadline);
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
		int w = boot_wait_fd(fd, POLLOUT | (stop_on_input ? POLLIN : 0), deadline);
		if (w <= 0)
			return w == 0 ? IO_TIMEOUT : w;
		if (stop_on_input && (w & POLLIN))
			return IO_INPUT;
	}
	return 0;
}

int boot_readable_now(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

int boot_tcp_socket(void)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), one = 1;
	if (fd >= 0)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

/* Half-close, read what is left (so close sends FIN rather than RST), close. */
void boot_close_quietly(int fd)
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
int boot_resolve(const char *host, uint16_t port, int passive, struct sockaddr_in *sa,
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
		boot_fail(why, wl, "cannot resolve '%s': %s", host ? host : "*", gai_strerror(rc));
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

void boot_hdr_unpack(const uint8_t *p, struct hdr *h)
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
const char *boot_hdr_check(const struct hdr *h)
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
int boot_send_msg(int fd, const struct hdr *h, const void *payload, double deadline,
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

int boot_recv_hdr(int fd, struct hdr *h, double deadline)
{
	uint8_t buf[HDR_LEN];
	int rc = boot_read_exact(fd, buf, HDR_LEN, deadline);
	if (rc == 0)
		boot_hdr_unpack(buf, h);
	return rc;
}

/* An ABORT's payload as a one-line string. */
int boot_recv_reason(int fd, const struct hdr *h, char out[ABORT_MAX + 1], double deadline)
{
	int rc = boot_read_exact(fd, out, h->len, deadline);
	out[rc == 0 ? h->len : 0] = '\0';
	boot_one_line(out);
	return rc;
}

void boot_send_abort(int fd, uint32_t rank, const char *reason, double deadline)
{
	size_t n = strnlen(reason, ABORT_MAX);
	struct hdr h = { .type = T_ABORT, .rank = rank, .len = (uint32_t)n };
	if (fd >= 0)
		boot_send_msg(fd, &h, reason, deadline, 0);
}
