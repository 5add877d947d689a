#include "compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/units.h"

/* What each kind of file is recognised by and compared on.  bcast's time
 * is first: its files also have sim_seconds (the prediction). */
struct kind_cols {
	enum lb_cmp_kind kind;
	const char *name, *time, *low, *high, *high_fallback, *identity;
};

static const struct kind_cols kinds[] = {
	{ LB_CMP_BCAST, "bcast", "time_median_seconds", "time_min_seconds", "time_p99_seconds",
	  "time_max_seconds", "algorithm" },
	{ LB_CMP_P2P, "p2p", "latency_median_seconds", "latency_min_seconds",
	  "latency_p99_seconds", NULL, "lane" },
	{ LB_CMP_SIM, "sim", "sim_seconds", NULL, NULL, NULL, "algorithm" },
};
#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

/* Matched on whenever both files have them, in this (display) order. */
static const char *const fixed_keys[] = { "collective", "algorithm", "root", "lane" };
/* Matched on when either file holds several values (a sweep over them). */
static const char *const sweep_keys[] = { "ranks", "lanes", "stripe", "direction" };

/* Set-up columns: one value per file, reported rather than matched on. */
static const char *const setup_cols[] = {
	"transport", "ranks", "lanes", "stripe", "direction", "idle", "lane_rate_bytes_per_second",
	"slice_bytes", "iterations", "warmup", "window", "alpha_seconds",
	"lane_bandwidth_bytes_per_second", "lane_name", "label",
};

/* Provenance that differs between any two runs, or is summarised apart. */
static const char *const prov_skipped[] = { "format", "command", "time_utc", "option.output",
					    "option.label", "option.json" };

const char *lb_cmp_kind_name(enum lb_cmp_kind kind)
{
	return kinds[kind].name;
}

static int has(const struct lb_table *t, const char *col)
{
	return col && lb_table_col(t, col) >= 0;
}

static const struct kind_cols *kind_of(const struct lb_table *t)
{
	for (size_t i = 0; i < NKINDS; i++)
		if (has(t, kinds[i].time))
			return &kinds[i];
	return NULL;
}

/* The distinct values of column col in t, first-seen order, as pointers
 * into t; *n of them.  NULL only when out of memory (or no rows). */
static const char **distinct(const struct lb_table *t, const char *col, size_t *n)
{
	int c = lb_table_col(t, col);
	const char **v = calloc(t->nrows + 1, sizeof(*v));
	*n = 0;
	for (size_t r = 0; v && c >= 0 && r < t->nrows; r++) {
		const char *s = lb_table_cell(t, r, c);
		size_t i = 0;
		while (i < *n && strcmp(v[i], s) != 0)
			i++;
		if (i == *n)
			v[(*n)++] = s;
	}
	return v;
}

static size_t count_distinct(const struct lb_table *t, const char *col)
{
	size_t n;
	free(distinct(t, col, &n));
	return n;
}

/* Same set of values of col in both files. */
static int same_values(const struct lb_table t[2], const char *col)
{
	size_t n[2];
	const char **v[2] = { distinct(&t[0], col, &n[0]), distinct(&t[1], col, &n[1]) };
	int same = v[0] && v[1] && n[0] == n[1];
	for (size_t i = 0; same && i < n[0]; i++) {
		size_t j = 0;
		while (j < n[1] && strcmp(v[0][i], v[1][j]) != 0)
			j++;
		same = j < n[1];
	}
	free(v[0]);
	free(v[1]);
	return same;
}

/* A cell as shown to a reader: sizes as 64K, rates in Mbit/s. */
static void show_value(const char *col, const char *v, char *buf, size_t len)
{
	char *end;
	double x = strtod(v, &end);
	if (end == v || *end) {
		snprintf(buf, len, "%s", *v ? v : "(empty)");
	} else if (strcmp(col, "message_bytes") == 0 || strcmp(col, "slice_bytes") == 0) {
		lb_format_size((unsigned long long)x, buf, len);
	} else if (strstr(col, "bytes_per_second")) {
		snprintf(buf, len, "%.4g Mbit/s", x * 8 / 1e6);
	} else {
		snprintf(buf, len, "%s", v);
	}
}

