/* lanebench compare A.csv B.csv: one NIC configuration against another
 * (one rail vs two, NIC A vs B, firmware X vs Y).  Rows are matched and
 * judged in report/compare.c; this file prints the result, writes it as
 * JSON and as a CSV for scripts/plot --compare, and applies the
 * --fail-if-slower gate. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "lib/error.h"
#include "lib/units.h"
#include "report/compare.h"
#include "report/csvread.h"
#include "report/json.h"

struct compare_opts {
	const char *files[2];
	const char *json, *output;
	double fail_pct; /* < 0: no gate */
};

#define OFF(f) offsetof(struct compare_opts, f)

/* "5%" or "5": a percentage in [0, 1000]. */
static int set_percent(void *target, const char *arg, char *err, size_t len)
{
	char *end;
	double v = strtod(arg, &end);
	if (end == arg || (*end && strcmp(end, "%") != 0) || !(v >= 0 && v <= 1000))
		return lb_errf(err, len, "'%s' is not a percentage from 0 to 1000 (e.g. 5%%)", arg);
	*(double *)target = v;
	return 0;
}

static const struct lb_opt compare_opts_table[] = {
	{ LB_OPT("fail-if-slower", 0, "PCT", "exit 1 if B is PCT (5%) slower or unjudged",
		 LB_OPT_HANDLER, OFF(fail_pct)), .handler = set_percent },
	{ LB_OPT("json", 0, "FILE", "also write the comparison as one JSON document", LB_OPT_STRING,
		 OFF(json)) },
	{ LB_OPT("output", 'o', "FILE", "also write the rows as CSV (for scripts/plot)",
		 LB_OPT_STRING, OFF(output)) },
};

static void file_line(const char *name, const char *path, const struct lb_table *t)
{
	const char *version = lb_table_prov(t, "version"), *when = lb_table_prov(t, "time_utc");
	printf("%s: %s (%zu rows", name, path, t->nrows);
	if (version)
		printf(", lanebench %s", version);
	if (when)
		printf(", %s", when);
	if (t->note)
		printf(")  (%s", t->note);
	printf(")\n");
}

static void print_setup(const struct lb_cmp *c)
{
	printf("matched on: ");
	for (size_t i = 0; i < c->nkey; i++)
		printf("%s%s", i ? ", " : "", c->key[i]);
	printf("\n");
	if (c->slice_note)
		printf("note: %s\n", c->slice_note);
	if (c->ndiffer == 0)
		printf("set-up: no difference found in the columns%s\n", c->nitems ? " or provenance" : "");
	else
		printf("set-up differences (A -> B):\n");
	for (size_t i = 0; i < c->ndiffer; i++)
		printf("  %-30s %s  ->  %s\n", c->items[i].name, c->items[i].a, c->items[i].b);
	size_t shown = 0;
	for (size_t i = c->ndiffer; i < c->nitems; i++)
		if (!strchr(c->items[i].name, '.'))
			printf("%s%s %s", shown++ ? ", " : "same in both: ", c->items[i].name, c->items[i].a);
	if (shown)
		printf("%s\n", c->nitems - c->ndiffer > shown ? " (and the same options)" : "");
}

static const char *verdict_name(enum lb_cmp_verdict v)
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
static void format_time(struct lb_cmp_time t, char *buf, size_t len)
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

static void print_rows(const struct lb_cmp *c)
{
	int w = 8;
	for (size_t i = 0; i < c->nrows; i++)
		if ((int)strlen(c->rows[i].label) > w)
			w = (int)strlen(c->rows[i].label);
	char spread[48] = "";
	if (c->low_col)
		snprintf(spread, sizeof(spread), "[%s]", c->spread);
	printf("\n%-*s  %-32s %-32s %8s %9s  %s\n", w, "", "A median", "B median", "B/A", "speed-up",
	       "verdict");
	printf("%-*s  %-32s %-32s %8s %9s\n", w, "", spread, spread, "time", "A/B");
	for (size_t i = 0; i < c->nrows; i++) {
		const struct lb_cmp_row *r = &c->rows[i];
		char a[64], b[64];
		format_time(r->a, a, sizeof(a));
		format_time(r->b, b, sizeof(b));
		printf("%-*s  %-32s %-32s %8.3f %8.3fx  %s\n", w, r->label, a, b, r->ratio, 1 / r->ratio,
		       verdict_name(r->verdict));
	}
	for (size_t i = 0; i < c->nrows; i++)
		if (c->rows[i].why)
			printf("cannot judge %s: %s\n", c->rows[i].label, c->rows[i].why);
}

