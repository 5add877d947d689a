/* A check record as one HTML page (check_html.h).  Sections in the order a
 * person acts on them: verdict, failures, hosts, burn-in, link matrices,
 * inventory, counters, collectives.  Every text of the record goes through chtml_esc(). */
#include "check_html.h"
#include "check_html_private.h"
#include "check_page.h"
#include "rowtable.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "outfile.h"
#include "lib/error.h"
#include "lib/units.h"

const char *const chtml_level_class[] = { "pass", "warn", "fail", "error", "other" };

/* ---- cells ---------------------------------------------------------------- */

const char *chtml_cell(const struct chtml_page *pg, size_t row, const char *col)
{
	int c = lb_table_col(pg->t, col);
	return c >= 0 ? lb_table_cell(pg->t, row, c) : "";
}

int chtml_is_phase(const struct chtml_page *pg, size_t row, const char *phase)
{
	return strcmp(chtml_cell(pg, row, "phase"), phase) == 0;
}

double chtml_num(const struct chtml_page *pg, size_t row, const char *col)
{
	double v;
	int c = lb_table_col(pg->t, col);
	return c >= 0 && lb_table_finite(pg->t, row, c, &v, NULL, 0) == 0 ? v : NAN;
}

/* A whole number below max in *v: 1; else (empty, not whole, too big) 0. */
int chtml_index(const struct chtml_page *pg, size_t row, const char *col, uint32_t max,
		    uint32_t *v)
{
	uint64_t u;
	int c = lb_table_col(pg->t, col);
	if (c < 0 || lb_table_uint(pg->t, row, c, 0, max - 1, &u, NULL, 0))
		return 0;
	*v = (uint32_t)u;
	return 1;
}

enum chtml_level chtml_level_of(const char *verdict)
{
	static const char *const words[] = { "PASS", "WARN", "FAIL", "ERROR" };
	for (int i = 0; i < 4; i++)
		if (strcmp(verdict, words[i]) == 0)
			return (enum chtml_level)i;
	return CHTML_OTHER;
}

enum chtml_level chtml_row_level(const struct chtml_page *pg, size_t row)
{
	return chtml_level_of(chtml_cell(pg, row, "verdict"));
}

int chtml_is_finding(enum chtml_level lv)
{
	return lv == CHTML_FAIL || lv == CHTML_ERROR || lv == CHTML_WARN;
}

/* Worse of two: ERROR > FAIL > WARN > PASS; OTHER (SKIP, n/a) counts as
 * nothing. */
static enum chtml_level worse(enum chtml_level a, enum chtml_level b)
{
	if (a == CHTML_OTHER)
		return b;
	return b != CHTML_OTHER && b > a ? b : a;
}

/* ---- writing -------------------------------------------------------------- */

/* Text for element content and attribute values alike. */
void chtml_esc(FILE *f, const char *s)
{
	chtml_esc_n(f, s, strlen(s));
}

void chtml_esc_n(FILE *f, const char *s, size_t n)
{
	for (const char *end = s + n; s < end; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default:
			/* control bytes would make the page invalid */
			fputc((unsigned char)*s < 0x20 && *s != '\t' && *s != '\n' ? ' ' : *s, f);
		}
	}
}

/* "12.3 Gbit/s", "940 Mbit/s", "-" */
void chtml_rate(double bytes_per_s, char *buf, size_t len)
{
	double bits = bytes_per_s * 8;
	if (isnan(bits))
		snprintf(buf, len, "-");
	else if (bits >= 1e9)
		snprintf(buf, len, "%.3g Gbit/s", bits / 1e9);
	else
		snprintf(buf, len, "%.3g Mbit/s", bits / 1e6);
}

/* <td class="v-fail">FAIL</td>: the class from the level, never the text. */
void chtml_verdict_cell(FILE *f, const char *verdict)
{
	fprintf(f, "<td class=\"v-%s\">", chtml_level_class[chtml_level_of(verdict)]);
	chtml_esc(f, verdict);
	fputs("</td>", f);
}

void chtml_td(FILE *f, const char *text)
{
	fputs("<td>", f);
	chtml_esc(f, *text ? text : "-");
	fputs("</td>", f);
}

