/* lib/units: exact values for good input; for bad input an error that
 * names the value in single quotes. */
#include <stdlib.h>

#include "../check.h"
#include "lib/units.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static char err[512];

/* The message names the bad value and leaves the output alone. */
static void check_error(const char *what, const char *in, int rc, const char *needle)
{
	char quoted[256];
	snprintf(quoted, sizeof(quoted), "'%s'", needle ? needle : in);
	CHECK(rc == -1, "%s('%s') accepted", what, in);
	CHECK(strstr(err, quoted) != NULL, "%s('%s'): message lacks %s: %s", what, in,
	      quoted, err);
	CHECK(strchr(err, '\n') == NULL, "%s('%s'): message is not one line", what, in);
}

static void sizes(void)
{
	static const struct { const char *in; uint64_t want; } good[] = {
		{ "1", 1 }, { "4096", 4096 }, { "4K", 4096 }, { "4k", 4096 },
		{ "4KiB", 4096 }, { "16M", 16ull << 20 }, { "16m", 16ull << 20 },
		{ "3MiB", 3ull << 20 }, { "1G", 1ull << 30 }, { "1g", 1ull << 30 },
		{ "2GiB", 2ull << 30 }, { "2T", 2ull << 40 }, { "1.5K", 1536 },
		{ "0.5M", 512ull << 10 }, { "1.0", 1 }, { "0001K", 1024 },
		{ "16777215T", 16777215ull << 40 },
		{ "18446744073709551615", UINT64_MAX },
	};
	static const char *const bad[] = {
		"", "0", "0K", "0.0M", "-1", "+1", "12Q", "4KB", "4MB", "4 K", " 4K",
		"4K ", "1.3K", "1.5", "K", ".5K", "1.", "4Ki", "4KiBB", "4kib", "0x10",
		"1e3", "16777216T", "18446744073709551616", "99999999999999999999999",
		"1.0000000000000000001K",
	};
	for (size_t i = 0; i < N(good); i++) {
		uint64_t v = 0;
		int rc = lb_parse_size(good[i].in, &v, err, sizeof(err));
		CHECK(rc == 0 && v == good[i].want, "size '%s': rc %d, %llu (want %llu): %s",
		      good[i].in, rc, (unsigned long long)v,
		      (unsigned long long)good[i].want, rc ? err : "");
	}
	for (size_t i = 0; i < N(bad); i++) {
		uint64_t v = 77;
		check_error("lb_parse_size", bad[i], lb_parse_size(bad[i], &v, err, sizeof(err)), NULL);
		CHECK(v == 77, "size '%s' changed the output on error", bad[i]);
	}
	lb_parse_size("12Q", &(uint64_t){ 0 }, err, sizeof(err));
	CHECK(strcmp(err, "bad size '12Q': expected a whole number of bytes with optional K, M, G, T suffix (powers of 1024)") == 0,
	      "message: %s", err);
	lb_parse_size("0", &(uint64_t){ 0 }, err, sizeof(err));
	CHECK(strcmp(err, "bad size '0': expected at least 1 byte") == 0, "message: %s", err);
}

/* Parses a list and compares it with want[0..nwant). */
static void check_list(int counts, const char *in, const uint64_t *want, size_t nwant)
{
	uint64_t *v = NULL;
	size_t n = 0;
	int rc = counts ? lb_parse_count_list(in, &v, &n, err, sizeof(err))
			: lb_parse_size_list(in, &v, &n, err, sizeof(err));
	CHECK(rc == 0, "list '%s': %s", in, err);
	CHECK(n == nwant, "list '%s': %zu values, want %zu", in, n, nwant);
	for (size_t i = 0; rc == 0 && i < n && i < nwant; i++)
		CHECK(v[i] == want[i], "list '%s'[%zu] = %llu, want %llu", in, i,
		      (unsigned long long)v[i], (unsigned long long)want[i]);
	free(v);
}

static void check_list_error(int counts, const char *in, const char *needle)
{
	uint64_t *v = (uint64_t *)&err; /* any sentinel: must stay put */
	size_t n = 99;
	int rc = counts ? lb_parse_count_list(in, &v, &n, err, sizeof(err))
			: lb_parse_size_list(in, &v, &n, err, sizeof(err));
	check_error(counts ? "lb_parse_count_list" : "lb_parse_size_list", in, rc, needle);
	CHECK(v == (uint64_t *)&err && n == 99, "list '%s' changed the output on error", in);
}

