/* One way to report an error: format a one-line reason into the caller's
 * buffer and return -1, so `return lb_errf(err, len, "...", x);` both
 * explains and fails.  err may be NULL (or len 0): then only -1. */
#ifndef LB_ERROR_H
#define LB_ERROR_H

#include <stddef.h>

int lb_errf(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Returned instead of -1 when the failure is another rank's: it died,
 * disconnected, stopped answering, or failed and said so.  The reason
 * names that rank; `lanebench` exits with status 3 (LB_EXIT_PEER). */
#define LB_EPEER (-2)

/* Returned instead of -1 when the input is at fault and every rank sees it
 * alike (a schedule over a link the platform lacks): `lanebench` exits
 * with status 2 (LB_EXIT_USAGE), as plan and sim do for the same input. */
#define LB_EINPUT (-3)

#endif
