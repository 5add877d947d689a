/* Calibration before a sweep: every rank measures each lane against a
 * neighbour (pairs 0-1, 2-3, ...; with an odd count the last rank pairs
 * with rank 0 in a second round) -- one-way latency of a small message
 * on every lane, then, once every pair has done that, streaming bandwidth
 * on every lane (no ping-pong beside another pair's stream) -- and every
 * rank learns every rank's figures, which feed the cost table and the
 * slice choice (medians) and the simulator (the latency median, each
 * rank's bandwidth). */
#ifndef LB_CALIBRATE_H
#define LB_CALIBRATE_H

#include "launch/bootstrap.h"
#include "executor.h"
#include "transports/transport.h"

struct lb_calib_cfg {
	const struct lb_transport *ops;
	struct lb_tp *tp;
	uint8_t *buf;       /* registered, >= bw_bytes */
	uint32_t lanes;
	uint64_t bw_bytes;  /* message size of the bandwidth test */
	uint32_t window;    /* messages in flight */
	uint32_t iters;
	enum lb_idle idle;
	double timeout;
	/* Optional, on every rank: told before each lane's measurement
	 * (this rank, round 0 or 1, the lane, the partner rank): progress. */
	void (*on_measure)(uint32_t rank, int round, uint32_t lane, uint32_t peer, void *arg);
	void *on_measure_arg;
};

struct lb_calib {
	uint32_t ranks, lanes;
	double *latency;    /* [rank * lanes + lane], seconds, median */
	double *bandwidth;  /* [rank * lanes + lane], bytes/s, median */
	double latency_median, bandwidth_median; /* over all ranks and lanes */
};

/* Partner of `rank` in calibration round 0 or 1, or -1 when it sits the
 * round out; the job connects these pairs on every lane. */
int lb_calib_partner(uint32_t rank, uint32_t size, int round);

/* Collective: every rank calls it.  Returns 0, or -1 with a reason. */
int lb_calibrate(struct lb_boot *boot, const struct lb_calib_cfg *cfg,
		 struct lb_calib *out, char *err, size_t errlen);

void lb_calib_free(struct lb_calib *c);

#endif
