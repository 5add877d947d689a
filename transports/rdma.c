/* rdma: RC queue pairs over libibverbs, connected with librdmacm.
 *
 * A lane is an RDMA device port ("rxe0:1", "mlx5_0" = port 1), an IPv4
 * address, or a network interface; it is bound to one IPv4 address, and
 * rdma_cm picks the device that owns it.  Per lane: a listening cm_id (made
 * in open, so it exists before any peer learns our address), a PD, the
 * message buffer registered once, one CQ (with a completion channel that
 * arm() offers to sleep on), and one RC QP per peer.  Lower ranks connect to higher
 * ones, with the source address bound so traffic leaves through the lane.
 *
 * The address blob carries IPv4, CM port, the buffer's address and rkey and
 * the port's largest message, so each side knows where it may write.
 *
 * --tp-opt op=write (default): a message is RDMA WRITEs straight into the
 * peer's buffer at the same offset, the last one with immediate data.  The
 * immediate consumes one of the receiver's pre-posted zero-length RECVs (a
 * ring per QP, reposted on each completion) and carries a code of
 * (sequence, offset, length); the receiver matches it against its oldest
 * posted receive of that (peer, lane), so a schedule mismatch is an error,
 * not silent corruption.  Writing into place at any time is safe because
 * the schedule dedicates each block range to one transfer per iteration
 * and iterations are separated by a barrier.
 * --tp-opt op=send: SEND/RECV, each posted receive is a RECV into place.
 *
 * A send completes when the peer acknowledged its last WR -- except a
 * message sent in one inline WR (up to the QP's max_inline_data bytes):
 * its bytes are copied when it is posted, so it completes then, and its WR
 * asks for no completion (see signal_wr).  The peer may still be waiting
 * for it, as after a TCP write; the job's closing barrier keeps a QP from
 * being destroyed under a message a peer has not received.
 *
 * Receiver not ready: a SEND (or a notification beyond the ring) that finds
 * no RECV gets an RNR NAK; rnr_retry_count 7 means "retry forever", which is
 * right here because the receiver always posts eventually (its lane thread
 * runs the same schedule) and the executor's own timeout names a stuck
 * peer; a finite count would turn a slow rank under TCG into a fatal
 * error.  Each QP's RNR timer is lowered to 0.12 ms after connecting
 * (rdma_cm leaves it at 0 = 655 ms) so a late receive costs little.
 *
 * Messages longer than the ports' max_msg_sz are split into chunks; SEND
 * mode splits receives the same way (both sides use the smaller limit).
 *
 * The mailbox (write mode, when both ranks poll only: lb_tp_cfg's
 * polls_only, --idle spin or yield): a message of up to MBOX_DATA bytes
 * goes as one inline RDMA WRITE into a ring of slots in the receiver's
 * memory (one ring per connection, registered apart from the buffer),
 * which the receiver polls -- no receive WR consumed, no completion
 * written and polled, as ib_write_lat measures.  A slot holds the
 * message's bytes ending where its header starts, the header (the code
 * an immediate would carry, the length, the message's sequence number)
 * and last a flag: the sender's count of mailbox messages, this one
 * included, so a slot is new when its flag is the count the receiver
 * expects next.  The receiver trusts what precedes the flag once the flag
 * is there: the slot arrives in one packet, placed in order, the
 * assumption perftest's write latency test and MPI's eager RDMA make.
 * Each message is copied into place when its receive is matched (as an
 * immediate's code is), then its slot is free.  A sender may have
 * MBOX_SLOTS messages unfreed: the receiver tells how many it freed in
 * each mailbox message it sends back, and by an 8-byte RDMA WRITE into the
 * sender's ring when half a ring went untold.  Messages on one connection
 * keep their order across the two ways: a mailbox message is taken only
 * when every message before it (by sequence number) was, and a completion
 * with immediate data first takes the mailbox messages placed before it.
 * A caller that may sleep on arm() gets no mailbox: its writes raise no
 * event to wake it.  --tp-opt mailbox=off: none either (to compare). */
#include <arpa/inet.h>
#include <ctype.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <infiniband/verbs.h>
#include <poll.h>
#include <rdma/rdma_cma.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "lib/ring.h"
#include "transport.h"
#include "lib/error.h"
#include "lib/units.h"

#define HELLO_MAGIC 0x4c425248u  /* "LBRH" */
#define REJECT_MAGIC 0x4c42524au /* "LBRJ" */
#define QP_DEPTH 256             /* send and receive WRs per QP */
#define QUEUE_MAX 8192           /* messages a (peer, lane) queues in software */
#define INLINE_WANT 128          /* bytes asked for inline sends */
#define CHUNK_MAX (1u << 30)
#define CM_TIMEOUT_MS 5000
#define RNR_TIMER 6              /* IB encoding: 0.12 ms */
#define ACK_TIMEOUT_MAX 31       /* the encoding's 5 bits; 0 means "never" */
#define POLL_BATCH 32             /* WCs taken from the CQ at once */
#define PEER_CHECK_EVERY 4096     /* polls between looks for a peer gone (a syscall) */
#define WELCOME_MAGIC 0x4c425257u /* "LBRW": the accept's private data */
#define MBOX_SLOTS 64             /* mailbox messages a sender may have unfreed */
#define MBOX_SLOT 128             /* bytes per slot, header and flag included */

enum op_mode { OP_WRITE, OP_SEND };
enum conn_state { CONN_IDLE, CONN_RESOLVING, CONN_CONNECTING, CONN_UP, CONN_RETRY };
/* What a work request's wr_id carries besides its connection (whose
 * alignment leaves the low bits free): a receive, or a send whose message
 * was completed when it was posted (inline: nothing to wait for). */
enum wr_kind { WR_SEND = 0, WR_RECV = 1, WR_EARLY = 2 };
#define WR_KINDS 3u

/* One lane's address blob (big-endian fields). */
struct blob {
	uint32_t ip;   /* already network order */
	uint16_t port; /* already network order */
	uint16_t has_mr;
	uint32_t rkey;
	uint32_t max_msg;
	uint64_t addr, len; /* the registered buffer */
};
_Static_assert(sizeof(struct blob) <= LB_TP_ADDR_MAX, "an address blob is at most LB_TP_ADDR_MAX bytes");

/* Private data of the connect request. */
struct hello {
	uint32_t magic, rank, lane, mode;
	uint64_t token;
	uint64_t mbox; /* the connector's mailbox for the acceptor's messages; 0: none */
	uint32_t mbox_rkey, pad;
};

/* Private data of the accept: the acceptor's mailbox for the connector. */
struct welcome {
	uint32_t magic, mbox_rkey;
	uint64_t mbox; /* 0: none */
};

/* One mailbox slot: the message's bytes end where the header starts. */
struct slot {
	uint8_t data[MBOX_SLOT - 32];
	uint32_t code, len, seq, pad;
	uint64_t credit; /* the sender's count of the receiver's mailbox messages it freed */
	uint64_t flag;   /* written last: the sender's count of mailbox messages, this one included */
};
#define MBOX_DATA (MBOX_SLOT - 32) /* the largest message a slot takes */
#define SLOT_HEAD (MBOX_SLOT - MBOX_DATA)
_Static_assert(sizeof(struct slot) == MBOX_SLOT, "a slot is MBOX_SLOT bytes");

/* A connection's mailbox, in the receiver's memory: the sender's slots,
 * and the word where the sender says how many of the receiver's own
 * mailbox messages it freed when it has none to send back. */
struct mbox {
	struct slot slot[MBOX_SLOTS];
	uint64_t credit;
	uint8_t pad[56];
};

/* A message of the peer's that arrived and is not matched yet: its code,
 * and its mailbox slot (-1: it came by immediate, its bytes in place). */
struct arrival {
	uint32_t code;
	int32_t slot;
};

struct reject {
	uint32_t magic;
	char why[100];
};

struct msg {
	uint64_t off, len;
	uint32_t id, code, seq;
	uint32_t chunks, posted, done;
};

struct conn {
	struct rdma_cm_id *id;
	struct lb_tp *tp;
	uint32_t lane, peer;
	int state, connector;
	double retry_at;
	char last_err[128];
	struct blob remote; /* host order */
	uint64_t chunk;     /* bytes per WR: both ports' max_msg_sz */
	uint32_t depth;     /* WRs per queue of the QP */
	uint32_t max_inline;
	struct lb_ring sendq, recvq; /* of struct msg */
	uint32_t sidx, ridx;         /* first message not fully posted */
	uint32_t sq_used, rq_used;   /* WRs outstanding */
	uint32_t unsignaled;         /* send WRs posted since the last signaled one */
	struct lb_ring covers;       /* per signaled send WR outstanding: the WRs its completion frees (uint32_t) */
	uint32_t send_seq, recv_seq; /* messages so far, for the codes */
	struct lb_ring arrived;      /* write mode: struct arrival, not yet matched */
	uint32_t arrivals;           /* write mode: the peer's messages arrived, the next one's seq */
	struct mbox *mbox;           /* mine for the peer's messages; NULL: no mailbox both ways */
	uint64_t rmbox;              /* the peer's for mine (its address); 0: none */
	uint32_t rmbox_rkey;
	uint64_t mb_sent, mb_freed;  /* my mailbox messages, and of them those the peer freed */
	uint64_t mb_seen, mb_taken, mb_told; /* the peer's: found, matched (slot freed), told freed */
} __attribute__((aligned(8)));
_Static_assert(_Alignof(struct conn) > WR_KINDS, "a conn's address leaves wr_id's kind bits free");

