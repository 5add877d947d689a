/* The check page's link matrices: per lane, an SVG heatmap of the rows of
 * phase "link" -- row = sender (the row's rank), column = receiver (its
 * peer) -- coloured by the rate over the expected (the row's ratio; when a
 * record has none, the tx over the lane's median link).  Pairs not
 * measured are hatched, a rank with itself grey, FAIL and WARN cells
 * outlined; every cell's tooltip (<title>) names the pair, hosts, rate and
 * verdict with its reason. */
#include "check_html_private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The matrix's side, in px, whatever N (cells of 4 to 40 px). */
#define MATRIX_PX 768u
#define NOT_MEASURED SIZE_MAX

/* Stops of the colour scale: a share of the expected rate -> hue.  Red up
 * to half, yellow at 90% (check's default --min-bw), green at 100%. */
static const struct { double at, hue; } stops[] = {
	{ 0.5, 0 }, { 0.8, 30 }, { 0.9, 55 }, { 1.0, 120 },
};
#define NSTOPS (sizeof(stops) / sizeof(stops[0]))

static double hue_of(double share)
{
	if (!(share > stops[0].at))
		return stops[0].hue;
	for (size_t i = 1; i < NSTOPS; i++)
		if (share <= stops[i].at)
			return stops[i - 1].hue + (share - stops[i - 1].at) /
			       (stops[i].at - stops[i - 1].at) * (stops[i].hue - stops[i - 1].hue);
	return stops[NSTOPS - 1].hue;
}

static void fill_of(double share, char *buf, size_t len)
{
	if (isnan(share))
		snprintf(buf, len, "#666"); /* measured, but no rate: carried nothing */
	else
		snprintf(buf, len, "hsl(%.0f,65%%,50%%)", hue_of(share));
}

/* One lane's geometry and cells. */
struct matrix {
	uint32_t n, lane;
	unsigned cell, left, top, font;        /* px */
	unsigned xstep, ystep;                 /* a label every step ranks */
	const size_t *row;                     /* [n * n]: link row or NOT_MEASURED */
	double median_tx;                      /* of the lane's links: the fallback scale */
	size_t measured, nfail, nwarn;
};

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The median tx of the lane's measured links; NAN when none has one. */
static double median_tx(const struct chtml_page *pg, const struct matrix *m)
{
	double *v = malloc(((size_t)m->n * m->n + 1) * sizeof(*v)), med = NAN;
	size_t k = 0;
	if (!v)
		return NAN;
	for (size_t i = 0; i < (size_t)m->n * m->n; i++)
		if (m->row[i] != NOT_MEASURED &&
		    !isnan(v[k] = chtml_num(pg, m->row[i], "tx_bytes_per_second")))
			k++;
	if (k) {
		qsort(v, k, sizeof(*v), by_value);
		med = k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
	}
	free(v);
	return med;
}

static double share_of(const struct chtml_page *pg, const struct matrix *m, size_t r)
{
	double ratio = chtml_num(pg, r, "ratio");
	return isnan(ratio) ? chtml_num(pg, r, "tx_bytes_per_second") / m->median_tx : ratio;
}

/* Places the lane's link rows; counts them and their verdicts. */
static void place_links(const struct chtml_page *pg, struct matrix *m, size_t *cells)
{
	uint32_t s, d, lane;
	for (size_t i = 0; i < (size_t)m->n * m->n; i++)
		cells[i] = NOT_MEASURED;
	for (size_t r = 0; r < pg->t->nrows; r++) {
		if (!chtml_is_phase(pg, r, "link") ||
		    !chtml_index(pg, r, "lane", CHTML_MAX_LANES, &lane) || lane != m->lane ||
		    !chtml_index(pg, r, "rank", m->n, &s) || !chtml_index(pg, r, "peer", m->n, &d))
			continue;
		cells[(size_t)s * m->n + d] = r;
		m->measured++;
		enum chtml_level lv = chtml_row_level(pg, r);
		m->nfail += lv == CHTML_FAIL || lv == CHTML_ERROR;
		m->nwarn += lv == CHTML_WARN;
	}
	m->row = cells;
	m->median_tx = median_tx(pg, m);
}

