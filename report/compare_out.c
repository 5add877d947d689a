/* Writing a comparison (see compare.h): the text `lanebench compare`
 * prints, its JSON document and the CSV of its rows (scripts/plot
 * --compare reads it).  Writers only: the numbers are compare.c's. */
#include "compare.h"
#include "lib/wrap.h"

#include <math.h>
#include <string.h>

#include "json.h"
#include "lib/units.h"

void lb_cmp_file_line(FILE *out, const char *name, const char *path, const struct lb_table *t)
{
	const char *version = lb_table_prov(t, "version"), *when = lb_table_prov(t, "time_utc");
	fprintf(out, "%s: %s (%zu rows", name, path, t->nrows);
	if (version)
		fprintf(out, ", lanebench %s", version);
	if (when)
		fprintf(out, ", %s", when);
	if (t->note)
		fprintf(out, ")  (%s", t->note);
	fprintf(out, ")\n");
}

static void print_setup(FILE *out, const struct lb_cmp *c)
{
	fprintf(out, "matched on: ");
	for (size_t i = 0; i < c->nkey; i++)
		fprintf(out, "%s%s", i ? ", " : "", c->key[i]);
	fprintf(out, "\n");
	if (c->slice_note)
		fprintf(out, "note: %s\n", c->slice_note);
	if (c->ndiffer == 0)
		fprintf(out, "set-up: no difference found in the columns%s\n",
			c->nitems ? " or provenance" : "");
	else
		fprintf(out, "set-up differences (A -> B):\n");
	for (size_t i = 0; i < c->ndiffer; i++)
		fprintf(out, "  %-30s %s  ->  %s\n", c->items[i].name, c->items[i].a,
			c->items[i].b);
	size_t shown = 0;
	for (size_t i = c->ndiffer; i < c->nitems; i++)
		if (!strchr(c->items[i].name, '.'))
			fprintf(out, "%s%s %s", shown++ ? ", " : "same in both: ", c->items[i].name,
				c->items[i].a);
	if (shown)
		fprintf(out, "%s\n",
			c->nitems - c->ndiffer > shown ? " (and the same options)" : "");
}

const char *lb_cmp_verdict_name(enum lb_cmp_verdict v)
{
	return v == LB_CMP_FASTER ? "faster" : v == LB_CMP_SLOWER ? "slower" :
	       v == LB_CMP_UNJUDGED ? "cannot judge" : "within noise";
}

/* A time for the table: "-" where the file had no usable value. */
static void format_one(double t, char *buf, size_t len)
{
	if (isnan(t))
		snprintf(buf, len, "-");
	else
		lb_format_seconds(t, buf, len);
}

/* "93.2 ms [90.1 ms..97 ms]" */
void lb_cmp_format_time(struct lb_cmp_time t, char *buf, size_t len)
{
	char m[16], lo[16], hi[16];
	format_one(t.mid, m, sizeof(m));
	format_one(t.low, lo, sizeof(lo));
	format_one(t.high, hi, sizeof(hi));
	if (strcmp(lo, m) == 0 && strcmp(hi, m) == 0)
		snprintf(buf, len, "%s", m);
	else
		snprintf(buf, len, "%s [%s..%s]", m, lo, hi);
}

/* "64K", or "64K -> 256K" where B's slice differs from A's. */
static void format_slices(const struct lb_cmp_row *r, char *buf, size_t len)
{
	char a[24], b[24];
	lb_format_size(r->slice[0], a, sizeof(a));
	lb_format_size(r->slice[1], b, sizeof(b));
	if (r->slice[0] == r->slice[1])
		snprintf(buf, len, "%s", a);
	else
		snprintf(buf, len, "%s -> %s", a, b);
}

