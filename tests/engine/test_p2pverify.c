/* The p2p engine's verification (engine/p2pverify.h) end to end on
 * loopback TCP, ranks 0 and 1 as threads of this process: clean runs count
 * every byte of latency, one-way and two-way repetitions; a transport that
 * flips one received byte makes the receiving rank fail naming the sender,
 * the lane and the byte, and its peer fail with LB_EPEER, nobody hanging.
 * And a ping-pong of many rounds (lb_p2p_latency, as calibration runs it)
 * posts every receive before the message it waits for can be sent: a SEND
 * transport (rdma op=send) refuses one that comes first and retries it a
 * timer later (2-4 ms on Soft-RoCE); a receive posted ahead that
 * completes while the responder still waits for its own send is counted
 * for the exchange it belongs to, not lost (that one would wait forever). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "check.h"
#include "engine/p2pverify.h"
#include "lib/error.h"
#include "transports/transport.h"

#define MSG 1000    /* no other transfer has this length: the payload's messages */
#define WINDOW 4
#define WARMUP 1
#define ITERS 2

static const char *const LOOPBACK[] = { "127.0.0.1" };

/* The flipping transport: tcp, with rank `victim`'s `nth` MSG-byte receive
 * (from 1; 0: none) changed in one byte (its middle) once it completed. */
static struct {
	struct lb_tp *tp[2];
	uint8_t *buf[2];
	uint64_t posted[2][4096]; /* offsets of MSG-byte receives, in posting order */
	uint32_t nposted[2], ndone[2];
	uint32_t victim, nth;
	uint32_t outstanding[2]; /* receives posted and not yet completed */
	uint32_t bare_sends[2];  /* sends posted while none was */
	int hold;                /* rank 1's send completions wait for a receive (below) */
	uint32_t held[64], nheld;
	atomic_int done0;        /* rank 0 has finished */
} flip;

/* Under flip.hold, rank 1's send completions are kept back until a poll
 * returns a receive (or rank 0 has finished): the responder then still
 * waits for its answer's completion when the initiator's next message,
 * whose receive it posted ahead, arrives. */
static int hold_sends(struct lb_completion *out, int k, int max)
{
	int n = 0, got_recv = 0;
	for (int i = 0; i < k; i++) {
		if (out[i].kind == LB_XFER_SEND && flip.nheld < 64)
			flip.held[flip.nheld++] = out[i].id;
		else
			out[n++] = out[i];
		got_recv |= out[i].kind == LB_XFER_RECV;
	}
	if (!got_recv && !atomic_load(&flip.done0))
		return n;
	while (flip.nheld && n < max)
		out[n++] = (struct lb_completion){ flip.held[--flip.nheld], LB_XFER_SEND };
	return n;
}

static uint32_t rank_of(const struct lb_tp *tp)
{
	return tp == flip.tp[1];
}

static int flip_post_recv(struct lb_tp *tp, uint32_t lane, uint32_t peer, uint64_t off,
			  uint64_t len, uint32_t id, char *err, size_t errlen)
{
	uint32_t r = rank_of(tp);
	uint32_t mark = (uint32_t)(len == MSG) << 31; /* poll knows it by its id */
	int rc = lb_transport_tcp.post(tp, lane, LB_XFER_RECV, peer, off, len, id | mark, err,
				       errlen);
	if (rc == 0 && len == MSG)
		flip.posted[r][flip.nposted[r]++ % 4096] = off;
	flip.outstanding[r] += rc == 0;
	return rc;
}

static int flip_post(struct lb_tp *tp, uint32_t lane, enum lb_xfer_kind kind, uint32_t peer,
		     uint64_t off, uint64_t len, uint32_t id, char *err, size_t errlen)
{
	if (kind == LB_XFER_RECV)
		return flip_post_recv(tp, lane, peer, off, len, id, err, errlen);
	flip.bare_sends[rank_of(tp)] += flip.outstanding[rank_of(tp)] == 0;
	return lb_transport_tcp.post(tp, lane, kind, peer, off, len, id, err, errlen);
}