struct lane {
	const char *name;
	char dev[64];
	uint32_t ip; /* network order */
	struct rdma_cm_id *listen;
	struct rdma_event_channel *cm; /* the lane's connections after setup */
	unsigned polls;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq;
	uint32_t max_msg, max_wr;
	int max_cqe;
	double rate;
	struct conn *conns;
	uint32_t nconns;
	int32_t *conn_of; /* [size]: index into conns, or -1 */
	struct lb_ring early;     /* ids of sends completed at posting (uint32_t), for poll() */
	uint32_t arrived;         /* write mode: records in the conns' `arrived` rings, summed */
	struct mbox *mboxes;      /* one per connection, when offered (polls_only, write mode) */
	struct ibv_mr *mbox_mr;
	uint64_t mb_sends, mb_recvs, credit_writes; /* counters (read by other threads) */
	int epfd;      /* arm(): the completion channel and cm; -1 until connected */
	int armed;     /* the CQ's notification is requested and not yet taken */
	unsigned unacked;
	char err[256]; /* a data-path failure poll() reports */
	int err_code;  /* and what poll() returns with it: -1 or LB_EPEER */
};

struct lb_tp {
	struct lb_tp_cfg cfg;
	int mode;
	int mailbox;         /* offer mailboxes: write mode, polls_only, --tp-opt mailbox on */
	uint8_t ack_timeout; /* IB encoding, --tp-opt ack-timeout */
	uint64_t token;
	struct rdma_event_channel *ec;
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

static const char *ip_str(uint32_t ip, char *s)
{
	return inet_ntop(AF_INET, &ip, s, INET_ADDRSTRLEN);
}

static uint64_t fnv(const void *p, size_t n, uint64_t h)
{
	const uint8_t *b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

/* What the immediate carries: the message's place in the channel and its
 * bytes, so the receiver detects a sender that is out of step. */
static uint32_t msg_code(uint32_t seq, uint64_t off, uint64_t len)
{
	uint64_t v[3] = { seq, off, len };
	uint64_t h = fnv(v, sizeof(v), 0xcbf29ce484222325ull);
	return (uint32_t)(h ^ (h >> 32));
}

static inline uint32_t chunks_of(uint64_t len, uint64_t chunk)
{
	return len == 0 ? 1 : (uint32_t)((len + chunk - 1) / chunk);
}

/* ---- lanes: name -> IPv4 address ---------------------------------------- */

/* A RoCE port's GID table holds its IPv4 addresses as ::ffff:a.b.c.d. */
static int port_ipv4(struct ibv_context *ctx, uint8_t port, uint32_t *ip)
{
	struct ibv_port_attr pa;
	if (ibv_query_port(ctx, port, &pa))
		return -1;
	static const uint8_t v4[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	for (int i = 0; i < pa.gid_tbl_len; i++) {
		union ibv_gid g;
		if (ibv_query_gid(ctx, port, i, &g) == 0 && memcmp(g.raw, v4, 12) == 0) {
			memcpy(ip, g.raw + 12, 4);
			return 0;
		}
	}
	return -1;
}

/* "dev" or "dev:port" naming one of the host's devices: its IPv4 address. */
static int device_lane(const char *name, struct ibv_device **devs, int n, uint32_t *ip,
		       char *err, size_t len)
{
	char dev[64];
	snprintf(dev, sizeof(dev), "%s", name);
	char *colon = strchr(dev, ':');
	long port = 1;
	if (colon) {
		*colon = 0;
		char *end;
		port = strtol(colon + 1, &end, 10);
		if (*end || port < 1 || port > 255)
			return lb_errf(err, len, "rdma lane '%s': bad port '%s'", name, colon + 1);
	}
	for (int i = 0; i < n; i++) {
		if (strcmp(ibv_get_device_name(devs[i]), dev) != 0)
			continue;
		struct ibv_context *ctx = ibv_open_device(devs[i]);
		int rc = ctx ? port_ipv4(ctx, (uint8_t)port, ip) : -1;
		if (ctx)
			ibv_close_device(ctx);
		if (rc)
			return lb_errf(err, len, "rdma lane '%s': port %ld of %s has no IPv4 address (no RoCE GID); name the lane by its IPoIB/RoCE IPv4 address",
				       name, port, dev);
		return 1;
	}
	return 0;
}

static int interface_lane(const char *name, uint32_t *ip)
{
	struct ifaddrs *ifs, *i;
	if (getifaddrs(&ifs) != 0)
		return 0;
	for (i = ifs; i; i = i->ifa_next)
		if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET && strcmp(i->ifa_name, name) == 0) {
			*ip = ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr;
			break;
		}
	freeifaddrs(ifs);
	return i != NULL;
}

/* The lane's IPv4 address: given, of a device port, or of an interface. */
static int resolve_lane(struct lane *l, char *err, size_t len)
{
	int n = 0;
	struct ibv_device **devs = ibv_get_device_list(&n);
	if (!devs || n == 0) {
		if (devs)
			ibv_free_device_list(devs);
		return lb_errf(err, len, "rdma lane '%s': no RDMA device on this host (load a driver, e.g. rdma_rxe for Soft-RoCE or mlx5_ib)",
			       l->name);
	}
	int rc = 0;
	if (inet_pton(AF_INET, l->name, &l->ip) != 1) {
		rc = device_lane(l->name, devs, n, &l->ip, err, len);
		if (rc == 0 && !interface_lane(l->name, &l->ip)) {
			char names[256] = "";
			for (int i = 0; i < n && strlen(names) < sizeof(names) - 70; i++)
				snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
					 i ? ", " : "", ibv_get_device_name(devs[i]));
			rc = lb_errf(err, len, "rdma lane '%s': not an IPv4 address, RDMA device or interface with an IPv4 address (devices: %s)",
				     l->name, names);
		}
	}
	ibv_free_device_list(devs);
	return rc < 0 ? -1 : 0;
}

/* ---- open ------------------------------------------------------------------ */

/* Lanes of a link by IBV_WIDTH_* (active_width: 1X, 4X, 8X, 12X, 2X);
 * 0 unknown. */
static int width_lanes(uint8_t code)
{
	static const struct { int code, lanes; } widths[] = {
		{ 1, 1 }, { 2, 4 }, { 4, 8 }, { 8, 12 }, { 16, 2 },
	};
	for (size_t i = 0; i < sizeof(widths) / sizeof(widths[0]); i++)
		if (widths[i].code == code)
			return widths[i].lanes;
	return 0;
}

static double port_rate(const struct ibv_port_attr *pa)
{
	/* Data rate per lane (Gb/s, after line coding) by IBV_SPEED_*. */
	static const struct { int code; double gbps; } speeds[] = {
		{ 1, 2.0 }, { 2, 4.0 }, { 4, 8.0 }, { 8, 10.0 }, { 16, 13.64 },
		{ 32, 25.0 }, { 64, 50.0 }, { 128, 100.0 }, { 256, 200.0 },
	};
	double g = 0;
	for (size_t i = 0; i < sizeof(speeds) / sizeof(speeds[0]); i++)
		if (speeds[i].code == pa->active_speed)
			g = speeds[i].gbps;
	return g * width_lanes(pa->active_width) * 1e9 / 8;
}

/* The link's nominal speed, bits/s, as the kernel's sysfs rate file
 * gives it ("40 Gb/sec (4X QDR)", "56 Gb/sec (4X FDR)"), so that verbs
 * and sysfs agree where both speak; port_rate is what it carries.
 * (ibv_rate_to_mbps takes a static rate, not these speed codes.)  0
 * unknown. */
static double port_speed_bps(const struct ibv_port_attr *pa)
{
	/* Gb/s per lane by IBV_SPEED_*: SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR. */
	static const struct { int code; double gbps; } speeds[] = {
		{ 1, 2.5 }, { 2, 5.0 }, { 4, 10.0 }, { 8, 10.0 }, { 16, 14.0 },
		{ 32, 25.0 }, { 64, 50.0 }, { 128, 100.0 },
	};
	for (size_t i = 0; i < sizeof(speeds) / sizeof(speeds[0]); i++)
		if (speeds[i].code == pa->active_speed)
			return speeds[i].gbps * width_lanes(pa->active_width) * 1e9;
	return 0;
}

/* The device rdma_cm bound the lane to: limits and line rate. */
static int query_device(struct lane *l, char *err, size_t len)
{
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	snprintf(l->dev, sizeof(l->dev), "%s", ibv_get_device_name(l->ctx->device));
	if (ibv_query_device(l->ctx, &da) || ibv_query_port(l->ctx, l->listen->port_num, &pa))
		return lb_errf(err, len, "rdma lane '%s': cannot query %s port %u: %s", l->name, l->dev,
			       l->listen->port_num, strerror(errno));
	if (pa.state != IBV_PORT_ACTIVE)
		return lb_errf(err, len, "rdma lane '%s': %s port %u is %s, not active", l->name, l->dev,
			       l->listen->port_num, ibv_port_state_str(pa.state));
	l->max_msg = pa.max_msg_sz && pa.max_msg_sz < CHUNK_MAX ? pa.max_msg_sz : CHUNK_MAX;
	l->max_wr = (uint32_t)da.max_qp_wr;
	l->max_cqe = da.max_cqe;
	l->rate = port_rate(&pa);
	return 0;
}

/* Listens on the lane's address; the bound cm_id names the device. */
static int open_lane(struct lb_tp *tp, struct lane *l, char *err, size_t len)
{
	char a[INET_ADDRSTRLEN];
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = l->ip };
	if (rdma_create_id(tp->ec, &l->listen, l, RDMA_PS_TCP))
		return lb_errf(err, len, "rdma lane '%s': rdma_create_id: %s", l->name, strerror(errno));
	if (rdma_bind_addr(l->listen, (struct sockaddr *)&sa))
		return lb_errf(err, len, "rdma lane '%s': cannot bind to %s: %s (no RDMA device has this address?)",
			       l->name, ip_str(l->ip, a), strerror(errno));
	if (!(l->ctx = l->listen->verbs))
		return lb_errf(err, len, "rdma lane '%s': address %s belongs to no RDMA device",
			       l->name, ip_str(l->ip, a));
	if (rdma_listen(l->listen, 64))
		return lb_errf(err, len, "rdma lane '%s': cannot listen on %s: %s", l->name,
			       ip_str(l->ip, a), strerror(errno));
	if (query_device(l, err, len))
		return -1;
	if (!(l->pd = ibv_alloc_pd(l->ctx)))
		return lb_errf(err, len, "rdma lane '%s': ibv_alloc_pd on %s: %s", l->name, l->dev,
			       strerror(errno));
	return 0;
}

