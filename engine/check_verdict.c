/* The check's verdicts, on rank 0, from every rank's figures: a port's tx
 * and rx are the best over its partners, compared with what the port
 * should reach; the results go to the sink as rows.  See check.h. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_expect.h"
#include "check_links.h"
#include "check_private.h"
#include "launch/portinfo.h"
#include "lib/error.h"
#include "lib/prov.h"
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
	{ LB_COLUMN("pattern", LB_COL_TEXT) },
	{ LB_COLUMN("peer", LB_COL_REAL) },
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
	/* a port's inventory (transports/port.h), read before any traffic */
	{ LB_COLUMN("ifname", LB_COL_TEXT) },
	{ LB_COLUMN("address", LB_COL_TEXT) },
	{ LB_COLUMN("state", LB_COL_TEXT) },
	{ LB_COLUMN("speed_bits_per_second", LB_COL_REAL) },
	{ LB_COLUMN("link_width_lanes", LB_COL_REAL) },
	{ LB_COLUMN("mtu_bytes", LB_COL_REAL) },
	{ LB_COLUMN("driver", LB_COL_TEXT) },
	{ LB_COLUMN("driver_version", LB_COL_TEXT) },
	{ LB_COLUMN("firmware", LB_COL_TEXT) },
	{ LB_COLUMN("pci_bus", LB_COL_TEXT) },
	{ LB_COLUMN("numa_node", LB_COL_REAL) },
	{ LB_COLUMN("pcie_speed_gt_per_second", LB_COL_REAL) },
	{ LB_COLUMN("pcie_max_speed_gt_per_second", LB_COL_REAL) },
	{ LB_COLUMN("pcie_width_lanes", LB_COL_REAL) },
	{ LB_COLUMN("pcie_max_width_lanes", LB_COL_REAL) },
	{ LB_COLUMN("rdma_state", LB_COL_TEXT) },
	{ LB_COLUMN("rdma_mtu_bytes", LB_COL_REAL) },
	{ LB_COLUMN("gid", LB_COL_TEXT) },
	{ LB_COLUMN("facts_from", LB_COL_TEXT) },
	/* its counters over the check */
	{ LB_COLUMN("tx_loss_ratio", LB_COL_REAL) },
	{ LB_COLUMN("rx_loss_ratio", LB_COL_REAL) },
	{ LB_COLUMN("counter_deltas", LB_COL_TEXT) },
	/* burn-in (--duration): a port's series over the intervals, and
	 * phase "interval", one row per port per interval */
	{ LB_COLUMN("intervals", LB_COL_REAL) },
	{ LB_COLUMN("interval", LB_COL_REAL) },
	{ LB_COLUMN("min_tx_bytes_per_second", LB_COL_REAL) },
	{ LB_COLUMN("min_rx_bytes_per_second", LB_COL_REAL) },
	{ LB_COLUMN("max_tx_bytes_per_second", LB_COL_REAL) },
	{ LB_COLUMN("max_rx_bytes_per_second", LB_COL_REAL) },
	{ LB_COLUMN("spread_ratio", LB_COL_REAL) },
};

const size_t lb_check_ncolumns = sizeof(lb_check_columns) / sizeof(lb_check_columns[0]);

/* One row; NaN and NULL are empty cells. */
struct row {
	const char *phase, *host, *nic, *from, *algorithm, *collective;
	double rank, lane, peer, tx, rx, expected, ratio, lat, bytes, median, sim, verified, bound;
	double tx_loss, rx_loss;
	struct lb_burnin_port burnin;     /* intervals 0: no burn-in */
	double interval;                  /* phase "interval": which, from 1 */
	enum lb_level level;
	const char *verdict;              /* set with level, or "SKIP", "n/a" */
	const struct lb_port_facts *facts; /* a port's; NULL: none */
	char partners[64];
	struct lb_buf reason;              /* "; "-separated, whole */
	struct lb_buf counters;            /* "name=delta;..." */
};

static const char *level_word(enum lb_level l)
{
	static const char *const words[] = { "PASS", "WARN", "FAIL", "ERROR" };
	return words[l];
}

/* NULL for an unknown text, NaN for an unknown number (0, or -1 for a
 * NUMA node). */
static const char *known(const char *s)
{
	return s && *s ? s : NULL;
}

static double known_num(double v)
{
	return v > 0 ? v : NAN;
}

static int emit(const struct check_all *a, const struct row *w, const struct lb_sink *sink,
		char *err, size_t len)
{
	static const struct lb_port_facts none = { .numa_node = -1 };
	const struct lb_port_facts *f = w->facts ? w->facts : &none;
	const union lb_val v[] = {
		{ .s = w->phase }, { .s = a->transport }, { .d = w->rank }, { .s = w->host },
		{ .d = w->lane }, { .s = w->nic }, { .s = w->partners[0] ? w->partners : NULL },
		{ .s = a->p->retest ? "rerun" : lb_check_pattern_names[a->p->pattern] }, { .d = w->peer }, { .d = w->tx }, { .d = w->rx }, { .d = w->expected }, { .s = w->from },
		{ .d = w->ratio }, { .d = w->lat }, { .s = w->algorithm }, { .d = w->bytes },
		{ .d = w->median }, { .d = w->sim }, { .d = w->verified }, { .s = w->verdict },
		{ .s = w->reason.s }, { .s = w->collective }, { .d = w->bound },
		{ .s = known(f->ifname) }, { .s = known(f->addr) }, { .s = known(f->state) },
		{ .d = known_num(f->speed_bps) }, { .d = known_num(f->width) },
		{ .d = known_num(f->mtu) }, { .s = known(f->driver) },
		{ .s = known(f->driver_version) }, { .s = known(f->firmware) }, { .s = known(f->bus) },
		{ .d = f->numa_node >= 0 ? f->numa_node : NAN }, { .d = known_num(f->pcie_gts) },
		{ .d = known_num(f->pcie_max_gts) }, { .d = known_num(f->pcie_width) },
		{ .d = known_num(f->pcie_max_width) }, { .s = known(f->rdma_state) },
		{ .d = known_num(f->rdma_mtu) }, { .s = known(f->gid) }, { .s = known(f->source) },
		{ .d = w->tx_loss }, { .d = w->rx_loss }, { .s = w->counters.s },
		{ .d = w->burnin.intervals ? w->burnin.intervals : NAN }, { .d = w->interval },
		{ .d = w->burnin.min_tx }, { .d = w->burnin.min_rx }, { .d = w->burnin.max_tx },
		{ .d = w->burnin.max_rx }, { .d = w->burnin.spread },
	};
	_Static_assert(sizeof(v) / sizeof(v[0]) == sizeof(lb_check_columns) / sizeof(lb_check_columns[0]),
		       "a value for every column");
	const struct lb_result r = { .cols = lb_check_columns, .ncols = lb_check_ncolumns, .vals = v };
	return sink->row(sink->ctx, &r, err, len);
}

