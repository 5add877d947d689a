#include "cputime.h"

#include <math.h>
#include <sys/resource.h>

static double seconds(struct timeval tv)
{
	return tv.tv_sec + tv.tv_usec * 1e-6;
}

void lb_cpu_now(struct lb_cpu *c)
{
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru) != 0) { /* cannot fail for RUSAGE_SELF */
		*c = (struct lb_cpu){ 0, 0 };
		return;
	}
	*c = (struct lb_cpu){ seconds(ru.ru_utime), seconds(ru.ru_stime) };
}

void lb_cpu_add_since(struct lb_cpu *acc, const struct lb_cpu *since)
{
	struct lb_cpu now;
	lb_cpu_now(&now);
	acc->user += now.user - since->user;
	acc->sys += now.sys - since->sys;
}

void lb_cpu_summarize(const struct lb_cpu *ranks, uint32_t n, uint32_t iterations,
		      uint64_t bytes, struct lb_cpu_summary *out)
{
	double user = 0, sys = 0, busiest = 0, per = iterations ? 1.0 / iterations : NAN;
	for (uint32_t k = 0; k < n; k++) {
		user += ranks[k].user;
		sys += ranks[k].sys;
		busiest = fmax(busiest, ranks[k].user + ranks[k].sys);
	}
	double gigabytes = n > 1 ? (double)(n - 1) * (double)bytes / 1e9 : 0;
	*out = (struct lb_cpu_summary){
		.user = n ? user / n * per : NAN,
		.sys = n ? sys / n * per : NAN,
		.max_rank = busiest * per,
		.per_gigabyte = gigabytes > 0 ? (user + sys) * per / gigabytes : NAN,
	};
}
