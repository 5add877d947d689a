/* What check expects of every port, and the pure judging of the ports
 * against it.  See check_expect.h; the file format is docs/check-expect.md. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "check_expect.h"
#include "lib/error.h"
#include "lib/prov.h"
#include "lib/textin.h"
#include "lib/units.h"

/* ---- fractions ---------------------------------------------------------- */

static const char fraction_forms[] = "a fraction in (0, 1] (0.9) or a percentage in (0, 100] (90%)";

/* Why s is not a fraction (-1, why filled), or 0 with *out set. */
static int fraction_why(const char *s, double *out, char *why, size_t len)
{
	char num[32];
	size_t n = strspn(s, "0123456789.");
	if (n == 0 || n >= sizeof(num))
		return lb_errf(why, len, "expected %s", fraction_forms);
	memcpy(num, s, n);
	num[n] = '\0';
	char *end;
	double v = strtod(num, &end);
	const char *rest = s + n, *pct = rest + strspn(rest, " ");
	int percent = *pct == '%';
	if (percent)
		rest = pct + 1;
	if (*end || *rest) /* "1.2.3", ".", "0.9x", "90%%" */
		return lb_errf(why, len, "expected %s", fraction_forms);
	if (!percent && v > 1)
		return lb_errf(why, len, "ambiguous: a bare number above 1 is a percentage or a multiple (write %s%% or a fraction in (0, 1])",
			       num);
	if (percent)
		v /= 100;
	if (!(v > 0 && v <= 1))
		return lb_errf(why, len, "out of range: expected %s", fraction_forms);
	*out = v;
	return 0;
}

int lb_parse_fraction(const char *text, double *out, char *err, size_t len)
{
	char why[160];
	if (fraction_why(text, out, why, sizeof(why)) == 0)
		return 0;
	lb_errf(err, len, "bad fraction '%s': %s", text, why);
	return LB_EINPUT;
}

/* ---- the values of the file's keys --------------------------------------- */

/* lib/units.h's messages are "bad KIND 'TOKEN': why": the why, since the
 * file's message names the token already. */
static int units_why(const char *msg, char *why, size_t len)
{
	const char *p = strstr(msg, "': ");
	return lb_errf(why, len, "%s", p ? p + 3 : msg);
}

static int parse_speed(const char *v, struct lb_expect_rule *r, char *why, size_t len)
{
	char msg[256];
	double bytes;
	if (lb_parse_rate(v, &bytes, msg, sizeof(msg)))
		return units_why(msg, why, len);
	r->speed_bps = bytes * 8;
	return 0;
}

static int parse_mtu(const char *v, struct lb_expect_rule *r, char *why, size_t len)
{
	uint64_t mtu;
	if (lb_parse_uint(v, LB_EXPECT_MTU_MIN, LB_EXPECT_MTU_MAX, &mtu, NULL, 0))
		return lb_errf(why, len, "expected an MTU in bytes from %d to %d", LB_EXPECT_MTU_MIN,
			       LB_EXPECT_MTU_MAX);
	r->mtu = (int32_t)mtu;
	return 0;
}

static int parse_pcie_width(const char *v, struct lb_expect_rule *r, char *why, size_t len)
{
	uint64_t w;
	if (lb_parse_uint(v, 1, 32, &w, NULL, 0) || (w & (w - 1)))
		return lb_errf(why, len, "expected a PCIe width of 1, 2, 4, 8, 16 or 32 lanes");
	r->pcie_width = (int32_t)w;
	return 0;
}

static int parse_pcie_speed(const char *v, struct lb_expect_rule *r, char *why, size_t len)
{
	static const char *const gens[] = { "2.5", "5", "8", "16", "32", "64" };
	size_t n = strcspn(v, "Gg");
	if (v[n] == '\0' || strcasecmp(v + n, "GT/s") == 0)
		for (size_t i = 0; i < sizeof(gens) / sizeof(gens[0]); i++)
			if (strlen(gens[i]) == n && strncmp(v, gens[i], n) == 0) {
				r->pcie_gts = strtod(gens[i], NULL);
				return 0;
			}
	return lb_errf(why, len, "expected a PCIe speed of 2.5, 5, 8, 16, 32 or 64 GT/s (16 or 16GT/s)");
}

