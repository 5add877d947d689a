#include "compare.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
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
static const char *const fixed_keys[] = { "collective", "algorithm", "root", "lane", "auto_source" };
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

/* Integer columns: checked on every row before anything reads them, so
 * that a size of -5, 1e300 or nan is refused, naming its cell. */
static const struct int_col {
	const char *name;
	uint64_t min, max;
} int_cols[] = {
	{ "message_bytes", 1, INT64_MAX }, { "slice_bytes", 1, INT64_MAX },
	{ "root", 0, UINT32_MAX },         { "lane", 0, UINT32_MAX },
	{ "ranks", 1, UINT32_MAX },        { "lanes", 1, UINT32_MAX },
};

/* printf into a string as long as what it writes; NULL out of memory. */
__attribute__((format(printf, 1, 2))) static char *textf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
	if (s) {
		va_start(ap, fmt);
		vsnprintf(s, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	return s;
}

/* The string an open_memstream wrote, or NULL (freed) if writing failed. */
static char *closed(FILE *f, char **s)
{
	int bad = ferror(f);
	if (fclose(f) || bad) {
		free(*s);
		*s = NULL;
	}
	return *s;
}

struct tagged {
	const char *s;
	size_t i;
};

static int by_text_then_index(const void *x, const void *y)
{
	const struct tagged *a = x, *b = y;
	int c = strcmp(a->s, b->s);
	return c ? c : (a->i > b->i) - (a->i < b->i);
}

/* Numbers the equal strings of s[0..n) in order of first appearance: id[i]
 * is the group of s[i], first[g] (if first is not NULL) the index of group
 * g's first string.  Sorting keeps this n log n for files of any length.
 * Returns the number of groups, or -1 out of memory. */
static long group_equal(const char *const *s, size_t n, size_t *id, size_t *first)
{
	struct tagged *v = malloc((n + 1) * sizeof(*v));
	size_t *run_at = calloc(n + 1, sizeof(*run_at)); /* run number + 1 at a run's first */
	size_t *group = malloc((n + 1) * sizeof(*group)); /* group of each run */
	long ngroups = -1;
	if (v && run_at && group) {
		for (size_t i = 0; i < n; i++)
			v[i] = (struct tagged){ s[i], i };
		qsort(v, n, sizeof(*v), by_text_then_index);
		size_t runs = 0;
		for (size_t j = 0; j < n; j++)
			if (j == 0 || strcmp(v[j].s, v[j - 1].s) != 0)
				run_at[v[j].i] = ++runs;
		ngroups = 0;
		for (size_t i = 0; i < n; i++)
			if (run_at[i]) {
				group[run_at[i] - 1] = (size_t)ngroups;
				if (first)
					first[ngroups] = i;
				ngroups++;
			}
		for (size_t j = 0, run = 0; j < n; j++) {
			if (run_at[v[j].i])
				run = run_at[v[j].i] - 1;
			id[v[j].i] = group[run];
		}
	}
	free(v);
	free(run_at);
	free(group);
	return ngroups;
}

/* The distinct values of column col in t, first-seen order, as pointers
 * into t; *n of them.  NULL only when out of memory. */
static const char **distinct(const struct lb_table *t, const char *col, size_t *n)
{
	int c = lb_table_col(t, col);
	size_t rows = c >= 0 ? t->nrows : 0;
	const char **cells = calloc(rows + 1, sizeof(*cells));
	size_t *id = calloc(rows + 1, sizeof(*id)), *first = calloc(rows + 1, sizeof(*first));
	long groups = -1;
	for (size_t r = 0; cells && r < rows; r++)
		cells[r] = lb_table_cell(t, r, c);
	if (cells && id && first)
		groups = group_equal(cells, rows, id, first);
	for (long g = 0; g < groups; g++)
		cells[g] = cells[first[g]]; /* first[g] >= g: not yet overwritten */
	free(id);
	free(first);
	if (groups < 0) {
		free(cells);
		return NULL;
	}
	*n = (size_t)groups;
	return cells;
}

static size_t count_distinct(const struct lb_table *t, const char *col)
{
	size_t n = 0;
	free(distinct(t, col, &n));
	return n;
}

/* Same set of values of col in both files: every value of both, grouped,
 * falls in a group that each file has. */
static int same_values(const struct lb_table t[2], const char *col)
{
	size_t n[2] = { 0, 0 };
	const char **v[2] = { distinct(&t[0], col, &n[0]), distinct(&t[1], col, &n[1]) };
	const char **both = v[0] && v[1] ? calloc(n[0] + n[1] + 1, sizeof(*both)) : NULL;
	size_t *id = calloc(n[0] + n[1] + 1, sizeof(*id));
	int same = both && id && n[0] == n[1];
	if (same) {
		memcpy(both, v[0], n[0] * sizeof(*both));
		memcpy(both + n[0], v[1], n[1] * sizeof(*both));
		same = group_equal(both, n[0] + n[1], id, NULL) == (long)n[0];
	}
	free(both);
	free(id);
	free(v[0]);
	free(v[1]);
	return same;
}

static int is_size_col(const char *col)
{
	return strcmp(col, "message_bytes") == 0 || strcmp(col, "slice_bytes") == 0;
}

/* A cell as shown to a reader: sizes as 64K, rates in Mbit/s. */
static void show_value(FILE *out, const char *col, const char *v)
{
	char buf[32], *end;
	uint64_t size;
	double x = strtod(v, &end);
	if (!*v)
		fputs("(empty)", out);
	else if (is_size_col(col) && lb_parse_uint(v, 0, UINT64_MAX, &size, NULL, 0) == 0) {
		lb_format_size(size, buf, sizeof(buf));
		fputs(buf, out);
	} else if (strstr(col, "bytes_per_second") && !*end && isfinite(x))
		fprintf(out, "%.4g Mbit/s", x * 8 / 1e6);
	else
		fputs(v, out);
}

/* "64K, 256K": the distinct values of col in t as shown, or "(no column)". */
static char *joined_values(const struct lb_table *t, const char *col)
{
	size_t n = 0, len;
	char *out = NULL;
	const char **v = distinct(t, col, &n);
	FILE *f = v ? open_memstream(&out, &len) : NULL;
	if (!f) {
		free(v);
		return NULL;
	}
	if (!has(t, col))
		fputs("(no column)", f);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ", " : "", f);
		show_value(f, col, v[i]);
	}
	free(v);
	return closed(f, &out);
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

