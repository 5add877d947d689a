/* report/table: the table sink prints exactly the views of the column
 * description -- headings, widths (negative: left-aligned), sizes,
 * seconds, fixed-point with a divisor, NaN as given or as printf has it,
 * one value shown twice, hidden columns skipped, text never cut -- and a
 * closed pipe asks the run to stop instead of failing it. */
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "../check.h"
#include "lib/stop.h"
#include "report/table.h"

static const struct lb_col cols[] = {
	{ LB_COLUMN("name", LB_COL_TEXT), .table = { { LB_SHOW_TEXT, "name", -6 } } },
	{ LB_COLUMN("hidden", LB_COL_UINT) },
	{ LB_COLUMN("count", LB_COL_UINT), .table = { { LB_SHOW_UINT, "n", 3 } } },
	{ LB_COLUMN("message_bytes", LB_COL_UINT), .table = { { LB_SHOW_SIZE, "bytes", 6 } } },
	{ LB_COLUMN("time_seconds", LB_COL_REAL),
	  .table = { { LB_SHOW_SECONDS, "time", 9, .nan = "-" } } },
	{ LB_COLUMN("rate_bytes_per_second", LB_COL_REAL),
	  .table = { { LB_SHOW_FIXED, "MB/s", 7, 2, 1e6 }, { LB_SHOW_FIXED, "Gbit/s", 6, 3, 1.25e8 } } },
	{ LB_COLUMN("ratio", LB_COL_REAL), .table = { { LB_SHOW_FIXED, "r", 5, 3 } } },
	{ LB_COLUMN("eff_ratio", LB_COL_REAL), .table = { { LB_SHOW_FIXED, "eff", 4, 2, .nan = "-" } } },
	{ LB_COLUMN("frames_count", LB_COL_COUNTER), .counter = "frames" },
};

#define NCOLS (sizeof(cols) / sizeof(cols[0]))

static int row(struct lb_table *t, const union lb_val *v, char *err, size_t len)
{
	const struct lb_result r = { .cols = cols, .ncols = NCOLS, .vals = v };
	return lb_table_row(t, &r, err, len);
}

static void exact_text(void)
{
	char *text = NULL, err[256] = "";
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	struct lb_table t = { .out = f };
	const union lb_val a[NCOLS] = { { .s = "chain" }, { .u = 9 }, { .u = 12 }, { .u = 65536 },
					{ .d = 54.5e-6 }, { .d = 354020925 }, { .d = 1.0 / 3 },
					{ .d = 0.5 } };
	const union lb_val b[NCOLS] = { { .s = "x" }, { .u = 0 }, { .u = 1 }, { .u = 100000 },
					{ .d = NAN }, { .d = 1.5e9 }, { .d = NAN }, { .d = NAN } };
	CHECK(row(&t, a, err, sizeof(err)) == 0, "row: %s", err);
	CHECK(row(&t, b, err, sizeof(err)) == 0, "row: %s", err);
	fclose(f);
	const char *want = "name     n  bytes      time    MB/s Gbit/s     r  eff\n"
			   "chain   12    64K   54.5 us  354.02  2.832 0.333 0.50\n"
			   "x        1 100000         - 1500.00 12.000   nan    -\n";
	CHECK(text && strcmp(text, want) == 0, "table:\n%s\nwant:\n%s", text, want);
	free(text);
}

/* A text cell longer than any buffer is printed whole (it was cut at 255
 * bytes). */
static void long_text(void)
{
	char *text = NULL, err[256] = "", name[1001];
	size_t size = 0;
	memset(name, 'n', 1000);
	name[1000] = 0;
	FILE *f = open_memstream(&text, &size);
	struct lb_table t = { .out = f, .headed = 1 };
	const union lb_val a[NCOLS] = { { .s = name } };
	CHECK(row(&t, a, err, sizeof(err)) == 0, "row: %s", err);
	fclose(f);
	CHECK(text && strncmp(text, name, 1000) == 0 && text[1000] == ' ', "long text cut: %.40s...",
	      text);
	free(text);
}

/* The heading once, whether printed first (begin) or with the first row. */
static void heading_once(void)
{
	char *text = NULL, err[256] = "";
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	struct lb_table t = { .out = f };
	const union lb_val a[NCOLS] = { { .s = "a" } };
	CHECK(lb_table_sink_begin(&t, cols, NCOLS, err, sizeof(err)) == 0, "begin: %s", err);
	CHECK(row(&t, a, err, sizeof(err)) == 0, "row: %s", err);
	fclose(f);
	CHECK(text && strstr(text, "name") == text && strstr(text + 1, "name") == NULL,
	      "heading not exactly once:\n%s", text);
	free(text);
}

static void closed_pipe_stops(void)
{
	int fd[2];
	char err[256] = "";
	const union lb_val a[NCOLS] = { { .s = "a" } };
	if (pipe(fd) != 0) {
		CHECK(0, "pipe");
		return;
	}
	signal(SIGPIPE, SIG_IGN);
	close(fd[0]);
	FILE *f = fdopen(fd[1], "w");
	struct lb_table t = { .out = f };
	CHECK(row(&t, a, err, sizeof(err)) == 0, "a closed pipe failed the row: %s", err);
	CHECK(*lb_stop_flag() == SIGPIPE, "stop flag %d, want SIGPIPE", (int)*lb_stop_flag());
	fclose(f);
}

int main(void)
{
	exact_text();
	heading_once();
	long_text();
	closed_pipe_stops();
	return check_status("test_table");
}
