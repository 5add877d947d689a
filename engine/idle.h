/* What a progress loop (a lane thread of the executor, the p2p loop) does
 * when a poll found nothing: the idle policy.  It belongs to the engine;
 * a transport only offers a way to sleep (arm(), transports/transport.h),
 * and lb_idle_sleep() sleeps on it. */
#ifndef LB_IDLE_H
#define LB_IDLE_H

/* Spin (lowest latency, one core per lane), yield the core, or sleep --
 * the only sane choice with more threads than cores. */
enum lb_idle { LB_IDLE_SPIN, LB_IDLE_YIELD, LB_IDLE_SLEEP };

/* The longest sleep of a loop: it checks its deadline and the stop flag
 * at least this often. */
#define LB_IDLE_MAX_SLEEP 10e-3

/* The nap of a loop whose transport has nothing to sleep on (no arm(), or
 * arm() returned -1): short, so a polling transport (dpdk) keeps the pace
 * of its acks and retransmissions when ranks share cores.  (Tried with
 * dpdk: 20 us naps with a 1 us timer slack halve the 8-byte p2p latency,
 * 67 -> 33 us, but made 8 x 2 broadcasts ~20% slower on 2 busy cores:
 * wakeups steal the CPU.) */
#define LB_IDLE_NAP 50e-6

/* How long the sleep policy keeps polling (yielding the core between
 * polls) before it arms the transport and sleeps: a message due within
 * that time is taken without a wake-up, whose scheduling delay on busy
 * shared cores is tens of microseconds per hop.  Yielding leaves the core
 * to any thread that can run. */
#define LB_IDLE_LINGER 50e-6

/* A yield is lost when it kept the loop off the core for longer than
 * LB_IDLE_YIELD_LOST: the core went to a thread that runs until its time
 * slice ends (a CPU-bound one of the same scheduling group -- the same
 * session's autogroup), milliseconds, not the microseconds another
 * lingering thread takes.  (At 50 us, under load from other sessions, it
 * counted losses where lingering still paid.)  A loop whose yield was
 * lost sleeps at once for
 * its next LB_IDLE_BACKOFF idle periods, twice as many after each loss in
 * a row (up to LB_IDLE_BACKOFF_MAX); a period that lingers without a loss
 * starts the count over.  Measured on 8 x 2 emulated hosts, 8-byte
 * multilane broadcasts, a busy loop of the same session on one core:
 * median 3.5-3.6 ms lingering, 0.53-0.57 ms sleeping at once; 0.30-0.43
 * ms lingering without the busy loop (docs/benchmarks/bench-small.md). */
#define LB_IDLE_YIELD_LOST 500e-6
#define LB_IDLE_BACKOFF 16
#define LB_IDLE_BACKOFF_MAX 1024

/* A loop's lingering state, kept across its idle periods. */
struct lb_linger {
	double since;      /* when the loop found nothing to do; 0 while busy */
	double last;       /* its previous idle pass in this period */
	unsigned skip;     /* idle periods left that sleep at once */
	unsigned backoff;  /* skip after the next lost yield; 0: LB_IDLE_BACKOFF */
	enum { LB_LINGERING, LB_LINGERED, LB_LINGER_OFF } phase; /* of this period:
	    yielding; past LB_IDLE_LINGER, no yield lost; sleeping at once */
};

/* Nothing moved at time t (seconds, one clock): 1 to yield the core and
 * poll again, 0 to arm the transport and sleep. */
int lb_linger_idle(struct lb_linger *l, double t);

/* Something moved: the next idle pass starts a new period. */
void lb_linger_busy(struct lb_linger *l);

/* The time slice the sleep policy asks of the scheduler for a thread of
 * a progress loop: a thread woken by an arrival runs a few microseconds
 * and sleeps again, but behind a CPU-bound thread of the same scheduling
 * group on its core (lanes are pinned: it cannot move) it waited for that
 * thread's whole slice, milliseconds per hop.  EEVDF (Linux 6.12 and
 * later) lets a woken thread with a shorter slice than the running one's
 * preempt it; older kernels ignore the request.  8 x 2 emulated hosts,
 * 8-byte broadcasts, a busy loop of the same session on CPU 0, the six
 * algorithms' medians (geometric mean per launch): 3.6-3.8 ms before,
 * 0.92-0.93 ms with this slice and the linger's backoff, 2.5-3.3 ms
 * without the slice, 1.5-2.0 ms without the backoff (docs/benchmarks/
 * bench-small.md).  100 us is the shortest the kernel takes. */
#define LB_IDLE_SLICE 100e-6

/* Asks for LB_IDLE_SLICE for the calling thread, keeping its policy and
 * nice value (a thread not under SCHED_OTHER is left alone).  0, or -1
 * when the kernel refused (nothing changed: a plain slice is only
 * slower). */
int lb_idle_short_slice(void);

/* Sleeps until tp_fd (from the transport's arm()) or wake_fd becomes
 * readable, at most `seconds` -- at most LB_IDLE_NAP when tp_fd is -1.
 * Either fd may be -1 (none).  Reads neither: tp_fd is the transport's,
 * wake_fd its owner's to drain. */
void lb_idle_sleep(int tp_fd, int wake_fd, double seconds);

#endif