/* "rank 3 (lb-h3)" */
void chtml_rank_name(const struct chtml_page *pg, uint32_t rank, FILE *f)
{
	fprintf(f, "rank %u", rank);
	if (rank < pg->nranks && *pg->host[rank]) {
		fputs(" (", f);
		chtml_esc(f, pg->host[rank]);
		fputc(')', f);
	}
}

/* ---- what the record spans ------------------------------------------------ */

static uint32_t max_u32(uint32_t a, uint32_t b)
{
	return a > b ? a : b;
}

/* Ranks and lanes from the rows (rank, peer, lane), at least the head's. */
static void measure(struct chtml_page *pg)
{
	uint32_t v;
	const char *ranks = lb_table_prov(pg->t, "ranks"), *lanes = lb_table_prov(pg->t, "lanes");
	if (ranks && strtoul(ranks, NULL, 10) < CHTML_MAX_RANKS)
		pg->nranks = (uint32_t)strtoul(ranks, NULL, 10);
	if (lanes && strtoul(lanes, NULL, 10) < CHTML_MAX_LANES)
		pg->nlanes = (uint32_t)strtoul(lanes, NULL, 10);
	for (size_t r = 0; r < pg->t->nrows; r++) {
		if (chtml_index(pg, r, "rank", CHTML_MAX_RANKS, &v))
			pg->nranks = max_u32(pg->nranks, v + 1);
		if (chtml_index(pg, r, "peer", CHTML_MAX_RANKS, &v))
			pg->nranks = max_u32(pg->nranks, v + 1);
		if (!chtml_is_phase(pg, r, "bcast") && chtml_index(pg, r, "lane", CHTML_MAX_LANES, &v))
			pg->nlanes = max_u32(pg->nlanes, v + 1);
	}
}

/* Notes a port or aggregate row in rows_of. */
static void index_row(struct chtml_page *pg, size_t r)
{
	uint32_t rank, lane = pg->nlanes;
	int port = chtml_is_phase(pg, r, "port");
	if ((!port && !chtml_is_phase(pg, r, "aggregate")) ||
	    !chtml_index(pg, r, "rank", pg->nranks, &rank) ||
	    (port && !chtml_index(pg, r, "lane", pg->nlanes, &lane)))
		return;
	pg->rows_of[(size_t)rank * (pg->nlanes + 1) + lane] = r;
}

/* Each rank's host (its rows', else the head's "host.R"), each lane's NIC
 * name, each rank's port and aggregate rows. */
static int name_things(struct chtml_page *pg)
{
	uint32_t rank, lane;
	size_t nrows_of = ((size_t)pg->nranks + 1) * (pg->nlanes + 1);
	pg->host = calloc(pg->nranks + 1, sizeof(*pg->host));
	pg->nic = calloc(pg->nlanes + 1, sizeof(*pg->nic));
	pg->rows_of = malloc(nrows_of * sizeof(*pg->rows_of));
	if (!pg->host || !pg->nic || !pg->rows_of)
		return -1;
	for (size_t i = 0; i < nrows_of; i++)
		pg->rows_of[i] = SIZE_MAX;
	for (size_t r = 0; r < pg->t->nrows; r++) {
		if (chtml_is_phase(pg, r, "link") || chtml_is_phase(pg, r, "bcast"))
			continue; /* a link's host is its sender's, named by its port too */
		index_row(pg, r);
		if (chtml_index(pg, r, "rank", pg->nranks, &rank) && *chtml_cell(pg, r, "host"))
			pg->host[rank] = chtml_cell(pg, r, "host");
		if (chtml_index(pg, r, "lane", pg->nlanes, &lane) && *chtml_cell(pg, r, "nic"))
			pg->nic[lane] = chtml_cell(pg, r, "nic");
	}
	for (uint32_t i = 0; i < pg->nranks; i++) {
		char key[32];
		snprintf(key, sizeof(key), "host.%u", i);
		if (!pg->host[i])
			pg->host[i] = lb_table_prov(pg->t, key) ? lb_table_prov(pg->t, key) : "";
	}
	for (uint32_t i = 0; i < pg->nlanes; i++)
		if (!pg->nic[i])
			pg->nic[i] = "";
	return 0;
}

