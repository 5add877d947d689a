/* CSV reading: quoting, CRLF, blank lines, comments, the provenance head
 * and lanebench's "incomplete" trailer, ragged rows named by line; reading
 * from a stream, and numbers checked where they are read. */
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "report/csvread.h"

static const char *write_tmp(const char *text)
{
	static char path[64];
	snprintf(path, sizeof(path), "/tmp/lb-csvread-%d.csv", (int)getpid());
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	return path;
}

/* Numbers where they are read: whole numbers in range, finite reals;
 * anything else refused naming file:line:column and the column's name. */
static void numbers(void)
{
	static const char text[] = "# version: x\nsize,time\n4096,0.5\n-5,nan\n1e300,inf\n"
				   "\"18446744073709551616\",\n 7, 1\n0x10,1e999\n";
	FILE *f = fmemopen((void *)text, sizeof(text) - 1, "r");
	struct lb_table t;
	char err[256] = "";
	CHECK(f && lb_table_read_stream(f, "mem.csv", &t, err, sizeof(err)) == 0, "stream: %s", err);
	if (f)
		fclose(f);
	CHECK(t.nrows == 6 && t.lines[1] == 4 && strcmp(t.path, "mem.csv") == 0, "stream: %zu rows",
	      t.nrows);
	uint64_t u = 0;
	double d = 0;
	CHECK(lb_table_uint(&t, 0, 0, 1, 1 << 20, &u, err, sizeof(err)) == 0 && u == 4096, "4096");
	CHECK(lb_table_finite(&t, 0, 1, &d, err, sizeof(err)) == 0 && d == 0.5, "0.5");
	CHECK(lb_table_uint(&t, 0, 0, 1, 4095, &u, err, sizeof(err)) && strstr(err, "mem.csv:3:1: size: "),
	      "above max: %s", err);
	static const struct {
		size_t row;
		int col;
		const char *why;
	} bad[] = {
		{ 1, 0, "mem.csv:4:1: size: bad number '-5'" },
		{ 1, 1, "mem.csv:4:2: time: 'nan' is not a finite number" },
		{ 2, 0, "mem.csv:5:1: size: bad number '1e300'" },
		{ 2, 1, "mem.csv:5:2: time: 'inf' is not a finite number" },
		{ 3, 0, "mem.csv:6:1: size: bad number '18446744073709551616'" },
		{ 3, 1, "mem.csv:6:2: time: empty" },
		{ 4, 0, "mem.csv:7:1: size: bad number ' 7'" },
		{ 4, 1, "mem.csv:7:2: time: ' 1' is not a number" },
		{ 5, 0, "mem.csv:8:1: size: bad number '0x10'" },
		{ 5, 1, "mem.csv:8:2: time: '1e999' is not a finite number" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		int rc = bad[i].col == 0 ?
			 lb_table_uint(&t, bad[i].row, 0, 0, UINT64_MAX, &u, err, sizeof(err)) :
			 lb_table_finite(&t, bad[i].row, 1, &d, err, sizeof(err));
		CHECK(rc == -1 && strstr(err, bad[i].why), "case %zu: '%s', want '%s'", i, err,
		      bad[i].why);
	}
	lb_table_free(&t);
}

int main(void)
{
	struct lb_table t;
	char err[256] = "";
	const char *p = write_tmp("algorithm,message_bytes,note\r\nchain,4096,\"a, \"\"quoted\"\"\nline\"\r\n\nbinary,8,\n");
	CHECK(lb_table_read(p, &t, err, sizeof(err)) == 0, "read: %s", err);
	CHECK(t.ncols == 3 && t.nrows == 2, "shape %zux%zu", t.nrows, t.ncols);
	int note = lb_table_col(&t, "note");
	CHECK(note == 2 && lb_table_col(&t, "nope") == -1, "columns");
	CHECK(strcmp(lb_table_cell(&t, 0, note), "a, \"quoted\"\nline") == 0, "quoted field '%s'",
	      lb_table_cell(&t, 0, note));
	CHECK(strcmp(lb_table_cell(&t, 1, 0), "binary") == 0 && !lb_table_cell(&t, 1, note)[0],
	      "second row");
	lb_table_free(&t);

	/* A run that stopped early: comments skipped, lanebench's trailer kept. */
	p = write_tmp("# made by hand\na,b\n1,\"#2\"\n# lanebench: incomplete after 1 rows: interrupted (SIGINT)\n");
	CHECK(lb_table_read(p, &t, err, sizeof(err)) == 0, "trailer: %s", err);
	CHECK(t.ncols == 2 && t.nrows == 1 && strcmp(lb_table_cell(&t, 0, 1), "#2") == 0,
	      "trailer: shape %zux%zu", t.nrows, t.ncols);
	CHECK(t.note && strcmp(t.note, "incomplete after 1 rows: interrupted (SIGINT)") == 0,
	      "note '%s'", t.note ? t.note : "(null)");
	lb_table_free(&t);
	p = write_tmp("a,b\n1,2\n");
	CHECK(lb_table_read(p, &t, err, sizeof(err)) == 0 && !t.note, "complete file has a note");
	lb_table_free(&t);

	/* The provenance head: "# key: value" lines before the header, in file
	 * order; other comments, and '#' lines after the header, are not. */
	p = write_tmp("# format: lanebench-csv 2\r\n# made by hand\n# version: v0.1-3-gabc\n"
		      "# lane.0.1: nic=rail1 port=1 speed_bps=100000000\n# Bad: x\n# empty:\n"
		      "a,b\n# late: no\n1,2\n\n\"x\ny\",3\n4,5\n# lanebench: incomplete after 3 rows: x\n");
	CHECK(lb_table_read(p, &t, err, sizeof(err)) == 0, "head: %s", err);
	CHECK(t.nprov == 4 && strcmp(t.prov[0].key, "format") == 0 &&
	      strcmp(t.prov[0].value, "lanebench-csv 2") == 0 &&
	      strcmp(t.prov[3].key, "empty") == 0 && !t.prov[3].value[0], "head: %zu items", t.nprov);
	CHECK(strcmp(lb_table_prov(&t, "lane.0.1"), "nic=rail1 port=1 speed_bps=100000000") == 0 &&
	      strcmp(lb_table_prov(&t, "version"), "v0.1-3-gabc") == 0, "head lookup");
	CHECK(!lb_table_prov(&t, "late") && !lb_table_prov(&t, "Bad") && !lb_table_prov(&t, "lanebench"),
	      "not provenance taken as such");
	CHECK(t.nrows == 3 && t.lines[0] == 9 && t.lines[1] == 11 && t.lines[2] == 13,
	      "row lines %zu: %zu %zu %zu", t.nrows, t.lines[0], t.lines[1], t.lines[2]);
	CHECK(t.note && strstr(t.note, "after 3 rows"), "head file's trailer");
	lb_table_free(&t);
	/* An older file, without a head: no provenance, rows as before. */
	p = write_tmp("a,b\n1,2\n");
	CHECK(lb_table_read(p, &t, err, sizeof(err)) == 0 && t.nprov == 0 && !lb_table_prov(&t, "format") &&
	      t.lines[0] == 2, "no head");
	lb_table_free(&t);

	p = write_tmp("a,b\n1,2\n3\n");
	CHECK(lb_table_read(p, &t, err, sizeof(err)) != 0 && strstr(err, ":3: 1 fields, the header has 2"),
	      "ragged: %s", err);
	p = write_tmp("a,b\n\"open,2\n");
	CHECK(lb_table_read(p, &t, err, sizeof(err)) != 0 && strstr(err, "malformed"), "quote: %s", err);
	p = write_tmp("");
	CHECK(lb_table_read(p, &t, err, sizeof(err)) != 0 && strstr(err, "empty"), "empty: %s", err);
	unlink(p);
	CHECK(lb_table_read("/nonexistent/x.csv", &t, err, sizeof(err)) != 0 &&
	      strstr(err, "/nonexistent/x.csv: No such file"), "missing: %s", err);
	numbers();
	return check_status("csvread");
}
