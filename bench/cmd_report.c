/* lanebench report RECORD.csv: a check record (lanebench check's CSV) as
 * its HTML page again (report/check_html.h) -- the page check writes
 * beside its record, for a record kept from before, or written with
 * --html none, or mailed without its page. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "lib/error.h"
#include "report/check_html.h"
#include "report/compare_check.h"
#include "report/csvread.h"
#include "report/outfile.h"

struct report_opts {
	const char *record;
	const char *html;
};

#define OFF(f) offsetof(struct report_opts, f)

static const struct lb_opt report_opts_table[] = {
	{ LB_OPT("html", 0, "FILE", "where the page goes (default: the record's name with .html; '-': stdout)",
		 LB_OPT_STRING, OFF(html)) },
};

/* RECORD.csv -> RECORD.html; NULL out of memory. */
static char *html_beside(const char *record)
{
	struct lb_buf b = { 0 };
	size_t n = strlen(record);
	if (n > 4 && strcmp(record + n - 4, ".csv") == 0)
		n -= 4;
	lb_buf_add(&b, "%.*s.html", (int)n, record);
	if (b.failed)
		lb_buf_free(&b);
	return b.s;
}

static int report(const struct lb_cmd *cmd, void *base)
{
	const struct report_opts *o = base;
	struct lb_table t = { 0 };
	char err[2048];
	char *beside = o->html ? NULL : html_beside(o->record);
	const char *path = o->html ? o->html : beside;
	int rc = LB_EXIT_USAGE;
	if (!path)
		lb_cli_error(cmd, NULL, "out of memory");
	else if (lb_cli_check_targets(cmd, path, NULL))
		; /* named */
	else if (lb_outfile_same(path, o->record))
		lb_cli_error(cmd, "html", "'%s' is the record itself: the page would replace it",
			     path);
	else if (lb_table_read(o->record, &t, err, sizeof(err)))
		lb_cli_error(cmd, NULL, "%s", err);
	else if (!lb_chk_is_record(&t))
		lb_cli_error(cmd, NULL, "%s: not a check record (no columns phase and verdict)",
			     o->record);
	else if (lb_check_html_file(&t, o->record, path, err, sizeof(err)))
		lb_cli_error(cmd, NULL, "%s", err), rc = LB_EXIT_FAILED;
	else
		rc = 0;
	if (rc == 0 && strcmp(path, "-") != 0)
		printf("report: %s\n", path);
	lb_table_free(&t);
	free(beside);
	return rc;
}

static int run_report(const struct lb_cmd *cmd, int argc, char **argv)
{
	struct report_opts o = { 0 };
	return lb_cli_run(cmd, argc, argv, &o, report);
}

static void report_more_help(FILE *out)
{
	fputs("Writes the HTML page lanebench check writes beside its record (see\n"
	      "lanebench check --help) from a record read back: one file, styles inline,\n"
	      "no script, nothing fetched.  In order: the verdict; every failure and\n"
	      "warning with its port, link or collective and cause; the hosts (ranks,\n"
	      "worst verdict, each lane's tx / rx); per lane the N x N matrix of the link\n"
	      "rows (sender x receiver) coloured by rate over expected, pairs not measured\n"
	      "hatched, FAIL and WARN outlined; the inventory with values off the lane's\n"
	      "majority marked; the counters that grew; the collectives.  Every text of\n"
	      "the record is escaped.\n"
	      "\nExit status: 0 written; 1 it could not be written; 2 bad usage, or the\n"
	      "file is no check record (its columns phase and verdict) or unreadable.\n",
	      out);
}

const struct lb_cmd lb_cmd_report = {
	.name = "report",
	.summary = "a check record (CSV) as its HTML page again",
	.usage = "[--html FILE] RECORD.csv",
	.opts = report_opts_table,
	.nopts = sizeof(report_opts_table) / sizeof(report_opts_table[0]),
	.more_help = report_more_help,
	.npositional = 1,
	.positional_offset = OFF(record),
	.run = run_report,
};