/* A fraction or percentage of the expected rate, else an absolute rate;
 * a bare number is a fraction (and above 1 refused as ambiguous). */
static int parse_min_bw(const char *v, struct lb_expect_rule *r, char *why, size_t len)
{
	char msg[256];
	double x;
	size_t n = strspn(v, "0123456789.");
	const char *rest = v + n + strspn(v + n, " ");
	if (n && (*rest == '\0' || *rest == '%')) {
		if (fraction_why(v, &x, why, len))
			return -1;
		r->min_bw = x;
		r->min_bw_bps = 0;
		return 0;
	}
	if (lb_parse_rate(v, &x, msg, sizeof(msg)) == 0) {
		r->min_bw_bps = x;
		r->min_bw = 0;
		return 0;
	}
	if (strstr(msg, "out of range"))
		return units_why(msg, why, len);
	return lb_errf(why, len, "expected %s, or a rate in bits (80gbit) or bytes per second (10GB/s)",
		       fraction_forms);
}

static int parse_max_lat(const char *v, struct lb_expect_rule *r, char *why, size_t len)
{
	char msg[256];
	double t;
	if (lb_parse_model_time(v, &t, msg, sizeof(msg)))
		return units_why(msg, why, len);
	if (t == 0)
		return lb_errf(why, len, "expected a latency > 0 (5us, 1.5ms)");
	r->max_lat = t;
	return 0;
}

static int parse_firmware(const char *v, struct lb_expect_rule *r, char *why, size_t len)
{
	if (strlen(v) >= sizeof(r->firmware))
		return lb_errf(why, len, "too long (at most %zu characters)", sizeof(r->firmware) - 1);
	snprintf(r->firmware, sizeof(r->firmware), "%s", v);
	return 0;
}

static const struct key {
	const char *name;
	int (*parse)(const char *v, struct lb_expect_rule *r, char *why, size_t len);
} keys[] = {
	{ "speed", parse_speed },	{ "mtu", parse_mtu },	      { "pcie-width", parse_pcie_width },
	{ "pcie-speed", parse_pcie_speed }, { "min-bw", parse_min_bw }, { "max-lat", parse_max_lat },
	{ "firmware", parse_firmware },
};

#define NKEYS (sizeof(keys) / sizeof(keys[0]))
#define KEY_NAMES "speed, mtu, pcie-width, pcie-speed, min-bw, max-lat, firmware"
#define SELECTORS "all, lane N, nic NAME, driver NAME"

/* ---- the file ------------------------------------------------------------ */

/* Where a message is: "FILE:LINE: 'TOKEN': why". */
struct at {
	const char *path;
	uint32_t line;
	char *err;
	size_t len;
};

static int fail_at(const struct at *a, const char *token, const char *why)
{
	lb_errf(a->err, a->len, "%s:%u: '%s': %s", a->path, a->line, token, why);
	return LB_EINPUT;
}

static int parse_name(const struct at *a, const char *token, char *dst, size_t size)
{
	char why[64];
	if (strlen(token) >= size) {
		snprintf(why, sizeof(why), "too long (at most %zu characters)", size - 1);
		return fail_at(a, token, why);
	}
	snprintf(dst, size, "%s", token);
	return 0;
}

/* The selector at the start of a line; *save moves past it. */
static int parse_selector(const struct at *a, char *sel, char **save, struct lb_expect_rule *r)
{
	if (strcmp(sel, "all") == 0)
		return 0;
	int lane = strcmp(sel, "lane") == 0, nic = strcmp(sel, "nic") == 0;
	if (!lane && !nic && strcmp(sel, "driver") != 0)
		return fail_at(a, sel, "unknown selector (a line starts with one of " SELECTORS ")");
	char *arg = strtok_r(NULL, " \t\r\n", save);
	if (!arg)
		return fail_at(a, sel, "a selector without its value (" SELECTORS ")");
	if (!lane)
		return parse_name(a, arg, nic ? r->nic : r->driver, nic ? sizeof(r->nic) : sizeof(r->driver));
	uint64_t n;
	if (lb_parse_uint(arg, 0, LB_EXPECT_LANE_MAX, &n, NULL, 0)) {
		char why[64];
		snprintf(why, sizeof(why), "expected a lane number from 0 to %d", LB_EXPECT_LANE_MAX);
		return fail_at(a, arg, why);
	}
	r->lane = (int32_t)n;
	return 0;
}

