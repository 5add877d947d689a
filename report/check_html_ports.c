/* The check page's tables after the matrices: every port's inventory with
 * the values off its lane's majority marked, the counters that grew, the
 * collectives. */
#include "check_html_private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "table_size.h"
#include "lib/units.h"

/* ---- inventory ------------------------------------------------------------ */

/* The facts a port shares with its lane's others, so a value off the
 * majority is news (a port's name and address differ by design). */
enum fact { STATE, SPEED, WIDTH, MTU, DRIVER, DRIVER_VERSION, FIRMWARE, PCIE, NUMA, NFACTS };

static const char *const fact_heading[NFACTS] = {
	"state", "speed", "width", "MTU", "driver", "driver version", "firmware", "PCIe now (max)",
	"NUMA",
};

#define FACT_LEN 128

/* "-" when the record has no value. */
static void number_text(const struct chtml_page *pg, size_t r, const char *col, char *buf,
			size_t len)
{
	double v = chtml_num(pg, r, col);
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%g", v);
}

/* "x16 16 GT/s", "x8 (x16) 8 (16) GT/s" below the device's maximum, "-" */
static void pcie_text(const struct chtml_page *pg, size_t r, char *buf, size_t len)
{
	double w = chtml_num(pg, r, "pcie_width_lanes"), mw = chtml_num(pg, r, "pcie_max_width_lanes"),
	       g = chtml_num(pg, r, "pcie_speed_gt_per_second"),
	       mg = chtml_num(pg, r, "pcie_max_speed_gt_per_second");
	char wt[48] = "x?", gt[48] = "?";
	if (isnan(w) && isnan(g)) {
		snprintf(buf, len, "-");
		return;
	}
	if (!isnan(w))
		snprintf(wt, sizeof(wt), mw > w ? "x%g (x%g)" : "x%g", w, mw);
	if (!isnan(g))
		snprintf(gt, sizeof(gt), mg > g ? "%g (%g)" : "%g", g, mg);
	snprintf(buf, len, "%s %s GT/s", wt, gt);
}

static void text_or_dash(const char *s, char *buf, size_t len)
{
	snprintf(buf, len, "%s", *s ? s : "-");
}

static void fact_text(const struct chtml_page *pg, size_t r, enum fact k, char *buf, size_t len)
{
	switch (k) {
	case STATE:
		snprintf(buf, len, "%s%s%s", *chtml_cell(pg, r, "state") ? chtml_cell(pg, r, "state") : "-",
			 *chtml_cell(pg, r, "rdma_state") ? "/" : "", chtml_cell(pg, r, "rdma_state"));
		break;
	case SPEED: lb_format_link_speed(chtml_num(pg, r, "speed_bits_per_second"), buf, len); break;
	case WIDTH: number_text(pg, r, "link_width_lanes", buf, len); break;
	case MTU: number_text(pg, r, "mtu_bytes", buf, len); break;
	case DRIVER: text_or_dash(chtml_cell(pg, r, "driver"), buf, len); break;
	case DRIVER_VERSION: text_or_dash(chtml_cell(pg, r, "driver_version"), buf, len); break;
	case FIRMWARE: text_or_dash(chtml_cell(pg, r, "firmware"), buf, len); break;
	case PCIE: pcie_text(pg, r, buf, len); break;
	case NUMA: number_text(pg, r, "numa_node", buf, len); break;
	case NFACTS: buf[0] = 0; break;
	}
}

static int lane_port(const struct chtml_page *pg, size_t r, uint32_t lane)
{
	uint32_t l;
	return chtml_is_phase(pg, r, "port") && chtml_index(pg, r, "lane", pg->nlanes, &l) &&
	       l == lane;
}

/* The value more than half of the lane's ports show, in maj (Boyer-Moore
 * vote, then a count); "" when none does. */
static void lane_majority(const struct chtml_page *pg, uint32_t lane, enum fact k, char *maj)
{
	char v[FACT_LEN];
	size_t votes = 0, n = 0, same = 0;
	maj[0] = 0;
	for (size_t r = 0; r < pg->t->nrows; r++) {
		if (!lane_port(pg, r, lane))
			continue;
		fact_text(pg, r, k, v, sizeof(v));
		if (!votes)
			memcpy(maj, v, FACT_LEN);
		votes += strcmp(v, maj) == 0 ? 1 : -1;
	}
	for (size_t r = 0; r < pg->t->nrows; r++) {
		if (!lane_port(pg, r, lane))
			continue;
		fact_text(pg, r, k, v, sizeof(v));
		n++;
		same += strcmp(v, maj) == 0;
	}
	if (2 * same <= n || strcmp(maj, "-") == 0)
		maj[0] = 0;
}

