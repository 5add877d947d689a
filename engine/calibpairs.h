/* Calibration of every ordered pair (what `lanebench calibrate` runs on
 * every rank of a job): per lane, for each ordered pair (u, v), the one-way
 * latency of a small message (ping-pong / 2, timed at u) and the streaming
 * bandwidth u -> v, with the methods of the sweep's calibration
 * (engine/calibrate.h, engine/p2p.h).
 *
 * The pairs meet in the rounds of a round-robin tournament (the circle
 * method): p - 1 rounds of p / 2 disjoint pairs for an even p, p rounds
 * of (p - 1) / 2 for an odd one, so a rank measures with at most one peer
 * at a time and every unordered pair meets exactly once.  A pair {a, b}
 * measures a -> b, then b -> a, on each lane in turn.  Every round ends
 * with an agreement: one rank's failure stops all with its reason.
 *
 * Missing links: every lane connects to every peer within the connect
 * wait (connect_timeout); a channel the transport could not make (its
 * `connected` says so) is left out instead of failing the run.  Each
 * round starts with one 8-byte ping-pong per lane of each pair, bounded by
 * the same wait, and the pair's two ends agree (allgather) on the lanes
 * that answered at both: the others get figures 0 both ways (a nolink) and
 * their channel is given up (`forget`).  A link cut one way is a nolink
 * both ways: a round trip cannot be timed over it.  The core asks the
 * transport only these two optional questions, never which one it is.
 *
 * The engine formats nothing: rank 0 gets the figures and the job's
 * provenance (hosts, lanes, transport); lb_calib_pairs_platform turns them
 * into a platform (net/platform.h). */
#ifndef LB_CALIBPAIRS_H
#define LB_CALIBPAIRS_H

#include <stddef.h>
#include <stdint.h>

#include "net/platform.h"
#include "executor.h"
#include "lib/prov.h"
#include "transports/transport.h"

/* All pairs cost p (p - 1) measurements per lane: past this many ranks the
 * caller refuses (lb_calib_pairs_check). */
#define LB_CALIB_PAIRS_MAX_RANKS 32

/* The connect wait's default share of the timeout: a missing link costs
 * this once while connecting (every pair at once) and once per round
 * its pair meets, not the whole timeout. */
#define LB_CALIB_PAIRS_CONNECT_SHARE 0.25

struct lb_calib_pairs_params {
	const char *nics;          /* one lane each: "rail0,rail1", "auto"; NULL: auto */
	const char *transport;     /* "tcp" */
	enum lb_idle idle;
	struct lb_tp_options tp_options;
	double timeout;            /* seconds for every wait; 0: $LANEBENCH_TIMEOUT, else 60 */
	double connect_timeout;    /* seconds for connecting and for a pair's first exchange
				    * on a lane; 0: LB_CALIB_PAIRS_CONNECT_SHARE of timeout */
	uint64_t bw_bytes;         /* message size of the bandwidth test */
	uint32_t window;           /* messages in flight in the bandwidth test */
	uint32_t iters;            /* measured repetitions; the median is kept */
	/* Optional, on rank 0: told as each round starts (0-based; the count). */
	void (*on_round)(uint32_t round, uint32_t rounds, void *arg);
	void *on_round_arg;
};

/* What rank 0 learns (the other ranks get ranks and lanes only). */
struct lb_calib_pairs {
	uint32_t ranks, lanes;
	double *latency;   /* [(lane * ranks + u) * ranks + v]: seconds one way u -> v */
	double *bandwidth; /* same index: bytes/s u -> v; the diagonal is 0, and so is a
			    * pair with no link on the lane (latency 0 too) */
	double connect_timeout; /* seconds a pair was given to connect and answer */
	struct lb_prov prov; /* the job's part: launcher, transport, ranks, lanes, hosts */
};

/* Rounds of the tournament for `size` ranks (0 for one rank). */
uint32_t lb_calib_pairs_rounds(uint32_t size);

/* Partner of `rank` in `round` (< lb_calib_pairs_rounds), or -1 when it
 * sits the round out (odd sizes). */
int lb_calib_pairs_partner(uint32_t rank, uint32_t size, uint32_t round);

/* 0 when a job of `size` ranks may calibrate every pair, else -1 with
 * the reason and what to do in err. */
int lb_calib_pairs_check(uint32_t size, char *err, size_t errlen);

/* Collective: every rank calls it.  Returns 0, or -1 (LB_EPEER when
 * another rank is the cause) with the reason naming the pair and lane --
 * also when no pair has a link on any lane (nothing was measured). */
int lb_calib_pairs_run(const struct lb_calib_pairs_params *p, struct lb_calib_pairs *out,
		       char *err, size_t errlen);

/* Rank 0's figures as a sealed platform: no default link ("default
 * none"), and per ordered pair and lane a link of the measured bandwidth
 * and one-way latency, occupation 0: a pipelined stream pays the latency
 * once, and the bandwidth already carries the per-byte cost; a pair with
 * no link on the lane (bandwidth 0) is a rule of bandwidth 0, which the
 * text format writes "nolink U V lane L oneway".  NULL when out of
 * memory. */
struct lb_platform *lb_calib_pairs_platform(const struct lb_calib_pairs *c);

void lb_calib_pairs_free(struct lb_calib_pairs *c);

#endif
