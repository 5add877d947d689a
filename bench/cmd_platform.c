/* lanebench platform show FILE: a platform file (net/platform.h) as
 * people read it (bandwidth, latency and occupation matrices per lane,
 * node overheads, sites) or as one line per directed link (--format links:
 * for scripts such as the emulated cluster's per-link set-up).
 * lanebench platform gen random|tiers-like: a generated platform file
 * (net/platgen.h), its generator's parameters in its comment head;
 * gen g5k|x5|x10: seed 002's clusters of clusters (net/clustergen.h);
 * gen wu-8: seed 001's 8 workstations (algos/wu/agent.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "net/platgen.h"
#include "algos/sites.h"
#include "lib/units.h"
#include "net/clustergen.h"
#include "algos/wu/agent.h"
#include "platform_file.h"
#include "report/outfile.h"

#define ALL_LANES UINT32_MAX /* --lane not given */

enum show_format { FORMAT_MATRIX, FORMAT_LINKS, FORMAT_SITES };

#define UNSET UINT32_MAX /* a gen option not given */

/* gen's parameters as given (UNSET, or < 0 for the reals: not given). */
struct gen_opts {
	uint32_t nodes, seed;
	double density, bw_mean, bw_dev;
	int asymmetric, shuffle_ids;
	uint32_t tiers[10]; /* sw nm sm nl sl rw rm rl rmw rlm */
	uint32_t clusters, site_ranks; /* g5k, x5, x10 */
	uint64_t bytes;
};

struct platform_opts {
	const char *words[2]; /* ACTION FILE, or gen KIND */
	uint32_t lane;
	int format; /* enum show_format */
	const char *output;
	struct gen_opts gen;
};

#define OFF(f) offsetof(struct platform_opts, f)

static const char *const format_names[] = { "matrix", "links", "sites", NULL };

/* --density: a probability, 0 to 1. */
static int set_density(void *target, const char *arg, char *err, size_t errlen)
{
	char *end;
	double d = strtod(arg, &end);
	if (!*arg || *end || !(d >= 0 && d <= 1)) {
		snprintf(err, errlen, "'%s': a probability between 0 and 1", arg);
		return -1;
	}
	*(double *)target = d;
	return 0;
}

