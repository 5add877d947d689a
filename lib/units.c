/* Units users type, parsed strictly: a typo must never become a silently
 * different benchmark, so every input is either exact or an error naming it. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "units.h"
#include "error.h"

#define SIZE_EXPECTED "expected a whole number of bytes with optional K, M, G, T suffix (powers of 1024)"

/* Parsers of one list item: the item is the span [p, p + n), not terminated. */
typedef int (*item_fn)(const char *p, size_t n, uint64_t *out,
		       char *err, size_t errlen);

/* Reads leading digits into *v and their count into *nd; -1 on overflow. */
static int read_digits(const char *p, size_t n, uint64_t *v, size_t *nd)
{
	*v = 0;
	for (*nd = 0; *nd < n && isdigit((unsigned char)p[*nd]); ++*nd) {
		unsigned d = (unsigned)(p[*nd] - '0');
		if (*v > (UINT64_MAX - d) / 10)
			return -1;
		*v = *v * 10 + d;
	}
	return 0;
}

/* Binary shift of a size suffix ("", K, k, KiB, ...), or -1.  "KB" is
 * refused: tools disagree whether it means 1000 or 1024. */
static int size_shift(const char *p, size_t n)
{
	static const char letters[] = "KMGT";
	const char *l;
	if (n == 0)
		return 0;
	if (p[0] == '\0' || !(l = strchr(letters, toupper((unsigned char)p[0]))))
		return -1;
	if (n == 1 || (n == 3 && p[1] == 'i' && p[2] == 'B'))
		return 10 * (int)(l - letters + 1);
	return -1;
}

/* Bytes of the fraction frac / 10^ndigits of 2^shift, or -1 when that is
 * not a whole number ("1.5K" is 1536 bytes, "1.3K" is not whole). */
static int frac_bytes(uint64_t frac, size_t ndigits, int shift, uint64_t *out)
{
	unsigned __int128 scale = 1, v = (unsigned __int128)frac << shift;
	for (size_t i = 0; i < ndigits; i++)
		scale *= 10;
	if (v % scale)
		return -1;
	*out = (uint64_t)(v / scale);
	return 0;
}

static int size_too_large(const char *p, size_t n, char *err, size_t errlen)
{
	return lb_errf(err, errlen, "bad size '%.*s': expected at most %llu bytes",
		    (int)n, p, (unsigned long long)UINT64_MAX);
}

/* Mantissa "D[.D]" then suffix; the fraction may only make whole bytes. */
static int parse_size_span(const char *p, size_t n, uint64_t *out,
			   char *err, size_t errlen)
{
	uint64_t whole, frac = 0, fbytes = 0;
	size_t ni, nf = 0, used;
	if (read_digits(p, n, &whole, &ni))
		return size_too_large(p, n, err, errlen);
	used = ni;
	if (ni && ni < n && p[ni] == '.') {
		if (read_digits(p + ni + 1, n - ni - 1, &frac, &nf) || nf == 0 || nf > 18)
			return lb_errf(err, errlen, "bad size '%.*s': " SIZE_EXPECTED, (int)n, p);
		used += 1 + nf;
	}
	int shift = ni ? size_shift(p + used, n - used) : -1;
	if (shift < 0)
		return lb_errf(err, errlen, "bad size '%.*s': " SIZE_EXPECTED, (int)n, p);
	if (frac_bytes(frac, nf, shift, &fbytes))
		return lb_errf(err, errlen, "bad size '%.*s': expected a whole number of bytes (K = 1024)",
			    (int)n, p);
	if (whole > (UINT64_MAX - fbytes) >> shift)
		return size_too_large(p, n, err, errlen);
	if ((whole << shift) + fbytes == 0)
		return lb_errf(err, errlen, "bad size '%.*s': expected at least 1 byte", (int)n, p);
	*out = (whole << shift) + fbytes;
	return 0;
}

