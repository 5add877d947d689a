/* The check page's burn-in (lanebench check --duration, the rows of phase
 * "interval"): per port its lowest and highest rates over the intervals,
 * their spread and its verdict, and a sparkline of its tx and rx per
 * interval with the intervals below --min-bw of its expected rate marked
 * red -- a port that degrades warm shows where, not only that.  Ports
 * that FAIL or WARN first; past a screenful the others fold away. */
#include "check_html_private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/check_expect.h"

/* Points a sparkline draws: a longer burn-in's intervals are bucketed,
 * each bucket drawn at its lowest (the figure a verdict looks at). */
#define SPARK_POINTS 120u
#define SPARK_H 36u
/* An interval index past this is not drawn (a crafted record's "interval
 * 4e9" must not size an allocation); a week of 1 s intervals fits. */
#define MAX_INTERVAL (1u << 20)
/* Past this many ports, those that passed fold away (<details>). */
#define PORTS_SHOWN 16u

struct burnin {
	size_t nports;
	size_t *port;      /* [nports]: the port rows with intervals, record order */
	size_t *slot;      /* [nrows]: a port row's index in port; SIZE_MAX: none */
	uint32_t nint;     /* intervals: the highest index seen */
	uint32_t nbuckets; /* points a sparkline draws: nint, at most SPARK_POINTS */
	double *tx, *rx;   /* [nports * nbuckets]: the bucket's lowest; NAN: no row */
	double min_bw;     /* the record's --min-bw; check's default 90% without */
};

/* The port row an interval row belongs to; SIZE_MAX: none. */
static size_t port_of_interval(const struct chtml_page *pg, size_t r, uint32_t *k)
{
	uint32_t rank, lane;
	if (!chtml_is_phase(pg, r, "interval") || !chtml_index(pg, r, "interval", MAX_INTERVAL + 1, k) ||
	    *k == 0 || !chtml_index(pg, r, "rank", pg->nranks, &rank) ||
	    !chtml_index(pg, r, "lane", pg->nlanes, &lane))
		return SIZE_MAX;
	return chtml_port_row(pg, rank, lane);
}

/* The ports with intervals (their own rows say "intervals", or interval
 * rows name them) numbered in the record's order; nint. */
static int find_ports(const struct chtml_page *pg, struct burnin *b)
{
	uint32_t k;
	size_t n = pg->t->nrows + 1;
	if (!(b->slot = malloc(n * sizeof(*b->slot))) || !(b->port = malloc(n * sizeof(*b->port))))
		return -1;
	for (size_t r = 0; r < n; r++)
		b->slot[r] = SIZE_MAX;
	for (size_t r = 0; r < pg->t->nrows; r++) {
		size_t p = port_of_interval(pg, r, &k);
		if (p != SIZE_MAX) {
			b->slot[p] = 0; /* numbered below */
			b->nint = k > b->nint ? k : b->nint;
		} else if (chtml_is_phase(pg, r, "port") && *chtml_cell(pg, r, "intervals")) {
			b->slot[r] = 0;
		}
	}
	for (size_t r = 0; r < pg->t->nrows; r++)
		if (b->slot[r] != SIZE_MAX) {
			b->port[b->nports] = r;
			b->slot[r] = b->nports++;
		}
	return 0;
}

/* A rate of an interval row: empty is no traffic, 0 (results/README.md). */
static double interval_rate(const struct chtml_page *pg, size_t r, const char *col)
{
	double v = chtml_num(pg, r, col);
	return isnan(v) ? 0 : v;
}

static void keep_lowest(double *at, double v)
{
	if (isnan(*at) || v < *at)
		*at = v;
}

