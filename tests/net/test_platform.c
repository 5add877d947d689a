/* The platform text format (net/platform_text.c): every bad line is
 * refused with "FILE:LINE: 'TOKEN': why", and format -> parse gives back an
 * equal platform for hand-built platforms of every feature and for random
 * ones. */
#include <stdlib.h>

#include "net/platform.h"
#include "check.h"

/* ---- equality ---- */

static int same_link(const struct lb_link *a, const struct lb_link *b, unsigned fields)
{
	return (!(fields & LB_LINK_LAT) || a->lat == b->lat) &&
	       (!(fields & LB_LINK_OCC) || a->occ == b->occ) &&
	       (!(fields & LB_LINK_BW) || a->bw == b->bw);
}

static int same_rules(const struct lb_platform *a, const struct lb_platform *b)
{
	if (a->nrules != b->nrules)
		return 0;
	for (size_t i = 0; i < a->nrules; i++) {
		const struct lb_link_rule *x = &a->rule[i], *y = &b->rule[i];
		if (x->u != y->u || x->v != y->v || x->lane != y->lane ||
		    x->fields != y->fields || !same_link(&x->link, &y->link, x->fields))
			return 0;
	}
	return 1;
}

static int same_nodes(const struct lb_platform *a, const struct lb_platform *b)
{
	for (uint32_t u = 0; u < a->nodes; u++) {
		const struct lb_node *x = &a->node[u], *y = &b->node[u];
		if (x->send != y->send || x->recv != y->recv || x->gap != y->gap ||
		    x->rate != y->rate || x->site != y->site)
			return 0;
	}
	return 1;
}

static int same_sites(const struct lb_platform *a, const struct lb_platform *b)
{
	if (a->sites != b->sites || a->nwan != b->nwan || a->barrier_all != b->barrier_all)
		return 0;
	for (uint32_t s = 0; s < a->sites; s++)
		if (a->site[s].coordinator != b->site[s].coordinator ||
		    a->site[s].local_bcast != b->site[s].local_bcast ||
		    a->site[s].barrier != b->site[s].barrier)
			return 0;
	for (size_t i = 0; i < a->nwan; i++)
		if (a->wan[i].a != b->wan[i].a || a->wan[i].b != b->wan[i].b ||
		    a->wan[i].lat != b->wan[i].lat || a->wan[i].bw != b->wan[i].bw)
			return 0;
	return 1;
}

/* Every looked-up link too: what the users of a platform see. */
static int same_lookups(const struct lb_platform *a, const struct lb_platform *b)
{
	for (uint32_t l = 0; l < a->lanes; l++)
		for (uint32_t u = 0; u < a->nodes; u++)
			for (uint32_t v = 0; v < a->nodes; v++) {
				if (u == v)
					continue;
				struct lb_link x = lb_platform_link(a, u, v, l);
				struct lb_link y = lb_platform_link(b, u, v, l);
				if (!same_link(&x, &y, LB_LINK_LAT | LB_LINK_OCC | LB_LINK_BW))
					return 0;
			}
	return 1;
}

static int same_platform(const struct lb_platform *a, const struct lb_platform *b)
{
	return a->nodes == b->nodes && a->lanes == b->lanes &&
	       same_link(&a->dflt, &b->dflt, LB_LINK_LAT | LB_LINK_OCC | LB_LINK_BW) &&
	       same_rules(a, b) && same_nodes(a, b) && same_sites(a, b) && same_lookups(a, b);
}

/* Formats pf (sealed), parses the text back and compares; the hash of
 * both is the same and the text is a fixed point. */
static void round_trip(const char *name, const struct lb_platform *pf)
{
	char err[512];
	char *text = lb_platform_format(pf);
	CHECK(text != NULL, "%s: format failed", name);
	if (!text)
		return;
	struct lb_platform *back = lb_platform_parse(text, name, err, sizeof(err));
	CHECK(back != NULL, "%s: %s\n%s", name, err, text);
	if (back) {
		CHECK(same_platform(pf, back), "%s: parsed back differs:\n%s", name, text);
		char *again = lb_platform_format(back);
		CHECK(again && strcmp(again, text) == 0, "%s: text changed:\n%s\n%s", name, text, again);
		CHECK(lb_platform_hash(pf) == lb_platform_hash(back), "%s: hashes differ", name);
		free(again);
	}
	lb_platform_free(back);
	free(text);
}

/* ---- hand-built platforms ---- */

