/* The tcp transport's data listener among strangers (issue 28): before
 * rank 0 connects, connections that say nothing, one that sends garbage
 * and one with the wrong job token reach rank 1's listener.  The talkers
 * must be closed while the silent ones are still open (the listener reads
 * them all at once, none waits for another), the flood's oldest silent
 * connection dropped beyond the lane's room, and then rank 0 admitted: the
 * set-up completes and rank 1 checks every byte of the message.  The
 * strangers left are closed when the set-up ends.  And a rank whose
 * hello a lobby dropped (no welcome) connects again.  Every wait is
 * bounded (WAIT_MS); the order of events is what is checked, not
 * durations. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "algos/algos.h"
#include "check.h"
#include "engine/executor.h"
#include "engine/pattern.h"
#include "transports/tcp_wire.h"
#include "transports/transport.h"

#define WAIT_MS 10000  /* bound of every wait for an event */
#define ROOM 65        /* tcp.c: a lane's connections without a hello:
			* the ranks it expects (1) + 64 spare */
#define MAX_SILENT (ROOM + 1)

static const char *const LOOPBACK[] = { "127.0.0.1" };

struct rank {
	const struct lb_schedule *s;
	const uint8_t *addrs;
	struct lb_tp *tp;
	uint32_t r;
	int rc;
	char err[256];
};

static int open_rank(struct rank *k, uint8_t *addrs)
{
	struct lb_tp_cfg cfg = { .rank = k->r, .size = 2, .lanes = 1, .lane_names = LOOPBACK,
				 .token = "test-token", .timeout = 10 };
	int rc = lb_transport_tcp.open(&cfg, &k->tp, k->err, sizeof(k->err));
	if (rc == 0)
		lb_transport_tcp.local_address(k->tp, 0, addrs + k->r * LB_TP_ADDR_MAX);
	return rc;
}

/* Set-up, then one iteration of the schedule; rank 1 checks the bytes.
 * The transport stays open: the caller looks at the strangers first. */
static void *rank_main(void *arg)
{
	struct rank *k = arg;
	uint32_t peers[2], npeers = (uint32_t)lb_sched_lane_peers(k->s, k->r, 0, peers);
	const uint32_t *pp[1] = { peers };
	struct lb_tp_peers p = { pp, &npeers };
	uint8_t *buf = calloc(1, k->s->bytes);
	struct lb_exec_cfg xc = { .sched = k->s, .rank = k->r, .tp_ops = &lb_transport_tcp,
				  .tp = k->tp, .buf = buf, .idle = LB_IDLE_SLEEP, .timeout = 10 };
	struct lb_exec *x = NULL;
	double secs;
	uint64_t bad = 0;
	int rc = lb_transport_tcp.connect(k->tp, k->addrs, &p, k->err, sizeof(k->err));
	if (rc == 0)
		rc = lb_transport_tcp.register_buffer(k->tp, buf, k->s->bytes, k->err, sizeof(k->err));
	if (rc == 0 && k->r == 0)
		lb_pattern_fill(buf, k->s->bytes, 0);
	if (rc == 0)
		rc = lb_exec_new(&xc, &x, k->err, sizeof(k->err));
	if (rc == 0)
		rc = lb_exec_iteration(x, &secs, k->err, sizeof(k->err));
	if (rc == 0 && k->r == 1 && lb_pattern_check(buf, k->s->bytes, 0, &bad))
		rc = -1, snprintf(k->err, sizeof(k->err), "wrong byte at offset %llu",
				  (unsigned long long)bad);
	lb_exec_free(x);
	free(buf);
	k->rc = rc;
	return NULL;
}

/* A connection to the lane's listener (the kernel completes it before
 * anyone accepts), or -1. */
static int stranger(const struct lb_tcp_addr *a)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = a->ip,
				  .sin_port = a->port };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
		return fd;
	if (fd >= 0)
		close(fd);
	return -1;
}