static void write_port(const struct chtml_page *pg, size_t r, const char *maj,
		       const int *shown, FILE *f)
{
	char v[FACT_LEN];
	fputs("<tr>", f);
	chtml_td(f, chtml_cell(pg, r, "rank"));
	chtml_td(f, chtml_cell(pg, r, "host"));
	chtml_td(f, chtml_cell(pg, r, "lane"));
	chtml_td(f, chtml_cell(pg, r, "nic"));
	chtml_td(f, chtml_cell(pg, r, "ifname"));
	for (int k = 0; k < NFACTS; k++) {
		const char *m = maj + (size_t)k * FACT_LEN;
		if (!shown[k])
			continue;
		fact_text(pg, r, (enum fact)k, v, sizeof(v));
		int odd = *m && strcmp(v, m) != 0;
		fputs(odd ? "<td class=\"odd\">" : "<td>", f);
		chtml_esc(f, v);
		if (odd) {
			fputs("<br><small>lane: ", f);
			chtml_esc(f, m);
			fputs("</small>", f);
		}
		fputs("</td>", f);
	}
	chtml_verdict_cell(f, chtml_cell(pg, r, "verdict"));
	fputs("</tr>\n", f);
}

/* Whether any port has the fact: a column of "-" only (no PCIe, speed or
 * firmware on a virtual NIC) says nothing, yet takes the table's width. */
static int fact_known(const struct chtml_page *pg, enum fact k)
{
	char v[FACT_LEN];
	for (size_t r = 0; r < pg->t->nrows; r++) {
		if (!chtml_is_phase(pg, r, "port"))
			continue;
		fact_text(pg, r, k, v, sizeof(v));
		if (strcmp(v, "-") != 0)
			return 1;
	}
	return 0;
}

static void inventory_heading(const int *shown, FILE *f)
{
	int unknown = 0;
	fputs("<h2 id=\"inventory\">Inventory</h2>\n<p class=\"note\">Every port as read before "
	      "any traffic. A value off its lane's majority is marked, the majority's value "
	      "under it; the verdict is the port's (every cause is in the failures above).", f);
	for (int k = 0; k < NFACTS; k++)
		if (!shown[k])
			fprintf(f, "%s%s", unknown++ ? ", " : " No port reported its ",
				k == PCIE ? "PCIe link" : fact_heading[k]);
	fputs(unknown ? ".</p>\n" : "</p>\n", f);
	fputs("<table>\n<tr><th>rank</th><th>host</th><th>lane</th><th>NIC</th><th>ifname</th>", f);
	for (int k = 0; k < NFACTS; k++)
		if (shown[k])
			fprintf(f, "<th>%s</th>", fact_heading[k]);
	fputs("<th>verdict</th></tr>\n", f);
}

int chtml_write_inventory(const struct chtml_page *pg, FILE *f)
{
	char *maj = malloc(((size_t)pg->nlanes + 1) * NFACTS * FACT_LEN);
	uint32_t lane;
	int shown[NFACTS];
	if (!maj)
		return -1;
	for (int k = 0; k < NFACTS; k++)
		shown[k] = fact_known(pg, (enum fact)k);
	for (lane = 0; lane < pg->nlanes; lane++)
		for (int k = 0; k < NFACTS; k++)
			lane_majority(pg, lane, (enum fact)k, maj + ((size_t)lane * NFACTS + k) * FACT_LEN);
	inventory_heading(shown, f);
	for (size_t r = 0; r < pg->t->nrows; r++)
		if (chtml_is_phase(pg, r, "port") && chtml_index(pg, r, "lane", pg->nlanes, &lane))
			write_port(pg, r, maj + (size_t)lane * NFACTS * FACT_LEN, shown, f);
	fputs("</table>\n", f);
	free(maj);
	return 0;
}

/* ---- counters ------------------------------------------------------------- */

/* The next growth other than 0 of a "name=growth;..." list: 1 with its
 * spans, 0 at the list's end. */
static int next_growth(const char **p, const char **name, size_t *nlen, const char **val,
		       size_t *vlen)
{
	while (**p) {
		const char *item = *p;
		size_t n = strcspn(item, ";");
		const char *eq = memchr(item, '=', n);
		*p += n + (item[n] == ';');
		if (!eq || eq + 1 == item + n || (eq + 2 == item + n && eq[1] == '0'))
			continue;
		*name = item, *nlen = (size_t)(eq - item);
		*val = eq + 1, *vlen = (size_t)(item + n - eq - 1);
		return 1;
	}
	return 0;
}

static int any_growth(const char *deltas)
{
	const char *name, *val;
	size_t nlen, vlen;
	return next_growth(&deltas, &name, &nlen, &val, &vlen);
}

