/* Point-to-point measurements on one lane between two ranks, straight on
 * the transport (as perftest does on verbs): ping-pong latency and
 * windowed streaming bandwidth.  Used by `lanebench p2p` and by the
 * calibration that feeds the models before a broadcast sweep. */
#ifndef LB_P2P_H
#define LB_P2P_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "executor.h"
#include "transports/transport.h"

struct lb_p2p_cfg {
	const struct lb_transport *ops;
	struct lb_tp *tp;
	uint8_t *buf;      /* registered, at least `bytes` (and 8) long */
	uint32_t lane, peer;
	int initiator;     /* measures and sends first; the other answers */
	uint64_t bytes;    /* message size */
	uint32_t iters;    /* measured repetitions (after `warmup`) */
	uint32_t warmup;
	uint32_t window;   /* messages in flight per bandwidth repetition */
	uint64_t offset;   /* where in buf the messages go, the same on both sides
			    * (latency and bandwidth; the bidirectional test uses 0) */
	int spread;        /* lay messages side by side, so the caller can verify
			    * every byte of a repetition: latency: the reply at
			    * offset + bytes (2 x bytes long); bandwidth: message w of
			    * the window at offset + w x bytes, the acknowledgement
			    * after them (window x bytes + 8 long); bidirectional: see
			    * lb_p2p_bandwidth_bi.  0: every message at offset */
	enum lb_idle idle;
	double timeout;    /* seconds for one repetition */
	const atomic_int *stop; /* optional: non-zero stops at once */
	/* Latency exchanges run back to back (p2pverify.c): a responder's
	 * receive must be posted before the initiator can send its message (a
	 * SEND transport refuses one that comes first and retries it a timer
	 * later), so the responder posts the first receive of the exchange
	 * that follows before its last answer (then_bytes 0: none follows),
	 * and the exchange that follows does not post it again
	 * (first_posted). */
	uint64_t then_at, then_bytes;
	int first_posted;
	/* With then_*: receives of this exchange that completed during the
	 * one before (in), and of the next that completed during this one
	 * (out).  NULL: none posted ahead. */
	int64_t *carry;
};

/* One-way latency samples (round trip / 2), `iters` of them, written by
 * the initiator into samples[]; the responder passes NULL. */
int lb_p2p_latency(const struct lb_p2p_cfg *cfg, double *samples, char *err,
		   size_t errlen);

/* Bandwidth samples in bytes/s: window x bytes streamed, then an 8-byte
 * acknowledgement, timed at the initiator; the responder passes NULL. */
int lb_p2p_bandwidth(const struct lb_p2p_cfg *cfg, double *samples, char *err,
		     size_t errlen);

/* Bidirectional bandwidth samples (perftest -b), bytes/s, one per
 * repetition in each array, written by the initiator (the responder
 * passes NULL): */
struct lb_p2p_bi_samples {
	double *sum;      /* 2 x window x bytes over the initiator's repetition */
	double *sent;     /* window x bytes over the time the peer took to receive them */
	double *received; /* window x bytes over the time the initiator took to receive them */
};

/* Both ranks stream window messages to each other at once, each sends an
 * 8-byte acknowledgement (holding the time it took to receive the
 * peer's window) once the peer's window arrived; a repetition ends when
 * the acknowledgement came and every send completed.  Each side sends from
 * its own region, the initiator's at 0 and the responder's after it, then
 * the two acknowledgements: a region is one message (the buffer holds
 * 2 x bytes + 16) or, spread, the window side by side (2 x window x bytes
 * + 16), message w at w x bytes into it. */
int lb_p2p_bandwidth_bi(const struct lb_p2p_cfg *cfg, const struct lb_p2p_bi_samples *samples,
			char *err, size_t errlen);

#endif
