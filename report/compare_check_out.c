/* Writing a comparison of two check records (compare_check.h): the text
 * in 80 columns, its JSON document, its CSV.  Writers only: the figures
 * are compare_check.c's. */
#include "compare_check.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "compare.h"
#include "json.h"
#include "lib/units.h"

/* "0.50", or "-" */
static void ratio_text(double v, char *buf, size_t len)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.2f", v);
}

/* Mbit/s of the slower way, min(tx, rx); "-" */
static void rate_text(double tx, double rx, char *buf, size_t len)
{
	double v = fmin(tx, rx);
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (fabs(v) < 1e12)
		snprintf(buf, len, "%.1f", v * 8 / 1e6);
	else
		snprintf(buf, len, "%.3g", v * 8 / 1e6);
}

/* "PASS", "PASS -> FAIL", "PASS -> (none)" (a cell as long as the file
 * has it) */
static void put_verdict(FILE *out, const struct lb_chk_row *r)
{
	const char *a = r->row[0] == SIZE_MAX ? "(none)" : r->verdict[0];
	const char *b = r->row[1] == SIZE_MAX ? "(none)" : r->verdict[1];
	if (strcmp(a, b) == 0)
		fputs(a, out);
	else
		fprintf(out, "%s -> %s", a, b);
}

static void heading(FILE *out, enum lb_chk_phase p)
{
	if (p == LB_CHK_COLLECTIVE)
		fprintf(out, "\n%-30s %11s %11s %6s  %s\n", "collective", "time A", "time B", "B/A",
			"verdict");
	else
		fprintf(out, "\n%-22s %18s %6s %6s %7s  %s\n", lb_chk_phase_name(p), "Mbit/s A -> B",
			"tx B/A", "rx B/A", "lat B/A", "verdict");
}

static void print_row(FILE *out, const struct lb_chk_row *r)
{
	char ra[24], rb[24], both[56], tx[16], rx[16], lat[16];
	if (r->phase == LB_CHK_COLLECTIVE) {
		lb_format_seconds(r->time[0], ra, sizeof(ra));
		lb_format_seconds(r->time[1], rb, sizeof(rb));
		ratio_text(r->time_ratio, tx, sizeof(tx));
		fprintf(out, "%-30s %11s %11s %6s  ", r->label, ra, rb, tx);
	} else {
		rate_text(r->tx[0], r->rx[0], ra, sizeof(ra));
		rate_text(r->tx[1], r->rx[1], rb, sizeof(rb));
		snprintf(both, sizeof(both), "%s -> %s", ra, rb);
		ratio_text(r->tx_ratio, tx, sizeof(tx));
		ratio_text(r->rx_ratio, rx, sizeof(rx));
		ratio_text(r->lat_ratio, lat, sizeof(lat));
		fprintf(out, "%-22s %18s %6s %6s %7s  ", r->label, both, tx, rx, lat);
	}
	put_verdict(out, r);
	fputc('\n', out);
}

/* One list: a title with its count, then each row of that change. */
static void print_list(FILE *out, const struct lb_chk *c, const struct lb_table t[2],
		       enum lb_chk_change which, const char *title)
{
	if (!c->changes[which])
		return;
	fprintf(out, "\n%s: %zu\n", title, c->changes[which]);
	for (size_t i = 0; i < c->nrows; i++) {
		const struct lb_chk_row *r = &c->rows[i];
		if (r->change != which)
			continue;
		int s = r->row[1] != SIZE_MAX ? 1 : 0;
		int col = lb_table_col(&t[s], "reason");
		const char *why = col >= 0 && which != LB_CHK_FIXED ? lb_table_cell(&t[s], r->row[s], col) : "";
		fprintf(out, "  %s %s: ", lb_chk_row_kind(r->phase), r->label);
		put_verdict(out, r);
		fprintf(out, "%s%s\n", *why ? ": " : "", why);
	}
}

