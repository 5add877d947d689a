/* CPU time of this process over the timed part of a benchmark: what a
 * rank spent to move the bytes, every thread of it (lane threads, the
 * main thread, a transport's own threads) plus the kernel's work charged
 * to it (system calls, and the softirq processing -- TCP receive, say --
 * that runs while one of its threads is on the CPU).  Per rank, then
 * summarised across ranks on the rank that records. */
#ifndef LB_CPUTIME_H
#define LB_CPUTIME_H

#include <stdint.h>

/* Seconds of CPU: user and system (getrusage RUSAGE_SELF). */
struct lb_cpu {
	double user, sys;
};

/* This process's CPU time so far. */
void lb_cpu_now(struct lb_cpu *c);

/* acc += (now - since): the CPU time of a window that began at `since`. */
void lb_cpu_add_since(struct lb_cpu *acc, const struct lb_cpu *since);

/* A configuration's CPU per timed iteration, across the ranks (the CSV's
 * cpu_* columns, results/README.md). */
struct lb_cpu_summary {
	double user;          /* mean over ranks of user seconds per iteration */
	double sys;           /* mean over ranks of system seconds per iteration */
	double max_rank;      /* the busiest rank's user + system per iteration */
	double per_gigabyte;  /* all ranks' user + system per iteration over the
			       * gigabytes received, (ranks - 1) x bytes / 1e9;
			       * NaN with one rank (nothing moves) */
};

/* ranks[0..n): each rank's CPU over `iterations` timed iterations of a
 * broadcast of `bytes`. */
void lb_cpu_summarize(const struct lb_cpu *ranks, uint32_t n, uint32_t iterations,
		      uint64_t bytes, struct lb_cpu_summary *out);

#endif