/* "64K, 256K": the distinct values of col in t as shown, or "(no column)". */
static char *joined_values(const struct lb_table *t, const char *col)
{
	size_t n, len = 0;
	const char **v = distinct(t, col, &n);
	char *out = calloc(1, 16 + n * 40);
	if (!v || !out) {
		free(v);
		free(out);
		return NULL;
	}
	if (!has(t, col))
		strcpy(out, "(no column)");
	for (size_t i = 0; i < n && has(t, col); i++) {
		char one[40];
		show_value(col, v[i], one, sizeof(one));
		len += (size_t)sprintf(out + len, "%s%s", i ? ", " : "", one);
	}
	free(v);
	return out;
}

static int push_item(struct lb_cmp *c, const char *name, char *a, char *b)
{
	struct lb_cmp_item *it = realloc(c->items, (c->nitems + 1) * sizeof(*it));
	if (!it || !a || !b) {
		c->items = it ? it : c->items;
		free(a);
		free(b);
		return -1;
	}
	c->items = it;
	it[c->nitems++] = (struct lb_cmp_item){ strdup(name), a, b };
	return it[c->nitems - 1].name ? 0 : -1;
}

static int has_item(const struct lb_cmp *c, const char *name)
{
	for (size_t i = 0; i < c->nitems; i++)
		if (strcmp(c->items[i].name, name) == 0)
			return 1;
	return 0;
}

static int is_key(const struct lb_cmp *c, const char *col)
{
	for (size_t i = 0; i < c->nkey; i++)
		if (strcmp(c->key[i], col) == 0)
			return 1;
	return 0;
}

static char *dup_or_none(const char *s)
{
	return strdup(s ? s : "(none)");
}

/* "1500 + 1500" -> "1500": one value for every lane is said once (the
 * lane count is an item of its own). */
static char *collapse_same(char *s)
{
	const char *first_end = strstr(s, " + ");
	if (!first_end)
		return s;
	size_t n = (size_t)(first_end - s);
	for (const char *p = first_end; p; p = strstr(p + 3, " + "))
		if (strncmp(p + 3, s, n) != 0 || (p[3 + n] && p[3 + n] != ' '))
			return s;
	s[n] = 0;
	return s;
}

/* Field `field` ("nic=rail1") of provenance line i if it is lane `lane`'s
 * ("lane.<rank>.<lane>"), into val; 0 if the line is another's. */
static int lane_field(const struct lb_table *t, size_t i, unsigned lane, const char *field,
		      char *val, size_t len)
{
	unsigned rank, l;
	int at = 0;
	if (sscanf(t->prov[i].key, "lane.%u.%u%n", &rank, &l, &at) != 2 || t->prov[i].key[at] ||
	    l != lane)
		return 0;
	size_t n = strlen(field);
	snprintf(val, len, "-");
	for (const char *f = t->prov[i].value; (f = strstr(f, field)); f += n)
		if ((f == t->prov[i].value || f[-1] == ' ') && f[n] == '=') {
			snprintf(val, len, "%.*s", (int)strcspn(f + n + 1, " "), f + n + 1);
			break;
		}
	return 1;
}

/* "rail0 + rail1": field `field` of every "lane.<rank>.<lane>" line, the
 * distinct values of each lane joined by '/', lanes by " + "; NULL if the
 * head has no lane lines. */
static char *lane_summary(const struct lb_table *t, const char *field)
{
	char *out = calloc(1, 4096);
	size_t len = 0;
	int any = 0;
	for (unsigned lane = 0; out && lane < 64; lane++) {
		size_t start = len;
		for (size_t i = 0; i < t->nprov; i++) {
			char val[256], token[260];
			if (!lane_field(t, i, lane, field, val, sizeof(val)))
				continue;
			any = 1;
			snprintf(token, sizeof(token), "/%s/", val);
			char seen[4096];
			snprintf(seen, sizeof(seen), "/%s/", len == start ? "" : out + start + (start ? 3 : 0));
			if (strstr(seen, token) || len + strlen(val) + 4 >= 4096)
				continue;
			len += (size_t)sprintf(out + len, "%s%s",
					       len == start ? (start ? " + " : "") : "/", val);
		}
	}
	if (!any) {
		free(out);
		return NULL;
	}
	return collapse_same(out);
}

/* "lb-h0 lb-h1 ...": the host.<rank> lines in order, or NULL. */
static char *host_list(const struct lb_table *t)
{
	size_t len = 0, cap = 1;
	for (size_t i = 0; i < t->nprov; i++)
		if (strncmp(t->prov[i].key, "host.", 5) == 0)
			cap += strlen(t->prov[i].value) + 1;
	if (cap == 1)
		return NULL;
	char *out = calloc(1, cap);
	for (size_t i = 0; out && i < t->nprov; i++)
		if (strncmp(t->prov[i].key, "host.", 5) == 0)
			len += (size_t)sprintf(out + len, "%s%s", len ? " " : "", t->prov[i].value);
	return out;
}