/* Emits w and frees what it holds. */
static int emit_row(const struct check_all *a, struct row *w, const struct lb_sink *sink,
		    char *err, size_t len)
{
	int rc = w->reason.failed || w->counters.failed ? lb_errf(err, len, "out of memory")
							  : emit(a, w, sink, err, len);
	lb_buf_free(&w->reason);
	lb_buf_free(&w->counters);
	return rc;
}

static struct row blank(const char *phase)
{
	return (struct row){ .phase = phase, .rank = NAN, .lane = NAN, .peer = NAN, .tx = NAN, .rx = NAN,
			     .expected = NAN, .ratio = NAN, .lat = NAN, .bytes = NAN,
			     .median = NAN, .sim = NAN, .verified = 0, .bound = NAN,
			     .tx_loss = NAN, .rx_loss = NAN, .verdict = "PASS", .interval = NAN,
			     .burnin = { .min_tx = NAN, .min_rx = NAN, .max_tx = NAN,
					 .max_rx = NAN, .spread = NAN } };
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

/* Appends a reason at level l; the row's verdict is its worst. */
static void add_reason_at(struct row *w, enum lb_level l, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void add_reason_at(struct row *w, enum lb_level l, const char *fmt, ...)
{
	va_list ap;
	char *one = NULL;
	va_start(ap, fmt);
	int n = vasprintf(&one, fmt, ap);
	va_end(ap);
	lb_buf_add(&w->reason, "%s%s", w->reason.n ? "; " : "", n >= 0 ? one : "(out of memory)");
	free(n >= 0 ? one : NULL);
	if (l > w->level) {
		w->level = l;
		w->verdict = level_word(l);
	}
}

#define add_reason(w, ...) add_reason_at(w, LB_FAIL, __VA_ARGS__)

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
	return &a->pairs[((size_t)rank * a->lanes + lane) * a->slots + round];
}

/* --pattern shift: a rank sends to rank + d and receives from rank - d,
 * and every figure is the receiver's (acknowledged to the sender). */
static int shifted(const struct check_all *a)
{
	return a->p->pattern == LB_CHECK_SHIFT && !a->p->retest;
}

/* The record of whoever sent to m's rank in the same slot: its partner,
 * or under shift rank - d. */
static const struct check_pair *sender_of(const struct check_all *a, const struct check_pair *m,
					  uint32_t lane, uint32_t slot)
{
	return pair_of(a, (uint32_t)(shifted(a) ? m->from : m->partner), lane, slot);
}

/* The rate m's rank sent its partner at (NaN: the pair failed).  Two
 * ranks of a pair measure both ways in turn, so either failing spoils
 * both; a shift step's two directions are apart. */
static double sent_rate(const struct check_all *a, const struct check_pair *m, uint32_t lane,
			uint32_t slot)
{
	if (m->partner < 0)
		return NAN;
	if (shifted(a))
		return m->tx;
	return m->ok && pair_of(a, (uint32_t)m->partner, lane, slot)->ok ? m->tx : NAN;
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
	back = sender_of(a, m, lane, round);
	pt->verified += m->verified;
	if (!m->ok || !back->ok)
		pt->why = pt->why ? pt->why : !m->ok ? m->why : back->why;
	double tx = sent_rate(a, m, lane, round), rx = sent_rate(a, back, lane, round);
	if (!isnan(tx))
		pt->tx = isnan(pt->tx) || tx > pt->tx ? tx : pt->tx;
	if (!isnan(rx))
		pt->rx = isnan(pt->rx) || rx > pt->rx ? rx : pt->rx;
	pt->measured = !isnan(pt->tx) && !isnan(pt->rx);
	if (!m->ok || !back->ok)
		return;
	double lat = k < (uint32_t)m->partner ? m->lat : back->lat;
	pt->lat = isnan(pt->lat) || lat < pt->lat ? lat : pt->lat;
}

static struct port port_of(const struct check_all *a, uint32_t k, uint32_t lane)
{
	struct port pt = { .tx = NAN, .rx = NAN, .lat = NAN };
	for (uint32_t r = 0; r < a->slots; r++)
		take_pair(a, k, lane, r, &pt);
	return pt;
}

void check_port_rates(const struct check_all *a, uint32_t k, uint32_t lane, double *tx,
		      double *rx)
{
	struct port pt = port_of(a, k, lane);
	*tx = pt.measured ? pt.tx : NAN;
	*rx = pt.measured ? pt.rx : NAN;
}

/* What every port should reach: --lane-rate, else what --expect or the
 * lane's majority says its speed is (never the port's own: a NIC that
 * negotiated down would talk itself down), else the median of the
 * cluster's ports (NaN when none measured). */
struct expect {
	double median_tx, median_rx, max_lat;
	struct lb_robust pop_tx, pop_rx; /* the measured ports, for the outlier rule */
	const char **nics;               /* [rank * lanes + lane] */
	struct check_finding *findings;  /* [rank * lanes + lane]: the inventory's */
	struct matrix *matrices;         /* [lane]: the N x N matrix and its verdicts */
	double *expected;                /* [(rank * lanes + lane) * 2 + rx]: expected_of's, */
	const char **expected_from;      /* and where it came from: computed once (the links
					  * ask p^2 x lanes times, each over p ports) */
};

/* One lane's N x N matrix (check_links.h): rate[s * size + r] what s sent
 * r at, best over the slots they met in; failed[...] the reason of a pair
 * that met and carried nothing that way (NULL: none); lossy[...] the cell
 * is slow for a port's loss (leave_out_lossy), and `rated` is rate
 * without those cells: what rows and columns are judged on. */
struct matrix {
	double *rate, *rated;
	uint8_t *lossy;
	const char **failed;
	struct lb_link_verdicts v;
	int judged;
};

static struct expect cluster_figures(const struct check_all *a)
{
	uint32_t n = a->size * a->lanes, k = 0, kl = 0;
	double *tx = calloc(n + 1, sizeof(double)), *rx = calloc(n + 1, sizeof(double)),
	       *lat = calloc(n + 1, sizeof(double));
	struct expect e = { .median_tx = NAN, .median_rx = NAN, .max_lat = NAN };
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
		e.pop_tx = lb_robust_of(tx, k);
		e.pop_rx = lb_robust_of(rx, k);
		e.max_lat = a->p->max_lat > 0 ? a->p->max_lat : LB_CHECK_LAT_FACTOR * median(lat, kl);
	}
	free(tx);
	free(rx);
	free(lat);
	return e;
}