static void set_link(struct lb_platform *pf, uint32_t u, uint32_t v, uint32_t lane,
		     unsigned fields, double lat, double occ, double bw)
{
	struct lb_link l = { lat, occ, bw };
	CHECK(lb_platform_set_link(pf, u, v, lane, fields, &l) == 0, "set_link %u %u", u, v);
}

static void add_sites(struct lb_platform *pf, uint32_t sites)
{
	pf->site = calloc(sites, sizeof(*pf->site));
	pf->sites = sites;
	for (uint32_t u = 0; u < pf->nodes; u++)
		pf->node[u].site = u % sites; /* interleaved: lists, not one range */
	for (uint32_t s = 0; s < sites; s++)
		pf->site[s].coordinator = s;
}

/* Every statement of the format on one platform. */
static struct lb_platform *every_feature(void)
{
	struct lb_platform *pf = lb_platform_new(9, 3);
	pf->dflt = (struct lb_link){ 1e-6 / 3, 5e-6, 1e9 / 8 };
	pf->node[4] = (struct lb_node){ 160e-6, 130e-6, 0.1 + 0.2, 600e6 / 8, LB_PLATFORM_NO_SITE };
	pf->node[7].rate = 12345.678;
	set_link(pf, 0, 1, LB_PLATFORM_ALL_LANES, LB_LINK_BW, 0, 0, 95e6);
	set_link(pf, 1, 0, LB_PLATFORM_ALL_LANES, LB_LINK_BW, 0, 0, 95e6);
	set_link(pf, 2, 5, 1, LB_LINK_BW | LB_LINK_LAT, 350e-6, 0, 50e6 / 8);
	set_link(pf, 0, 7, LB_PLATFORM_ALL_LANES, LB_LINK_BW, 0, 0, 0);
	set_link(pf, 3, 8, 2, LB_LINK_BW | LB_LINK_OCC | LB_LINK_LAT, 1e-3, 7e-6, 0);
	set_link(pf, 3, 8, LB_PLATFORM_ALL_LANES, LB_LINK_OCC, 0, 2e-6, 0);
	CHECK(lb_platform_seal(pf) == 0, "seal");
	add_sites(pf, 3);
	pf->site[1] = (struct lb_site){ 7, 1.2, 0 };
	pf->site[0].barrier = 50e-6;
	pf->wan = calloc(2, sizeof(*pf->wan));
	pf->wan[0] = (struct lb_wan){ 0, 1, 10e-3, 1e9 / 8 };
	pf->wan[1] = (struct lb_wan){ 2, 1, 0, 1e6 / 3 };
	pf->nwan = 2;
	pf->barrier_all = 200e-6;
	return pf;
}

static void hand_built(void)
{
	struct lb_platform *pf = every_feature();
	round_trip("every-feature", pf);
	lb_platform_free(pf);
	pf = lb_platform_new(2, 1); /* nothing set: "default none" */
	round_trip("empty", pf);
	lb_platform_free(pf);
	pf = lb_platform_new(3, 1); /* a default that is no link, with a latency */
	pf->dflt.lat = 2e-6;
	round_trip("default-lat-only", pf);
	lb_platform_free(pf);
}

/* ---- random platforms (xorshift64*, fixed seeds) ---- */

static uint64_t rng_state;

static uint64_t rng_next(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ull;
}

static uint32_t rng_below(uint32_t n)
{
	return (uint32_t)(rng_next() % n);
}

/* A value over many decades, so that 17 digits are needed. */
static double rng_value(double scale)
{
	return scale * (double)(rng_next() >> 11) / (double)(1ull << 53) * 1e3 + scale * 1e-3;
}

static void random_rules(struct lb_platform *pf, unsigned count)
{
	for (unsigned i = 0; i < count; i++) {
		uint32_t u = rng_below(pf->nodes), v = rng_below(pf->nodes);
		if (u == v)
			continue;
		uint32_t lane = rng_below(2) ? LB_PLATFORM_ALL_LANES : rng_below(pf->lanes);
		unsigned fields = 1 + rng_below(7);
		double bw = rng_below(4) ? rng_value(1e6) : 0; /* some rules remove the link */
		set_link(pf, u, v, lane, fields, rng_value(1e-6), rng_value(1e-6), bw);
	}
}