/* Lane of provenance line i if it is a lane's ("lane.<rank>.<lane>"),
 * else -1. */
static long lane_of(const struct lb_table *t, size_t i)
{
	unsigned rank, lane;
	int at = 0;
	if (sscanf(t->prov[i].key, "lane.%u.%u%n", &rank, &lane, &at) != 2 || t->prov[i].key[at])
		return -1;
	return (long)lane;
}

/* Field `field` ("nic=rail1") of provenance line i, "-" if it has none. */
static char *lane_field(const struct lb_table *t, size_t i, const char *field)
{
	size_t n = strlen(field);
	for (const char *f = t->prov[i].value; (f = strstr(f, field)); f += n)
		if ((f == t->prov[i].value || f[-1] == ' ') && f[n] == '=')
			return strndup(f + n + 1, strcspn(f + n + 1, " "));
	return strdup("-");
}

struct lane_value {
	long lane;
	size_t line; /* provenance line: keeps file order within a lane */
	char *value;
};

static int by_lane_then_line(const void *x, const void *y)
{
	const struct lane_value *a = x, *b = y;
	if (a->lane != b->lane)
		return a->lane < b->lane ? -1 : 1;
	return (a->line > b->line) - (a->line < b->line);
}

/* One lane's values v[0..n), each once in file order, joined by '/'. */
static int put_lane(FILE *f, const struct lane_value *v, size_t n)
{
	const char **s = calloc(n + 1, sizeof(*s));
	size_t *id = calloc(n + 1, sizeof(*id)), *first = calloc(n + 1, sizeof(*first));
	long groups = s && id && first ? 0 : -1;
	for (size_t i = 0; groups == 0 && i < n; i++)
		s[i] = v[i].value;
	if (groups == 0)
		groups = group_equal(s, n, id, first);
	for (long g = 0; g < groups; g++)
		fprintf(f, "%s%s", g ? "/" : "", s[first[g]]);
	free(s);
	free(id);
	free(first);
	return groups < 0 ? -1 : 0;
}

/* The (lane, line, value of `field`) of every "lane.<rank>.<lane>" line,
 * sorted by lane; *n of them; NULL out of memory. */
