/* The platform text format (net/platform.h): parser, formatter, hash.
 * The parser checks each line on its own (values, ranges, duplicates);
 * whether the graph is connected is left to the caller, whose root decides
 * it (lb_platform_check_reachable). */
#include "platform.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/units.h"

#define MAX_WORDS 24
#define NO_COORDINATOR UINT32_MAX /* while parsing: coordinator not given */

struct parser {
	const char *file;
	unsigned line;
	char *err;
	size_t errlen;
	uint32_t nodes, lanes;
	unsigned nodes_line, lanes_line; /* 0: not given yet */
	struct lb_platform *pf;          /* created by the first statement after them */
};

static int fail(struct parser *p, const char *token, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* "FILE:LINE: 'TOKEN': why", always -1. */
static int fail(struct parser *p, const char *token, const char *fmt, ...)
{
	char why[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return lb_errf(p->err, p->errlen, "%s:%u: '%s': %s", p->file, p->line,
		       token, why);
}

/* ---- values ---- */

/* A rank, lane or site number below limit; what names it in the message. */
static int parse_index(struct parser *p, const char *word, uint32_t limit,
		       const char *what, uint32_t *out)
{
	uint64_t v;
	char why[256];
	if (lb_parse_uint(word, 0, UINT32_MAX, &v, why, sizeof(why)) != 0)
		return fail(p, word, "expected a %s number", what);
	if (v >= limit)
		return fail(p, word, "%s out of range (0-%u)", what, limit - 1);
	*out = (uint32_t)v;
	return 0;
}

enum key_kind { KEY_SECONDS, KEY_RATE, KEY_LANE, KEY_FLAG };

struct key {
	const char *name;
	enum key_kind kind;
};

/* The values of "key value" pairs (and flags) found on a line, by their
 * index in the statement's key table. */
#define MAX_KEYS 8
struct key_values {
	unsigned set; /* bit i: keys[i] given */
	double v[MAX_KEYS];
	uint32_t lane;
};

static int parse_value(struct parser *p, const struct key *k, const char *word,
		       const char *token, struct key_values *kv, unsigned i)
{
	char why[256];
	int rc = 0;
	if (k->kind == KEY_SECONDS)
		rc = lb_parse_model_time(word, &kv->v[i], why, sizeof(why));
	else if (k->kind == KEY_RATE)
		rc = lb_parse_rate(word, &kv->v[i], why, sizeof(why));
	else if (k->kind == KEY_LANE)
		return parse_index(p, word, p->lanes, "lane", &kv->lane);
	return rc ? fail(p, token, "%s", why) : 0;
}

static void key_names(const struct key *keys, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = '\0';
	for (; keys->name && n < len; keys++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "", keys->name);
}

static int find_key(const struct key *keys, const char *word)
{
	for (int i = 0; keys[i].name; i++)
		if (strcmp(keys[i].name, word) == 0)
			return i;
	return -1;
}

/* words[0..nw) as "key value" pairs and flags of the table keys. */
static int parse_keys(struct parser *p, char **words, size_t nw,
		      const struct key *keys, const char *what, struct key_values *kv)
{
	memset(kv, 0, sizeof(*kv));
	for (size_t i = 0; i < nw; i++) {
		int k = find_key(keys, words[i]);
		char token[160], names[160];
		if (k < 0) {
			key_names(keys, names, sizeof(names));
			return fail(p, words[i], "not a word of '%s' (expected %s)", what, names);
		}
		if (kv->set & (1u << k))
			return fail(p, words[i], "given twice on one line");
		kv->set |= 1u << k;
		if (keys[k].kind == KEY_FLAG)
			continue;
		if (i + 1 == nw)
			return fail(p, words[i], "needs a value");
		snprintf(token, sizeof(token), "%s %s", words[i], words[i + 1]);
		if (parse_value(p, &keys[k], words[i + 1], token, kv, (unsigned)k) != 0)
			return -1;
		i++;
	}
	return 0;
}

/* ---- statements ---- */

static int need_words(struct parser *p, char **words, size_t nw, size_t min,
		      size_t max, const char *form)
{
	if (nw < min)
		return fail(p, words[0], "too few words (expected '%s')", form);
	if (nw > max)
		return fail(p, words[max], "unexpected word (expected '%s')", form);
	return 0;
}

static int st_size(struct parser *p, char **w, size_t nw, uint32_t max,
		   uint32_t *value, unsigned *given_on)
{
	uint64_t v;
	char why[256];
	if (need_words(p, w, nw, 2, 2, w[0][0] == 'n' ? "nodes N" : "lanes L") != 0)
		return -1;
	if (*given_on)
		return fail(p, w[0], "given twice (first on line %u)", *given_on);
	if (p->pf)
		return fail(p, w[0], "must come before every other statement");
	if (lb_parse_uint(w[1], 1, max, &v, why, sizeof(why)) != 0)
		return fail(p, w[1], "expected a whole number from 1 to %u", max);
	*value = (uint32_t)v;
	*given_on = p->line;
	return 0;
}

static int st_nodes(struct parser *p, char **w, size_t nw)
{
	return st_size(p, w, nw, LB_PLATFORM_MAX_NODES, &p->nodes, &p->nodes_line);
}

static int st_lanes(struct parser *p, char **w, size_t nw)
{
	return st_size(p, w, nw, LB_PLATFORM_MAX_LANES, &p->lanes, &p->lanes_line);
}

static const struct key link_keys[] = {
	{ "lat", KEY_SECONDS }, { "occ", KEY_SECONDS }, { "bw", KEY_RATE },
	{ "lane", KEY_LANE }, { "oneway", KEY_FLAG }, { NULL, 0 },
};
enum { LK_LAT, LK_OCC, LK_BW, LK_LANE, LK_ONEWAY };

/* The lat/occ/bw keys given as a link and its lb_link_field bits. */
static unsigned link_of(const struct key_values *kv, struct lb_link *l)
{
	unsigned fields = 0;
	*l = (struct lb_link){ kv->v[LK_LAT], kv->v[LK_OCC], kv->v[LK_BW] };
	fields |= kv->set & (1u << LK_LAT) ? LB_LINK_LAT : 0;
	fields |= kv->set & (1u << LK_OCC) ? LB_LINK_OCC : 0;
	fields |= kv->set & (1u << LK_BW) ? LB_LINK_BW : 0;
	return fields;
}

static int st_default(struct parser *p, char **w, size_t nw)
{
	static const struct key keys[] = {
		{ "lat", KEY_SECONDS }, { "occ", KEY_SECONDS }, { "bw", KEY_RATE },
		{ NULL, 0 },
	};
	struct key_values kv;
	if (nw == 2 && strcmp(w[1], "none") == 0) {
		p->pf->dflt = (struct lb_link){ 0, 0, 0 };
		return 0;
	}
	if (need_words(p, w, nw, 3, MAX_WORDS, "default none | default [lat T] [occ T] [bw RATE]") != 0 ||
	    parse_keys(p, w + 1, nw - 1, keys, "default", &kv) != 0)
		return -1;
	struct lb_link l;
	unsigned fields = link_of(&kv, &l);
	struct lb_link *d = &p->pf->dflt;
	*d = (struct lb_link){
		fields & LB_LINK_LAT ? l.lat : d->lat,
		fields & LB_LINK_OCC ? l.occ : d->occ,
		fields & LB_LINK_BW ? l.bw : d->bw,
	};
	return 0;
}

static int st_node(struct parser *p, char **w, size_t nw)
{
	static const struct key keys[] = {
		{ "send", KEY_SECONDS }, { "recv", KEY_SECONDS }, { "gap", KEY_SECONDS },
		{ "rate", KEY_RATE }, { NULL, 0 },
	};
	struct key_values kv;
	uint32_t u;
	if (need_words(p, w, nw, 4, MAX_WORDS, "node U [send T] [recv T] [gap T] [rate RATE]") != 0 ||
	    parse_index(p, w[1], p->nodes, "rank", &u) != 0 ||
	    parse_keys(p, w + 2, nw - 2, keys, "node", &kv) != 0)
		return -1;
	struct lb_node *n = &p->pf->node[u];
	double *field[] = { &n->send, &n->recv, &n->gap, &n->rate };
	for (unsigned i = 0; i < 4; i++)
		if (kv.set & (1u << i))
			*field[i] = kv.v[i];
	return 0;
}

/* u v of a link or nolink line, u != v. */
static int parse_pair(struct parser *p, char **w, uint32_t *u, uint32_t *v)
{
	if (parse_index(p, w[1], p->nodes, "rank", u) != 0 ||
	    parse_index(p, w[2], p->nodes, "rank", v) != 0)
		return -1;
	if (*u == *v)
		return fail(p, w[2], "a link joins two different ranks (both are %u)", *u);
	return 0;
}

static int add_link(struct parser *p, uint32_t u, uint32_t v,
		    const struct key_values *kv, unsigned fields, const struct lb_link *l)
{
	uint32_t lane = kv->set & (1u << LK_LANE) ? kv->lane : LB_PLATFORM_ALL_LANES;
	if (lb_platform_set_link(p->pf, u, v, lane, fields, l) != 0 ||
	    (!(kv->set & (1u << LK_ONEWAY)) &&
	     lb_platform_set_link(p->pf, v, u, lane, fields, l) != 0))
		return lb_errf(p->err, p->errlen, "%s:%u: out of memory", p->file, p->line);
	return 0;
}

static int st_link(struct parser *p, char **w, size_t nw)
{
	struct key_values kv;
	struct lb_link l;
	uint32_t u, v;
	if (need_words(p, w, nw, 4, MAX_WORDS, "link U V [lane L] [lat T] [occ T] [bw RATE] [oneway]") != 0 ||
	    parse_pair(p, w, &u, &v) != 0 ||
	    parse_keys(p, w + 3, nw - 3, link_keys, "link", &kv) != 0)
		return -1;
	unsigned fields = link_of(&kv, &l);
	if (!fields)
		return fail(p, w[0], "sets nothing (give lat, occ or bw)");
	return add_link(p, u, v, &kv, fields, &l);
}

static int st_nolink(struct parser *p, char **w, size_t nw)
{
	static const struct key keys[] = {
		{ "lane", KEY_LANE }, { "oneway", KEY_FLAG }, { NULL, 0 },
	};
	struct key_values kv, as_link = { 0 };
	uint32_t u, v;
	if (need_words(p, w, nw, 3, MAX_WORDS, "nolink U V [lane L] [oneway]") != 0 ||
	    parse_pair(p, w, &u, &v) != 0 ||
	    parse_keys(p, w + 3, nw - 3, keys, "nolink", &kv) != 0)
		return -1;
	/* The same flags at the link table's indices. */
	as_link.set = (kv.set & 1u ? 1u << LK_LANE : 0) | (kv.set & 2u ? 1u << LK_ONEWAY : 0);
	as_link.lane = kv.lane;
	return add_link(p, u, v, &as_link, LB_LINK_BW, &(struct lb_link){ 0, 0, 0 });
}

/* ---- sites ---- */

/* A site that a "site S ranks" line made (word: the site number as written). */
static int known_site(struct parser *p, const char *word, uint32_t *s)
{
	if (parse_index(p, word, p->nodes, "site", s) != 0)
		return -1;
	if (*s >= p->pf->sites)
		return fail(p, word, "unknown site (give its 'site %u ranks LIST' first)", *s);
	return 0;
}

static int new_site(struct parser *p, const char *word)
{
	struct lb_platform *pf = p->pf;
	struct lb_site *s = realloc(pf->site, (pf->sites + 1) * sizeof(*s));
	if (!s)
		return fail(p, word, "out of memory");
	pf->site = s;
	pf->site[pf->sites++] = (struct lb_site){ .coordinator = NO_COORDINATOR };
	return 0;
}

static int site_ranks(struct parser *p, uint32_t s, const char *list)
{
	uint64_t *r;
	size_t n;
	char why[256];
	if (lb_parse_rank_list(list, p->nodes, &r, &n, why, sizeof(why)) != 0)
		return fail(p, list, "%s", why);
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		struct lb_node *node = &p->pf->node[r[i]];
		if (node->site != LB_PLATFORM_NO_SITE)
			rc = fail(p, list, "rank %llu is already in site %u",
				  (unsigned long long)r[i], node->site);
		node->site = s;
	}
	free(r);
	return rc;
}

static int st_site(struct parser *p, char **w, size_t nw)
{
	uint32_t s;
	if (need_words(p, w, nw, 4, 4, "site S ranks LIST | site S local-bcast T") != 0 ||
	    parse_index(p, w[1], p->nodes, "site", &s) != 0)
		return -1;
	if (strcmp(w[2], "ranks") == 0) {
		if (s > p->pf->sites)
			return fail(p, w[1], "sites are numbered in order from 0 (the next new one is %u)",
				    p->pf->sites);
		if (s == p->pf->sites && new_site(p, w[1]) != 0)
			return -1;
		return site_ranks(p, s, w[3]);
	}
	if (strcmp(w[2], "local-bcast") != 0)
		return fail(p, w[2], "not a word of 'site' (expected ranks, local-bcast)");
	char token[160], why[256];
	snprintf(token, sizeof(token), "%s %s", w[2], w[3]);
	if (known_site(p, w[1], &s) != 0)
		return -1;
	if (lb_parse_model_time(w[3], &p->pf->site[s].local_bcast, why, sizeof(why)) != 0)
		return fail(p, token, "%s", why);
	return 0;
}

static int st_coordinator(struct parser *p, char **w, size_t nw)
{
	uint32_t s, r;
	if (need_words(p, w, nw, 3, 3, "coordinator S RANK") != 0 ||
	    known_site(p, w[1], &s) != 0 ||
	    parse_index(p, w[2], p->nodes, "rank", &r) != 0)
		return -1;
	if (p->pf->node[r].site != s)
		return fail(p, w[2], "rank %u is not in site %u", r, s);
	p->pf->site[s].coordinator = r;
	return 0;
}

static int st_wan(struct parser *p, char **w, size_t nw)
{
	static const struct key keys[] = {
		{ "lat", KEY_SECONDS }, { "bw", KEY_RATE }, { NULL, 0 },
	};
	struct key_values kv;
	uint32_t a, b;
	if (need_words(p, w, nw, 5, 7, "wan A B [lat T] bw RATE") != 0 ||
	    known_site(p, w[1], &a) != 0 || known_site(p, w[2], &b) != 0)
		return -1;
	if (a == b)
		return fail(p, w[2], "a wan joins two different sites (both are %u)", a);
	if (parse_keys(p, w + 3, nw - 3, keys, "wan", &kv) != 0)
		return -1;
	if (!(kv.set & 2u))
		return fail(p, w[0], "needs a bw");
	for (size_t i = 0; i < p->pf->nwan; i++)
		if ((p->pf->wan[i].a == a && p->pf->wan[i].b == b) ||
		    (p->pf->wan[i].a == b && p->pf->wan[i].b == a))
			return fail(p, w[0], "sites %u and %u already have a wan", a, b);
	struct lb_wan *n = realloc(p->pf->wan, (p->pf->nwan + 1) * sizeof(*n));
	if (!n)
		return fail(p, w[0], "out of memory");
	p->pf->wan = n;
	p->pf->wan[p->pf->nwan++] = (struct lb_wan){ a, b, kv.v[0], kv.v[1] };
	return 0;
}

static int st_barrier(struct parser *p, char **w, size_t nw)
{
	char why[256];
	uint32_t s;
	double *to;
	const char *value;
	if (nw == 3 && strcmp(w[1], "all") == 0) {
		to = &p->pf->barrier_all;
		value = w[2];
	} else if (nw == 4 && strcmp(w[1], "site") == 0) {
		if (known_site(p, w[2], &s) != 0)
			return -1;
		to = &p->pf->site[s].barrier;
		value = w[3];
	} else {
		return fail(p, w[0], "expected 'barrier site S T' or 'barrier all T'");
	}
	if (lb_parse_model_time(value, to, why, sizeof(why)) != 0)
		return fail(p, value, "%s", why);
	return 0;
}

/* ---- lines ---- */

struct statement {
	const char *name;
	int (*parse)(struct parser *p, char **w, size_t nw);
	int needs_platform; /* 0: nodes and lanes, which come first */
};

static const struct statement statements[] = {
	{ "nodes", st_nodes, 0 },	    { "lanes", st_lanes, 0 },
	{ "default", st_default, 1 },	    { "node", st_node, 1 },
	{ "link", st_link, 1 },		    { "nolink", st_nolink, 1 },
	{ "site", st_site, 1 },		    { "coordinator", st_coordinator, 1 },
	{ "wan", st_wan, 1 },		    { "barrier", st_barrier, 1 },
	{ NULL, NULL, 0 },
};

static int make_platform(struct parser *p, const char *word)
{
	if (!p->nodes_line)
		return fail(p, word, "comes before 'nodes N' (nodes and lanes come first)");
	p->pf = lb_platform_new(p->nodes, p->lanes);
	if (!p->pf)
		return fail(p, word, "out of memory for %u nodes", p->nodes);
	return 0;
}

static int parse_words(struct parser *p, char **w, size_t nw)
{
	const struct statement *st = statements;
	while (st->name && strcmp(st->name, w[0]) != 0)
		st++;
	if (!st->name)
		return fail(p, w[0], "unknown keyword (expected nodes, lanes, default, node, link, "
			    "nolink, site, coordinator, wan or barrier)");
	if (st->needs_platform && !p->pf && make_platform(p, w[0]) != 0)
		return -1;
	return st->parse(p, w, nw);
}

/* Line 1 may be "# lanebench platform V": only version 1 is read. */
static int check_magic(struct parser *p, const char *line)
{
	static const char magic[] = "# lanebench platform";
	if (strncmp(line, magic, sizeof(magic) - 1) != 0)
		return 0;
	const char *v = line + sizeof(magic) - 1;
	if (*v && !strchr(" \t\r", *v))
		return 0; /* "# lanebench platforms ...": a comment */
	v += strspn(v, " \t");
	if (v[0] == '1' && v[1 + strspn(v + 1, " \t\r")] == '\0')
		return 0;
	return fail(p, line, "a platform file of another version (this lanebench reads "
		    "version 1 only)");
}

static int parse_line(struct parser *p, char *line)
{
	char *w[MAX_WORDS + 1], *save = NULL;
	size_t nw = 0;
	if (p->line == 1 && check_magic(p, line) != 0)
		return -1;
	char *hash = strchr(line, '#');
	if (hash)
		*hash = '\0';
	for (char *t = strtok_r(line, " \t\r", &save); t; t = strtok_r(NULL, " \t\r", &save)) {
		if (nw == MAX_WORDS)
			return fail(p, t, "too many words on one line (at most %d)", MAX_WORDS);
		w[nw++] = t;
	}
	return nw ? parse_words(p, w, nw) : 0;
}

/* Sites without a coordinator line get their lowest rank. */
static void default_coordinators(struct lb_platform *pf)
{
	for (uint32_t u = 0; u < pf->nodes; u++) {
		uint32_t s = pf->node[u].site;
		if (s != LB_PLATFORM_NO_SITE && pf->site[s].coordinator == NO_COORDINATOR)
			pf->site[s].coordinator = u;
	}
}

static int finish(struct parser *p)
{
	if (!p->nodes_line)
		return fail(p, "nodes N", "missing (a platform starts with 'nodes N')");
	if (!p->pf && make_platform(p, "nodes") != 0)
		return -1;
	default_coordinators(p->pf);
	if (lb_platform_seal(p->pf) != 0)
		return lb_errf(p->err, p->errlen, "%s: out of memory", p->file);
	return 0;
}

struct lb_platform *lb_platform_parse(const char *text, const char *file,
				      char *err, size_t errlen)
{
	struct parser p = { .file = file ? file : "platform", .err = err,
			    .errlen = errlen, .lanes = 1 };
	char *copy = strdup(text);
	if (!copy) {
		lb_errf(err, errlen, "%s: out of memory", p.file);
		return NULL;
	}
	int rc = 0;
	char *line = copy;
	while (line && rc == 0) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		p.line++;
		rc = parse_line(&p, line);
		line = nl && nl[1] ? nl + 1 : NULL; /* no line after the last newline */
	}
	free(copy);
	if (rc == 0 && finish(&p) == 0)
		return p.pf;
	lb_platform_free(p.pf);
	return NULL;
}

