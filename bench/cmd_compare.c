/* lanebench compare A.csv B.csv: one NIC configuration against another
 * (one rail vs two, NIC A vs B, firmware X vs Y).  Rows are matched and
 * judged in report/compare.c and written by report/compare_out.c (text,
 * JSON, the CSV for scripts/plot --compare); two check records in
 * report/compare_check.c and compare_check_out.c.  This file reads the
 * options and the files, chooses the outputs and applies the
 * --fail-if-slower gate. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "lib/error.h"
#include "report/compare.h"
#include "report/compare_check.h"
#include "report/csvread.h"
#include "report/outfile.h"

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
	{ LB_OPT("json", 0, "FILE", "also write the comparison as one JSON document ('-': stdout, the printout then to stderr)", LB_OPT_STRING,
		 OFF(json)) },
	{ LB_OPT("output", 'o', "FILE", "also write the rows as CSV (for scripts/plot; '-': stdout)",
		 LB_OPT_STRING, OFF(output)) },
};

/* Rows of A that B lacks, and B cut short: a run that died halfway must
 * not pass the gate on the rows it finished.  Named on stderr; returns how
 * many rows fail it (B incomplete counts one). */
static size_t gate_missing(const struct lb_cmd *cmd, const struct lb_cmp *c,
			   const struct lb_table *b)
{
	for (size_t i = 0; i < c->nonly[0]; i++)
		lb_cli_error(cmd, "fail-if-slower", "%s: missing from B", c->only[0][i]);
	if (b->note)
		lb_cli_error(cmd, "fail-if-slower", "B is %s", b->note);
	return c->nonly[0] + (b->note ? 1 : 0);
}

/* The --fail-if-slower gate: names each failing row on stderr; returns
 * how many failed.  A row whose figures cannot be judged fails it: a gate
 * that cannot tell must not pass; so does a row of A missing from B. */
static size_t gate(const struct lb_cmd *cmd, FILE *out, const struct lb_cmp *c,
		   const struct lb_table t[2], double pct)
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
		lb_cmp_format_time(r->a, a, sizeof(a));
		lb_cmp_format_time(r->b, b, sizeof(b));
		lb_cli_error(cmd, "fail-if-slower", "%s: B is %.1f%% slower than A, beyond noise "
			     "(A %s, B %s)", r->label, (r->ratio - 1) * 100, a, b);
		failed++;
	}
	if (pct < 0)
		return 0;
	size_t missing = gate_missing(cmd, c, &t[1]);
	fprintf(out, "--fail-if-slower %g%%: %zu of %zu rows slower by more than that beyond noise",
		pct, failed, c->nrows);
	if (unjudged)
		fprintf(out, ", %zu cannot be judged", unjudged);
	if (c->nonly[0])
		fprintf(out, ", %zu of A's rows missing from B", c->nonly[0]);
	if (t[1].note)
		fprintf(out, ", B incomplete");
	fprintf(out, ": %s\n", failed + unjudged + missing ? "FAILED" : "passed");
	return failed + unjudged + missing;
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

/* What a file of the comparison holds: JSON or CSV, of rows or of check
 * records. */
struct written {
	const struct compare_opts *o;
	const struct lb_table *t;
	const struct lb_cmp *rows;  /* NULL: check records */
	const struct lb_chk *checks;
	size_t failed;
};

static void put(FILE *f, const struct written *w, int json)
{
	if (w->rows && json)
		lb_cmp_write_json(f, w->rows, w->t, w->o->files, w->o->fail_pct, w->failed);
	else if (w->rows)
		lb_cmp_write_csv(f, w->rows, w->o->files);
	else if (json)
		lb_chk_write_json(f, w->checks, w->t, w->o->files, w->o->fail_pct, w->failed);
	else
		lb_chk_write_csv(f, w->checks, w->o->files);
}

/* The --json (json 1) or -o file, written aside and renamed into place
 * (report/outfile.h), or to stdout for "-".  0, or LB_EXIT_FAILED with
 * the error printed. */