static int parse_uint_span(const char *p, size_t n, uint64_t min, uint64_t max,
			   uint64_t *out, char *err, size_t errlen)
{
	uint64_t v;
	size_t nd;
	if (read_digits(p, n, &v, &nd) || nd == 0 || nd != n || v < min || v > max)
		return lb_errf(err, errlen, "bad number '%.*s': expected a whole number from %llu to %llu",
			    (int)n, p, (unsigned long long)min, (unsigned long long)max);
	*out = v;
	return 0;
}

static int parse_count_span(const char *p, size_t n, uint64_t *out,
			    char *err, size_t errlen)
{
	uint64_t v;
	size_t nd;
	if (read_digits(p, n, &v, &nd) || nd == 0 || nd != n || v == 0)
		return lb_errf(err, errlen, "bad count '%.*s': expected a whole number >= 1",
			    (int)n, p);
	*out = v;
	return 0;
}

int lb_parse_size(const char *s, uint64_t *out, char *err, size_t errlen)
{
	return parse_size_span(s, strlen(s), out, err, errlen);
}

int lb_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out,
		  char *err, size_t errlen)
{
	return parse_uint_span(s, strlen(s), min, max, out, err, errlen);
}

/* The values of one list being expanded; knows the list for messages. */
struct vec {
	uint64_t *v;
	size_t n, cap;
	const char *list, *what;
};

/* A list is quoted whole in messages, up to a point: the message must stay
 * one readable line even for a list of thousands of items. */
#define QUOTE_MAX 48
#define QUOTED(s) (int)(strlen(s) > QUOTE_MAX ? QUOTE_MAX : strlen(s)), (s), \
		  strlen(s) > QUOTE_MAX ? "..." : ""

static int vec_push(struct vec *a, uint64_t x, char *err, size_t errlen)
{
	if (a->n == LB_LIST_MAX)
		return lb_errf(err, errlen, "bad %s list '%.*s%s': expected at most %d values",
			    a->what, QUOTED(a->list), LB_LIST_MAX);
	if (a->n == a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 16;
		uint64_t *v = realloc(a->v, cap * sizeof(*v));
		if (!v)
			return lb_errf(err, errlen, "%s list '%s': out of memory", a->what, a->list);
		a->v = v;
		a->cap = cap;
	}
	a->v[a->n++] = x;
	return 0;
}

/* The F of "A:B:F": a whole factor of at least 2 (a factor of 1 would
 * never reach B, a fraction is not a step of a geometric range). */
static int parse_factor(const char *range, size_t n, const char *p, size_t len, uint64_t *f,
			char *err, size_t errlen)
{
	size_t nd;
	if (read_digits(p, len, f, &nd) || nd == 0 || nd != len || *f < 2)
		return lb_errf(err, errlen, "bad range '%.*s': the factor '%.*s' is not a whole "
			       "number of at least 2 (A:B doubles, A:B:F multiplies by F)",
			       (int)n, range, (int)len, p);
	return 0;
}

/* "A:B" -> A, 2A, 4A, ... <= B; "A:B:F" -> A, FA, F^2 A, ... <= B (as
 * nccl-tests' -f); a plain item is one value. */
static int expand_item(const char *p, size_t n, item_fn parse, struct vec *a,
		       char *err, size_t errlen)
{
	const char *colon = memchr(p, ':', n);
	uint64_t lo, hi, f = 2;
	if (!colon)
		return parse(p, n, &lo, err, errlen) ? -1 : vec_push(a, lo, err, errlen);
	size_t nlo = (size_t)(colon - p), nhi = n - nlo - 1;
	const char *second = memchr(colon + 1, ':', nhi);
	if (second) {
		size_t nf = nhi - (size_t)(second - colon);
		if (memchr(second + 1, ':', nf))
			return lb_errf(err, errlen, "bad range '%.*s': expected A:B or A:B:F",
				       (int)n, p);
		if (parse_factor(p, n, second + 1, nf, &f, err, errlen))
			return -1;
		nhi = (size_t)(second - colon - 1);
	}
	if (parse(p, nlo, &lo, err, errlen) || parse(colon + 1, nhi, &hi, err, errlen))
		return -1;
	if (lo > hi)
		return lb_errf(err, errlen, "bad range '%.*s': expected A:B with A <= B",
			    (int)n, p);
	for (uint64_t v = lo;; v *= f) {
		if (vec_push(a, v, err, errlen))
			return -1;
		if (v > hi / f) /* the next step would pass hi (or overflow) */
			return 0;
	}
}