static void geometry(struct matrix *m)
{
	unsigned cell = MATRIX_PX / (m->n ? m->n : 1);
	m->cell = cell > 40 ? 40 : cell < 4 ? 4 : cell;
	m->font = m->cell >= 14 ? 11 : 9;
	/* labels must not overlap: across, as wide as their digits */
	unsigned digits = m->n > 1000 ? 4 : m->n > 100 ? 3 : m->n > 10 ? 2 : 1;
	m->xstep = (m->font * 6 * digits / 10 + 3 + m->cell - 1) / m->cell;
	m->ystep = (m->font + 2 + m->cell - 1) / m->cell;
	m->left = 30 + 4 * m->font;
	m->top = 24 + 3 * m->font;
}

/* The tooltip: "3 (lb-h3) -> 7 (lb-h7), lane 0 (rail0): 940 Mbit/s, 98%
 * of expected; FAIL: reason" */
static void cell_title(const struct chtml_page *pg, const struct matrix *m, uint32_t s,
		       uint32_t d, FILE *f)
{
	size_t r = m->row[(size_t)s * m->n + d];
	char rate[32];
	fputs("<title>", f);
	chtml_rank_name(pg, s, f);
	fputs(" &#8594; ", f);
	chtml_rank_name(pg, d, f);
	fputs(", ", f);
	chtml_lane_name(pg, m->lane, f);
	if (r == NOT_MEASURED) {
		fputs(s == d ? ": itself" : ": not measured", f);
	} else {
		chtml_rate(chtml_num(pg, r, "tx_bytes_per_second"), rate, sizeof(rate));
		fprintf(f, ": %s", rate);
		if (!isnan(chtml_num(pg, r, "ratio")))
			fprintf(f, ", %.0f%% of expected", chtml_num(pg, r, "ratio") * 100);
		fputs("; ", f);
		chtml_esc(f, chtml_cell(pg, r, "verdict"));
		if (*chtml_cell(pg, r, "reason")) {
			fputs(": ", f);
			chtml_esc(f, chtml_cell(pg, r, "reason"));
		}
	}
	fputs("</title>", f);
}

static void write_cell(const struct chtml_page *pg, const struct matrix *m, uint32_t s,
		       uint32_t d, FILE *f)
{
	size_t r = m->row[(size_t)s * m->n + d];
	unsigned x = m->left + d * m->cell, y = m->top + s * m->cell;
	char fill[48];
	double share = r == NOT_MEASURED ? NAN : share_of(pg, m, r);
	if (r != NOT_MEASURED)
		fill_of(share, fill, sizeof(fill));
	else if (s == d)
		snprintf(fill, sizeof(fill), "#d8d8d8");
	else
		snprintf(fill, sizeof(fill), "url(#hatch%u)", m->lane);
	fprintf(f, "<rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"%u\" fill=\"%s\" "
		"stroke=\"#fff\" stroke-width=\"%s\">", x, y, m->cell, m->cell, fill,
		m->cell >= 8 ? "0.5" : "0");
	cell_title(pg, m, s, d, f);
	fputs("</rect>", f);
	if (m->cell >= 30 && !isnan(share))
		fprintf(f, "<text x=\"%u\" y=\"%u\" font-size=\"10\" text-anchor=\"middle\" "
			"pointer-events=\"none\">%.0f</text>", x + m->cell / 2, y + m->cell / 2 + 4,
			share * 100);
	fputc('\n', f);
}

/* FAIL and ERROR cells: a solid frame; WARN: a dashed one.  Drawn after
 * every cell, so no neighbour covers a frame. */
