/* The check's verdicts, on rank 0, from every rank's figures: a port's tx
 * and rx are the best over its partners, compared with what the port
 * should reach; the results go to the sink as rows.  See check.h. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_private.h"
#include "lib/error.h"
#include "stats.h"

/* results/README.md documents these columns. */
const struct lb_col lb_check_columns[] = {
	{ LB_COLUMN("phase", LB_COL_TEXT) },
	{ LB_COLUMN("transport", LB_COL_TEXT) },
	{ LB_COLUMN("rank", LB_COL_REAL) },
	{ LB_COLUMN("host", LB_COL_TEXT) },
	{ LB_COLUMN("lane", LB_COL_REAL) },
	{ LB_COLUMN("nic", LB_COL_TEXT) },
	{ LB_COLUMN("partners", LB_COL_TEXT) },
	{ LB_COLUMN("tx_bytes_per_second", LB_COL_REAL) },
	{ LB_COLUMN("rx_bytes_per_second", LB_COL_REAL) },
	{ LB_COLUMN("expected_bytes_per_second", LB_COL_REAL) },
	{ LB_COLUMN("expected_from", LB_COL_TEXT) },
	{ LB_COLUMN("ratio", LB_COL_REAL) },
	{ LB_COLUMN("latency_seconds", LB_COL_REAL) },
	{ LB_COLUMN("algorithm", LB_COL_TEXT) },
	{ LB_COLUMN("message_bytes", LB_COL_REAL) },
	{ LB_COLUMN("time_median_seconds", LB_COL_REAL) },
	{ LB_COLUMN("sim_seconds", LB_COL_REAL) },
	{ LB_COLUMN("verified_bytes", LB_COL_REAL) },
	{ LB_COLUMN("verdict", LB_COL_TEXT) },
	{ LB_COLUMN("reason", LB_COL_TEXT) },
	{ LB_COLUMN("collective", LB_COL_TEXT) },
	{ LB_COLUMN("bound_seconds", LB_COL_REAL) },
};

const size_t lb_check_ncolumns = sizeof(lb_check_columns) / sizeof(lb_check_columns[0]);

/* One row; NaN and NULL are empty cells. */
struct row {
	const char *phase, *host, *nic, *from, *algorithm, *verdict, *collective;
	double rank, lane, tx, rx, expected, ratio, lat, bytes, median, sim, verified, bound;
	char partners[64], reason[512];
};

static int emit(const struct check_all *a, const struct row *w, const struct lb_sink *sink,
		char *err, size_t len)
{
	const union lb_val v[] = {
		{ .s = w->phase }, { .s = a->transport }, { .d = w->rank }, { .s = w->host },
		{ .d = w->lane }, { .s = w->nic }, { .s = w->partners[0] ? w->partners : NULL },
		{ .d = w->tx }, { .d = w->rx }, { .d = w->expected }, { .s = w->from },
		{ .d = w->ratio }, { .d = w->lat }, { .s = w->algorithm }, { .d = w->bytes },
		{ .d = w->median }, { .d = w->sim }, { .d = w->verified }, { .s = w->verdict },
		{ .s = w->reason[0] ? w->reason : NULL }, { .s = w->collective }, { .d = w->bound },
	};
	_Static_assert(sizeof(v) / sizeof(v[0]) == sizeof(lb_check_columns) / sizeof(lb_check_columns[0]),
		       "a value for every column");
	const struct lb_result r = { .cols = lb_check_columns, .ncols = lb_check_ncolumns, .vals = v };
	return sink->row(sink->ctx, &r, err, len);
}

static struct row blank(const char *phase)
{
	return (struct row){ .phase = phase, .rank = NAN, .lane = NAN, .tx = NAN, .rx = NAN,
			     .expected = NAN, .ratio = NAN, .lat = NAN, .bytes = NAN,
			     .median = NAN, .sim = NAN, .verified = 0, .bound = NAN, .verdict = "PASS" };
}

/* "98.1 Mbit/s" */
static void rate_text(double bytes_per_s, char *buf, size_t len)
{
	double bits = bytes_per_s * 8;
	if (bits >= 1e9)
		snprintf(buf, len, "%.3g Gbit/s", bits / 1e9);
	else
		snprintf(buf, len, "%.3g Mbit/s", bits / 1e6);
}

