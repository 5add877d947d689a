/* Progress lines; see progress.h. */
#include "progress.h"

#include <stdio.h>
#include <time.h>

double lb_progress_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void lb_progress_start(struct lb_progress *p, const char *cmd, size_t total,
		       double total_weight, int on)
{
	p->cmd = cmd;
	p->done = 0;
	p->total = total;
	p->done_weight = 0;
	p->total_weight = total_weight;
	p->start = p->last = lb_progress_now();
	p->last_line = -1e9;
	p->on = on;
}

void lb_progress_duration(double s, char *buf, size_t len)
{
	long whole = (long)(s + 0.5);
	if (s < 10)
		snprintf(buf, len, "%.1f s", s);
	else if (whole < 60)
		snprintf(buf, len, "%ld s", whole);
	else if (whole < 3600)
		snprintf(buf, len, "%ld min %ld s", whole / 60, whole % 60);
	else
		snprintf(buf, len, "%ld h %ld min", whole / 3600, whole % 3600 / 60);
}

/* "about 2 min 40 s left", or nothing to go on yet. */
static void estimate(const struct lb_progress *p, double elapsed, char *buf, size_t len)
{
	char left[32];
	if (p->done >= p->total) {
		snprintf(buf, len, "done");
		return;
	}
	if (!(p->done_weight > 0)) {
		snprintf(buf, len, "no estimate yet");
		return;
	}
	lb_progress_duration(elapsed * (p->total_weight - p->done_weight) / p->done_weight, left,
			     sizeof(left));
	snprintf(buf, len, "about %s left", left);
}

void lb_progress_done(struct lb_progress *p, const char *what, double weight)
{
	double now = lb_progress_now(), took = now - p->last, elapsed = now - p->start;
	char t[32], e[32], rest[64];
	p->done++;
	p->done_weight += weight;
	p->last = now;
	if (!p->on || elapsed < p->quiet || (now - p->last_line < p->every && p->done < p->total))
		return;
	p->last_line = now;
	lb_progress_duration(took, t, sizeof(t));
	lb_progress_duration(elapsed, e, sizeof(e));
	estimate(p, elapsed, rest, sizeof(rest));
	fprintf(stderr, "lanebench %s: [%zu/%zu] %s done in %s; elapsed %s, %s\n", p->cmd, p->done,
		p->total, what, t, e, rest);
}