void check_verdict_limits(const struct check_all *a, double *median_tx, double *median_rx,
			  double *max_lat)
{
	struct expect e = cluster_figures(a);
	*median_tx = e.median_tx;
	*median_rx = e.median_rx;
	*max_lat = e.max_lat;
}

/* The port (k, lane) among --rerun's suspects; NULL: not one. */
static const struct lb_check_retest_port *retested(const struct check_all *a, uint32_t k,
						   uint32_t lane)
{
	const struct lb_check_retest *rt = a->p->retest;
	for (size_t i = 0; rt && i < rt->n; i++)
		if (rt->ports[i].rank == k && rt->ports[i].lane == lane)
			return &rt->ports[i];
	return NULL;
}

/* --rerun: the median over the lane's partners of what each reached with
 * the other partners (the reference pairs: no suspect to slow them),
 * sent or received; NaN: none. */
static double partners_rate(const struct check_all *a, uint32_t lane, int rx)
{
	double *v = calloc(a->size + 1, sizeof(double));
	uint32_t n = 0;
	for (uint32_t k = 0; v && k < a->size; k++) {
		double best = NAN;
		for (uint32_t slot = 0; !retested(a, k, lane) && slot < a->slots; slot++) {
			const struct check_pair *m = pair_of(a, k, lane, slot);
			if (m->partner < 0 || retested(a, (uint32_t)m->partner, lane))
				continue;
			double x = sent_rate(a, rx ? sender_of(a, m, lane, slot) : m, lane, slot);
			best = isnan(best) || x > best ? x : best;
		}
		if (!isnan(best))
			v[n++] = best;
	}
	double m = v ? median(v, n) : NAN;
	free(v);
	return m;
}

/* Expected rate of port (k, lane), tx or rx, and where it came from. */
static double expected_of(const struct check_all *a, const struct expect *e, uint32_t k,
			  uint32_t lane, int rx, const char **from)
{
	uint32_t line = 0;
	const struct lb_check_retest *rt = a->p->retest;
	if (a->p->lane_rate > 0) {
		*from = "lane-rate";
		return a->p->lane_rate;
	}
	if (rt) { /* a rerun's few ports: its reference pairs', else the record's */
		double x = partners_rate(a, lane, rx);
		*from = isnan(x) ? "record" : "partners";
		if (!isnan(x) || (lane < rt->nexpected && rt->expected[lane] > 0))
			return isnan(x) ? rt->expected[lane] : x;
	}
	double bits = lb_expected_speed(a->facts, a->size, a->lanes, a->p->expect, e->nics, k, lane,
					from, &line);
	if (bits > 0)
		return bits / 8;
	*from = "median";
	return rx ? e->median_rx : e->median_tx;
}

/* Every port's expected tx and rx, once; 0 or -1: out of memory. */
static int expected_figures(const struct check_all *a, struct expect *e)
{
	size_t n = (size_t)a->size * a->lanes * 2;
	e->expected = calloc(n + 1, sizeof(*e->expected));
	e->expected_from = calloc(n + 1, sizeof(*e->expected_from));
	if (!e->expected || !e->expected_from)
		return -1;
	for (size_t i = 0; i < n; i++)
		e->expected[i] = expected_of(a, e, (uint32_t)(i / 2 / a->lanes),
					     (uint32_t)(i / 2 % a->lanes), (int)(i % 2),
					     &e->expected_from[i]);
	return 0;
}

/* Port (k, lane)'s expected tx (rx 0) or rx, as expected_figures found it. */
static double expected(const struct check_all *a, const struct expect *e, uint32_t k,
		       uint32_t lane, int rx, const char **from)
{
	size_t i = ((size_t)k * a->lanes + lane) * 2 + (rx != 0);
	*from = e->expected_from[i];
	return e->expected[i];
}

/* ---- a port's inventory, losses, counters and wiring ------------------- */

/* What the inventory said of one port (lb_judge_inventory). */
struct check_finding {
	enum lb_level level;
	struct lb_buf text;
};

struct findings_ctx {
	struct check_finding *f;  /* [rank * lanes + lane], then one per lane */
	uint32_t size, lanes;
};

/* A finding about a whole lane (LB_FINDING_LANE: its ports do not agree
 * on a fact) goes after the ports' findings. */
static void on_finding(void *ctx, uint32_t rank, uint32_t lane, enum lb_level level,
		       const char *reason)
{
	struct findings_ctx *fc = ctx;
	size_t at = rank == LB_FINDING_LANE ? (size_t)fc->size * fc->lanes + lane
					     : (size_t)rank * fc->lanes + lane;
	struct check_finding *f = &fc->f[at];
	lb_buf_add(&f->text, "%s%s", f->text.n ? "; " : "", reason);
	f->level = level > f->level ? level : f->level;
}

/* The inventory's findings of every port; NULL when out of memory. */
static struct check_finding *inventory_findings(const struct check_all *a, const char **nics)
{
	struct check_finding *f = calloc((size_t)(a->size + 1) * a->lanes, sizeof(*f));
	struct findings_ctx fc = { f, a->size, a->lanes };
	if (f && a->facts)
		lb_judge_inventory(a->facts, nics, a->size, a->lanes, a->p->expect, on_finding, &fc);
	return f;
}

static void findings_free(struct check_finding *f, size_t n)
{
	for (size_t i = 0; f && i < n; i++)
		lb_buf_free(&f[i].text);
	free(f);
}

/* The lane names as rank 0 knows them: nics[rank * lanes + lane]. */
static const char **lane_names(const struct check_all *a)
{
	const char **nics = calloc((size_t)a->size * a->lanes + 1, sizeof(*nics));
	for (uint32_t i = 0; nics && i < a->size * a->lanes; i++)
		nics[i] = a->ranks[i / a->lanes].nic[i % a->lanes];
	return nics;
}

/* Units a port's partners sent it again over what they sent it (rx), or
 * it sent them (tx): the least over its partners, as for rates -- a
 * healthy partner loses nothing, and a lossy port loses with every one.
 * The partners' figures, for the reason, in `detail`. */
struct loss {
	double ratio;
	struct lb_buf detail;
};

static struct loss loss_of(const struct check_all *a, uint32_t k, uint32_t lane, int rx)
{
	struct loss l = { .ratio = NAN };
	for (uint32_t r = 0; r < a->slots; r++) {
		const struct check_pair *m = pair_of(a, k, lane, r);
		if (m->partner < 0)
			continue;
		const struct check_pair *from = rx ? sender_of(a, m, lane, r) : m;
		if (from->sent == 0)
			continue;
		double ratio = (double)from->resent / (double)from->sent;
		l.ratio = isnan(l.ratio) || ratio < l.ratio ? ratio : l.ratio;
		lb_buf_add(&l.detail, "%srank %d: %.2f %%, %llu of %llu", l.detail.n ? "; " : "",
			   rx && shifted(a) ? (int)m->from : (int)m->partner, 100 * ratio,
			   (unsigned long long)from->resent,
			   (unsigned long long)from->sent);
	}
	return l;
}