static void size_lists(void)
{
	uint64_t pow[64];
	for (int i = 0; i < 64; i++)
		pow[i] = 1ull << i;
	check_list(0, "8:64M", pow + 3, 24); /* 8, 16, ..., 64M */
	check_list(0, "4K", pow + 12, 1);
	check_list(0, "4K:4K", pow + 12, 1);
	check_list(0, "1:18446744073709551615", pow, 64);
	check_list(0, "4K,1M", (const uint64_t[]){ 4096, 1 << 20 }, 2);
	check_list(0, "3:10,1K,1:2", (const uint64_t[]){ 3, 6, 1024, 1, 2 }, 5);
	check_list(0, "1.5K:4K", (const uint64_t[]){ 1536, 3072 }, 2);
	check_list_error(0, "64M:8", "64M:8");
	check_list_error(0, "4K,12Q", "12Q");
	check_list_error(0, "4K:12Q", "12Q");
	check_list_error(0, "0:8", "0");
	/* A:B:F multiplies by F, as nccl-tests' -f: 4K, 16K, ..., 16M */
	check_list(0, "4K:16M:4", (const uint64_t[]){ 4096, 16384, 65536, 262144, 1 << 20,
						     4 << 20, 16 << 20 }, 7);
	check_list(0, "4K:16M:2", pow + 12, 13);
	check_list(0, "1:100:10", (const uint64_t[]){ 1, 10, 100 }, 3);
	check_list(0, "8:18446744073709551615:1024", /* up to 2^63, no overflow past it */
		   (const uint64_t[]){ pow[3], pow[13], pow[23], pow[33], pow[43], pow[53], pow[63] }, 7);
	check_list_error(0, "4K:16M:1", "4K:16M:1");
	CHECK(strstr(err, "the factor '1' is not a whole number of at least 2"), "message: %s", err);
	check_list_error(0, "4K:16M:1.5", "1.5");
	check_list_error(0, "4K:16M:0", "0");
	check_list_error(0, "4K:16M:", "4K:16M:");
	check_list_error(0, "4K:16M:4K", "4K");
	check_list_error(0, "1:2:3:4", "1:2:3:4");
	CHECK(strstr(err, "expected A:B or A:B:F"), "message: %s", err);
	check_list_error(0, "", "");
	check_list_error(0, "4K,", "4K,");
	check_list_error(0, ",4K", ",4K");
	check_list_error(0, "4K,,8K", "4K,,8K");
	check_list_error(0, ":8", "");
	check_list_error(0, "8:", "");
	lb_parse_size_list("64M:8", &(uint64_t *){ NULL }, &(size_t){ 0 }, err, sizeof(err));
	CHECK(strcmp(err, "bad range '64M:8': expected A:B with A <= B") == 0, "message: %s", err);
}

/* LB_LIST_MAX values are fine, one more is not. */
static void list_limit(void)
{
	size_t len = 2 * (LB_LIST_MAX + 1);
	char *s = malloc(len);
	uint64_t *v = NULL;
	size_t n = 0;
	for (size_t i = 0; i < LB_LIST_MAX; i++)
		memcpy(s + 2 * i, "1,", 2);
	s[2 * LB_LIST_MAX - 1] = '\0';
	CHECK(lb_parse_count_list(s, &v, &n, err, sizeof(err)) == 0 && n == LB_LIST_MAX,
	      "%d values: n %zu: %s", LB_LIST_MAX, n, err);
	free(v);
	s[2 * LB_LIST_MAX - 1] = ',';
	memcpy(s + 2 * LB_LIST_MAX, "1", 2);
	/* the list is quoted, cut after 48 characters */
	CHECK(lb_parse_count_list(s, &v, &n, err, sizeof(err)) == -1 &&
	      strcmp(err, "bad count list '1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,...': expected at most 4096 values") == 0,
	      "%d values accepted: %s", LB_LIST_MAX + 1, err);
	/* ranges count too: 64 ranges of 64 values = 4096, then one more */
	strcpy(s, "");
	for (int i = 0; i < 64; i++)
		strcat(s, i ? ",1:9223372036854775808" : "1:9223372036854775808");
	CHECK(lb_parse_size_list(s, &v, &n, err, sizeof(err)) == 0 && n == 4096,
	      "64 full ranges: n %zu: %s", n, err);
	free(v);
	strcat(s, ",1");
	CHECK(lb_parse_size_list(s, &v, &n, err, sizeof(err)) == -1, "4097 values accepted");
	free(s);
}

