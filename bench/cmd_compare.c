/* lanebench compare A.csv B.csv: for every configuration present in both
 * runs, B's median time and bandwidth over A's -- how one NIC
 * configuration (firmware, one NIC vs two, transport) differs from
 * another.  Reads bcast CSVs (key: algorithm, ranks, lanes, root, size,
 * slice) and p2p CSVs (key: lane, size). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "report/csvread.h"
#include "lib/units.h"

struct compare_opts {
	const char *files[2];
};

#define NKEYS 6

/* What identifies a row, and what is compared, per kind of CSV. */
struct layout {
	const char *kind;
	const char *keys[NKEYS];
	const char *time, *bw;
};

static const struct layout layouts[] = {
	{ "bcast", { "algorithm", "ranks", "lanes", "root", "message_bytes", "slice_bytes" },
	  "time_median_seconds", "algbw_bytes_per_second" },
	{ "p2p", { "lane_name", "message_bytes", NULL },
	  "latency_median_seconds", "bandwidth_median_bytes_per_second" },
};

static const struct layout *layout_of(const struct lb_table *t)
{
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		if (lb_table_col(t, layouts[i].time) >= 0 && lb_table_col(t, layouts[i].bw) >= 0 &&
		    lb_table_col(t, layouts[i].keys[0]) >= 0)
			return &layouts[i];
	return NULL;
}

/* The row of t whose key columns equal row ra of a, or -1. */
static long find_row(const struct layout *l, const struct lb_table *a, size_t ra,
		     const struct lb_table *t)
{
	for (size_t r = 0; r < t->nrows; r++) {
		int same = 1;
		for (size_t k = 0; same && k < NKEYS && l->keys[k]; k++)
			same = strcmp(lb_table_cell(a, ra, lb_table_col(a, l->keys[k])),
				      lb_table_cell(t, r, lb_table_col(t, l->keys[k]))) == 0;
		if (same)
			return (long)r;
	}
	return -1;
}

static double num(const struct lb_table *t, size_t row, const char *col)
{
	const char *s = lb_table_cell(t, row, lb_table_col(t, col));
	char *end;
	double v = strtod(s, &end);
	return end != s ? v : NAN;
}

static void print_key(const struct layout *l, const struct lb_table *t, size_t row)
{
	for (size_t k = 0; k < NKEYS && l->keys[k]; k++) {
		const char *v = lb_table_cell(t, row, lb_table_col(t, l->keys[k]));
		char sz[24];
		if (strstr(l->keys[k], "bytes")) {
			lb_format_size(strtoull(v, NULL, 10), sz, sizeof(sz));
			v = sz;
		}
		printf("%-*s ", k == 0 ? 11 : 7, v);
	}
}

/* "A: results/x.csv", and what its trailer says when the run stopped early. */
static void file_line(const char *name, const char *path, const struct lb_table *t)
{
	printf("%s: %s", name, path);
	if (t->note)
		printf("  (%s)", t->note);
	putchar('\n');
}

static void header(const struct layout *l, const char *const *files, const struct lb_table *t)
{
	file_line("A", files[0], &t[0]);
	file_line("B", files[1], &t[1]);
	for (size_t k = 0; k < NKEYS && l->keys[k]; k++)
		printf("%-*s ", k == 0 ? 11 : 7, l->keys[k][0] == 'm' ? "bytes" :
		       l->keys[k][0] == 's' ? "slice" : l->keys[k]);
	printf("%11s %11s %9s %9s\n", "A median", "B median", "B/A time", "B/A bw");
}

/* Prints every configuration found in both files; returns how many. */
static size_t compare_rows(const struct layout *l, const struct lb_table *a,
			   const struct lb_table *b)
{
	size_t common = 0;
	for (size_t r = 0; r < a->nrows; r++) {
		long s = find_row(l, a, r, b);
		if (s < 0)
			continue;
		double ta = num(a, r, l->time), tb = num(b, (size_t)s, l->time);
		double ba = num(a, r, l->bw), bb = num(b, (size_t)s, l->bw);
		char fa[24], fb[24];
		lb_format_seconds(ta, fa, sizeof(fa));
		lb_format_seconds(tb, fb, sizeof(fb));
		print_key(l, a, r);
		printf("%11s %11s %9.3f %9.3f\n", fa, fb, tb / ta, bb / ba);
		common++;
	}
	return common;
}

static int compare(const struct lb_cmd *cmd, void *base)
{
	const struct compare_opts *o = base;
	struct lb_table t[2] = { 0 };
	char err[512];
	int rc = 1;
	for (int i = 0; i < 2; i++)
		if (lb_table_read(o->files[i], &t[i], err, sizeof(err))) {
			lb_cli_error(cmd, NULL, "%s", err);
			goto out;
		}
	const struct layout *l = layout_of(&t[0]);
	if (!l || layout_of(&t[1]) != l) {
		lb_cli_error(cmd, NULL, "'%s' and '%s' are not both bcast or both p2p results",
			     o->files[0], o->files[1]);
		goto out;
	}
	header(l, o->files, t);
	size_t common = compare_rows(l, &t[0], &t[1]);
	printf("%zu configurations in both (A has %zu, B has %zu)\n", common, t[0].nrows, t[1].nrows);
	if (common == 0)
		lb_cli_error(cmd, NULL, "no configuration appears in both files");
	rc = common ? 0 : 1;
out:
	lb_table_free(&t[0]);
	lb_table_free(&t[1]);
	return rc;
}

static int run_compare(const struct lb_cmd *cmd, int argc, char **argv)
{
	struct compare_opts o = { { NULL, NULL } };
	return lb_cli_run(cmd, argc, argv, &o, compare);
}

static void compare_more_help(FILE *out)
{
	fputs("Rows are matched on algorithm, ranks, lanes, message and slice size (bcast\n"
	      "CSVs) or lane and message size (p2p CSVs).  'B/A time' below 1 means B is\n"
	      "faster; 'B/A bw' above 1 means B moves more bytes per second.  A run that\n"
	      "stopped early (its CSV ends in a '# lanebench: incomplete ...' line) is\n"
	      "compared on the rows it has, and its file line says so.\n", out);
}

const struct lb_cmd lb_cmd_compare = {
	.name = "compare",
	.summary = "ratio of two runs per algorithm and size (NIC configuration A vs B)",
	.usage = "A.csv B.csv",
	.opts = NULL,
	.nopts = 0,
	.more_help = compare_more_help,
	.run = run_compare,
	.npositional = 2,
	.positional_offset = offsetof(struct compare_opts, files),
};
