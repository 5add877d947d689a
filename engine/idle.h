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

/* Sleeps until tp_fd (from the transport's arm()) or wake_fd becomes
 * readable, at most `seconds` -- at most LB_IDLE_NAP when tp_fd is -1.
 * Either fd may be -1 (none).  Reads neither: tp_fd is the transport's,
 * wake_fd its owner's to drain. */
void lb_idle_sleep(int tp_fd, int wake_fd, double seconds);

#endif