/* How a list's items expand: a value or a range of values, into a. */
struct list_kind {
	const char *what;  /* "size": names the list in messages */
	const char *range; /* "A:B": the range syntax, for messages */
	item_fn parse;     /* one value (expand_item) */
	uint64_t below;    /* rank lists: every value < below (expand_rank_item) */
	int (*expand)(const char *p, size_t n, const struct list_kind *k, struct vec *a,
		      char *err, size_t errlen);
};

static int expand_doubling(const char *p, size_t n, const struct list_kind *k, struct vec *a,
			   char *err, size_t errlen)
{
	return expand_item(p, n, k->parse, a, err, errlen);
}

static int parse_list(const char *s, const struct list_kind *k,
		      uint64_t **out, size_t *n, char *err, size_t errlen)
{
	struct vec a = { .list = s, .what = k->what };
	for (const char *p = s;; p++) {
		size_t len = strcspn(p, ",");
		if (len == 0) {
			free(a.v);
			return lb_errf(err, errlen, "bad %s list '%.*s%s': expected comma-separated %ss or ranges %s, found an empty item",
				    k->what, QUOTED(s), k->what, k->range);
		}
		if (k->expand(p, len, k, &a, err, errlen)) {
			free(a.v);
			return -1;
		}
		p += len;
		if (*p == '\0')
			break;
	}
	*out = a.v;
	*n = a.n;
	return 0;
}

int lb_parse_size_list(const char *s, uint64_t **out, size_t *n,
		       char *err, size_t errlen)
{
	static const struct list_kind k = { "size", "A:B", parse_size_span, 0, expand_doubling };
	return parse_list(s, &k, out, n, err, errlen);
}

int lb_parse_count_list(const char *s, uint64_t **out, size_t *n,
			char *err, size_t errlen)
{
	static const struct list_kind k = { "count", "A:B", parse_count_span, 0, expand_doubling };
	return parse_list(s, &k, out, n, err, errlen);
}

static int parse_rank_span(const char *p, size_t n, uint64_t below, uint64_t *out,
			   char *err, size_t errlen)
{
	uint64_t v;
	size_t nd;
	if (read_digits(p, n, &v, &nd) || nd == 0 || nd != n)
		return lb_errf(err, errlen, "bad rank '%.*s': expected a rank number, a range A-B or all",
			       (int)n, p);
	if (v >= below)
		return lb_errf(err, errlen, "bad rank '%.*s': out of range for %llu ranks (expected 0..%llu)",
			       (int)n, p, (unsigned long long)below, (unsigned long long)below - 1);
	*out = v;
	return 0;
}

/* "R" or "A-B": R, or every rank from A to B (A <= B). */
static int expand_rank_item(const char *p, size_t n, const struct list_kind *k, struct vec *a,
			    char *err, size_t errlen)
{
	const char *dash = memchr(p, '-', n);
	size_t nlo = dash ? (size_t)(dash - p) : n;
	uint64_t lo = 0, hi; /* (set by the parse; -O3 cannot see it) */
	if (parse_rank_span(p, nlo, k->below, &lo, err, errlen))
		return -1;
	hi = lo;
	if (dash && parse_rank_span(dash + 1, n - nlo - 1, k->below, &hi, err, errlen))
		return -1;
	if (lo > hi)
		return lb_errf(err, errlen, "bad range '%.*s': expected A-B with A <= B", (int)n, p);
	for (uint64_t v = lo; v <= hi; v++)
		if (vec_push(a, v, err, errlen))
			return -1;
	return 0;
}

int lb_check_rank_list(const char *s, char *err, size_t errlen)
{
	uint64_t *v = NULL;
	size_t n;
	if (strcmp(s, "all") != 0 && lb_parse_rank_list(s, UINT64_MAX, &v, &n, err, errlen))
		return -1;
	free(v);
	return 0;
}