static struct lane_value *lane_values(const struct lb_table *t, const char *field, size_t *n)
{
	struct lane_value *v = calloc(t->nprov + 1, sizeof(*v));
	*n = 0;
	for (size_t i = 0; v && i < t->nprov; i++) {
		long lane = lane_of(t, i);
		if (lane < 0)
			continue;
		v[*n] = (struct lane_value){ lane, i, lane_field(t, i, field) };
		if (!v[(*n)++].value) {
			while ((*n)-- > 0)
				free(v[*n].value);
			free(v);
			return NULL;
		}
	}
	if (v)
		qsort(v, *n, sizeof(*v), by_lane_then_line);
	return v;
}

/* "rail0 + rail1": field `field` of every "lane.<rank>.<lane>" line, the
 * distinct values of each lane joined by '/', lanes by " + "; NULL if the
 * head has no lane lines (or out of memory). */
static char *lane_summary(const struct lb_table *t, const char *field)
{
	size_t n, len;
	char *out = NULL;
	struct lane_value *v = lane_values(t, field, &n);
	FILE *f = v && n ? open_memstream(&out, &len) : NULL;
	int rc = f ? 0 : -1;
	for (size_t i = 0, end; rc == 0 && i < n; i = end) {
		for (end = i; end < n && v[end].lane == v[i].lane;)
			end++;
		fputs(i ? " + " : "", f);
		rc = put_lane(f, v + i, end - i);
	}
	for (size_t i = 0; v && i < n; i++)
		free(v[i].value);
	free(v);
	if (!f)
		return NULL;
	if (!closed(f, &out) || rc) {
		free(out);
		return NULL;
	}
	return collapse_same(out);
}

/* "lb-h0 lb-h1 ...": the host.<rank> lines in order, or NULL. */
static char *host_list(const struct lb_table *t)
{
	size_t len, hosts = 0;
	char *out = NULL;
	FILE *f = open_memstream(&out, &len);
	for (size_t i = 0; f && i < t->nprov; i++)
		if (strncmp(t->prov[i].key, "host.", 5) == 0)
			fprintf(f, "%s%s", hosts++ ? " " : "", t->prov[i].value);
	if (!f || !closed(f, &out) || !hosts) {
		free(out);
		return NULL;
	}
	return out;
}

static int skipped_prov(const char *key)
{
	for (size_t i = 0; i < sizeof(prov_skipped) / sizeof(prov_skipped[0]); i++)
		if (strcmp(key, prov_skipped[i]) == 0)
			return 1;
	return strncmp(key, "host.", 5) == 0 || strncmp(key, "lane.", 5) == 0;
}

/* The value of provenance line `line` of t (SIZE_MAX: t has no line of
 * that key); from a file without a head, the column of the same name
 * (ranks, lanes, transport) if there is one, else NULL: not recorded, so
 * not comparable. */
static char *prov_value(const struct lb_table *t, size_t line, const char *key)
{
	if (t->nprov == 0)
		return has(t, key) ? joined_values(t, key) : NULL;
	return dup_or_none(line == SIZE_MAX ? NULL : t->prov[line].value);
}

/* Each provenance key of either file once (A's first, in file order), A's
 * and B's value of it (each file's last line of the key); only what both
 * files recorded.  Keys are grouped by sorting: n log n in the lines. */
static int prov_key_items(struct lb_cmp *c, const struct lb_table t[2])
{
	size_t na = t[0].nprov, n = na + t[1].nprov;
	const char **keys = calloc(n + 1, sizeof(*keys));
	size_t *id = calloc(n + 1, sizeof(*id)), *first = calloc(n + 1, sizeof(*first));
	size_t *last[2] = { malloc((n + 1) * sizeof(size_t)), malloc((n + 1) * sizeof(size_t)) };
	long groups = -1;
	for (size_t i = 0; keys && i < n; i++)
		keys[i] = i < na ? t[0].prov[i].key : t[1].prov[i - na].key;
	if (keys && id && first && last[0] && last[1])
		groups = group_equal(keys, n, id, first);
	for (long g = 0; g < groups; g++)
		last[0][g] = last[1][g] = SIZE_MAX;
	for (size_t i = 0; groups >= 0 && i < n; i++)
		last[i >= na][id[i]] = i < na ? i : i - na; /* the last line wins */
	int rc = groups < 0 ? -1 : 0;
	for (long g = 0; rc == 0 && g < groups; g++) {
		const char *key = keys[first[g]];
		if (skipped_prov(key))
			continue;
		char *a = prov_value(&t[0], last[0][g], key), *b = prov_value(&t[1], last[1][g], key);
		if (!a || !b) {
			free(a);
			free(b);
		} else {
			rc = push_item(c, key, a, b);
		}
	}
	free(keys);
	free(id);
	free(first);
	free(last[0]);
	free(last[1]);
	return rc;
}

