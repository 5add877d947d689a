/* The tuning table; see tuning.h. */
#include "tuning.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algos/slice.h"
#include "lib/error.h"
#include "job.h"
#include "lib/textin.h"
#include "lib/units.h"

#define MAGIC "lanebench-tuning 1"
#define MAX_BYTES ((uint64_t)1 << 40) /* 1 TiB: beyond any message we send */

/* A whole decimal field in [lo, hi] (the reason is the caller's to give). */
static int parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	return lb_parse_uint(s, lo, hi, out, NULL, 0);
}

static int parse_real(const char *s, double lo, double hi, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

/* A word of letters, digits, '-' and '_' that fits cap (with its NUL). */
static int copy_word(const char *s, char *out, size_t cap)
{
	size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-_");
	if (n == 0 || s[n] || n >= cap)
		return -1;
	memcpy(out, s, n + 1);
	return 0;
}

/* "name=value" of the key line: the value, or NULL when the name differs. */
static const char *field(const char *tok, const char *name)
{
	size_t n = strlen(name);
	return tok && strncmp(tok, name, n) == 0 && tok[n] == '=' ? tok + n + 1 : NULL;
}

static int parse_key(char *line, struct lb_tuning_key *k)
{
	char *save, *t[6];
	t[0] = strtok_r(line, " ", &save);
	for (int i = 1; i < 6; i++)
		t[i] = strtok_r(NULL, " ", &save);
	uint64_t ranks, lanes;
	const char *v;
	if (strtok_r(NULL, " ", &save) || !t[0] || strcmp(t[0], "key"))
		return -1;
	if (!(v = field(t[1], "transport")) || copy_word(v, k->transport, sizeof(k->transport)))
		return -1;
	if (!(v = field(t[2], "ranks")) || parse_u64(v, 1, 1u << 20, &ranks))
		return -1;
	if (!(v = field(t[3], "lanes")) || parse_u64(v, 1, LB_JOB_MAX_LANES, &lanes))
		return -1;
	if (!(v = field(t[4], "lane_rate")) || parse_real(v, 0, 1e15, &k->lane_rate))
		return -1;
	if (!(v = field(t[5], "platform")) || copy_word(v, k->platform, sizeof(k->platform)))
		return -1;
	k->ranks = (uint32_t)ranks, k->lanes = (uint32_t)lanes;
	return 0;
}

/* A slice the engine runs for bytes: one slice, or a candidate below it. */
static int valid_slice(uint64_t slice, uint64_t bytes)
{
	return slice == bytes ||
	       (slice >= LB_SLICE_AUTO_FLOOR && slice < bytes && (slice & (slice - 1)) == 0);
}

static int parse_pick(char *line, struct lb_tuning *t, char *why, size_t len)
{
	char *save, *f[5];
	f[0] = strtok_r(line, " ", &save);
	for (int i = 1; i < 5; i++)
		f[i] = strtok_r(NULL, " ", &save);
	struct lb_tuning_pick p;
	if (strtok_r(NULL, " ", &save) || !f[4] || strcmp(f[0], "pick"))
		return lb_errf(why, len, "expected 'pick BYTES ALGORITHM SLICE SECONDS'");
	if (parse_u64(f[1], 1, MAX_BYTES, &p.bytes) || parse_u64(f[3], 1, MAX_BYTES, &p.slice))
		return lb_errf(why, len, "bytes and slice: whole numbers from 1 to 2^40");
	if (!valid_slice(p.slice, p.bytes))
		return lb_errf(why, len, "slice %" PRIu64 " for %" PRIu64 " bytes: the message, or a "
			       "power of two from 1024 below it", p.slice, p.bytes);
	p.algo = strlen(f[2]) < 64 ? lb_algo_find(f[2]) : NULL;
	if (!p.algo || !lb_algo_homogeneous_bcast(p.algo))
		return lb_errf(why, len, "'%.64s' is not a broadcast that needs no platform", f[2]);
	if (parse_real(f[4], 1e-9, 3600, &p.seconds))
		return lb_errf(why, len, "seconds: a number from 1e-9 to 3600");
	if (t->n == LB_TUNING_MAX_PICKS)
		return lb_errf(why, len, "more than %d picks", LB_TUNING_MAX_PICKS);
	if (t->n && p.bytes <= t->picks[t->n - 1].bytes)
		return lb_errf(why, len, "sizes must increase from line to line");
	t->picks[t->n++] = p;
	return 0;
}

/* One line (its line break gone); *state: 0 before the magic,
 * 1 before the key, 2 in the picks. */
static int parse_line(char *line, int *state, struct lb_tuning *t, char *why, size_t len)
{
	if (*state == 0) {
		if (strcmp(line, MAGIC))
			return lb_errf(why, len, "not a tuning table (its first line is '" MAGIC "')");
		*state = 1;
		return 0;
	}
	if (line[0] == '#' || line[0] == 0)
		return 0;
	if (*state == 1) {
		if (parse_key(line, &t->key))
			return lb_errf(why, len, "expected 'key transport=NAME ranks=N lanes=N "
				       "lane_rate=BYTES_PER_S platform=HASH|-'");
		*state = 2;
		return 0;
	}
	return parse_pick(line, t, why, len);
}

static int read_lines(FILE *f, struct lb_tuning *t, size_t *no, char *why, size_t len)
{
	char *buf = NULL;
	size_t cap = 0;
	struct lb_textin_count n = { 0 };
	const char *bound = NULL;
	int state = 0, rc = 0;
	ssize_t got;
	while (rc == 0 && (got = lb_textin_line(f, &buf, &cap, &n, &bound)) >= 0) {
		++*no;
		if ((size_t)got > LB_TUNING_MAX_LINE) {
			rc = lb_errf(why, len, "a line longer than %d bytes", LB_TUNING_MAX_LINE);
			break;
		}
		buf[strcspn(buf, "\r\n")] = 0;
		rc = parse_line(buf, &state, t, why, len);
	}
	if (rc == 0 && bound) { /* the read stopped inside the next line */
		++*no;
		rc = lb_errf(why, len, "%s", bound);
	}
	else if (rc == 0 && ferror(f))
		rc = lb_errf(why, len, "read error");
	else if (rc == 0 && (state < 2 || t->n == 0))
		rc = lb_errf(why, len, "%s", state < 2 ? "no key line" : "no pick lines");
	free(buf);
	return rc;
}

int lb_tuning_read(const char *path, struct lb_tuning *t, char *err, size_t len)
{
	char why[256];
	size_t no = 0;
	FILE *f = fopen(path, "r");
	if (!f)
		return lb_errf(err, len, "%s: %s", path, strerror(errno));
	memset(t, 0, sizeof(*t));
	int rc = read_lines(f, t, &no, why, sizeof(why));
	fclose(f);
	if (rc)
		return lb_errf(err, len, "%s:%zu: %s", path, no, why);
	return 0;
}

int lb_tuning_write(FILE *out, const struct lb_tuning *t, const struct lb_prov *prov)
{
	fprintf(out, MAGIC "\n");
	for (size_t i = 0; prov && i < prov->n; i++)
		fprintf(out, "# %s: %s\n", prov->items[i].key, prov->items[i].value);
	fprintf(out, "# pick: message bytes, algorithm, slice bytes, measured median seconds\n");
	fprintf(out, "key transport=%s ranks=%u lanes=%u lane_rate=%.0f platform=%s\n",
		t->key.transport, t->key.ranks, t->key.lanes, t->key.lane_rate, t->key.platform);
	for (size_t i = 0; i < t->n; i++)
		fprintf(out, "pick %" PRIu64 " %s %" PRIu64 " %.9g\n", t->picks[i].bytes,
			t->picks[i].algo->name, t->picks[i].slice, t->picks[i].seconds);
	return fflush(out) || ferror(out) ? -1 : 0;
}

int lb_tuning_matches(const struct lb_tuning *t, const struct lb_tuning_key *job, char *why,
		      size_t len)
{
	const struct lb_tuning_key *k = &t->key;
	if (strcmp(k->transport, job->transport))
		return lb_errf(why, len, "transport: the table's %s != the job's %s", k->transport,
			       job->transport);
	if (k->ranks != job->ranks)
		return lb_errf(why, len, "ranks: the table's %u != the job's %u", k->ranks, job->ranks);
	if (k->lanes != job->lanes)
		return lb_errf(why, len, "lanes: the table's %u != the job's %u", k->lanes, job->lanes);
	if (fabs(k->lane_rate - job->lane_rate) > 0.01 * fmax(k->lane_rate, job->lane_rate))
		return lb_errf(why, len, "lane rate: the table's %.0f B/s != the job's %.0f",
			       k->lane_rate, job->lane_rate);
	if (strcmp(k->platform, job->platform))
		return lb_errf(why, len, "platform: the table's %s != the job's %s", k->platform,
			       job->platform);
	return 0;
}

const struct lb_tuning_pick *lb_tuning_lookup(const struct lb_tuning *t, uint64_t bytes,
					      uint64_t *slice, char *why, size_t len)
{
	const struct lb_tuning_pick *best = NULL;
	double off = INFINITY;
	for (size_t i = 0; i < t->n; i++) {
		double d = fabs(log2((double)t->picks[i].bytes / (double)bytes));
		if (d < off)
			off = d, best = &t->picks[i];
	}
	if (!best || off > 2) {
		lb_errf(why, len, "%" PRIu64 " bytes is more than x4 from the table's sizes", bytes);
		return NULL;
	}
	*slice = best->slice >= best->bytes || best->slice >= bytes ? bytes : best->slice;
	return best;
}
