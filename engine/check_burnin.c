/* Burn-in: phase 1 again and again for --duration, its figures kept per
 * interval; a port's series judged (check_burnin.h) and, after every
 * interval, one progress line on rank 0.  See check.h. */
#include "check_burnin.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check_private.h"
#include "launch/bootstrap.h"
#include "lib/error.h"
#include "stats.h"

/* ---- one port's series (pure) --------------------------------------------- */

static double or_zero(double v)
{
	return isnan(v) ? 0 : v;
}

static double spread_of(double lo, double hi)
{
	return hi > 0 ? (hi - lo) / hi : NAN;
}

void lb_burnin_summarise(const double *tx, const double *rx, uint32_t n,
			 struct lb_burnin_port *out)
{
	*out = (struct lb_burnin_port){ .intervals = n, .min_tx = NAN, .min_rx = NAN,
					.max_tx = NAN, .max_rx = NAN, .spread = NAN };
	for (uint32_t i = 0; i < n; i++) {
		double t = or_zero(tx[i]), r = or_zero(rx[i]);
		out->min_tx = i ? fmin(out->min_tx, t) : t;
		out->max_tx = i ? fmax(out->max_tx, t) : t;
		out->min_rx = i ? fmin(out->min_rx, r) : r;
		out->max_rx = i ? fmax(out->max_rx, r) : r;
	}
	double st = spread_of(out->min_tx, out->max_tx), sr = spread_of(out->min_rx, out->max_rx);
	out->spread = isnan(st) ? sr : isnan(sr) ? st : fmax(st, sr);
}

/* The share of expected interval i reached: the lower of tx's and rx's
 * (which names it); NaN when nothing says what to expect. */
static double interval_ratio(double tx, double rx, const struct lb_burnin_limits *lim,
			     const char **which)
{
	double rt = lim->tx > 0 ? or_zero(tx) / lim->tx : NAN;
	double rr = lim->rx > 0 ? or_zero(rx) / lim->rx : NAN;
	*which = isnan(rt) || rr < rt ? "rx" : "tx";
	return isnan(rt) || rr < rt ? rr : rt;
}

