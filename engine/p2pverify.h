/* Point-to-point tests (p2p.h) one repetition at a time, every byte they
 * move verified, outside the timed part: before a repetition the sender's
 * payload gets a pattern new for every repetition (pattern.h) and the
 * receiver's region is cleared, the two ranks then meet (an 8-byte round
 * trip, so that neither one's filling or checking runs into the other's
 * timing), and after it the receiver checks every byte.  Used by
 * `lanebench p2p` (p2psweep.c). */
#ifndef LB_P2PVERIFY_H
#define LB_P2PVERIFY_H

#include <stddef.h>
#include <stdint.h>

#include "p2p.h"

enum lb_p2p_test {
	LB_P2P_LATENCY,   /* ping-pong: the message checked each way */
	LB_P2P_ONE_WAY,   /* the window, initiator to responder */
	LB_P2P_BOTH_WAYS, /* the window each way at once */
};

/* Both ranks keep one from the start, and run the same tests in the same
 * order: their pattern ids then agree. */
struct lb_p2p_verify {
	uint32_t next_id;  /* the next repetition's pattern; start at 1 */
	uint64_t bytes;    /* payload bytes this rank checked, summed */
	uint64_t sync_at;  /* 16 bytes of the buffer for the meeting; see below */
};

/* Buffer bytes every test needs for messages of up to max_bytes and this
 * window (both_ways: the bidirectional test, else the one-way one), the
 * meeting's 16 bytes last (sync_at = the size - 16). */
uint64_t lb_p2p_verify_buffer(uint64_t max_bytes, uint32_t window, int both_ways);

/* c's warm-up and timed repetitions of test t (c->offset 0), each verified; samples as
 * the test's lb_p2p_* function writes them (the bidirectional one: sum,
 * sent and received, c->iters apart).  Wrong data: -1 on the rank that
 * received it, naming the sender, the lane and the byte; on the other
 * rank LB_EPEER (lib/error.h) and a reason that says the peer will tell. */
int lb_p2p_verified(struct lb_p2p_verify *v, const struct lb_p2p_cfg *c, enum lb_p2p_test t,
		    double *samples, char *err, size_t errlen);

#endif