/* "lane 1 (rail1)" */
void chtml_lane_name(const struct chtml_page *pg, uint32_t lane, FILE *f)
{
	fprintf(f, "lane %u", lane);
	if (lane < pg->nlanes && *pg->nic[lane]) {
		fputs(" (", f);
		chtml_esc(f, pg->nic[lane]);
		fputc(')', f);
	}
}

/* ---- the page's head and verdict ------------------------------------------ */

static const char style[] =
	"body{font:14px/1.4 sans-serif;margin:1.5em;color:#222;max-width:1200px}"
	"h1{font-size:1.3em;margin:0 0 .3em}h2{font-size:1.15em;margin:1.6em 0 .4em;"
	"border-bottom:1px solid #ccc}"
	"table{border-collapse:collapse;margin:.3em 0}td,th{border:1px solid #ccc;"
	"padding:2px 6px;text-align:left;vertical-align:top}th{background:#f0f0f0}"
	"td.num{text-align:right}"
	".verdict{font-size:2.4em;font-weight:bold;padding:.2em .6em;display:inline-block;"
	"border-radius:6px;color:#fff}"
	".verdict.pass{background:#2e7d32}.verdict.warn{background:#b26a00}"
	".verdict.fail,.verdict.error,.verdict.other{background:#c62828}"
	"td.v-pass{color:#2e7d32}td.v-warn{background:#fff3cd;font-weight:bold}"
	"td.v-fail,td.v-error{background:#f8d7da;font-weight:bold}"
	"tr.fail td.where,tr.error td.where{font-weight:bold}"
	"td.odd{background:#ffe08a;font-weight:bold}"
	".note{color:#555}.prov td{border:none;padding:0 1em 0 0}"
	"svg{display:block;margin:.5em 0 1em}svg text{font-family:sans-serif}"
	".lanes{display:flex;flex-wrap:wrap;gap:0 2.5em}figure{margin:0}"
	"h3{font-size:1em;margin:.8em 0 .2em}figure p{margin:0}"
	".counter-bad{background:#ffe08a;font-weight:bold}"
	"tr.fold>td{border-top:none}summary{cursor:pointer}tr.fold table{margin:.2em 0 .4em}"
	"td.spark{padding:1px 4px}td.spark svg{margin:0}.tx{color:#64b5f6}.rx{color:#6a1b9a}"
	"table.findings td.where{white-space:nowrap}table.burnin td{vertical-align:middle}";

static void write_head(const struct chtml_page *pg, const char *name, enum chtml_level lv, FILE *f)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<title>lanebench check: ", f);
	chtml_esc(f, pg->t->note ? "INCOMPLETE" : lv == CHTML_OTHER ? "no verdict" : chtml_level_class[lv]);
	if (name) {
		fputs(" - ", f);
		chtml_esc(f, name);
	}
	fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n", style);
}