static int skipped_prov(const char *key)
{
	for (size_t i = 0; i < sizeof(prov_skipped) / sizeof(prov_skipped[0]); i++)
		if (strcmp(key, prov_skipped[i]) == 0)
			return 1;
	return strncmp(key, "host.", 5) == 0 || strncmp(key, "lane.", 5) == 0;
}

/* A provenance value of t; from a file without a head, the column of the
 * same name (ranks, lanes, transport) if there is one, else NULL: not
 * recorded, so not comparable. */
static char *prov_value(const struct lb_table *t, const char *key)
{
	if (t->nprov == 0)
		return has(t, key) ? joined_values(t, key) : NULL;
	return dup_or_none(lb_table_prov(t, key));
}

/* Every provenance key of either file (each once), then the lanes' and
 * hosts' summaries; only what both files recorded. */
static int prov_items(struct lb_cmp *c, const struct lb_table t[2])
{
	for (int f = 0; f < 2; f++)
		for (size_t i = 0; i < t[f].nprov; i++) {
			const char *key = t[f].prov[i].key;
			if (skipped_prov(key) || has_item(c, key))
				continue;
			char *a = prov_value(&t[0], key), *b = prov_value(&t[1], key);
			if (!a || !b) {
				free(a);
				free(b);
			} else if (push_item(c, key, a, b)) {
				return -1;
			}
		}
	if (!t[0].nprov || !t[1].nprov)
		return 0;
	static const char *const fields[] = { "nic", "speed_bps", "mtu", "port" };
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		char *a = lane_summary(&t[0], fields[i]), *b = lane_summary(&t[1], fields[i]);
		char name[32];
		snprintf(name, sizeof(name), "lanes.%s", fields[i]);
		if ((a || b) && push_item(c, name, a ? a : dup_or_none(NULL), b ? b : dup_or_none(NULL)))
			return -1;
	}
	char *a = host_list(&t[0]), *b = host_list(&t[1]);
	if (a || b)
		return push_item(c, "hosts", a ? a : dup_or_none(NULL), b ? b : dup_or_none(NULL));
	return 0;
}

/* The set-up columns that are not matched on and have no provenance line of
 * the same name, then differences moved first. */
static int setup_items(struct lb_cmp *c, const struct lb_table t[2])
{
	if (prov_items(c, t))
		return -1;
	for (size_t i = 0; i < sizeof(setup_cols) / sizeof(setup_cols[0]); i++) {
		const char *col = setup_cols[i];
		if ((!has(&t[0], col) && !has(&t[1], col)) || is_key(c, col) || has_item(c, col))
			continue;
		if (push_item(c, col, joined_values(&t[0], col), joined_values(&t[1], col)))
			return -1;
	}
	size_t front = 0;
	for (size_t i = 0; i < c->nitems; i++)
		if (strcmp(c->items[i].a, c->items[i].b) != 0) {
			struct lb_cmp_item it = c->items[i];
			memmove(&c->items[front + 1], &c->items[front], (i - front) * sizeof(it));
			c->items[front++] = it;
		}
	c->ndiffer = front;
	return 0;
}

/* The key columns (see compare.h); slice_bytes only with the same set. */
static int choose_keys(struct lb_cmp *c, const struct lb_table t[2])
{
	for (size_t i = 0; i < sizeof(fixed_keys) / sizeof(fixed_keys[0]); i++)
		if (has(&t[0], fixed_keys[i]) && has(&t[1], fixed_keys[i]))
			c->key[c->nkey++] = fixed_keys[i];
	for (size_t i = 0; i < sizeof(sweep_keys) / sizeof(sweep_keys[0]); i++)
		if (has(&t[0], sweep_keys[i]) && has(&t[1], sweep_keys[i]) &&
		    (count_distinct(&t[0], sweep_keys[i]) > 1 || count_distinct(&t[1], sweep_keys[i]) > 1))
			c->key[c->nkey++] = sweep_keys[i];
	c->key[c->nkey++] = "message_bytes";
	if (has(&t[0], "slice_bytes") && has(&t[1], "slice_bytes")) {
		if (same_values(t, "slice_bytes")) {
			c->key[c->nkey++] = "slice_bytes";
		} else {
			char *a = joined_values(&t[0], "slice_bytes"), *b = joined_values(&t[1], "slice_bytes");
			char note[512];
			snprintf(note, sizeof(note), "slice sizes differ (A: %s; B: %s): rows matched on "
				 "the other keys without slice_bytes", a ? a : "?", b ? b : "?");
			free(a);
			free(b);
			if (!(c->slice_note = strdup(note)))
				return -1;
		}
	}
	for (size_t i = 0; i < c->nkey; i++)
		c->shown[i] = i == 0 || strcmp(c->key[i], "message_bytes") == 0 ||
			      !same_values(t, c->key[i]) || count_distinct(&t[0], c->key[i]) > 1;
	return 0;
}

