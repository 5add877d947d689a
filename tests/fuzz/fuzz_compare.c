/* libFuzzer target for `lanebench compare`: the input is two files, A and
 * B, split at its first NUL byte (no NUL: the input against itself).
 * Both are read from memory, compared, and the whole report written --
 * text, JSON, CSV, or what each file has when no row matches -- to memory.
 * The JSON must be valid UTF-8 without raw control characters, and every
 * row either judged on finite times or saying why not.  Two check records
 * take their own comparison (report/compare_check.h), written the same
 * three ways, its JSON held to the same rules.  compare.dict holds
 * the files' words (scripts/fuzz uses it). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/compare.h"
#include "report/compare_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int read_table(const uint8_t *data, size_t size, const char *name, struct lb_table *t)
{
	char err[512];
	FILE *f = fmemopen((void *)data, size, "r");
	if (!f)
		return -1;
	int rc = size ? lb_table_read_stream(f, name, t, err, sizeof(err)) : -1;
	fclose(f);
	return rc;
}

/* Well-formed UTF-8 (RFC 3629) without bytes below 0x20 other than '\n'. */
static int json_text_ok(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned c = s[i];
		size_t len = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 :
			     c >= 0xf0 && c <= 0xf4 ? 4 : 0;
		if (len == 0 || i + len > n || (c < 0x20 && c != '\n'))
			return 0;
		uint32_t cp = len == 1 ? c : c & (0x7f >> len);
		for (size_t k = 1; k < len; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		static const uint32_t least[] = { 0, 0, 0x80, 0x800, 0x10000 };
		if (cp < least[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return 0;
		i += len;
	}
	return 1;
}

static void report(const struct lb_cmp *c, const struct lb_table t[2], const char *const names[2])
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	if (!out)
		return;
	lb_cmp_print_head(out, c, t, names);
	if (c->nrows == 0) {
		char *have[2] = { lb_cmp_describe_keys(c, &t[0]), lb_cmp_describe_keys(c, &t[1]) };
		free(have[0]);
		free(have[1]);
	}
	lb_cmp_print_rows(out, c, t);
	lb_cmp_write_csv(out, c, names);
	fclose(out);
	free(buf);
	buf = NULL;
	out = open_memstream(&buf, &len);
	if (!out)
		return;
	lb_cmp_write_json(out, c, t, names, 5, 0);
	fclose(out);
	if (!json_text_ok((const unsigned char *)buf, len))
		abort();
	free(buf);
}

static void check_rows(const struct lb_cmp *c)
{
	for (size_t i = 0; i < c->nrows; i++) {
		const struct lb_cmp_row *r = &c->rows[i];
		int judged = r->verdict != LB_CMP_UNJUDGED;
		if (judged != !r->why || !r->label)
			abort();
		if (judged && !(isfinite(r->a.mid) && isfinite(r->b.mid) && r->a.mid > 0 &&
				r->b.mid > 0 && r->a.low <= r->a.mid && r->a.mid <= r->a.high))
			abort();
	}
}

/* Two check records: every row is in A or B, its change agrees with that,
 * and the report is written whole. */
static void check_records(const struct lb_table t[2], const char *const names[2])
{
	struct lb_chk c;
	char err[2048], *buf = NULL;
	size_t len = 0;
	if (lb_chk_build(t, names, &c, err, sizeof(err)) == 0) {
		for (size_t i = 0; i < c.nrows; i++) {
			const struct lb_chk_row *r = &c.rows[i];
			if (!r->label || (r->row[0] == SIZE_MAX && r->row[1] == SIZE_MAX) ||
			    (r->change == LB_CHK_ONLY_A) != (r->row[1] == SIZE_MAX))
				abort();
		}
		FILE *out = open_memstream(&buf, &len);
		if (out) {
			lb_chk_print(out, &c, t, names);
			lb_chk_write_csv(out, &c, names);
			fclose(out);
			free(buf);
		}
		buf = NULL;
		out = open_memstream(&buf, &len);
		if (out) {
			lb_chk_write_json(out, &c, t, names, 5, 0);
			fclose(out);
			if (!json_text_ok((const unsigned char *)buf, len))
				abort();
			free(buf);
		}
	}
	lb_chk_free(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t na = nul ? (size_t)(nul - data) : size;
	const uint8_t *b = nul ? nul + 1 : data;
	size_t nb = nul ? size - na - 1 : size;
	const char *const names[2] = { "a.csv", "b.csv" };
	struct lb_table t[2];
	if (read_table(data, na, names[0], &t[0]))
		return 0;
	if (read_table(b, nb, names[1], &t[1])) {
		lb_table_free(&t[0]);
		return 0;
	}
	struct lb_cmp c = { 0 };
	char err[2048];
	if (lb_chk_is_record(&t[0]) && lb_chk_is_record(&t[1])) {
		check_records(t, names);
	} else if (lb_cmp_build(t, names, &c, err, sizeof(err)) == 0) {
		check_rows(&c);
		report(&c, t, names);
	}
	lb_cmp_free(&c);
	lb_table_free(&t[0]);
	lb_table_free(&t[1]);
	return 0;
}