/* --tp-opt keys; their values are parsed by the functions below. */
static const struct lb_tp_option rdma_options[] = {
	{ "op", "OP", "write (RDMA WRITE with immediate) or send (SEND/RECV)", "write" },
	{ "ack-timeout", "TIME", "wait for an ack before retransmitting, rounded up to 4.096us x 2^n (as perftest's default; raise it where round trips stall, e.g. under emulation)", "67ms" },
	{ "mailbox", "on|off", "write mode, every rank polling (--idle spin or yield): messages up to 96 bytes as one inline RDMA WRITE into a ring the receiver polls, no immediate (as ib_write_lat); off: all by immediate", "on" },
	{ NULL, NULL, NULL, NULL },
};

static int parse_mode(const struct lb_tp_cfg *cfg, int *mode, char *err, size_t len)
{
	const char *op = lb_tp_option(rdma_options, &cfg->opt, "op");
	if (strcmp(op, "write") == 0)
		*mode = OP_WRITE;
	else if (strcmp(op, "send") == 0)
		*mode = OP_SEND;
	else
		return lb_errf(err, len, "rdma: --tp-opt op '%s': expected write or send", op);
	return 0;
}

/* ack-timeout: the smallest IB encoding n with 4.096 us x 2^n at least
 * the time asked for (67 ms: 14, perftest's -u 14). */
static int parse_ack_timeout(const struct lb_tp_cfg *cfg, uint8_t *t, char *err, size_t len)
{
	const char *s = lb_tp_option(rdma_options, &cfg->opt, "ack-timeout");
	double secs, longest = 4.096e-6 * (double)(1ull << ACK_TIMEOUT_MAX);
	char why[128];
	if (lb_parse_seconds(s, &secs, why, sizeof(why)))
		return lb_errf(err, len, "rdma: --tp-opt ack-timeout '%s': %s", s, why);
	if (secs <= 0 || secs > longest)
		return lb_errf(err, len, "rdma: --tp-opt ack-timeout '%s': expected more than 0 and at most %.0f s",
			       s, longest);
	for (*t = 1; 4.096e-6 * (double)(1ull << *t) < secs; (*t)++)
		;
	return 0;
}

static int parse_mailbox(const struct lb_tp_cfg *cfg, int *on, char *err, size_t len)
{
	const char *v = lb_tp_option(rdma_options, &cfg->opt, "mailbox");
	if (strcmp(v, "on") == 0 || strcmp(v, "off") == 0)
		*on = strcmp(v, "on") == 0;
	else
		return lb_errf(err, len, "rdma: --tp-opt mailbox '%s': expected on or off", v);
	return 0;
}

static int rdma_open(const struct lb_tp_cfg *cfg, struct lb_tp **out, char *err, size_t len)
{
	*out = NULL;
	int mode = OP_WRITE, mailbox = 1;
	uint8_t ack = 0;
	if (parse_mode(cfg, &mode, err, len) || parse_ack_timeout(cfg, &ack, err, len) ||
	    parse_mailbox(cfg, &mailbox, err, len))
		return LB_EINPUT;
	struct lb_tp *tp = calloc(1, sizeof(*tp));
	if (!tp)
		return lb_errf(err, len, "rdma: out of memory");
	*out = tp;
	tp->cfg = *cfg;
	tp->mode = mode;
	tp->ack_timeout = ack;
	tp->mailbox = mailbox && mode == OP_WRITE && cfg->polls_only;
	tp->token = fnv(cfg->token ? cfg->token : "", cfg->token ? strlen(cfg->token) : 0,
			0xcbf29ce484222325ull);
	if (!(tp->lanes = calloc(cfg->lanes, sizeof(*tp->lanes))))
		return lb_errf(err, len, "rdma: out of memory");
	for (uint32_t i = 0; i < cfg->lanes; i++)
		tp->lanes[i].epfd = -1;
	for (uint32_t i = 0; i < cfg->lanes; i++) {
		tp->lanes[i].name = cfg->lane_names[i];
		if (resolve_lane(&tp->lanes[i], err, len))
			return -1;
	}
	if (!(tp->ec = rdma_create_event_channel()))
		return lb_errf(err, len, "rdma lane '%s': cannot open the RDMA connection manager: %s (is rdma_ucm loaded?)",
			       tp->lanes[0].name, strerror(errno));
	for (uint32_t i = 0; i < cfg->lanes; i++)
		if (open_lane(tp, &tp->lanes[i], err, len))
			return -1;
	return 0;
}

/* Registered once per lane (each lane has its own PD). */
static int rdma_register(struct lb_tp *tp, void *buf, size_t len, char *err, size_t errlen)
{
	tp->buf = buf;
	tp->buflen = len;
	for (uint32_t i = 0; i < tp->cfg.lanes; i++) {
		struct lane *l = &tp->lanes[i];
		l->mr = ibv_reg_mr(l->pd, buf, len ? len : 1,
				   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
		if (!l->mr)
			return lb_errf(err, errlen, "rdma lane '%s': cannot register %zu bytes on %s: %s",
				       l->name, len, l->dev, strerror(errno));
	}
	return 0;
}

static int rdma_local_address(struct lb_tp *tp, uint32_t lane, void *addr)
{
	struct lane *l = &tp->lanes[lane];
	struct blob b = { .ip = l->ip, .port = rdma_get_src_port(l->listen),
			  .has_mr = htons(l->mr != NULL), .rkey = htonl(l->mr ? l->mr->rkey : 0),
			  .max_msg = htonl(l->max_msg),
			  .addr = htobe64((uint64_t)(uintptr_t)tp->buf), .len = htobe64(tp->buflen) };
	memcpy(addr, &b, sizeof(b));
	return 0;
}

/* ---- connection setup ---------------------------------------------------- */

static struct conn *conn_for(struct lb_tp *tp, uint32_t lane, uint32_t peer)
{
	struct lane *l = &tp->lanes[lane];
	return peer < tp->cfg.size && l->conn_of[peer] >= 0 ? &l->conns[l->conn_of[peer]] : NULL;
}

static void *wr_tag(struct conn *c, int kind)
{
	return (void *)((uintptr_t)c | (uintptr_t)kind);
}

/* Write mode: one zero-length RECV per notification the peer may send. */
static int post_notify_recvs(struct conn *c, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		struct ibv_recv_wr wr = { .wr_id = (uintptr_t)wr_tag(c, WR_RECV) }, *bad;
		if (ibv_post_recv(c->id->qp, &wr, &bad))
			return -1;
		c->rq_used++;
	}
	return 0;
}

static int create_qp(struct lb_tp *tp, struct conn *c, char *err, size_t len)
{
	struct lane *l = &tp->lanes[c->lane];
	uint32_t depth = l->max_wr < QP_DEPTH ? l->max_wr : QP_DEPTH;
	struct ibv_qp_init_attr qa = {
		.send_cq = l->cq, .recv_cq = l->cq, .qp_type = IBV_QPT_RC, .sq_sig_all = 0,
		.cap = { .max_send_wr = depth, .max_recv_wr = depth, .max_send_sge = 1,
			 .max_recv_sge = 1, .max_inline_data = INLINE_WANT },
	};
	if (c->id->verbs != l->ctx)
		return lb_errf(err, len, "rdma lane '%s': the connection with rank %u uses device %s, not the lane's %s (check the routing of the lane's address)",
			       l->name, c->peer, ibv_get_device_name(c->id->verbs->device), l->dev);
	if (rdma_create_qp(c->id, l->pd, &qa)) {
		qa.cap.max_inline_data = 0; /* a device without inline support */
		if (rdma_create_qp(c->id, l->pd, &qa))
			return lb_errf(err, len, "rdma lane '%s': cannot create a QP for rank %u on %s: %s",
				       l->name, c->peer, l->dev, strerror(errno));
	}
	c->max_inline = qa.cap.max_inline_data;
	c->depth = depth;
	if (tp->mode == OP_WRITE && post_notify_recvs(c, depth))
		return lb_errf(err, len, "rdma lane '%s': cannot post receives for rank %u: %s",
			       l->name, c->peer, strerror(errno));
	return 0;
}

static struct rdma_conn_param conn_param(const void *pd, uint8_t pdlen)
{
	return (struct rdma_conn_param){ .private_data = pd, .private_data_len = pdlen,
					 .retry_count = 7, .rnr_retry_count = 7 };
}

/* Starts resolving the peer's address from the lane's own. */
static void start_connect(struct lb_tp *tp, struct conn *c)
{
	struct lane *l = &tp->lanes[c->lane];
	struct sockaddr_in src = { .sin_family = AF_INET, .sin_addr.s_addr = l->ip };
	struct sockaddr_in dst = { .sin_family = AF_INET, .sin_addr.s_addr = c->remote.ip,
				   .sin_port = c->remote.port };
	c->state = CONN_RESOLVING;
	if (rdma_create_id(tp->ec, &c->id, c, RDMA_PS_TCP) ||
	    rdma_resolve_addr(c->id, (struct sockaddr *)&src, (struct sockaddr *)&dst, CM_TIMEOUT_MS)) {
		snprintf(c->last_err, sizeof(c->last_err), "rdma_resolve_addr: %s", strerror(errno));
		c->state = CONN_RETRY;
	}
}

static void drop_id(struct conn *c)
{
	if (c->id) {
		if (c->id->qp)
			rdma_destroy_qp(c->id);
		rdma_destroy_id(c->id);
		c->id = NULL;
	}
	c->sq_used = c->rq_used = 0;
}