static void judge_loss(const struct check_all *a, uint32_t k, uint32_t lane, struct row *w)
{
	for (int rx = 0; rx <= 1; rx++) {
		struct loss l = loss_of(a, k, lane, rx);
		*(rx ? &w->rx_loss : &w->tx_loss) = l.ratio;
		if (l.ratio > a->p->max_loss)
			add_reason(w, rx ? "loses what it receives: every partner retransmitted to it (%s; max %.2g %%)"
					 : "loses what it sends: it retransmitted to every partner (%s; max %.2g %%)",
				   l.detail.s ? l.detail.s : "", 100 * a->p->max_loss);
		lb_buf_free(&l.detail);
	}
}


/* The NIC's own counters -- the netdev's statistics, the driver's, an IB
 * port's, a DPDK PMD's xstats -- are judged; a transport's (tcp:, dpdk:)
 * count its own work: DPDK's drops of frames not meant for it on a
 * shared segment, or of duplicates a retransmission made, are no fault. */
static int nic_counter(const char *name)
{
	static const char *const sources[] = { "stat:", "ethtool:", "rdma:", "xstat:" };
	for (size_t i = 0; i < sizeof(sources) / sizeof(sources[0]); i++)
		if (strncmp(name, sources[i], strlen(sources[i])) == 0)
			return 1;
	return 0;
}

/* An RDMA port's count of what it sent again -- Soft-RoCE's
 * completer_retry_err (an ack timed out), rcvd_seq_err (a NAK),
 * duplicate_request, out_of_seq_request; mlx5's local_ack_timeout_err,
 * packet_seq_err, out_of_sequence -- is judged per pair, as TCP's
 * retransmissions are (the rdma transport's lane_counters): the port
 * that sent to a broken one retried too, and is not to blame.  Retries
 * exhausted (retry_exceeded_err) broke a connection: an error. */
static int rdma_resent(const char *name)
{
	const char *c = name + strlen("rdma:");
	if (strncmp(name, "rdma:", strlen("rdma:")) != 0 || strstr(c, "exceeded"))
		return 0;
	return strstr(c, "retry") || strstr(c, "seq_err") || strstr(c, "out_of_seq") ||
	       strstr(c, "duplicate") || strstr(c, "ack_timeout");
}

/* A word of c (letters between other characters) that names errors:
 * one starting with "err" (rx_crc_errors, send_err), or DPDK's ierrors
 * and oerrors.  Not "err" anywhere: Soft-RoCE's ack_deferred counts its
 * completer handed to a work queue -- it grew by 48 on a healthy port of
 * a check slowed by ASan under TCG -- and interrupts are no errors. */
static int names_errors(const char *c)
{
	while (*c) {
		size_t n = 0;
		while (c[n] >= 'a' && c[n] <= 'z')
			n++;
		if ((n >= 3 && strncmp(c, "err", 3) == 0) ||
		    (n == 7 && (strncmp(c, "ierrors", 7) == 0 || strncmp(c, "oerrors", 7) == 0)))
			return 1;
		c += n ? n : 1;
	}
	return 0;
}

enum lb_check_counter_kind lb_check_counter_kind(const char *name)
{
	const char *c = strchr(name, ':');
	if (!nic_counter(name))
		return COUNTS_TRAFFIC;
	c = c ? c + 1 : name;
	if (strstr(c, "retrans") || strstr(c, "packets") || strstr(c, "segments_out") ||
	    strstr(c, "_sent") || rdma_resent(name))
		return COUNTS_TRAFFIC;
	if (strstr(c, "exceeded") || strstr(c, "bad") || strstr(c, "fault"))
		return COUNTS_ERRORS; /* retries given up (rxe's retry_rnr_exceeded_err), bad frames */
	if (strstr(c, "drop") || strstr(c, "discard") || strstr(c, "miss") || strstr(c, "rnr") ||
	    strstr(c, "nombuf") || strstr(c, "out_of_buffer") || strstr(c, "lost"))
		return COUNTS_DROPS;
	if (names_errors(c) || strstr(c, "crc") || strstr(c, "fcs") || strstr(c, "symbol") ||
	    strstr(c, "collisions") || strstr(c, "link_downed"))
		return COUNTS_ERRORS;
	return COUNTS_TRAFFIC;
}

/* Frames the port passed over the check, sent and received, for a drop
 * counter's share; 0 unknown.  The netdev's counts, and the counts of what
 * bypasses it -- a DPDK PMD's frames, an RDMA port's packets (hardware
 * RoCE never shows in the netdev's) -- the larger of the two: Soft-RoCE's
 * go through both. */
static uint64_t packets_of(const struct lb_port_counters *d)
{
	static const char *const netdev[] = { "stat:rx_packets", "stat:tx_packets" };
	static const char *const bypass[] = { "dpdk:frames_sent", "dpdk:frames_received",
					      "rdma:frames_sent", "rdma:port_rcv_packets",
					      "xstat:rx_good_packets", "xstat:tx_good_packets" };
	uint64_t by_netdev = 0, by_other = 0;
	for (size_t i = 0; i < sizeof(netdev) / sizeof(netdev[0]); i++)
		by_netdev += (uint64_t)(lb_port_counter(d, netdev[i]) > 0 ? lb_port_counter(d, netdev[i]) : 0);
	for (size_t i = 0; i < sizeof(bypass) / sizeof(bypass[0]); i++)
		by_other += (uint64_t)(lb_port_counter(d, bypass[i]) > 0 ? lb_port_counter(d, bypass[i]) : 0);
	return by_netdev > by_other ? by_netdev : by_other;
}

static void judge_counter(const struct check_all *a, const struct lb_port_counter *c,
			  uint64_t packets, struct row *w)
{
	enum lb_check_counter_kind kind = lb_check_counter_kind(c->name);
	unsigned long long v = (unsigned long long)c->value;
	if (kind == COUNTS_ERRORS && c->value > a->p->max_errors)
		add_reason(w, "%s grew by %llu (max %llu)", c->name, v,
			   (unsigned long long)a->p->max_errors);
	if (kind != COUNTS_DROPS || c->value == 0)
		return;
	if (packets == 0)
		add_reason_at(w, LB_WARN, "%s grew by %llu", c->name, v);
	else if ((double)c->value / (double)packets > a->p->max_loss)
		add_reason(w, "%s grew by %llu, %.2g %% of its %llu packets (max %.2g %%)", c->name, v,
			   100.0 * (double)c->value / (double)packets, (unsigned long long)packets,
			   100 * a->p->max_loss);
}

