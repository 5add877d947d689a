#include "p2p.h"

#include <sched.h>
#include <stdio.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Polls the lane until `count` more completions arrived. */
static int drain(const struct lb_p2p_cfg *c, uint32_t count, char *err, size_t len)
{
	struct lb_completion comp[64];
	double deadline = now() + c->timeout;
	while (count > 0) {
		int k = c->ops->poll(c->tp, c->lane, comp, 64, err, len);
		if (k < 0)
			return -1;
		count -= (uint32_t)k < count ? (uint32_t)k : count;
		if (k > 0 || count == 0)
			continue;
		if (now() > deadline) {
			snprintf(err, len, "p2p lane %u: rank %u did not answer within %.0f s",
				 c->lane, c->peer, c->timeout);
			return -1;
		}
		if (c->idle == LB_IDLE_SLEEP && c->ops->wait)
			c->ops->wait(c->tp, c->lane, -1, 10e-3);
		else if (c->idle != LB_IDLE_SPIN)
			sched_yield();
	}
	return 0;
}

static int post(const struct lb_p2p_cfg *c, int send, uint64_t bytes, char *err, size_t len)
{
	int rc = send ? c->ops->post_send(c->tp, c->lane, c->peer, 0, bytes, 0)
		      : c->ops->post_recv(c->tp, c->lane, c->peer, 0, bytes, 0);
	if (rc != 0)
		snprintf(err, len, "p2p lane %u: cannot post a %s of %llu bytes with rank %u",
			 c->lane, send ? "send" : "receive", (unsigned long long)bytes, c->peer);
	return rc ? -1 : 0;
}

/* One round trip; the initiator returns its duration in *t. */
static int round_trip(const struct lb_p2p_cfg *c, double *t, char *err, size_t len)
{
	double t0 = now();
	if (post(c, 0, c->bytes, err, len))
		return -1;
	if (c->initiator) {
		if (post(c, 1, c->bytes, err, len) || drain(c, 2, err, len))
			return -1;
	} else if (drain(c, 1, err, len) || post(c, 1, c->bytes, err, len) ||
		   drain(c, 1, err, len)) {
		return -1;
	}
	*t = now() - t0;
	return 0;
}

int lb_p2p_latency(const struct lb_p2p_cfg *c, double *samples, char *err, size_t len)
{
	for (uint32_t i = 0; i < c->warmup + c->iters; i++) {
		double t;
		if (round_trip(c, &t, err, len))
			return -1;
		if (samples && i >= c->warmup)
			samples[i - c->warmup] = t / 2;
	}
	return 0;
}

/* Window of messages one way, then an acknowledgement back once all
 * arrived; timed at the initiator. */
static int stream(const struct lb_p2p_cfg *c, double *t, char *err, size_t len)
{
	double t0 = now();
	for (uint32_t w = 0; w < c->window; w++)
		if (post(c, c->initiator, c->bytes, err, len))
			return -1;
	if (c->initiator) {
		if (post(c, 0, 8, err, len) || drain(c, c->window + 1, err, len))
			return -1;
	} else if (drain(c, c->window, err, len) || post(c, 1, 8, err, len) ||
		   drain(c, 1, err, len)) {
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