static void random_sites(struct lb_platform *pf)
{
	uint32_t sites = 1 + rng_below(pf->nodes < 4 ? pf->nodes : 4);
	pf->site = calloc(sites, sizeof(*pf->site));
	pf->sites = sites;
	for (uint32_t u = 0; u < pf->nodes; u++)
		pf->node[u].site = u < sites ? u : rng_below(sites); /* none empty */
	for (uint32_t s = 0; s < sites; s++) {
		pf->site[s].coordinator = s;
		pf->site[s].local_bcast = rng_below(2) ? rng_value(1e-3) : 0;
		pf->site[s].barrier = rng_below(2) ? rng_value(1e-6) : 0;
	}
	pf->wan = calloc(sites, sizeof(*pf->wan));
	for (uint32_t s = 1; s < sites; s++)
		pf->wan[pf->nwan++] = (struct lb_wan){ s - 1, s, rng_value(1e-3), rng_value(1e6) };
	pf->barrier_all = rng_below(2) ? rng_value(1e-6) : 0;
}

static struct lb_platform *random_platform(void)
{
	struct lb_platform *pf = lb_platform_new(2 + rng_below(30), 1 + rng_below(4));
	if (rng_below(2))
		pf->dflt = (struct lb_link){ rng_value(1e-6), rng_value(1e-6), rng_value(1e6) };
	for (uint32_t u = 0; u < pf->nodes; u++)
		if (rng_below(3) == 0)
			pf->node[u] = (struct lb_node){ rng_value(1e-6), rng_value(1e-6),
							rng_value(1e-6), rng_below(2) ? rng_value(1e6) : 0,
							LB_PLATFORM_NO_SITE };
	random_rules(pf, rng_below(80));
	CHECK(lb_platform_seal(pf) == 0, "seal");
	if (rng_below(2))
		random_sites(pf);
	return pf;
}

static void random_round_trips(void)
{
	rng_state = 0x9e3779b97f4a7c15ull;
	for (int i = 0; i < 200; i++) {
		char name[32];
		snprintf(name, sizeof(name), "random-%d", i);
		struct lb_platform *pf = random_platform();
		round_trip(name, pf);
		lb_platform_free(pf);
	}
}

/* ---- bad input ---- */

struct bad {
	const char *text, *message;
};