static const struct lb_opt platform_opts_table[] = {
	{ LB_OPT("lane", 0, "L", "show lane L only (default: every lane)", LB_OPT_UINT, OFF(lane)),
	  .min = 0, .max = LB_PLATFORM_MAX_LANES - 1 },
	{ LB_OPT("format", 'f', NULL, "matrix: tables for people; links: one line per directed "
		 "link for scripts; sites: the sites and WAN lines for scripts (see below)",
		 LB_OPT_ENUM, OFF(format)),
	  .def = "matrix", .choices = format_names },
	{ LB_OPT("output", 'o', "FILE", "write to FILE instead of stdout (not created when the "
		 "platform is refused)", LB_OPT_STRING, OFF(output)) },
	{ LB_OPT("nodes", 'n', "N", "gen: node count (random: any; tiers-like: the preset 30 or "
		 "65, default 30)", LB_OPT_UINT, OFF(gen.nodes)), .min = 2, .max = 4096 },
	{ LB_OPT("seed", 0, "S", "gen: seed (default 1): the same seed, the same file",
	  LB_OPT_UINT, OFF(gen.seed)), .max = UINT32_MAX - 1 },
	{ LB_OPT("density", 0, "D", "gen random: probability of each pair beyond a random "
		 "spanning tree (default 0.12)", LB_OPT_HANDLER, OFF(gen.density)),
	  .handler = set_density },
	{ LB_OPT("bw-mean", 0, "RATE", "gen: mean of the Gaussian link bandwidth (default 100MB/s)",
	  LB_OPT_RATE, OFF(gen.bw_mean)) },
	{ LB_OPT("bw-dev", 0, "RATE", "gen: its deviation (default 20MB/s)",
	  LB_OPT_RATE, OFF(gen.bw_dev)) },
	{ LB_OPT("asymmetric", 0, NULL, "gen: draw each direction of a pair apart",
	  LB_OPT_FLAG, OFF(gen.asymmetric)) },
	{ LB_OPT("shuffle-ids", 0, NULL, "gen tiers-like: number the nodes at random, not WAN "
		 "first then each MAN and LAN", LB_OPT_FLAG, OFF(gen.shuffle_ids)) },
#define TIERS_OPT(name_, i_, help_)                                                  \
	{ LB_OPT(name_, 0, "N", "gen tiers-like: " help_, LB_OPT_UINT, OFF(gen.tiers[i_])), \
	  .max = 4096 }
	TIERS_OPT("sw", 0, "nodes of the WAN"),
	TIERS_OPT("nm", 1, "MANs"),
	TIERS_OPT("sm", 2, "nodes per MAN"),
	TIERS_OPT("nl", 3, "LANs per MAN"),
	TIERS_OPT("sl", 4, "nodes per LAN"),
	TIERS_OPT("rw", 5, "WAN redundancy: each node also joined to its N nearest"),
	TIERS_OPT("rm", 6, "MAN redundancy"),
	TIERS_OPT("rl", 7, "LAN redundancy (0: stars)"),
	TIERS_OPT("rmw", 8, "edges joining each MAN to the WAN"),
	TIERS_OPT("rlm", 9, "edges joining each LAN to its MAN"),
#undef TIERS_OPT
	{ LB_OPT("clusters", 0, "C", "gen g5k|x5|x10: clusters (sites; default 10)", LB_OPT_UINT,
	  OFF(gen.clusters)), .min = 1, .max = 4096 },
	{ LB_OPT("site-ranks", 0, "R", "gen g5k|x5|x10: ranks per site (default 4)", LB_OPT_UINT,
	  OFF(gen.site_ranks)), .min = 1, .max = 4096 },
	{ LB_OPT("bytes", 0, "SIZE", "gen g5k|x5|x10: the message the gaps g are for (default 1MiB)",
	  LB_OPT_SIZE, OFF(gen.bytes)) },
};

/* ---- readable values ---- */

/* Bytes per second in the decimal unit that fits: "95 MB/s", "333.3 KB/s". */
static void format_rate(double bytes_per_s, char *buf, size_t len)
{
	static const char *const units[] = { "B/s", "KB/s", "MB/s", "GB/s", "TB/s" };
	size_t i = 0;
	while (i < 4 && bytes_per_s >= 1000) {
		bytes_per_s /= 1000;
		i++;
	}
	snprintf(buf, len, "%.4g %s", bytes_per_s, units[i]);
}

enum quantity { Q_BW, Q_LAT, Q_OCC };

static const char *const quantity_title[] = {
	"bandwidth", "latency, in flight", "occupation per message, ports busy",
};

/* One cell of a matrix: the value of u -> v, or '-' (no link, or u == v). */
static void cell(const struct lb_platform *pf, uint32_t u, uint32_t v, uint32_t lane,
		 enum quantity q, char *buf, size_t len)
{
	struct lb_link l = lb_platform_link(pf, u, v, lane);
	if (u == v || l.bw <= 0)
		snprintf(buf, len, "-");
	else if (q == Q_BW)
		format_rate(l.bw, buf, len);
	else
		lb_format_seconds(q == Q_LAT ? l.lat : l.occ, buf, len);
}

/* Whether some existing link of the lane has a non-zero lat (or occ). */
static int any_nonzero(const struct lb_platform *pf, uint32_t lane, enum quantity q)
{
	for (uint32_t u = 0; u < pf->nodes; u++)
		for (uint32_t v = 0; v < pf->nodes; v++) {
			struct lb_link l = lb_platform_link(pf, u, v, lane);
			if (u != v && l.bw > 0 && (q == Q_LAT ? l.lat : l.occ) != 0)
				return 1;
		}
	return 0;
}

static int cell_width(const struct lb_platform *pf, uint32_t lane, enum quantity q)
{
	char buf[64];
	int w = snprintf(buf, sizeof(buf), "%u", pf->nodes - 1);
	for (uint32_t u = 0; u < pf->nodes; u++)
		for (uint32_t v = 0; v < pf->nodes; v++) {
			cell(pf, u, v, lane, q, buf, sizeof(buf));
			if ((int)strlen(buf) > w)
				w = (int)strlen(buf);
		}
	return w;
}