static void print_only(const struct lb_cmp *c, const struct lb_table t[2])
{
	for (int f = 0; f < 2; f++) {
		if (!c->nonly[f])
			continue;
		printf("only in %c, not compared (%zu of %zu rows):", 'A' + f, c->nonly[f], t[f].nrows);
		for (size_t i = 0; i < c->nonly[f]; i++)
			printf("%s %s", i ? "," : "", c->only[f][i]);
		printf("\n");
	}
}

static void print_summary(const struct lb_cmp *c)
{
	printf("\n%zu rows in both; per %s, the geometric mean over sizes of B/A time "
	       "(below 1: B faster):\n", c->nrows, c->key[0]);
	for (size_t g = 0; g < c->nsummary; g++) {
		const struct lb_cmp_summary *s = &c->summary[g];
		printf("summary %s: B/A %.3f (speed-up %.2fx) over %zu sizes: %zu faster, %zu slower, "
		       "%zu within noise", s->group, s->geomean, 1 / s->geomean, s->rows, s->faster,
		       s->slower, s->noise);
		if (s->unjudged)
			printf(", %zu cannot be judged", s->unjudged);
		printf("\n");
	}
}

/* The --fail-if-slower gate: names each failing row on stderr; returns
 * how many failed.  A row whose figures cannot be judged fails it: a gate
 * that cannot tell must not pass. */
static size_t gate(const struct lb_cmd *cmd, const struct lb_cmp *c, double pct)
{
	size_t failed = 0, unjudged = 0;
	for (size_t i = 0; pct >= 0 && i < c->nrows; i++) {
		const struct lb_cmp_row *r = &c->rows[i];
		if (r->verdict == LB_CMP_UNJUDGED) {
			lb_cli_error(cmd, "fail-if-slower", "%s: cannot judge: %s", r->label, r->why);
			unjudged++;
			continue;
		}
		if (r->verdict != LB_CMP_SLOWER || !(r->ratio > 1 + pct / 100))
			continue;
		char a[64], b[64];
		format_time(r->a, a, sizeof(a));
		format_time(r->b, b, sizeof(b));
		lb_cli_error(cmd, "fail-if-slower", "%s: B is %.1f%% slower than A, beyond noise "
			     "(A %s, B %s)", r->label, (r->ratio - 1) * 100, a, b);
		failed++;
	}
	if (pct < 0)
		return 0;
	printf("--fail-if-slower %g%%: %zu of %zu rows slower by more than that beyond noise",
	       pct, failed, c->nrows);
	if (unjudged)
		printf(", %zu cannot be judged", unjudged);
	printf(": %s\n", failed + unjudged ? "FAILED" : "passed");
	return failed + unjudged;
}

static void json_number(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.9g", v);
	else
		fputs("null", f);
}

static void json_file(FILE *f, const char *path, const struct lb_table *t)
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
	json_number(f, t.mid);
	fputs(", \"low_seconds\": ", f);
	json_number(f, t.low);
	fputs(", \"high_seconds\": ", f);
	json_number(f, t.high);
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
		json_time(f, "a", r->a);
		json_time(f, "b", r->b);
		fputs(", \"b_over_a\": ", f);
		json_number(f, r->ratio);
		fputs(", \"speedup\": ", f);
		json_number(f, 1 / r->ratio);
		fprintf(f, ", \"verdict\": \"%s\", \"why\": ", verdict_name(r->verdict));
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
		json_number(f, s->geomean);
		fprintf(f, ", \"sizes\": %zu, \"faster\": %zu, \"slower\": %zu, \"within_noise\": %zu, "
			"\"cannot_judge\": %zu}", s->rows, s->faster, s->slower, s->noise, s->unjudged);
	}
	fputs("],\n \"fail_if_slower_percent\": ", f);
	json_number(f, pct >= 0 ? pct : NAN);
	fprintf(f, ", \"failed_rows\": %zu}\n", failed);
}

static int write_json(const char *path, const struct compare_opts *o, const struct lb_table t[2],
		      const struct lb_cmp *c, size_t failed)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "{\"kind\": \"%s\", \"metric\": ", lb_cmp_kind_name(c->kind));
	lb_json_put_string(f, c->time_col);
	fputs(",\n \"a\": ", f);
	json_file(f, o->files[0], &t[0]);
	fputs(",\n \"b\": ", f);
	json_file(f, o->files[1], &t[1]);
	json_lists(f, c);
	json_rows(f, c);
	json_summary(f, c, o->fail_pct, failed);
	return fclose(f) ? -1 : 0;
}

