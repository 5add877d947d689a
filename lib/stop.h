/* Stopping a sweep early without losing what it measured.
 *
 * Once a command has results to keep (its CSV is open), lb_stop_arm()
 * installs handlers for SIGINT, SIGTERM and SIGHUP that only record the
 * signal, and ignores SIGPIPE, so that a write to a closed pipe fails with
 * EPIPE instead of killing the process (the writer then calls
 * lb_stop_request(SIGPIPE)).  The sweep polls lb_stop_flag() between rows
 * or iterations, closes its CSV as incomplete, and lb_stop_exit() ends the
 * process by the same signal, so the shell sees 130 (INT), 143 (TERM), 129
 * (HUP) or 141 (PIPE) as for any program stopped that way.
 *
 * Before arming, the default dispositions stand: a signal kills at once,
 * which loses nothing.  A signal ignored when the process started (nohup,
 * a background job without job control) stays ignored. */
#ifndef LB_STOP_H
#define LB_STOP_H

#include <signal.h>
#include <stdatomic.h>

void lb_stop_arm(void);

/* The signal that asked to stop, 0 if none: poll *lb_stop_flag().  An
 * atomic, not a volatile sig_atomic_t: the sweeps' worker threads read it
 * while a handler may write it, and only an atomic makes that no data
 * race; it is lock-free (stop.c checks), so the handler may set it. */
const atomic_int *lb_stop_flag(void);

/* Whether a stop was asked, for the long loops deep in the program that
 * no caller can interrupt between steps: the schedule builders, the
 * simulators' event loops, the LP solve.  They poll it every few thousand
 * steps (LB_STOP_POLL_EVERY) and give up as if they had failed; their
 * caller finds the flag set and reports the stop, not a failure. */
int lb_stop_requested(void);

#define LB_STOP_POLL_EVERY 4096

/* Asks to stop as if sig had arrived (a write failed with EPIPE). */
void lb_stop_request(int sig);

/* "interrupted (SIGINT)", "terminated (SIGTERM)", "hung up (SIGHUP)",
 * "stdout closed (SIGPIPE)": why the sweep stopped, for the CSV trailer. */
const char *lb_stop_reason(int sig);

/* Flushes stdio, restores sig's default action and raises it: the exit
 * status says which signal stopped the run.  Never returns. */
void lb_stop_exit(int sig) __attribute__((noreturn));

#endif