/* Rows: from; columns: to. */
static void print_matrix(FILE *f, const struct lb_platform *pf, uint32_t lane, enum quantity q)
{
	char buf[64];
	int w = cell_width(pf, lane, q);
	int rw = snprintf(buf, sizeof(buf), "%u", pf->nodes - 1);
	fprintf(f, "\nlane %u %s (row: from, column: to; '-': no link)\n%*s", lane,
		quantity_title[q], rw, "");
	for (uint32_t v = 0; v < pf->nodes; v++)
		fprintf(f, "  %*u", w, v);
	fputc('\n', f);
	for (uint32_t u = 0; u < pf->nodes; u++) {
		fprintf(f, "%*u", rw, u);
		for (uint32_t v = 0; v < pf->nodes; v++) {
			cell(pf, u, v, lane, q, buf, sizeof(buf));
			fprintf(f, "  %*s", w, buf);
		}
		fputc('\n', f);
	}
}

/* ---- the parts of the matrix form ---- */

static void print_nodes(FILE *f, const struct lb_platform *pf)
{
	int header = 0;
	for (uint32_t u = 0; u < pf->nodes; u++) {
		const struct lb_node *n = &pf->node[u];
		if (n->send == 0 && n->recv == 0 && n->gap == 0 && n->rate == 0)
			continue;
		char send[32], recv[32], gap[32], rate[32] = "none";
		lb_format_seconds(n->send, send, sizeof(send));
		lb_format_seconds(n->recv, recv, sizeof(recv));
		lb_format_seconds(n->gap, gap, sizeof(gap));
		if (n->rate > 0)
			format_rate(n->rate, rate, sizeof(rate));
		if (!header++)
			fprintf(f, "\nnode overheads (per message) and NIC caps:\n");
		fprintf(f, "  node %u: send %s, recv %s, gap %s, rate cap %s\n", u, send, recv, gap,
			rate);
	}
}

static void print_site_ranks(FILE *f, const struct lb_platform *pf, uint32_t s)
{
	const char *sep = "";
	for (uint32_t u = 0; u < pf->nodes; u++) {
		if (pf->node[u].site != s)
			continue;
		uint32_t last = u;
		while (last + 1 < pf->nodes && pf->node[last + 1].site == s)
			last++;
		if (last > u)
			fprintf(f, "%s%u-%u", sep, u, last);
		else
			fprintf(f, "%s%u", sep, u);
		sep = ",";
		u = last;
	}
}

static void print_sites(FILE *f, const struct lb_platform *pf)
{
	char t[32];
	for (uint32_t s = 0; s < pf->sites; s++) {
		fprintf(f, "%ssite %u: ranks ", s ? "" : "\n", s);
		print_site_ranks(f, pf, s);
		fprintf(f, ", coordinator %u", pf->site[s].coordinator);
		lb_format_seconds(pf->site[s].local_bcast, t, sizeof(t));
		if (pf->site[s].local_bcast > 0)
			fprintf(f, ", local-bcast %s", t);
		lb_format_seconds(pf->site[s].barrier, t, sizeof(t));
		if (pf->site[s].barrier > 0)
			fprintf(f, ", barrier %s", t);
		fputc('\n', f);
	}
	for (size_t i = 0; i < pf->nwan; i++) {
		char lat[32], bw[32];
		lb_format_seconds(pf->wan[i].lat, lat, sizeof(lat));
		format_rate(pf->wan[i].bw, bw, sizeof(bw));
		fprintf(f, "wan %u-%u: lat %s, bw %s\n", pf->wan[i].a, pf->wan[i].b, lat, bw);
	}
	lb_format_seconds(pf->barrier_all, t, sizeof(t));
	if (pf->barrier_all > 0)
		fprintf(f, "barrier all: %s\n", t);
}