/* A lost packet costs one local ACK timeout before the retransmission;
 * rdma_cm's RoCE default (~0.5 s) would turn one drop into a visible
 * stall, 67 ms (perftest's default too) is far above a round trip on a
 * real fabric.  Not under emulation: a timeout shorter than a stalled
 * round trip retransmits what was never lost, and Soft-RoCE's retry path
 * (Linux 6.1) can then re-send a write the responder refuses as an invalid
 * request -- hence --tp-opt ack-timeout.  Best effort: kernels before 5.x
 * lack the option. */
static void ack_timeout(const struct lb_tp *tp, struct rdma_cm_id *id)
{
	uint8_t t = tp->ack_timeout;
	(void)rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &t, sizeof(t));
}

static void rnr_timer(struct conn *c)
{
	struct ibv_qp_attr a = { .min_rnr_timer = RNR_TIMER };
	(void)ibv_modify_qp(c->id->qp, &a, IBV_QP_MIN_RNR_TIMER); /* best effort */
}

static uint32_t mbox_rkey(const struct lb_tp *tp, const struct conn *c)
{
	return c->mbox ? tp->lanes[c->lane].mbox_mr->rkey : 0;
}

/* The mailbox is used both ways or not at all: each side's credits go
 * back into the other's. */
static void pair_mailboxes(struct conn *c, uint64_t remote, uint32_t rkey)
{
	if (!c->mbox || !remote) {
		c->mbox = NULL;
		remote = 0;
	}
	c->rmbox = remote;
	c->rmbox_rkey = rkey;
}

/* The connector learns the acceptor's mailbox from the accept. */
static void welcomed(struct conn *c, const struct rdma_cm_event *ev)
{
	const struct welcome *w = ev->param.conn.private_data;
	int ok = w && ev->param.conn.private_data_len >= sizeof(*w) &&
		 ntohl(w->magic) == WELCOME_MAGIC;
	pair_mailboxes(c, ok ? be64toh(w->mbox) : 0, ok ? ntohl(w->mbox_rkey) : 0);
}

static int route_resolved(struct lb_tp *tp, struct conn *c, char *err, size_t len)
{
	struct hello h = { htonl(HELLO_MAGIC), htonl(tp->cfg.rank), htonl(c->lane), htonl(tp->mode),
			   htobe64(tp->token), htobe64((uint64_t)(uintptr_t)c->mbox),
			   htonl(mbox_rkey(tp, c)), 0 };
	struct rdma_conn_param p = conn_param(&h, sizeof(h));
	if (create_qp(tp, c, err, len))
		return -1;
	if (rdma_connect(c->id, &p)) {
		snprintf(c->last_err, sizeof(c->last_err), "rdma_connect: %s", strerror(errno));
		c->state = CONN_RETRY;
		return 0;
	}
	c->state = CONN_CONNECTING;
	return 0;
}

/* Why an incoming request is refused, or NULL to accept it. */
static const char *check_hello(struct lb_tp *tp, struct lane *l, const struct rdma_cm_event *ev,
			       uint32_t *rank)
{
	const struct hello *h = ev->param.conn.private_data;
	if (ev->param.conn.private_data_len < sizeof(*h) || ntohl(h->magic) != HELLO_MAGIC)
		return "not a lanebench connection";
	if (be64toh(h->token) != tp->token)
		return "wrong job token";
	if (ntohl(h->mode) != (uint32_t)tp->mode)
		return "the ranks disagree on --tp-opt op";
	*rank = ntohl(h->rank);
	uint32_t lane = (uint32_t)(l - tp->lanes);
	struct conn *c = ntohl(h->lane) == lane ? conn_for(tp, lane, *rank) : NULL;
	if (!c || c->connector || c->id)
		return "unexpected rank on this lane";
	return NULL;
}

static int on_request(struct lb_tp *tp, struct rdma_cm_event *ev, char *err, size_t len)
{
	struct lane *l = ev->listen_id->context;
	uint32_t rank = 0;
	const char *why = check_hello(tp, l, ev, &rank);
	if (why) {
		struct reject r = { htonl(REJECT_MAGIC), "" };
		snprintf(r.why, sizeof(r.why), "%s", why);
		fprintf(stderr, "lanebench: rdma lane '%s': refused a connection: %s\n", l->name, why);
		rdma_reject(ev->id, &r, sizeof(r));
		return 1; /* the caller destroys the id after the ack */
	}
	struct conn *c = conn_for(tp, (uint32_t)(l - tp->lanes), rank);
	const struct hello *h = ev->param.conn.private_data;
	pair_mailboxes(c, be64toh(h->mbox), ntohl(h->mbox_rkey)); /* so the welcome says whether */
	struct welcome w = { htonl(WELCOME_MAGIC), htonl(mbox_rkey(tp, c)),
			     htobe64((uint64_t)(uintptr_t)c->mbox) };
	struct rdma_conn_param p = conn_param(&w, sizeof(w));
	c->id = ev->id;
	c->id->context = c;
	ack_timeout(tp, c->id);
	if (create_qp(tp, c, err, len))
		return -1;
	if (rdma_accept(c->id, &p))
		return lb_errf(err, len, "rdma lane '%s': cannot accept rank %u: %s", l->name, rank,
			       strerror(errno));
	c->state = CONN_CONNECTING;
	return 0;
}

/* A refusal from our own peer is final; anything else is retried. */
static int on_rejected(struct lb_tp *tp, struct conn *c, const struct rdma_cm_event *ev,
		       char *err, size_t len)
{
	const struct reject *r = ev->param.conn.private_data;
	char a[INET_ADDRSTRLEN];
	if (r && ev->param.conn.private_data_len >= sizeof(*r) && ntohl(r->magic) == REJECT_MAGIC)
		return lb_errf(err, len, "rdma lane '%s': rank %u at %s:%u refused the connection: %.100s",
			       tp->lanes[c->lane].name, c->peer, ip_str(c->remote.ip, a),
			       ntohs(c->remote.port), r->why);
	snprintf(c->last_err, sizeof(c->last_err), "rejected (reason %d)", ev->status);
	c->state = CONN_RETRY;
	return 0;
}

static int is_listener(const struct lb_tp *tp, const struct rdma_cm_id *id)
{
	for (uint32_t l = 0; l < tp->cfg.lanes; l++)
		if (tp->lanes[l].listen == id)
			return 1;
	return 0;
}

static int on_event(struct lb_tp *tp, struct rdma_cm_event *ev, char *err, size_t len)
{
	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		return on_request(tp, ev, err, len);
	if (is_listener(tp, ev->id))
		return 0;
	struct conn *c = ev->id->context;
	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		ack_timeout(tp, c->id);
		if (rdma_resolve_route(c->id, CM_TIMEOUT_MS)) {
			snprintf(c->last_err, sizeof(c->last_err), "rdma_resolve_route: %s", strerror(errno));
			c->state = CONN_RETRY;
		}
		return 0;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		return route_resolved(tp, c, err, len);
	case RDMA_CM_EVENT_ESTABLISHED:
		if (c->connector)
			welcomed(c, ev);
		c->state = CONN_UP;
		rnr_timer(c);
		return 0;
	case RDMA_CM_EVENT_REJECTED:
		return c->connector ? on_rejected(tp, c, ev, err, len) : 0;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_DISCONNECTED:
		snprintf(c->last_err, sizeof(c->last_err), "%s (status %d)", rdma_event_str(ev->event),
			 ev->status);
		if (c->connector) {
			c->state = CONN_RETRY;
			return 0;
		}
		c->state = CONN_IDLE; /* the connector tries again; forget this attempt */
		return 1;
	default:
		return 0;
	}
}

/* Handles every queued CM event; ids to drop are dropped after the ack. */
static int cm_events(struct lb_tp *tp, char *err, size_t len)
{
	struct rdma_cm_event *ev;
	while (rdma_get_cm_event(tp->ec, &ev) == 0) {
		struct rdma_cm_id *id = ev->id;
		int rejected_request = ev->event == RDMA_CM_EVENT_CONNECT_REQUEST;
		int rc = on_event(tp, ev, err, len);
		rdma_ack_cm_event(ev);
		if (rc < 0)
			return -1;
		if (rc == 1 && rejected_request) {
			rdma_destroy_id(id);
		} else if (rc == 1) {
			struct conn *c = id->context;
			drop_id(c);
		}
	}
	return errno == EAGAIN || errno == EWOULDBLOCK ? 0
		: lb_errf(err, len, "rdma: rdma_get_cm_event: %s", strerror(errno));
}

/* A mailbox per peer, zeroed (no slot's flag is a count yet), registered. */
static int offer_mailboxes(struct lane *l, uint32_t np, char *err, size_t len)
{
	size_t bytes = ((size_t)np * sizeof(struct mbox) + 4095) / 4096 * 4096;
	if (!(l->mboxes = aligned_alloc(4096, bytes)))
		return lb_errf(err, len, "rdma: out of memory");
	memset(l->mboxes, 0, bytes);
	l->mbox_mr = ibv_reg_mr(l->pd, l->mboxes, bytes, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!l->mbox_mr)
		return lb_errf(err, len, "rdma lane '%s': cannot register %zu bytes of mailboxes on %s: %s",
			       l->name, bytes, l->dev, strerror(errno));
	return 0;
}

/* Per lane: a CQ for all its QPs (and a channel to sleep on), then one
 * connection slot per peer. */