/* Every counter's growth into the record; those that mean trouble judged. */
static void judge_counters(const struct check_all *a, const struct check_port_end *end,
			   struct row *w)
{
	const struct lb_port_counters *d = &end->delta;
	uint64_t packets = packets_of(d);
	for (uint32_t i = 0; i < d->n; i++) {
		lb_buf_add(&w->counters, "%s%s=%llu", i ? ";" : "", d->c[i].name,
			   (unsigned long long)d->c[i].value);
		judge_counter(a, &d->c[i], packets, w);
	}
}

/* Where a port that carried nothing answers, in words, at level l. */
static void judge_wiring(const struct check_all *a, uint32_t k, uint32_t lane,
			 const struct check_wiring *wr, enum lb_level l, struct row *w)
{
	const char *own = a->ranks[k].nic[lane];
	if (!wr->probed) {
		if (wr->why[0])
			add_reason_at(w, l, "(where it is cabled was not probed: %s)", wr->why);
		return;
	}
	if (wr->own == 0 && wr->other_lane >= 0) {
		const char *other = a->ranks[k].nic[wr->other_lane];
		add_reason_at(w, LB_FAIL, "no %s peer answers; the port answers on %s's network (%s): "
			      "cabled into %s's switch?", own, other, wr->other_net, other);
	} else if (wr->own == 0) {
		add_reason_at(w, l, "no peer answers it on any lane's network: unplugged, or its "
			      "switch port down?");
	} else {
		add_reason_at(w, l, "%d of %d %s peers answer it (ARP), yet nothing went through: MTU, "
			      "filtering or the transport?", wr->own, wr->own_asked, own);
	}
}

/* Every partner port of (k, lane) carried nothing with anyone either: a
 * silent pair whose two ends cannot be told apart (two ranks, or both
 * partners dead). */
static int partners_silent(const struct check_all *a, uint32_t k, uint32_t lane)
{
	int any = 0;
	for (uint32_t r = 0; r < a->slots; r++) {
		const struct check_pair *m = pair_of(a, k, lane, r);
		if (m->partner < 0)
			continue;
		if (port_of(a, (uint32_t)m->partner, lane).measured)
			return 0;
		any = 1;
	}
	return any;
}

/* A port that carried nothing: its fault when anything else says so (its
 * inventory or counters, a partner that carried data with others, a
 * miswire), else ERROR -- the check cannot tell which end is bad. */
static void judge_silence(const struct check_all *a, uint32_t k, uint32_t lane,
			  const struct port *pt, struct row *w)
{
	const struct check_wiring *wr = a->ends ? &a->ends[(size_t)k * a->lanes + lane].wiring : NULL;
	int miswired = wr && wr->probed && wr->own == 0 && wr->other_lane >= 0;
	enum lb_level l = w->level >= LB_FAIL || miswired || !partners_silent(a, k, lane) ? LB_FAIL
											 : LB_ERROR;
	add_reason_at(w, l, "no traffic / no connection with rank %s on %s within %.0f s: %s",
		      pt->partners[0] ? pt->partners : "(none)", w->nic, a->pair_timeout,
		      pt->why ? pt->why : "no partner");
	if (wr)
		judge_wiring(a, k, lane, wr, l, w);
	if (l == LB_ERROR)
		add_reason_at(w, l, "cannot tell which end: its partners carried nothing on %s either",
			      w->nic);
}

/* A rate against the cluster's other ports when nothing says what it
 * should be (check_expect.h lb_robust_judge): below --min-bw of their
 * median and outside their spread fails; below the share only, or among
 * too few ports to tell, warns. */
static void judge_outlier(struct row *w, const char *what, double got, const struct lb_robust *pop,
			  double min, double floor_bps)
{
	char g[32], e[32];
	if (isnan(got))
		return;
	enum lb_level l = lb_robust_judge(pop, got, min, floor_bps);
	if (l != LB_FAIL && l != LB_WARN)
		return;
	rate_text(got, g, sizeof(g));
	rate_text(pop->median, e, sizeof(e));
	if (l == LB_FAIL)
		add_reason(w, "%s %s, expected %s (%.0f %%, min %.0f %%)", what, g, e,
			   100 * got / pop->median, 100 * min);
	else if (pop->n < LB_ROBUST_MIN)
		add_reason_at(w, LB_WARN, "%s %s, %.0f %% of the median of only %u ports: too few to "
			      "judge by (--lane-rate or --expect can)", what, g,
			      100 * got / pop->median, pop->n);
	else
		add_reason_at(w, LB_WARN, "%s %s, %.0f %% of the median %s but within the ports' "
			      "spread (MAD %.3g Mbit/s): --lane-rate or --expect can judge", what, g,
			      100 * got / pop->median, e, pop->mad * 8 / 1e6);
}

/* Measured cells of port k's row (col 0) or column (col 1) on a lane. */
static uint32_t line_cells(const struct check_all *a, const struct matrix *mx, uint32_t k, int col)
{
	uint32_t n = 0;
	for (uint32_t j = 0; j < a->size; j++)
		n += j != k && !isnan(mx->rated[col ? (size_t)j * a->size + k : (size_t)k * a->size + j]);
	return n;
}

/* The matrix says the port is slow with every receiver (its row) or
 * every sender (its column): said in words; a FAIL with 3 or more of
 * them (2 may both be slow ones: a WARN). */
static void judge_line(const struct check_all *a, const struct expect *e, uint32_t k,
		       uint32_t lane, struct row *w)
{
	const struct matrix *mx = e->matrices ? &e->matrices[lane] : NULL;
	char med[32], lane_med[32];
	if (!mx || !mx->judged)
		return;
	rate_text(mx->v.lane_median, lane_med, sizeof(lane_med));
	for (int col = 0; col <= 1; col++) {
		if (!(col ? mx->v.col_low[k] : mx->v.row_low[k]))
			continue;
		uint32_t cells = line_cells(a, mx, k, col);
		double m = col ? mx->v.col_median[k] : mx->v.row_median[k];
		rate_text(m, med, sizeof(med));
		if (cells < 2) { /* one partner (bisection): either end */
			add_reason_at(w, LB_PASS, "(its one partner on %s is as slow %s it: either "
				      "end may be the slow one; --rerun meets it with others)", w->nic,
				      col ? "sending to" : "receiving from");
			break;
		}
		add_reason_at(w, cells >= 3 ? LB_FAIL : LB_WARN,
			      "%s every %s on %s: the median of its %s of the matrix, %s over %u %s, "
			      "is %.0f %% of the lane's %s (min %.0f %%): the port, not a link",
			      col ? "receives slowly from" : "sends slowly to", col ? "sender" : "receiver",
			      w->nic, col ? "column" : "row", med, cells, col ? "senders" : "receivers",
			      100 * m / mx->v.lane_median, lane_med, 100 * a->p->min_bw);
	}
}