static const struct key *find_key(const char *name)
{
	for (size_t i = 0; i < NKEYS; i++)
		if (strcmp(keys[i].name, name) == 0)
			return &keys[i];
	return NULL;
}

/* The KEY VALUE pairs after the selector. */
static int parse_keys(const struct at *a, const char *sel, char **save, struct lb_expect_rule *r)
{
	unsigned said = 0;
	char *name;
	while ((name = strtok_r(NULL, " \t\r\n", save))) {
		const struct key *k = find_key(name);
		if (!k)
			return fail_at(a, name, "unknown key (expected " KEY_NAMES ")");
		unsigned bit = 1u << (k - keys);
		if (said & bit)
			return fail_at(a, name, "given twice on one line");
		char *value = strtok_r(NULL, " \t\r\n", save), why[256];
		if (!value)
			return fail_at(a, name, "a key without a value");
		if (k->parse(value, r, why, sizeof(why)))
			return fail_at(a, value, why);
		said |= bit;
	}
	return said ? 0 : fail_at(a, sel, "a selector without any key (expected " KEY_NAMES ")");
}

/* One line: 0 a rule in *r, 1 nothing (blank, comment), or LB_EINPUT. */
static int parse_line(const struct at *a, char *text, struct lb_expect_rule *r)
{
	char *save, *sel;
	text[strcspn(text, "#")] = '\0';
	if (!(sel = strtok_r(text, " \t\r\n", &save)))
		return 1;
	*r = (struct lb_expect_rule){ .lane = -1, .line = a->line };
	int rc = parse_selector(a, sel, &save, r);
	return rc ? rc : parse_keys(a, sel, &save, r);
}

static int add_rule(struct lb_expect *e, size_t *cap, const struct lb_expect_rule *r)
{
	if (e->n == *cap) {
		size_t n = *cap ? *cap * 2 : 16;
		struct lb_expect_rule *rules = realloc(e->rules, n * sizeof(*rules));
		if (!rules)
			return -1;
		e->rules = rules;
		*cap = n;
	}
	e->rules[e->n++] = *r;
	return 0;
}

static int read_rules(FILE *in, struct at *a, struct lb_expect *e)
{
	char *text = NULL;
	size_t size = 0, cap = 0;
	struct lb_textin_count count = { 0 };
	const char *why = NULL;
	int rc = 0;
	ssize_t n = 0;
	while (rc == 0 && (n = lb_textin_line(in, &text, &size, &count, &why)) >= 0) {
		struct lb_expect_rule r;
		a->line++;
		/* the parser reads a line as a C string: what follows a NUL would
		 * be dropped unseen (a UTF-16 file is mostly NULs) */
		if (memchr(text, '\0', (size_t)n))
			rc = fail_at(a, "\\0", "a NUL byte: not a text file (UTF-16?)");
		else
			rc = parse_line(a, text, &r);
		if (rc == 1)
			rc = 0;
		else if (rc == 0 && add_rule(e, &cap, &r))
			rc = lb_errf(a->err, a->len, "%s: out of memory", a->path);
	}
	if (rc == 0 && n == -2) { /* /dev/zero, a FIFO without end */
		lb_errf(a->err, a->len, "expectations file '%s': line %u: %s", a->path, (unsigned)a->line + 1,
			why);
		rc = LB_EINPUT;
	}
	if (rc == 0 && ferror(in)) { /* a directory, an I/O error */
		lb_errf(a->err, a->len, "cannot read expectations file '%s': %s", a->path,
			strerror(errno));
		rc = LB_EINPUT;
	}
	free(text);
	return rc;
}

int lb_expect_load(const char *path, struct lb_expect *e, char *err, size_t len)
{
	memset(e, 0, sizeof(*e));
	FILE *in = fopen(path, "r");
	if (!in) {
		lb_errf(err, len, "cannot read expectations file '%s': %s", path, strerror(errno));
		return LB_EINPUT;
	}
	snprintf(e->path, sizeof(e->path), "%s", path);
	struct at a = { .path = path, .err = err, .len = len };
	int rc = read_rules(in, &a, e);
	fclose(in);
	if (rc)
		lb_expect_free(e);
	return rc; /* LB_EINPUT, or -1: out of memory */
}