static void print_rows(FILE *out, const struct lb_cmp *c)
{
	int w = 8;
	for (size_t i = 0; i < c->nrows; i++)
		if ((int)strlen(c->rows[i].label) > w)
			w = (int)strlen(c->rows[i].label);
	char spread[48] = "";
	if (c->low_col)
		snprintf(spread, sizeof(spread), "[%s]", c->spread);
	fprintf(out, "\n%-*s  %-32s %-32s %8s %9s  %s", w, "", "A median", "B median", "B/A",
		"speed-up", "verdict");
	fprintf(out, c->slice_differs ? "       slice A -> B\n" : "\n");
	fprintf(out, "%-*s  %-32s %-32s %8s %9s\n", w, "", spread, spread, "time", "A/B");
	for (size_t i = 0; i < c->nrows; i++) {
		const struct lb_cmp_row *r = &c->rows[i];
		char a[64], b[64];
		lb_cmp_format_time(r->a, a, sizeof(a));
		lb_cmp_format_time(r->b, b, sizeof(b));
		fprintf(out, "%-*s  %-32s %-32s %8.3f %8.3fx  ", w, r->label, a, b, r->ratio,
			1 / r->ratio);
		if (c->slice_differs) {
			char slices[64];
			format_slices(r, slices, sizeof(slices));
			fprintf(out, "%-12s  %s\n", lb_cmp_verdict_name(r->verdict), slices);
		} else {
			fprintf(out, "%s\n", lb_cmp_verdict_name(r->verdict));
		}
	}
	for (size_t i = 0; i < c->nrows; i++)
		if (c->rows[i].why)
			fprintf(out, "cannot judge %s: %s\n", c->rows[i].label, c->rows[i].why);
}

static void print_only(FILE *out, const struct lb_cmp *c, const struct lb_table t[2])
{
	for (int f = 0; f < 2; f++) {
		if (!c->nonly[f])
			continue;
		fprintf(out, "only in %c, not compared (%zu of %zu rows):", 'A' + f, c->nonly[f],
			t[f].nrows);
		for (size_t i = 0; i < c->nonly[f]; i++)
			fprintf(out, "%s %s", i ? "," : "", c->only[f][i]);
		fprintf(out, "\n");
	}
}

static void print_summary(FILE *out, const struct lb_cmp *c)
{
	fprintf(out, "\n%zu rows in both; per %s, the geometric mean over sizes of B/A time "
		"(below 1: B faster):\n", c->nrows, c->key[0]);
	for (size_t g = 0; g < c->nsummary; g++) {
		const struct lb_cmp_summary *s = &c->summary[g];
		fprintf(out, "summary %s: B/A %.3f (speed-up %.2fx) over %zu sizes: %zu faster, "
			"%zu slower, %zu within noise", s->group, s->geomean, 1 / s->geomean, s->rows,
			s->faster, s->slower, s->noise);
		if (s->unjudged)
			fprintf(out, ", %zu cannot be judged", s->unjudged);
		fprintf(out, "\n");
	}
}

void lb_cmp_print_head(FILE *out, const struct lb_cmp *c, const struct lb_table t[2],
		       const char *const names[2])
{
	lb_cmp_file_line(out, "A", names[0], &t[0]);
	lb_cmp_file_line(out, "B", names[1], &t[1]);
	for (int f = 0; f < 2; f++)
		if (!t[f].nprov && t[1 - f].nprov)
			fprintf(out, "note: %c has no provenance head (an older file): its set-up is "
				"compared on its columns only\n", 'A' + f);
	print_setup(out, c);
}

/* Under the table: what its columns mean, as every table says. */
static const char cmp_legend[] =
	"columns:\n"
	"  A, B median   each file's median time of the row, [min..p99] its "
	"iterations' spread (p2p: latency; sim: the simulated time, no spread)\n"
	"  B/A time      B's median over A's: below 1, B is faster\n"
	"  speed-up A/B  its inverse: 2.00x, B takes half the time\n"
	"  verdict       faster or slower when the spreads do not overlap, else within "
	"noise; cannot be judged: a time empty, not finite or out of order\n"
	"  slice A -> B  the slice each run chose, where --slice auto chose differently\n";

void lb_cmp_print_rows(FILE *out, const struct lb_cmp *c, const struct lb_table t[2])
{
	print_rows(out, c);
	print_only(out, c, t);
	print_summary(out, c);
	if (c->nrows) {
		fputc('\n', out);
		lb_wrap_text(cmp_legend, lb_wrap_width(out), out);
	}
}