static void show_matrix(FILE *f, const char *path, const struct lb_platform *pf, uint32_t lane)
{
	fprintf(f, "platform %s: %u nodes, %u lane%s, %u site%s (hash %016llx)\n", path,
		pf->nodes, pf->lanes, pf->lanes == 1 ? "" : "s", pf->sites,
		pf->sites == 1 ? "" : "s", (unsigned long long)lb_platform_hash(pf));
	print_nodes(f, pf);
	print_sites(f, pf);
	for (uint32_t l = 0; l < pf->lanes; l++) {
		if (lane != ALL_LANES && l != lane)
			continue;
		print_matrix(f, pf, l, Q_BW);
		if (any_nonzero(pf, l, Q_LAT))
			print_matrix(f, pf, l, Q_LAT);
		if (any_nonzero(pf, l, Q_OCC))
			print_matrix(f, pf, l, Q_OCC);
	}
}

/* "link U V LANE BYTES_PER_S LAT_S OCC_S" / "nolink U V LANE", numbers
 * exact (17 digits), every ordered pair of every lane shown. */
static void show_lane_links(FILE *f, const struct lb_platform *pf, uint32_t lane)
{
	for (uint32_t u = 0; u < pf->nodes; u++)
		for (uint32_t v = 0; v < pf->nodes; v++) {
			if (u == v)
				continue;
			struct lb_link k = lb_platform_link(pf, u, v, lane);
			if (k.bw > 0)
				fprintf(f, "link %u %u %u %.17g %.17g %.17g\n", u, v, lane, k.bw,
					k.lat, k.occ);
			else
				fprintf(f, "nolink %u %u %u\n", u, v, lane);
		}
}

static void show_links(FILE *f, const struct lb_platform *pf, uint32_t lane)
{
	for (uint32_t l = 0; l < pf->lanes; l++)
		if (lane == ALL_LANES || l == lane)
			show_lane_links(f, pf, l);
}

/* "site S FIRST LAST" per site (contiguous ranks, sites.h's map) and
 * "wan A B LAT_S BYTES_PER_S" per wan line, numbers exact. */
static void show_sites(FILE *f, const struct lb_platform *pf, const uint32_t *first)
{
	for (uint32_t s = 0; s < pf->sites; s++)
		fprintf(f, "site %u %u %u\n", s, first[s], first[s + 1] - 1);
	for (size_t i = 0; i < pf->nwan; i++)
		fprintf(f, "wan %u %u %.17g %.17g\n", pf->wan[i].a, pf->wan[i].b, pf->wan[i].lat,
			pf->wan[i].bw);
}

/* ---- the command ---- */

/* The file as messages name it (lb_platform_read_file's "-" is stdin). */
static const char *display_name(const char *path)
{
	return strcmp(path, "-") == 0 ? "stdin" : path;
}

static int write_show(const struct lb_cmd *cmd, const struct platform_opts *o,
		      const struct lb_platform *pf)
{
	struct lb_outfile out;
	char err[1024];
	uint32_t *first = NULL, sites;
	if (o->format == FORMAT_SITES &&
	    lb_sites_from_platform(pf, &first, &sites, err, sizeof(err)) != 0) {
		lb_cli_error(cmd, NULL, "%s: its sites: %s", display_name(o->words[1]), err);
		return LB_EXIT_USAGE;
	}
	if (lb_outfile_open(&out, o->output, err, sizeof(err)) != 0) {
		free(first);
		lb_cli_error(cmd, "output", "%s", err);
		return LB_EXIT_FAILED;
	}
	if (o->format == FORMAT_LINKS)
		show_links(out.f, pf, o->lane);
	else if (o->format == FORMAT_SITES)
		show_sites(out.f, pf, first);
	else
		show_matrix(out.f, display_name(o->words[1]), pf, o->lane);
	free(first);
	if (lb_outfile_check(&out, err, sizeof(err)) != 0) {
		lb_outfile_abort(&out);
		lb_cli_error(cmd, "output", "%s", err);
		return LB_EXIT_FAILED;
	}
	if (lb_outfile_finish(&out, err, sizeof(err)) != 0) {
		lb_cli_error(cmd, "output", "%s", err);
		return LB_EXIT_FAILED;
	}
	return 0;
}