/* --expect's floors for this port, over the command line's. */
static void port_limits(const struct check_all *a, const struct expect *e, uint32_t k,
			uint32_t lane, double *min_bw, double *floor_bps, double *max_lat)
{
	struct lb_expect_rule rule;
	*min_bw = a->p->min_bw, *floor_bps = 0, *max_lat = e->max_lat;
	if (!a->p->expect)
		return;
	const struct lb_port_facts *f = a->facts ? &a->facts[(size_t)k * a->lanes + lane] : NULL;
	lb_expect_for_port(a->p->expect, lane, a->ranks[k].nic[lane], f, &rule);
	*min_bw = rule.min_bw > 0 ? rule.min_bw : *min_bw;
	*floor_bps = rule.min_bw_bps;
	*max_lat = rule.max_lat > 0 ? rule.max_lat : *max_lat;
}

/* Burn-in: the port's rates over the intervals (check_burnin.c), against
 * what its row expects. */
static void judge_burnin(const struct check_all *a, uint32_t k, uint32_t lane, double etx,
			 double erx, double min_bw, struct row *w)
{
	char why[768];
	if (!a->burnin)
		return;
	const struct lb_burnin_limits lim = { .tx = etx, .rx = erx, .min_bw = min_bw,
					      .max_spread = a->p->max_spread };
	enum lb_level l = check_burnin_port(a, k * a->lanes + lane, &lim, &w->burnin, why,
					    sizeof(why));
	if (l != LB_PASS)
		add_reason_at(w, l, "burn-in: %s", why);
}

static void judge_port(const struct check_all *a, const struct expect *e, uint32_t k,
		       uint32_t lane, struct row *w)
{
	size_t i = (size_t)k * a->lanes + lane;
	struct port pt = port_of(a, k, lane);
	double etx = expected(a, e, k, lane, 0, &w->from);
	double erx = expected(a, e, k, lane, 1, &w->from);
	double min_bw, floor_bps, max_lat;
	port_limits(a, e, k, lane, &min_bw, &floor_bps, &max_lat);
	w->rank = k;
	w->lane = lane;
	w->host = a->ranks[k].host;
	w->nic = a->ranks[k].nic[lane];
	w->facts = a->facts ? &a->facts[i] : NULL;
	snprintf(w->partners, sizeof(w->partners), "%s", pt.partners);
	w->tx = pt.tx, w->rx = pt.rx, w->lat = pt.lat, w->verified = (double)pt.verified;
	w->expected = etx;
	w->ratio = fmin(pt.tx / etx, pt.rx / erx);
	if (e->findings && e->findings[i].text.n)
		add_reason_at(w, e->findings[i].level, "%s", e->findings[i].text.s);
	if (a->ends)
		judge_counters(a, &a->ends[i], w);
	if (!pt.measured && a->p->pattern == LB_CHECK_BISECTION && !a->p->retest &&
	    lb_check_bisection_partner(k, a->size) < 0) { /* by design, not a fault */
		lb_buf_add(&w->reason, "%ssat out: bisection pairs the first %u of %u ranks",
			   w->reason.n ? "; " : "", a->size - 1, a->size);
		w->verdict = w->level == LB_PASS ? "SKIP" : w->verdict;
		return;
	}
	if (!pt.measured) {
		judge_burnin(a, k, lane, etx, erx, min_bw, w);
		judge_silence(a, k, lane, &pt, w);
		return;
	}
	if (strcmp(w->from, "median") == 0) { /* nothing says: the others are the yardstick */
		judge_outlier(w, "tx", pt.tx, &e->pop_tx, min_bw, 0);
		judge_outlier(w, "rx", pt.rx, &e->pop_rx, min_bw, 0);
	} else {
		judge_rate(w, "tx", pt.tx, etx, min_bw);
		judge_rate(w, "rx", pt.rx, erx, min_bw);
	}
	judge_rate(w, "tx", pt.tx, floor_bps, 1);
	judge_rate(w, "rx", pt.rx, floor_bps, 1);
	judge_loss(a, k, lane, w);
	judge_burnin(a, k, lane, etx, erx, min_bw, w);
	judge_line(a, e, k, lane, w);
	if (pt.lat > max_lat)
		add_reason(w, "latency %.3g us, max %.3g us", pt.lat * 1e6, max_lat * 1e6);
}

/* A lane whose ports do not agree on a fact, with no majority to judge
 * them by: a row of its own (phase "lane"), a warning. */
static int report_lanes(const struct check_all *a, const struct expect *e,
			const struct lb_sink *sink, char *err, size_t len)
{
	for (uint32_t l = 0; l < a->lanes; l++) {
		const struct check_finding *f = &e->findings[(size_t)a->size * a->lanes + l];
		if (!f->text.n)
			continue;
		struct row w = blank("lane");
		w.lane = l;
		w.nic = a->ranks[0].nic[l];
		add_reason_at(&w, f->level, "%s", f->text.s);
		int rc = emit_row(a, &w, sink, err, len);
		if (rc)
			return rc;
	}
	return 0;
}

/* A rerun's verdict of a suspect: whether the record's failure held. */
static void held_or_not(const struct lb_check_retest_port *rp, struct row *w)
{
	struct lb_buf was = w->reason;
	char tx[32], rx[32];
	w->reason = (struct lb_buf){ 0 };
	if (w->level >= LB_WARN) {
		lb_buf_add(&w->reason, "held: %s", was.s ? was.s : "");
	} else {
		rate_text(w->tx, tx, sizeof(tx));
		rate_text(w->rx, rx, sizeof(rx));
		lb_buf_add(&w->reason, "did not hold: PASS now (tx %s, rx %s, best with rank %s)%s%s",
			   tx, rx, w->partners, was.s ? "; " : "", was.s ? was.s : "");
	}
	if (rp->was)
		lb_buf_add(&w->reason, "; the record said: %s", rp->was);
	w->reason.failed |= was.failed;
	lb_buf_free(&was);
}

static int report_ports(const struct check_all *a, const struct expect *e,
			const struct lb_sink *sink, char *err, size_t len)
{
	for (uint32_t k = 0; k < a->size; k++)
		for (uint32_t l = 0; l < a->lanes; l++) {
			const struct lb_check_retest_port *rp = retested(a, k, l);
			if (a->p->retest && !rp) /* sat out, or a healthy partner: an instrument */
				continue;
			struct row w = blank("port");
			judge_port(a, e, k, l, &w);
			if (rp)
				held_or_not(rp, &w);
			int rc = emit_row(a, &w, sink, err, len);
			if (rc)
				return rc;
		}
	return 0;
}