/* Appends to a fixed buffer; what does not fit is cut. */
static void append(char *buf, size_t len, size_t *used, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void append(char *buf, size_t len, size_t *used, const char *fmt, ...)
{
	va_list ap;
	if (*used >= len)
		return;
	va_start(ap, fmt);
	int n = vsnprintf(buf + *used, len - *used, fmt, ap);
	va_end(ap);
	*used += n > 0 ? (size_t)n : 0;
}

/* Intervals named one by one in a reason; the rest counted. */
#define BURNIN_LISTED 8

static void describe_interval(char *buf, size_t len, size_t *used, uint32_t i, uint32_t n,
			      double tx, double rx, double ratio, const char *which)
{
	append(buf, len, used, "%sinterval %u of %u: ", *used ? "; " : "", i + 1, n);
	if (isnan(tx) || isnan(rx))
		append(buf, len, used, "no traffic");
	else
		append(buf, len, used, "%s at %.0f %% of expected", which, 100 * ratio);
}

enum lb_level lb_burnin_judge(const double *tx, const double *rx, uint32_t n,
			      const struct lb_burnin_limits *lim, char *why, size_t len)
{
	size_t used = 0;
	uint32_t below = 0, lowest = 0;
	double low = INFINITY;
	const char *which, *low_which = "tx";
	why[0] = '\0';
	for (uint32_t i = 0; i < n; i++) {
		double r = interval_ratio(tx[i], rx[i], lim, &which);
		if (!(r < lim->min_bw))
			continue;
		if (r < low)
			low = r, lowest = i, low_which = which;
		if (below++ < BURNIN_LISTED)
			describe_interval(why, len, &used, i, n, tx[i], rx[i], r, which);
	}
	if (below > BURNIN_LISTED)
		append(why, len, &used, "; %u more", below - BURNIN_LISTED);
	if (below && below == n) {
		snprintf(why, len, "below %.0f %% of expected in every one of %u intervals (lowest: "
			 "interval %u, %s at %.0f %%): slow throughout, not intermittent",
			 100 * lim->min_bw, n, lowest + 1, low_which, 100 * low);
		return LB_FAIL;
	}
	if (below) {
		append(why, len, &used, " (min %.0f %%): a flapping link or a port that degrades warm",
		       100 * lim->min_bw);
		return LB_FAIL;
	}
	struct lb_burnin_port s;
	lb_burnin_summarise(tx, rx, n, &s);
	if (!(s.spread > lim->max_spread))
		return LB_PASS;
	snprintf(why, len, "its rate varied by %.0f %% over %u intervals (tx %.4g to %.4g Mbit/s, "
		 "rx %.4g to %.4g Mbit/s; max %.0f %%): unsteady", 100 * s.spread, n,
		 s.min_tx * 8e-6, s.max_tx * 8e-6, s.min_rx * 8e-6, s.max_rx * 8e-6,
		 100 * lim->max_spread);
	return LB_WARN;
}

/* ---- the loop, on every rank ------------------------------------------------ */

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double interval_of(const struct lb_check_params *p)
{
	return p->interval > 0 ? p->interval : p->duration / 10;
}

/* Room for every interval: each but the last ends at a boundary of the
 * schedule (k x interval), so there are at most ceil(duration / interval). */
static int burnin_alloc(const struct check *c, struct check_burnin *b, char *err, size_t len)
{
	double planned = ceil(c->p->duration / interval_of(c->p) - 1e-9);
	b->planned = planned < 1 ? 1 : planned > 1e6 ? 1000000 : (uint32_t)planned;
	b->cap = b->planned + 1;
	b->ports = c->job.size * c->job.lanes;
	b->tx = malloc((size_t)b->cap * b->ports * sizeof(double));
	b->rx = malloc((size_t)b->cap * b->ports * sizeof(double));
	if (!b->tx || !b->rx)
		return lb_errf(err, len, "out of memory");
	for (size_t i = 0; i < (size_t)b->cap * b->ports; i++)
		b->tx[i] = b->rx[i] = NAN;
	return 0;
}

void check_burnin_free(struct check_burnin *b)
{
	free(b->tx);
	free(b->rx);
	*b = (struct check_burnin){ 0 };
}

static double best(double a, double b)
{
	return isnan(a) ? b : isnan(b) ? a : fmax(a, b);
}

/* The pass's figure of every port, best over its partners as the
 * verdicts read them (check_port_rates), folded into the interval's:
 * best over its passes, as over partners (noise only slows). */
static void fold_pass(const struct check *c, struct check_burnin *b)
{
	const struct check_all a = { .p = c->p, .size = c->job.size, .lanes = c->job.lanes,
				     .rounds = c->rounds, .slots = c->slots, .pairs = c->all };
	double *tx = &b->tx[(size_t)b->n * b->ports], *rx = &b->rx[(size_t)b->n * b->ports];
	for (uint32_t i = 0; i < b->ports; i++) {
		double t, r;
		check_port_rates(&a, i / c->job.lanes, i % c->job.lanes, &t, &r);
		tx[i] = best(tx[i], t);
		rx[i] = best(rx[i], r);
	}
}

enum { BURNIN_INTERVAL_OVER = 1, BURNIN_DONE = 2 };

/* Rank 0's clock decides for everyone (the others are told), so every
 * rank runs the same passes and nobody waits at a barrier alone.  A pass
 * already started finishes: the duration is over at the first pass's end
 * after it. */
static int32_t decide(const struct check *c, const struct check_burnin *b)
{
	double t = now() - b->t0;
	int done = t >= c->p->duration || (c->p->stop && *c->p->stop) || b->n + 1 >= b->cap;
	int over = done || t >= (b->n + 1) * interval_of(c->p);
	return (over ? BURNIN_INTERVAL_OVER : 0) | (done ? BURNIN_DONE : 0);
}

/* "45s", "10m", "1h05m" */
static void span_text(double s, char *buf, size_t len)
{
	long v = lround(s);
	if (v < 120)
		snprintf(buf, len, "%lds", v);
	else if (v < 7200)
		snprintf(buf, len, "%ldm", (v + 30) / 60);
	else
		snprintf(buf, len, "%ldh%02ldm", v / 3600, (v % 3600 + 30) / 60);
}

/* The median of the measured values among n (NaN: none). */
static double median_measured(const double *v, uint32_t n)
{
	double *m = malloc(((size_t)n + 1) * sizeof(*m));
	uint32_t k = 0;
	struct lb_stats st = { .median = NAN };
	for (uint32_t i = 0; m && i < n; i++)
		if (!isnan(v[i]))
			m[k++] = v[i];
	if (m && k)
		lb_stats_compute(m, k, &st);
	free(m);
	return st.median;
}

/* What an interval's port is held to in a progress line: --lane-rate,
 * else the median of the interval's ports (the verdicts at the end use
 * what each port's row expects). */
static struct lb_burnin_limits progress_limits(const struct check *c, const double *tx,
					       const double *rx, uint32_t ports)
{
	double lr = c->p->lane_rate;
	return (struct lb_burnin_limits){ .tx = lr > 0 ? lr : median_measured(tx, ports),
					  .rx = lr > 0 ? lr : median_measured(rx, ports),
					  .min_bw = c->p->min_bw };
}

/* "burn-in 3/10 (3m of 10m): 16 ports, lowest rank 5 lane 1 at 61% of
 * expected, 0 failing" */
static void progress(const struct check *c, const struct check_burnin *b, double elapsed)
{
	const double *tx = &b->tx[(size_t)b->n * b->ports], *rx = &b->rx[(size_t)b->n * b->ports];
	struct lb_burnin_limits lim = progress_limits(c, tx, rx, b->ports);
	uint32_t failing = 0, lowest = 0;
	double low = INFINITY;
	const char *which;
	char line[256], at[48], of[48];
	for (uint32_t i = 0; i < b->ports; i++) {
		double r = interval_ratio(tx[i], rx[i], &lim, &which);
		failing += r < lim.min_bw;
		if (r < low)
			low = r, lowest = i;
	}
	span_text(elapsed, at, sizeof(at));
	span_text(c->p->duration, of, sizeof(of));
	int n = snprintf(line, sizeof(line), "burn-in %u/%u (%s of %s): %u ports", b->n + 1,
			 b->planned > b->n + 1 ? b->planned : b->n + 1, at, of, b->ports);
	if (isfinite(low) && n > 0 && (size_t)n < sizeof(line))
		snprintf(line + n, sizeof(line) - (size_t)n,
			 ", lowest rank %u lane %u at %.0f%% of expected, %u failing",
			 lowest / c->job.lanes, lowest % c->job.lanes, 100 * low, failing);
	c->p->progress(c->p->progress_ctx, line);
}

static void close_interval(const struct check *c, struct check_burnin *b)
{
	if (c->job.rank == 0 && c->p->progress)
		progress(c, b, now() - b->t0);
	b->n++;
}

int check_burnin_run(struct check *c, check_pass_fn *pass, char *err, size_t len)
{
	struct check_burnin *b = &c->burnin;
	int rc = lb_job_agree(&c->job, burnin_alloc(c, b, err, len), err, len);
	uint32_t passes = 0;
	b->t0 = now();
	for (int32_t flags = 0; rc == 0 && !(flags & BURNIN_DONE); passes++) {
		/* A pass's patterns repeat the last one's: what the last left in
		 * the buffer must not pass for what this one sends.  Every rank is
		 * past the last pass's gathers, so no transfer is under way. */
		if (passes)
			memset(c->job.buf, 0, (size_t)c->job.lanes * c->region);
		rc = pass(c, err, len);
		if (rc)
			break;
		fold_pass(c, b);
		flags = c->job.rank == 0 ? decide(c, b) : 0;
		rc = lb_boot_bcast(c->job.boot, &flags, sizeof(flags), err, len);
		if (rc == 0 && (flags & BURNIN_INTERVAL_OVER))
			close_interval(c, b);
	}
	return rc;
}

void check_burnin_rates(const struct check_burnin *b, uint32_t interval, uint32_t port,
			double *tx, double *rx)
{
	*tx = b->tx[(size_t)interval * b->ports + port];
	*rx = b->rx[(size_t)interval * b->ports + port];
}

enum lb_level check_burnin_port(const struct check_all *a, uint32_t port,
				const struct lb_burnin_limits *lim, struct lb_burnin_port *fig,
				char *why, size_t len)
{
	const struct check_burnin *b = a->burnin;
	double *tx = malloc(((size_t)b->n + 1) * sizeof(double));
	double *rx = malloc(((size_t)b->n + 1) * sizeof(double));
	enum lb_level l = LB_PASS;
	if (!tx || !rx) {
		snprintf(why, len, "(burn-in not judged: out of memory)");
		l = LB_ERROR;
	}
	for (uint32_t i = 0; l == LB_PASS && i < b->n; i++)
		check_burnin_rates(b, i, port, &tx[i], &rx[i]);
	if (l == LB_PASS) {
		lb_burnin_summarise(tx, rx, b->n, fig);
		l = lb_burnin_judge(tx, rx, b->n, lim, why, len);
	}
	free(tx);
	free(rx);
	return l;
}