static int setup_lane(struct lb_tp *tp, uint32_t lane, const struct lb_tp_peers *peers,
		      const uint8_t *all, char *err, size_t len)
{
	struct lane *l = &tp->lanes[lane];
	uint32_t np = peers->npeers[lane];
	int cqe = (int)(np * 2 * QP_DEPTH + 16);
	if (cqe > l->max_cqe)
		return lb_errf(err, len, "rdma lane '%s': %u peers need %d CQ entries, %s has %d",
			       l->name, np, cqe, l->dev, l->max_cqe);
	if (!(l->ch = ibv_create_comp_channel(l->ctx)))
		return lb_errf(err, len, "rdma lane '%s': ibv_create_comp_channel: %s", l->name, strerror(errno));
	fcntl(l->ch->fd, F_SETFL, fcntl(l->ch->fd, F_GETFL) | O_NONBLOCK); /* arm() takes events */
	if (!(l->cq = ibv_create_cq(l->ctx, cqe, NULL, l->ch, 0)))
		return lb_errf(err, len, "rdma lane '%s': cannot create a CQ of %d entries: %s", l->name,
			       cqe, strerror(errno));
	l->conns = calloc(np + 1, sizeof(*l->conns));
	l->conn_of = malloc(tp->cfg.size * sizeof(*l->conn_of));
	if (!l->conns || !l->conn_of)
		return lb_errf(err, len, "rdma: out of memory");
	memset(l->conn_of, 0xff, tp->cfg.size * sizeof(*l->conn_of));
	if (tp->mailbox && np && offer_mailboxes(l, np, err, len))
		return -1;
	for (uint32_t i = 0; i < np; i++) {
		uint32_t p = peers->peers[lane][i];
		const struct blob *b = (const void *)(all + ((size_t)p * tp->cfg.lanes + lane) * LB_TP_ADDR_MAX);
		struct conn *c = &l->conns[l->nconns];
		*c = (struct conn){ .tp = tp, .lane = lane, .peer = p, .connector = p > tp->cfg.rank,
				    .mbox = l->mboxes ? &l->mboxes[i] : NULL };
		c->remote = (struct blob){ .ip = b->ip, .port = b->port, .has_mr = ntohs(b->has_mr),
					   .rkey = ntohl(b->rkey), .max_msg = ntohl(b->max_msg),
					   .addr = be64toh(b->addr), .len = be64toh(b->len) };
		c->chunk = c->remote.max_msg && c->remote.max_msg < l->max_msg ? c->remote.max_msg : l->max_msg;
		if (tp->mode == OP_WRITE && (!c->remote.has_mr || !l->mr))
			return lb_errf(err, len, "rdma lane '%s': write mode needs the buffers registered before connecting (rank %u's is not)",
				       l->name, l->mr ? p : tp->cfg.rank);
		l->conn_of[p] = (int32_t)l->nconns++;
	}
	return 0;
}

static int setup_done(struct lb_tp *tp)
{
	for (uint32_t l = 0; l < tp->cfg.lanes; l++)
		for (uint32_t i = 0; i < tp->lanes[l].nconns; i++)
			if (tp->lanes[l].conns[i].state != CONN_UP)
				return 0;
	return 1;
}

/* Where a missing connection stood when setup gave up: a port cabled
 * into the wrong switch never resolves its peer's address -- or, with the
 * address still cached from before, sends a request nobody answers. */
static const char *conn_stage(const struct conn *c)
{
	if (!c->connector)
		return c->state == CONN_IDLE ? " (no request came)" : " (accepted, never established)";
	if (c->state == CONN_RESOLVING)
		return " (resolving its address and route)";
	return c->state == CONN_CONNECTING ? " (the connection request unanswered)" : "";
}

/* Names the first connection still missing. */
static int setup_timeout(struct lb_tp *tp, char *err, size_t len)
{
	char a[INET_ADDRSTRLEN];
	for (uint32_t l = 0; l < tp->cfg.lanes; l++)
		for (uint32_t i = 0; i < tp->lanes[l].nconns; i++) {
			struct conn *c = &tp->lanes[l].conns[i];
			if (c->state == CONN_UP)
				continue;
			return lb_errf(err, len, "rdma lane '%s': timeout after %.0f s %s rank %u at %s:%u%s%s%s",
				       tp->lanes[l].name, tp->cfg.timeout,
				       c->connector ? "connecting to" : "waiting for",
				       c->peer, ip_str(c->remote.ip, a), ntohs(c->remote.port),
				       conn_stage(c), c->last_err[0] ? ": last error: " : "", c->last_err);
		}
	return lb_errf(err, len, "rdma: connection setup timed out");
}

static void start_due(struct lb_tp *tp)
{
	double t = now();
	for (uint32_t l = 0; l < tp->cfg.lanes; l++)
		for (uint32_t i = 0; i < tp->lanes[l].nconns; i++) {
			struct conn *c = &tp->lanes[l].conns[i];
			if (c->state == CONN_RETRY) {
				drop_id(c);
				c->state = CONN_IDLE;
				c->retry_at = t + 0.1;
			}
			if (c->connector && c->state == CONN_IDLE && t >= c->retry_at)
				start_connect(tp, c);
		}
}

/* arm()'s fd: an epoll set over the lane's completion channel and its CM
 * channel. */
static int watch_lane(struct lane *l, char *err, size_t len)
{
	struct epoll_event ch = { .events = EPOLLIN }, cm = { .events = EPOLLIN };
	if ((l->epfd = epoll_create1(EPOLL_CLOEXEC)) < 0 ||
	    epoll_ctl(l->epfd, EPOLL_CTL_ADD, l->ch->fd, &ch) ||
	    epoll_ctl(l->epfd, EPOLL_CTL_ADD, l->cm->fd, &cm))
		return lb_errf(err, len, "rdma lane '%s': epoll: %s", l->name, strerror(errno));
	return 0;
}

/* After setup each lane's connections move to a channel of the lane's own,
 * which its thread watches: a peer that exits or dies disconnects, and a
 * rank that only waits to receive from it would otherwise never know (no
 * work request of its own fails). */
static int watch_peers(struct lb_tp *tp, char *err, size_t len)
{
	for (uint32_t i = 0; i < tp->cfg.lanes; i++) {
		struct lane *l = &tp->lanes[i];
		if (!(l->cm = rdma_create_event_channel()))
			return lb_errf(err, len, "rdma lane '%s': rdma_create_event_channel: %s", l->name,
				       strerror(errno));
		fcntl(l->cm->fd, F_SETFL, fcntl(l->cm->fd, F_GETFL) | O_NONBLOCK);
		for (uint32_t k = 0; k < l->nconns; k++)
			if (rdma_migrate_id(l->conns[k].id, l->cm))
				return lb_errf(err, len, "rdma lane '%s': rdma_migrate_id (rank %u): %s",
					       l->name, l->conns[k].peer, strerror(errno));
		if (watch_lane(l, err, len))
			return -1;
	}
	return 0;
}

static int rdma_connect_all(struct lb_tp *tp, const uint8_t *all, const struct lb_tp_peers *peers,
			    char *err, size_t len)
{
	for (uint32_t l = 0; l < tp->cfg.lanes; l++)
		if (setup_lane(tp, l, peers, all, err, len))
			return -1;
	int fd = tp->ec->fd;
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	double deadline = now() + tp->cfg.timeout;
	while (!setup_done(tp)) {
		if (now() > deadline)
			return setup_timeout(tp, err, len);
		start_due(tp);
		struct pollfd pf = { fd, POLLIN, 0 };
		if (poll(&pf, 1, 20) < 0 && errno != EINTR)
			return lb_errf(err, len, "rdma: poll: %s", strerror(errno));
		if (cm_events(tp, err, len))
			return -1;
	}
	return watch_peers(tp, err, len);
}

/* ---- data path ------------------------------------------------------------ */

static struct msg *fifo_at(struct lb_ring *q, uint32_t i)
{
	return lb_ring_at(q, i, sizeof(struct msg));
}

/* The lane's first failure sticks: code -1, or LB_EPEER (the peer is gone). */
static int lane_vfail(struct lb_tp *tp, uint32_t lane, int code, const char *fmt, va_list ap)
{
	struct lane *l = &tp->lanes[lane];
	if (!l->err[0]) {
		vsnprintf(l->err, sizeof(l->err), fmt, ap);
		l->err_code = code;
	}
	return code;
}

