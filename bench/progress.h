/* Progress lines on stderr for a sweep whose stderr is a log (not a
 * terminal: scripts/cluster run, srun, a redirect), one per finished
 * configuration:
 *
 *	lanebench bcast: [3/40] chain 1M slice 64K done in 0.8 s; elapsed 12 s, about 2 min 40 s left
 *
 * The estimate assumes time proportional to a configuration's weight
 * (the caller's: bcast and p2p weigh bytes plus 64 KiB, so small messages
 * still cost something; sim weighs its events): remaining weight x
 * elapsed / finished weight, counted from lb_progress_start (after the
 * set-up and calibration).  The lines can be held back for a while
 * (sim: quiet for the first 2 s) and spaced (sim: at most one a second).
 * "done in" is the time since the previous configuration was reported:
 * sim runs several at once and reports them in order, so there it is not
 * one configuration's own time. */
#ifndef LB_PROGRESS_H
#define LB_PROGRESS_H

#include <stddef.h>

struct lb_progress {
	const char *cmd;      /* "bcast" */
	size_t done, total;   /* configurations */
	double done_weight, total_weight;
	double start, last, last_line; /* monotonic seconds */
	double quiet, every;  /* no line before start + quiet, nor within every of the last */
	int on;               /* print at all */
};

/* Monotonic seconds. */
double lb_progress_now(void);

/* Starts counting now.  on: whether to print (callers pass "stderr is not
 * a terminal", or 1 for sim). */
void lb_progress_start(struct lb_progress *p, const char *cmd, size_t total,
		       double total_weight, int on);

/* One configuration finished: what (e.g. "chain 1M slice 64K") and its
 * weight; prints the line when due. */
void lb_progress_done(struct lb_progress *p, const char *what, double weight);

/* "0.8 s", "12 s", "2 min 40 s", "3 h 5 min". */
void lb_progress_duration(double s, char *buf, size_t len);

#endif