void lb_expect_free(struct lb_expect *e)
{
	if (!e)
		return;
	free(e->rules);
	memset(e, 0, sizeof(*e));
}

/* ---- what applies to a port ---------------------------------------------- */

/* A port as the selectors see it: its lane, the names `nic` may match, its
 * driver (all bounded copies: facts come from other ranks as bytes). */
struct port_id {
	uint32_t lane;
	char names[3][33];
	char driver[33];
};

static struct port_id port_id(uint32_t lane, const char *nic, const struct lb_port_facts *f)
{
	struct port_id p = { .lane = lane };
	snprintf(p.names[0], sizeof(p.names[0]), "%s", nic ? nic : "");
	if (f) {
		snprintf(p.names[1], sizeof(p.names[1]), "%.*s", (int)sizeof(f->ifname), f->ifname);
		snprintf(p.names[2], sizeof(p.names[2]), "%.*s", (int)sizeof(f->rdma_dev), f->rdma_dev);
		snprintf(p.driver, sizeof(p.driver), "%.*s", (int)sizeof(f->driver), f->driver);
	}
	return p;
}

static int rule_matches(const struct lb_expect_rule *r, const struct port_id *p)
{
	if (r->lane >= 0 && (uint32_t)r->lane != p->lane)
		return 0;
	if (r->driver[0] && strcmp(r->driver, p->driver) != 0)
		return 0;
	if (!r->nic[0])
		return 1;
	for (int i = 0; i < 3; i++)
		if (p->names[i][0] && strcmp(r->nic, p->names[i]) == 0)
			return 1;
	return 0;
}

static int take_double(double *dst, double v)
{
	if (v)
		*dst = v;
	return v != 0;
}

static int take_int(int32_t *dst, int32_t v)
{
	if (v)
		*dst = v;
	return v != 0;
}

/* A later rule's said fields over an earlier one's; 1 if it said any. */
static int merge_rule(struct lb_expect_rule *out, const struct lb_expect_rule *r)
{
	int any = take_double(&out->speed_bps, r->speed_bps) | take_int(&out->mtu, r->mtu) |
		  take_int(&out->pcie_width, r->pcie_width) |
		  take_double(&out->pcie_gts, r->pcie_gts) | take_double(&out->max_lat, r->max_lat);
	if (r->min_bw || r->min_bw_bps) { /* one key: the later replaces both */
		out->min_bw = r->min_bw;
		out->min_bw_bps = r->min_bw_bps;
		any = 1;
	}
	if (r->firmware[0]) {
		memcpy(out->firmware, r->firmware, sizeof(out->firmware));
		any = 1;
	}
	return any;
}

static void expect_for_id(const struct lb_expect *e, const struct port_id *p,
			  struct lb_expect_rule *out)
{
	*out = (struct lb_expect_rule){ .lane = (int32_t)p->lane };
	/* (the struct's fixed size: a longer name is cut there) */
	snprintf(out->nic, sizeof(out->nic), "%.*s", (int)sizeof(out->nic) - 1, p->names[0]);
	snprintf(out->driver, sizeof(out->driver), "%.*s", (int)sizeof(out->driver) - 1, p->driver);
	for (size_t i = 0; e && i < e->n; i++)
		if (rule_matches(&e->rules[i], p) && merge_rule(out, &e->rules[i]))
			out->line = e->rules[i].line;
}

void lb_expect_for(const struct lb_expect *e, uint32_t lane, const char *nic, const char *driver,
		   struct lb_expect_rule *out)
{
	struct port_id p = port_id(lane, nic, NULL);
	snprintf(p.driver, sizeof(p.driver), "%s", driver ? driver : "");
	expect_for_id(e, &p, out);
}

void lb_expect_for_port(const struct lb_expect *e, uint32_t lane, const char *nic,
			const struct lb_port_facts *f, struct lb_expect_rule *out)
{
	struct port_id p = port_id(lane, nic, f);
	expect_for_id(e, &p, out);
}