int lb_parse_rank_list(const char *s, uint64_t ranks, uint64_t **out, size_t *n,
		       char *err, size_t errlen)
{
	const struct list_kind k = { "rank", "A-B", NULL, ranks, expand_rank_item };
	if (strcmp(s, "all") != 0)
		return parse_list(s, &k, out, n, err, errlen);
	if (ranks == 0 || ranks > LB_LIST_MAX)
		return lb_errf(err, errlen, "bad rank list 'all': expected 1 to %d ranks, the job has %llu",
			       LB_LIST_MAX, (unsigned long long)ranks);
	uint64_t *v = malloc(ranks * sizeof(*v));
	if (!v)
		return lb_errf(err, errlen, "rank list 'all': out of memory");
	for (uint64_t r = 0; r < ranks; r++)
		v[r] = r;
	*out = v;
	*n = ranks;
	return 0;
}

/* Length of a decimal number at s: digits, optional fraction, optional
 * exponent; 0 when there is none.  Stricter than strtod, which would also
 * take spaces, signs, hex, "inf" and "nan". */
static size_t decimal_span(const char *s)
{
	size_t i = strspn(s, "0123456789"), mant = i;
	if (s[i] == '.') {
		size_t f = strspn(s + i + 1, "0123456789");
		mant += f;
		i += 1 + f;
	}
	if (mant == 0)
		return 0;
	if (s[i] == 'e' || s[i] == 'E') {
		size_t j = i + 1 + (s[i + 1] == '+' || s[i + 1] == '-');
		size_t e = strspn(s + j, "0123456789");
		if (e)
			i = j + e;
	}
	return i;
}