/* ---- formatting ---- */

/* Numbers are printed with 17 significant digits, which strtod reads back
 * to the same double: seconds bare, rates as bytes per second. */
static void put_seconds(FILE *f, const char *key, double s)
{
	fprintf(f, " %s %.17g", key, s);
}

static void put_rate(FILE *f, const char *key, double bytes_per_s)
{
	fprintf(f, " %s %.17gB/s", key, bytes_per_s);
}

static void put_default(FILE *f, const struct lb_link *d)
{
	if (d->lat == 0 && d->occ == 0 && d->bw == 0) {
		fputs("default none\n", f);
		return;
	}
	fputs("default", f);
	put_seconds(f, "lat", d->lat);
	put_seconds(f, "occ", d->occ);
	if (d->bw > 0)
		put_rate(f, "bw", d->bw);
	fputc('\n', f);
}

static void put_nodes(FILE *f, const struct lb_platform *pf)
{
	for (uint32_t u = 0; u < pf->nodes; u++) {
		const struct lb_node *n = &pf->node[u];
		if (n->send == 0 && n->recv == 0 && n->gap == 0 && n->rate == 0)
			continue;
		fprintf(f, "node %u", u);
		put_seconds(f, "send", n->send);
		put_seconds(f, "recv", n->recv);
		put_seconds(f, "gap", n->gap);
		if (n->rate > 0)
			put_rate(f, "rate", n->rate);
		fputc('\n', f);
	}
}