/* Burn-in's time series: a row per port per interval (phase "interval"),
 * figures only: the port's row holds the verdict. */
static int report_intervals(const struct check_all *a, const struct lb_sink *sink, char *err,
			    size_t len)
{
	for (uint32_t i = 0; a->burnin && i < a->burnin->n; i++)
		for (uint32_t p = 0; p < a->size * a->lanes; p++) {
			struct row w = blank("interval");
			w.rank = p / a->lanes, w.lane = p % a->lanes, w.interval = i + 1;
			w.host = a->ranks[p / a->lanes].host;
			w.nic = a->ranks[p / a->lanes].nic[p % a->lanes];
			w.verdict = NULL;
			check_burnin_rates(a->burnin, i, p, &w.tx, &w.rx);
			int rc = emit_row(a, &w, sink, err, len);
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
		sum += expected(a, e, k, l, 0, from);
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
	if (a->p->retest) /* phase 2 did not run */
		return 0;
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
		int rc = emit_row(a, &w, sink, err, len);
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
		int rc = emit_row(a, &w, sink, err, len);
		if (rc)
			return rc;
	}
	if (!a->bcast_skipped)
		return 0;
	struct row w = blank("bcast");
	w.verdict = "SKIP";
	lb_buf_add(&w.reason, "%s", a->bcast_skipped);
	return emit_row(a, &w, sink, err, len);
}

/* ---- links: the N x N matrix of every lane ------------------------------- */

/* What s sent r again over what it sent r, on lane, over the slots they
 * met in (NaN: nothing sent). */
static double cell_loss(const struct check_all *a, uint32_t s, uint32_t r, uint32_t lane)
{
	uint64_t resent = 0, sent = 0;
	for (uint32_t slot = 0; slot < a->slots; slot++) {
		const struct check_pair *m = pair_of(a, s, lane, slot);
		if (m->partner == (int32_t)r)
			resent += m->resent, sent += m->sent;
	}
	return sent ? (double)resent / (double)sent : NAN;
}

static int port_loses(const struct check_all *a, uint32_t k, uint32_t lane, int rx)
{
	struct loss l = loss_of(a, k, lane, rx);
	lb_buf_free(&l.detail);
	return l.ratio > a->p->max_loss;
}

/* A cell that lost more than --max-loss into a port that loses what it
 * receives (or from one that loses what it sends) is slow for that
 * port's loss, which its row says: left out of the rows and columns the
 * matrix judges by rate, or the lossy port's partners would look slow
 * (Soft-RoCE waits an ack timeout for each loss). */
static int leave_out_lossy(const struct check_all *a, uint32_t lane, struct matrix *mx)
{
	size_t n = (size_t)a->size * a->size;
	uint8_t *loses = calloc(2 * (size_t)a->size + 1, 1);
	mx->rated = malloc((n + 1) * sizeof(double));
	mx->lossy = calloc(n + 1, 1);
	if (!loses || !mx->rated || !mx->lossy) {
		free(loses);
		return -1;
	}
	for (uint32_t k = 0; k < a->size; k++)
		for (int rx = 0; rx <= 1; rx++)
			loses[2 * k + (uint32_t)rx] = (uint8_t)port_loses(a, k, lane, rx);
	for (size_t at = 0; at < n; at++) {
		uint32_t s = (uint32_t)(at / a->size), r = (uint32_t)(at % a->size);
		mx->lossy[at] = !isnan(mx->rate[at]) && (loses[2 * s] || loses[2 * r + 1]) &&
				cell_loss(a, s, r, lane) > a->p->max_loss;
		mx->rated[at] = mx->lossy[at] ? NAN : mx->rate[at];
	}
	free(loses);
	return 0;
}

static int judge_matrix(const struct check_all *a, struct matrix *mx)
{
	mx->judged = lb_link_judge(mx->rated, a->size, a->p->min_bw, &mx->v) == 0;
	return mx->judged ? 0 : -1;
}

static int matrix_of(const struct check_all *a, uint32_t lane, struct matrix *mx)
{
	size_t n = (size_t)a->size * a->size;
	mx->rate = malloc((n + 1) * sizeof(double));
	mx->failed = calloc(n + 1, sizeof(*mx->failed));
	if (!mx->rate || !mx->failed)
		return -1;
	for (size_t i = 0; i < n; i++)
		mx->rate[i] = NAN;
	for (uint32_t s = 0; s < a->size; s++)
		for (uint32_t slot = 0; slot < a->slots; slot++) {
			const struct check_pair *m = pair_of(a, s, lane, slot);
			if (m->partner < 0)
				continue;
			size_t at = (size_t)s * a->size + (uint32_t)m->partner;
			double x = sent_rate(a, m, lane, slot);
			if (isnan(x) && isnan(mx->rate[at])) {
				const struct check_pair *to = pair_of(a, (uint32_t)m->partner, lane, slot);
				mx->failed[at] = !m->ok ? m->why : to->why;
			} else if (!isnan(x)) {
				mx->rate[at] = isnan(mx->rate[at]) || x > mx->rate[at] ? x : mx->rate[at];
				mx->failed[at] = NULL;
			}
		}
	return leave_out_lossy(a, lane, mx) ? -1 : judge_matrix(a, mx);
}

static void matrices_free(struct matrix *mx, uint32_t lanes)
{
	for (uint32_t l = 0; mx && l < lanes; l++) {
		free(mx[l].rate);
		free(mx[l].rated);
		free(mx[l].lossy);
		free(mx[l].failed);
		if (mx[l].judged)
			lb_link_verdicts_free(&mx[l].v);
	}
	free(mx);
}

static struct matrix *matrices_of(const struct check_all *a)
{
	struct matrix *mx = calloc(a->lanes + 1, sizeof(*mx));
	for (uint32_t l = 0; mx && l < a->lanes; l++)
		if (matrix_of(a, l, &mx[l])) {
			matrices_free(mx, a->lanes);
			return NULL;
		}
	return mx;
}

/* The bytes r received from s and checked, in the slots they met in. */
static double verified_on(const struct check_all *a, uint32_t s, uint32_t r, uint32_t lane)
{
	uint64_t v = 0;
	if (shifted(a)) /* r heard from s in one step, d = r - s: no scan (p^3 over the matrix) */
		return (double)pair_of(a, r, lane, (r + a->size - s) % a->size - 1)->verified;
	for (uint32_t slot = 0; slot < a->slots; slot++) {
		const struct check_pair *m = pair_of(a, r, lane, slot);
		if (m->partner >= 0 && (shifted(a) ? m->from : m->partner) == (int32_t)s)
			v += m->verified;
	}
	return (double)v;
}

