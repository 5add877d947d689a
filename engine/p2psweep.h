/* The point-to-point engine (what `lanebench p2p` runs on every rank of a
 * job of at least two): lane by lane, for each message size, ping-pong
 * latency and windowed streaming bandwidth between ranks 0 and 1 (one way,
 * or both ways at once), straight on the transport (engine/p2p.h), like
 * perftest's ib_write_lat and ib_write_bw (-b).  Ranks beyond 1 only take part in the set-up.  Rank 0 hands
 * one result per (lane, size) to the sink. */
#ifndef LB_P2PSWEEP_H
#define LB_P2PSWEEP_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "executor.h"
#include "result.h"
#include "transports/transport.h"

/* The largest window x message size (bytes): every byte of a window is
 * verified, so its messages lie side by side in the buffer. */
#define LB_P2P_MAX_WINDOW_BYTES (1ull << 30)

struct lb_p2psweep_params {
	const uint64_t *sizes;     /* message sizes, bytes */
	size_t nsizes;
	uint32_t iterations, warmup; /* measured and unmeasured repetitions per size */
	uint32_t window;           /* messages in flight in the bandwidth test */
	int bidirectional;         /* bandwidth both ways at once (perftest -b); latency as ever */
	const char *nics;          /* one lane each: "rail0,rail1", "auto"; NULL: auto */
	const char *transport;     /* "tcp" */
	enum lb_idle idle;
	struct lb_tp_options tp_options;
	double timeout;            /* seconds for every wait; 0: $LANEBENCH_TIMEOUT, else 60 */
	double lane_rate;          /* bytes/s per lane as stated by the user; 0: ask the transport */
	/* The caller's provenance (version, command, options), handed to
	 * the sink with the job's part (hosts, lanes); NULL: none. */
	const struct lb_prov *prov;
	/* Optional: non-zero (a signal's number) stops the sweep, the other
	 * rank told; the run then fails. */
	const atomic_int *stop;
};

/* Collective: every rank of the job calls it; sink is used on rank 0
 * (provenance and begin once the lanes are connected, agreed by all
 * ranks).  Returns 0, or -1 (LB_EPEER when another rank is the cause)
 * with the reason. */
int lb_p2psweep_run(const struct lb_p2psweep_params *p, const struct lb_sink *sink,
		    char *err, size_t errlen);

#endif