/* Every provenance key of either file, then the lanes' and hosts'
 * summaries. */
static int prov_items(struct lb_cmp *c, const struct lb_table t[2])
{
	if (prov_key_items(c, t))
		return -1;
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

/* The items whose values differ first, each part in its order. */
static int differences_first(struct lb_cmp *c)
{
	if (c->nitems == 0)
		return 0;
	struct lb_cmp_item *sorted = malloc(c->nitems * sizeof(*sorted));
	if (!sorted)
		return -1;
	size_t n = 0;
	for (int differ = 1; differ >= 0; differ--)
		for (size_t i = 0; i < c->nitems; i++)
			if ((strcmp(c->items[i].a, c->items[i].b) != 0) == differ)
				sorted[n++] = c->items[i];
	c->ndiffer = 0;
	while (c->ndiffer < n && strcmp(sorted[c->ndiffer].a, sorted[c->ndiffer].b) != 0)
		c->ndiffer++;
	memcpy(c->items, sorted, n * sizeof(*sorted));
	free(sorted);
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
	return differences_first(c);
}

/* The key columns (see compare.h) but slice_bytes: see slice_is_key. */
static void choose_keys(struct lb_cmp *c, const struct lb_table t[2])
{
	for (size_t i = 0; i < sizeof(fixed_keys) / sizeof(fixed_keys[0]); i++)
		if (has(&t[0], fixed_keys[i]) && has(&t[1], fixed_keys[i]))
			c->key[c->nkey++] = fixed_keys[i];
	for (size_t i = 0; i < sizeof(sweep_keys) / sizeof(sweep_keys[0]); i++)
		if (has(&t[0], sweep_keys[i]) && has(&t[1], sweep_keys[i]) &&
		    (count_distinct(&t[0], sweep_keys[i]) > 1 || count_distinct(&t[1], sweep_keys[i]) > 1))
			c->key[c->nkey++] = sweep_keys[i];
	c->key[c->nkey++] = "message_bytes";
}

/* A key column is named in row labels when it varies: in a file, or
 * between the files. */
static void choose_shown(struct lb_cmp *c, const struct lb_table t[2])
{
	for (size_t i = 0; i < c->nkey; i++)
		c->shown[i] = i == 0 || strcmp(c->key[i], "message_bytes") == 0 ||
			      !same_values(t, c->key[i]) || count_distinct(&t[0], c->key[i]) > 1;
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

/* Row's cell of key column i as matched and shown.  An -a auto row names
 * the broadcast it picked, so it is told from that broadcast's own row by
 * auto_source; which source picked it (table or model) is not the key:
 * a tuned run pairs with an untuned one. */
static const char *key_cell(const struct lb_cmp *c, const struct lb_table *t, size_t row, size_t i)
{
	const char *cell = lb_table_cell(t, row, lb_table_col(t, c->key[i]));
	return strcmp(c->key[i], "auto_source") == 0 && *cell ? "auto" : cell;
}

/* The row's key cells, each as "<length>:<text>", for matching: two rows
 * get the same string only when every cell is equal, whatever bytes the
 * cells hold (joined by a separator, a cell holding it could pass for
 * two).  Caller frees. */
static char *match_key(const struct lb_cmp *c, const struct lb_table *t, size_t row)
{
	char *s = NULL;
	size_t len;
	FILE *f = open_memstream(&s, &len);
	for (size_t i = 0; f && i < c->nkey; i++) {
		const char *cell = key_cell(c, t, row, i);
		fprintf(f, "%zu:%s", strlen(cell), cell);
	}
	return f ? closed(f, &s) : NULL;
}

/* "multilane root 3 1M": the shown key columns of a row; without the
 * message size when with_size is 0 (the row's group). */
static char *row_label(const struct lb_cmp *c, const struct lb_table *t, size_t row, int with_size)
{
	size_t len, shown = 0;
	char *out = NULL;
	FILE *f = open_memstream(&out, &len);
	for (size_t i = 0; f && i < c->nkey; i++) {
		int size = strcmp(c->key[i], "message_bytes") == 0;
		if (!c->shown[i] || (size && !with_size))
			continue;
		int bare = size || strcmp(c->key[i], "collective") == 0 ||
			   strcmp(c->key[i], "algorithm") == 0;
		const char *name = strcmp(c->key[i], "slice_bytes") == 0 ? "slice" : c->key[i];
		fprintf(f, "%s%s%s", shown++ ? " " : "", bare ? "" : name, bare ? "" : " ");
		show_value(f, c->key[i], key_cell(c, t, row, i));
	}
	return f ? closed(f, &out) : NULL;
}

/* Every integer column of t holds whole numbers in its range, or an error
 * naming the first cell that does not. */
static int check_integers(const struct lb_table *t, char *err, size_t len)
{
	for (size_t i = 0; i < sizeof(int_cols) / sizeof(int_cols[0]); i++) {
		int col = lb_table_col(t, int_cols[i].name);
		uint64_t v;
		for (size_t r = 0; col >= 0 && r < t->nrows; r++)
			if (lb_table_uint(t, r, col, int_cols[i].min, int_cols[i].max, &v, err, len))
				return -1;
	}
	return 0;
}

/* The message size of a row (checked by check_integers). */
static uint64_t size_of(const struct lb_table *t, size_t row)
{
	uint64_t v = 0;
	lb_table_uint(t, row, lb_table_col(t, "message_bytes"), 0, UINT64_MAX, &v, NULL, 0);
	return v;
}

/* The slice of a row (checked by check_integers); 0 without the column. */
static uint64_t slice_of(const struct lb_table *t, size_t row)
{
	uint64_t v = 0;
	int col = lb_table_col(t, "slice_bytes");
	if (col >= 0)
		lb_table_uint(t, row, col, 0, UINT64_MAX, &v, NULL, 0);
	return v;
}

/* Two rows of one file with the same key: an error naming both lines (the
 * first row that has a later twin, and its first twin). */
static int check_duplicates(const struct lb_cmp *c, const struct lb_table *t, const char *name,
			    char *const *keys, char *err, size_t len)
{
	size_t n = t->nrows, *id = calloc(n + 1, sizeof(*id)), *first = calloc(n + 1, sizeof(*first));
	size_t *second = malloc((n + 1) * sizeof(*second));
	long groups = id && first && second ? group_equal((const char *const *)keys, n, id, first) : -1;
	int rc = groups < 0 ? lb_errf(err, len, "out of memory") : 0;
	for (long g = 0; g < groups; g++)
		second[g] = SIZE_MAX;
	for (size_t r = 0; rc == 0 && r < n; r++)
		if (first[id[r]] != r && second[id[r]] == SIZE_MAX)
			second[id[r]] = r;
	for (long g = 0; rc == 0 && g < groups; g++) {
		if (second[g] == SIZE_MAX)
			continue;
		char *label = row_label(c, t, first[g], 1);
		rc = lb_errf(err, len, "%s: lines %zu and %zu are both %s (matched on %s%s): "
			     "compare needs one row per key; split the file or drop one",
			     name, t->lines[first[g]], t->lines[second[g]], label ? label : "?",
			     c->nkey > 1 ? c->key[0] : "", c->nkey > 1 ? " and size" : "");
		free(label);
	}
	free(id);
	free(first);
	free(second);
	return rc;
}

/* One time value of a row, which the verdict can rest on: a finite number
 * above 0.  NAN, with the reason in *why (the first one only), if not. */
static double time_value(const struct lb_table *t, size_t row, const char *col, char **why)
{
	char msg[512];
	double v = NAN;
	int i = lb_table_col(t, col);
	if (lb_table_finite(t, row, i, &v, msg, sizeof(msg)) == 0 && !(v > 0)) {
		lb_table_cell_error(t, row, i, msg, sizeof(msg), "not above 0: no time to judge");
		v = NAN;
	}
	if (isnan(v) && !*why)
		*why = strdup(msg);
	return v;
}

/* A row's time in one file: the median and its spread, each checked
 * (missing, nan, inf, 0 or out of order: *why says which and where). */
static struct lb_cmp_time time_of(const struct lb_cmp *c, const struct lb_table *t, size_t row,
				  char **why)
{
	double mid = time_value(t, row, c->time_col, why);
	struct lb_cmp_time v = { mid, mid, mid };
	if (c->low_col)
		v.low = time_value(t, row, c->low_col, why);
	if (c->high_col)
		v.high = time_value(t, row, c->high_col, why);
	char msg[512];
	if (!*why && (v.low > v.mid || v.high < v.mid)) {
		int col = lb_table_col(t, v.low > v.mid ? c->low_col : c->high_col);
		lb_table_cell_error(t, row, col, msg, sizeof(msg), v.low > v.mid ?
				    "above the median: not a spread around it" :
				    "below the median: not a spread around it");
		*why = strdup(msg);
	}
	return v;
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

/* Row ra of A against row rb of B, appended to c->rows (sized for every
 * row of A).  A row whose figures cannot be judged says why. */
static int add_row(struct lb_cmp *c, const struct lb_table t[2], size_t ra, size_t rb)
{
	struct lb_cmp_row *r = &c->rows[c->nrows];
	*r = (struct lb_cmp_row){ .ra = ra, .rb = rb };
	r->a = time_of(c, &t[0], ra, &r->why);
	r->b = time_of(c, &t[1], rb, &r->why);
	r->bytes = size_of(&t[0], ra);
	if (!is_key(c, "slice_bytes") && has(&t[0], "slice_bytes") && has(&t[1], "slice_bytes")) {
		r->slice[0] = slice_of(&t[0], ra);
		r->slice[1] = slice_of(&t[1], rb);
	}
	r->ratio = r->b.mid / r->a.mid;
	r->verdict = r->why ? LB_CMP_UNJUDGED : verdict(r->a, r->b);
	c->nrows++;
	return (r->label = row_label(c, &t[0], ra, 1)) ? 0 : -1;
}

static int add_only(struct lb_cmp *c, int f, const struct lb_table *t, size_t row)
{
	return (c->only[f][c->nonly[f]++] = row_label(c, t, row, 1)) ? 0 : -1;
}

/* Pairs rows with equal keys (grouping A's and B's keys together: equal
 * keys share a group); the rest are "only in A/B". */
static int match_rows(struct lb_cmp *c, const struct lb_table t[2], char **keys[2])
{
	size_t na = t[0].nrows, nb = t[1].nrows, n = na + nb;
	const char **all = calloc(n + 1, sizeof(*all));
	size_t *id = calloc(n + 1, sizeof(*id)), *in_b = malloc((n + 1) * sizeof(*in_b));
	char *in_a = calloc(n + 1, 1);
	c->rows = calloc(na + 1, sizeof(*c->rows));
	c->only[0] = calloc(na + 1, sizeof(char *));
	c->only[1] = calloc(nb + 1, sizeof(char *));
	long groups = -1;
	if (all && id && in_b && in_a && c->rows && c->only[0] && c->only[1]) {
		memcpy(all, keys[0], na * sizeof(*all));
		memcpy(all + na, keys[1], nb * sizeof(*all));
		groups = group_equal(all, n, id, NULL);
	}
	int rc = groups < 0 ? -1 : 0;
	for (long g = 0; g < groups; g++)
		in_b[g] = SIZE_MAX;
	for (size_t s = 0; rc == 0 && s < nb; s++)
		in_b[id[na + s]] = s; /* one each: check_duplicates ran */
	for (size_t r = 0; rc == 0 && r < na; r++) {
		in_a[id[r]] = 1;
		rc = in_b[id[r]] != SIZE_MAX ? add_row(c, t, r, in_b[id[r]]) : add_only(c, 0, &t[0], r);
	}
	for (size_t s = 0; rc == 0 && s < nb; s++)
		if (!in_a[id[na + s]])
			rc = add_only(c, 1, &t[1], s);
	free(all);
	free(id);
	free(in_b);
	free(in_a);
	return rc;
}

/* Groups of labels (each row's key without its size), first-seen order:
 * group[i] of label i, and the groups' labels (taken from labels; the
 * others freed).  Returns how many groups, or -1 out of memory. */
static long group_labels(char **labels, size_t n, size_t *group, char ***names)
{
	size_t *first = calloc(n + 1, sizeof(*first));
	long groups = -1;
	*names = NULL;
	for (size_t i = 0; i < n && labels; i++)
		if (!labels[i])
			goto out;
	if (first && labels)
		groups = group_equal((const char *const *)labels, n, group, first);
	*names = groups >= 0 ? calloc((size_t)groups + 1, sizeof(**names)) : NULL;
	if (!*names)
		groups = -1;
	for (long g = 0; g < groups; g++) {
		(*names)[g] = labels[first[g]];
		labels[first[g]] = NULL;
	}
out:
	for (size_t i = 0; labels && i < n; i++)
		free(labels[i]);
	free(labels);
	free(first);
	return groups;
}

/* Row i's verdict into its group's counts, its B/A into the group's sum
 * of logarithms (judged rows only). */
static void tally(struct lb_cmp *c, size_t i, double *logs, size_t *logged)
{
	const struct lb_cmp_row *r = &c->rows[i];
	struct lb_cmp_summary *s = &c->summary[r->group];
	s->rows++;
	s->faster += r->verdict == LB_CMP_FASTER;
	s->slower += r->verdict == LB_CMP_SLOWER;
	s->noise += r->verdict == LB_CMP_NOISE;
	s->unjudged += r->verdict == LB_CMP_UNJUDGED;
	if (r->verdict != LB_CMP_UNJUDGED && isfinite(log(r->ratio))) {
		logs[r->group] += log(r->ratio);
		logged[r->group]++;
	}
}

/* The rows' groups (c->summary, in order of first appearance) and, per
 * group, the verdicts and the geometric mean of the judged rows' B/A. */
static int summarise(struct lb_cmp *c, const struct lb_table *a)
{
	char **labels = calloc(c->nrows + 1, sizeof(*labels)), **names = NULL;
	size_t *group = calloc(c->nrows + 1, sizeof(*group));
	for (size_t i = 0; labels && i < c->nrows; i++)
		labels[i] = row_label(c, a, c->rows[i].ra, 0);
	long groups = group ? group_labels(labels, c->nrows, group, &names) : -1;
	size_t n = groups > 0 ? (size_t)groups : 0;
	c->summary = groups >= 0 ? calloc(n + 1, sizeof(*c->summary)) : NULL;
	for (size_t g = 0; g < n; g++) {
		if (c->summary)
			c->summary[g].group = names[g];
		else
			free(names[g]);
	}
	c->nsummary = c->summary ? n : 0;
	double *logs = calloc(n + 1, sizeof(*logs));
	size_t *logged = calloc(n + 1, sizeof(*logged));
	int rc = c->summary && logs && logged ? 0 : -1;
	for (size_t i = 0; rc == 0 && i < c->nrows; i++) {
		c->rows[i].group = group[i];
		tally(c, i, logs, logged);
	}
	for (size_t g = 0; rc == 0 && g < n; g++)
		c->summary[g].geomean = logged[g] ? exp(logs[g] / (double)logged[g]) : NAN;
	free(names);
	free(group);
	free(logs);
	free(logged);
	return rc;
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

/* Whether t holds two slices for one key (keys without slice_bytes): an
 * explicit slice sweep, whose rows only their slice tells apart.  1, 0,
 * or -1 out of memory. */
static int several_slices(const struct lb_table *t, char *const *keys)
{
	size_t n = t->nrows, *id = calloc(n + 1, sizeof(*id)), *first = calloc(n + 1, sizeof(*first));
	long groups = id && first ? group_equal((const char *const *)keys, n, id, first) : -1;
	int sweep = groups < 0 ? -1 : 0;
	for (size_t r = 0; sweep == 0 && r < n; r++)
		sweep = slice_of(t, r) != slice_of(t, first[id[r]]);
	free(id);
	free(first);
	return sweep;
}

/* slice_bytes is a key only where a file sweeps it: --slice auto chooses
 * one slice per size, and may choose another in B (other calibration, other
 * lanes); matching on it would leave those rows unpaired and split each
 * algorithm's summary by slice.  Rebuilds keys[] when it becomes one. */
static int match_slice_if_swept(struct lb_cmp *c, const struct lb_table t[2], char **keys[2])
{
	if (!has(&t[0], "slice_bytes") || !has(&t[1], "slice_bytes"))
		return 0;
	int sweep[2] = { several_slices(&t[0], keys[0]), several_slices(&t[1], keys[1]) };
	if (sweep[0] < 0 || sweep[1] < 0)
		return -1;
	if (!sweep[0] && !sweep[1])
		return 0;
	c->key[c->nkey++] = "slice_bytes";
	for (int f = 0; f < 2; f++) {
		free_keys(keys[f], t[f].nrows);
		keys[f] = row_keys(c, &t[f]);
	}
	return keys[0] && keys[1] ? 0 : -1;
}

/* Matched rows whose slices differ: counted, and said once. */
static int note_slices(struct lb_cmp *c)
{
	for (size_t i = 0; i < c->nrows; i++)
		c->slice_differs += c->rows[i].slice[0] != c->rows[i].slice[1];
	if (!c->slice_differs)
		return 0;
	c->slice_note = textf("slice_bytes differs in %zu of %zu rows (column 'slice A -> B'): "
			      "rows are matched on the size, whatever slice each run chose",
			      c->slice_differs, c->nrows);
	return c->slice_note ? 0 : -1;
}

int lb_cmp_build(const struct lb_table t[2], const char *const names[2], struct lb_cmp *c,
		 char *err, size_t len)
{
	memset(c, 0, sizeof(*c));
	if (check_columns(c, t, names, err, len) || check_integers(&t[0], err, len) ||
	    check_integers(&t[1], err, len))
		return -1;
	choose_keys(c, t);
	char **keys[2] = { row_keys(c, &t[0]), row_keys(c, &t[1]) };
	int rc = !keys[0] || !keys[1] || match_slice_if_swept(c, t, keys) ? -1 : 0;
	if (rc == 0) {
		choose_shown(c, t);
		rc = setup_items(c, t);
	}
	if (rc)
		rc = lb_errf(err, len, "out of memory");
	for (int f = 0; rc == 0 && f < 2; f++)
		rc = check_duplicates(c, &t[f], names[f], keys[f], err, len);
	if (rc == 0 && (match_rows(c, t, keys) || summarise(c, &t[0]) || note_slices(c)))
		rc = lb_errf(err, len, "out of memory");
	free_keys(keys[0], t[0].nrows);
	free_keys(keys[1], t[1].nrows);
	return rc;
}

/* One group's message sizes, for lb_cmp_describe_keys. */
struct size_range {
	uint64_t lo, hi;
	size_t n;
};

char *lb_cmp_describe_keys(const struct lb_cmp *c, const struct lb_table *t)
{
	char **labels = calloc(t->nrows + 1, sizeof(*labels)), **names = NULL, *out = NULL;
	size_t *group = calloc(t->nrows + 1, sizeof(*group)), len;
	for (size_t r = 0; labels && r < t->nrows; r++)
		labels[r] = row_label(c, t, r, 0);
	long groups = group ? group_labels(labels, t->nrows, group, &names) : -1;
	struct size_range *range = groups >= 0 ? calloc((size_t)groups + 1, sizeof(*range)) : NULL;
	FILE *f = range ? open_memstream(&out, &len) : NULL;
	for (size_t r = 0; f && r < t->nrows; r++) {
		struct size_range *g = &range[group[r]];
		uint64_t m = size_of(t, r);
		g->lo = g->n && g->lo < m ? g->lo : m;
		g->hi = g->n && g->hi > m ? g->hi : m;
		g->n++;
	}
	for (long g = 0; f && g < groups; g++) {
		char a[24], b[24];
		lb_format_size(range[g].lo, a, sizeof(a));
		lb_format_size(range[g].hi, b, sizeof(b));
		fprintf(f, "%s%s %s..%s (%zu rows)", g ? "; " : "", names[g], a, b, range[g].n);
	}
	if (f && !t->nrows)
		fputs("no rows", f);
	for (long g = 0; g < groups; g++)
		free(names[g]);
	free(names);
	free(group);
	free(range);
	return f ? closed(f, &out) : NULL;
}

void lb_cmp_free(struct lb_cmp *c)
{
	for (size_t i = 0; i < c->nitems; i++) {
		free(c->items[i].name);
		free(c->items[i].a);
		free(c->items[i].b);
	}
	for (size_t i = 0; i < c->nrows; i++) {
		free(c->rows[i].label);
		free(c->rows[i].why);
	}
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