static int lane_fail(struct lb_tp *tp, uint32_t lane, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int lane_fail(struct lb_tp *tp, uint32_t lane, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = lane_vfail(tp, lane, -1, fmt, ap);
	va_end(ap);
	return rc;
}

static int lane_fail_as(struct lb_tp *tp, uint32_t lane, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int lane_fail_as(struct lb_tp *tp, uint32_t lane, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = lane_vfail(tp, lane, code, fmt, ap);
	va_end(ap);
	return rc;
}

/* An inline WR's bytes are copied when it is posted, so a message sent
 * in one inline WR is complete then: poll() reports it without waiting
 * for the peer's ack, and the WR goes unsignaled (on Soft-RoCE each
 * completion costs the kernel a CQE and the poller a WC).  One in
 * depth / 2 still asks for a completion, which frees the send queue's
 * slots of the unsignaled WRs before it (a QP completes in order); WRs
 * that read the buffer at the NIC's pace are always signaled. */
static int signal_wr(const struct conn *c, int early)
{
	return !early || c->unsignaled + 1 >= c->depth / 2;
}

/* Drops the messages at the head of the send queue that are complete. */
static void pop_done_sends(struct conn *c)
{
	while (c->sidx > 0) {
		const struct msg *m = fifo_at(&c->sendq, 0);
		if (m->done < m->chunks)
			return;
		lb_ring_pop(&c->sendq);
		c->sidx--;
	}
}

/* The WR of m's next chunk: into place in the peer's buffer (write
 * mode), the last chunk with the message's code as immediate data. */
static struct ibv_send_wr chunk_wr(const struct lb_tp *tp, struct conn *c, const struct msg *m,
				   struct ibv_sge *sge, int early)
{
	const struct lane *l = &tp->lanes[c->lane];
	uint64_t at = m->posted * c->chunk, n = m->len - at < c->chunk ? m->len - at : c->chunk;
	int last = m->posted + 1 == m->chunks;
	*sge = (struct ibv_sge){ (uintptr_t)(tp->buf + m->off + at), (uint32_t)n, l->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = (uintptr_t)wr_tag(c, early ? WR_EARLY : WR_SEND),
				  .sg_list = sge, .num_sge = n ? 1 : 0,
				  .send_flags = signal_wr(c, early) ? IBV_SEND_SIGNALED : 0 };
	if (n <= c->max_inline)
		wr.send_flags |= IBV_SEND_INLINE;
	if (tp->mode == OP_WRITE) {
		wr.opcode = last ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE;
		wr.wr.rdma.remote_addr = c->remote.addr + m->off + at;
		wr.wr.rdma.rkey = c->remote.rkey;
	} else {
		wr.opcode = last ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND;
	}
	wr.imm_data = htonl(m->code);
	return wr;
}

/* Posts one send WR; a signaled one records the WRs its completion
 * frees.  early: the id of the message this WR completes at posting
 * (reported by the next poll), or NULL. */
static int post_wr(struct lb_tp *tp, struct conn *c, struct ibv_send_wr *wr, const uint32_t *early)
{
	struct lane *l = &tp->lanes[c->lane];
	struct ibv_send_wr *bad;
	uint32_t cover = c->unsignaled + 1;
	int sig = (wr->send_flags & IBV_SEND_SIGNALED) != 0;
	if ((sig && lb_ring_push(&c->covers, &cover, sizeof(cover))) ||
	    (early && lb_ring_push(&l->early, early, sizeof(*early))))
		return lane_fail(tp, c->lane, "rdma lane '%s': out of memory posting a send to rank %u",
				 l->name, c->peer);
	int e = ibv_post_send(c->id->qp, wr, &bad);
	if (e)
		return lane_fail(tp, c->lane, "rdma lane '%s': posting a send to rank %u failed: %s",
				 l->name, c->peer, strerror(e));
	c->sq_used++;
	c->unsignaled = sig ? 0 : c->unsignaled + 1;
	return 0;
}

/* Posts m's next chunk. */
static int post_chunk(struct lb_tp *tp, struct conn *c, struct msg *m)
{
	int early = m->chunks == 1 && m->len <= c->max_inline;
	struct ibv_sge sge;
	struct ibv_send_wr wr = chunk_wr(tp, c, m, &sge, early);
	if (post_wr(tp, c, &wr, early ? &m->id : NULL))
		return -1;
	m->done += early;
	return 0;
}

/* An inline RDMA WRITE of `bytes` at `from` (copied when posted) to the
 * peer's mailbox memory at `to`. */
static struct ibv_send_wr mailbox_wr(const struct conn *c, struct ibv_sge *sge, const void *from,
				     uint32_t bytes, uint64_t to)
{
	*sge = (struct ibv_sge){ (uintptr_t)from, bytes, 0 }; /* inline: no key needed */
	struct ibv_send_wr wr = { .wr_id = (uintptr_t)wr_tag((struct conn *)c, WR_EARLY),
				  .sg_list = sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
				  .send_flags = IBV_SEND_INLINE | (signal_wr(c, 1) ? IBV_SEND_SIGNALED : 0) };
	wr.wr.rdma.remote_addr = to;
	wr.wr.rdma.rkey = c->rmbox_rkey;
	return wr;
}

static void count(uint64_t *counter)
{
	__atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
}

/* What the peer freed of my mailbox messages: it says so in the word it
 * writes, and in each mailbox message it sends (found_mailbox). */
static void heard_freed(struct conn *c, uint64_t freed)
{
	if (freed > c->mb_freed)
		c->mb_freed = freed;
}

/* Whether m goes through the mailbox. */
static int by_mailbox(const struct conn *c, const struct msg *m)
{
	return c->rmbox && m->len <= MBOX_DATA && c->max_inline >= SLOT_HEAD + m->len;
}

/* m as one mailbox slot: its bytes, the header (with what this side
 * freed of the peer's), the flag last.  1: the peer's ring is full. */
static int post_mailbox(struct lb_tp *tp, struct conn *c, struct msg *m)
{
	heard_freed(c, __atomic_load_n(&c->mbox->credit, __ATOMIC_ACQUIRE));
	if (c->mb_sent - c->mb_freed >= MBOX_SLOTS)
		return 1;
	struct slot s;
	uint64_t skip = MBOX_DATA - m->len; /* the slot's bytes before the message's */
	memcpy(s.data + skip, tp->buf + m->off, m->len);
	s.code = m->code, s.len = (uint32_t)m->len, s.seq = m->seq, s.pad = 0;
	s.credit = c->mb_taken;
	s.flag = c->mb_sent + 1;
	struct ibv_sge sge;
	struct ibv_send_wr wr = mailbox_wr(c, &sge, s.data + skip, (uint32_t)(MBOX_SLOT - skip),
					   c->rmbox + (c->mb_sent % MBOX_SLOTS) * sizeof(s) + skip);
	if (post_wr(tp, c, &wr, &m->id))
		return -1;
	c->mb_sent++;
	c->mb_told = c->mb_taken;
	m->done++;
	count(&tp->lanes[c->lane].mb_sends);
	return 0;
}

/* Tells the peer what this side freed of its mailbox messages, when half
 * a ring went untold (and the send queue has room). */
static int tell_freed(struct lb_tp *tp, struct conn *c)
{
	if (c->mb_taken - c->mb_told < MBOX_SLOTS / 2 || c->sq_used >= c->depth)
		return 0;
	uint64_t freed = c->mb_taken;
	struct ibv_sge sge;
	struct ibv_send_wr wr = mailbox_wr(c, &sge, &freed, sizeof(freed),
					   c->rmbox + offsetof(struct mbox, credit));
	if (post_wr(tp, c, &wr, NULL))
		return -1;
	c->mb_told = freed;
	count(&tp->lanes[c->lane].credit_writes);
	return 0;
}

/* Posts as many WRs of the queued sends as the send queue (and, for a
 * mailbox message, the peer's ring) takes. */
static int pump_sends(struct lb_tp *tp, struct conn *c)
{
	while (c->sidx < c->sendq.count && c->sq_used < c->depth) {
		struct msg *m = fifo_at(&c->sendq, c->sidx);
		int rc = by_mailbox(c, m) ? post_mailbox(tp, c, m) : post_chunk(tp, c, m);
		if (rc < 0)
			return -1;
		if (rc > 0)
			break; /* the ring is full: a later poll tries again */
		if (++m->posted == m->chunks)
			c->sidx++;
	}
	pop_done_sends(c);
	return 0;
}

/* Send mode: posts the queued receives' chunk RECVs as room allows. */
static int pump_recvs(struct lb_tp *tp, struct conn *c)
{
	struct lane *l = &tp->lanes[c->lane];
	while (c->ridx < c->recvq.count && c->rq_used < c->depth) {
		struct msg *m = fifo_at(&c->recvq, c->ridx);
		uint64_t at = m->posted * c->chunk, n = m->len - at < c->chunk ? m->len - at : c->chunk;
		struct ibv_sge sge = { (uintptr_t)(tp->buf + m->off + at), (uint32_t)n, l->mr->lkey };
		struct ibv_recv_wr wr = { .wr_id = (uintptr_t)wr_tag(c, WR_RECV), .sg_list = &sge,
					  .num_sge = n ? 1 : 0 }, *bad;
		int e = ibv_post_recv(c->id->qp, &wr, &bad);
		if (e)
			return lane_fail(tp, c->lane, "rdma lane '%s': posting a receive from rank %u failed: %s",
					 l->name, c->peer, strerror(e));
		c->rq_used++;
		if (++m->posted == m->chunks)
			c->ridx++;
	}
	return 0;
}

/* Why a transfer with the peer cannot be queued, or 0 when it can. */
static int refuse(struct lb_tp *tp, const struct conn *c, uint32_t lane, uint32_t peer,
		  uint64_t off, uint64_t len, int send, char *err, size_t errlen)
{
	const char *name = tp->lanes[lane].name;
	if (!tp->buf)
		return lb_errf(err, errlen, "rdma lane '%s': no buffer registered", name);
	if (lb_tp_check_range("rdma", name, off, len, tp->buflen, err, errlen))
		return -1;
	if (!c)
		return lb_errf(err, errlen, "rdma lane '%s': no connection with rank %u (not a peer of the lane when it connected)",
			       name, peer);
	if (c->state != CONN_UP)
		return lb_errf(err, errlen, "rdma lane '%s': the connection with rank %u is not up",
			       name, peer);
	/* The peer's MR would refuse a write beyond its buffer. */
	if (send && tp->mode == OP_WRITE && (off > c->remote.len || len > c->remote.len - off))
		return lb_errf(err, errlen, "rdma lane '%s': bytes [%llu,+%llu) are not inside rank %u's %llu-byte buffer",
			       name, (unsigned long long)off, (unsigned long long)len, peer,
			       (unsigned long long)c->remote.len);
	return 0;
}

static int rdma_post(struct lb_tp *tp, uint32_t lane, enum lb_xfer_kind kind, uint32_t peer,
		     uint64_t off, uint64_t len, uint32_t id, char *err, size_t errlen)
{
	int send = kind == LB_XFER_SEND;
	struct conn *c = conn_for(tp, lane, peer);
	if (refuse(tp, c, lane, peer, off, len, send, err, errlen))
		return -1;
	struct lb_ring *q = send ? &c->sendq : &c->recvq;
	if (q->count >= QUEUE_MAX)
		return 1;
	uint32_t seq = send ? c->send_seq++ : c->recv_seq++;
	struct msg m = { .off = off, .len = len, .id = id, .code = msg_code(seq, off, len),
			 .seq = seq, .chunks = chunks_of(len, c->chunk) };
	if (lb_ring_push(q, &m, sizeof(m)))
		return lb_errf(err, errlen, "rdma lane '%s': out of memory queueing a %s with rank %u",
			       tp->lanes[lane].name, send ? "send" : "receive", peer);
	/* A failure to post is kept in the lane and reported by the next poll. */
	if (send)
		(void)pump_sends(tp, c);
	else if (tp->mode == OP_SEND)
		(void)pump_recvs(tp, c);
	return 0;
}

static int arrive(struct lb_tp *tp, struct conn *c, uint32_t code, int32_t slot)
{
	struct arrival a = { code, slot };
	if (lb_ring_push(&c->arrived, &a, sizeof(a)))
		return -1;
	tp->lanes[c->lane].arrived++;
	c->arrivals++;
	return 0;
}

/* The peer's mailbox messages that arrived, in order: each slot whose
 * flag is the next count, while its sequence number is the next message's
 * (one sent before it with immediate data waits in the CQ: it goes first). */
static int found_mailbox(struct lb_tp *tp, struct conn *c)
{
	while (c->mbox) {
		const struct slot *s = &c->mbox->slot[c->mb_seen % MBOX_SLOTS];
		if (__atomic_load_n(&s->flag, __ATOMIC_ACQUIRE) != c->mb_seen + 1 || s->seq != c->arrivals)
			return 0;
		heard_freed(c, s->credit);
		if (arrive(tp, c, s->code, (int32_t)(c->mb_seen % MBOX_SLOTS)))
			return lane_fail(tp, c->lane, "rdma lane '%s': out of memory taking a message from rank %u",
					 tp->lanes[c->lane].name, c->peer);
		c->mb_seen++;
		count(&tp->lanes[c->lane].mb_recvs);
	}
	return 0;
}

/* A matched mailbox message into place; its slot is free then. */
static int take_slot(struct lb_tp *tp, struct conn *c, const struct msg *m, int32_t slot)
{
	const struct slot *s = &c->mbox->slot[slot];
	if (s->len != m->len || s->len > MBOX_DATA)
		return -1;
	memcpy(tp->buf + m->off, s->data + (MBOX_DATA - s->len), s->len);
	c->mb_taken++;
	return 0;
}

static int out_of_step(struct lb_tp *tp, struct conn *c, const struct msg *m)
{
	return lane_fail(tp, c->lane, "rdma lane '%s': rank %u sent a message other than the receive posted for bytes [%llu,+%llu) (out of step)",
			 tp->lanes[c->lane].name, c->peer, (unsigned long long)m->off,
			 (unsigned long long)m->len);
}

/* Write mode: completes posted receives whose notification arrived. */
static int settle(struct lb_tp *tp, struct conn *c, struct lb_completion *out, int *n, int max)
{
	const struct arrival *a;
	while (*n < max && c->recvq.count && (a = lb_ring_at(&c->arrived, 0, sizeof(*a)))) {
		struct msg *m = fifo_at(&c->recvq, 0);
		if (a->code != m->code || (a->slot >= 0 && take_slot(tp, c, m, a->slot)))
			return out_of_step(tp, c, m);
		out[(*n)++] = (struct lb_completion){ m->id, LB_XFER_RECV };
		lb_ring_pop(&c->arrived);
		lb_ring_pop(&c->recvq);
		tp->lanes[c->lane].arrived--;
	}
	return 0;
}

/* A signaled send WR completed: the WRs it covers leave the send queue,
 * and unless its message was complete at posting, a chunk of the oldest
 * message still waiting is done (the messages before it are). */
static int send_done(struct lb_tp *tp, struct conn *c, int early, struct lb_completion *out, int *n)
{
	const uint32_t *cover = lb_ring_at(&c->covers, 0, sizeof(*cover));
	c->sq_used -= *cover;
	lb_ring_pop(&c->covers);
	if (!early) {
		pop_done_sends(c);
		struct msg *m = fifo_at(&c->sendq, 0);
		if (++m->done == m->chunks) {
			out[(*n)++] = (struct lb_completion){ m->id, LB_XFER_SEND };
			pop_done_sends(c);
		}
	}
	return pump_sends(tp, c);
}

/* Send mode: a chunk of the oldest posted receive arrived. */
static int recv_done(struct lb_tp *tp, struct conn *c, const struct ibv_wc *wc,
		     struct lb_completion *out, int *n)
{
	struct msg *m = fifo_at(&c->recvq, 0);
	uint64_t at = m->done * c->chunk, want = m->len - at < c->chunk ? m->len - at : c->chunk;
	c->rq_used--;
	if (wc->byte_len != want)
		return out_of_step(tp, c, m);
	if (++m->done < m->chunks)
		return 0;
	if (!(wc->wc_flags & IBV_WC_WITH_IMM) || ntohl(wc->imm_data) != m->code)
		return out_of_step(tp, c, m);
	out[(*n)++] = (struct lb_completion){ m->id, LB_XFER_RECV };
	lb_ring_pop(&c->recvq);
	c->ridx--;
	return pump_recvs(tp, c);
}

/* Statuses that mean the peer is gone: the QP gave up retrying (no ack,
 * or no receive posted), or was flushed after its connection broke. */
static int peer_gone_status(enum ibv_wc_status s)
{
	return s == IBV_WC_RETRY_EXC_ERR || s == IBV_WC_RNR_RETRY_EXC_ERR ||
	       s == IBV_WC_WR_FLUSH_ERR || s == IBV_WC_REM_ABORT_ERR;
}

/* A failed work request: which transfer it belonged to (the oldest one
 * not completed: a QP completes its WRs in order), so a refusal can be
 * traced to the bytes and the chunk that caused it. */
static int wc_failed(struct lb_tp *tp, uint32_t lane, const struct ibv_wc *wc, struct conn *c)
{
	int kind = (int)((uintptr_t)wc->wr_id & WR_KINDS), recv = kind == WR_RECV;
	struct lb_ring *q = recv ? &c->recvq : &c->sendq;
	char what[128] = "";
	if (kind == WR_EARLY) {
		snprintf(what, sizeof(what), " (an inline %s of at most %u bytes, reported complete when posted)",
			 tp->mode == OP_WRITE ? "RDMA WRITE" : "SEND", c->max_inline);
	} else if (q->count && (!recv || tp->mode == OP_SEND)) {
		const struct msg *m = fifo_at(q, 0);
		snprintf(what, sizeof(what), " of bytes [%llu,+%llu) (chunk %u of %u, %s)",
			 (unsigned long long)m->off, (unsigned long long)m->len, m->done + 1,
			 m->chunks, tp->mode == OP_WRITE ? "RDMA WRITE" : "SEND");
	}
	return lane_fail_as(tp, lane, peer_gone_status(wc->status) ? LB_EPEER : -1,
			    "rdma lane '%s': %s%s with rank %u failed: %s (status %d, vendor error 0x%x)",
			    tp->lanes[lane].name, recv ? "receive" : "send", what, c->peer,
			    ibv_wc_status_str(wc->status), wc->status, wc->vendor_err);
}

static int one_wc(struct lb_tp *tp, uint32_t lane, const struct ibv_wc *wc,
		  struct lb_completion *out, int *n, int max)
{
	uintptr_t kind = (uintptr_t)wc->wr_id & WR_KINDS;
	struct conn *c = (struct conn *)((uintptr_t)wc->wr_id & ~(uintptr_t)WR_KINDS);
	if (wc->status != IBV_WC_SUCCESS)
		return wc_failed(tp, lane, wc, c);
	if (kind != WR_RECV)
		return send_done(tp, c, kind == WR_EARLY, out, n);
	if (tp->mode == OP_SEND)
		return recv_done(tp, c, wc, out, n);
	c->rq_used--;
	if (found_mailbox(tp, c)) /* the mailbox messages placed before this one */
		return -1;
	if (arrive(tp, c, ntohl(wc->imm_data), -1) || post_notify_recvs(c, 1))
		return lane_fail(tp, lane, "rdma lane '%s': cannot repost a receive for rank %u",
				 tp->lanes[lane].name, c->peer);
	/* At most one completion per WC: poll() takes no more WCs than it has
	 * room for; codes left over are settled at the start of the next poll. */
	return settle(tp, c, out, n, *n + 1 < max ? *n + 1 : max);
}

/* Data phase: any CM event on a connection means the peer went away. */
static void peer_events(struct lb_tp *tp, uint32_t lane)
{
	struct lane *l = &tp->lanes[lane];
	struct rdma_cm_event *ev;
	while (l->cm && rdma_get_cm_event(l->cm, &ev) == 0) {
		const struct conn *c = ev->id->context;
		lane_fail_as(tp, lane, LB_EPEER,
			     "rdma lane '%s': rank %u disconnected (%s): did it exit or die?",
			     l->name, c->peer, rdma_event_str(ev->event));
		rdma_ack_cm_event(ev);
	}
}

/* Sends completed when they were posted, as many as out[] takes. */
static int take_early(struct lane *l, struct lb_completion *out, int n, int max)
{
	const uint32_t *id;
	while (n < max && (id = lb_ring_at(&l->early, 0, sizeof(*id)))) {
		out[n++] = (struct lb_completion){ *id, LB_XFER_SEND };
		lb_ring_pop(&l->early);
	}
	return n;
}

/* Completions from the CQ, at most one per WC. */
static void poll_cq(struct lb_tp *tp, uint32_t lane, struct lb_completion *out, int *n, int max)
{
	struct lane *l = &tp->lanes[lane];
	while (!l->err[0] && *n < max) {
		struct ibv_wc wc[POLL_BATCH];
		int want = max - *n < POLL_BATCH ? max - *n : POLL_BATCH;
		int k = ibv_poll_cq(l->cq, want, wc);
		if (k < 0)
			lane_fail(tp, lane, "rdma lane '%s': ibv_poll_cq failed", l->name);
		for (int i = 0; i < k && !l->err[0]; i++)
			one_wc(tp, lane, &wc[i], out, n, max);
		if (k < want)
			break;
	}
}

/* A connection's mailbox chores each poll: tell the peer what was freed,
 * post the sends that waited for room in its ring. */
static void mailbox_sends(struct lb_tp *tp, struct conn *c)
{
	if (c->mbox && !tell_freed(tp, c) && c->sidx < c->sendq.count)
		(void)pump_sends(tp, c); /* a failure is kept in the lane */
}

static int rdma_poll(struct lb_tp *tp, uint32_t lane, struct lb_completion *out, int max,
		     char *err, size_t len)
{
	struct lane *l = &tp->lanes[lane];
	int n = take_early(l, out, 0, max);
	if ((++l->polls % PEER_CHECK_EVERY) == 0)
		peer_events(tp, lane);
	for (uint32_t i = 0; l->mboxes && !l->err[0] && i < l->nconns; i++)
		found_mailbox(tp, &l->conns[i]);
	/* arrivals a full out[] left over, or that came before their receive */
	for (uint32_t i = 0; l->arrived && !l->err[0] && i < l->nconns; i++)
		settle(tp, &l->conns[i], out, &n, max);
	poll_cq(tp, lane, out, &n, max);
	for (uint32_t i = 0; l->mboxes && !l->err[0] && i < l->nconns; i++)
		mailbox_sends(tp, &l->conns[i]);
	n = take_early(l, out, n, max); /* sends the CQ's completions let post */
	if (l->err[0]) {
		lb_errf(err, len, "%s", l->err);
		return l->err_code;
	}
	return n;
}

/* The event of the previous arming, if it came: taken and acked (in
 * batches: acks take a lock), so the CQ can be armed again. */
static void take_cq_event(struct lane *l)
{
	struct ibv_cq *cq;
	void *ctx;
	if (!l->armed || ibv_get_cq_event(l->ch, &cq, &ctx) != 0) /* EAGAIN: none yet */
		return;
	l->armed = 0;
	if (++l->unacked >= 64) {
		ibv_ack_cq_events(l->cq, l->unacked);
		l->unacked = 0;
	}
}

/* The CQ armed for its next completion; the lane's epoll set also holds
 * its CM channel, whose events (a peer gone) are taken here too, so the
 * failure they record reaches the poll() that follows arm(). */
static int rdma_arm(struct lb_tp *tp, uint32_t lane)
{
	struct lane *l = &tp->lanes[lane];
	peer_events(tp, lane);
	take_cq_event(l);
	if (!l->armed && ibv_req_notify_cq(l->cq, 0) == 0)
		l->armed = 1;
	return l->armed ? l->epfd : -1;
}

static double rdma_lane_rate(struct lb_tp *tp, uint32_t lane)
{
	return tp->lanes[lane].rate;
}

static int rdma_counters(struct lb_tp *tp, struct lb_tp_counter *out)
{
	out[0] = (struct lb_tp_counter){ "mailbox_sends", 0 };
	out[1] = (struct lb_tp_counter){ "mailbox_receives", 0 };
	out[2] = (struct lb_tp_counter){ "credit_writes", 0 };
	for (uint32_t i = 0; i < tp->cfg.lanes; i++) {
		const struct lane *l = &tp->lanes[i];
		out[0].value += __atomic_load_n(&l->mb_sends, __ATOMIC_RELAXED);
		out[1].value += __atomic_load_n(&l->mb_recvs, __ATOMIC_RELAXED);
		out[2].value += __atomic_load_n(&l->credit_writes, __ATOMIC_RELAXED);
	}
	return 3;
}

static void add_port_counter(struct lb_port_counters *c, const char *name, const uint64_t *value)
{
	if (c->n >= LB_PORT_COUNTERS_MAX)
		return;
	snprintf(c->c[c->n].name, sizeof(c->c[c->n].name), "%s", name);
	c->c[c->n++].value = __atomic_load_n(value, __ATOMIC_RELAXED);
}

/* Counter `name` of the lane's device port, under DIR/ of its sysfs
 * directory (hw_counters, counters); 0 when it has none. */
static uint64_t port_counter(const struct lane *l, const char *dir, const char *name)
{
	char path[256];
	unsigned long long v = 0;
	if (!l->ctx || !l->listen)
		return 0;
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%u/%s/%s", l->dev,
		 (unsigned)l->listen->port_num, dir, name);
	FILE *f = fopen(path, "r");
	if (f && fscanf(f, "%llu", &v) != 1)
		v = 0;
	if (f)
		fclose(f);
	return v;
}

/* What the device port sent again, the driver's retries: an ack timed
 * out, a sequence NAK came (Soft-RoCE's names, then mlx5's). */
static const char *const retry_counters[] = {
	"completer_retry_err", "rcvd_seq_err", "local_ack_timeout_err", "packet_seq_err",
	"implied_nak_seq_err",
};

/* The port's retransmissions and packets sent: a device port is one
 * lane's alone, and check reads them around each pair, which is then all
 * the lane carries -- so they are that pair's (transport.h). */
static void port_sent(const struct lane *l, struct lb_port_counters *c)
{
	uint64_t resent = 0, sent = port_counter(l, "hw_counters", "sent_pkts");
	for (size_t i = 0; i < sizeof(retry_counters) / sizeof(retry_counters[0]); i++)
		resent += port_counter(l, "hw_counters", retry_counters[i]);
	if (!sent)
		sent = port_counter(l, "counters", "port_xmit_packets");
	add_port_counter(c, "rdma:retransmitted", &resent);
	add_port_counter(c, "rdma:frames_sent", &sent);
}

/* The lane's part of counters(), then what its device port sent and sent
 * again; the port's errors are the device's, in sysfs (portinfo). */
static void rdma_lane_counters(struct lb_tp *tp, uint32_t lane, struct lb_port_counters *c)
{
	const struct lane *l = &tp->lanes[lane];
	add_port_counter(c, "rdma:mailbox_sends", &l->mb_sends);
	add_port_counter(c, "rdma:mailbox_receives", &l->mb_recvs);
	add_port_counter(c, "rdma:credit_writes", &l->credit_writes);
	port_sent(l, c);
}

/* "fe80:0000:0000:0000:0202:c0ff:fea8:0a01", as sysfs writes a GID. */
static void gid_text(const union ibv_gid *g, char *s, size_t n)
{
	const uint8_t *b = g->raw;
	snprintf(s, n, "%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x",
		 b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12],
		 b[13], b[14], b[15]);
}

