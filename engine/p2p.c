#include "p2p.h"

#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* For deadlines only (seconds): the coarse clock is the vDSO's copy of
 * the last tick, read without touching the clock source.  In a VM whose
 * clock source is the HPET (the Soft-RoCE guest under TCG) CLOCK_MONOTONIC
 * is a system call and an emulated device read, microseconds a waiting
 * loop would spend deaf to the message it waits for. */
static double now_coarse(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Under the sleep policy: linger (lb_linger_idle), arm the transport
 * once nothing moved, poll once more, then sleep (the order transport.h
 * asks for).  Returns whether it is armed now. */
static int idle(const struct lb_p2p_cfg *c, int armed, int *tp_fd, struct lb_linger *linger)
{
	if (c->idle == LB_IDLE_YIELD)
		sched_yield();
	if (c->idle != LB_IDLE_SLEEP)
		return 0;
	if (lb_linger_idle(linger, now())) {
		sched_yield();
		return 0;
	}
	if (!armed) {
		*tp_fd = c->ops->arm ? c->ops->arm(c->tp, c->lane) : -1;
		return 1;
	}
	lb_idle_sleep(*tp_fd, -1, LB_IDLE_MAX_SLEEP);
	return 0;
}

/* Empty polls between looks at the (coarse) clock and the stop flag when
 * not sleeping: the clock is read only once a loop waits. */
#define CHECK_EVERY 64

/* Whether the loop must give up: stopped, or past its deadline (0: not
 * set yet, it is set now: the wait started about now). */
static int overdue(const struct lb_p2p_cfg *c, double *deadline, char *err, size_t len)
{
	if (c->stop && *c->stop) {
		snprintf(err, len, "p2p lane %u: stopped: %s", c->lane, strsignal(*c->stop));
		return 1;
	}
	if (*deadline == 0) {
		*deadline = now_coarse() + c->timeout;
		return 0;
	}
	if (now_coarse() > *deadline) {
		snprintf(err, len, "p2p lane %u: rank %u did not answer within %.0f s",
			 c->lane, c->peer, c->timeout);
		return 1;
	}
	return 0;
}

/* Polls the lane until *recvs_due receives completed and at most `keep`
 * of this side's *sends are still waiting for their completion.  A poll
 * may return more receives than are due: *recvs_due then goes below 0,
 * counting them for the caller's next call.  Latency does not wait for
 * each send's completion (an RC transport's remote ack), as perftest does
 * not: only the message coming back is on the clock. */
static int progress_due(const struct lb_p2p_cfg *c, int64_t *recvs_due, uint32_t *sends,
			uint32_t keep, char *err, size_t len)
{
	struct lb_completion comp[64];
	double deadline = 0;
	struct lb_linger linger = { 0 }; /* (its backoff lasts one call) */
	int armed = 0, tp_fd = -1;
	uint32_t empty = 0;
	while (*recvs_due > 0 || *sends > keep) {
		int k = c->ops->poll(c->tp, c->lane, comp, 64, err, len);
		if (k < 0)
			return -1;
		for (int i = 0; i < k; i++) {
			if (comp[i].kind == LB_XFER_RECV)
				(*recvs_due)--;
			else
				*sends -= *sends > 0;
		}
		if (k > 0) {
			armed = 0;
			lb_linger_busy(&linger);
			continue;
		}
		/* sleeping: before each sleep (armed, nothing came since) */
		if ((c->idle == LB_IDLE_SLEEP ? armed : ++empty % CHECK_EVERY == 0) &&
		    overdue(c, &deadline, err, len))
			return -1;
		armed = idle(c, armed, &tp_fd, &linger);
	}
	return 0;
}

/* progress_due for exchanges where no other receive can be pending. */
static int progress(const struct lb_p2p_cfg *c, uint32_t recvs, uint32_t *sends, uint32_t keep,
		    char *err, size_t len)
{
	int64_t due = recvs;
	return progress_due(c, &due, sends, keep, err, len);
}

/* Where message `slot` of a window goes: every one at the offset, or
 * one after the other when spread. */
static uint64_t slot_at(const struct lb_p2p_cfg *c, uint32_t slot)
{
	return c->offset + (c->spread ? (uint64_t)slot * c->bytes : 0);
}

static int post_at(const struct lb_p2p_cfg *c, int send, uint64_t off, uint64_t bytes,
		   char *err, size_t len)
{
	char why[256] = "the lane's queue is full";
	int rc = c->ops->post(c->tp, c->lane, send ? LB_XFER_SEND : LB_XFER_RECV, c->peer, off,
			      bytes, 0, why, sizeof(why));
	if (rc != 0)
		snprintf(err, len, "p2p lane %u: cannot post a %s of %llu bytes with rank %u: %s",
			 c->lane, send ? "send" : "receive", (unsigned long long)bytes, c->peer, why);
	return rc ? -1 : 0;
}

/* Latency: the initiator's message at the offset; the reply at the
 * offset too, or one message further when spread, so that each side can
 * verify what the other sent. */
static int post(const struct lb_p2p_cfg *c, int send, uint64_t bytes, char *err, size_t len)
{
	return post_at(c, send, slot_at(c, (uint32_t)(send != c->initiator)), bytes, err, len);
}

/* The acknowledgement of a window: after the window's bytes when spread. */
static int post_ack(const struct lb_p2p_cfg *c, int send, char *err, size_t len)
{
	return post_at(c, send, slot_at(c, c->window), 8, err, len);
}

#define SENDS_IN_FLIGHT 8 /* latency: send completions collected lazily */

/* Sends a message once fewer than SENDS_IN_FLIGHT are outstanding.  A
 * receive that completes meanwhile goes on *due's count (below 0: ahead). */
static int send_one(const struct lb_p2p_cfg *c, uint64_t bytes, uint32_t *sends, int64_t *due,
		    char *err, size_t len)
{
	if (progress_due(c, due, sends, SENDS_IN_FLIGHT - 1, err, len) ||
	    post(c, 1, bytes, err, len))
		return -1;
	(*sends)++;
	return 0;
}

static int send_ack(const struct lb_p2p_cfg *c, uint32_t *sends, char *err, size_t len)
{
	if (progress(c, 0, sends, SENDS_IN_FLIGHT - 1, err, len) || post_ack(c, 1, err, len))
		return -1;
	(*sends)++;
	return 0;
}

/* The responder's receive of what comes after this round: the next
 * round's message, else the next exchange's first (then_*), else none. */
static int post_next(const struct lb_p2p_cfg *c, int next, char *err, size_t len)
{
	if (next)
		return post(c, 0, c->bytes, err, len);
	return c->then_bytes ? post_at(c, 0, c->then_at, c->then_bytes, err, len) : 0;
}

/* One round trip; the initiator returns its duration in *t.  Each side's
 * receive is posted before the message it waits for can come: the
 * initiator's before it sends, the responder's for the next round (`next`:
 * there is one) before it answers this one.  Posted after its answer, the
 * responder's receive could come after the next message, which a SEND
 * transport (rdma op=send) refuses with a receiver-not-ready NAK and
 * retries a timer later: Soft-RoCE's runs in jiffies, and 2 rounds of 3
 * read a 4 ms median. */
/* Waits for one more receive (none if it came ahead: *due below 0). */
static int await_one(const struct lb_p2p_cfg *c, uint32_t *sends, int64_t *due, char *err,
		     size_t len)
{
	++*due;
	return progress_due(c, due, sends, SENDS_IN_FLIGHT, err, len);
}

static int round_trip(const struct lb_p2p_cfg *c, uint32_t *sends, int64_t *due, int next,
		      double *t, char *err, size_t len)
{
	double t0 = now();
	if (c->initiator) {
		if (post(c, 0, c->bytes, err, len) || send_one(c, c->bytes, sends, due, err, len) ||
		    await_one(c, sends, due, err, len))
			return -1;
	} else if (await_one(c, sends, due, err, len) || post_next(c, next, err, len) ||
		   send_one(c, c->bytes, sends, due, err, len)) {
		return -1;
	}
	*t = now() - t0;
	return 0;
}

/* The receives a responder posted ahead (then_*) can complete while it
 * still waits for its own sends: `due` counts what this exchange waits
 * for, below 0 what came ahead, which *carry hands to the next exchange
 * (dropped, the next exchange would wait for it forever). */
int lb_p2p_latency(const struct lb_p2p_cfg *c, double *samples, char *err, size_t len)
{
	uint32_t sends = 0, rounds = c->warmup + c->iters;
	int64_t due = c->carry ? -*c->carry : 0;
	if (!c->initiator && !c->first_posted && rounds > 0 && post(c, 0, c->bytes, err, len))
		return -1; /* the first round's; round_trip posts the others' */
	for (uint32_t i = 0; i < rounds; i++) {
		double t;
		if (round_trip(c, &sends, &due, i + 1 < rounds, &t, err, len))
			return -1;
		if (samples && i >= c->warmup)
			samples[i - c->warmup] = t / 2;
	}
	int rc = progress_due(c, &due, &sends, 0, err, len);
	if (c->carry)
		*c->carry = due < 0 ? -due : 0;
	return rc;
}

/* Window of messages one way, then an acknowledgement back once all
 * arrived; timed at the initiator, until every send completed. */
static int stream(const struct lb_p2p_cfg *c, double *t, char *err, size_t len)
{
	uint32_t sends = c->initiator ? c->window : 0;
	double t0 = now();
	for (uint32_t w = 0; w < c->window; w++)
		if (post_at(c, c->initiator, slot_at(c, w), c->bytes, err, len))
			return -1;
	if (c->initiator) {
		if (post_ack(c, 0, err, len) || progress(c, 1, &sends, 0, err, len))
			return -1;
	} else if (progress(c, c->window, &sends, 0, err, len) ||
		   send_ack(c, &sends, err, len) || progress(c, 0, &sends, 0, err, len)) {
		return -1;
	}
	*t = now() - t0;
	return 0;
}

int lb_p2p_bandwidth(const struct lb_p2p_cfg *c, double *samples, char *err, size_t len)
{
	for (uint32_t i = 0; i < c->warmup + c->iters; i++) {
		double t;
		if (stream(c, &t, err, len))
			return -1;
		if (samples && i >= c->warmup)
			samples[i - c->warmup] = (double)c->window * c->bytes / t;
	}
	return 0;
}

/* One bidirectional repetition: *t the whole of it, *t_in until the
 * peer's window arrived here, *peer_in the peer's own t_in (from its
 * acknowledgement).  A transfer lands at the offset it was sent from, so
 * each side sends from its own region: the initiator's first, the
 * responder's after it, each one message long (every message of the
 * window sent from it), or window x bytes when spread (message w at w x
 * bytes into it); then the initiator's acknowledgement and 8 bytes further
 * the responder's.  No byte is written while it is being sent. */
static int stream_bi(const struct lb_p2p_cfg *c, double *t, double *t_in, double *peer_in,
		     char *err, size_t len)
{
	uint64_t region = c->spread ? (uint64_t)c->window * c->bytes : c->bytes;
	uint64_t out = c->initiator ? 0 : region, in = c->initiator ? region : 0;
	uint64_t ack_out = 2 * region + (c->initiator ? 0 : sizeof(double));
	uint64_t ack_in = 2 * region + (c->initiator ? sizeof(double) : 0);
	uint64_t step = c->spread ? c->bytes : 0;
	uint32_t sends = c->window;
	int64_t due = c->window;
	double t0 = now();
	for (uint32_t w = 0; w < c->window; w++)
		if (post_at(c, 0, in + w * step, c->bytes, err, len))
			return -1;
	if (post_at(c, 0, ack_in, sizeof(double), err, len))
		return -1;
	for (uint32_t w = 0; w < c->window; w++)
		if (post_at(c, 1, out + w * step, c->bytes, err, len))
			return -1;
	/* Receives complete in posting order: the window first, then the ack
	 * (which may come in the same poll: due counts it). */
	if (progress_due(c, &due, &sends, c->window, err, len))
		return -1;
	*t_in = now() - t0;
	memcpy(c->buf + ack_out, t_in, sizeof(double));
	if (post_at(c, 1, ack_out, sizeof(double), err, len))
		return -1;
	sends++;
	due++;
	if (progress_due(c, &due, &sends, 0, err, len))
		return -1;
	*t = now() - t0;
	memcpy(peer_in, c->buf + ack_in, sizeof(double));
	return 0;
}

int lb_p2p_bandwidth_bi(const struct lb_p2p_cfg *c, const struct lb_p2p_bi_samples *out,
			char *err, size_t len)
{
	double bytes = (double)c->window * c->bytes;
	for (uint32_t i = 0; i < c->warmup + c->iters; i++) {
		double t, t_in, peer_in;
		if (stream_bi(c, &t, &t_in, &peer_in, err, len))
			return -1;
		if (!out || i < c->warmup)
			continue;
		out->sum[i - c->warmup] = 2 * bytes / t;
		out->sent[i - c->warmup] = peer_in > 0 ? bytes / peer_in : 0;
		out->received[i - c->warmup] = bytes / t_in;
	}
	return 0;
}