/* A CSV field, quoted when it holds a comma, quote or '#' (first). */
static void csv_field(FILE *f, const char *s)
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
static void comment_text(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, f);
}

static void csv_head(FILE *f, const struct compare_opts *o, const struct lb_cmp *c)
{
	fputs("# a: ", f);
	comment_text(f, o->files[0]);
	fputs("\n# b: ", f);
	comment_text(f, o->files[1]);
	fprintf(f, "\n# kind: %s\n# metric: %s\n", lb_cmp_kind_name(c->kind), c->time_col);
	fprintf(f, "# spread: %s (%s..%s)\n# setup:", c->spread, c->low_col ? c->low_col : "-",
		c->high_col ? c->high_col : "-");
	for (size_t i = 0; i < c->ndiffer; i++) {
		fprintf(f, "%s %s ", i ? ";" : "", c->items[i].name);
		comment_text(f, c->items[i].a);
		fputs(" -> ", f);
		comment_text(f, c->items[i].b);
	}
	fputs(c->ndiffer ? "\n" : " no difference found\n", f);
	fputs("group,label,message_bytes,a_median_seconds,a_low_seconds,a_high_seconds,"
	      "b_median_seconds,b_low_seconds,b_high_seconds,b_over_a_ratio,"
	      "b_over_a_low_ratio,b_over_a_high_ratio,verdict\n", f);
}

/* ",0.5"; an empty field where there is no number (as the CSV sink). */
static void csv_number(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, ",%.9g", v);
	else
		fputc(',', f);
}

static int write_csv(const char *path, const struct compare_opts *o, const struct lb_cmp *c)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	csv_head(f, o, c);
	for (size_t i = 0; i < c->nrows; i++) {
		const struct lb_cmp_row *r = &c->rows[i];
		csv_field(f, c->summary[r->group].group);
		fputc(',', f);
		csv_field(f, r->label);
		fprintf(f, ",%llu", r->bytes);
		const double v[] = { r->a.mid, r->a.low, r->a.high, r->b.mid, r->b.low, r->b.high,
				     r->ratio, r->b.low / r->a.high, r->b.high / r->a.low };
		for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++)
			csv_number(f, v[k]);
		fprintf(f, ",%s\n", verdict_name(r->verdict));
	}
	return fclose(f) ? -1 : 0;
}

/* Nothing matched: say on which keys and what each file has. */
static void no_common_rows(const struct lb_cmd *cmd, const struct lb_cmp *c,
			   const struct lb_table t[2])
{
	char *have[2] = { lb_cmp_describe_keys(c, &t[0]), lb_cmp_describe_keys(c, &t[1]) };
	char *keys = NULL;
	size_t len;
	FILE *f = open_memstream(&keys, &len);
	for (size_t i = 0; f && i < c->nkey; i++)
		fprintf(f, "%s%s", i ? ", " : "", c->key[i]);
	if (f)
		fclose(f);
	lb_cli_error(cmd, NULL, "no row of A matches a row of B on (%s): A has %s; B has %s",
		     keys ? keys : "?", have[0] ? have[0] : "?", have[1] ? have[1] : "?");
	free(keys);
	free(have[0]);
	free(have[1]);
}

static int report(const struct lb_cmd *cmd, const struct compare_opts *o,
		  const struct lb_table t[2], const struct lb_cmp *c)
{
	file_line("A", o->files[0], &t[0]);
	file_line("B", o->files[1], &t[1]);
	for (int f = 0; f < 2; f++)
		if (!t[f].nprov && t[1 - f].nprov)
			printf("note: %c has no provenance head (an older file): its set-up is compared "
			       "on its columns only\n", 'A' + f);
	print_setup(c);
	if (c->nrows == 0) {
		no_common_rows(cmd, c, t);
		return LB_EXIT_USAGE;
	}
	print_rows(c);
	print_only(c, t);
	print_summary(c);
	size_t failed = gate(cmd, c, o->fail_pct);
	if (o->json && write_json(o->json, o, t, c, failed)) {
		lb_cli_error(cmd, "json", "cannot write '%s'", o->json);
		return LB_EXIT_FAILED;
	}
	if (o->output && write_csv(o->output, o, c)) {
		lb_cli_error(cmd, "output", "cannot write '%s'", o->output);
		return LB_EXIT_FAILED;
	}
	return failed ? LB_EXIT_FAILED : 0;
}