void lb_cmp_json_number(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.9g", v);
	else
		fputs("null", f);
}

void lb_cmp_json_file(FILE *f, const char *path, const struct lb_table *t)
{
	fputs("{\"file\": ", f);
	lb_json_put_string(f, path);
	fprintf(f, ", \"rows\": %zu, \"incomplete\": ", t->nrows);
	if (t->note)
		lb_json_put_string(f, t->note);
	else
		fputs("null", f);
	fputs(", \"provenance\": {", f);
	for (size_t i = 0; i < t->nprov; i++) {
		fputs(i ? ", " : "", f);
		lb_json_put_string(f, t->prov[i].key);
		fputs(": ", f);
		lb_json_put_string(f, t->prov[i].value);
	}
	fputs("}}", f);
}

static void json_time(FILE *f, const char *name, struct lb_cmp_time t)
{
	fprintf(f, ", \"%s\": {\"median_seconds\": ", name);
	lb_cmp_json_number(f, t.mid);
	fputs(", \"low_seconds\": ", f);
	lb_cmp_json_number(f, t.low);
	fputs(", \"high_seconds\": ", f);
	lb_cmp_json_number(f, t.high);
	fputs("}", f);
}

static void json_rows(FILE *f, const struct lb_cmp *c)
{
	fputs(",\n \"rows\": [", f);
	for (size_t i = 0; i < c->nrows; i++) {
		const struct lb_cmp_row *r = &c->rows[i];
		fputs(i ? ",\n  {\"label\": " : "\n  {\"label\": ", f);
		lb_json_put_string(f, r->label);
		fputs(", \"group\": ", f);
		lb_json_put_string(f, c->summary[r->group].group);
		fprintf(f, ", \"message_bytes\": %llu", r->bytes);
		if (r->slice[0])
			fprintf(f, ", \"slice_bytes\": {\"a\": %llu, \"b\": %llu}",
				(unsigned long long)r->slice[0], (unsigned long long)r->slice[1]);
		json_time(f, "a", r->a);
		json_time(f, "b", r->b);
		fputs(", \"b_over_a\": ", f);
		lb_cmp_json_number(f, r->ratio);
		fputs(", \"speedup\": ", f);
		lb_cmp_json_number(f, 1 / r->ratio);
		fprintf(f, ", \"verdict\": \"%s\", \"why\": ", lb_cmp_verdict_name(r->verdict));
		lb_json_put_string(f, r->why);
		fputs("}", f);
	}
	fputs("]", f);
}

static void json_lists(FILE *f, const struct lb_cmp *c)
{
	fputs(",\n \"setup_differences\": [", f);
	for (size_t i = 0; i < c->ndiffer; i++) {
		fputs(i ? ", {\"name\": " : "{\"name\": ", f);
		lb_json_put_string(f, c->items[i].name);
		fputs(", \"a\": ", f);
		lb_json_put_string(f, c->items[i].a);
		fputs(", \"b\": ", f);
		lb_json_put_string(f, c->items[i].b);
		fputs("}", f);
	}
	fputs("],\n \"matched_on\": [", f);
	for (size_t i = 0; i < c->nkey; i++) {
		fputs(i ? ", " : "", f);
		lb_json_put_string(f, c->key[i]);
	}
	for (int s = 0; s < 2; s++) {
		fprintf(f, "],\n \"only_in_%c\": [", 'a' + s);
		for (size_t i = 0; i < c->nonly[s]; i++) {
			fputs(i ? ", " : "", f);
			lb_json_put_string(f, c->only[s][i]);
		}
	}
	fputs("]", f);
}