static int write_out(const struct lb_cmd *cmd, const struct written *w, int json)
{
	const char *path = json ? w->o->json : w->o->output;
	struct lb_outfile f;
	char err[512];
	if (!path)
		return 0;
	int rc = lb_outfile_open(&f, path, err, sizeof(err));
	if (rc == 0) {
		put(f.f, w, json);
		if ((rc = lb_outfile_check(&f, err, sizeof(err))) == 0)
			rc = lb_outfile_finish(&f, err, sizeof(err));
		else
			lb_outfile_abort(&f);
	}
	if (rc)
		lb_cli_error(cmd, json ? "json" : "output", "%s", err);
	return rc ? LB_EXIT_FAILED : 0;
}

static int write_both(const struct lb_cmd *cmd, const struct written *w)
{
	int rc = write_out(cmd, w, 1);
	return rc ? rc : write_out(cmd, w, 0);
}

/* The printout: on stderr when -o - or --json - takes stdout. */
static FILE *shown(const struct compare_opts *o)
{
	int taken = (o->json && strcmp(o->json, "-") == 0) ||
		    (o->output && strcmp(o->output, "-") == 0);
	return taken ? stderr : stdout;
}

static int report(const struct lb_cmd *cmd, const struct compare_opts *o,
		  const struct lb_table t[2], const struct lb_cmp *c)
{
	FILE *out = shown(o);
	lb_cmp_print_head(out, c, t, o->files);
	if (c->nrows == 0) {
		no_common_rows(cmd, c, t);
		return LB_EXIT_USAGE;
	}
	lb_cmp_print_rows(out, c, t);
	size_t failed = gate(cmd, out, c, t, o->fail_pct);
	const struct written w = { .o = o, .t = t, .rows = c, .failed = failed };
	int rc = write_both(cmd, &w);
	return rc ? rc : failed ? LB_EXIT_FAILED : 0;
}

/* ---- two check records ---------------------------------------------------- */

/* One row against the gate: a new failure, a row of A missing from B, a
 * port's or aggregate's tx or rx below (1 - pct/100) x A's.  Named on
 * stderr; 1 when it fails. */
static int check_gate_row(const struct lb_cmd *cmd, const struct lb_chk_row *r, double pct)
{
	const char *phase = lb_chk_row_kind(r->phase);
	if (r->change == LB_CHK_NEW_FAILURE) {
		lb_cli_error(cmd, "fail-if-slower", "%s %s: new failure (%s -> %s)", phase, r->label,
			     r->row[0] == SIZE_MAX ? "not in A" : r->verdict[0], r->verdict[1]);
		return 1;
	}
	if (r->change == LB_CHK_ONLY_A) {
		lb_cli_error(cmd, "fail-if-slower", "%s %s: missing from B", phase, r->label);
		return 1;
	}
	double low = 1 - pct / 100;
	if (r->tx_ratio < low || r->rx_ratio < low) {
		lb_cli_error(cmd, "fail-if-slower", "%s %s: tx B/A %.2f, rx B/A %.2f: below %.2f",
			     phase, r->label, r->tx_ratio, r->rx_ratio, low);
		return 1;
	}
	return 0;
}

static size_t check_gate(const struct lb_cmd *cmd, FILE *out, const struct lb_chk *c,
			 const struct lb_table *b, double pct)
{
	size_t failed = 0;
	if (pct < 0)
		return 0;
	for (size_t i = 0; i < c->nrows; i++)
		failed += (size_t)check_gate_row(cmd, &c->rows[i], pct);
	if (b->note) /* the rows it lacks are missing from B, but say why */
		lb_cli_error(cmd, "fail-if-slower", "B is %s", b->note);
	fprintf(out, "--fail-if-slower %g%%: %zu of %zu rows failed (new failures, missing from B, "
		"tx or rx more than that lower)%s: %s\n", pct, failed, c->nrows,
		b->note ? ", B incomplete" : "", failed || b->note ? "FAILED" : "passed");
	return failed + (b->note ? 1 : 0);
}

static int compare_checks(const struct lb_cmd *cmd, const struct compare_opts *o,
			  const struct lb_table t[2])
{
	struct lb_chk c;
	char err[2048];
	if (lb_chk_build(t, o->files, &c, err, sizeof(err))) {
		lb_cli_error(cmd, NULL, "%s", err);
		lb_chk_free(&c);
		return LB_EXIT_USAGE;
	}
	FILE *out = shown(o);
	lb_chk_print(out, &c, t, o->files);
	size_t failed = check_gate(cmd, out, &c, &t[1], o->fail_pct);
	const struct written w = { .o = o, .t = t, .checks = &c, .failed = failed };
	int rc = write_both(cmd, &w);
	lb_chk_free(&c);
	return rc ? rc : failed ? LB_EXIT_FAILED : 0;
}