static int flip_poll(struct lb_tp *tp, uint32_t lane, struct lb_completion *out, int max,
		     char *err, size_t errlen)
{
	uint32_t r = rank_of(tp);
	int k = lb_transport_tcp.poll(tp, lane, out, max, err, errlen);
	for (int i = 0; i < k; i++) {
		flip.outstanding[r] -= out[i].kind == LB_XFER_RECV;
		if (out[i].kind != LB_XFER_RECV || !(out[i].id >> 31))
			continue;
		out[i].id &= ~(1u << 31);
		uint64_t off = flip.posted[r][flip.ndone[r]++ % 4096];
		if (r == flip.victim && flip.ndone[r] == flip.nth)
			flip.buf[r][off + MSG / 2] ^= 0x40;
	}
	return flip.hold && r == 1 ? hold_sends(out, k, max) : k;
}

static struct lb_transport flipping;

struct rank {
	uint32_t rank;
	enum lb_p2p_test test;
	uint32_t rounds; /* nonzero: a bare lb_p2p_latency of that many rounds instead */
	uint8_t *addrs;
	pthread_barrier_t *barrier;
	int rc;
	uint64_t verified;
	char err[256];
};

static int connect_rank(struct rank *a, struct lb_tp **tp)
{
	struct lb_tp_cfg cfg = { .rank = a->rank, .size = 2, .lanes = 1, .lane_names = LOOPBACK,
				 .token = "p2p-verify", .timeout = 10 };
	uint32_t peer = !a->rank, one = 1;
	const uint32_t *pp[1] = { &peer };
	struct lb_tp_peers peers = { pp, &one };
	int rc = lb_transport_tcp.open(&cfg, tp, a->err, sizeof(a->err));
	if (rc == 0)
		lb_transport_tcp.local_address(*tp, 0, a->addrs + a->rank * LB_TP_ADDR_MAX);
	pthread_barrier_wait(a->barrier); /* both addresses published */
	return rc ? rc : lb_transport_tcp.connect(*tp, a->addrs, &peers, a->err, sizeof(a->err));
}

static void *rank_main(void *arg)
{
	struct rank *a = arg;
	struct lb_tp *tp = NULL;
	uint64_t size = lb_p2p_verify_buffer(MSG, WINDOW, 1);
	uint8_t *buf = calloc(1, size);
	a->rc = connect_rank(a, &tp);
	flip.tp[a->rank] = tp;
	flip.buf[a->rank] = buf;
	if (a->rc == 0)
		a->rc = lb_transport_tcp.register_buffer(tp, buf, size, a->err, sizeof(a->err));
	pthread_barrier_wait(a->barrier); /* both in flip.tp */
	struct lb_p2p_cfg c = { .ops = &flipping, .tp = tp, .buf = buf, .peer = !a->rank,
				.initiator = a->rank == 0, .bytes = MSG, .iters = ITERS,
				.warmup = WARMUP, .window = WINDOW, .idle = LB_IDLE_SLEEP,
				.timeout = 10 };
	struct lb_p2p_verify v = { .next_id = 1, .sync_at = size - 16 };
	double s[3 * ITERS];
	if (a->rc == 0 && a->rounds) {
		c.iters = a->rounds;
		c.warmup = 0;
		a->rc = lb_p2p_latency(&c, NULL, a->err, sizeof(a->err));
	} else if (a->rc == 0) {
		a->rc = lb_p2p_verified(&v, &c, a->test, s, a->err, sizeof(a->err));
	}
	a->verified = v.bytes;
	if (a->rank == 0)
		atomic_store(&flip.done0, 1);
	lb_transport_tcp.close(tp);
	free(buf);
	return NULL;
}

static void run_rounds(enum lb_p2p_test test, uint32_t rounds, int hold, uint32_t victim,
		       uint32_t nth, struct rank r[2])
{
	uint8_t addrs[2 * LB_TP_ADDR_MAX];
	pthread_barrier_t barrier;
	pthread_t th[2];
	memset(&flip, 0, sizeof(flip));
	flip.victim = victim;
	flip.nth = nth;
	flip.hold = hold;
	pthread_barrier_init(&barrier, NULL, 2);
	for (uint32_t k = 0; k < 2; k++) {
		r[k] = (struct rank){ .rank = k, .test = test, .rounds = rounds, .addrs = addrs,
				      .barrier = &barrier };
		pthread_create(&th[k], NULL, rank_main, &r[k]);
	}
	for (uint32_t k = 0; k < 2; k++)
		pthread_join(th[k], NULL);
	pthread_barrier_destroy(&barrier);
}