/* The head's lines a reader wants first: when, what, where. */
static void write_provenance(const struct chtml_page *pg, const char *name, FILE *f)
{
	static const char *const keys[] = { "time_utc", "command", "transport", "ranks",
					     "lanes", "version" };
	fputs("<table class=\"prov\">\n", f);
	if (name) {
		fputs("<tr><td>record</td><td>", f);
		chtml_esc(f, name);
		fputs("</td></tr>\n", f);
	}
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const char *v = lb_table_prov(pg->t, keys[i]);
		if (!v)
			continue;
		fprintf(f, "<tr><td>%s</td><td>", keys[i]);
		chtml_esc(f, v);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

static enum chtml_level overall(const struct chtml_page *pg, size_t count[5])
{
	enum chtml_level lv = CHTML_OTHER;
	for (size_t r = 0; r < pg->t->nrows; r++) {
		enum chtml_level l = chtml_row_level(pg, r);
		count[l]++;
		lv = worse(lv, l);
	}
	return lv == CHTML_ERROR ? CHTML_FAIL : lv; /* as lanebench check's last line says */
}

static void write_verdict(const struct chtml_page *pg, const char *name, enum chtml_level lv,
			  const size_t count[5], FILE *f)
{
	static const char *const words[] = { "PASS", "WARN", "FAIL", "FAIL", "NO VERDICT" };
	fputs("<h1>lanebench check</h1>\n", f);
	fprintf(f, "<div class=\"verdict %s\">%s</div>\n", pg->t->note ? "fail" : chtml_level_class[lv],
		pg->t->note ? "INCOMPLETE" : words[lv]);
	fprintf(f, "<p>%u ranks, %u lanes; rows: %zu FAIL, %zu ERROR, %zu WARN, %zu PASS.</p>\n",
		pg->nranks, pg->nlanes, count[CHTML_FAIL], count[CHTML_ERROR], count[CHTML_WARN], count[CHTML_PASS]);
	if (pg->t->note) {
		fputs("<p><b>The run stopped early: ", f);
		chtml_esc(f, pg->t->note);
		fputs("</b></p>\n", f);
	}
	write_provenance(pg, name, f);
}

/* ---- hosts ---------------------------------------------------------------- */

/* Whether rank's host was seen at a lower rank (then it was shown there). */
static int host_seen_before(const struct chtml_page *pg, uint32_t rank)
{
	for (uint32_t i = 0; i < rank; i++)
		if (strcmp(pg->host[i], pg->host[rank]) == 0)
			return 1;
	return 0;
}

/* "tx / rx" of the row, marked by its verdict */
static void rates_cell(const struct chtml_page *pg, size_t r, FILE *f)
{
	char tx[32], rx[32];
	chtml_rate(chtml_num(pg, r, "tx_bytes_per_second"), tx, sizeof(tx));
	chtml_rate(chtml_num(pg, r, "rx_bytes_per_second"), rx, sizeof(rx));
	fprintf(f, "<td class=\"num v-%s\">%s / %s</td>", chtml_level_class[chtml_row_level(pg, r)], tx, rx);
}

size_t chtml_port_row(const struct chtml_page *pg, uint32_t rank, uint32_t lane)
{
	return pg->rows_of[(size_t)rank * (pg->nlanes + 1) + lane];
}

/* A host's worst verdict over its ranks' port and aggregate rows (as the
 * printout's hosts line). */
static enum chtml_level host_level(const struct chtml_page *pg, const char *host)
{
	enum chtml_level lv = CHTML_OTHER;
	for (uint32_t rank = 0; rank < pg->nranks; rank++)
		for (uint32_t lane = 0; lane <= pg->nlanes; lane++)
			if (chtml_port_row(pg, rank, lane) != SIZE_MAX && strcmp(pg->host[rank], host) == 0)
				lv = worse(lv, chtml_row_level(pg, chtml_port_row(pg, rank, lane)));
	return lv;
}

/* One row per rank; a host with several ranks names itself once and
 * spans them. */
static void write_host_rank(const struct chtml_page *pg, uint32_t rank, FILE *f)
{
	static const char *const words[] = { "PASS", "WARN", "FAIL", "ERROR", "-" };
	fputs("<tr>", f);
	chtml_td(f, pg->host[rank]);
	fprintf(f, "<td class=\"num\">%u</td>", rank);
	enum chtml_level lv = host_level(pg, pg->host[rank]);
	chtml_verdict_cell(f, words[lv]);
	for (uint32_t lane = 0; lane <= pg->nlanes; lane++) { /* the aggregate last */
		size_t r = chtml_port_row(pg, rank, lane);
		if (r == SIZE_MAX)
			fputs("<td>-</td>", f);
		else
			rates_cell(pg, r, f);
	}
	fputs("</tr>\n", f);
}

/* Above this many hosts, those that passed fold away (<details>). */
#define HOSTS_SHOWN 16

static void hosts_header(const struct chtml_page *pg, FILE *f)
{
	fputs("<table>\n<tr><th>host</th><th>rank</th><th>verdict</th>", f);
	for (uint32_t lane = 0; lane < pg->nlanes; lane++) {
		fputs("<th>", f);
		chtml_lane_name(pg, lane, f);
		fputs(" tx / rx</th>", f);
	}
	fputs("<th>aggregate tx / rx</th></tr>\n", f);
}

/* Hosts in the order of their first rank, each host's ranks together;
 * failing only: those not PASS.  Returns how many hosts it wrote. */
static size_t host_rows(const struct chtml_page *pg, int failing_only, FILE *f)
{
	size_t n = 0;
	for (uint32_t rank = 0; rank < pg->nranks; rank++) {
		if (host_seen_before(pg, rank) && *pg->host[rank])
			continue;
		enum chtml_level lv = host_level(pg, pg->host[rank]);
		if (failing_only && (lv == CHTML_PASS || lv == CHTML_OTHER))
			continue;
		n++;
		for (uint32_t other = rank; other < pg->nranks; other++)
			if (other == rank ||
			    (*pg->host[rank] && strcmp(pg->host[other], pg->host[rank]) == 0))
				write_host_rank(pg, other, f);
	}
	return n;
}

static void write_hosts(const struct chtml_page *pg, FILE *f)
{
	fputs("<h2 id=\"hosts\">Hosts</h2>\n<p class=\"note\">tx / rx per port: the best over "
	      "its partners; aggregate: every lane at once. A host's verdict is the worst of "
	      "its ports and aggregates.</p>\n", f);
	hosts_header(pg, f);
	if (pg->nranks <= HOSTS_SHOWN) {
		host_rows(pg, 0, f);
		fputs("</table>\n", f);
		return;
	}
	if (!host_rows(pg, 1, f))
		fputs("<tr><td colspan=\"3\">every host passed</td></tr>\n", f);
	fputs("</table>\n<details><summary>every host</summary>\n", f);
	hosts_header(pg, f);
	host_rows(pg, 0, f);
	fputs("</table>\n</details>\n", f);
}

/* ---- the page ------------------------------------------------------------- */

static void free_page(struct chtml_page *pg)
{
	free(pg->host);
	free(pg->nic);
	free(pg->rows_of);
}

int lb_check_html_write(const struct lb_table *t, const char *name, FILE *f, char *err,
			size_t errlen)
{
	struct chtml_page pg = { .t = t };
	size_t count[5] = { 0 };
	if (lb_table_col(t, "phase") < 0 || lb_table_col(t, "verdict") < 0)
		return lb_errf(err, errlen, "%s: not a check record (no phase and verdict columns)",
			       name ? name : t->path);
	measure(&pg);
	if (name_things(&pg)) {
		free_page(&pg);
		return lb_errf(err, errlen, "out of memory");
	}
	enum chtml_level lv = overall(&pg, count);
	write_head(&pg, name, lv, f);
	write_verdict(&pg, name, lv, count, f);
	int rc = chtml_write_findings(&pg, f);
	if (rc == 0) {
		write_hosts(&pg, f);
		rc = chtml_write_burnin(&pg, f);
	}
	if (rc == 0)
		rc = chtml_write_matrices(&pg, f);
	if (rc == 0)
		rc = chtml_write_inventory(&pg, f);
	if (rc == 0) {
		chtml_write_counters(&pg, f);
		chtml_write_collectives(&pg, f);
		fputs("<p class=\"note\">Written by lanebench check from the record's rows; the "
		      "record's columns: results/README.md.</p>\n</body>\n</html>\n", f);
	}
	free_page(&pg);
	return rc ? lb_errf(err, errlen, "out of memory") : 0;
}

int lb_check_html_file(const struct lb_table *t, const char *name, const char *path,
		       char *err, size_t errlen)
{
	struct lb_outfile out;
	if (lb_outfile_open(&out, path, err, errlen))
		return -1;
	if (lb_check_html_write(t, name, out.f, err, errlen) ||
	    lb_outfile_check(&out, err, errlen)) {
		lb_outfile_abort(&out);
		return -1;
	}
	return lb_outfile_finish(&out, err, errlen);
}

/* ---- the page of a run's rows (check_page.h) ------------------------------ */

struct lb_check_page {
	struct lb_rowtable rows;
};

struct lb_check_page *lb_check_page_new(void)
{
	return calloc(1, sizeof(struct lb_check_page));
}

struct lb_sink lb_check_page_sink(struct lb_check_page *p)
{
	return lb_rowtable_sink(&p->rows);
}

int lb_check_page_write(const struct lb_check_page *p, const char *name, const char *path,
			char *err, size_t errlen)
{
	return lb_check_html_file(&p->rows.t, name, path, err, errlen);
}

void lb_check_page_free(struct lb_check_page *p)
{
	if (!p)
		return;
	lb_rowtable_free(&p->rows);
	free(p);
}
