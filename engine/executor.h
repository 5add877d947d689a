/* The executor: runs this rank's part of a schedule on a transport, one
 * progress thread per lane.  Sends and receives of a lane proceed
 * independently; a shared presence map (one flag per block, set at the
 * start for the blocks the rank owns) releases a SEND as soon as its
 * blocks arrived on any lane.  BARRIER ops become zero-byte messages on
 * their lane (exec_barrier.h). */
#ifndef LB_EXECUTOR_H
#define LB_EXECUTOR_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "algos/schedule.h"
#include "idle.h"
#include "transports/transport.h"

struct lb_exec_cfg {
	const struct lb_schedule *sched;
	uint32_t rank;
	const struct lb_transport *tp_ops;
	struct lb_tp *tp;
	uint8_t *buf;        /* the registered message buffer, sched->bytes */
	enum lb_idle idle;   /* what a lane thread does with nothing to do (idle.h) */
	double timeout;      /* seconds an iteration may take */
	/* Optional: non-zero asks to stop (a signal's number); the iteration
	 * then fails at once instead of running to its end. */
	const atomic_int *stop;
	/* Optional: called first in each lane thread, to pin it. */
	void (*pin)(uint32_t lane, void *arg);
	void *pin_arg;
};

struct lb_exec;

/* Starts the lane threads. */
int lb_exec_new(const struct lb_exec_cfg *cfg, struct lb_exec **out,
		char *err, size_t errlen);

/* One run of the schedule's collective; *seconds is this rank's elapsed time
 * from the start to its last completion.  On failure the reason names the
 * lane and the peer; returns -1, or LB_EPEER (lib/error.h) when a
 * transport lost the peer. */
int lb_exec_iteration(struct lb_exec *x, double *seconds, char *err,
		      size_t errlen);

/* Stops and joins the lane threads. */
void lb_exec_free(struct lb_exec *x);

#endif