static void put_pair(FILE *f, const char *what, const struct lb_link_rule *r)
{
	fprintf(f, "%s %u %u", what, r->u, r->v);
	if (r->lane != LB_PLATFORM_ALL_LANES)
		fprintf(f, " lane %u", r->lane);
}

/* One sealed rule as "oneway" lines.  A rule that removes the link
 * (bw 0) is a nolink line, followed by a link line for its lat and occ. */
static void put_rule(FILE *f, const struct lb_link_rule *r)
{
	unsigned rest = r->fields;
	if ((r->fields & LB_LINK_BW) && r->link.bw <= 0) {
		put_pair(f, "nolink", r);
		fputs(" oneway\n", f);
		rest &= ~(unsigned)LB_LINK_BW;
	}
	if (!rest)
		return;
	put_pair(f, "link", r);
	if (rest & LB_LINK_LAT)
		put_seconds(f, "lat", r->link.lat);
	if (rest & LB_LINK_OCC)
		put_seconds(f, "occ", r->link.occ);
	if (rest & LB_LINK_BW)
		put_rate(f, "bw", r->link.bw);
	fputs(" oneway\n", f);
}

/* "site S ranks A-B,C,...": the site's ranks as ascending ranges. */
static void put_site_ranks(FILE *f, const struct lb_platform *pf, uint32_t s)
{
	int any = 0;
	for (uint32_t u = 0; u < pf->nodes; u++) {
		if (pf->node[u].site != s)
			continue;
		uint32_t last = u;
		while (last + 1 < pf->nodes && pf->node[last + 1].site == s)
			last++;
		fprintf(f, any ? "," : "site %u ranks ", s);
		fprintf(f, last > u ? "%u-%u" : "%u", u, last);
		any = 1;
		u = last;
	}
	if (any)
		fputc('\n', f);
}