/* The port rdma_cm bound the lane to, as verbs sees it now: the device
 * and port a lane named by its address resolves to, its state and MTU
 * (over sysfs's: the same source, read later), and speed and width
 * where sysfs had none -- but not over a virtual netdev: Soft-RoCE on a
 * veth derives them from the veth's made-up speed (portinfo.c's rule). */
static void rdma_port_facts(struct lb_tp *tp, uint32_t lane, struct lb_port_facts *f)
{
	const struct lane *l = &tp->lanes[lane];
	if (!l->ctx || !l->listen)
		return;
	uint8_t port = l->listen->port_num;
	struct ibv_port_attr pa;
	union ibv_gid gid;
	snprintf(f->rdma_dev, sizeof(f->rdma_dev), "%.*s", (int)sizeof(f->rdma_dev) - 1, l->dev);
	f->rdma_port = port;
	if (ibv_query_port(l->ctx, port, &pa) == 0) {
		const char *state = ibv_port_state_str(pa.state); /* "active" */
		snprintf(f->rdma_state, sizeof(f->rdma_state), "%s",
			 strncmp(state, "PORT_", 5) ? state : state + 5);
		for (char *c = f->rdma_state; *c; c++) /* as sysfs and port.h write it */
			*c = (char)toupper((unsigned char)*c);
		f->rdma_mtu = pa.active_mtu >= IBV_MTU_256 && pa.active_mtu <= IBV_MTU_4096 ?
				      128 << pa.active_mtu : 0;
		if (!f->speed_bps && !f->is_virtual)
			f->speed_bps = port_speed_bps(&pa);
		if (!f->width && !f->is_virtual)
			f->width = width_lanes(pa.active_width);
	}
	if (ibv_query_gid(l->ctx, port, 0, &gid) == 0)
		gid_text(&gid, f->gid, sizeof(f->gid));
	size_t n = strlen(f->source);
	snprintf(f->source + n, sizeof(f->source) - n, "%s", n ? "+rdma" : "rdma");
}