static void print_counts(FILE *out, const struct lb_chk *c)
{
	fprintf(out, "\ncompared: %zu ports, %zu aggregates, %zu collectives\n"
		"%zu new failure%s, %zu fixed, %zu other verdict change%s, %zu only in A, "
		"%zu only in B\n",
		c->compared[LB_CHK_PORT], c->compared[LB_CHK_AGGREGATE],
		c->compared[LB_CHK_COLLECTIVE], c->changes[LB_CHK_NEW_FAILURE],
		c->changes[LB_CHK_NEW_FAILURE] == 1 ? "" : "s", c->changes[LB_CHK_FIXED],
		c->changes[LB_CHK_CHANGED], c->changes[LB_CHK_CHANGED] == 1 ? "" : "s",
		c->changes[LB_CHK_ONLY_A], c->changes[LB_CHK_ONLY_B]);
	char g[3][16];
	for (int p = 0; p < LB_CHK_NPHASES; p++)
		ratio_text(c->geomean[p], g[p], sizeof(g[p]));
	fprintf(out, "geometric mean B/A: ports' rate %s, aggregates' %s, collectives' time %s\n",
		g[LB_CHK_PORT], g[LB_CHK_AGGREGATE], g[LB_CHK_COLLECTIVE]);
}

void lb_chk_print(FILE *out, const struct lb_chk *c, const struct lb_table t[2],
		  const char *const names[2])
{
	lb_cmp_file_line(out, "A", names[0], &t[0]);
	lb_cmp_file_line(out, "B", names[1], &t[1]);
	fprintf(out, "check records: ports matched on %s, aggregates on %s\n",
		c->by_host ? "host and lane" : "rank and lane (a record names no host, or a host twice)",
		c->by_host ? "host" : "rank");
	for (int f = 0; f < 2; f++)
		if (c->other[f])
			fprintf(out, "note: %s has %zu rows of phases not compared\n", f ? "B" : "A",
				c->other[f]);
	for (size_t i = 0; i < c->nrows; i++) {
		if (i == 0 || c->rows[i].phase != c->rows[i - 1].phase)
			heading(out, c->rows[i].phase);
		print_row(out, &c->rows[i]);
	}
	print_list(out, c, t, LB_CHK_NEW_FAILURE, "NEW FAILURES (failing in B, not in A)");
	print_list(out, c, t, LB_CHK_FIXED, "FIXED (failing in A, passing in B)");
	print_list(out, c, t, LB_CHK_CHANGED, "other verdict changes");
	print_list(out, c, t, LB_CHK_ONLY_A, "ONLY IN A (missing from B)");
	print_list(out, c, t, LB_CHK_ONLY_B, "only in B");
	print_counts(out, c);
}

/* "a": {...} of one side, or null where the record has no such row. */
static void json_side(FILE *f, const struct lb_chk_row *r, int s)
{
	fprintf(f, ", \"%c\": ", 'a' + s);
	if (r->row[s] == SIZE_MAX) {
		fputs("null", f);
		return;
	}
	fputs("{\"tx_bytes_per_second\": ", f);
	lb_cmp_json_number(f, r->tx[s]);
	fputs(", \"rx_bytes_per_second\": ", f);
	lb_cmp_json_number(f, r->rx[s]);
	fputs(", \"latency_seconds\": ", f);
	lb_cmp_json_number(f, r->lat[s]);
	fputs(", \"time_median_seconds\": ", f);
	lb_cmp_json_number(f, r->time[s]);
	fputs(", \"verdict\": ", f);
	lb_json_put_string(f, r->verdict[s]);
	fputs("}", f);
}

