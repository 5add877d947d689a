/* See stop.h. */
#include "stop.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A lock-free atomic is async-signal-safe; a locked one would not be. */
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "the stop flag must be lock-free");

static atomic_int stop_signal;

static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };

/* STYLE 7: a handler only records. */
static void on_signal(int sig)
{
	int none = 0; /* the first signal is the one the exit status names */
	atomic_compare_exchange_strong(&stop_signal, &none, sig);
}

/* SA_RESTART: a write blocked on a slow reader resumes instead of failing
 * half way through a row. */
static void record(int sig)
{
	struct sigaction sa, old;
	if (sigaction(sig, NULL, &old) == 0 && old.sa_handler == SIG_IGN)
		return; /* ignored by whoever started us: keep it so */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

void lb_stop_arm(void)
{
	for (size_t i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
		record(stop_signals[i]);
	signal(SIGPIPE, SIG_IGN);
}

const atomic_int *lb_stop_flag(void)
{
	return &stop_signal;
}

int lb_stop_requested(void)
{
	return atomic_load_explicit(&stop_signal, memory_order_relaxed) != 0;
}

void lb_stop_request(int sig)
{
	on_signal(sig);
}

const char *lb_stop_reason(int sig)
{
	switch (sig) {
	case SIGINT:
		return "interrupted (SIGINT)";
	case SIGTERM:
		return "terminated (SIGTERM)";
	case SIGHUP:
		return "hung up (SIGHUP)";
	case SIGPIPE:
		return "stdout closed (SIGPIPE)";
	default:
		return "stopped by a signal";
	}
}

void lb_stop_exit(int sig)
{
	sigset_t set;
	fflush(NULL);
	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
	_Exit(128 + sig); /* only if the default action did not end us */
}
