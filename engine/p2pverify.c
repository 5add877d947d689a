/* Verified point-to-point repetitions; see p2pverify.h. */
#include "p2pverify.h"

#include <stdio.h>
#include <string.h>

#include "lib/error.h"
#include "pattern.h"

/* One way of a repetition's payload: where, how long, its pattern. */
struct payload {
	uint64_t at, len;
	uint32_t id;
};

/* The initiator's payload at 0 (`there` bytes, pattern id), the
 * responder's after it (`back` bytes, pattern id + 1; 0: none), where the
 * spread layouts of p2p.h put them. */
static void payloads(const struct lb_p2p_cfg *c, uint64_t there, uint64_t back, uint32_t id,
		     struct payload *out, struct payload *in)
{
	struct payload fwd = { 0, there, id }, rev = { there, back, id + 1 };
	*out = c->initiator ? fwd : rev;
	*in = c->initiator ? rev : fwd;
}

uint64_t lb_p2p_verify_buffer(uint64_t max_bytes, uint32_t window, int both_ways)
{
	uint64_t w = (uint64_t)window * max_bytes;
	uint64_t need = both_ways ? 2 * w + 16 : w + 8; /* the acknowledgements */
	return (need > 2 * max_bytes ? need : 2 * max_bytes) + 16;
}

/* The ranks meet, each telling the other whether the last repetition's
 * bytes were right (failed: this rank's reason is in err, kept).  A spread
 * 8-byte ping-pong: the initiator's word at sync_at, the reply's 8 further.
 * posted: the responder's receive of it was posted by the repetition
 * before; timed_next: a latency repetition follows, whose receive the
 * responder posts before it answers (lb_p2p_cfg's then_*). */
static int meet(const struct lb_p2p_cfg *c, uint64_t sync_at, int failed, int posted,
		int timed_next, char *err, size_t len)
{
	struct lb_p2p_cfg s = *c;
	uint64_t mine = (uint64_t)failed, theirs;
	char why[256];
	s.bytes = 8;
	s.offset = sync_at;
	s.first_posted = posted;
	s.then_at = c->offset; /* where a latency repetition's message lands */
	s.then_bytes = timed_next ? c->bytes : 0;
	memcpy(c->buf + sync_at + (c->initiator ? 0 : 8), &mine, 8);
	int rc = lb_p2p_latency(&s, NULL, why, sizeof(why));
	if (failed)
		return -1;
	if (rc)
		return lb_errf(err, len, "%s", why);
	memcpy(&theirs, c->buf + sync_at + (c->initiator ? 8 : 0), 8);
	if (theirs == 0)
		return 0;
	snprintf(err, len, "rank %u received wrong data on lane %u (its report says where)",
		 c->peer, c->lane);
	return LB_EPEER;
}

static int check_in(const struct lb_p2p_cfg *c, const struct payload *in, uint64_t *verified,
		    char *err, size_t len)
{
	uint64_t bad;
	if (lb_pattern_check(c->buf + in->at, in->len, in->id, &bad) == 0) {
		*verified += in->len;
		return 0;
	}
	return lb_errf(err, len, "wrong data from rank %u on lane %u at byte %llu of message %llu "
		       "(%llu-byte messages)", c->peer, c->lane, (unsigned long long)(bad % c->bytes),
		       (unsigned long long)(bad / c->bytes), (unsigned long long)c->bytes);
}

/* Repetition i (timed from `warmup` on) of test t, its samples at i - warmup. */
static int run_one(const struct lb_p2p_cfg *one, enum lb_p2p_test t, double *s, uint32_t n,
		   uint32_t i, uint32_t warmup, char *err, size_t len)
{
	int timed = i >= warmup;
	size_t k = timed ? i - warmup : 0;
	struct lb_p2p_bi_samples bi = { s + k, s + n + k, s + 2 * (size_t)n + k };
	if (t == LB_P2P_LATENCY)
		return lb_p2p_latency(one, timed ? s + k : NULL, err, len);
	if (t == LB_P2P_ONE_WAY)
		return lb_p2p_bandwidth(one, timed ? s + k : NULL, err, len);
	return lb_p2p_bandwidth_bi(one, timed ? &bi : NULL, err, len);
}

int lb_p2p_verified(struct lb_p2p_verify *v, const struct lb_p2p_cfg *c, enum lb_p2p_test t,
		    double *s, char *err, size_t len)
{
	uint64_t window = (uint64_t)c->window * c->bytes;
	uint64_t there = t == LB_P2P_LATENCY ? c->bytes : window;
	uint64_t back = t == LB_P2P_ONE_WAY ? 0 : there;
	struct lb_p2p_cfg one = *c;
	one.iters = 1;
	one.warmup = 0;
	one.spread = 1;
	/* A latency repetition's receive is posted by the meeting before it,
	 * and it posts the next meeting's (lb_p2p_cfg's then_*). */
	int latency = t == LB_P2P_LATENCY;
	int64_t carry = 0;
	one.carry = latency ? &carry : NULL;
	one.first_posted = latency;
	one.then_at = v->sync_at;
	one.then_bytes = latency ? 8 : 0;
	int rc = 0, failed = 0;
	for (uint32_t i = 0; rc == 0; i++) { /* the last meeting tells how the last one went */
		int last = i == c->warmup + c->iters;
		struct payload out, in;
		payloads(c, there, back, v->next_id, &out, &in);
		if (!last) {
			lb_pattern_fill(c->buf + out.at, out.len, out.id);
			memset(c->buf + in.at, 0, in.len);
			v->next_id += 2;
		}
		rc = meet(&one, v->sync_at, failed, latency && i > 0, latency && !last, err, len);
		if (rc || last)
			break;
		rc = run_one(&one, t, s, c->iters, i, c->warmup, err, len);
		failed = rc == 0 && check_in(&one, &in, &v->bytes, err, len) != 0;
	}
	return rc;
}