static void json_summary(FILE *f, const struct lb_cmp *c, double pct, size_t failed)
{
	fputs(",\n \"summary\": [", f);
	for (size_t g = 0; g < c->nsummary; g++) {
		const struct lb_cmp_summary *s = &c->summary[g];
		fputs(g ? ",\n  {\"group\": " : "\n  {\"group\": ", f);
		lb_json_put_string(f, s->group);
		fputs(", \"geomean_b_over_a\": ", f);
		lb_cmp_json_number(f, s->geomean);
		fprintf(f, ", \"sizes\": %zu, \"faster\": %zu, \"slower\": %zu, \"within_noise\": %zu, "
			"\"cannot_judge\": %zu}", s->rows, s->faster, s->slower, s->noise, s->unjudged);
	}
	fputs("],\n \"fail_if_slower_percent\": ", f);
	lb_cmp_json_number(f, pct >= 0 ? pct : NAN);
	fprintf(f, ", \"failed_rows\": %zu}\n", failed);
}

void lb_cmp_write_json(FILE *f, const struct lb_cmp *c, const struct lb_table t[2],
		       const char *const names[2], double fail_pct, size_t failed)
{
	fprintf(f, "{\"kind\": \"%s\", \"metric\": ", lb_cmp_kind_name(c->kind));
	lb_json_put_string(f, c->time_col);
	fputs(",\n \"a\": ", f);
	lb_cmp_json_file(f, names[0], &t[0]);
	fputs(",\n \"b\": ", f);
	lb_cmp_json_file(f, names[1], &t[1]);
	json_lists(f, c);
	json_rows(f, c);
	json_summary(f, c, fail_pct, failed);
}

/* A CSV field, quoted when it holds a comma, quote or '#' (first). */
void lb_cmp_csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n#")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++)
		fprintf(f, *s == '"' ? "\"\"" : "%c", *s);
	fputc('"', f);
}

/* Text inside a '#' line of the head: a line break (a cell or a file name
 * may hold one) would end the comment and start a data row, so control
 * characters become '?'. */
void lb_cmp_comment_text(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, f);
}

static void csv_head(FILE *f, const struct lb_cmp *c, const char *const names[2])
{
	fputs("# a: ", f);
	lb_cmp_comment_text(f, names[0]);
	fputs("\n# b: ", f);
	lb_cmp_comment_text(f, names[1]);
	fprintf(f, "\n# kind: %s\n# metric: %s\n", lb_cmp_kind_name(c->kind), c->time_col);
	fprintf(f, "# spread: %s (%s..%s)\n# setup:", c->spread, c->low_col ? c->low_col : "-",
		c->high_col ? c->high_col : "-");
	for (size_t i = 0; i < c->ndiffer; i++) {
		fprintf(f, "%s %s ", i ? ";" : "", c->items[i].name);
		lb_cmp_comment_text(f, c->items[i].a);
		fputs(" -> ", f);
		lb_cmp_comment_text(f, c->items[i].b);
	}
	fputs(c->ndiffer ? "\n" : " no difference found\n", f);
	fputs("group,label,message_bytes,a_median_seconds,a_low_seconds,a_high_seconds,"
	      "b_median_seconds,b_low_seconds,b_high_seconds,b_over_a_ratio,"
	      "b_over_a_low_ratio,b_over_a_high_ratio,verdict,a_slice_bytes,b_slice_bytes\n", f);
}

/* ",0.5"; an empty field where there is no number (as the CSV sink). */
void lb_cmp_csv_number(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, ",%.9g", v);
	else
		fputc(',', f);
}

void lb_cmp_write_csv(FILE *f, const struct lb_cmp *c, const char *const names[2])
{
	csv_head(f, c, names);
	for (size_t i = 0; i < c->nrows; i++) {
		const struct lb_cmp_row *r = &c->rows[i];
		lb_cmp_csv_field(f, c->summary[r->group].group);
		fputc(',', f);
		lb_cmp_csv_field(f, r->label);
		fprintf(f, ",%llu", r->bytes);
		const double v[] = { r->a.mid, r->a.low, r->a.high, r->b.mid, r->b.low, r->b.high,
				     r->ratio, r->b.low / r->a.high, r->b.high / r->a.low };
		for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++)
			lb_cmp_csv_number(f, v[k]);
		fprintf(f, ",%s", lb_cmp_verdict_name(r->verdict));
		if (r->slice[0])
			fprintf(f, ",%llu,%llu\n", (unsigned long long)r->slice[0],
				(unsigned long long)r->slice[1]);
		else
			fputs(",,\n", f);
	}
}
