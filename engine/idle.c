#include "idle.h"

#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

void lb_idle_sleep(int tp_fd, int wake_fd, double seconds)
{
	struct pollfd pf[2] = { { tp_fd, POLLIN, 0 }, { wake_fd, POLLIN, 0 } };
	double t = tp_fd < 0 && seconds > LB_IDLE_NAP ? LB_IDLE_NAP : seconds;
	struct timespec ts = { (time_t)t, (long)((t - (time_t)t) * 1e9) };
	(void)ppoll(pf, 2, &ts, NULL); /* negative fds are ignored; a signal ends it early */
}

/* A new idle period at t: it lingers unless a lost yield left periods to
 * skip. */
static int linger_start(struct lb_linger *l, double t)
{
	l->since = l->last = t;
	l->phase = l->skip > 0 ? LB_LINGER_OFF : LB_LINGERING;
	if (l->skip > 0)
		l->skip--;
	return l->phase == LB_LINGERING;
}

/* The yield before this pass was lost: sleep at once, for the backoff. */
static int linger_lost(struct lb_linger *l)
{
	l->skip = l->backoff ? l->backoff : LB_IDLE_BACKOFF;
	l->backoff = l->skip < LB_IDLE_BACKOFF_MAX ? 2 * l->skip : LB_IDLE_BACKOFF_MAX;
	l->phase = LB_LINGER_OFF;
	return 0;
}

int lb_linger_idle(struct lb_linger *l, double t)
{
	if (l->since == 0)
		return linger_start(l, t);
	if (l->phase != LB_LINGERING)
		return 0;
	double gap = t - l->last;
	l->last = t;
	if (gap > LB_IDLE_YIELD_LOST)
		return linger_lost(l);
	if (t - l->since < LB_IDLE_LINGER)
		return 1;
	l->phase = LB_LINGERED;
	return 0;
}

void lb_linger_busy(struct lb_linger *l)
{
	if (l->since != 0 && l->phase != LB_LINGER_OFF)
		l->backoff = 0; /* it lingered and lost no yield */
	l->since = 0;
}

/* The kernel's struct sched_attr as of Linux 4.18 (linux/sched/types.h,
 * whose definitions clash with <sched.h>); glibc 2.36 wraps neither call. */
struct sched_attr_v1 {
	uint32_t size, sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime, sched_deadline, sched_period; /* ns */
	uint32_t sched_util_min, sched_util_max;
};

int lb_idle_short_slice(void)
{
	struct sched_attr_v1 a = { 0 }; /* a kernel before 5.3 fills 48 bytes of it */
	if (syscall(SYS_sched_getattr, 0, &a, sizeof(a), 0))
		return -1;
	if (a.sched_policy != SCHED_OTHER)
		return 0;
	a.size = sizeof(a);
	a.sched_flags &= 1; /* SCHED_FLAG_RESET_ON_FORK kept; nothing else asked */
	a.sched_runtime = (uint64_t)(LB_IDLE_SLICE * 1e9);
	return syscall(SYS_sched_setattr, 0, &a, 0) ? -1 : 0;
}