/* The number at the start of s and where its unit begins, or -1. */
static int leading_number(const char *s, double *v, const char **unit)
{
	char buf[64];
	size_t n = decimal_span(s);
	if (n == 0 || n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	*v = strtod(buf, NULL);
	*unit = s + n;
	return 0;
}

struct unit {
	const char *name;
	double factor;
};

static const struct unit *find_unit(const struct unit *u, const char *name)
{
	for (; u->name; u++)
		if (strcmp(u->name, name) == 0)
			return u;
	return NULL;
}

int lb_parse_seconds(const char *s, double *out, char *err, size_t errlen)
{
	static const struct unit units[] = {
		{ "", 1 }, { "s", 1 }, { "ms", 1e-3 }, { "us", 1e-6 },
		{ "\xc2\xb5s", 1e-6 }, { "ns", 1e-9 }, { NULL, 0 },
	};
	const struct unit *u;
	const char *unit;
	double v;
	if (leading_number(s, &v, &unit) || !(u = find_unit(units, unit)) ||
	    !isfinite(v * u->factor))
		return lb_errf(err, errlen, "bad duration '%s': expected seconds >= 0 with optional unit s, ms, us, ns (e.g. 5us, 1.5ms, 2s)",
			    s);
	*out = v * u->factor;
	return 0;
}

int lb_parse_wall_time(const char *s, double *out, char *err, size_t errlen)
{
	static const struct unit units[] = {
		{ "", 1 }, { "s", 1 }, { "m", 60 }, { "min", 60 }, { "h", 3600 }, { NULL, 0 },
	};
	const struct unit *u;
	const char *unit;
	double v;
	if (leading_number(s, &v, &unit) || !(u = find_unit(units, unit)))
		return lb_errf(err, errlen, "bad time '%s': expected seconds, or minutes or hours with unit s, m, min, h (e.g. 90s, 10m, 1h)",
			       s);
	v *= u->factor;
	if (!(v > 0 && v <= LB_WALL_TIME_MAX))
		return lb_errf(err, errlen, "bad time '%s': out of range (expected more than 0, at most %.0f h)",
			       s, LB_WALL_TIME_MAX / 3600);
	*out = v;
	return 0;
}

/* Bit rates are case-insensitive as in tc; byte rates need the capital B
 * (and "/s"), so "Gb/s" is not silently read as gigabytes. */
static const struct unit *rate_unit(const char *name)
{
	static const struct unit bits[] = {
		{ "bit", 1 / 8.0 }, { "kbit", 1e3 / 8 }, { "mbit", 1e6 / 8 },
		{ "gbit", 1e9 / 8 }, { "tbit", 1e12 / 8 }, { NULL, 0 },
	};
	static const struct unit bytes[] = {
		{ "B/S", 1 }, { "KB/S", 1e3 }, { "MB/S", 1e6 },
		{ "GB/S", 1e9 }, { "TB/S", 1e12 }, { NULL, 0 },
	};
	char low[8] = "", up[8] = "";
	size_t n = strlen(name);
	if (n == 0 || n >= sizeof(low))
		return NULL;
	for (size_t i = 0; i < n; i++) { /* (the terminator: from the initialiser) */
		low[i] = (char)tolower((unsigned char)name[i]);
		up[i] = (char)toupper((unsigned char)name[i]);
	}
	if (n >= 3 && name[n - 3] == 'B' && strcasecmp(name + n - 2, "/s") == 0)
		return find_unit(bytes, up);
	return find_unit(bits, low);
}

int lb_parse_model_time(const char *s, double *out, char *err, size_t errlen)
{
	double t;
	if (lb_parse_seconds(s, &t, err, errlen))
		return -1;
	if (t != 0 && !(t >= LB_TIME_MIN && t <= LB_TIME_MAX))
		return lb_errf(err, errlen, "bad duration '%s': out of range (expected 0, or 1 ns to 1 hour)",
			       s);
	*out = t;
	return 0;
}

int lb_parse_rate(const char *s, double *bytes_per_s, char *err, size_t errlen)
{
	const struct unit *u;
	const char *unit;
	double v;
	if (leading_number(s, &v, &unit) || !(u = rate_unit(unit)) ||
	    !isfinite(v * u->factor) || !(v * u->factor > 0))
		return lb_errf(err, errlen, "bad rate '%s': expected a rate > 0 in bits (10gbit, 200mbit, 100kbit, 9600bit) or bytes per second (1.25GB/s, 125MB/s, 500B/s)",
			    s);
	v *= u->factor;
	if (!(v >= LB_RATE_MIN && v <= LB_RATE_MAX))
		return lb_errf(err, errlen, "bad rate '%s': out of range (expected 1kbit to 10tbit, 125B/s to 1.25TB/s)",
			       s);
	*bytes_per_s = v;
	return 0;
}

void lb_format_size(uint64_t bytes, char *buf, size_t len)
{
	static const char letters[] = "TGMK";
	for (int i = 0; i < 4; i++) {
		int shift = 10 * (4 - i);
		if (bytes && bytes % (1ull << shift) == 0) {
			snprintf(buf, len, "%llu%c", (unsigned long long)(bytes >> shift),
				 letters[i]);
			return;
		}
	}
	snprintf(buf, len, "%llu", (unsigned long long)bytes);
}

void lb_format_memory(uint64_t bytes, char *buf, size_t len)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double v = (double)bytes;
	int i = 0;
	while (v >= 1024 && i < 6)
		v /= 1024, i++;
	snprintf(buf, len, "%.1f %s", v, units[i]);
}

void lb_format_seconds(double seconds, char *buf, size_t len)
{
	static const struct unit units[] = {
		{ "s", 1 }, { "ms", 1e-3 }, { "us", 1e-6 }, { "ns", 1e-9 },
	};
	size_t i = 0;
	if (isnan(seconds)) { /* not measured: a table's empty cell */
		snprintf(buf, len, "-");
		return;
	}
	while (i < 3 && fabs(seconds) < units[i].factor && seconds != 0 && isfinite(seconds))
		i++;
	snprintf(buf, len, "%.4g %s", seconds / units[i].factor, units[i].name);
}

void lb_format_link_speed(double bits_per_second, char *buf, size_t len)
{
	if (isnan(bits_per_second))
		snprintf(buf, len, "-");
	else if (bits_per_second >= 1e9)
		snprintf(buf, len, "%gG", bits_per_second / 1e9);
	else
		snprintf(buf, len, "%gM", bits_per_second / 1e6);
}