static void write_outlines(const struct chtml_page *pg, const struct matrix *m, FILE *f)
{
	for (uint32_t s = 0; s < m->n; s++)
		for (uint32_t d = 0; d < m->n; d++) {
			size_t r = m->row[(size_t)s * m->n + d];
			if (r == NOT_MEASURED)
				continue;
			enum chtml_level lv = chtml_row_level(pg, r);
			if (lv != CHTML_FAIL && lv != CHTML_ERROR && lv != CHTML_WARN)
				continue;
			/* a slow port WARNs a whole row or column: in small cells
			 * thick dashes made it a row of cogwheels */
			int small = m->cell < 20;
			double w = lv != CHTML_WARN ? (m->cell >= 12 ? 2.5 : 1.5) : small ? 1 : 2;
			fprintf(f, "<rect class=\"link-%s\" x=\"%g\" y=\"%g\" width=\"%g\" "
				"height=\"%g\" fill=\"none\" stroke=\"#000\" stroke-width=\"%g\"%s/>\n",
				chtml_level_class[lv], m->left + d * m->cell + w / 2,
				m->top + s * m->cell + w / 2, m->cell - w, m->cell - w, w,
				lv != CHTML_WARN ? "" : small ? " stroke-dasharray=\"2,1\"" :
				" stroke-dasharray=\"3,2\"");
		}
}

/* Rank numbers along both axes, each with its host as tooltip. */
static void write_axes(const struct chtml_page *pg, const struct matrix *m, FILE *f)
{
	unsigned side = m->n * m->cell;
	fprintf(f, "<text x=\"%u\" y=\"12\" font-size=\"12\" text-anchor=\"middle\">receiver "
		"(peer) &#8594;</text>\n", m->left + side / 2);
	fprintf(f, "<text transform=\"translate(12,%u) rotate(-90)\" font-size=\"12\" "
		"text-anchor=\"middle\">&#8592; sender (rank)</text>\n", m->top + side / 2);
	for (uint32_t i = 0; i < m->n; i += m->xstep) {
		fprintf(f, "<text x=\"%u\" y=\"%u\" font-size=\"%u\" text-anchor=\"middle\">"
			"<title>", m->left + i * m->cell + m->cell / 2, m->top - 4, m->font);
		chtml_rank_name(pg, i, f);
		fprintf(f, "</title>%u</text>\n", i);
	}
	for (uint32_t i = 0; i < m->n; i += m->ystep) {
		fprintf(f, "<text x=\"%u\" y=\"%u\" font-size=\"%u\" text-anchor=\"end\">"
			"<title>", m->left - 4, m->top + i * m->cell + m->cell / 2 + m->font / 3,
			m->font);
		chtml_rank_name(pg, i, f);
		fprintf(f, "</title>%u</text>\n", i);
	}
}

static void write_hatch(const struct matrix *m, FILE *f)
{
	fprintf(f, "<defs><pattern id=\"hatch%u\" width=\"6\" height=\"6\" "
		"patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
		"<rect width=\"6\" height=\"6\" fill=\"#f2f2f2\"/><line x1=\"0\" y1=\"0\" x2=\"0\" "
		"y2=\"6\" stroke=\"#aaa\" stroke-width=\"2\"/></pattern></defs>\n", m->lane);
}

static void write_matrix(const struct chtml_page *pg, struct matrix *m, FILE *f)
{
	char med[32];
	geometry(m);
	chtml_rate(m->median_tx, med, sizeof(med));
	fprintf(f, "<figure id=\"matrix-lane%u\">\n<h3>", m->lane);
	chtml_lane_name(pg, m->lane, f);
	fprintf(f, "</h3>\n<p>%zu of %llu links measured, median %s; %zu FAIL, %zu WARN.</p>\n",
		m->measured, (unsigned long long)m->n * (m->n - 1), med, m->nfail, m->nwarn);
	unsigned side = m->n * m->cell;
	fprintf(f, "<svg role=\"img\" width=\"%u\" "
		"height=\"%u\" viewBox=\"0 0 %u %u\">\n", m->left + side + 8, m->top + side + 8,
		m->left + side + 8, m->top + side + 8);
	write_hatch(m, f);
	write_axes(pg, m, f);
	for (uint32_t s = 0; s < m->n; s++)
		for (uint32_t d = 0; d < m->n; d++)
			write_cell(pg, m, s, d, f);
	write_outlines(pg, m, f);
	fputs("</svg>\n</figure>\n", f);
}

