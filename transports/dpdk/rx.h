/* The DPDK transport's receive side, as a pure module (no DPDK, no clock):
 * what becomes of a parsed DATA frame of one (peer, lane) channel, from
 * the reliable layer's duplicate filter through the frames held for
 * receives not posted yet to the receives' completions, so it can be
 * unit-tested and fuzzed.  Times are seconds given by the caller.
 *
 * A channel's receives are posted in order; the m-th one is message m of
 * the channel (the sender's m-th send posted), and a frame's msg field names
 * it.  A frame lands inside its receive, at its offset in the registered
 * buffer.  A frame for a receive not posted yet (the peer started first)
 * is EARLY: the caller holds it in a lane's stash (below) and offers it
 * again after the next post.
 *
 * A receive completes when every byte of it arrived, not when as many
 * bytes as it holds did: it records the spans of itself that frames
 * wrote, and a frame that would write a byte twice (a copy of a frame
 * under a seq the filter does not know, a forged frame) is dropped, as is
 * one outside its receive or empty.  The spans are a sorted array of
 * disjoint ranges, merged when they touch: an in-order frame extends the
 * last one; a binary search places any other, and the ranges after it
 * move when it opens a new one or closes a gap.  The sender cuts a
 * receive into frames in seq order and keeps at most LB_REL_WINDOW of
 * them in flight, so an honest receive is at most LB_REL_WINDOW / 2 + 1
 * pieces; LB_RX_SPANS_MAX bounds what a forger can make it cost. */
#ifndef LB_DPDK_RX_H
#define LB_DPDK_RX_H

#include <stdint.h>

#include "frame.h"
#include "reliable.h"
#include "lib/ring.h"

#define LB_RX_SPANS_MAX LB_REL_WINDOW
#define LB_RX_SPANS_INLINE 2 /* spans kept in the record, before any allocation */

struct lb_rx_span {
	uint64_t lo, hi; /* [lo, hi) of the receive, from its start */
};

/* A posted receive: [off, off + len) of the registered buffer. */
struct lb_rx_xfer {
	uint64_t off, len;
	uint64_t have; /* bytes arrived: the spans' total */
	uint32_t id;
	uint32_t nspans, cap;   /* cap > LB_RX_SPANS_INLINE: they are in `heap` */
	struct lb_rx_span *heap;
	struct lb_rx_span inl[LB_RX_SPANS_INLINE];
};

struct lb_rx_chan {
	struct lb_rel_rx rel;
	struct lb_ring recvq; /* of struct lb_rx_xfer, in posting order */
	uint32_t msg;         /* message index of recvq's head */
};

/* What became of a DATA frame. */
enum lb_rx_verdict {
	LB_RX_TAKEN = 0, /* written into its receive, its seq recorded */
	LB_RX_EARLY,     /* its receive is not posted yet: hold it, offer it again */
	LB_RX_DUP,       /* its seq arrived before */
	LB_RX_AHEAD,     /* its seq is beyond the receive window */
	LB_RX_RANGE,     /* of a finished receive, outside its receive, or empty */
	LB_RX_OVERLAP,   /* would write bytes of its receive that arrived before */
	LB_RX_SPANS,     /* its receive is in LB_RX_SPANS_MAX pieces already */
	LB_RX_NOMEM,     /* no memory to record its span */
};

void lb_rx_chan_init(struct lb_rx_chan *c);
/* Drops the posted receives (forget, close); the seq filter stays. */
void lb_rx_chan_clear(struct lb_rx_chan *c);

/* Posts a receive of [off, off + len) (the caller checked it lies in the
 * buffer); 0, or -1 when out of memory. */
int lb_rx_post(struct lb_rx_chan *c, uint64_t off, uint64_t len, uint32_t id);

/* Posted receives not completed yet. */
uint32_t lb_rx_pending(const struct lb_rx_chan *c);

/* Takes a parsed DATA frame f: when TAKEN, its payload is copied to
 * buf + f->offset, inside its receive.  Anything else leaves buf and the
 * channel as they were (the seq is not recorded: the peer sends it again). */
enum lb_rx_verdict lb_rx_data(struct lb_rx_chan *c, uint8_t *buf, const struct lb_frame *f);

/* Pops the oldest receive if it is complete (receives complete in
 * posting order): 1 and its id, or 0. */
int lb_rx_complete(struct lb_rx_chan *c, uint32_t *id);

/* ---- the stash: a lane's frames held for receives not posted yet ------ *
 * At most LB_RX_STASH_MAX of them, and each for a while only: a frame for
 * a receive that is never posted (a forged message index, a peer that
 * left the schedule) would otherwise keep its slot, and its mbuf, for
 * good.  Letting one go loses nothing: a held frame is not acknowledged,
 * so its sender sends it again. */

#define LB_RX_STASH_MAX 512

struct lb_rx_early {
	void *frame; /* the caller's (an mbuf) */
	double at;   /* when it arrived */
};

struct lb_rx_stash {
	struct lb_rx_early e[LB_RX_STASH_MAX]; /* oldest first */
	uint32_t n;
};

/* Holds frame, arrived at `at`: 0, or -1 when the stash is full.  Frames
 * are held oldest first; one given an earlier time than the newest is
 * held as if it came with the newest. */
int lb_rx_stash_hold(struct lb_rx_stash *s, void *frame, double at);
/* Moves every held frame to out[LB_RX_STASH_MAX], oldest first; returns
 * how many.  The caller offers each again and holds those still early
 * with their first arrival time. */
uint32_t lb_rx_stash_take(struct lb_rx_stash *s, struct lb_rx_early *out);
/* Lets go of the frames held since before now - max_age: moves them to
 * out[LB_RX_STASH_MAX], oldest first, and returns how many. */
uint32_t lb_rx_stash_expire(struct lb_rx_stash *s, double now, double max_age,
			    struct lb_rx_early *out);

#endif