/* The best latency s and r measured with each other on lane (NaN:
 * none; the pair's lower rank holds it): where a port's latency fails,
 * its links say with which partners. */
static double latency_on(const struct check_all *a, uint32_t s, uint32_t r, uint32_t lane)
{
	double best = NAN;
	if (shifted(a)) /* one-way streams: no round trips */
		return best;
	for (uint32_t slot = 0; slot < a->slots; slot++) {
		const struct check_pair *m = pair_of(a, s < r ? s : r, lane, slot);
		if (m->ok && m->partner == (int32_t)(s < r ? r : s) && !isnan(m->lat))
			best = isnan(best) ? m->lat : fmin(best, m->lat);
	}
	return best;
}

/* A slow link that shift's second looks did not reach: said, with why;
 * its figures are the matrix's first. */
static void note_not_looked(const struct check_all *a, uint32_t lane, size_t at, struct row *w)
{
	const struct check_looks *k = a->looks;
	if (!k || k->why[lane] == LOOKS_ALL || at < k->from[lane])
		return;
	if (k->why[lane] == LOOKS_OUT_OF_TIME)
		add_reason_at(w, LB_PASS, "not measured again: the second looks stopped after %.0f s "
			      "(--timeout), so these are its first figures", k->budget);
	else
		add_reason_at(w, LB_PASS, "not measured again: the lane's second looks stopped at %u "
			      "(%u a rank: a lane this slow has a slow switch), so these are its first "
			      "figures", CHECK_LINK_LOOKS_PER_RANK * a->size, CHECK_LINK_LOOKS_PER_RANK);
}

/* A cell slow for its port's loss (leave_out_lossy): a warning pointing
 * at the port that loses. */
static void warn_lossy_link(const struct check_all *a, uint32_t s, uint32_t r, uint32_t lane,
			    const char *rate, struct row *w)
{
	int by_receiver = port_loses(a, r, lane, 1);
	add_reason_at(w, LB_WARN, "%s, %.2g %% of it sent again: rank %u's port loses what it %s "
		      "(its port row)", rate, 100 * cell_loss(a, s, r, lane), by_receiver ? r : s,
		      by_receiver ? "receives" : "sends");
}

/* A cell's verdict: a link low in its row and its column FAILs, named; a
 * cell of a slow port's row or column WARNs, pointing at the port; a
 * pair that carried nothing FAILs as a link when both ports carried data
 * with others (else the silent port's row says it). */
static void judge_link(const struct check_all *a, const struct matrix *mx, uint32_t s, uint32_t r,
		       uint32_t lane, struct row *w)
{
	size_t at = (size_t)s * a->size + r;
	double x = mx->rate[at];
	char g[32], rm[32], cm[32];
	const char *nic = a->ranks[s].nic[lane];
	if (isnan(x)) {
		if (port_of(a, s, lane).measured && port_of(a, r, lane).measured)
			add_reason(w, "link %u->%u on lane %u (%s): carried nothing: %s", s, r, lane, nic,
				   mx->failed[at] ? mx->failed[at] : "no traffic");
		else
			w->verdict = "n/a";
		if (!w->reason.n)
			lb_buf_add(&w->reason, "a port of it carried nothing with anyone: see the port rows");
		return;
	}
	rate_text(x, g, sizeof(g));
	rate_text(mx->v.row_median[s], rm, sizeof(rm));
	rate_text(mx->v.col_median[r], cm, sizeof(cm));
	if (mx->v.link_low[at])
		add_reason(w, "link %u->%u on lane %u (%s): %.0f %% of the median of its row and "
			   "column: %s, rank %u sends to the others at %s, rank %u receives from them at "
			   "%s (min %.0f %%): the link, not the ports", s, r, lane, nic,
			   100 * x / fmin(mx->v.row_median[s], mx->v.col_median[r]), g, s, rm, r, cm,
			   100 * a->p->min_bw);
	else if (mx->lossy[at])
		warn_lossy_link(a, s, r, lane, g, w);
	else if ((mx->v.row_low[s] || mx->v.col_low[r]) && x < a->p->min_bw * mx->v.lane_median)
		add_reason_at(w, LB_WARN, "%s: rank %u's port %s slowly (its port row)", g,
			      mx->v.row_low[s] ? s : r, mx->v.row_low[s] ? "sends" : "receives");
	if (mx->v.link_low[at])
		note_not_looked(a, lane, at, w);
}

static int report_links(const struct check_all *a, const struct expect *e,
			const struct lb_sink *sink, char *err, size_t len)
{
	for (uint32_t l = 0; l < a->lanes; l++)
		for (uint32_t s = 0; s < a->size; s++)
			for (uint32_t r = 0; r < a->size; r++) {
				const struct matrix *mx = &e->matrices[l];
				size_t at = (size_t)s * a->size + r;
				if (s == r || (isnan(mx->rate[at]) && !mx->failed[at]))
					continue; /* not measured */
				struct row w = blank("link");
				w.rank = s, w.peer = r, w.lane = l;
				w.host = a->ranks[s].host;
				w.nic = a->ranks[s].nic[l];
				w.tx = mx->rate[at];
				w.expected = expected(a, e, s, l, 0, &w.from);
				w.ratio = w.tx / w.expected;
				w.verified = verified_on(a, s, r, l);
				w.lat = latency_on(a, s, r, l);
				judge_link(a, mx, s, r, l, &w);
				int rc = emit_row(a, &w, sink, err, len);
				if (rc)
					return rc;
			}
	return 0;
}

int lb_check_report(const struct check_all *a, const struct lb_sink *sink, char *err, size_t len)
{
	size_t n = (size_t)a->size * a->lanes;
	struct expect e = cluster_figures(a);
	e.nics = lane_names(a);
	e.findings = e.nics ? inventory_findings(a, e.nics) : NULL;
	e.matrices = matrices_of(a);
	int rc = e.findings && e.matrices && expected_figures(a, &e) == 0
			 ? report_ports(a, &e, sink, err, len)
			 : lb_errf(err, len, "out of memory");
	if (rc == 0)
		rc = report_links(a, &e, sink, err, len);
	if (rc == 0)
		rc = report_intervals(a, sink, err, len);
	if (rc == 0)
		rc = report_lanes(a, &e, sink, err, len);
	if (rc == 0)
		rc = report_aggregates(a, &e, sink, err, len);
	if (rc == 0)
		rc = report_collectives(a, sink, err, len);
	findings_free(e.findings, n + a->lanes);
	matrices_free(e.matrices, a->lanes);
	free(e.expected);
	free(e.expected_from);
	free(e.nics);
	return rc;
}