/* The colour scale and the marks, once above the matrices. */
static void write_legend(FILE *f)
{
	char fill[48];
	fputs("<svg role=\"img\" width=\"760\" "
	      "height=\"54\" viewBox=\"0 0 760 54\">\n<defs><pattern id=\"hatch-legend\" "
	      "width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
	      "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#f2f2f2\"/>"
	      "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#aaa\" stroke-width=\"2\"/>"
	      "</pattern></defs>\n", f);
	for (int i = 0; i <= 24; i++) { /* 50% to 110% */
		fill_of(0.5 + i * 0.025, fill, sizeof(fill));
		fprintf(f, "<rect x=\"%d\" y=\"6\" width=\"14\" height=\"18\" fill=\"%s\"/>\n",
			10 + i * 14, fill);
	}
	static const struct { double share; const char *label; } ticks[] = {
		{ 0.5, "&#8804;50%" }, { 0.8, "80%" }, { 0.9, "90%" }, { 1.0, "100%" },
		{ 1.1, "110%" },
	};
	for (size_t i = 0; i < sizeof(ticks) / sizeof(ticks[0]); i++)
		fprintf(f, "<text x=\"%.0f\" y=\"40\" font-size=\"11\" text-anchor=\"middle\">"
			"%s</text>\n", 10 + (ticks[i].share - 0.5) / 0.025 * 14 + 7, ticks[i].label);
	fputs("<text x=\"10\" y=\"52\" font-size=\"11\">rate over expected</text>\n"
	      "<rect x=\"390\" y=\"6\" width=\"18\" height=\"18\" fill=\"url(#hatch-legend)\"/>"
	      "<text x=\"412\" y=\"20\" font-size=\"11\">not measured</text>\n"
	      "<rect x=\"500\" y=\"6\" width=\"18\" height=\"18\" fill=\"#d8d8d8\"/>"
	      "<text x=\"522\" y=\"20\" font-size=\"11\">itself</text>\n"
	      "<rect x=\"570\" y=\"7\" width=\"16\" height=\"16\" fill=\"#fff\" stroke=\"#000\" "
	      "stroke-width=\"2.5\"/><text x=\"592\" y=\"20\" font-size=\"11\">FAIL</text>\n"
	      "<rect x=\"630\" y=\"7\" width=\"16\" height=\"16\" fill=\"#fff\" stroke=\"#000\" "
	      "stroke-width=\"1.5\" stroke-dasharray=\"3,2\"/>"
	      "<text x=\"652\" y=\"20\" font-size=\"11\">WARN</text>\n"
	      "<rect x=\"690\" y=\"6\" width=\"18\" height=\"18\" fill=\"#666\"/>"
	      "<text x=\"712\" y=\"20\" font-size=\"11\">no rate</text>\n</svg>\n", f);
}

static size_t count_links(const struct chtml_page *pg)
{
	size_t n = 0;
	for (size_t r = 0; r < pg->t->nrows; r++)
		n += chtml_is_phase(pg, r, "link");
	return n;
}

int chtml_write_matrices(const struct chtml_page *pg, FILE *f)
{
	size_t nlinks = count_links(pg);
	fputs("<h2 id=\"links\">Links: every lane's N &#215; N matrix</h2>\n", f);
	if (!nlinks) {
		fputs("<p>This record has no link rows (phase link): no pair was recorded "
		      "on its own.</p>\n", f);
		return 0;
	}
	if (pg->nranks > CHTML_MAX_MATRIX_RANKS) {
		fprintf(f, "<p>%zu link rows over %u ranks: too many to draw; the failing "
			"ones are listed above.</p>\n", nlinks, pg->nranks);
		return 0;
	}
	fputs("<p class=\"note\">Row: the sender (the row's rank), column: the receiver (its "
	      "peer); the colour is the link's rate over the expected (in a large cell, in per "
	      "cent). Hover a cell for its "
	      "hosts, rate and verdict.</p>\n", f);
	write_legend(f);
	size_t *cells = malloc(((size_t)pg->nranks * pg->nranks + 1) * sizeof(*cells));
	if (!cells)
		return -1;
	fputs("<div class=\"lanes\">\n", f); /* side by side while they fit */
	for (uint32_t lane = 0; lane < pg->nlanes; lane++) {
		struct matrix m = { .n = pg->nranks, .lane = lane };
		place_links(pg, &m, cells);
		if (m.measured)
			write_matrix(pg, &m, f);
	}
	fputs("</div>\n", f);
	free(cells);
	return 0;
}
