/* The broadcast benchmark engine (what `lanebench bcast` runs on every
 * rank): bootstrap, lanes, transport, calibration, then for each
 * (algorithm, size, slice) warm-up and timed iterations of the schedule,
 * every iteration's bytes verified on every rank, times gathered to rank 0,
 * predictions from the cost table and the simulator beside them.
 *
 * The parameters are one immutable struct; results are records handed to
 * a sink on rank 0.  The engine formats nothing. */
#ifndef LB_BCAST_H
#define LB_BCAST_H

#include <stddef.h>
#include <stdint.h>

#include "algos/algos.h"
#include "executor.h"
#include "stats.h"
#include "transports/transport.h"

/* Where a rank is in the sweep, told just before an iteration's data
 * phase (after the barrier that starts it: every rank is in it). */
struct lb_bcast_step {
	uint32_t rank;
	const char *algorithm;
	uint64_t bytes, slice_bytes;
	size_t config, nconfigs;        /* 0-based configuration of the sweep; their count */
	uint32_t iteration, iterations; /* 1-based, warm-up ones included; their count */
};

struct lb_bcast_params {
	const struct lb_algo *const *algos;
	size_t nalgos;
	const uint64_t *sizes;
	size_t nsizes;
	const uint64_t *slices;    /* slice sizes; 0 = whole message */
	size_t nslices;
	uint32_t iterations, warmup;
	uint32_t root;
	int stripe_off;
	enum lb_allgather allgather;
	const char *lanes;         /* "rail0,rail1", "auto", or NULL: $LANEBENCH_LANES */
	const char *transport;     /* "tcp" */
	enum lb_idle idle;
	struct lb_tp_options tp_options; /* --tp-opt KEY=VALUE items, for the transport */
	double timeout;            /* seconds: every wait, from the rendezvous to one
				    * iteration; 0 = $LANEBENCH_TIMEOUT, else 60 */
	double lane_rate;          /* bytes/s per lane as stated by the user; 0 = ask the transport */
	uint64_t calib_bytes;      /* bandwidth calibration message size; 0 = skip calibration */
	int pin;                   /* bind lane threads near their NIC (hwloc) */
	/* Optional, on every rank: each iteration's start (progress, logs). */
	void (*on_iteration)(const struct lb_bcast_step *step, void *arg);
	void *on_iteration_arg;
	/* Optional: non-zero (a signal's number) stops the sweep at once, the
	 * other ranks told; lb_bcast_run then fails with "stopped by signal". */
	const volatile sig_atomic_t *stop;
};

struct lb_bcast_result {
	const char *algorithm, *transport;
	uint32_t ranks, lanes, root;
	int stripe_off;
	enum lb_idle idle;
	uint64_t bytes, slice_bytes;
	uint32_t slices;            /* blocks of the schedule */
	uint32_t iterations, warmup;
	struct lb_stats time;       /* seconds; per iteration the slowest rank */
	double algbw;               /* bytes / median time; NaN for 1 rank (nothing moves) */
	double lane_rate;           /* bytes/s, 0 = unknown */
	double efficiency;          /* (M / (k x lane_rate)) / median; NaN unknown */
	double calib_latency;       /* medians of the calibration */
	double calib_lane_bw;
	double table, refined, sim; /* predicted seconds; NaN = not available */
	double over_table, over_refined, over_sim; /* median / predicted */
	uint64_t verified_bytes;    /* bytes checked on all ranks, all iterations */
	uint32_t ncounters;         /* the transport's counters; 0: it has none */
	struct lb_tp_counter counters[LB_TP_COUNTERS_MAX]; /* summed over ranks, warm-up and
							      * timed iterations */
};

/* Called on rank 0 for every configuration, in sweep order. */
typedef int (*lb_bcast_sink)(const struct lb_bcast_result *r, void *arg);

/* Collective: every rank of the job calls it.  Returns 0, or -1 with a
 * reason naming the rank, lane or value that failed -- LB_EPEER
 * (lib/error.h) when another rank is the cause: it died, disconnected,
 * stopped answering or failed itself.  A rank that lost a peer mid-run
 * names the root cause when there is one to learn (that peer's own
 * report, or the rank whose death started it). */
int lb_bcast_run(const struct lb_bcast_params *prm, lb_bcast_sink sink,
		 void *sink_arg, char *err, size_t errlen);

#endif