/* ---- gen ---- */

/* The options that do not belong to the action, refused by name. */
static int misplaced_option(const struct lb_cmd *cmd, const struct platform_opts *o,
			    enum lb_platgen_kind kind, int gen)
{
	const struct gen_opts *g = &o->gen;
	const char *bad = NULL;
	int tiers_given = 0;
	for (int i = 0; i < 10; i++)
		tiers_given |= g->tiers[i] != UNSET;
	if (!gen && (g->nodes != UNSET || g->seed != UNSET || g->density >= 0 ||
		     g->bw_mean > 0 || g->bw_dev >= 0 || g->asymmetric || g->shuffle_ids ||
		     tiers_given))
		bad = "the generator's options are for 'platform gen'";
	else if (gen && (o->lane != ALL_LANES || o->format != FORMAT_MATRIX))
		bad = "--lane and --format are for 'platform show'";
	else if (g->clusters != UNSET || g->site_ranks != UNSET || g->bytes)
		bad = "--clusters, --site-ranks and --bytes are for 'gen g5k|x5|x10'";
	else if (gen && kind == LB_PLATGEN_RANDOM && (tiers_given || g->shuffle_ids))
		bad = "--sw ... --rlm and --shuffle-ids are for 'gen tiers-like'";
	else if (gen && kind == LB_PLATGEN_TIERS && g->density >= 0)
		bad = "--density is for 'gen random' (tiers-like: --rw, --rm, --rmw)";
	if (bad)
		lb_cli_error(cmd, NULL, "%s", bad);
	return bad != NULL;
}

/* The generator's parameters: the kind's defaults (a tiers-like preset
 * by --nodes), then what was given. */
static int gen_params(const struct lb_cmd *cmd, const struct platform_opts *o,
		      enum lb_platgen_kind kind, struct lb_platgen *g)
{
	const struct gen_opts *go = &o->gen;
	uint32_t nodes = go->nodes == UNSET ? 0 : go->nodes;
	if (lb_platgen_defaults(g, kind, nodes)) {
		lb_cli_error(cmd, "nodes", "%u: tiers-like has the presets 30 and 65; for another "
			     "size give --sw, --nm, --sm (and --nl, --sl)", nodes);
		return -1;
	}
	struct lb_platgen_tiers *tp = &g->tiers;
	uint32_t *t[10] = { &tp->sw, &tp->nm, &tp->sm, &tp->nl, &tp->sl,
			    &tp->rw, &tp->rm, &tp->rl, &tp->rmw, &tp->rlm }; /* --sw ... --rlm */
	for (int i = 0; i < 10; i++)
		if (go->tiers[i] != UNSET)
			*t[i] = go->tiers[i];
	g->seed = go->seed == UNSET ? 1 : go->seed;
	g->density = go->density >= 0 ? go->density : g->density;
	g->bw_mean = go->bw_mean > 0 ? go->bw_mean : g->bw_mean;
	g->bw_dev = go->bw_dev >= 0 ? go->bw_dev : g->bw_dev;
	g->asymmetric = go->asymmetric;
	g->shuffle = go->shuffle_ids;
	if (kind == LB_PLATGEN_TIERS)
		g->nodes = lb_platgen_nodes(g);
	return 0;
}

/* The formatted platform with `head` (the generator's comment lines)
 * after the magic line. */
static int write_headed(FILE *f, const struct lb_platform *pf, const char *head)
{
	char *text = lb_platform_format(pf);
	if (!text)
		return -1;
	char *rest = strchr(text, '\n');
	rest = rest ? rest + 1 : text + strlen(text);
	fprintf(f, "%.*s%s", (int)(rest - text), text, head);
	fputs(rest, f);
	free(text);
	return 0;
}