/* Whether a counter's name says fault, not traffic (its growth marked). */
static int names_a_fault(const char *name, size_t n)
{
	static const char *const words[] = { "err", "drop", "discard", "retrans", "crc", "miss",
					     "over", "fifo", "lost", "loss", "collision", "abort",
					     "carrier", "symbol", "timeout" };
	char s[128];
	snprintf(s, sizeof(s), "%.*s", (int)(n < sizeof(s) ? n : sizeof(s) - 1), name);
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strstr(s, words[i]))
			return 1;
	return 0;
}

/* "stat:rx_packets +1209, stat:rx_dropped +12", the faults marked. */
static void write_growths(const char *deltas, FILE *f)
{
	const char *name, *val;
	size_t nlen, vlen;
	for (int first = 1; next_growth(&deltas, &name, &nlen, &val, &vlen); first = 0) {
		int fault = names_a_fault(name, nlen);
		fputs(first ? "" : ", ", f);
		fputs(fault ? "<span class=\"counter-bad\">" : "", f);
		chtml_esc_n(f, name, nlen);
		fputs(" +", f);
		chtml_esc_n(f, val, vlen);
		fputs(fault ? "</span>" : "", f);
	}
}

void chtml_write_counters(const struct chtml_page *pg, FILE *f)
{
	size_t n = 0;
	fputs("<h2 id=\"counters\">Counters that grew</h2>\n", f);
	for (size_t r = 0; r < pg->t->nrows; r++) {
		const char *d = chtml_cell(pg, r, "counter_deltas");
		if (!chtml_is_phase(pg, r, "port") || !any_growth(d))
			continue;
		if (!n++)
			fputs("<p class=\"note\">From before any traffic to the end of phase 2: "
			      "traffic counters grow on every port; error, drop and retransmission "
			      "counters (marked) should not.</p>\n<table>\n<tr><th>rank</th><th>host</th><th>lane</th>"
			      "<th>NIC</th><th>verdict</th><th>growth</th></tr>\n", f);
		fputs("<tr>", f);
		chtml_td(f, chtml_cell(pg, r, "rank"));
		chtml_td(f, chtml_cell(pg, r, "host"));
		chtml_td(f, chtml_cell(pg, r, "lane"));
		chtml_td(f, chtml_cell(pg, r, "nic"));
		chtml_verdict_cell(f, chtml_cell(pg, r, "verdict"));
		fputs("<td>", f);
		write_growths(d, f);
		fputs("</td></tr>\n", f);
	}
	fputs(n ? "</table>\n" : "<p>No port's counters grew (or the record has none).</p>\n", f);
}

/* ---- collectives ---------------------------------------------------------- */

static void seconds_cell(const struct chtml_page *pg, size_t r, const char *col, FILE *f)
{
	char t[32];
	lb_format_seconds(chtml_num(pg, r, col), t, sizeof(t));
	fprintf(f, "<td class=\"num\">%s</td>", t);
}

static void write_collective(const struct chtml_page *pg, size_t r, FILE *f)
{
	char size[32] = "-", ratio[32] = "-";
	double bytes = chtml_num(pg, r, "message_bytes"), q = chtml_num(pg, r, "ratio");
	if (bytes >= 0 && bytes < 1e18)
		lb_table_format_size((uint64_t)bytes, size, sizeof(size)); /* as check prints it */
	if (!isnan(q))
		snprintf(ratio, sizeof(ratio), "%.2f", q);
	fputs("<tr>", f);
	chtml_td(f, chtml_cell(pg, r, "collective"));
	chtml_td(f, chtml_cell(pg, r, "algorithm"));
	fprintf(f, "<td class=\"num\">%s</td>", size);
	seconds_cell(pg, r, "time_median_seconds", f);
	seconds_cell(pg, r, "sim_seconds", f);
	fprintf(f, "<td class=\"num\">%s</td>", ratio);
	seconds_cell(pg, r, "bound_seconds", f);
	chtml_verdict_cell(f, chtml_cell(pg, r, "verdict"));
	chtml_td(f, chtml_cell(pg, r, "reason"));
	fputs("</tr>\n", f);
}

void chtml_write_collectives(const struct chtml_page *pg, FILE *f)
{
	size_t n = 0;
	fputs("<h2 id=\"collectives\">Collectives</h2>\n", f);
	for (size_t r = 0; r < pg->t->nrows; r++) {
		if (!chtml_is_phase(pg, r, "bcast"))
			continue;
		if (!n++)
			fputs("<table>\n<tr><th>collective</th><th>algorithm</th><th>size</th>"
			      "<th>median</th><th>simulated</th><th>ratio</th><th>receive bound</th>"
			      "<th>verdict</th><th>cause</th></tr>\n", f);
		write_collective(pg, r, f);
	}
	fputs(n ? "</table>\n" : "<p>None run.</p>\n", f);
}
