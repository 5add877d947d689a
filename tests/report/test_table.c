/* report/table: the table sink prints exactly the views of the column
 * description -- headings, widths (negative: left-aligned), sizes in
 * binary units, seconds, fixed-point with a divisor, NaN as given or as
 * the one empty marker "-" (never "nan"), one value shown twice, hidden
 * columns skipped, text never cut -- the legend under it names the
 * columns that have one and the marker, and a closed pipe asks the run to
 * stop instead of failing it. */
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "../check.h"
#include "lib/stop.h"
#include "report/table.h"

static const struct lb_col cols[] = {
	{ LB_COLUMN("name", LB_COL_TEXT), .table = { { LB_SHOW_TEXT, "name", -6, .legend = "what" } } },
	{ LB_COLUMN("hidden", LB_COL_UINT) },
	{ LB_COLUMN("count", LB_COL_UINT), .table = { { LB_SHOW_UINT, "n", 3, .legend = "how many" } } },
	{ LB_COLUMN("message_bytes", LB_COL_UINT), .table = { { LB_SHOW_SIZE, "bytes", 9 } } },
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
	lb_table_legend(&t);
	fclose(f);
	const char *want = "name     n     bytes      time    MB/s Gbit/s     r  eff\n"
			   "chain   12    64 KiB   54.5 us  354.02  2.832 0.333 0.50\n"
			   "x        1 97.66 KiB         - 1500.00 12.000     -    -\n"
			   "\n"
			   "columns:\n"
			   "  name  what\n"
			   "  n     how many\n"
			   "  -     no value: not measured, or the model does not apply\n";
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

/* No row, no legend: a run that printed nothing explains nothing. */
static void no_rows_no_legend(void)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	struct lb_table t = { .out = f };
	lb_table_legend(&t);
	fflush(f);
	CHECK(text && text[0] == '\0', "a legend without a table: %s", text);
	/* headed (a sweep prints the heading first), then no row: no legend */
	lb_table_header(&t, cols, NCOLS);
	fflush(f);
	size_t heading = size;
	lb_table_legend(&t);
	fclose(f);
	CHECK(text && size == heading, "a legend under a heading without rows: %s", text);
	free(text);
}

static void sizes(void)
{
	static const struct { uint64_t bytes; const char *text; } cases[] = {
		{ 0, "0 B" }, { 1000, "1000 B" }, { 1024, "1 KiB" }, { 1536, "1.5 KiB" },
		{ 3u << 20, "3 MiB" }, { 1ull << 30, "1 GiB" }, { 5ull << 40, "5 TiB" },
		/* no unit divides them: four significant digits, at most 9 wide */
		{ 1000000, "976.6 KiB" }, { 1025, "1.001 KiB" }, { 100000, "97.66 KiB" },
		{ 1048575, "1024 KiB" }, { 1000000000, "953.7 MiB" },
		{ (1ull << 40) * 1023 + 1, "1023 TiB" }, { 1ull << 20 | 1u << 19, "1536 KiB" },
	};
	char buf[32];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		lb_table_format_size(cases[i].bytes, buf, sizeof(buf));
		CHECK(strcmp(buf, cases[i].text) == 0, "%llu bytes: '%s', want '%s'",
		      (unsigned long long)cases[i].bytes, buf, cases[i].text);
	}
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
	no_rows_no_legend();
	sizes();
	long_text();
	closed_pipe_stops();
	return check_status("test_table");
}