/* The kind of both files and their required columns, or an error. */
static int check_columns(struct lb_cmp *c, const struct lb_table t[2], const char *const names[2],
			 char *err, size_t len)
{
	const struct kind_cols *k[2] = { kind_of(&t[0]), kind_of(&t[1]) };
	for (int f = 0; f < 2; f++)
		if (!k[f])
			return lb_errf(err, len, "%s: not a lanebench bcast, p2p or sim CSV (no column "
				       "time_median_seconds, latency_median_seconds or sim_seconds)",
				       names[f]);
	if (k[0] != k[1])
		return lb_errf(err, len, "%s is a %s CSV, %s a %s CSV: nothing to compare", names[0],
			       k[0]->name, names[1], k[1]->name);
	const char *need[] = { k[0]->identity, "message_bytes" };
	for (int f = 0; f < 2; f++)
		for (size_t i = 0; i < 2; i++)
			if (!has(&t[f], need[i]))
				return lb_errf(err, len, "%s: no column '%s' (a %s CSV needs it to match "
					       "rows)", names[f], need[i], k[0]->name);
	c->kind = k[0]->kind;
	c->time_col = k[0]->time;
	int spread = has(&t[0], k[0]->low) && has(&t[1], k[0]->low);
	c->low_col = spread ? k[0]->low : NULL;
	c->high_col = !spread ? NULL : has(&t[0], k[0]->high) && has(&t[1], k[0]->high) ?
		      k[0]->high : has(&t[0], k[0]->high_fallback) && has(&t[1], k[0]->high_fallback) ?
		      k[0]->high_fallback : NULL;
	if (!c->high_col)
		c->low_col = NULL;
	c->spread = !c->high_col ? "none" : strstr(c->high_col, "p99") ? "min..p99" : "min..max";
	return 0;
}

/* The row's key cells joined by '\x1f', for matching; caller frees. */
static char *match_key(const struct lb_cmp *c, const struct lb_table *t, size_t row)
{
	size_t len = 1;
	for (size_t i = 0; i < c->nkey; i++)
		len += strlen(lb_table_cell(t, row, lb_table_col(t, c->key[i]))) + 1;
	char *s = calloc(1, len);
	for (size_t i = 0; s && i < c->nkey; i++) {
		strcat(s, lb_table_cell(t, row, lb_table_col(t, c->key[i])));
		strcat(s, "\x1f");
	}
	return s;
}

/* "multilane root 3 1M": the shown key columns of a row; without the
 * message size when with_size is 0 (the row's group). */
static char *row_label(const struct lb_cmp *c, const struct lb_table *t, size_t row, int with_size)
{
	char out[512] = "";
	size_t len = 0;
	for (size_t i = 0; i < c->nkey && len < sizeof(out) - 64; i++) {
		int size = strcmp(c->key[i], "message_bytes") == 0;
		if (!c->shown[i] || (size && !with_size))
			continue;
		char v[64];
		show_value(c->key[i], lb_table_cell(t, row, lb_table_col(t, c->key[i])), v, sizeof(v));
		int bare = size || strcmp(c->key[i], "collective") == 0 ||
			   strcmp(c->key[i], "algorithm") == 0;
		const char *name = strcmp(c->key[i], "slice_bytes") == 0 ? "slice" : c->key[i];
		len += (size_t)snprintf(out + len, sizeof(out) - len, "%s%s%s%s", len ? " " : "",
					bare ? "" : name, bare ? "" : " ", v);
	}
	return strdup(out);
}