static void counts(void)
{
	check_list(1, "2:1024", (const uint64_t[]){ 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024 }, 10);
	check_list(1, "8,12,32", (const uint64_t[]){ 8, 12, 32 }, 3);
	check_list(1, "1", (const uint64_t[]){ 1 }, 1);
	check_list(1, "5:5,7", (const uint64_t[]){ 5, 7 }, 2);
	check_list_error(1, "0", "0");
	check_list_error(1, "8,0", "0");
	check_list_error(1, "4K", "4K");
	check_list_error(1, "1.5", "1.5");
	check_list_error(1, "-2", "-2");
	check_list_error(1, "8:4", "8:4");
	check_list_error(1, "2:1024,", "2:1024,");
	check_list_error(1, "18446744073709551616", "18446744073709551616");

	uint64_t v = 0;
	CHECK(lb_parse_uint("0", 0, 10, &v, err, sizeof(err)) == 0 && v == 0, "uint 0");
	CHECK(lb_parse_uint("10", 0, 10, &v, err, sizeof(err)) == 0 && v == 10, "uint 10");
	check_error("lb_parse_uint", "11", lb_parse_uint("11", 0, 10, &v, err, sizeof(err)), NULL);
	CHECK(strstr(err, "from 0 to 10") != NULL, "uint range not named: %s", err);
	check_error("lb_parse_uint", "", lb_parse_uint("", 0, 10, &v, err, sizeof(err)), NULL);
	check_error("lb_parse_uint", "-1", lb_parse_uint("-1", 0, 10, &v, err, sizeof(err)), NULL);
	check_error("lb_parse_uint", "2x", lb_parse_uint("2x", 0, 10, &v, err, sizeof(err)), NULL);
}

/* Root lists: all, ranks and ranges A-B (every rank), each below the job's
 * size, in the order given. */
static void check_ranks(const char *in, uint64_t size, const uint64_t *want, size_t nwant)
{
	uint64_t *v = NULL;
	size_t n = 0;
	int rc = lb_parse_rank_list(in, size, &v, &n, err, sizeof(err));
	CHECK(rc == 0 && n == nwant && memcmp(v, want, n * sizeof(*v)) == 0,
	      "rank list '%s' of %llu ranks: rc %d, %zu values: %s", in, (unsigned long long)size,
	      rc, n, err);
	free(v);
}

static void rank_lists(void)
{
	uint64_t *v = NULL;
	size_t n = 0;
	check_ranks("0", 1, (const uint64_t[]){ 0 }, 1);
	check_ranks("all", 4, (const uint64_t[]){ 0, 1, 2, 3 }, 4);
	check_ranks("3,0-2", 4, (const uint64_t[]){ 3, 0, 1, 2 }, 4);
	check_ranks("2-2,1,1", 4, (const uint64_t[]){ 2, 1, 1 }, 3);
	static const char *const bad[] = { "", "x", "-1", "1-", "-", "1,", "1:3", "0x1", "all,1", " 1" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = lb_parse_rank_list(bad[i], 4, &v, &n, err, sizeof(err));
		CHECK(rc == -1 && strchr(err, '\n') == NULL, "rank list '%s' accepted (%s)", bad[i], err);
	}
	check_error("lb_parse_rank_list", "9", lb_parse_rank_list("9", 4, &v, &n, err, sizeof(err)), NULL);
	CHECK(strcmp(err, "bad rank '9': out of range for 4 ranks (expected 0..3)") == 0, "message: %s", err);
	check_error("lb_parse_rank_list", "1-4", lb_parse_rank_list("1-4", 4, &v, &n, err, sizeof(err)), "4");
	check_error("lb_parse_rank_list", "3-1", lb_parse_rank_list("3-1", 4, &v, &n, err, sizeof(err)), NULL);
	check_error("lb_parse_rank_list", "all",
		    lb_parse_rank_list("all", LB_LIST_MAX + 1, &v, &n, err, sizeof(err)), NULL);
	check_error("lb_parse_rank_list", "0-4096",
		    lb_parse_rank_list("0-4096", LB_LIST_MAX + 1, &v, &n, err, sizeof(err)), NULL);
}