/* ---- teardown ----------------------------------------------------------- */

/* Reverse order of creation: QPs and ids (and their event channel), CQ,
 * completion channel, MR, PD, listener. */
static void close_lane(struct lane *l)
{
	for (uint32_t i = 0; l->conns && i < l->nconns; i++) {
		struct conn *c = &l->conns[i];
		drop_id(c);
		lb_ring_free(&c->sendq);
		lb_ring_free(&c->recvq);
		lb_ring_free(&c->arrived);
		lb_ring_free(&c->covers);
	}
	lb_ring_free(&l->early);
	if (l->epfd >= 0)
		close(l->epfd);
	if (l->cm) /* after the ids migrated to it */
		rdma_destroy_event_channel(l->cm);
	if (l->cq) {
		if (l->unacked)
			ibv_ack_cq_events(l->cq, l->unacked);
		ibv_destroy_cq(l->cq);
	}
	if (l->ch)
		ibv_destroy_comp_channel(l->ch);
	if (l->mr)
		ibv_dereg_mr(l->mr);
	if (l->mbox_mr)
		ibv_dereg_mr(l->mbox_mr);
	free(l->mboxes);
	if (l->pd)
		ibv_dealloc_pd(l->pd);
	if (l->listen)
		rdma_destroy_id(l->listen);
	free(l->conns);
	free(l->conn_of);
}

static void rdma_close(struct lb_tp *tp)
{
	if (!tp)
		return;
	for (uint32_t i = tp->lanes ? tp->cfg.lanes : 0; i-- > 0;)
		close_lane(&tp->lanes[i]);
	if (tp->ec)
		rdma_destroy_event_channel(tp->ec);
	free(tp->lanes);
	free(tp);
}

const struct lb_transport lb_transport_rdma = {
	.name = "rdma",
	.summary = "RDMA RC queue pairs (libibverbs, rdma_cm): WRITE with immediate, or SEND/RECV",
	.nic_kind = "openfabrics",
	.options = rdma_options,
	.open = rdma_open,
	.local_address = rdma_local_address,
	.connect = rdma_connect_all,
	.register_buffer = rdma_register,
	.post = rdma_post,
	.poll = rdma_poll,
	.arm = rdma_arm,
	.lane_rate = rdma_lane_rate,
	.counters = rdma_counters,
	.port_facts = rdma_port_facts,
	.lane_counters = rdma_lane_counters,
	.close = rdma_close,
};