/* Two rows of one file with the same key: an error naming both lines. */
static int check_duplicates(const struct lb_cmp *c, const struct lb_table *t, const char *name,
			    char *const *keys, char *err, size_t len)
{
	for (size_t r = 0; r < t->nrows; r++)
		for (size_t s = r + 1; s < t->nrows; s++) {
			if (strcmp(keys[r], keys[s]) != 0)
				continue;
			char *label = row_label(c, t, r, 1);
			lb_errf(err, len, "%s: lines %zu and %zu are both %s (matched on %s%s): "
				"compare needs one row per key; split the file or drop one%s%s",
				name, t->lines[r], t->lines[s], label ? label : "?",
				c->nkey > 1 ? c->key[0] : "", c->nkey > 1 ? " and size" : "",
				c->slice_note ? "; " : "", c->slice_note ? c->slice_note : "");
			free(label);
			return -1;
		}
	return 0;
}

static double number(const struct lb_table *t, size_t row, const char *col, double fallback)
{
	int i = col ? lb_table_col(t, col) : -1;
	if (i < 0)
		return fallback;
	const char *s = lb_table_cell(t, row, i);
	char *end;
	double v = strtod(s, &end);
	return end != s && !*end && isfinite(v) ? v : fallback;
}

static struct lb_cmp_time time_of(const struct lb_cmp *c, const struct lb_table *t, size_t row)
{
	double mid = number(t, row, c->time_col, NAN);
	return (struct lb_cmp_time){ mid, number(t, row, c->low_col, mid),
				     number(t, row, c->high_col, mid) };
}

/* Within noise when the spreads [low, high] overlap: then the values the
 * two runs took are consistent with one and the same distribution's
 * range, equivalently the ratio range [B.low/A.high, B.high/A.low]
 * contains 1.  Exact times (sim) differ whenever they are not equal. */
static enum lb_cmp_verdict verdict(struct lb_cmp_time a, struct lb_cmp_time b)
{
	if (b.high < a.low)
		return LB_CMP_FASTER;
	if (b.low > a.high)
		return LB_CMP_SLOWER;
	return LB_CMP_NOISE;
}

static long find_group(struct lb_cmp *c, char *label)
{
	for (size_t i = 0; i < c->nsummary; i++)
		if (strcmp(c->summary[i].group, label) == 0) {
			free(label);
			return (long)i;
		}
	struct lb_cmp_summary *s = realloc(c->summary, (c->nsummary + 1) * sizeof(*s));
	if (!s || !label) {
		c->summary = s ? s : c->summary;
		free(label);
		return -1;
	}
	c->summary = s;
	s[c->nsummary] = (struct lb_cmp_summary){ .group = label };
	return (long)c->nsummary++;
}

static int add_row(struct lb_cmp *c, const struct lb_table t[2], size_t ra, size_t rb)
{
	struct lb_cmp_row *rows = realloc(c->rows, (c->nrows + 1) * sizeof(*rows));
	if (!rows)
		return -1;
	c->rows = rows;
	struct lb_cmp_row *r = &rows[c->nrows];
	*r = (struct lb_cmp_row){ .ra = ra, .rb = rb, .a = time_of(c, &t[0], ra),
				  .b = time_of(c, &t[1], rb) };
	r->bytes = (unsigned long long)number(&t[0], ra, "message_bytes", 0);
	r->ratio = r->b.mid / r->a.mid;
	r->verdict = verdict(r->a, r->b);
	long g = find_group(c, row_label(c, &t[0], ra, 0));
	if (!(r->label = row_label(c, &t[0], ra, 1)) || g < 0)
		return -1;
	r->group = (size_t)g;
	c->nrows++;
	return 0;
}

static int add_only(struct lb_cmp *c, int f, const struct lb_table *t, size_t row)
{
	char **v = realloc(c->only[f], (c->nonly[f] + 1) * sizeof(*v));
	if (!v)
		return -1;
	c->only[f] = v;
	return (v[c->nonly[f]++] = row_label(c, t, row, 1)) ? 0 : -1;
}

/* Pairs rows with equal keys; the rest are "only in A/B". */
static int match_rows(struct lb_cmp *c, const struct lb_table t[2], char **keys[2])
{
	char *used = calloc(t[1].nrows + 1, 1);
	int rc = used ? 0 : -1;
	for (size_t r = 0; rc == 0 && r < t[0].nrows; r++) {
		size_t s = 0;
		while (s < t[1].nrows && strcmp(keys[0][r], keys[1][s]) != 0)
			s++;
		if (s < t[1].nrows)
			used[s] = 1;
		rc = s < t[1].nrows ? add_row(c, t, r, s) : add_only(c, 0, &t[0], r);
	}
	for (size_t s = 0; rc == 0 && s < t[1].nrows; s++)
		if (!used[s])
			rc = add_only(c, 1, &t[1], s);
	free(used);
	return rc;
}