static void seconds(void)
{
	static const struct { const char *in; double want; } good[] = {
		{ "5us", 5e-6 }, { "1.5ms", 1.5e-3 }, { "2s", 2 }, { "100ns", 1e-7 },
		{ "1e-6", 1e-6 }, { "0", 0 }, { "3", 3 }, { ".5s", 0.5 },
		{ "2.5e-3s", 2.5e-3 }, { "50us", 5e-5 }, { "1E+2ms", 0.1 },
		{ "7\xc2\xb5s", 7e-6 },
	};
	static const char *const bad[] = {
		"", "-1", "-5us", "+1s", "5 us", " 5us", "5sec", "5m", "5US", "us",
		"inf", "nan", "1e999", "0x1p3", "1e", "1.2.3", ".", "5us5",
	};
	for (size_t i = 0; i < N(good); i++) {
		double v = -1;
		int rc = lb_parse_seconds(good[i].in, &v, err, sizeof(err));
		CHECK(rc == 0 && (v == good[i].want || check_close(v, good[i].want, 1e-15)),
		      "seconds '%s': rc %d, %.17g (want %.17g)", good[i].in, rc, v, good[i].want);
	}
	for (size_t i = 0; i < N(bad); i++) {
		double v = -1;
		check_error("lb_parse_seconds", bad[i], lb_parse_seconds(bad[i], &v, err, sizeof(err)), NULL);
		CHECK(v == -1, "seconds '%s' changed the output on error", bad[i]);
	}
}

/* Times the models compute with: 0, or 1 ns to 1 hour. */
static void model_times(void)
{
	static const struct { const char *in; double want; } good[] = {
		{ "0", 0 }, { "1ns", 1e-9 }, { "5us", 5e-6 }, { "3600s", 3600 }, { "1e-9", 1e-9 },
	};
	static const char *const bad[] = {
		"0.5ns", "1e-320", "3601", "1e308", "-1us", "inf", "5parsec",
	};
	for (size_t i = 0; i < N(good); i++) {
		double v = -1;
		int rc = lb_parse_model_time(good[i].in, &v, err, sizeof(err));
		CHECK(rc == 0 && check_close(v, good[i].want, 1e-15),
		      "model time '%s': rc %d, %.17g (want %.17g)", good[i].in, rc, v, good[i].want);
	}
	for (size_t i = 0; i < N(bad); i++) {
		double v = -1;
		check_error("lb_parse_model_time", bad[i],
			    lb_parse_model_time(bad[i], &v, err, sizeof(err)), NULL);
		CHECK(v == -1, "model time '%s' changed the output on error", bad[i]);
	}
}

/* Wall-clock spans (check --duration): minutes and hours, "m" never
 * milliseconds; more than 0, at most a week. */
static void wall_times(void)
{
	static const struct { const char *in; double want; } good[] = {
		{ "10m", 600 }, { "10min", 600 }, { "1h", 3600 }, { "1.5h", 5400 }, { "90s", 90 },
		{ "2", 2 }, { "0.5", 0.5 }, { "168h", 604800 },
	};
	static const char *const bad[] = {
		"0", "0m", "10ms", "-1m", "169h", "1e308", "inf", "10M", "1d", "m", "",
	};
	for (size_t i = 0; i < N(good); i++) {
		double v = -1;
		int rc = lb_parse_wall_time(good[i].in, &v, err, sizeof(err));
		CHECK(rc == 0 && v == good[i].want, "wall time '%s': rc %d, %.17g (want %.17g)",
		      good[i].in, rc, v, good[i].want);
	}
	for (size_t i = 0; i < N(bad); i++) {
		double v = -1;
		check_error("lb_parse_wall_time", bad[i],
			    lb_parse_wall_time(bad[i], &v, err, sizeof(err)), NULL);
		CHECK(v == -1, "wall time '%s' changed the output on error", bad[i]);
	}
}