static int compare(const struct lb_cmd *cmd, void *base)
{
	const struct compare_opts *o = base;
	struct lb_table t[2] = { 0 };
	struct lb_cmp c = { 0 };
	char err[2048];
	int rc = LB_EXIT_USAGE;
	for (int i = 0; i < 2; i++)
		if (lb_table_read(o->files[i], &t[i], err, sizeof(err))) {
			lb_cli_error(cmd, NULL, "%s", err);
			goto out;
		}
	if (lb_cmp_build(t, o->files, &c, err, sizeof(err)))
		lb_cli_error(cmd, NULL, "%s", err);
	else
		rc = report(cmd, o, t, &c);
out:
	lb_cmp_free(&c);
	lb_table_free(&t[0]);
	lb_table_free(&t[1]);
	return rc;
}

static int run_compare(const struct lb_cmd *cmd, int argc, char **argv)
{
	struct compare_opts o = { .fail_pct = -1 };
	return lb_cli_run(cmd, argc, argv, &o, compare);
}

static void compare_more_help(FILE *out)
{
	fputs("Reads two bcast, two p2p or two sim CSVs (with or without the provenance\n"
	      "head; an incomplete run is compared on the rows it has, and says so).\n"
	      "\n"
	      "Rows are matched on what varies inside one run: collective, algorithm, root,\n"
	      "lane (p2p) and message size, whichever both files have; ranks, lanes,\n"
	      "stripe and direction (p2p uni/bi) only when a file holds several values of\n"
	      "them (sim sweeps);\n"
	      "slice_bytes when both files have the same set of slice sizes, else rows are\n"
	      "matched without it (and the output says so).  What has one value per file --\n"
	      "lanes, ranks, transport, lane rate, NICs, hosts, version, every option -- is\n"
	      "the set-up being compared: its differences are listed (A -> B), from the\n"
	      "'# key: value' provenance head when there is one, else from the columns.\n"
	      "Rows of one file only are listed, not compared.  Two rows of one file with\n"
	      "the same key are an error naming both lines (no silent pick or average).\n"
	      "\n"
	      "Compared: the median time (bcast: time_median_seconds; p2p:\n"
	      "latency_median_seconds; sim: sim_seconds), with each run's spread from\n"
	      "min to p99 of the iterations (max when there is no p99; sim has none).\n"
	      "'B/A time' below 1 means B is faster; 'speed-up A/B' = 1 / (B/A): 2.00x\n"
	      "means B takes half the time.  A row is 'within noise' when the two\n"
	      "spreads overlap (equivalently B.low/A.high <= 1 <= B.high/A.low), else B\n"
	      "is 'faster' or 'slower'; exact sim times differ whenever they are unequal.\n"
	      "The summary per algorithm is the geometric mean of B/A over its sizes and\n"
	      "how many sizes differ beyond noise.\n"
	      "\n"
	      "A row 'cannot judge' when a time it rests on is empty, not a finite number,\n"
	      "not above 0, or out of order (min above the median, p99 below it); the\n"
	      "output names the file:line:column.  It is never 'within noise'.\n"
	      "\n"
	      "--fail-if-slower PCT gates per row, as regression gates do: exit 1 when any\n"
	      "row is 'slower' (beyond noise) with B/A > 1 + PCT/100, or cannot be judged;\n"
	      "each such row is named on stderr.  Exit 0 otherwise, 2 on unreadable or\n"
	      "incompatible files, a missing column, a cell of message_bytes, slice_bytes,\n"
	      "root, lane, ranks or lanes that is not a whole number in range (named by\n"
	      "file:line:column), duplicate rows, or no row in common (the message says\n"
	      "which keys each file has).\n", out);
}

const struct lb_cmd lb_cmd_compare = {
	.name = "compare",
	.summary = "B vs A per algorithm and size: noise, set-up differences (NIC A vs B)",
	.usage = "[--fail-if-slower PCT] [--json F] [-o F] A.csv B.csv",
	.opts = compare_opts_table,
	.nopts = sizeof(compare_opts_table) / sizeof(compare_opts_table[0]),
	.more_help = compare_more_help,
	.run = run_compare,
	.npositional = 2,
	.positional_offset = offsetof(struct compare_opts, files),
};