/* ---- the inventory -------------------------------------------------------- */

#define TEXT 64

/* A fact of a port compared across its lane and with the file, as text
 * ("" unknown): two ports agree when they show alike. */
struct fact {
	const char *name;  /* "MTU" in "no majority MTU among 4 ports" */
	const char *label; /* "PCIe" in "PCIe x8, the lane's other 7 ports x16" */
	void (*of_port)(const struct lb_port_facts *f, char *buf, size_t len);
	void (*of_rule)(const struct lb_expect_rule *r, char *buf, size_t len); /* NULL: no key */
	/* PCIe: the device's own maximum, and whether the link is below it */
	void (*of_device)(const struct lb_port_facts *f, char *buf, size_t len);
	int (*below_device)(const struct lb_port_facts *f);
	enum lb_level odd; /* a port unlike the lane's majority */
};

static void rate_text(double bps, char *buf, size_t len)
{
	if (!(bps > 0) || !isfinite(bps))
		snprintf(buf, len, "%s", "");
	else if (bps >= 1e9)
		snprintf(buf, len, "%g Gbit/s", bps / 1e9);
	else
		snprintf(buf, len, "%g Mbit/s", bps / 1e6);
}

static void int_text(const char *prefix, int32_t v, char *buf, size_t len)
{
	if (v > 0)
		snprintf(buf, len, "%s%d", prefix, v);
	else
		snprintf(buf, len, "%s", "");
}

static void gts_text(double gts, char *buf, size_t len)
{
	if (gts > 0 && isfinite(gts))
		snprintf(buf, len, "%g GT/s", gts);
	else
		snprintf(buf, len, "%s", "");
}

static void port_speed(const struct lb_port_facts *f, char *b, size_t n) { rate_text(f->speed_bps, b, n); }
static void rule_speed(const struct lb_expect_rule *r, char *b, size_t n) { rate_text(r->speed_bps, b, n); }
static void port_mtu(const struct lb_port_facts *f, char *b, size_t n) { int_text("", f->mtu, b, n); }
static void rule_mtu(const struct lb_expect_rule *r, char *b, size_t n) { int_text("", r->mtu, b, n); }
static void port_rdma_mtu(const struct lb_port_facts *f, char *b, size_t n) { int_text("", f->rdma_mtu, b, n); }
static void port_width(const struct lb_port_facts *f, char *b, size_t n) { int_text("x", f->pcie_width, b, n); }
static void rule_width(const struct lb_expect_rule *r, char *b, size_t n) { int_text("x", r->pcie_width, b, n); }
static void device_width(const struct lb_port_facts *f, char *b, size_t n) { int_text("x", f->pcie_max_width, b, n); }
static void port_gts(const struct lb_port_facts *f, char *b, size_t n) { gts_text(f->pcie_gts, b, n); }
static void rule_gts(const struct lb_expect_rule *r, char *b, size_t n) { gts_text(r->pcie_gts, b, n); }
static void device_gts(const struct lb_port_facts *f, char *b, size_t n) { gts_text(f->pcie_max_gts, b, n); }
static void rule_firmware(const struct lb_expect_rule *r, char *b, size_t n) { snprintf(b, n, "%s", r->firmware); }

static void port_firmware(const struct lb_port_facts *f, char *b, size_t n)
{
	snprintf(b, n, "%.*s", (int)sizeof(f->firmware), f->firmware);
}

static void port_driver_version(const struct lb_port_facts *f, char *b, size_t n)
{
	snprintf(b, n, "%.*s", (int)sizeof(f->driver_version), f->driver_version);
}

static int width_below_device(const struct lb_port_facts *f)
{
	return f->pcie_width > 0 && f->pcie_width < f->pcie_max_width;
}

static int gts_below_device(const struct lb_port_facts *f)
{
	return f->pcie_gts > 0 && f->pcie_gts < f->pcie_max_gts;
}

/* The RDMA MTU is not the file's mtu (that is the netdev's; an RDMA MTU is
 * 256 to 4096): the lane's majority alone judges it. */