static void rates(void)
{
	static const struct { const char *in; double want; } good[] = {
		{ "10gbit", 1.25e9 }, { "10Gbit", 1.25e9 }, { "10GBIT", 1.25e9 },
		{ "200mbit", 25e6 }, { "100kbit", 12500 }, { "9600bit", 1200 },
		{ "1tbit", 1.25e11 }, { "1.25GB/s", 1.25e9 }, { "125MB/s", 1.25e8 },
		{ "10KB/s", 1e4 }, { "10kB/s", 1e4 }, { "500B/s", 500 }, { "1.25TB/s", 1.25e12 },
		{ "1e3mbit", 1.25e8 }, { "1kbit", 125 }, { "10tbit", 1.25e12 }, { "125B/s", 125 },
	};
	static const char *const bad[] = {
		"", "10", "10g", "10gbps", "10Gb/s", "10gb/s", "10b/s", "10GB", "0gbit",
		"0B/s", "-1gbit", "10 gbit", "gbit", "1e999gbit", "10gibit", "nanGB/s",
		"10gbit/s",
		/* outside 1 kbit/s .. 10 Tbit/s */
		"2TB/s", "10.1tbit", "999bit", "124B/s", "1e-320bit", "1e300TB/s",
	};
	for (size_t i = 0; i < N(good); i++) {
		double v = -1;
		int rc = lb_parse_rate(good[i].in, &v, err, sizeof(err));
		CHECK(rc == 0 && check_close(v, good[i].want, 1e-15),
		      "rate '%s': rc %d, %.17g (want %.17g)", good[i].in, rc, v, good[i].want);
	}
	for (size_t i = 0; i < N(bad); i++) {
		double v = -1;
		check_error("lb_parse_rate", bad[i], lb_parse_rate(bad[i], &v, err, sizeof(err)), NULL);
		CHECK(v == -1, "rate '%s' changed the output on error", bad[i]);
	}
}

static void formats(void)
{
	static const struct { uint64_t in; const char *want; } size[] = {
		{ 4096, "4K" }, { 16ull << 20, "16M" }, { 1ull << 30, "1G" },
		{ 1536, "1536" }, { 3072, "3K" }, { 1000, "1000" }, { 0, "0" },
		{ 1, "1" }, { 1025, "1025" }, { 1ull << 40, "1T" }, { 1ull << 50, "1024T" },
		{ (64ull << 20) + 4096, "65540K" }, { UINT64_MAX, "18446744073709551615" },
	};
	static const struct { double in; const char *want; } secs[] = {
		{ 1.5e-3, "1.5 ms" }, { 2, "2 s" }, { 0, "0 s" }, { 5e-6, "5 us" },
		{ 1e-7, "100 ns" }, { 250, "250 s" }, { 0.0123456, "12.35 ms" },
		{ NAN, "-" }, /* not measured: an empty cell, never "nan s" */
	};
	char buf[64];
	for (size_t i = 0; i < N(size); i++) {
		lb_format_size(size[i].in, buf, sizeof(buf));
		CHECK(strcmp(buf, size[i].want) == 0, "format_size(%llu) = '%s', want '%s'",
		      (unsigned long long)size[i].in, buf, size[i].want);
	}
	for (size_t i = 0; i < N(secs); i++) {
		lb_format_seconds(secs[i].in, buf, sizeof(buf));
		CHECK(strcmp(buf, secs[i].want) == 0, "format_seconds(%g) = '%s', want '%s'",
		      secs[i].in, buf, secs[i].want);
	}
	/* formatted sizes parse back to themselves */
	for (size_t i = 0; i < N(size); i++) {
		uint64_t v = 0;
		lb_format_size(size[i].in, buf, sizeof(buf));
		if (size[i].in)
			CHECK(lb_parse_size(buf, &v, err, sizeof(err)) == 0 && v == size[i].in,
			      "'%s' does not parse back to %llu", buf, (unsigned long long)size[i].in);
	}
}

int main(void)
{
	sizes();
	size_lists();
	list_limit();
	counts();
	rank_lists();
	seconds();
	model_times();
	wall_times();
	rates();
	formats();
	return check_status("test_units");
}
