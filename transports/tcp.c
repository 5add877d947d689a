/* tcp: the kernel baseline.  One TCP connection per (peer, lane), its
 * source bound to the lane's address (and to the lane's interface with
 * SO_BINDTODEVICE when allowed) so traffic leaves through that NIC.
 *
 * Wire format on a data connection: a 24-byte frame header {magic, pad,
 * offset, length} (big-endian) before each message; the receiver knows
 * which message comes next on the channel (the schedule says so), so it
 * reads headers and bytes straight into their places -- several messages
 * per call, as a sender writes them -- and checks each header as it
 * completes.  A connection starts with a hello {magic, lane, rank,
 * token} (tcp_wire.h); the acceptor refuses wrong tokens, unknown ranks
 * and duplicates, and answers the others with a welcome.  It reads the
 * hellos of all connections it accepted at once, so strangers that say
 * nothing cannot hold the ranks up; a rank dropped without a welcome
 * connects again. */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
/* The kernel's struct tcp_info, not glibc's (netinet/tcp.h), which ends
 * before tcpi_segs_out. */
#include <linux/tcp.h>

#include "lib/error.h"
#include "lib/ring.h"
#include "lib/secret.h"
#include "tcp_wire.h"
#include "transport.h"

#define FRAME_MAGIC 0x4c425444u /* "LBTD" */
#define TOKEN_MAX LB_TCP_TOKEN_MAX

struct frame {
	uint32_t magic;
	uint32_t pad;
	uint64_t offset;
	uint64_t len;
};

struct xfer {
	uint64_t off, len;
	uint64_t done; /* header + data bytes moved */
	uint32_t id;
	struct frame hdr; /* wire order: the one to send, or the one read */
};

/* Messages one sendmsg/recvmsg may cover (header and data each): batching
 * the queued messages of a connection saves a call per header and one
 * per message that ends inside a call. */
#define BATCH_MSGS 32

struct conn {
	int fd;
	uint32_t peer;
	struct lb_ring sendq, recvq; /* of struct xfer */
	uint32_t watched;        /* events the lane's epoll set asks of fd; 0: not in it */
};

struct lane {
	const char *name;
	struct lb_tcp_addr addr;
	int listen_fd;
	struct conn *conns;
	uint32_t nconns;
	int32_t *conn_of; /* [size]: index into conns, or -1 */
	int epfd;         /* arm(): the sockets with work; -1 until first armed */
	/* TCP_INFO of the connections forget() closed, as they were then:
	 * so that lane_counters never goes backwards. */
	uint64_t closed_retrans, closed_segs_out;
};

struct lb_tp {
	struct lb_tp_cfg cfg;
	char token[TOKEN_MAX]; /* zero-padded, as in a hello */
	uint8_t *buf;
	size_t buflen;
	struct lane *lanes;
};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- lane addresses -------------------------------------------------- */

/* A lane is an interface name (its first IPv4 address) or an IPv4 address
 * (its interface, when one has it). */
static int resolve_lane(const char *name, struct lb_tcp_addr *a, char *err, size_t len)
{
	struct in_addr ip;
	int by_ip = inet_pton(AF_INET, name, &ip) == 1;
	struct ifaddrs *ifs, *i;
	if (getifaddrs(&ifs) != 0)
		return lb_errf(err, len, "tcp: getifaddrs: %s", strerror(errno));
	memset(a, 0, sizeof(*a));
	for (i = ifs; i; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET)
			continue;
		struct in_addr mine = ((struct sockaddr_in *)i->ifa_addr)->sin_addr;
		if (by_ip ? mine.s_addr == ip.s_addr : strcmp(i->ifa_name, name) == 0) {
			a->ip = mine.s_addr;
			snprintf(a->ifname, sizeof(a->ifname), "%s", i->ifa_name);
			break;
		}
	}
	freeifaddrs(ifs);
	if (!a->ip)
		return lb_errf(err, len, "tcp: lane '%s': no %s", name,
			    by_ip ? "local interface has this IPv4 address"
				  : "interface of that name with an IPv4 address");
	return 0;
}