/* A generated platform to -o (or stdout), frees it: an exit status. */
static int write_generated(const struct lb_cmd *cmd, struct lb_platform *pf, const char *head,
			   const char *output)
{
	char err[512];
	struct lb_outfile out;
	int rc = LB_EXIT_FAILED;
	if (lb_outfile_open(&out, output, err, sizeof(err)) != 0)
		lb_cli_error(cmd, "output", "%s", err);
	else if (write_headed(out.f, pf, head) || lb_outfile_check(&out, err, sizeof(err))) {
		lb_outfile_abort(&out);
		lb_cli_error(cmd, "output", "%s", err);
	} else if (lb_outfile_finish(&out, err, sizeof(err)) != 0)
		lb_cli_error(cmd, "output", "%s", err);
	else
		rc = 0;
	lb_platform_free(pf);
	return rc;
}

/* Whether an option of the random and tiers-like generators, or of show,
 * was given (the fixed generators take none of them). */
static int random_or_show_options(const struct platform_opts *o)
{
	const struct gen_opts *go = &o->gen;
	int tiers_given = 0;
	for (int i = 0; i < 10; i++)
		tiers_given |= go->tiers[i] != UNSET;
	return go->nodes != UNSET || go->density >= 0 || go->bw_mean > 0 || go->bw_dev >= 0 ||
	       go->asymmetric || go->shuffle_ids || tiers_given || o->lane != ALL_LANES ||
	       o->format != FORMAT_MATRIX;
}

/* gen wu-8: seed 001's 8 workstations (algos/wu/agent.h); only -o. */
static int gen_wu8(const struct lb_cmd *cmd, const struct platform_opts *o)
{
	const struct gen_opts *go = &o->gen;
	if (random_or_show_options(o) || go->seed != UNSET || go->clusters != UNSET ||
	    go->site_ranks != UNSET || go->bytes) {
		lb_cli_error(cmd, NULL, "gen wu-8 takes -o only");
		return LB_EXIT_USAGE;
	}
	struct lb_platform *pf = lb_agent_wu8();
	if (!pf) {
		lb_cli_error(cmd, NULL, "gen wu-8: out of memory");
		return LB_EXIT_FAILED;
	}
	return write_generated(cmd, pf, "# seed 001 (Wu, section 6; docs/papers.md#seed001-experiment): 8 workstations, 0-3 fast, 4-7 slow; "
			       "send/recv are T_send/T_recv, lat is T_end (measured with 32-byte "
			       "messages: read it at 0 bytes)\n", o->output);
}

/* gen g5k|x5|x10: only --seed, --clusters, --site-ranks, --bytes, -o. */
static int gen_clusters(const struct lb_cmd *cmd, const struct platform_opts *o, int setting)
{
	const struct gen_opts *go = &o->gen;
	if (random_or_show_options(o)) {
		lb_cli_error(cmd, NULL, "gen %s takes --seed, --clusters, --site-ranks, --bytes "
			     "and -o only", o->words[1]);
		return LB_EXIT_USAGE;
	}
	struct lb_clustergen g;
	lb_clustergen_defaults(&g, (enum lb_clustergen_setting)setting);
	g.seed = go->seed == UNSET ? 1 : go->seed;
	g.clusters = go->clusters == UNSET ? g.clusters : go->clusters;
	g.site_ranks = go->site_ranks == UNSET ? g.site_ranks : go->site_ranks;
	g.bytes = go->bytes ? go->bytes : g.bytes;
	char err[512], line[400], head[700];
	struct lb_platform *pf = lb_clustergen_make(&g, err, sizeof(err));
	if (!pf) {
		lb_cli_error(cmd, NULL, "%s", err);
		return LB_EXIT_USAGE;
	}
	lb_clustergen_describe(&g, line, sizeof(line));
	snprintf(head, sizeof(head), "# %s\n# seed 002 (Fkaier et al.; docs/papers.md#seed002-experiments): coordinator links and wan lines "
		 "carry L and bytes/g, each site's links make a whole-message binomial take its "
		 "local-bcast\n", line);
	return write_generated(cmd, pf, head, o->output);
}