static int says(int fd, const void *p, size_t n)
{
	return fd >= 0 && send(fd, p, n, MSG_NOSIGNAL) == (ssize_t)n;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The other end closed fd (end of stream or reset) before the deadline
 * (one for a whole group, so that a listener that never closes them
 * costs WAIT_MS, not WAIT_MS per connection). */
static int closed_by_listener(int fd, double deadline)
{
	double left_ms = (deadline - now()) * 1000;
	struct pollfd pf = { fd, POLLIN, 0 };
	char c;
	if (fd < 0 || poll(&pf, 1, left_ms > 0 ? (int)left_ms : 0) != 1)
		return 0;
	ssize_t n = recv(fd, &c, 1, MSG_DONTWAIT);
	return n == 0 || (n < 0 && errno == ECONNRESET);
}

/* The listener answered fd's hello with a refusal, then closed it. */
static int refused_by_listener(int fd, double deadline)
{
	uint32_t no = 0;
	size_t got = 0;
	while (fd >= 0 && got < sizeof(no)) {
		double left_ms = (deadline - now()) * 1000;
		struct pollfd pf = { fd, POLLIN, 0 };
		ssize_t n = poll(&pf, 1, left_ms > 0 ? (int)left_ms : 0) == 1
				    ? recv(fd, (char *)&no + got, sizeof(no) - got, 0) : -1;
		if (n <= 0)
			return 0;
		got += (size_t)n;
	}
	return ntohl(no) == LB_TCP_REFUSED_MAGIC && closed_by_listener(fd, deadline);
}

/* Nothing happened to fd: not closed, nothing sent to it. */
static int still_open(int fd)
{
	struct pollfd pf = { fd, POLLIN, 0 };
	return fd >= 0 && poll(&pf, 1, 0) == 0;
}

struct strangers {
	int silent[MAX_SILENT], garbage, wrong;
	int nsilent, talkers;
};

/* The silent ones first, so that a listener that waits for one
 * connection's hello before the next reaches the talkers last. */
static void arrive(struct strangers *st, const struct lb_tcp_addr *a)
{
	static const char junk[] = "GET / HTTP/1.0\r\n\r\n";
	struct lb_tcp_hello h = { htonl(LB_TCP_HELLO_MAGIC), htonl(0), htonl(0), "wrong-token" };
	for (int i = 0; i < st->nsilent; i++)
		st->silent[i] = stranger(a);
	st->garbage = st->wrong = -1;
	if (st->talkers) {
		st->garbage = stranger(a);
		st->wrong = stranger(a);
		CHECK(says(st->garbage, junk, sizeof(junk) - 1) && says(st->wrong, &h, sizeof(h)),
		      "strangers could not talk");
	}
	for (int i = 0; i < st->nsilent; i++)
		CHECK(st->silent[i] >= 0, "silent stranger %d could not connect", i);
}

/* Before rank 0 comes: the talkers closed and the oldest `dropped`
 * silent ones, while every other silent one is still open. */
static void check_before_peer(const char *what, const struct strangers *st, int dropped)
{
	double deadline = now() + WAIT_MS / 1000.0;
	if (st->talkers) {
		CHECK(closed_by_listener(st->garbage, deadline), "%s: garbage not closed with silent ones open", what);
		CHECK(refused_by_listener(st->wrong, deadline),
		      "%s: wrong token not refused and closed with silent ones open", what);
	}
	for (int i = 0; i < dropped; i++)
		CHECK(closed_by_listener(st->silent[i], deadline), "%s: oldest silent stranger %d not dropped", what, i);
	for (int i = dropped; i < st->nsilent; i++)
		CHECK(still_open(st->silent[i]), "%s: silent stranger %d closed before its turn", what, i);
}

static void strangers_case(const char *what, int nsilent, int talkers, int dropped)
{
	char err[256];
	struct lb_algo_params prm = { .ranks = 2, .lanes = 1, .bytes = 1 << 20, .slice_bytes = 64 << 10 };
	struct lb_schedule *s = lb_algo_build(lb_algo_find("chain"), &prm, err, sizeof(err));
	uint8_t addrs[2 * LB_TP_ADDR_MAX];
	struct rank k[2] = { { .s = s, .addrs = addrs, .r = 0 }, { .s = s, .addrs = addrs, .r = 1 } };
	struct strangers st = { .nsilent = nsilent, .talkers = talkers };
	int failures = check_failures;
	pthread_t th[2];
	if (!s || open_rank(&k[0], addrs) || open_rank(&k[1], addrs)) {
		CHECK(0, "%s: set-up: %s %s %s", what, s ? "" : err, k[0].err, k[1].err);
		return;
	}
	arrive(&st, (const struct lb_tcp_addr *)(addrs + LB_TP_ADDR_MAX));
	pthread_create(&th[1], NULL, rank_main, &k[1]);
	check_before_peer(what, &st, dropped);
	pthread_create(&th[0], NULL, rank_main, &k[0]);
	for (int r = 0; r < 2; r++)
		pthread_join(th[r], NULL);
	for (int r = 0; r < 2; r++)
		CHECK(k[r].rc == 0, "%s: rank %d: %s", what, r, k[r].err);
	double deadline = now() + WAIT_MS / 1000.0;
	for (int i = dropped; i < nsilent; i++) /* the transports are still open */
		CHECK(closed_by_listener(st.silent[i], deadline), "%s: silent stranger %d left open after set-up", what, i);
	for (int i = 0; i < nsilent; i++)
		close(st.silent[i]);
	if (talkers) {
		close(st.garbage);
		close(st.wrong);
	}
	for (int r = 0; r < 2; r++)
		lb_transport_tcp.close(k[r].tp);
	lb_sched_free(s);
	printf("%s: %s\n", what, check_failures == failures ? "set-up and transfer done" : "FAILED");
}

/* ---- a rank its peer's lobby dropped connects again -------------------- */

struct lone {
	struct rank k;
	struct lb_tp_peers peers;
	uint8_t addrs[2 * LB_TP_ADDR_MAX];
	uint32_t one, npeers;
	const uint32_t *pp[1];
	int lfd;      /* the fake lane's listener */
	pthread_t th; /* rank 0's connect */
};

static void *connect_only(void *arg)
{
	struct lone *o = arg;
	o->k.rc = lb_transport_tcp.connect(o->k.tp, o->k.addrs, &o->peers, o->k.err,
					   sizeof(o->k.err));
	return NULL;
}

/* The next connection to the fake lane's listener and its hello, read
 * before the deadline; the connection or -1. */
static int next_hello(int lfd, struct lb_tcp_hello *h, double deadline)
{
	struct pollfd pf = { lfd, POLLIN, 0 };
	size_t got = 0;
	double left_ms = (deadline - now()) * 1000;
	int fd = poll(&pf, 1, left_ms > 0 ? (int)left_ms : 0) == 1 ? accept(lfd, NULL, NULL) : -1;
	while (fd >= 0 && got < sizeof(*h)) {
		pf = (struct pollfd){ fd, POLLIN, 0 };
		left_ms = (deadline - now()) * 1000;
		ssize_t n = poll(&pf, 1, left_ms > 0 ? (int)left_ms : 0) == 1
				    ? recv(fd, (char *)h + got, sizeof(*h) - got, 0) : -1;
		if (n <= 0) {
			close(fd);
			fd = -1;
		}
		got += n > 0 ? (size_t)n : 0;
	}
	return fd;
}

/* Rank 0 alone, its peer rank 1's lane a listener the test plays; rank
 * 0's connect runs in o->th.  0, or -1 (checked, named by what). */
static int fake_peer(struct lone *o, const char *what)
{
	*o = (struct lone){ .k = { .r = 0 }, .one = 1, .npeers = 1 };
	o->k.addrs = o->addrs;
	o->pp[0] = &o->one;
	o->peers = (struct lb_tp_peers){ o->pp, &o->npeers };
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(sa);
	o->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (o->lfd < 0 || bind(o->lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(o->lfd, 4) ||
	    getsockname(o->lfd, (struct sockaddr *)&sa, &sl) || open_rank(&o->k, o->addrs)) {
		CHECK(0, "%s: set-up: %s %s", what, strerror(errno), o->k.err);
		return -1;
	}
	struct lb_tcp_addr fake = { .ip = sa.sin_addr.s_addr, .port = sa.sin_port };
	memcpy(o->addrs + LB_TP_ADDR_MAX, &fake, sizeof(fake));
	pthread_create(&o->th, NULL, connect_only, o);
	return 0;
}

/* Rank 0 connects to a lane of rank 1 that the test plays: its first
 * connection is closed after the hello, without a welcome (as a lobby
 * among too many strangers drops its oldest); rank 0 must come again,
 * and the welcomed second connection is its channel. */
static void dropped_then_welcomed(void)
{
	struct lone o; /* the connect thread is joined before it goes */
	int failures = check_failures;
	if (fake_peer(&o, "dropped hello"))
		return;
	int lfd = o.lfd;
	struct lb_tcp_hello h;
	double deadline = now() + WAIT_MS / 1000.0;
	int first = next_hello(lfd, &h, deadline);
	CHECK(first >= 0 && ntohl(h.rank) == 0, "dropped hello: no first hello from rank 0");
	close(first);
	int second = next_hello(lfd, &h, deadline);
	CHECK(second >= 0 && ntohl(h.rank) == 0, "dropped hello: rank 0 did not connect again");
	uint32_t welcome = htonl(LB_TCP_WELCOME_MAGIC);
	CHECK(says(second, &welcome, sizeof(welcome)), "dropped hello: welcome not sent");
	pthread_join(o.th, NULL);
	CHECK(o.k.rc == 0 && lb_transport_tcp.connected(o.k.tp, 0, 1),
	      "dropped hello: rank 0's set-up: %d '%s'", o.k.rc, o.k.err);
	if (second >= 0)
		close(second);
	close(lfd);
	lb_transport_tcp.close(o.k.tp);
	printf("dropped hello: %s\n", check_failures == failures ? "connected again, welcomed" : "FAILED");
}

/* Rank 0 connects to a lane of rank 1 that the test plays, which refuses
 * its hello: rank 0's set-up ends with that reason, without connecting
 * again (before the refusal it retried until its timeout). */
static void refused_gives_up(void)
{
	struct lone o; /* the connect thread is joined before it goes */
	int failures = check_failures;
	if (fake_peer(&o, "refused hello"))
		return;
	int lfd = o.lfd;
	struct lb_tcp_hello h;
	int first = next_hello(lfd, &h, now() + WAIT_MS / 1000.0);
	uint32_t no = htonl(LB_TCP_REFUSED_MAGIC);
	CHECK(first >= 0 && says(first, &no, sizeof(no)), "refused hello: no hello to refuse");
	pthread_join(o.th, NULL);
	CHECK(o.k.rc != 0 && strstr(o.k.err, "refused our hello"),
	      "refused hello: rank 0's set-up: %d '%s'", o.k.rc, o.k.err);
	struct pollfd pf = { lfd, POLLIN, 0 };
	CHECK(poll(&pf, 1, 0) == 0, "refused hello: rank 0 connected again");
	if (first >= 0)
		close(first);
	close(lfd);
	lb_transport_tcp.close(o.k.tp);
	printf("refused hello: %s\n", check_failures == failures ? "gave up, naming it" : "FAILED");
}

int main(void)
{
	strangers_case("8 silent, garbage, wrong token", 8, 1, 0);
	strangers_case("flood of room + 1 silent", ROOM + 1, 0, 1);
	dropped_then_welcomed();
	refused_gives_up();
	return check_status("tcp-strangers");
}