static const struct fact facts_judged[] = {
	{ "speed", "speed", port_speed, rule_speed, NULL, NULL, LB_FAIL },
	{ "MTU", "MTU", port_mtu, rule_mtu, NULL, NULL, LB_FAIL },
	{ "RDMA MTU", "RDMA MTU", port_rdma_mtu, NULL, NULL, NULL, LB_FAIL },
	{ "PCIe width", "PCIe", port_width, rule_width, device_width, width_below_device, LB_FAIL },
	{ "PCIe speed", "PCIe", port_gts, rule_gts, device_gts, gts_below_device, LB_FAIL },
	{ "firmware", "firmware", port_firmware, rule_firmware, NULL, NULL, LB_WARN },
	{ "driver version", "driver version", port_driver_version, NULL, NULL, NULL, LB_WARN },
};

#define NFACTS (sizeof(facts_judged) / sizeof(facts_judged[0]))
#define SPEED (&facts_judged[0])

/* The values of one fact over a lane's ports. */
struct group {
	const char *text;
	uint32_t count, rank; /* rank: one port that shows it */
};

struct tally {
	char (*text)[TEXT];     /* per rank; "" unknown */
	struct group *groups;   /* the most common first */
	uint32_t ngroups, known;
	const struct group *majority; /* NULL: none */
	int by_majority;        /* a port with no file value was judged by it */
};

static int cmp_text(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int cmp_group(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->text, y->text);
}

/* A majority: at least 3 ports know the value and more than half of them
 * show the same -- fewer, or a split, and the odd one out is not known. */
static void tally_group(struct tally *t, const char **known)
{
	qsort(known, t->known, sizeof(*known), cmp_text);
	for (uint32_t i = 0; i < t->known; i++) {
		if (i == 0 || strcmp(known[i], known[i - 1]) != 0)
			t->groups[t->ngroups++] = (struct group){
				.text = known[i], .rank = (uint32_t)((const char(*)[TEXT])known[i] - t->text)
			};
		t->groups[t->ngroups - 1].count++;
	}
	qsort(t->groups, t->ngroups, sizeof(*t->groups), cmp_group);
	if (t->known >= 3 && t->groups[0].count * 2 > t->known)
		t->majority = &t->groups[0];
}

static int tally_build(struct tally *t, const struct fact *k, const struct lb_port_facts *facts,
		       uint32_t size, uint32_t lanes, uint32_t lane)
{
	*t = (struct tally){ 0 };
	const char **known = malloc(size * sizeof(*known));
	t->text = malloc(size * sizeof(*t->text));
	t->groups = malloc(size * sizeof(*t->groups));
	if (!known || !t->text || !t->groups) {
		free(known);
		return -1;
	}
	for (uint32_t r = 0; r < size; r++) {
		k->of_port(&facts[(size_t)r * lanes + lane], t->text[r], TEXT);
		if (t->text[r][0])
			known[t->known++] = t->text[r];
	}
	tally_group(t, known);
	free(known);
	return 0;
}

static void tally_free(struct tally *t)
{
	free(t->text);
	free(t->groups);
}

/* One lane being judged. */
struct judge {
	const struct lb_port_facts *facts;
	const char *const *nics;
	uint32_t size, lanes, lane;
	const struct lb_expect *e;
	lb_finding_fn fn;
	void *ctx;
	struct tally t[NFACTS];
};

