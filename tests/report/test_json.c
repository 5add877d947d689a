/* The JSON sink: the exact document for rows of every kind of value
 * (escapes, nulls, numbers), the incomplete member, a document with no
 * rows, the atomic write, and strings of bytes that are not UTF-8.
 * tests/cli/cli_test.sh checks that a real run's document parses
 * (python3 -m json.tool) and matches its CSV. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../check.h"
#include "report/json.h"

static char dir[256];
static char err[512];

static const struct lb_col cols[] = {
	{ LB_COLUMN("name", LB_COL_TEXT) },
	{ LB_COLUMN("count", LB_COL_UINT) },
	{ LB_COLUMN("seconds", LB_COL_REAL) },
	{ LB_COLUMN("sent_count", LB_COL_COUNTER), .counter = "sent" },
};

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char *buf = calloc(1, 1 << 16);
	size_t n = buf ? fread(buf, 1, (1 << 16) - 1, f) : 0;
	(void)n;
	fclose(f);
	return buf;
}

static int put(struct lb_json *j, union lb_val a, union lb_val b, union lb_val c, int counted)
{
	const union lb_val v[4] = { a, b, c };
	const struct lb_counter sent = { "sent", 9 };
	const struct lb_result r = { .cols = cols, .ncols = 4, .vals = v,
				     .counters = counted ? &sent : NULL, .ncounters = counted };
	return lb_json_sink_row(j, &r, err, sizeof(err));
}

static void document(void)
{
	char path[300];
	snprintf(path, sizeof(path), "%s/r.json", dir);
	struct lb_prov prov = { 0 };
	lb_prov_add(&prov, "command", "%s", "lanebench \"q\" \\ x");
	lb_prov_add(&prov, "version", "%s", "v1");
	struct lb_json *j = lb_json_open(path, err, sizeof(err));
	CHECK(j, "open: %s", err);
	if (!j)
		return;
	CHECK(lb_json_sink_provenance(j, &prov, err, sizeof(err)) == 0, "prov: %s", err);
	CHECK(lb_json_sink_begin(j, cols, 4, err, sizeof(err)) == 0, "begin: %s", err);
	CHECK(put(j, (union lb_val){ .s = "a\tb\x01" }, (union lb_val){ .u = 18446744073709551615u },
		  (union lb_val){ .d = 0.5 }, 1) == 0, "row: %s", err);
	CHECK(put(j, (union lb_val){ .s = NULL }, (union lb_val){ .u = 0 },
		  (union lb_val){ .d = NAN }, 0) == 0, "row: %s", err);
	CHECK(slurp(path) == NULL, "'%s' exists before close", path);
	CHECK(lb_json_close_incomplete(j, "interrupted (SIGINT)", err, sizeof(err)) == 0,
	      "close: %s", err);
	lb_prov_free(&prov);
	char *got = slurp(path);
	const char *want =
		"{\"provenance\": {\"format\": \"lanebench-json 1\",\n"
		"  \"version\": \"v1\",\n  \"command\": \"lanebench \\\"q\\\" \\\\ x\"},\n"
		" \"columns\": [\"name\", \"count\", \"seconds\", \"sent_count\"],\n"
		" \"rows\": [\n"
		"  {\"name\": \"a\\tb\\u0001\", \"count\": 18446744073709551615, \"seconds\": 0.5, \"sent_count\": 9},\n"
		"  {\"name\": null, \"count\": 0, \"seconds\": null, \"sent_count\": null}\n"
		" ],\n \"incomplete\": \"interrupted (SIGINT)\"}\n";
	CHECK(got && strcmp(got, want) == 0, "content:\n%s\nwant:\n%s", got, want);
	free(got);
	unlink(path);
}

/* Closed complete without a row (and without begin): still a document. */
static void empty(void)
{
	char path[300];
	snprintf(path, sizeof(path), "%s/e.json", dir);
	struct lb_json *j = lb_json_open(path, err, sizeof(err));
	CHECK(j && lb_json_close(j, err, sizeof(err)) == 0, "empty: %s", err);
	char *got = slurp(path);
	const char *want = "{\"provenance\": {\"format\": \"lanebench-json 1\"},\n"
			   " \"columns\": [],\n \"rows\": []}\n";
	CHECK(got && strcmp(got, want) == 0, "content:\n%s", got);
	free(got);
	unlink(path);
	j = lb_json_open(path, err, sizeof(err));
	CHECK(j && lb_json_close_incomplete(j, "x", err, sizeof(err)) == 0, "incomplete: %s", err);
	CHECK(access(path, F_OK) != 0, "an incomplete run without rows left '%s'", path);
}

/* A string of any bytes is written as valid JSON: well-formed UTF-8 kept,
 * every byte that is not (a stray continuation, a cut sequence, overlong,
 * a surrogate, above U+10FFFF) replaced by \ufffd. */
static void not_utf8(void)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"" },
		{ "a\xff\xfe", "\"a\\ufffd\\ufffd\"" },
		{ "\x80x", "\"\\ufffdx\"" },
		{ "cut \xe2\x82", "\"cut \\ufffd\\ufffd\"" },
		{ "over \xc0\xaf \xe0\x80\xaf", "\"over \\ufffd\\ufffd \\ufffd\\ufffd\\ufffd\"" },
		{ "sur \xed\xa0\x80", "\"sur \\ufffd\\ufffd\\ufffd\"" },
		{ "big \xf4\x90\x80\x80", "\"big \\ufffd\\ufffd\\ufffd\\ufffd\"" },
		{ "\x1b[31m\r", "\"\\u001b[31m\\u000d\"" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = NULL;
		size_t len;
		FILE *f = open_memstream(&got, &len);
		lb_json_put_string(f, cases[i].in);
		fclose(f);
		CHECK(got && strcmp(got, cases[i].want) == 0, "case %zu: got %s, want %s", i, got,
		      cases[i].want);
		free(got);
	}
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/lb-json-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	document();
	empty();
	not_utf8();
	rmdir(dir);
	return check_status("test_json");
}