static void json_rows(FILE *f, const struct lb_chk *c)
{
	fputs(",\n \"rows\": [", f);
	for (size_t i = 0; i < c->nrows; i++) {
		const struct lb_chk_row *r = &c->rows[i];
		fprintf(f, "%s\n  {\"phase\": \"%s\", \"label\": ", i ? "," : "",
			lb_chk_phase_name(r->phase));
		lb_json_put_string(f, r->label);
		json_side(f, r, 0);
		json_side(f, r, 1);
		const char *names[] = { "tx", "rx", "rate", "latency", "time" };
		const double v[] = { r->tx_ratio, r->rx_ratio, r->rate_ratio, r->lat_ratio,
				     r->time_ratio };
		for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++) {
			fprintf(f, ", \"%s_b_over_a\": ", names[k]);
			lb_cmp_json_number(f, v[k]);
		}
		fprintf(f, ", \"change\": \"%s\"}", lb_chk_change_name(r->change));
	}
	fputs("]", f);
}

void lb_chk_write_json(FILE *f, const struct lb_chk *c, const struct lb_table t[2],
		       const char *const names[2], double fail_pct, size_t failed)
{
	fprintf(f, "{\"kind\": \"check\", \"matched_on\": \"%s\"", c->by_host ? "host" : "rank");
	fputs(",\n \"a\": ", f);
	lb_cmp_json_file(f, names[0], &t[0]);
	fputs(",\n \"b\": ", f);
	lb_cmp_json_file(f, names[1], &t[1]);
	json_rows(f, c);
	fputs(",\n \"counts\": {", f);
	for (int k = 0; k < LB_CHK_NCHANGES; k++)
		fprintf(f, "%s\"%s\": %zu", k ? ", " : "", lb_chk_change_name((enum lb_chk_change)k),
			c->changes[k]);
	fputs("},\n \"geomean_b_over_a\": {", f);
	for (int p = 0; p < LB_CHK_NPHASES; p++) {
		fprintf(f, "%s\"%s\": ", p ? ", " : "", lb_chk_phase_name((enum lb_chk_phase)p));
		lb_cmp_json_number(f, c->geomean[p]);
	}
	fprintf(f, "},\n \"other_rows\": [%zu, %zu],\n \"fail_if_slower_percent\": ", c->other[0],
		c->other[1]);
	lb_cmp_json_number(f, fail_pct >= 0 ? fail_pct : NAN);
	fprintf(f, ", \"failed_rows\": %zu}\n", failed);
}

void lb_chk_write_csv(FILE *f, const struct lb_chk *c, const char *const names[2])
{
	fputs("# a: ", f);
	lb_cmp_comment_text(f, names[0]);
	fputs("\n# b: ", f);
	lb_cmp_comment_text(f, names[1]);
	fprintf(f, "\n# kind: check\n# matched_on: %s\n", c->by_host ? "host" : "rank");
	fputs("phase,label,change,a_verdict,b_verdict,a_tx_bytes_per_second,"
	      "b_tx_bytes_per_second,tx_b_over_a_ratio,a_rx_bytes_per_second,"
	      "b_rx_bytes_per_second,rx_b_over_a_ratio,a_latency_seconds,b_latency_seconds,"
	      "latency_b_over_a_ratio,a_time_median_seconds,b_time_median_seconds,"
	      "time_b_over_a_ratio\n", f);
	for (size_t i = 0; i < c->nrows; i++) {
		const struct lb_chk_row *r = &c->rows[i];
		fprintf(f, "%s,", lb_chk_phase_name(r->phase));
		lb_cmp_csv_field(f, r->label);
		fprintf(f, ",%s,", lb_chk_change_name(r->change));
		lb_cmp_csv_field(f, r->verdict[0]);
		fputc(',', f);
		lb_cmp_csv_field(f, r->verdict[1]);
		const double v[] = { r->tx[0], r->tx[1], r->tx_ratio, r->rx[0], r->rx[1], r->rx_ratio,
				     r->lat[0], r->lat[1], r->lat_ratio, r->time[0], r->time[1],
				     r->time_ratio };
		for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++)
			lb_cmp_csv_number(f, v[k]);
		fputc('\n', f);
	}
}