static void run(enum lb_p2p_test test, uint32_t victim, uint32_t nth, struct rank r[2])
{
	run_rounds(test, 0, 0, victim, nth, r);
}

/* A ping-pong of many rounds, or verified latency repetitions (a meeting
 * round trip, the timed one, ... a last meeting): the initiator posts its
 * receive before each ping, the responder the next message's before each
 * answer but the last. */
static void preposted(uint32_t rounds, int hold)
{
	struct rank r[2];
	const char *what = hold ? "verified latency, answers completing late"
			   : rounds ? "50 rounds" : "verified latency";
	run_rounds(LB_P2P_LATENCY, rounds, hold, 0, 0, r);
	CHECK(r[0].rc == 0 && r[1].rc == 0, "%s: rank 0: %s; rank 1: %s", what, r[0].err, r[1].err);
	CHECK(flip.bare_sends[0] == 0 && flip.bare_sends[1] <= 1,
	      "%s: sends posted with no receive posted: %u by the initiator, %u by the "
	      "responder (want 0 and at most its last)", what, flip.bare_sends[0],
	      flip.bare_sends[1]);
}

static const char *const NAMES[] = { "latency", "one way", "both ways" };

/* Nothing flipped: both succeed, each counting what it received. */
static void clean(enum lb_p2p_test t)
{
	struct rank r[2];
	uint64_t reps = WARMUP + ITERS, window = (uint64_t)WINDOW * MSG;
	uint64_t want0 = t == LB_P2P_LATENCY ? reps * MSG : t == LB_P2P_BOTH_WAYS ? reps * window : 0;
	uint64_t want1 = t == LB_P2P_LATENCY ? reps * MSG : reps * window;
	run(t, 0, 0, r);
	CHECK(r[0].rc == 0 && r[1].rc == 0, "%s: rank 0: %s; rank 1: %s", NAMES[t], r[0].err, r[1].err);
	CHECK(r[0].verified == want0 && r[1].verified == want1,
	      "%s: verified %llu and %llu, want %llu and %llu", NAMES[t], (unsigned long long)r[0].verified, (unsigned long long)r[1].verified,
	      (unsigned long long)want0, (unsigned long long)want1);
}

/* The victim's nth MSG-byte receive flipped: message `msg` of its repetition. */
static void flipped(enum lb_p2p_test t, uint32_t victim, uint32_t nth, uint32_t msg)
{
	struct rank r[2];
	char want[128];
	snprintf(want, sizeof(want), "wrong data from rank %u on lane 0 at byte %u of message %u ",
		 !victim, MSG / 2, msg);
	run(t, victim, nth, r);
	CHECK(r[victim].rc == -1 && strstr(r[victim].err, want), "%s, rank %u's receive %u flipped: "
	      "%d '%s', want '%s'", NAMES[t], victim, nth, r[victim].rc, r[victim].err, want);
	CHECK(r[!victim].rc == LB_EPEER && strstr(r[!victim].err, "rank") &&
	      strstr(r[!victim].err, "wrong data"), "%s: the other rank: %d '%s'", NAMES[t],
	      r[!victim].rc, r[!victim].err);
	printf("%s, flipped at rank %u: '%s' / '%s'\n", NAMES[t], victim, r[victim].err, r[!victim].err);
}

int main(void)
{
	flipping = lb_transport_tcp;
	flipping.post = flip_post;
	flipping.poll = flip_poll;
	preposted(50, 0);
	preposted(0, 0);
	preposted(0, 1);
	for (int t = LB_P2P_LATENCY; t <= LB_P2P_BOTH_WAYS; t++)
		clean((enum lb_p2p_test)t);
	flipped(LB_P2P_LATENCY, 0, WARMUP + ITERS, 0); /* the last echo */
	flipped(LB_P2P_LATENCY, 1, 1, 0);                /* the warm-up's message */
	flipped(LB_P2P_ONE_WAY, 1, (WARMUP + ITERS) * WINDOW, WINDOW - 1); /* the very last */
	flipped(LB_P2P_ONE_WAY, 1, 2, 1);
	flipped(LB_P2P_BOTH_WAYS, 0, WINDOW + 2, 1);     /* the second repetition's */
	return check_status("p2p-verify");
}