static void summarise(struct lb_cmp *c)
{
	for (size_t g = 0; g < c->nsummary; g++) {
		struct lb_cmp_summary *s = &c->summary[g];
		double logs = 0;
		size_t n = 0;
		for (size_t i = 0; i < c->nrows; i++) {
			const struct lb_cmp_row *r = &c->rows[i];
			if (r->group != g)
				continue;
			s->rows++;
			s->faster += r->verdict == LB_CMP_FASTER;
			s->slower += r->verdict == LB_CMP_SLOWER;
			s->noise += r->verdict == LB_CMP_NOISE;
			if (isfinite(r->ratio) && r->ratio > 0) {
				logs += log(r->ratio);
				n++;
			}
		}
		s->geomean = n ? exp(logs / (double)n) : NAN;
	}
}

static char **row_keys(const struct lb_cmp *c, const struct lb_table *t)
{
	char **keys = calloc(t->nrows + 1, sizeof(*keys));
	for (size_t r = 0; keys && r < t->nrows; r++)
		if (!(keys[r] = match_key(c, t, r))) {
			while (r-- > 0)
				free(keys[r]);
			free(keys);
			return NULL;
		}
	return keys;
}

static void free_keys(char **keys, size_t n)
{
	for (size_t i = 0; keys && i < n; i++)
		free(keys[i]);
	free(keys);
}

int lb_cmp_build(const struct lb_table t[2], const char *const names[2], struct lb_cmp *c,
		 char *err, size_t len)
{
	memset(c, 0, sizeof(*c));
	if (check_columns(c, t, names, err, len))
		return -1;
	if (choose_keys(c, t) || setup_items(c, t))
		return lb_errf(err, len, "out of memory");
	char **keys[2] = { row_keys(c, &t[0]), row_keys(c, &t[1]) };
	int rc = !keys[0] || !keys[1] ? lb_errf(err, len, "out of memory") : 0;
	for (int f = 0; rc == 0 && f < 2; f++)
		rc = check_duplicates(c, &t[f], names[f], keys[f], err, len);
	if (rc == 0 && match_rows(c, t, keys))
		rc = lb_errf(err, len, "out of memory");
	free_keys(keys[0], t[0].nrows);
	free_keys(keys[1], t[1].nrows);
	if (rc == 0)
		summarise(c);
	return rc;
}

void lb_cmp_describe_keys(const struct lb_cmp *c, const struct lb_table *t, char *buf, size_t len)
{
	struct lb_cmp groups = *c; /* the key choice; its own groups below */
	groups.summary = NULL;
	groups.nsummary = 0;
	size_t used = 0;
	buf[0] = 0;
	for (size_t r = 0; r < t->nrows; r++)
		find_group(&groups, row_label(c, t, r, 0));
	for (size_t g = 0; g < groups.nsummary && used < len; g++) {
		double lo = INFINITY, hi = 0;
		size_t n = 0;
		for (size_t r = 0; r < t->nrows; r++) {
			char *label = row_label(c, t, r, 0);
			if (label && strcmp(label, groups.summary[g].group) == 0) {
				double m = number(t, r, "message_bytes", 0);
				lo = fmin(lo, m);
				hi = fmax(hi, m);
				n++;
			}
			free(label);
		}
		char a[24], b[24];
		lb_format_size((unsigned long long)lo, a, sizeof(a));
		lb_format_size((unsigned long long)hi, b, sizeof(b));
		used += (size_t)snprintf(buf + used, len - used, "%s%s %s..%s (%zu rows)", g ? "; " : "",
					 groups.summary[g].group, a, b, n);
		free(groups.summary[g].group);
	}
	free(groups.summary);
	if (!t->nrows)
		snprintf(buf, len, "no rows");
}

void lb_cmp_free(struct lb_cmp *c)
{
	for (size_t i = 0; i < c->nitems; i++) {
		free(c->items[i].name);
		free(c->items[i].a);
		free(c->items[i].b);
	}
	for (size_t i = 0; i < c->nrows; i++)
		free(c->rows[i].label);
	for (int f = 0; f < 2; f++) {
		for (size_t i = 0; i < c->nonly[f]; i++)
			free(c->only[f][i]);
		free(c->only[f]);
	}
	for (size_t i = 0; i < c->nsummary; i++)
		free(c->summary[i].group);
	free(c->items);
	free(c->rows);
	free(c->summary);
	free(c->slice_note);
	memset(c, 0, sizeof(*c));
}
