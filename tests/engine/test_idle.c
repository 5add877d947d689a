/* engine/idle.c's linger rule on a made-up clock: a loop yields while
 * LB_IDLE_LINGER lasts, sleeps at once after a lost yield (one that kept
 * it off the core for longer than that) for LB_IDLE_BACKOFF idle periods,
 * twice as many after each loss in a row, and starts over once a period
 * lingers without a loss.  Then lb_idle_short_slice on this thread: the
 * slice where the kernel reports it, the nice value kept. */
#include "check.h"
#include "engine/idle.h"

#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#define STEP 5e-6 /* a pass that yielded to another lingering thread */

/* One idle period starting at *t whose yields each take `yield`
 * seconds; the yields it makes (0: it slept at once). */
static int period(struct lb_linger *l, double *t, double yield)
{
	int yields = 0;
	lb_linger_busy(l);
	while (lb_linger_idle(l, *t) && yields < 1000) {
		yields++;
		*t += yield;
	}
	*t += 1e-3; /* it sleeps; something arrives */
	return yields;
}

/* Periods in a row that sleep at once; it returns in the first one that
 * lingers (its first pass made, the rest up to the caller). */
static int periods_off(struct lb_linger *l, double *t)
{
	int n = 0;
	for (lb_linger_busy(l); !lb_linger_idle(l, *t) && n < 100000; lb_linger_busy(l)) {
		*t += 1e-3;
		n++;
	}
	return n;
}

/* In a lingering period: its next yield takes 3 ms.  Whether it stopped. */
static int lose_yield(struct lb_linger *l, double *t)
{
	*t += 3e-3;
	int stopped = !lb_linger_idle(l, *t);
	*t += 1e-3;
	return stopped;
}

/* The kernel's struct sched_attr (as engine/idle.c spells it). */
struct attr {
	uint32_t size, policy;
	uint64_t flags;
	int32_t nice;
	uint32_t priority;
	uint64_t runtime, deadline, period;
	uint32_t util_min, util_max;
};

/* The running kernel is major.minor or later. */
static int kernel_at_least(int major, int minor)
{
	struct utsname u;
	int a = 0, b = 0;
	if (uname(&u) || sscanf(u.release, "%d.%d", &a, &b) != 2)
		return 0;
	return a > major || (a == major && b >= minor);
}

static void short_slice(void)
{
	pid_t tid = (pid_t)syscall(SYS_gettid);
	struct attr a = { 0 };
	CHECK(setpriority(PRIO_PROCESS, (id_t)tid, 5) == 0, "nice 5: %s", strerror(errno));
	if (lb_idle_short_slice() != 0 && (errno == EPERM || errno == ENOSYS)) {
		/* seccomp or an LSM: the policy takes a refusal as "no short slice" */
		printf("linger: sched_setattr refused here (%s): the slice not checked\n",
		       strerror(errno));
		return;
	}
	CHECK(lb_idle_short_slice() == 0, "short slice refused: %s", strerror(errno));
	errno = 0;
	CHECK(getpriority(PRIO_PROCESS, (id_t)tid) == 5 && errno == 0,
	      "nice kept at 5 (it was %d)", getpriority(PRIO_PROCESS, (id_t)tid));
	CHECK(syscall(SYS_sched_getattr, 0, &a, sizeof(a), 0) == 0 && a.policy == SCHED_OTHER,
	      "policy kept");
	/* Linux 6.12 and later report a thread's own slice (EEVDF's custom
	 * slices); before, 0, and the request is ignored. */
	if (kernel_at_least(6, 12))
		CHECK(a.runtime == (uint64_t)(LB_IDLE_SLICE * 1e9), "slice %llu ns, want %.0f",
		      (unsigned long long)a.runtime, LB_IDLE_SLICE * 1e9);
	else
		printf("linger: a kernel before 6.12 keeps no slice: not checked\n");
}

int main(void)
{
	short_slice();

	struct lb_linger l = { 0 };
	double t = 100.0;
	int y = period(&l, &t, STEP);
	CHECK(y >= (int)(LB_IDLE_LINGER / STEP) - 1 && y <= (int)(LB_IDLE_LINGER / STEP) + 1,
	      "quick yields: it lingers LB_IDLE_LINGER (%d yields of %g s)", y, STEP);
	CHECK(period(&l, &t, STEP) == y, "and again the next period");

	/* The pass after the linger, after the sleep, is no lost yield. */
	lb_linger_busy(&l);
	while (lb_linger_idle(&l, t))
		t += STEP;
	CHECK(!lb_linger_idle(&l, t + 5e-3), "after its sleep: still sleeps, no loss");
	CHECK(period(&l, &t, STEP) > 0, "a long sleep lost nothing: the next period lingers");

	CHECK(periods_off(&l, &t) == 0 && lose_yield(&l, &t), "a yield that took 3 ms: it stops");
	int off = periods_off(&l, &t);
	CHECK(off == LB_IDLE_BACKOFF, "then sleeps at once %d periods (want %d)", off,
	      LB_IDLE_BACKOFF);
	CHECK(lose_yield(&l, &t), "lost again right after the backoff");
	off = periods_off(&l, &t);
	CHECK(off == 2 * LB_IDLE_BACKOFF, "a loss in a row doubles it: %d periods", off);
	for (int i = 0; i < 20; i++) {
		lose_yield(&l, &t);
		off = periods_off(&l, &t);
	}
	CHECK(off == LB_IDLE_BACKOFF_MAX, "up to LB_IDLE_BACKOFF_MAX: %d", off);

	/* This period lingers to its end without a loss: the count starts over. */
	while (lb_linger_idle(&l, t))
		t += STEP;
	CHECK(period(&l, &t, STEP) > 0, "the next period lingers");
	CHECK(periods_off(&l, &t) == 0 && lose_yield(&l, &t), "lost once more");
	off = periods_off(&l, &t);
	CHECK(off == LB_IDLE_BACKOFF, "after a clean period: %d again (got %d)", LB_IDLE_BACKOFF,
	      off);
	return check_status("linger");
}