/* Appends "; "-separated reasons. */
static void add_reason(struct row *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add_reason(struct row *w, const char *fmt, ...)
{
	size_t used = strlen(w->reason);
	va_list ap;
	if (used && used + 2 < sizeof(w->reason))
		used += (size_t)snprintf(w->reason + used, sizeof(w->reason) - used, "; ");
	va_start(ap, fmt);
	if (used < sizeof(w->reason))
		vsnprintf(w->reason + used, sizeof(w->reason) - used, fmt, ap);
	va_end(ap);
	w->verdict = "FAIL";
}

/* A measured rate against expected: fails below min_bw of it. */
static void judge_rate(struct row *w, const char *what, double got, double expected, double min)
{
	char g[32], e[32];
	if (isnan(got) || !(expected > 0) || got >= min * expected)
		return;
	rate_text(got, g, sizeof(g));
	rate_text(expected, e, sizeof(e));
	add_reason(w, "%s %s, expected %s (%.0f %%, min %.0f %%)", what, g, e, 100 * got / expected,
		   100 * min);
}

static double median(const double *v, uint32_t n)
{
	struct lb_stats st;
	lb_stats_compute(v, n, &st);
	return n ? st.median : NAN;
}

static const struct check_pair *pair_of(const struct check_all *a, uint32_t rank, uint32_t lane,
					uint32_t round)
{
	return &a->pairs[((size_t)rank * a->lanes + lane) * a->rounds + round];
}

/* ---- ports ---------------------------------------------------------------- */

/* A port's figures, best over its partners. */
struct port {
	double tx, rx, lat;
	uint64_t verified;
	int measured;            /* some partner carried data both ways */
	char partners[64];
	const char *why;         /* the first failure with a partner */
};

/* Figures of `pair` seen from rank k: what k sent, what the partner sent k. */
static void take_pair(const struct check_all *a, uint32_t k, uint32_t lane, uint32_t round,
		      struct port *pt)
{
	const struct check_pair *m = pair_of(a, k, lane, round), *back;
	size_t used = strlen(pt->partners);
	if (m->partner < 0)
		return;
	snprintf(pt->partners + used, sizeof(pt->partners) - used, "%s%d", used ? "," : "",
		 (int)m->partner);
	back = pair_of(a, (uint32_t)m->partner, lane, round);
	pt->verified += m->verified;
	if (!m->ok || !back->ok) {
		pt->why = pt->why ? pt->why : !m->ok ? m->why : back->why;
		return;
	}
	pt->measured = 1;
	pt->tx = isnan(pt->tx) || m->tx > pt->tx ? m->tx : pt->tx;
	pt->rx = isnan(pt->rx) || back->tx > pt->rx ? back->tx : pt->rx;
	double lat = k < (uint32_t)m->partner ? m->lat : back->lat;
	pt->lat = isnan(pt->lat) || lat < pt->lat ? lat : pt->lat;
}

static struct port port_of(const struct check_all *a, uint32_t k, uint32_t lane)
{
	struct port pt = { .tx = NAN, .rx = NAN, .lat = NAN };
	for (uint32_t r = 0; r < a->rounds; r++)
		take_pair(a, k, lane, r, &pt);
	return pt;
}

/* What every port should reach: --lane-rate, else the port's reported
 * speed, else the median of the cluster's ports (NaN when none measured). */
struct expect {
	double median_tx, median_rx, max_lat;
};

static struct expect cluster_figures(const struct check_all *a)
{
	uint32_t n = a->size * a->lanes, k = 0, kl = 0;
	double *tx = calloc(n + 1, sizeof(double)), *rx = calloc(n + 1, sizeof(double)),
	       *lat = calloc(n + 1, sizeof(double));
	struct expect e = { NAN, NAN, NAN };
	for (uint32_t i = 0; tx && rx && lat && i < n; i++) {
		struct port pt = port_of(a, i / a->lanes, i % a->lanes);
		if (pt.measured) {
			tx[k] = pt.tx;
			rx[k++] = pt.rx;
		}
		if (!isnan(pt.lat))
			lat[kl++] = pt.lat;
	}
	if (tx && rx && lat) {
		e.median_tx = median(tx, k);
		e.median_rx = median(rx, k);
		e.max_lat = a->p->max_lat > 0 ? a->p->max_lat : LB_CHECK_LAT_FACTOR * median(lat, kl);
	}
	free(tx);
	free(rx);
	free(lat);
	return e;
}

/* Expected rate of port (k, lane), tx or rx, and where it came from. */
static double expected_of(const struct check_all *a, const struct expect *e, uint32_t k,
			  uint32_t lane, int rx, const char **from)
{
	double speed = a->ranks[k].speed[lane];
	if (a->p->lane_rate > 0) {
		*from = "lane-rate";
		return a->p->lane_rate;
	}
	if (speed > 0) {
		*from = "speed";
		return speed;
	}
	*from = "median";
	return rx ? e->median_rx : e->median_tx;
}

static void judge_port(const struct check_all *a, const struct expect *e, uint32_t k,
		       uint32_t lane, struct row *w)
{
	struct port pt = port_of(a, k, lane);
	double etx = expected_of(a, e, k, lane, 0, &w->from);
	double erx = expected_of(a, e, k, lane, 1, &w->from);
	w->rank = k;
	w->lane = lane;
	w->host = a->ranks[k].host;
	w->nic = a->ranks[k].nic[lane];
	snprintf(w->partners, sizeof(w->partners), "%s", pt.partners);
	w->tx = pt.tx, w->rx = pt.rx, w->lat = pt.lat, w->verified = (double)pt.verified;
	w->expected = etx;
	w->ratio = fmin(pt.tx / etx, pt.rx / erx);
	if (!pt.measured) {
		add_reason(w, "no traffic / no connection with rank %s on %s within %.0f s: %s",
			   pt.partners[0] ? pt.partners : "(none)", w->nic, a->pair_timeout,
			   pt.why ? pt.why : "no partner");
		return;
	}
	judge_rate(w, "tx", pt.tx, etx, a->p->min_bw);
	judge_rate(w, "rx", pt.rx, erx, a->p->min_bw);
	if (pt.lat > e->max_lat)
		add_reason(w, "latency %.3g us, max %.3g us", pt.lat * 1e6, e->max_lat * 1e6);
}

static int report_ports(const struct check_all *a, const struct expect *e,
			const struct lb_sink *sink, char *err, size_t len)
{
	for (uint32_t k = 0; k < a->size; k++)
		for (uint32_t l = 0; l < a->lanes; l++) {
			struct row w = blank("port");
			judge_port(a, e, k, l, &w);
			int rc = emit(a, &w, sink, err, len);
			if (rc)
				return rc;
		}
	return 0;
}

/* ---- aggregates: every lane of a rank at once ----------------------------- */

static struct port aggregate_of(const struct check_all *a, uint32_t k)
{
	struct port pt = { .tx = NAN, .rx = NAN, .lat = NAN };
	for (uint32_t r = 0; r < a->rounds; r++) {
		const struct check_pair *m = &a->aggs[k * a->rounds + r], *back;
		if (m->partner < 0)
			continue;
		back = &a->aggs[(uint32_t)m->partner * a->rounds + r];
		pt.verified += m->verified;
		if (!m->ok || !back->ok) {
			pt.why = pt.why ? pt.why : !m->ok ? m->why : back->why;
			continue;
		}
		pt.measured = 1;
		pt.tx = isnan(pt.tx) || m->tx > pt.tx ? m->tx : pt.tx;
		pt.rx = isnan(pt.rx) || back->tx > pt.rx ? back->tx : pt.rx;
	}
	return pt;
}

/* The sum of the ports' expected rates when they are known, else the
 * cluster's median aggregate. */
static double expected_aggregate(const struct check_all *a, const struct expect *e, uint32_t k,
				 double median_agg, const char **from)
{
	double sum = 0;
	for (uint32_t l = 0; l < a->lanes; l++)
		sum += expected_of(a, e, k, l, 0, from);
	if (strcmp(*from, "median") == 0)
		return median_agg;
	return sum;
}

static double median_aggregate(const struct check_all *a)
{
	double *v = calloc(a->size + 1, sizeof(double));
	uint32_t n = 0;
	for (uint32_t k = 0; v && k < a->size; k++) {
		struct port pt = aggregate_of(a, k);
		if (pt.measured)
			v[n++] = fmin(pt.tx, pt.rx);
	}
	double m = v ? median(v, n) : NAN;
	free(v);
	return m;
}

static int report_aggregates(const struct check_all *a, const struct expect *e,
			     const struct lb_sink *sink, char *err, size_t len)
{
	double med = median_aggregate(a);
	for (uint32_t k = 0; k < a->size; k++) {
		struct row w = blank("aggregate");
		struct port pt = aggregate_of(a, k);
		w.rank = k;
		w.host = a->ranks[k].host;
		w.tx = pt.tx, w.rx = pt.rx, w.verified = (double)pt.verified;
		w.expected = expected_aggregate(a, e, k, med, &w.from);
		w.ratio = fmin(pt.tx, pt.rx) / w.expected;
		if (!pt.measured)
			add_reason(&w, "not measured: %s", pt.why ? pt.why : "no partner");
		judge_rate(&w, "tx", pt.tx, w.expected, a->p->min_bw);
		judge_rate(&w, "rx", pt.rx, w.expected, a->p->min_bw);
		int rc = emit(a, &w, sink, err, len);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- collectives (phase 3) ------------------------------------------------ */

/* An allgather's receive bound: every rank receives the other p - 1
 * contributions (m bytes each) over its lanes, at most at the rates its
 * ports showed in phase 1 (rx, best over the partners), so no allgather
 * ends before the largest (p - 1) m / (the sum of a rank's rx) -- (p - 1)
 * m / (k B) on k lanes of rate B -- whatever its schedule.  The rank it
 * comes from is the slowest receiver; its slowest lane is named too. */
struct bound {
	double seconds;  /* NaN: a port was not measured */
	double rx;       /* the rank's lanes together, bytes/s */
	uint32_t rank, lane;
};

static struct bound receive_bound(const struct check_all *a)
{
	struct bound b = { .seconds = NAN };
	double moved = (double)(a->size - 1) * (double)a->p->bcast_bytes;
	for (uint32_t k = 0; k < a->size; k++) {
		double sum = 0, low = INFINITY;
		uint32_t slowest = 0;
		for (uint32_t l = 0; l < a->lanes; l++) {
			double rx = port_of(a, k, l).rx;
			sum += rx; /* NaN (unmeasured) stays NaN */
			if (rx < low)
				low = rx, slowest = l;
		}
		if (!(sum > 0))
			return (struct bound){ .seconds = NAN };
		if (isnan(b.seconds) || moved / sum > b.seconds)
			b = (struct bound){ .seconds = moved / sum, .rx = sum, .rank = k, .lane = slowest };
	}
	return b;
}

/* An allgather's row also names the rank and lane its bound comes from,
 * and fails above --max-bound-ratio x the bound. */
static void judge_bound(const struct check_all *a, const struct check_bcast *b,
			const struct bound *bd, struct row *w)
{
	char rx[32];
	w->bound = bd->seconds;
	if (isnan(bd->seconds))
		return;
	w->rank = bd->rank;
	w->lane = bd->lane;
	w->host = a->ranks[bd->rank].host;
	w->nic = a->ranks[bd->rank].nic[bd->lane];
	w->rx = bd->rx;
	if (!(b->median > a->p->max_bound_ratio * bd->seconds))
		return;
	rate_text(bd->rx, rx, sizeof(rx));
	add_reason(w, "measured %.3g ms, %.2f x the receive bound (p - 1) m / rx = %.3g ms of rank %u, "
		   "%s on its %u lanes (max %.2f x)", b->median * 1e3, b->median / bd->seconds,
		   bd->seconds * 1e3, bd->rank, rx, a->lanes, a->p->max_bound_ratio);
}

static void judge_collective(const struct check_all *a, const struct check_bcast *b,
			     const struct bound *bd, struct row *w)
{
	w->algorithm = b->algorithm;
	w->collective = b->collective;
	w->bytes = (double)a->p->bcast_bytes;
	w->median = b->median, w->sim = b->sim, w->ratio = b->ratio;
	w->verified = (double)b->verified;
	if (isnan(b->ratio))
		w->verdict = "n/a";
	else if (b->ratio > a->p->max_model_ratio)
		add_reason(w, "measured %.3g ms, simulated %.3g ms: %.2f x (max %.2f x)",
			   b->median * 1e3, b->sim * 1e3, b->ratio, a->p->max_model_ratio);
	if (b->collective && strcmp(b->collective, "allgather") == 0)
		judge_bound(a, b, bd, w);
}

static int report_collectives(const struct check_all *a, const struct lb_sink *sink, char *err,
			      size_t len)
{
	struct bound bd = receive_bound(a);
	for (size_t i = 0; i < a->nbcasts; i++) {
		struct row w = blank("bcast");
		judge_collective(a, &a->bcasts[i], &bd, &w);
		int rc = emit(a, &w, sink, err, len);
		if (rc)
			return rc;
	}
	if (!a->bcast_skipped)
		return 0;
	struct row w = blank("bcast");
	w.verdict = "SKIP";
	snprintf(w.reason, sizeof(w.reason), "%s", a->bcast_skipped);
	return emit(a, &w, sink, err, len);
}

int lb_check_report(const struct check_all *a, const struct lb_sink *sink, char *err, size_t len)
{
	struct expect e = cluster_figures(a);
	int rc = report_ports(a, &e, sink, err, len);
	if (rc == 0)
		rc = report_aggregates(a, &e, sink, err, len);
	return rc ? rc : report_collectives(a, sink, err, len);
}