static const struct bad bad_inputs[] = {
	{ "nodes 4\nfrobnicate 1\n", "t.txt:2: 'frobnicate': unknown keyword" },
	{ "nodes 4\nlink 0 1 bw -1gbit\n", "t.txt:2: 'bw -1gbit': bad rate" },
	{ "nodes 4\nlink 0 1 bw 0bit\n", "t.txt:2: 'bw 0bit': bad rate" },
	{ "nodes 4\nlink 0 1 bw fast\n", "t.txt:2: 'bw fast': bad rate" },
	{ "nodes 4\nlink 0 1 lat -5us bw 1gbit\n", "t.txt:2: 'lat -5us': bad duration" },
	{ "nodes 4\nnode 2 send 1parsec\n", "t.txt:2: 'send 1parsec': bad duration" },
	/* values outside their physical range (lib/units.h), where they enter */
	{ "nodes 4\ndefault lat 1e308 bw 1gbit\n", "t.txt:2: 'lat 1e308': bad duration '1e308': out of range" },
	{ "nodes 4\ndefault occ 1e308 bw 1gbit\n", "t.txt:2: 'occ 1e308': bad duration" },
	{ "nodes 4\ndefault bw 1e-320bit\n", "t.txt:2: 'bw 1e-320bit': bad rate '1e-320bit': out of range" },
	{ "nodes 4\ndefault bw 1gbit\nnode 0 rate 1e-320bit\n", "t.txt:3: 'rate 1e-320bit': bad rate" },
	{ "nodes 4\nlink 0 1 bw 20tbit\n", "t.txt:2: 'bw 20tbit': bad rate" },
	{ "nodes 4\nlink 0 1 occ 1e-320 bw 1gbit\n", "t.txt:2: 'occ 1e-320': bad duration" },
	{ "nodes 4\nnode 1 gap 2h\n", "t.txt:2: 'gap 2h': bad duration" },
	{ "nodes 4\nnode 1 send 3601s\n", "t.txt:2: 'send 3601s': bad duration" },
	{ "nodes 4\nsite 0 ranks 0-3\nsite 0 local-bcast 1e300\n", "t.txt:3: 'local-bcast 1e300': bad duration" },
	{ "nodes 4\nbarrier all 1e-300\n", "t.txt:2: '1e-300': bad duration" },
	{ "nodes 4\nsite 0 ranks 0-1\nsite 1 ranks 2-3\nwan 0 1 lat 1e9 bw 1gbit\n",
	  "t.txt:4: 'lat 1e9': bad duration" },
	{ "nodes 0\n", "t.txt:1: '0': expected a whole number from 1 to 4096" },
	{ "nodes -3\n", "t.txt:1: '-3': expected a whole number" },
	{ "nodes 4\nlanes 0\n", "t.txt:2: '0': expected a whole number from 1 to 255" },
	{ "nodes 4\nlink 0 4 bw 1gbit\n", "t.txt:2: '4': rank out of range (0-3)" },
	{ "nodes 4\nnode 9 send 1us\n", "t.txt:2: '9': rank out of range (0-3)" },
	{ "nodes 4\nlanes 2\nlink 0 1 lane 2 bw 1gbit\n", "t.txt:3: '2': lane out of range (0-1)" },
	{ "nodes 4\nlink 2 2 bw 1gbit\n", "t.txt:2: '2': a link joins two different ranks" },
	{ "nodes 4\nnolink 3 3\n", "t.txt:2: '3': a link joins two different ranks" },
	{ "nodes 4\nnodes 5\n", "t.txt:2: 'nodes': given twice (first on line 1)" },
	{ "# a comment\nlanes 2\n", "t.txt:2: 'nodes N': missing" },
	{ "", "t.txt:1: 'nodes N': missing" },
	{ "lanes 2\nlink 0 1 bw 1gbit\n", "t.txt:2: 'link': comes before 'nodes N'" },
	{ "nodes 4\nlink 0 1 bw 1gbit\nlanes 2\n", "t.txt:3: 'lanes': must come before" },
	{ "nodes 4\nsite 0 ranks 0-1\nsite 1 ranks 1-3\n", "t.txt:3: '1-3': rank 1 is already in site 0" },
	{ "nodes 4\nsite 0 ranks 0-5\n", "t.txt:2: '0-5': bad rank '5'" },
	{ "nodes 4\nsite 1 ranks 0-1\n", "t.txt:2: '1': sites are numbered in order from 0" },
	{ "nodes 4\nsite 0 ranks 0-1\nwan 0 1 bw 1gbit\n", "t.txt:3: '1': unknown site" },
	{ "nodes 4\nsite 0 ranks 0-1\nsite 1 ranks 2-3\nwan 1 1 bw 1gbit\n",
	  "t.txt:4: '1': a wan joins two different sites" },
	{ "nodes 4\nsite 0 ranks 0-1\nsite 1 ranks 2-3\nwan 0 1 lat 1ms\n", "t.txt:4: 'wan': needs a bw" },
	{ "nodes 4\nsite 0 ranks 0-1\nsite 1 ranks 2-3\nwan 0 1 bw 1gbit\nwan 1 0 bw 2gbit\n",
	  "t.txt:5: 'wan': sites 1 and 0 already have a wan" },
	{ "nodes 4\nsite 0 ranks 0-1\ncoordinator 0 3\n", "t.txt:3: '3': rank 3 is not in site 0" },
	{ "nodes 4\nsite 0 local-bcast 1s\n", "t.txt:2: '0': unknown site" },
	{ "nodes 4\nbarrier 0 1us\n", "t.txt:2: 'barrier': expected 'barrier site S T'" },
	{ "nodes 4\nlink 0 1 speed 1gbit\n", "t.txt:2: 'speed': not a word of 'link'" },
	{ "nodes 4\nlink 0 1 bw 1gbit bw 2gbit\n", "t.txt:2: 'bw': given twice on one line" },
	{ "nodes 4\nlink 0 1 bw\n", "t.txt:2: 'bw': needs a value" },
	{ "nodes 4\nlink 0 1 oneway\n", "t.txt:2: 'link': sets nothing" },
	{ "nodes 4\nlink 0\n", "t.txt:2: 'link': too few words" },
	{ "nodes 4\ndefault lane 1\n", "t.txt:2: 'lane': not a word of 'default'" },
	{ "# lanebench platform 2\nnodes 4\n",
	  "t.txt:1: '# lanebench platform 2': a platform file of another version" },
};