static int gen_body(const struct lb_cmd *cmd, const struct platform_opts *o)
{
	const char *kind_name = o->words[1];
	int setting = lb_clustergen_setting_find(kind_name);
	if (setting >= 0)
		return gen_clusters(cmd, o, setting);
	if (strcmp(kind_name, "wu-8") == 0)
		return gen_wu8(cmd, o);
	enum lb_platgen_kind kind = strcmp(kind_name, "random") == 0 ? LB_PLATGEN_RANDOM :
				    LB_PLATGEN_TIERS;
	if (strcmp(kind_name, "random") && strcmp(kind_name, "tiers-like")) {
		lb_cli_error(cmd, NULL, "gen '%s': no such generator (random, tiers-like, g5k, x5, x10, wu-8)",
			     kind_name);
		return LB_EXIT_USAGE;
	}
	struct lb_platgen g;
	char err[512];
	if (misplaced_option(cmd, o, kind, 1) || gen_params(cmd, o, kind, &g))
		return LB_EXIT_USAGE;
	struct lb_platform *pf = lb_platgen_make(&g, err, sizeof(err));
	if (!pf) {
		lb_cli_error(cmd, NULL, "%s", err);
		return LB_EXIT_USAGE;
	}
	char line[512], head[700];
	lb_platgen_describe(&g, line, sizeof(line));
	snprintf(head, sizeof(head), "# %s\n# density %.4f (pairs linked either way)\n", line,
		 lb_platgen_density(pf));
	return write_generated(cmd, pf, head, o->output);
}

static int platform_body(const struct lb_cmd *cmd, void *base)
{
	const struct platform_opts *o = base;
	char err[1024];
	if (lb_cli_check_targets(cmd, o->output, NULL))
		return LB_EXIT_USAGE;
	if (strcmp(o->words[0], "gen") == 0)
		return gen_body(cmd, o);
	if (strcmp(o->words[0], "show") != 0) {
		lb_cli_error(cmd, NULL, "unknown action '%s' (expected show or gen)", o->words[0]);
		return LB_EXIT_USAGE;
	}
	if (misplaced_option(cmd, o, LB_PLATGEN_RANDOM, 0))
		return LB_EXIT_USAGE;
	struct lb_platform *pf = lb_platform_read_file(o->words[1], err, sizeof(err));
	if (!pf) {
		lb_cli_error(cmd, NULL, "%s", err);
		return LB_EXIT_USAGE;
	}
	int rc;
	if (o->lane != ALL_LANES && o->lane >= pf->lanes) {
		lb_cli_error(cmd, "lane", "lane %u out of range: %s has %u lane%s (0-%u)", o->lane,
			     display_name(o->words[1]), pf->lanes, pf->lanes == 1 ? "" : "s",
			     pf->lanes - 1);
		rc = LB_EXIT_USAGE;
	} else {
		rc = write_show(cmd, o, pf);
	}
	lb_platform_free(pf);
	return rc;
}

static int run_platform(const struct lb_cmd *cmd, int argc, char **argv)
{
	struct platform_opts o = {
		.lane = ALL_LANES,
		.gen = { .nodes = UNSET, .seed = UNSET, .density = -1, .bw_mean = -1,
			 .bw_dev = -1, .tiers = { UNSET, UNSET, UNSET, UNSET, UNSET, UNSET,
						  UNSET, UNSET, UNSET, UNSET },
			 .clusters = UNSET, .site_ranks = UNSET },
	};
	return lb_cli_run(cmd, argc, argv, &o, platform_body);
}

