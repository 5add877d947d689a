/* Reliable delivery over a lossy link, as a pure module (no DPDK, no
 * clock): the sender's window and the receiver's duplicate filter and acks
 * of one (peer, lane) channel.  Times are seconds given by the caller.
 *
 * Sequence numbers are 32-bit and compared modulo 2^32.  The receiver
 * accepts seq in [cum, cum + LB_REL_WINDOW) once and acknowledges with the
 * cumulative `cum` (every seq before it arrived) plus a bitmap of the
 * LB_REL_WINDOW seqs after it; the sender keeps at most `window` frames
 * unacknowledged, retransmits the oldest when its ack is late by the
 * retransmission timeout (RTO), any one late by a quarter of it when later
 * frames were acked (a hole), and backs the RTO off while nothing gets
 * through. */
#ifndef LB_RELIABLE_H
#define LB_RELIABLE_H

#include <stdint.h>

#define LB_REL_WINDOW 256 /* frames: the SACK bitmap's span, the largest window */

/* The bounds of the retransmission timeout the dpdk transport gives
 * lb_rel_tx_init: the timeout follows the measured round trip (RTO above)
 * between them.  The upper one is not lower because a cap below the round
 * trip retransmits every frame the timer looks at while it waits in a
 * queue.  On the emulated cluster 7 peers' windows queue for a 50 Mbit/s
 * host for 0.2-0.5 s.  Interleaved A/B, 200 ms against 2 s, two rounds,
 * allgather-simultaneous and cluster-agent-gb/-ts at 16 MiB each on 4 + 4
 * hosts (docs/benchmarks/bench-allgather.md): 26,806-36,310 frames a row arrived twice
 * against 3,468-5,643, and 1.14-1.24 x the fluid model against
 * 1.10-1.17.  The price: a frame lost at a message's tail (nothing after
 * it to show the hole) now waits up to 3 round trips, and at 4 MiB two
 * of 12 rows had iterations a second slower. */
#define LB_REL_MIN_RTO 10e-3 /* seconds */
#define LB_REL_MAX_RTO 2.0

/* What the sender needs to rebuild a frame from the buffer. */
struct lb_rel_frame {
	uint64_t offset;
	uint32_t len, msg;
};

struct lb_rel_slot {
	struct lb_rel_frame f;
	double sent_at;   /* last transmission; < 0: not yet on the wire */
	uint32_t nsent;
	uint8_t acked;
};

struct lb_rel_tx {
	uint32_t base, next; /* oldest unacked, next new seq */
	uint32_t window;     /* frames in flight at most, <= LB_REL_WINDOW */
	uint32_t high_sack;  /* one past the highest seq acked selectively */
	double srtt, rttvar, rto, min_rto, max_rto; /* seconds */
	struct lb_rel_slot slot[LB_REL_WINDOW];
};

struct lb_rel_rx {
	uint32_t cum;                      /* next seq expected in order */
	uint8_t got[2 * LB_REL_WINDOW];    /* by seq mod 2W: arrived, ahead of cum */
};

enum lb_rel_verdict { LB_REL_NEW = 0, LB_REL_DUP, LB_REL_AHEAD };

void lb_rel_tx_init(struct lb_rel_tx *t, uint32_t window, double min_rto, double max_rto);
void lb_rel_rx_init(struct lb_rel_rx *r);

/* Room for one more frame in flight? */
int lb_rel_tx_can_send(const struct lb_rel_tx *t);
/* Frames in flight (sent or queued, not acked). */
uint32_t lb_rel_tx_inflight(const struct lb_rel_tx *t);
/* Takes the next seq for frame f (not yet on the wire); needs can_send. */
uint32_t lb_rel_tx_push(struct lb_rel_tx *t, const struct lb_rel_frame *f);
/* The frame of an unacked seq in flight, or NULL. */
const struct lb_rel_frame *lb_rel_tx_frame(const struct lb_rel_tx *t, uint32_t seq);
/* Records a transmission of seq at time now; returns 1 if it was a
 * retransmission. */
int lb_rel_tx_sent(struct lb_rel_tx *t, uint32_t seq, double now);
/* Applies an ack (cum + bitmap of LB_REL_WINDOW bits); returns how many
 * seqs it newly acknowledged.  Acks outside the window are ignored. */
uint32_t lb_rel_tx_ack(struct lb_rel_tx *t, uint32_t cum, const uint8_t *bits, double now);
/* Up to max seqs due for (re)transmission at `now`, oldest first: never
 * sent, a hole late by RTO/4, or the oldest late by the RTO, which backs
 * the RTO off. */
int lb_rel_tx_due(struct lb_rel_tx *t, double now, uint32_t *seqs, int max);

/* Classifies seq without recording it. */
enum lb_rel_verdict lb_rel_rx_check(const struct lb_rel_rx *r, uint32_t seq);
/* Records seq (must be LB_REL_NEW) and advances cum over what arrived. */
void lb_rel_rx_accept(struct lb_rel_rx *r, uint32_t seq);
/* The ack to send: returns cum, fills bits[LB_REL_WINDOW / 8]. */
uint32_t lb_rel_rx_ack(const struct lb_rel_rx *r, uint8_t *bits);

#endif