static void say(const struct judge *j, uint32_t rank, enum lb_level level, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* A finding, its reason whole however long. */
static void say(const struct judge *j, uint32_t rank, enum lb_level level, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL; /* its contents are undefined then */
	va_end(ap);
	j->fn(j->ctx, rank, j->lane, level, s ? s : "(out of memory describing a finding)");
	free(s);
}

static const struct lb_port_facts *port_of(const struct judge *j, uint32_t rank)
{
	return &j->facts[(size_t)rank * j->lanes + j->lane];
}

static const char *nic_of(const char *const *nics, uint32_t lanes, uint32_t rank, uint32_t lane)
{
	return nics ? nics[(size_t)rank * lanes + lane] : NULL;
}

/* Operstate "unknown" is no fault: loopback and many virtual links never
 * say more. */
static void judge_link(const struct judge *j, uint32_t rank)
{
	const struct lb_port_facts *f = port_of(j, rank);
	char state[sizeof(f->state) + 1];
	snprintf(state, sizeof(state), "%.*s", (int)sizeof(f->state), f->state);
	int bad_state = state[0] && strcmp(state, "up") != 0 && strcmp(state, "unknown") != 0;
	if (bad_state || f->carrier == 0)
		say(j, rank, LB_FAIL, "link down (%s%s%s%s)", bad_state ? "operstate " : "",
		    bad_state ? state : "", bad_state && f->carrier == 0 ? ", " : "",
		    f->carrier == 0 ? "no carrier" : "");
}

/* sysfs writes an IB port's state "4: ACTIVE", verbs "ACTIVE". */
static void judge_rdma(const struct judge *j, uint32_t rank)
{
	const struct lb_port_facts *f = port_of(j, rank);
	char state[sizeof(f->rdma_state) + 1];
	snprintf(state, sizeof(state), "%.*s", (int)sizeof(f->rdma_state), f->rdma_state);
	const char *s = state + strspn(state, "0123456789");
	s = s != state && strncmp(s, ": ", 2) == 0 ? s + 2 : state;
	if (*s && strcasecmp(s, "ACTIVE") != 0)
		say(j, rank, LB_FAIL, "RDMA port %s", s);
}

/* The last rule for the port that says fact k: its value in buf, its line;
 * 0: none says it. */
static uint32_t said_for(const struct lb_expect *e, const struct fact *k, const struct port_id *p,
			 char *buf, size_t len)
{
	uint32_t line = 0;
	char v[TEXT];
	for (size_t i = 0; k->of_rule && e && i < e->n; i++) {
		if (!rule_matches(&e->rules[i], p))
			continue;
		k->of_rule(&e->rules[i], v, sizeof(v));
		if (v[0]) {
			snprintf(buf, len, "%s", v);
			line = e->rules[i].line;
		}
	}
	return line;
}

static void say_odd(const struct judge *j, uint32_t rank, const struct fact *k, const char *v,
		    const struct tally *t)
{
	uint32_t others = t->known - 1, agree = t->majority->count;
	if (agree == others)
		say(j, rank, k->odd, "%s %s, the lane's other %u port%s %s", k->label, v, others,
		    others == 1 ? "" : "s", t->majority->text);
	else
		say(j, rank, k->odd, "%s %s, %u of the lane's other %u ports %s", k->label, v, agree,
		    others, t->majority->text);
}

/* Fact k of one port: below its device's own (PCIe), unlike the file, or
 * else unlike the lane's majority.  A difference the device's maximum
 * already explains is said once. */
static void judge_fact(struct judge *j, uint32_t rank, size_t ki, const struct port_id *p)
{
	const struct fact *k = &facts_judged[ki];
	const struct lb_port_facts *f = port_of(j, rank);
	struct tally *t = &j->t[ki];
	const char *v = t->text[rank];
	char device[TEXT] = "", want[TEXT];
	if (!v[0])
		return;
	if (k->below_device && k->below_device(f)) {
		k->of_device(f, device, sizeof(device));
		say(j, rank, LB_FAIL, "%s %s (device %s)", k->label, v, device);
	}
	uint32_t line = said_for(j->e, k, p, want, sizeof(want));
	if (line) {
		if (strcmp(v, want) != 0 && strcmp(want, device) != 0)
			say(j, rank, LB_FAIL, "%s %s, expected %s (%s:%u)", k->label, v, want, j->e->path,
			    line);
		return;
	}
	t->by_majority = 1;
	if (t->majority && strcmp(v, t->majority->text) != 0 && strcmp(t->majority->text, device) != 0)
		say_odd(j, rank, k, v, t);
}

/* "lane 0: no majority MTU among 4 ports (2 x 1500, 2 x 9000)" */
static void judge_split(const struct judge *j, const struct fact *k, const struct tally *t)
{
	if (t->majority || t->ngroups < 2 || !t->by_majority)
		return;
	struct lb_buf b = { 0 };
	for (uint32_t g = 0; g < t->ngroups; g++)
		lb_buf_add(&b, "%s%u x %s", g ? ", " : "", t->groups[g].count, t->groups[g].text);
	say(j, LB_FINDING_LANE, LB_WARN, "lane %u: no majority %s among %u ports (%s)", j->lane, k->name,
	    t->known, b.failed ? "(out of memory)" : b.s);
	lb_buf_free(&b);
}

static void judge_lane(struct judge *j)
{
	size_t built = 0;
	while (built < NFACTS &&
	       tally_build(&j->t[built], &facts_judged[built], j->facts, j->size, j->lanes, j->lane) == 0)
		built++;
	if (built < NFACTS) {
		tally_free(&j->t[built]);
		say(j, LB_FINDING_LANE, LB_ERROR, "lane %u: out of memory judging its ports", j->lane);
	} else {
		for (uint32_t r = 0; r < j->size; r++) {
			struct port_id p = port_id(j->lane, nic_of(j->nics, j->lanes, r, j->lane), port_of(j, r));
			judge_link(j, r);
			judge_rdma(j, r);
			for (size_t k = 0; k < NFACTS; k++)
				judge_fact(j, r, k, &p);
		}
		for (size_t k = 0; k < NFACTS; k++)
			judge_split(j, &facts_judged[k], &j->t[k]);
	}
	for (size_t k = 0; k < built; k++)
		tally_free(&j->t[k]);
}

void lb_judge_inventory(const struct lb_port_facts *facts, const char *const *nics, uint32_t size,
			uint32_t lanes, const struct lb_expect *e, lb_finding_fn fn, void *ctx)
{
	for (uint32_t lane = 0; lane < lanes && size; lane++) {
		struct judge j = { .facts = facts, .nics = nics, .size = size, .lanes = lanes,
				   .lane = lane, .e = e, .fn = fn, .ctx = ctx };
		judge_lane(&j);
	}
}

double lb_expected_speed(const struct lb_port_facts *facts, uint32_t size, uint32_t lanes,
			 const struct lb_expect *e, const char *const *nics, uint32_t rank,
			 uint32_t lane, const char **from, uint32_t *line)
{
	const char *src = "none";
	uint32_t at = 0;
	double bps = 0;
	struct port_id p = port_id(lane, nic_of(nics, lanes, rank, lane),
				   &facts[(size_t)rank * lanes + lane]);
	for (size_t i = 0; e && i < e->n; i++)
		if (e->rules[i].speed_bps > 0 && rule_matches(&e->rules[i], &p)) {
			bps = e->rules[i].speed_bps;
			at = e->rules[i].line;
			src = "expect";
		}
	struct tally t;
	if (!at && tally_build(&t, SPEED, facts, size, lanes, lane) == 0) {
		if (t.majority) {
			bps = facts[(size_t)t.majority->rank * lanes + lane].speed_bps;
			src = "majority";
		}
		tally_free(&t);
	}
	if (from)
		*from = src;
	if (line)
		*line = at;
	return bps;
}

/* ---- measured figures ------------------------------------------------------ */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median_of(double *v, uint32_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct lb_robust lb_robust_of(const double *v, uint32_t n)
{
	struct lb_robust r = { 0, 0, 0 };
	double *w = malloc((n ? n : 1) * sizeof(*w));
	if (!w)
		return r;
	for (uint32_t i = 0; i < n; i++)
		if (isfinite(v[i]))
			w[r.n++] = v[i];
	if (r.n) {
		r.median = median_of(w, r.n);
		for (uint32_t i = 0; i < r.n; i++)
			w[i] = fabs(w[i] - r.median);
		r.mad = median_of(w, r.n);
	}
	free(w);
	return r;
}

/* 1.4826 MAD estimates the standard deviation of a normal population;
 * 3 of them is the usual outlier fence. */
enum lb_level lb_robust_judge(const struct lb_robust *r, double x, double min_fraction,
			      double floor_abs)
{
	if (!isfinite(x))
		return LB_ERROR;
	if (floor_abs > 0 && x < floor_abs)
		return LB_FAIL;
	if (!r || !(x < min_fraction * r->median))
		return LB_PASS;
	if (r->n < LB_ROBUST_MIN)
		return LB_WARN;
	return x < r->median - 3 * 1.4826 * r->mad ? LB_FAIL : LB_WARN;
}