static void platform_more_help(FILE *out)
{
	fputs("show FILE reads a platform file ('-': stdin; the format is in net/platform.h\n"
	      "and docs/guide/platforms.md) and prints it.  Bad files: one line 'FILE:LINE: 'TOKEN': why'\n"
	      "on stderr, exit 2, nothing written.  Whether every node is reachable is not\n"
	      "checked here: that depends on the root.\n"
	      "\n"
	      "--format matrix (default): nodes, lanes, sites and the platform's hash, node\n"
	      "overheads, then per lane the bandwidth matrix (after the nodes' rate caps),\n"
	      "and the latency and occupation matrices when some link has a non-zero one;\n"
	      "row: sender, column: receiver, '-': no link.\n"
	      "\n"
	      "--format links: for scripts (the emulated cluster's per-link set-up), one line\n"
	      "per ordered pair (u, v), u != v, of each lane, lanes then u then v ascending:\n"
	      "  link U V LANE BYTES_PER_S LAT_S OCC_S   (the link u -> v, rate caps applied;\n"
	      "                                           numbers in %.17g form: exact)\n"
	      "  nolink U V LANE                         (no link u -> v on that lane)\n"
	      "\n"
	      "--format sites: for scripts (the emulated cluster's sites, cluster up\n"
	      "--sites-from), each site a contiguous rank range, in site order (else exit 2):\n"
	      "  site S FIRST LAST                       (site S is ranks FIRST..LAST)\n"
	      "  wan A B LAT_S BYTES_PER_S               (the wan line of sites A and B)\n"
	      "\n"
	      "gen random|tiers-like writes a platform of seed 000's experiments (Beaumont\n"
	      "et al.), deterministic for a seed, one lane, bandwidth only (latency and\n"
	      "occupation 0), each node's multi-port send overhead 0.80 x its fastest link's\n"
	      "time for a 1 MB slice.  Its second line names the generator and every\n"
	      "parameter used.\n"
	      "  random      a random spanning tree (so it is connected), then every other\n"
	      "              pair with probability --density; Gaussian bandwidths.\n"
	      "  tiers-like  a TIERS-like WAN/MAN/LAN network (TIERS's own parameters were\n"
	      "              not published): --nodes 30 = WAN 10 + 4 MANs x 5, redundancy\n"
	      "              rw = rm = 3, rmw = 2; --nodes 65 = WAN 13 + 4 MANs x 13,\n"
	      "              rw = rm = 4, rmw = 3; --sw ... --rlm change one part.  How the\n"
	      "              networks are placed and joined: net/platgen.h.\n"
	      "\n"
	      "gen g5k|x5|x10 writes seed 002's clusters of clusters (Fkaier et al.):\n"
	      "--clusters C sites of --site-ranks R ranks, two lanes, the coordinator of each\n"
	      "its first rank; latency L and gap g per coordinator pair and local broadcast\n"
	      "time T per site drawn uniformly from the setting's intervals (g5k: L 1-15 us,\n"
	      "g 100-600 ms, T 200-3000 ms; x5: L, g x 5, T / 5; x10: x 10, / 10).  Each\n"
	      "coordinator pair is a link (both directions) of latency L and bandwidth\n"
	      "--bytes / g, also written as the sites' 'wan' line; inside a site every pair\n"
	      "is linked so that a binomial broadcast of the whole message takes T, also\n"
	      "given as its 'local-bcast'.  No other links.  Readings: net/clustergen.h.\n"
	      "\n"
	      "gen wu-8 writes seed 001's 8 workstations (Wu; no options): nodes 0-3\n"
	      "fast (send 90 us, recv 70 us, gap 90 us), 4-7 slow (160, 130, 160 us); latency\n"
	      "(the seed's T_end) fast-fast 250 us, fast-slow 350 us, slow-slow 450 us;\n"
	      "occupation 0, 100 Mbit/s.  `repro seed001` plans on this platform.\n"
	      "\n"
	      "Seed 000 .. 004 are the project's names for the papers it implements:\n"
	      "docs/papers.md.\n", out);
}

const struct lb_cmd lb_cmd_platform = {
	.name = "platform",
	.summary = "show a platform file (heterogeneous links), or generate one of the papers'",
	.usage = "show [--lane L] [--format matrix|links|sites] [-o FILE] FILE\n"
		 "       lanebench platform gen random|tiers-like [--nodes N] [--seed S] [...] [-o FILE]\n"
		 "       lanebench platform gen g5k|x5|x10 [--clusters C] [--site-ranks R] [--seed S] [-o FILE]\n"
		 "       lanebench platform gen wu-8 [-o FILE]",
	.opts = platform_opts_table,
	.nopts = sizeof(platform_opts_table) / sizeof(platform_opts_table[0]),
	.more_help = platform_more_help,
	.npositional = 2,
	.positional_offset = OFF(words),
	.run = run_platform,
};