/* Check records go to their own comparison; one beside another kind is
 * an error naming it. */
static int mixed_check(const struct lb_cmd *cmd, const struct compare_opts *o,
		       const struct lb_table t[2])
{
	int f = lb_chk_is_record(&t[0]) ? 1 : 0;
	lb_cli_error(cmd, NULL, "%s is a check record, %s is not: nothing to compare",
		     o->files[1 - f], o->files[f]);
	return LB_EXIT_USAGE;
}

static int compare(const struct lb_cmd *cmd, void *base)
{
	const struct compare_opts *o = base;
	struct lb_table t[2] = { 0 };
	struct lb_cmp c = { 0 };
	char err[2048];
	int rc = LB_EXIT_USAGE;
	if (lb_cli_check_targets(cmd, o->output, o->json))
		return rc;
	for (int i = 0; i < 2; i++)
		if (lb_table_read(o->files[i], &t[i], err, sizeof(err))) {
			lb_cli_error(cmd, NULL, "%s", err);
			goto out;
		}
	if (lb_chk_is_record(&t[0]) && lb_chk_is_record(&t[1]))
		rc = compare_checks(cmd, o, t);
	else if (lb_chk_is_record(&t[0]) || lb_chk_is_record(&t[1]))
		rc = mixed_check(cmd, o, t);
	else if (lb_cmp_build(t, o->files, &c, err, sizeof(err)))
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
	      "them (sim sweeps); slice_bytes only when a file holds several slices for\n"
	      "one size (a slice sweep).  --slice auto chooses a slice per size and may\n"
	      "choose another in B: such rows still pair, and a column 'slice A -> B'\n"
	      "shows both.  What has one value per file --\n"
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
	      "each such row is named on stderr.  A row of A missing from B, or B cut\n"
	      "short (its '# lanebench: incomplete' trailer), fails it too: a run that\n"
	      "died halfway does not pass.  Exit 0 otherwise, 2 on unreadable or\n"
	      "incompatible files, a missing column, a cell of message_bytes, slice_bytes,\n"
	      "root, lane, ranks or lanes that is not a whole number in range (named by\n"
	      "file:line:column), duplicate rows, or no row in common (the message says\n"
	      "which keys each file has), an -o or --json that cannot be created, or both\n"
	      "naming one file ('-' is stdout; both '-' is refused).\n"
	      "\n"
	      "Two check records (lanebench check's CSVs: columns phase and verdict) are\n"
	      "compared row by row: a port by host and lane (ranks may be numbered\n"
	      "otherwise in the next run), or by rank and lane when a record names no\n"
	      "host or one host twice; an aggregate by host (or rank); a collective by\n"
	      "collective, algorithm and size.  Per row: the slower way's rate A -> B in\n"
	      "Mbit/s, tx, rx and latency B/A (a collective: its median time), and the\n"
	      "verdict A -> B; then the lists NEW FAILURES (FAIL or ERROR in B, not in A),\n"
	      "FIXED (failing in A, PASS or WARN in B), other verdict changes, and the\n"
	      "rows of one record only.  Columns it does not read are ignored.  With\n"
	      "--fail-if-slower PCT: exit 1 on a new failure, a row of A missing from B,\n"
	      "a tx or rx below (1 - PCT/100) x A's (100: on the verdicts alone), or B\n"
	      "incomplete;\n"
	      "a check record against another kind of CSV: exit 2.\n", out);
}

const struct lb_cmd lb_cmd_compare = {
	.name = "compare",
	.summary = "B vs A per algorithm and size (or per port: check records); set-up differences",
	.usage = "[--fail-if-slower PCT] [--json F] [-o F] A.csv B.csv",
	.opts = compare_opts_table,
	.nopts = sizeof(compare_opts_table) / sizeof(compare_opts_table[0]),
	.more_help = compare_more_help,
	.run = run_compare,
	.npositional = 2,
	.positional_offset = offsetof(struct compare_opts, files),
};