static int listen_on(struct lane *l, char *err, size_t len)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = l->addr.ip };
	socklen_t slen = sizeof(sa);
	int one = 1;
	l->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (l->listen_fd < 0 ||
	    setsockopt(l->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(l->listen_fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(l->listen_fd, 256) ||
	    getsockname(l->listen_fd, (struct sockaddr *)&sa, &slen))
		return lb_errf(err, len, "tcp: lane '%s': cannot listen on %s: %s", l->name,
			    inet_ntoa(sa.sin_addr), strerror(errno));
	l->addr.port = sa.sin_port;
	return 0;
}

static int tcp_open(const struct lb_tp_cfg *cfg, struct lb_tp **out, char *err,
		    size_t len)
{
	*out = NULL;
	struct lb_tp *tp = calloc(1, sizeof(*tp));
	if (!tp)
		return lb_errf(err, len, "tcp: out of memory");
	tp->cfg = *cfg;
	if (cfg->token) /* up to TOKEN_MAX characters, no terminator needed */
		memcpy(tp->token, cfg->token, strnlen(cfg->token, sizeof(tp->token)));
	tp->lanes = calloc(cfg->lanes, sizeof(*tp->lanes));
	*out = tp;
	if (!tp->lanes)
		return lb_errf(err, len, "tcp: out of memory");
	for (uint32_t i = 0; i < cfg->lanes; i++)
		tp->lanes[i].listen_fd = tp->lanes[i].epfd = -1;
	for (uint32_t i = 0; i < cfg->lanes; i++) {
		struct lane *l = &tp->lanes[i];
		l->name = cfg->lane_names[i];
		l->conn_of = malloc(cfg->size * sizeof(*l->conn_of));
		if (!l->conn_of)
			return lb_errf(err, len, "tcp: out of memory");
		memset(l->conn_of, 0xff, cfg->size * sizeof(*l->conn_of));
		if (resolve_lane(l->name, &l->addr, err, len) || listen_on(l, err, len))
			return -1;
	}
	return 0;
}

static int tcp_local_address(struct lb_tp *tp, uint32_t lane, void *addr)
{
	memcpy(addr, &tp->lanes[lane].addr, sizeof(struct lb_tcp_addr));
	return 0;
}

/* ---- connection setup ------------------------------------------------ */

/* Our connect to a higher rank: connecting, then greeted (our hello
 * sent, its welcome awaited), then a conn of the lane. */
struct pending {
	int fd;
	uint32_t lane, peer;
	int connecting;      /* connect() under way */
	int greeted;         /* our hello sent: waiting for the welcome */
	uint32_t welcome;    /* its bytes so far (got of them) */
	size_t got;
	double retry_at;     /* after a refused connect or a dropped hello */
	int failed;          /* for good (no route, ...): not retried */
};

static void set_conn_opts(int fd)
{
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

static int add_conn(struct lane *l, int fd, uint32_t peer)
{
	struct conn *c = &l->conns[l->nconns];
	memset(c, 0, sizeof(*c));
	c->fd = fd;
	c->peer = peer;
	l->conn_of[peer] = (int32_t)l->nconns++;
	set_conn_opts(fd);
	return 0;
}

/* Starts a non-blocking connect from the lane's address to the peer's. */
static int start_connect(struct lb_tp *tp, struct pending *pd,
			 const struct lb_tcp_addr *to)
{
	const struct lane *l = &tp->lanes[pd->lane];
	struct sockaddr_in src = { .sin_family = AF_INET, .sin_addr.s_addr = l->addr.ip };
	struct sockaddr_in dst = { .sin_family = AF_INET, .sin_addr.s_addr = to->ip,
				   .sin_port = to->port };
	pd->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (pd->fd < 0)
		return -1;
	/* Pin to the interface when we may (root); the source address alone
	 * already selects the lane's subnet on a multi-rail host. */
	if (l->addr.ifname[0])
		(void)setsockopt(pd->fd, SOL_SOCKET, SO_BINDTODEVICE, l->addr.ifname,
				 (socklen_t)strlen(l->addr.ifname));
	if (bind(pd->fd, (struct sockaddr *)&src, sizeof(src)))
		return -1;
	if (connect(pd->fd, (struct sockaddr *)&dst, sizeof(dst)) && errno != EINPROGRESS)
		return -1;
	pd->connecting = 1;
	return 0;
}

/* Blocking-with-deadline write of exactly n bytes: our hello, which a
 * fresh connection's empty send buffer takes at once.  (Hellos we
 * receive are never waited for: see the lobby below.) */
static int send_all(int fd, const void *p, size_t n, double deadline)
{
	const uint8_t *b = p;
	while (n) {
		ssize_t k = send(fd, b, n, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (k > 0) {
			b += k;
			n -= (size_t)k;
			continue;
		}
		if (k == 0 || (errno != EAGAIN && errno != EINTR))
			return -1;
		struct pollfd pf = { fd, POLLOUT, 0 };
		int ms = (int)((deadline - now()) * 1000);
		if (ms <= 0 || poll(&pf, 1, ms) < 0)
			return -1;
	}
	return 0;
}

/* Connected: present ourselves.  The welcome (or its absence) says
 * whether the peer admitted us. */
static int send_hello(struct lb_tp *tp, struct pending *pd)
{
	struct lb_tcp_hello h = { htonl(LB_TCP_HELLO_MAGIC), htonl(pd->lane), htonl(tp->cfg.rank),
				  { 0 } };
	int soerr = 0;
	socklen_t sl = sizeof(soerr);
	getsockopt(pd->fd, SOL_SOCKET, SO_ERROR, &soerr, &sl);
	if (soerr) {
		errno = soerr;
		return -1;
	}
	memcpy(h.token, tp->token, sizeof(h.token));
	return send_all(pd->fd, &h, sizeof(h), now() + 2);
}

/* ---- accepting: every connection's hello read at once ----------------- */

#define HELLO_WAIT 3.0      /* s: an accepted connection says hello by then */
#define SPARE_INBOUND 64u   /* per lane: room for connections without a hello
			     * beyond the ranks the lane expects */
#define ACCEPT_BURST 16u    /* accepted per lane and step: below the room, so
			     * every connection is read at least once before a
			     * newer one can push it out */

/* An accepted connection whose hello has not all arrived. */
struct inbound {
	int fd;
	double deadline;
	size_t got;
	struct lb_tcp_hello h;
	char from[INET_ADDRSTRLEN + 8]; /* "1.2.3.4:5678" */
};

/* A lane's accepted connections without a hello yet, oldest first. */
struct lobby {
	struct inbound *in; /* [room] */
	uint32_t n, room;
};

static void refuse(const struct lane *l, struct inbound *in, const char *why)
{
	fprintf(stderr, "lanebench: tcp lane '%s': refused connection from %s: %s\n", l->name,
		in->from, why);
	close(in->fd);
	in->fd = -1;
}

/* A complete hello must carry our token (compared in constant time: a
 * stranger learns nothing from how soon it is refused), this lane, and a
 * rank that this lane expects and has not seen yet. */
static int check_hello(struct lb_tp *tp, const struct lb_tcp_hello *h, uint32_t lane,
		       const uint8_t *expect, char *why, size_t wlen)
{
	uint32_t rank = ntohl(h->rank);
	if (!lb_secret_equal(h->token, sizeof(h->token), tp->token, sizeof(tp->token), TOKEN_MAX))
		return lb_errf(why, wlen, "wrong job token");
	if (ntohl(h->lane) != lane || rank >= tp->cfg.size || !expect[rank] ||
	    tp->lanes[lane].conn_of[rank] >= 0)
		return lb_errf(why, wlen, "unexpected rank %u on lane %u", rank, lane);
	return (int)rank;
}

/* Reads what arrived of a hello: a wrong magic is refused at its fourth
 * byte, a complete hello admitted as its rank (and welcomed) or refused. */
static void inbound_read(struct lb_tp *tp, uint32_t lane, const uint8_t *expect,
			 struct inbound *in)
{
	struct lane *l = &tp->lanes[lane];
	ssize_t k = recv(in->fd, (uint8_t *)&in->h + in->got, sizeof(in->h) - in->got,
			 MSG_DONTWAIT);
	char why[128];
	if (k < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (k <= 0) {
		refuse(l, in, k == 0 ? "closed before its hello" : strerror(errno));
		return;
	}
	in->got += (size_t)k;
	if (in->got >= sizeof(in->h.magic) && ntohl(in->h.magic) != LB_TCP_HELLO_MAGIC) {
		refuse(l, in, "not a lanebench connection");
		return;
	}
	if (in->got < sizeof(in->h))
		return;
	int rank = check_hello(tp, &in->h, lane, expect, why, sizeof(why));
	if (rank < 0) {
		uint32_t no = htonl(LB_TCP_REFUSED_MAGIC); /* best effort: it may be gone */
		(void)!send(in->fd, &no, sizeof(no), MSG_NOSIGNAL | MSG_DONTWAIT);
		refuse(l, in, why);
		return;
	}
	uint32_t welcome = htonl(LB_TCP_WELCOME_MAGIC);
	if (send(in->fd, &welcome, sizeof(welcome), MSG_NOSIGNAL | MSG_DONTWAIT) != sizeof(welcome)) {
		refuse(l, in, "gone before its welcome");
		return;
	}
	add_conn(l, in->fd, (uint32_t)rank);
	in->fd = -1;
}

/* Reads the lane's waiting connections that poll() reported (pf[i] is
 * in[i]'s), refuses those past their deadline, keeps the rest in order. */
static void lobby_service(struct lb_tp *tp, uint32_t lane, const uint8_t *expect,
			  struct lobby *lb, const struct pollfd *pf)
{
	double t = now();
	uint32_t k = 0;
	for (uint32_t i = 0; i < lb->n; i++) {
		struct inbound *in = &lb->in[i];
		if (pf[i].revents)
			inbound_read(tp, lane, expect, in);
		if (in->fd >= 0 && t >= in->deadline)
			refuse(&tp->lanes[lane], in, "no hello within 3 s");
		if (in->fd >= 0 && k != i)
			lb->in[k] = *in;
		k += in->fd >= 0;
	}
	lb->n = k;
}

/* Takes the connections waiting at the lane's listener (up to
 * ACCEPT_BURST) into its lobby; a full lobby drops its oldest, so a flood
 * costs at most the room in descriptors. */
static void lobby_accept(struct lb_tp *tp, uint32_t lane, struct lobby *lb)
{
	struct lane *l = &tp->lanes[lane];
	for (uint32_t i = 0; i < ACCEPT_BURST; i++) {
		struct sockaddr_in from;
		socklen_t flen = sizeof(from);
		int fd = accept4(l->listen_fd, (struct sockaddr *)&from, &flen,
				 SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0) /* none waiting, or that connection's own error */
			return;
		if (lb->n == lb->room) {
			refuse(l, &lb->in[0], "too many connections without a hello");
			memmove(&lb->in[0], &lb->in[1], (lb->n - 1) * sizeof(lb->in[0]));
			lb->n--;
		}
		struct inbound *in = &lb->in[lb->n++];
		char ip[INET_ADDRSTRLEN] = "?";
		memset(in, 0, sizeof(*in));
		in->fd = fd;
		in->deadline = now() + HELLO_WAIT;
		inet_ntop(AF_INET, &from.sin_addr, ip, sizeof(ip));
		snprintf(in->from, sizeof(in->from), "%s:%u", ip, ntohs(from.sin_port));
	}
}

struct setup {
	struct lb_tp *tp;
	const uint8_t *all; /* address blobs */
	struct pending *pd;  /* our outgoing connects */
	uint32_t npd;
	uint8_t **expect;    /* [lane][rank]: lower ranks that connect to us */
	uint32_t *want;      /* [lane]: connections the lane needs */
	struct lobby *lobby; /* [lane]: accepted, no hello yet */
	struct pollfd *pf;   /* listeners, connects, every lobby's connections */
	char failed[256];    /* the first connect that failed for good; "" none */
};

static const struct lb_tcp_addr *peer_addr(const struct setup *st, uint32_t peer,
					uint32_t lane)
{
	return (const struct lb_tcp_addr *)(st->all +
		((size_t)peer * st->tp->cfg.lanes + lane) * LB_TP_ADDR_MAX);
}

/* Every connection made, or failed for good: the lane's wants count
 * those no more. */
static int setup_done(const struct setup *st)
{
	for (uint32_t l = 0; l < st->tp->cfg.lanes; l++)
		if (st->tp->lanes[l].nconns < st->want[l])
			return 0;
	return 1;
}

/* A connect that failed for good (no route to the host, ...) is noted,
 * not fatal at once: the other peers still connect, so that a caller that
 * can do without this one (tcp_connected) has them; connect fails at the
 * end. */
static void give_up(struct setup *st, struct pending *pd, const char *why)
{
	char ip[INET_ADDRSTRLEN] = "?";
	struct in_addr a = { peer_addr(st, pd->peer, pd->lane)->ip };
	inet_ntop(AF_INET, &a, ip, sizeof(ip));
	close(pd->fd);
	pd->fd = -1;
	pd->failed = 1;
	st->want[pd->lane]--;
	if (!st->failed[0])
		snprintf(st->failed, sizeof(st->failed), "tcp lane '%s': connecting to rank %u at %s failed: %s",
			 st->tp->lanes[pd->lane].name, pd->peer, ip, why);
}

static void retry_later(struct pending *pd, double seconds)
{
	close(pd->fd);
	pd->fd = -1;
	pd->connecting = pd->greeted = 0;
	pd->retry_at = now() + seconds;
}

/* Connected (or not): our hello goes out, the welcome is awaited. */
static void on_connected(struct setup *st, struct pending *pd)
{
	pd->connecting = 0;
	if (send_hello(st->tp, pd) == 0) {
		pd->greeted = 1;
		pd->got = 0;
	} else if (errno == ECONNREFUSED || errno == EAGAIN) {
		retry_later(pd, 0.05); /* listener not up yet */
	} else {
		give_up(st, pd, strerror(errno));
	}
}

/* The welcome makes the connection the lane's channel with the peer, a
 * refusal ends the set-up with its reason.  An end without either is the
 * peer's lobby dropping us (among too many strangers, or late: it logs
 * why): we connect again. */
static void on_answer(struct setup *st, struct pending *pd)
{
	ssize_t k = recv(pd->fd, (uint8_t *)&pd->welcome + pd->got, sizeof(pd->welcome) - pd->got,
			 MSG_DONTWAIT);
	if (k < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (k <= 0) {
		retry_later(pd, 0.2);
		return;
	}
	pd->got += (size_t)k;
	if (pd->got < sizeof(pd->welcome))
		return;
	pd->greeted = 0;
	if (ntohl(pd->welcome) == LB_TCP_REFUSED_MAGIC) {
		give_up(st, pd, "it refused our hello: another job's token, or a rank it does not "
				"expect (its log says which)");
		return;
	}
	if (ntohl(pd->welcome) != LB_TCP_WELCOME_MAGIC) {
		give_up(st, pd, "it answered our hello with something else than a welcome");
		return;
	}
	add_conn(&st->tp->lanes[pd->lane], pd->fd, pd->peer);
	pd->fd = -1;
}

/* Names the first lane and peers still missing when the deadline passed. */
static int setup_timeout(const struct setup *st, char *err, size_t len)
{
	struct lb_tp *tp = st->tp;
	for (uint32_t l = 0; l < tp->cfg.lanes; l++) {
		for (uint32_t i = 0; i < st->npd; i++)
			if (st->pd[i].lane == l && !st->pd[i].failed &&
			    tp->lanes[l].conn_of[st->pd[i].peer] < 0)
				return lb_errf(err, len, "tcp lane '%s': timeout after %.0f s connecting to rank %u",
					    tp->lanes[l].name, tp->cfg.timeout, st->pd[i].peer);
		for (uint32_t r = 0; r < tp->cfg.size; r++)
			if (st->expect[l][r] && tp->lanes[l].conn_of[r] < 0)
				return lb_errf(err, len, "tcp lane '%s': timeout after %.0f s: rank %u never connected",
					    tp->lanes[l].name, tp->cfg.timeout, r);
	}
	return lb_errf(err, len, "tcp: connection setup timed out");
}

/* Starts the outgoing connects due (again); their pollfds from pf[0]. */
static uint32_t connects_due(struct setup *st, struct pollfd *pf)
{
	struct lb_tp *tp = st->tp;
	for (uint32_t i = 0; i < st->npd; i++) {
		struct pending *pd = &st->pd[i];
		if (pd->fd < 0 && !pd->failed && tp->lanes[pd->lane].conn_of[pd->peer] < 0 &&
		    now() >= pd->retry_at &&
		    start_connect(tp, pd, peer_addr(st, pd->peer, pd->lane))) {
			if (pd->fd >= 0)
				close(pd->fd);
			pd->fd = -1;
			pd->retry_at = now() + 0.05;
		}
		pf[i] = (struct pollfd){ pd->connecting || pd->greeted ? pd->fd : -1,
					 pd->connecting ? POLLOUT : POLLIN, 0 };
	}
	return st->npd;
}

/* One poll over the listeners, our connects and every connection waiting
 * to say hello; each served without waiting for any other. */
static int setup_step(struct setup *st, char *err, size_t len)
{
	struct lb_tp *tp = st->tp;
	uint32_t lanes = tp->cfg.lanes, n = lanes, at[lanes];
	for (uint32_t l = 0; l < lanes; l++)
		st->pf[l] = (struct pollfd){ tp->lanes[l].listen_fd, POLLIN, 0 };
	n += connects_due(st, st->pf + n);
	for (uint32_t l = 0; l < lanes; l++) {
		at[l] = n;
		for (uint32_t i = 0; i < st->lobby[l].n; i++)
			st->pf[n++] = (struct pollfd){ st->lobby[l].in[i].fd, POLLIN, 0 };
	}
	if (poll(st->pf, n, 20) < 0 && errno != EINTR)
		return lb_errf(err, len, "tcp: poll: %s", strerror(errno));
	for (uint32_t l = 0; l < lanes; l++) {
		lobby_service(tp, l, st->expect[l], &st->lobby[l], st->pf + at[l]);
		if (st->pf[l].revents & POLLIN)
			lobby_accept(tp, l, &st->lobby[l]);
	}
	for (uint32_t i = 0; i < st->npd; i++)
		if (st->pf[lanes + i].revents)
			(st->pd[i].connecting ? on_connected : on_answer)(st, &st->pd[i]);
	return 0;
}

static void setup_free(struct setup *st)
{
	for (uint32_t i = 0; i < st->npd; i++)
		if (st->pd[i].fd >= 0)
			close(st->pd[i].fd);
	free(st->pd);
	for (uint32_t l = 0; st->lobby && l < st->tp->cfg.lanes; l++) {
		for (uint32_t i = 0; i < st->lobby[l].n; i++)
			close(st->lobby[l].in[i].fd); /* the set-up is over: strangers go */
		free(st->lobby[l].in);
	}
	free(st->lobby);
	free(st->pf);
	if (st->expect)
		for (uint32_t l = 0; l < st->tp->cfg.lanes; l++)
			free(st->expect[l]);
	free(st->expect);
	free(st->want);
}

/* Each lane's lobby has room for the ranks it expects and SPARE_INBOUND
 * strangers; one pollfd array covers the lobbies, listeners and connects. */
static int lobbies_init(struct setup *st)
{
	uint32_t lanes = st->tp->cfg.lanes, total = lanes + st->npd;
	st->lobby = calloc(lanes, sizeof(*st->lobby));
	if (!st->lobby)
		return -1;
	for (uint32_t l = 0; l < lanes; l++) {
		struct lobby *lb = &st->lobby[l];
		lb->room = SPARE_INBOUND;
		for (uint32_t r = 0; r < st->tp->cfg.size; r++)
			lb->room += st->expect[l][r];
		lb->in = calloc(lb->room, sizeof(*lb->in));
		if (!lb->in)
			return -1;
		total += lb->room;
	}
	st->pf = calloc(total, sizeof(*st->pf));
	return st->pf ? 0 : -1;
}

/* Lower ranks connect to higher ones; each lane needs one connection per
 * peer the schedule pairs it with. */
static int setup_init(struct setup *st, const struct lb_tp_peers *peers)
{
	struct lb_tp *tp = st->tp;
	uint32_t lanes = tp->cfg.lanes, total = 0;
	st->expect = calloc(lanes, sizeof(*st->expect));
	st->want = calloc(lanes, sizeof(*st->want));
	if (!st->expect || !st->want)
		return -1;
	for (uint32_t l = 0; l < lanes; l++)
		total += peers->npeers[l];
	st->pd = calloc(total + 1, sizeof(*st->pd));
	if (!st->pd)
		return -1;
	for (uint32_t l = 0; l < lanes; l++) {
		struct lane *ln = &tp->lanes[l];
		st->expect[l] = calloc(tp->cfg.size, 1);
		ln->conns = calloc(peers->npeers[l] + 1, sizeof(*ln->conns));
		if (!st->expect[l] || !ln->conns)
			return -1;
		st->want[l] = peers->npeers[l];
		for (uint32_t i = 0; i < peers->npeers[l]; i++) {
			uint32_t peer = peers->peers[l][i];
			if (peer < tp->cfg.rank)
				st->expect[l][peer] = 1;
			else
				st->pd[st->npd++] = (struct pending){ .fd = -1, .lane = l, .peer = peer };
		}
	}
	return lobbies_init(st);
}

static int tcp_connect(struct lb_tp *tp, const uint8_t *all,
		       const struct lb_tp_peers *peers, char *err, size_t len)
{
	struct setup st = { .tp = tp, .all = all };
	int rc = setup_init(&st, peers) ? lb_errf(err, len, "tcp: out of memory") : 0;
	double deadline = now() + tp->cfg.timeout;
	while (rc == 0 && !setup_done(&st)) {
		if (now() > deadline)
			rc = setup_timeout(&st, err, len);
		else
			rc = setup_step(&st, err, len);
	}
	if (rc == 0 && st.failed[0])
		rc = lb_errf(err, len, "%s", st.failed);
	setup_free(&st);
	return rc;
}

/* ---- data path --------------------------------------------------------- */

static struct xfer *queue_head(struct lb_ring *q)
{
	return lb_ring_at(q, 0, sizeof(struct xfer));
}

static struct conn *conn_for(struct lb_tp *tp, uint32_t lane, uint32_t peer)
{
	struct lane *l = &tp->lanes[lane];
	return peer < tp->cfg.size && l->conn_of[peer] >= 0 ? &l->conns[l->conn_of[peer]] : NULL;
}

static int tcp_post(struct lb_tp *tp, uint32_t lane, enum lb_xfer_kind kind, uint32_t peer,
		    uint64_t off, uint64_t len, uint32_t id, char *err, size_t errlen)
{
	int send = kind == LB_XFER_SEND;
	const char *name = tp->lanes[lane].name;
	if (lb_tp_check_range("tcp", name, off, len, tp->buflen, err, errlen))
		return -1;
	struct conn *c = conn_for(tp, lane, peer);
	if (!c)
		return lb_errf(err, errlen, "tcp lane '%s': no connection with rank %u (not a peer of the lane when it connected)",
			       name, peer);
	if (c->fd < 0)
		return lb_errf(err, errlen, "tcp lane '%s': the connection with rank %u was given up (forget): no more transfers with it",
			       name, peer);
	struct xfer x = { .off = off, .len = len, .id = id };
	if (send)
		x.hdr = (struct frame){ htonl(FRAME_MAGIC), 0, htobe64(off), htobe64(len) };
	if (lb_ring_push(send ? &c->sendq : &c->recvq, &x, sizeof(x)))
		return lb_errf(err, errlen, "tcp lane '%s': out of memory queueing a %s with rank %u",
			       name, send ? "send" : "receive", peer);
	return 0;
}

static int peer_gone(struct lb_tp *tp, uint32_t lane, const struct conn *c,
		     ssize_t k, char *err, size_t len)
{
	lb_errf(err, len, "tcp lane '%s': rank %u %s%s (did it exit or die?)",
		tp->lanes[lane].name, c->peer, k == 0 ? "closed the connection" : "connection: ",
		k == 0 ? "" : strerror(errno));
	return LB_EPEER;
}

/* The unmoved part of the first `msgs` (at most BATCH_MSGS) queued
 * messages, header and data in wire order, as iov[]; the number of
 * entries, *bytes their sum. */
static int queued_iov(const struct lb_tp *tp, const struct lb_ring *q, int msgs,
		      struct iovec *iov, uint64_t *bytes)
{
	const uint64_t hdr = sizeof(struct frame);
	int n = 0;
	*bytes = 0;
	for (uint32_t i = 0; i < (uint32_t)msgs && i < BATCH_MSGS; i++) {
		struct xfer *x = lb_ring_at(q, i, sizeof(*x));
		if (!x)
			break;
		if (x->done < hdr)
			iov[n++] = (struct iovec){ (uint8_t *)&x->hdr + x->done, hdr - x->done };
		uint64_t data_done = x->done > hdr ? x->done - hdr : 0;
		if (x->len > data_done)
			iov[n++] = (struct iovec){ tp->buf + x->off + data_done, x->len - data_done };
		*bytes += hdr + x->len - x->done;
	}
	return n;
}

/* Sends as much of the queued messages as the socket takes, several per
 * call; each fully handed over completes. */
static int progress_send(struct lb_tp *tp, uint32_t lane, struct conn *c,
			 struct lb_completion *out, int *n, int max, char *err, size_t len)
{
	struct iovec iov[2 * BATCH_MSGS];
	uint64_t want;
	while (*n < max && c->sendq.count) {
		struct msghdr mh = { .msg_iov = iov };
		mh.msg_iovlen = (size_t)queued_iov(tp, &c->sendq, max - *n, iov, &want);
		ssize_t k = sendmsg(c->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (k < 0 && (errno == EAGAIN || errno == EINTR))
			return 0;
		if (k < 0)
			return peer_gone(tp, lane, c, k, err, len);
		uint64_t left = (uint64_t)k;
		struct xfer *x;
		while (left && (x = queue_head(&c->sendq))) {
			uint64_t step = sizeof(x->hdr) + x->len - x->done;
			step = step < left ? step : left;
			x->done += step;
			left -= step;
			if (x->done < sizeof(x->hdr) + x->len)
				break;
			out[(*n)++] = (struct lb_completion){ x->id, LB_XFER_SEND };
			lb_ring_pop(&c->sendq);
		}
		if ((uint64_t)k < want) /* the socket is full */
			return 0;
	}
	return 0;
}

static int check_frame(struct lb_tp *tp, uint32_t lane, const struct conn *c,
		       const struct xfer *x, char *err, size_t len)
{
	if (ntohl(x->hdr.magic) == FRAME_MAGIC && be64toh(x->hdr.offset) == x->off &&
	    be64toh(x->hdr.len) == x->len)
		return 0;
	return lb_errf(err, len, "tcp lane '%s': rank %u sent bytes [%llu,+%llu) but [%llu,+%llu) was expected (out of step)",
		    tp->lanes[lane].name, c->peer,
		    (unsigned long long)be64toh(x->hdr.offset),
		    (unsigned long long)be64toh(x->hdr.len),
		    (unsigned long long)x->off, (unsigned long long)x->len);
}

/* Accounts k bytes read into the queued receives: headers checked as they
 * complete (a message's bytes may have landed before its header was
 * checked: a wrong one fails the run anyway), each complete message a
 * completion. */
static int took_recv(struct lb_tp *tp, uint32_t lane, struct conn *c, uint64_t k,
		     struct lb_completion *out, int *n, char *err, size_t len)
{
	const uint64_t hdr = sizeof(struct frame);
	struct xfer *x;
	while (k && (x = queue_head(&c->recvq))) {
		uint64_t step = hdr + x->len - x->done;
		step = step < k ? step : k;
		int had_hdr = x->done >= hdr;
		x->done += step;
		k -= step;
		if (!had_hdr && x->done >= hdr && check_frame(tp, lane, c, x, err, len))
			return -1;
		if (x->done < hdr + x->len)
			break;
		out[(*n)++] = (struct lb_completion){ x->id, LB_XFER_RECV };
		lb_ring_pop(&c->recvq);
	}
	return 0;
}

/* Reads the queued receives' headers and bytes in place, as many messages
 * per call as have arrived (up to the room for their completions). */
static int progress_recv(struct lb_tp *tp, uint32_t lane, struct conn *c,
			 struct lb_completion *out, int *n, int max, char *err, size_t len)
{
	struct iovec iov[2 * BATCH_MSGS];
	uint64_t want;
	while (*n < max && c->recvq.count) {
		struct msghdr mh = { .msg_iov = iov };
		mh.msg_iovlen = (size_t)queued_iov(tp, &c->recvq, max - *n, iov, &want);
		ssize_t k = recvmsg(c->fd, &mh, MSG_DONTWAIT);
		if (k < 0 && (errno == EAGAIN || errno == EINTR))
			return 0;
		if (k <= 0)
			return peer_gone(tp, lane, c, k, err, len);
		if (took_recv(tp, lane, c, (uint64_t)k, out, n, err, len))
			return -1;
		if ((uint64_t)k < want) /* drained for now */
			return 0;
	}
	return 0;
}

static int tcp_poll(struct lb_tp *tp, uint32_t lane, struct lb_completion *out,
		    int max, char *err, size_t len)
{
	struct lane *l = &tp->lanes[lane];
	int n = 0;
	for (uint32_t i = 0; i < l->nconns; i++) {
		struct conn *c = &l->conns[i];
		int rc = progress_send(tp, lane, c, out, &n, max, err, len);
		if (rc || (rc = progress_recv(tp, lane, c, out, &n, max, err, len)))
			return rc;
	}
	return n;
}

/* The lane's epoll set follows its queues: a socket is in it, readable
 * for a posted receive and writable for a queued send, only while it has
 * work -- a socket without any (its peer may have closed) must not wake
 * the lane.  Level-triggered: ready before arm() still wakes it. */
static int tcp_arm(struct lb_tp *tp, uint32_t lane)
{
	struct lane *l = &tp->lanes[lane];
	if (l->epfd < 0 && (l->epfd = epoll_create1(EPOLL_CLOEXEC)) < 0)
		return -1;
	for (uint32_t i = 0; i < l->nconns; i++) {
		struct conn *c = &l->conns[i];
		uint32_t want = (c->recvq.count ? EPOLLIN : 0) | (c->sendq.count ? EPOLLOUT : 0);
		struct epoll_event ev = { .events = want };
		int op = !c->watched ? EPOLL_CTL_ADD : want ? EPOLL_CTL_MOD : EPOLL_CTL_DEL;
		if (want == c->watched)
			continue;
		if (epoll_ctl(l->epfd, op, c->fd, &ev))
			return -1; /* the caller naps instead */
		c->watched = want;
	}
	return l->epfd;
}

static int tcp_register(struct lb_tp *tp, void *buf, size_t len, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	tp->buf = buf;
	tp->buflen = len;
	return 0;
}

/* Line rate of a physical interface from sysfs (Mb/s); virtual interfaces
 * (veth, bridges, lo: no backing device) report no real rate. */
static double tcp_lane_rate(struct lb_tp *tp, uint32_t lane)
{
	const char *ifn = tp->lanes[lane].addr.ifname;
	char path[128];
	snprintf(path, sizeof(path), "/sys/class/net/%s/device", ifn);
	if (!ifn[0] || access(path, F_OK) != 0)
		return 0;
	snprintf(path, sizeof(path), "/sys/class/net/%s/speed", ifn);
	FILE *f = fopen(path, "r");
	long mbps = 0;
	if (f) {
		if (fscanf(f, "%ld", &mbps) != 1)
			mbps = 0;
		fclose(f);
	}
	return mbps > 0 ? mbps * 1e6 / 8 : 0;
}

/* Adds a connection's TCP_INFO to *retrans and *segs_out: segments sent
 * again (loss on the path) and segments sent (what a loss ratio divides
 * by; 0 on kernels before 4.2, whose TCP_INFO ends before it). */
static void add_tcp_info(int fd, uint64_t *retrans, uint64_t *segs_out)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);
	memset(&ti, 0, sizeof(ti));
	if (fd < 0 || getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) != 0)
		return;
	*retrans += ti.tcpi_total_retrans;
	if (len >= offsetof(struct tcp_info, tcpi_segs_out) + sizeof(ti.tcpi_segs_out))
		*segs_out += ti.tcpi_segs_out;
}

/* Segments the kernel sent again on the lanes' connections (TCP_INFO):
 * loss on the path, under the times a run reports. */
static int tcp_counters(struct lb_tp *tp, struct lb_tp_counter *out)
{
	uint64_t retransmitted = 0, segs_out = 0;
	for (uint32_t l = 0; l < tp->cfg.lanes; l++)
		for (uint32_t i = 0; i < tp->lanes[l].nconns; i++)
			add_tcp_info(tp->lanes[l].conns[i].fd, &retransmitted, &segs_out);
	out[0] = (struct lb_tp_counter){ "segments_retransmitted", retransmitted };
	return 1;
}

static void add_port_counter(struct lb_port_counters *c, const char *name, uint64_t value)
{
	if (c->n >= LB_PORT_COUNTERS_MAX)
		return;
	snprintf(c->c[c->n].name, sizeof(c->c[c->n].name), "%s", name);
	c->c[c->n++].value = value;
}

/* The lane's connections, open and given up: a ratio of the two is the
 * lane's loss. */
static void tcp_lane_counters(struct lb_tp *tp, uint32_t lane, struct lb_port_counters *c)
{
	const struct lane *l = &tp->lanes[lane];
	uint64_t retrans = l->closed_retrans, segs_out = l->closed_segs_out;
	for (uint32_t i = 0; i < l->nconns; i++)
		add_tcp_info(l->conns[i].fd, &retrans, &segs_out);
	add_port_counter(c, "tcp:retransmits", retrans);
	add_port_counter(c, "tcp:segments_out", segs_out);
}

/* The address the lane's connections bind to: the interface's first
 * address, which sysfs reports, may not be the one the lane names. */
static void tcp_port_facts(struct lb_tp *tp, uint32_t lane, struct lb_port_facts *f)
{
	const struct lb_tcp_addr *a = &tp->lanes[lane].addr;
	struct in_addr ip = { .s_addr = a->ip };
	inet_ntop(AF_INET, &ip, f->addr, sizeof(f->addr));
	if (!f->ifname[0])
		snprintf(f->ifname, sizeof(f->ifname), "%s", a->ifname);
	size_t n = strlen(f->source);
	snprintf(f->source + n, sizeof(f->source) - n, "%s", n ? "+tcp" : "tcp");
}

/* The connection closes (closing leaves the lane's epoll set too) and its
 * queues go; the conn stays, fd -1, so that a later post is refused by
 * name.  Nothing queued, it is never read, written or armed again.  What
 * it counted stays in the lane's counters. */
static void tcp_forget(struct lb_tp *tp, uint32_t lane, uint32_t peer)
{
	struct conn *c = conn_for(tp, lane, peer);
	if (!c || c->fd < 0)
		return;
	add_tcp_info(c->fd, &tp->lanes[lane].closed_retrans, &tp->lanes[lane].closed_segs_out);
	close(c->fd);
	c->fd = -1;
	c->watched = 0;
	lb_ring_free(&c->sendq);
	lb_ring_free(&c->recvq);
}

/* A connection with the peer on the lane was made (and not given up):
 * what a connect that timed out on some peers still made. */
static int tcp_connected(struct lb_tp *tp, uint32_t lane, uint32_t peer)
{
	const struct conn *c = lane < tp->cfg.lanes ? conn_for(tp, lane, peer) : NULL;
	return c && c->fd >= 0;
}

static void tcp_close(struct lb_tp *tp)
{
	if (!tp)
		return;
	for (uint32_t l = 0; tp->lanes && l < tp->cfg.lanes; l++) {
		struct lane *ln = &tp->lanes[l];
		for (uint32_t i = 0; i < ln->nconns; i++) {
			if (ln->conns[i].fd >= 0)
				close(ln->conns[i].fd);
			lb_ring_free(&ln->conns[i].sendq);
			lb_ring_free(&ln->conns[i].recvq);
		}
		if (ln->listen_fd >= 0)
			close(ln->listen_fd);
		if (ln->epfd >= 0)
			close(ln->epfd);
		free(ln->conns);
		free(ln->conn_of);
	}
	free(tp->lanes);
	free(tp);
}

const struct lb_transport lb_transport_tcp = {
	.name = "tcp",
	.summary = "kernel TCP, one connection per (peer, lane) bound to the lane's address",
	.nic_kind = "network",
	.open = tcp_open,
	.local_address = tcp_local_address,
	.connect = tcp_connect,
	.register_buffer = tcp_register,
	.post = tcp_post,
	.poll = tcp_poll,
	.arm = tcp_arm,
	.lane_rate = tcp_lane_rate,
	.counters = tcp_counters,
	.port_facts = tcp_port_facts,
	.lane_counters = tcp_lane_counters,
	.forget = tcp_forget,
	.connected = tcp_connected,
	.close = tcp_close,
};