/* Every port's series, bucketed; -1 out of memory. */
static int fill_series(const struct chtml_page *pg, struct burnin *b)
{
	uint32_t k;
	size_t n = b->nports * b->nbuckets + 1;
	if (!(b->tx = malloc(n * sizeof(double))) || !(b->rx = malloc(n * sizeof(double))))
		return -1;
	for (size_t i = 0; i < n; i++)
		b->tx[i] = b->rx[i] = NAN;
	for (size_t r = 0; r < pg->t->nrows; r++) {
		size_t p = port_of_interval(pg, r, &k);
		if (p == SIZE_MAX)
			continue;
		size_t at = b->slot[p] * b->nbuckets + (size_t)(k - 1) * b->nbuckets / b->nint;
		keep_lowest(&b->tx[at], interval_rate(pg, r, "tx_bytes_per_second"));
		keep_lowest(&b->rx[at], interval_rate(pg, r, "rx_bytes_per_second"));
	}
	return 0;
}

static void free_burnin(struct burnin *b)
{
	free(b->port);
	free(b->slot);
	free(b->tx);
	free(b->rx);
}

/* ---- one port ------------------------------------------------------------- */

/* The port's floor: --min-bw of its expected rate; NAN without one. */
static double floor_of(const struct chtml_page *pg, const struct burnin *b, size_t port)
{
	return b->min_bw * chtml_num(pg, port, "expected_bytes_per_second");
}

/* The sparkline's top: the highest of the port's figures and its
 * expected rate, and a little room. */
static double top_of(const struct chtml_page *pg, const struct burnin *b, size_t i)
{
	double top = chtml_num(pg, b->port[i], "expected_bytes_per_second");
	top = isnan(top) ? 0 : top;
	for (uint32_t j = 0; j < b->nbuckets; j++) {
		size_t at = i * b->nbuckets + j;
		top = fmax(top, fmax(isnan(b->tx[at]) ? 0 : b->tx[at], isnan(b->rx[at]) ? 0 : b->rx[at]));
	}
	return top > 0 ? top * 1.08 : 1;
}

struct spark {
	unsigned step;   /* px an interval (bucket) */
	double top, low; /* rate at the top edge; the floor (NAN: none) */
};

static double spark_y(const struct spark *s, double v)
{
	return SPARK_H - 2 - v / s->top * (SPARK_H - 4);
}

/* "interval 2 of 4", "intervals 5-8 of 10080 (the lowest)" */
static void bucket_name(const struct burnin *b, uint32_t j, FILE *f)
{
	uint32_t first = (uint32_t)(((uint64_t)j * b->nint + b->nbuckets - 1) / b->nbuckets) + 1,
		 last = (uint32_t)(((uint64_t)(j + 1) * b->nint + b->nbuckets - 1) / b->nbuckets);
	if (first >= last)
		fprintf(f, "interval %u of %u", first, b->nint);
	else
		fprintf(f, "intervals %u-%u of %u (the lowest)", first, last, b->nint);
}

static int is_low(const struct spark *s, double tx, double rx)
{
	return !isnan(s->low) && ((!isnan(tx) && tx < s->low) || (!isnan(rx) && rx < s->low));
}

/* A bucket's hover area and tooltip: "rank 3 (h3), lane 1 (rail1),
 * interval 2 of 4: tx 28.7 Mbit/s, rx 95.8 Mbit/s; below 70 % of
 * expected (70 Mbit/s)". */
static void bucket_title(const struct chtml_page *pg, const struct burnin *b, size_t i,
			 uint32_t j, const struct spark *s, FILE *f)
{
	size_t at = i * b->nbuckets + j;
	uint32_t rank = 0, lane = 0;
	char tx[32], rx[32], low[32];
	chtml_index(pg, b->port[i], "rank", pg->nranks, &rank);
	chtml_index(pg, b->port[i], "lane", pg->nlanes, &lane);
	chtml_rate(b->tx[at], tx, sizeof(tx));
	chtml_rate(b->rx[at], rx, sizeof(rx));
	fprintf(f, "<rect x=\"%u\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"none\" "
		"pointer-events=\"all\"><title>", j * s->step, s->step, SPARK_H);
	chtml_rank_name(pg, rank, f);
	fputs(", ", f);
	chtml_lane_name(pg, lane, f);
	fputs(", ", f);
	bucket_name(b, j, f);
	if (isnan(b->tx[at]))
		fputs(": no row", f);
	else
		fprintf(f, ": tx %s, rx %s", tx, rx);
	if (is_low(s, b->tx[at], b->rx[at])) {
		chtml_rate(s->low, low, sizeof(low));
		fprintf(f, "; below %.0f %% of expected (%s)", b->min_bw * 100, low);
	}
	fputs("</title></rect>", f);
}

