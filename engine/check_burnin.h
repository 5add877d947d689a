/* Burn-in (lanebench check --duration): phase 1 repeated until the
 * duration is over, its figures kept per interval, so a port that is
 * fine at first and degrades warm, or a link that flaps, is named with
 * the interval it went wrong in.  These are the pure parts: one port's
 * series summarised and judged (check_burnin.c; the loop that measures
 * is there too, declared in check_private.h). */
#ifndef LB_ENGINE_CHECK_BURNIN_H
#define LB_ENGINE_CHECK_BURNIN_H

#include <stddef.h>
#include <stdint.h>

#include "check_expect.h"

/* Without --max-spread a port warns when its rate varied by more than
 * this share of its best over the intervals. */
#define LB_BURNIN_MAX_SPREAD 0.2

/* One port's rates over the intervals, bytes/s.  An interval that did
 * not measure the port (NaN: its pairs failed) counts as 0: no traffic. */
struct lb_burnin_port {
	uint32_t intervals;
	double min_tx, min_rx, max_tx, max_rx;
	double spread;   /* (max - min) / max, the larger of tx's and rx's; NaN: none */
};

void lb_burnin_summarise(const double *tx, const double *rx, uint32_t n,
			 struct lb_burnin_port *out);

/* What a port should reach and how much it may move. */
struct lb_burnin_limits {
	double tx, rx;       /* expected, bytes/s; NaN or 0: unknown (only the spread judged) */
	double min_bw;       /* an interval below this share of expected fails the port */
	double max_spread;   /* a spread above this warns */
};

/* The port's verdict over n intervals: FAIL naming each interval below
 * min_bw of expected ("interval 3 of 10: tx at 41 % of expected"), WARN
 * for a spread above max_spread, else PASS.  The reason, whole, in why
 * ("" for PASS). */
enum lb_level lb_burnin_judge(const double *tx, const double *rx, uint32_t n,
			      const struct lb_burnin_limits *lim, char *why, size_t len);

#endif