static void bad_input(void)
{
	for (size_t i = 0; i < sizeof(bad_inputs) / sizeof(bad_inputs[0]); i++) {
		char err[512] = "";
		struct lb_platform *pf = lb_platform_parse(bad_inputs[i].text, "t.txt", err, sizeof(err));
		CHECK(pf == NULL, "accepted: %s", bad_inputs[i].text);
		CHECK(strncmp(err, bad_inputs[i].message, strlen(bad_inputs[i].message)) == 0,
		      "message '%s', expected it to start '%s'", err, bad_inputs[i].message);
		CHECK(strchr(err, '\n') == NULL, "not one line: '%s'", err);
		lb_platform_free(pf);
	}
}

/* ---- what the format means ---- */

static struct lb_platform *parse_ok(const char *text)
{
	char err[512];
	struct lb_platform *pf = lb_platform_parse(text, "ok.txt", err, sizeof(err));
	CHECK(pf != NULL, "%s", err);
	return pf;
}

/* The example of net/platform.h's header, read as it says. */
static void header_example(void)
{
	struct lb_platform *pf = parse_ok(
		"# lanebench platform 1\nnodes 8\nlanes 2\n"
		"default lat 0 occ 5us bw 1gbit   # every pair\n"
		"node 4 send 160us recv 130us gap 160us\nnode 4 rate 600mbit\n"
		"link 0 1 bw 95MB/s\nlink 2 5 lane 1 bw 50mbit lat 350us oneway\n"
		"nolink 0 7\nsite 0 ranks 0-3\nsite 1 ranks 4-7\ncoordinator 1 6\n"
		"site 1 local-bcast 1.2s\nwan 0 1 lat 10ms bw 1gbit\n"
		"barrier site 0 50us\nbarrier all 200us\n");
	if (!pf)
		return;
	CHECK(lb_platform_link(pf, 1, 0, 1).bw == 95e6, "link 0 1 is both ways");
	CHECK(lb_platform_link(pf, 2, 5, 1).bw == 50e6 / 8 && lb_platform_link(pf, 2, 5, 1).lat == 350e-6,
	      "link 2 5 lane 1");
	CHECK(lb_platform_link(pf, 5, 2, 1).bw == 1e9 / 8, "oneway: 5 -> 2 keeps the default");
	CHECK(lb_platform_link(pf, 2, 5, 0).bw == 1e9 / 8, "lane 0 keeps the default");
	CHECK(!lb_platform_has_link(pf, 7, 0, 0) && !lb_platform_has_link(pf, 0, 7, 1), "nolink 0 7");
	CHECK(lb_platform_link(pf, 3, 4, 0).bw == 600e6 / 8, "node 4's rate caps its links");
	CHECK(check_close(pf->node[4].send, 160e-6, 1e-15) &&
	      check_close(pf->node[4].recv, 130e-6, 1e-15), "node 4's overheads");
	CHECK(pf->sites == 2 && pf->site[0].coordinator == 0 && pf->site[1].coordinator == 6,
	      "coordinators: the lowest rank unless given");
	CHECK(pf->site[1].local_bcast == 1.2 && check_close(pf->site[0].barrier, 50e-6, 1e-15) &&
	      check_close(pf->barrier_all, 200e-6, 1e-15), "site values");
	CHECK(pf->nwan == 1 && pf->wan[0].lat == 10e-3 && pf->wan[0].bw == 1e9 / 8, "wan");
	CHECK(pf->node[5].site == 1, "rank 5 in site 1");
	lb_platform_free(pf);
}

/* Without a magic line, "default none", later lines winning field by field,
 * and reachability left to the caller. */
static void semantics(void)
{
	struct lb_platform *pf = parse_ok("nodes 3\r\ndefault none\r\n"
					  "link 0 1 bw 1gbit lat 1us\nlink 0 1 lat 2us oneway\n");
	if (!pf)
		return;
	CHECK(lb_platform_link(pf, 0, 1, 0).lat == 2e-6 && lb_platform_link(pf, 0, 1, 0).bw == 1e9 / 8,
	      "the later line sets lat only");
	CHECK(lb_platform_link(pf, 1, 0, 0).lat == 1e-6, "oneway left 1 -> 0 alone");
	char err[256];
	CHECK(lb_platform_check_reachable(pf, 0, 0, err, sizeof(err)) != 0, "node 2 is cut off");
	lb_platform_free(pf);
	pf = parse_ok("# lanebench platforms of the lab\nnodes 2\n");
	CHECK(pf != NULL, "a comment that starts like the magic line is a comment");
	lb_platform_free(pf);
}

int main(void)
{
	bad_input();
	header_example();
	semantics();
	hand_built();
	random_round_trips();
	return check_status("test_platform");
}