static void polyline(const struct burnin *b, const double *v, const struct spark *s,
		     const char *colour, double width, FILE *f)
{
	fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%g\" points=\"", colour,
		width);
	for (uint32_t j = 0; j < b->nbuckets; j++)
		if (!isnan(v[j]))
			fprintf(f, "%s%.1f,%.1f", j ? " " : "", j * s->step + s->step / 2.0, spark_y(s, v[j]));
	fputs("\"/>", f);
}

/* The port's tx and rx per interval: the low intervals' background red,
 * the floor dashed, a dot where a series fell below it. */
static void write_sparkline(const struct chtml_page *pg, const struct burnin *b, size_t i,
			    FILE *f)
{
	struct spark s = { .top = top_of(pg, b, i), .low = floor_of(pg, b, b->port[i]) };
	const double *tx = b->tx + i * b->nbuckets, *rx = b->rx + i * b->nbuckets;
	unsigned step = 240 / b->nbuckets;
	s.step = step > 40 ? 40 : step < 2 ? 2 : step;
	fprintf(f, "<td class=\"spark\"><svg role=\"img\" width=\"%u\" height=\"%u\" "
		"viewBox=\"0 0 %u %u\">", s.step * b->nbuckets, SPARK_H, s.step * b->nbuckets, SPARK_H);
	for (uint32_t j = 0; j < b->nbuckets; j++)
		if (is_low(&s, tx[j], rx[j]))
			fprintf(f, "<rect class=\"low\" x=\"%u\" y=\"0\" width=\"%u\" height=\"%u\" "
				"fill=\"#f5b7b1\"/>", j * s.step, s.step, SPARK_H);
	if (!isnan(s.low))
		fprintf(f, "<line x1=\"0\" x2=\"%u\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#c62828\" "
			"stroke-dasharray=\"3,2\"/>", s.step * b->nbuckets, spark_y(&s, s.low),
			spark_y(&s, s.low));
	fprintf(f, "<line x1=\"0\" x2=\"%u\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#bbb\"/>",
		s.step * b->nbuckets, spark_y(&s, 0), spark_y(&s, 0)); /* 0 */
	/* tx broad and light under rx: where they meet, both show */
	polyline(b, tx, &s, "#64b5f6", 3.5, f);
	polyline(b, rx, &s, "#6a1b9a", 1.2, f);
	for (uint32_t j = 0; j < b->nbuckets; j++)
		if (is_low(&s, tx[j], rx[j]))
			fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"#c62828\"/>",
				j * s.step + s.step / 2.0, spark_y(&s, fmin(tx[j], rx[j])));
	for (uint32_t j = 0; j < b->nbuckets; j++)
		bucket_title(pg, b, i, j, &s, f);
	fputs("</svg></td>", f);
}

/* A rate cell, marked when below the port's floor. */
static void rate_cell(const struct chtml_page *pg, size_t r, const char *col, double low, FILE *f)
{
	char t[32];
	double v = chtml_num(pg, r, col);
	chtml_rate(v, t, sizeof(t));
	fprintf(f, "<td class=\"num%s\">%s</td>", !isnan(low) && v < low ? " v-fail" : "", t);
}