static void put_sites(FILE *f, const struct lb_platform *pf)
{
	for (uint32_t s = 0; s < pf->sites; s++) {
		const struct lb_site *site = &pf->site[s];
		put_site_ranks(f, pf, s);
		fprintf(f, "coordinator %u %u\n", s, site->coordinator);
		if (site->local_bcast > 0)
			fprintf(f, "site %u local-bcast %.17g\n", s, site->local_bcast);
		if (site->barrier > 0)
			fprintf(f, "barrier site %u %.17g\n", s, site->barrier);
	}
	for (size_t i = 0; i < pf->nwan; i++) {
		const struct lb_wan *w = &pf->wan[i];
		fprintf(f, "wan %u %u", w->a, w->b);
		put_seconds(f, "lat", w->lat);
		put_rate(f, "bw", w->bw);
		fputc('\n', f);
	}
	if (pf->barrier_all > 0)
		fprintf(f, "barrier all %.17g\n", pf->barrier_all);
}

char *lb_platform_format(const struct lb_platform *pf)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return NULL;
	fprintf(f, "# lanebench platform 1\nnodes %u\nlanes %u\n", pf->nodes, pf->lanes);
	put_default(f, &pf->dflt);
	put_nodes(f, pf);
	for (size_t i = 0; i < pf->nrules; i++)
		put_rule(f, &pf->rule[i]);
	put_sites(f, pf);
	if (ferror(f)) {
		fclose(f);
		free(text);
		return NULL;
	}
	if (fclose(f) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

/* FNV-1a, 64 bits, over the formatted text. */
uint64_t lb_platform_hash(const struct lb_platform *pf)
{
	char *text = lb_platform_format(pf);
	uint64_t h = 14695981039346656037ull;
	if (!text)
		return 0;
	for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
		h ^= *c;
		h *= 1099511628211ull;
	}
	free(text);
	return h;
}