static void write_port(const struct chtml_page *pg, const struct burnin *b, size_t i, FILE *f)
{
	size_t r = b->port[i];
	uint32_t rank = 0, lane = 0;
	double spread = chtml_num(pg, r, "spread_ratio"), low = floor_of(pg, b, r);
	chtml_index(pg, r, "rank", pg->nranks, &rank);
	chtml_index(pg, r, "lane", pg->nlanes, &lane);
	fprintf(f, "<tr class=\"%s\"><td class=\"where\">", chtml_level_class[chtml_row_level(pg, r)]);
	chtml_rank_name(pg, rank, f);
	fputs(", ", f);
	chtml_lane_name(pg, lane, f);
	fputs("</td>", f);
	fputs("<td class=\"num\">", f);
	chtml_esc(f, *chtml_cell(pg, r, "intervals") ? chtml_cell(pg, r, "intervals") : "-");
	fputs("</td>", f);
	rate_cell(pg, r, "min_tx_bytes_per_second", low, f);
	rate_cell(pg, r, "max_tx_bytes_per_second", low, f);
	rate_cell(pg, r, "min_rx_bytes_per_second", low, f);
	rate_cell(pg, r, "max_rx_bytes_per_second", low, f);
	if (isnan(spread))
		fputs("<td class=\"num\">-</td>", f);
	else
		fprintf(f, "<td class=\"num\">%.1f%%</td>", spread * 100);
	chtml_verdict_cell(f, chtml_cell(pg, r, "verdict"));
	write_sparkline(pg, b, i, f);
	fputs("</tr>\n", f);
}

/* ---- the section ---------------------------------------------------------- */

static void ports_header(FILE *f)
{
	fputs("<table class=\"burnin\">\n<tr><th>port</th><th>intervals</th><th>min tx</th>"
	      "<th>max tx</th><th>min rx</th><th>max rx</th><th>spread</th><th>verdict</th>"
	      "<th>tx <span class=\"tx\">&#9644;</span> rx <span class=\"rx\">&#9644;</span> per "
	      "interval</th></tr>\n", f);
}

/* The ports that are findings (failing 1) or not (0); how many. */
static size_t port_rows(const struct chtml_page *pg, const struct burnin *b, int failing, FILE *f)
{
	size_t n = 0;
	for (size_t i = 0; i < b->nports; i++)
		if (chtml_is_finding(chtml_row_level(pg, b->port[i])) == failing) {
			write_port(pg, b, i, f);
			n++;
		}
	return n;
}

static void write_intro(const struct chtml_page *pg, const struct burnin *b, FILE *f)
{
	const char *d = lb_table_prov(pg->t, "option.duration"),
		   *iv = lb_table_prov(pg->t, "option.interval");
	fprintf(f, "<h2 id=\"burnin\">Burn-in</h2>\n<p class=\"note\">Phase 1 repeated over %u "
		"intervals", b->nint);
	if (d && iv) {
		fputs(" (--duration ", f);
		chtml_esc(f, d);
		fputs(", --interval ", f);
		chtml_esc(f, iv);
		fputc(')', f);
	}
	fprintf(f, ". Per port its lowest and highest rate over them and their spread, (max - min) "
		"/ max; the line: its tx and rx per interval, dashed the --min-bw (%.0f %%) of its "
		"expected rate, red an interval below it. Hover an interval for its figures.</p>\n",
		b->min_bw * 100);
}

int chtml_write_burnin(const struct chtml_page *pg, FILE *f)
{
	struct burnin b = { .min_bw = 0.9 };
	const char *min_bw = lb_table_prov(pg->t, "option.min-bw");
	char err[128];
	int rc = find_ports(pg, &b);
	if (rc || !b.nint) { /* no burn-in: no section */
		free_burnin(&b);
		return rc;
	}
	if (min_bw)
		lb_parse_fraction(min_bw, &b.min_bw, err, sizeof(err)); /* unchanged when bad */
	b.nbuckets = b.nint < SPARK_POINTS ? b.nint : SPARK_POINTS;
	if (fill_series(pg, &b)) {
		free_burnin(&b);
		return -1;
	}
	write_intro(pg, &b, f);
	ports_header(f);
	size_t failing = port_rows(pg, &b, 1, f);
	if (b.nports <= PORTS_SHOWN || !failing) {
		port_rows(pg, &b, 0, f);
		fputs("</table>\n", f);
	} else {
		fprintf(f, "</table>\n<details><summary>%zu ports that passed</summary>\n",
			b.nports - failing);
		ports_header(f);
		port_rows(pg, &b, 0, f);
		fputs("</table>\n</details>\n", f);
	}
	free_burnin(&b);
	return 0;
}
