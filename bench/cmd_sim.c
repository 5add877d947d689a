/* lanebench sim: the simulation engine (engine/simsweep.h) over the
 * options' sweep, its results to the sinks: the CSV, plus an aligned
 * table on stdout when the CSV goes to a file. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "platform_file.h"
#include "algo_opt.h"
#include "root_opt.h"
#include "site_opt.h"
#include "progress.h"
#include "engine/simsweep.h"
#include "report/csv.h"
#include "report/table.h"
#include "lib/stop.h"
#include "lib/units.h"

struct sim_opts {
	struct lb_algo_set algos;
	struct lb_list ranks, sizes, slices;
	uint32_t lanes, sites;
	const char *roots; /* -r as typed: "all" depends on the rank count */
	double alpha, bw, wan_alpha; /* wan_alpha < 0: same as alpha */
	double wan_bw;               /* 0: no cap beyond the lanes */
	double lat, wan_lat;         /* wan_lat < 0: same as lat */
	int stripe_off, allgather, validate, model, no_lp, balance, super2, share;
	uint32_t agents;
	const char *output, *json, *platform, *site_algo;
	const char *site_sizes;
	struct lb_cli_sites site_map; /* resolved from sites, site_sizes, platform */
};

/* -p and -k when not given: these, or the platform's. */
#define DEFAULT_RANKS 32
#define DEFAULT_LANES 2

#define OFF(f) offsetof(struct sim_opts, f)

static const struct lb_opt opts[] = {
	{ LB_OPT("algorithm", 'a', "LIST", "algorithms: all (the broadcasts that need no --platform), or a comma list of names (see below)",
	  LB_OPT_HANDLER, OFF(algos)), .def = "all", .handler = lb_cli_set_algos,
	  .show = lb_cli_show_algos },
	{ LB_OPT("ranks", 'p', "RANKS", "rank counts: 8,12 or 2:1024 (= 2, 4, ..., 1024); default 32, with --platform its node count (the only one allowed)",
	  LB_OPT_COUNT_LIST, OFF(ranks)), .min = 1, .max = LB_MAX_RANKS },
	{ LB_OPT("message-size", 'm', "SIZES", "message sizes, list and ranges: 4K,1M, 8:64M (doubling) or 4K:16M:4 (x4); an allgather's is each rank's contribution (p x it in all)",
	  LB_OPT_SIZE_LIST, OFF(sizes)), .def = "4K:64M" },
	{ LB_OPT("slice", 's', "SIZES", "slice sizes (pipelining unit), list and ranges; auto: per algorithm, ranks and size the fastest by the refined model (settled by the simulator where cheap) with --alpha and --bw",
	  LB_OPT_SLICE_LIST, OFF(slices)), .def = "auto" },
	{ LB_OPT("lanes", 'k', "LANES", "lanes (NICs, rails) per rank; default 2, with --platform its lanes (at most those)",
	  LB_OPT_UINT, OFF(lanes)), .min = 1, .max = 64 },
	{ LB_OPT("root", 'r', "RANKS", "rank that holds the message; several (a list 0,2-3, or all: every rank of each rank count) are swept, each a row; fastest: the --platform's fastest rank by its nodes' rates",
	  LB_OPT_HANDLER, OFF(roots)), .def = "0", .handler = lb_cli_check_roots,
	  .show = lb_cli_show_text },
	{ LB_OPT("alpha", 0, "SECONDS", "per-transfer cost of a lane, as port occupation (the ports are busy for it; time in flight is --lat): 5us, 1.5ms, 1e-6",
	  LB_OPT_SECONDS, OFF(alpha)), .def = "5us" },
	{ LB_OPT("bw", 0, "RATE", "bandwidth of one lane: 10gbit, 200mbit, 1.25GB/s",
	  LB_OPT_RATE, OFF(bw)), .def = "10gbit" },
	{ LB_OPT("lat", 0, "SECONDS", "per-transfer latency, time in flight after --alpha + bytes/--bw: no port is busy, so a pipelined stream pays it once per hop, not per slice",
	  LB_OPT_SECONDS, OFF(lat)), .def = "0" },
	LB_ALGO_OPT_ROWS(struct sim_opts),
	LB_SITES_ROWS(struct sim_opts),
	{ LB_OPT("wan-alpha", 0, "SECONDS", "per-transfer cost between sites, as port occupation (default: --alpha)",
	  LB_OPT_SECONDS, OFF(wan_alpha)) },
	{ LB_OPT("wan-bw", 0, "RATE", "bandwidth cap of a transfer between sites (a lane's share of the WAN; default: none beyond --bw)",
	  LB_OPT_RATE, OFF(wan_bw)) },
	{ LB_OPT("wan-lat", 0, "SECONDS", "latency (time in flight) between sites (default: --lat)",
	  LB_OPT_SECONDS, OFF(wan_lat)) },
	{ LB_OPT("platform", 0, "FILE", "simulate on this platform (net/platform.h's format, '-': stdin): each pair's links replace --alpha, --bw, --lat and the sites' values (--alpha and --bw still choose --slice auto); the closed forms are left empty",
	  LB_OPT_STRING, OFF(platform)) },
	LB_SITE_ALGO_ROW(struct sim_opts),
	{ LB_OPT("no-lp", 0, NULL, "with --platform: skip the LP bound (one GLPK solve per root and slice, seconds at 65 nodes) and leave lp_bound_bytes_per_second and ratio_to_lp empty; lp-prune and lp-grow solve it anyway",
	  LB_OPT_FLAG, OFF(no_lp)) },
	{ LB_OPT("model", 0, NULL, "port model (model/sim.h): per-lane = a send and a receive port per lane; one-port-uni = one port per lane for both; multi-port (needs --platform) = a CPU per rank busy its node's send time per send, links overlap; bounded (needs --platform) = multi-port without a receive port, a rank's concurrent sends sharing its node's rate as a send cap and its receives as a receive cap, per lane; fluid = the transfers in progress share each rank's send and receive port per lane (its --bw, a platform node's rate) and the WAN per site pair and lane (--wan-bw) max-min fairly, as TCP streams do, one transfer at a time per peer and lane; logp (needs --platform; Wu, seed 001) = each rank one process running its ops in program order (one lane per rank, no barriers), a send holding its CPU the node's send time (sends at least gap apart) and in the receiver's buffer lat + occ + bytes/bw after its start, never waiting for the receiver; a blocking receive of the peer's oldest message ends at the later of its arrival and the CPU free + the node's recv time",
	  LB_OPT_ENUM, OFF(model)), .def = "per-lane",
	  .choices = (const char *const[]){ "per-lane", "one-port-uni", "multi-port", "bounded", "fluid", "logp", NULL } },
	{ LB_OPT("fluid-share", 0, NULL, "with --model fluid: how flows share a port or the WAN: fair = max-min fair; rtt = weighted max-min, each flow's weight 1 / its round trip, 2 x (--alpha + --lat; between sites --wan-alpha + --wan-lat; on a --platform its link's occ + lat), as TCP streams through one bottleneck get rates inverse to their round trips",
	  LB_OPT_ENUM, OFF(share)), .def = "fair",
	  .choices = (const char *const[]){ "fair", "rtt", NULL } },
	{ LB_OPT("validate", 0, NULL, "check every schedule with the validator before simulating",
	  LB_OPT_FLAG, OFF(validate)) },
	{ LB_OPT("output", 'o', "FILE", "write the CSV to FILE and a table to stdout (default: CSV to stdout)",
	  LB_OPT_STRING, OFF(output)) },
	LB_JSON_ROW(OFF(json)),
};

static void sim_more_help(FILE *out)
{
	fputs("algorithms:\n", out);
	lb_cli_list_algos(out);
	fputs("\nBefore any output every configuration is checked: one no algorithm can\n"
	      "build is a usage error (exit 2); a sweep whose largest configuration needs\n"
	      "more memory than is available (MemAvailable, the memory cgroup, ulimit) is\n"
	      "refused with exit status 4, naming it and both figures.\n"
	      "The CSV columns are described in results/README.md.\n", out);
}

/* The roots of -r: none for "all" (the engine takes every rank of each
 * rank count), the platform's fastest rank for "fastest", else the list,
 * each rank below the smallest rank count. */
static int roots_of(const struct lb_cmd *cmd, const struct sim_opts *o,
		    const struct lb_platform *pf, struct lb_list *roots)
{
	uint64_t fewest = UINT64_MAX;
	uint32_t fastest;
	char err[512];
	if (strcmp(o->roots, "all") == 0)
		return 0;
	if (strcmp(o->roots, LB_ROOT_FASTEST) == 0) {
		if (lb_cli_root_fastest(cmd, pf, &fastest) || !(roots->v = malloc(sizeof(*roots->v))))
			return -1;
		roots->v[0] = fastest, roots->n = 1;
		return 0;
	}
	for (size_t i = 0; i < o->ranks.n; i++)
		fewest = o->ranks.v[i] < fewest ? o->ranks.v[i] : fewest;
	if (lb_parse_rank_list(o->roots, fewest, &roots->v, &roots->n, err, sizeof(err)) == 0)
		return 0;
	lb_cli_error(cmd, "root", "%s (from -p/--ranks)", err);
	return -1;
}

static struct lb_simsweep_params params_of(const struct sim_opts *o, const struct lb_list *roots,
					   const struct lb_platform *pf)
{
	return (struct lb_simsweep_params){
		.algos = o->algos.a, .nalgos = o->algos.n, .ranks = o->ranks.v,
		.nranks = o->ranks.n, .sizes = o->sizes.v, .nsizes = o->sizes.n,
		.slices = o->slices.v, .nslices = o->slices.n, .lanes = o->lanes,
		.roots = roots->v, .nroots = roots->n, .stripe_off = o->stripe_off,
		.allgather = (enum lb_allgather)o->allgather, .sites = o->site_map.sites,
		.site_first = o->site_map.first,
		.balance = (enum lb_balance)o->balance, .super2 = (enum lb_super2)o->super2,
		.agents = o->agents,
		.alpha = o->alpha, .lane_bw = o->bw, .wan_alpha = o->wan_alpha,
		.wan_bw = o->wan_bw,
		.latency = o->lat, .wan_latency = o->wan_lat,
		.model = (enum lb_port_model)o->model, .share = (enum lb_fluid_share)o->share,
		.platform = pf, .site_algo = o->site_algo,
		.lp_bound = !o->no_lp,
		.validate = o->validate, .stop = lb_stop_flag(),
	};
}

/* Every configuration can be built and the largest fits: 0; else
 * LB_EXIT_USAGE or LB_EXIT_TOO_BIG, the reason printed. */
static int check_sweep(const struct lb_cmd *cmd, const struct lb_simsweep_params *p)
{
	char err[768];
	enum lb_simsweep_fit fit = lb_simsweep_check(p, err, sizeof(err));
	if (fit == LB_SIMSWEEP_FITS)
		return 0;
	lb_cli_error(cmd, NULL, "%s", err);
	return fit == LB_SIMSWEEP_TOO_BIG ? LB_EXIT_TOO_BIG : LB_EXIT_USAGE;
}

/* Where the CSV goes: -o FILE, else stdout -- unless --json - takes
 * stdout (then no CSV).  NULL path and *none: no CSV. */
static int csv_target(const struct lb_cmd *cmd, const struct sim_opts *o,
		      const struct lb_cli_json *json, int *none)
{
	int csv_stdout = !o->output || strcmp(o->output, "-") == 0;
	*none = csv_stdout && lb_cli_json_to_stdout(json) && !o->output;
	return lb_cli_check_stdout(cmd, json, o->output);
}

/* The simulator's work grows with ranks x blocks: the estimate's weight. */
static double sim_weight(uint64_t ranks, uint64_t bytes, uint64_t slice)
{
	return (double)ranks * (double)(slice ? (bytes + slice - 1) / slice : 1);
}

/* Progress on stderr once a sweep has run 2 s: at most a line a second. */
static void start_progress(struct lb_progress *pr, const struct lb_simsweep_params *p)
{
	double weight = 0;
	size_t configs = 0;
	for (size_t k = 0; k < p->nranks; k++) {
		size_t roots = p->nroots ? p->nroots : p->ranks[k]; /* 0: every rank */
		uint32_t ranks = (uint32_t)p->ranks[k];
		configs += roots * p->nsizes * p->nslices;
		for (size_t m = 0; m < p->nsizes; m++)
			for (size_t i = 0; i < p->nslices; i++)
				for (size_t a = 0; a < p->nalgos; a++) /* auto: each its own */
					weight += (double)roots * sim_weight(ranks, p->sizes[m],
						  lb_simsweep_slice_estimate(p, p->algos[a], ranks, p->sizes[m],
									     p->slices[i]));
	}
	lb_progress_start(pr, "sim", p->nalgos * configs, weight, 1);
	pr->quiet = 2;
	pr->every = 1;
}

static int progress_row(void *ctx, const struct lb_result *r, char *err, size_t len)
{
	char what[96], size[24], slice[24];
	uint64_t ranks = lb_result_val(r, "ranks")->u, bytes = lb_result_val(r, "message_bytes")->u;
	uint64_t sl = lb_result_val(r, "slice_bytes")->u;
	lb_format_size(bytes, size, sizeof(size));
	lb_format_size(sl, slice, sizeof(slice));
	snprintf(what, sizeof(what), "%s p=%llu %s slice %s", lb_result_val(r, "algorithm")->s,
		 (unsigned long long)ranks, size, slice);
	lb_progress_done(ctx, what, sim_weight(ranks, bytes, sl));
	return 0;
}

/* The sinks: progress, the CSV (if any), the table when the CSV goes to
 * a file or --json takes stdout (then on stderr), the JSON document (if
 * any). */
static int run_sinks(const struct lb_cmd *cmd, const struct lb_simsweep_params *p,
		     struct lb_csv *csv, int table_too, struct lb_cli_json *json, char *err,
		     size_t len)
{
	struct lb_table table = { .out = lb_cli_json_to_stdout(json) ? stderr : stdout };
	struct lb_progress progress;
	struct lb_sink sinks[4];
	size_t n = 0;
	start_progress(&progress, p);
	sinks[n++] = (struct lb_sink){ .row = progress_row, .ctx = &progress };
	if (csv)
		sinks[n++] = (struct lb_sink){ .row = lb_csv_sink_row, .ctx = csv };
	if (table_too)
		sinks[n++] = (struct lb_sink){ .begin = lb_table_sink_begin,
					       .row = lb_table_sink_row, .ctx = &table };
	if (json->path)
		sinks[n++] = lb_cli_json_sink(json);
	struct lb_tee tee = { sinks, n };
	const struct lb_sink sink = { .provenance = lb_tee_provenance, .begin = lb_tee_begin,
				      .row = lb_tee_row, .ctx = &tee };
	int rc = lb_simsweep_run(p, &sink, err, len);
	if (!lb_stop_requested())
		lb_table_legend(&table);
	if (rc && !lb_stop_requested()) /* stopped: lb_cli_finish_csv says so */
		lb_cli_error(cmd, NULL, "%s", err);
	return rc;
}

/* The sweep of sim, with the roots expanded. */
static int sweep(const struct lb_cmd *cmd, const struct sim_opts *o, const struct lb_list *roots,
		 const struct lb_platform *pf)
{
	struct lb_prov prov = { 0 };
	struct lb_simsweep_params p = params_of(o, roots, pf);
	struct lb_cli_json json = { .path = o->json };
	struct lb_csv *csv = NULL;
	char err[512];
	size_t ncols;
	int no_csv;
	const struct lb_col *cols = lb_simsweep_columns(&p, &ncols);
	if (csv_target(cmd, o, &json, &no_csv))
		return LB_EXIT_USAGE;
	int rc = check_sweep(cmd, &p);
	if (rc)
		return rc;
	lb_cli_provenance(&prov, cmd, o);
	p.prov = &prov;
	if (!no_csv && !(csv = lb_csv_create(o->output, &prov, cols, ncols, err, sizeof(err)))) {
		lb_cli_error(cmd, "output", "%s", err);
		lb_prov_free(&prov);
		return LB_EXIT_FAILED;
	}
	lb_stop_arm(); /* from here on there are results to keep */
	int table_too = (o->output && strcmp(o->output, "-") != 0) || lb_cli_json_to_stdout(&json);
	rc = run_sinks(cmd, &p, csv, table_too, &json, err, sizeof(err));
	lb_prov_free(&prov);
	int json_rc = lb_cli_finish_json(cmd, &json, rc, err);
	rc = lb_cli_finish_csv(cmd, csv, rc, err); /* after a signal: ends by it */
	return rc ? rc : json_rc;
}

/* -p and -k not given: the defaults, or the platform's nodes and lanes. */
static int fill_defaults(const struct lb_cmd *cmd, struct sim_opts *o,
			 const struct lb_platform *pf)
{
	if (!o->lanes)
		o->lanes = pf ? pf->lanes : DEFAULT_LANES;
	if (o->ranks.n)
		return 0;
	o->ranks.v = malloc(sizeof(*o->ranks.v));
	if (!o->ranks.v) {
		lb_cli_error(cmd, "ranks", "out of memory");
		return -1;
	}
	o->ranks.v[0] = o->site_map.first ? o->site_map.ranks : pf ? pf->nodes : DEFAULT_RANKS;
	o->ranks.n = 1;
	return 0;
}

/* With a platform, the ranks are its nodes and the lanes at most its; with
 * a site map, its total.  Returns 0 or -1 (said). */
static int fit_platform(const struct lb_cmd *cmd, const struct sim_opts *o,
			const struct lb_platform *pf)
{
	for (size_t i = 0; pf && i < o->ranks.n; i++) {
		if (o->ranks.v[i] != pf->nodes) {
			lb_cli_error(cmd, "ranks", "%llu ranks, but the platform %s has %u nodes (the ranks are its nodes)",
				     (unsigned long long)o->ranks.v[i], o->platform, pf->nodes);
			return -1;
		}
	}
	for (size_t i = 0; i < o->ranks.n; i++)
		if (lb_cli_sites_check_ranks(cmd, &o->site_map, o->ranks.v[i]))
			return -1;
	if (pf && o->lanes > pf->lanes) {
		lb_cli_error(cmd, "lanes", "%u lanes, but the platform %s has %u", o->lanes,
			     o->platform, pf->lanes);
		return -1;
	}
	return 0;
}

/* The platform of --platform, or NULL (also on failure: *rc says). */
static struct lb_platform *load_platform(const struct lb_cmd *cmd, const struct sim_opts *o,
					 int *rc)
{
	char err[512];
	struct lb_platform *pf = NULL;
	*rc = 0;
	if (o->platform && !(pf = lb_platform_read_file(o->platform, err, sizeof(err)))) {
		lb_cli_error(cmd, "platform", "%s", err);
		*rc = LB_EXIT_USAGE;
	} else if (!o->platform && (o->model == LB_PORT_MULTI || o->model == LB_PORT_BOUNDED ||
				    o->model == LB_PORT_LOGP)) {
		static const char *const need[] = { [LB_PORT_MULTI] = "multi-port needs --platform FILE (its nodes' send times)",
						    [LB_PORT_BOUNDED] = "bounded needs --platform FILE (its nodes' send times and rates)",
						    [LB_PORT_LOGP] = "logp needs --platform FILE (its nodes' send and receive overheads)" };
		lb_cli_error(cmd, "model", "%s", need[o->model]);
		*rc = LB_EXIT_USAGE;
	} else if (o->share != LB_SHARE_FAIR && o->model != LB_PORT_FLUID) {
		lb_cli_error(cmd, "fluid-share", "rtt applies to --model fluid only");
		*rc = LB_EXIT_USAGE;
	}
	return pf;
}

static int sim(const struct lb_cmd *cmd, void *base)
{
	struct sim_opts *o = base;
	struct lb_list roots = { 0 };
	int rc;
	struct lb_platform *pf = load_platform(cmd, o, &rc);
	if (!rc && lb_cli_sites_resolve(cmd, o->sites, o->site_sizes, pf, &o->site_map))
		rc = LB_EXIT_USAGE;
	if (!rc && (fill_defaults(cmd, o, pf) || fit_platform(cmd, o, pf) ||
		    roots_of(cmd, o, pf, &roots)))
		rc = LB_EXIT_USAGE;
	if (!rc)
		rc = sweep(cmd, o, &roots, pf);
	free(roots.v);
	free(o->site_map.first);
	lb_platform_free(pf);
	return rc;
}

/* The WAN options describe the simulator's network between sites: with a
 * --platform its links are the network (and its WAN), without sites there
 * is no WAN.  0, or -1 (said). */
static int check_wan(const struct lb_cmd *cmd, const struct sim_opts *o,
		     const unsigned char *given)
{
	for (size_t i = 0; i < cmd->nopts; i++) {
		const char *name = cmd->opts[i].name;
		if (!given[i] || strncmp(name, "wan-", 4) != 0)
			continue;
		if (o->platform) {
			lb_cli_error(cmd, name, "not with --platform: the simulator runs on the platform's links, "
				     "so its WAN is in its links between sites (lat, bw)");
			return -1;
		}
		if (o->sites < 2 && !o->site_sizes) {
			lb_cli_error(cmd, name, "a WAN joins sites: give --sites N or --site-sizes LIST too");
			return -1;
		}
	}
	return 0;
}

static int has_auto_slice(const struct sim_opts *o)
{
	for (size_t i = 0; i < o->slices.n; i++)
		if (o->slices.v[i] == LB_SLICE_AUTO)
			return 1;
	return 0;
}

/* With a --platform its links are the network: --lat is replaced, --alpha
 * and --bw only choose --slice auto's slice; --no-lp skips the platform's
 * LP bound.  0, or -1 (said). */
static int check_platform_pairs(const struct lb_cmd *cmd, const struct sim_opts *o,
				const unsigned char *given)
{
	for (size_t i = 0; i < cmd->nopts; i++) {
		const char *name = cmd->opts[i].name, *why = NULL;
		if (!given[i])
			continue;
		if (o->platform && strcmp(name, "lat") == 0)
			why = "not with --platform: its links' latencies replace it";
		else if (o->platform && !has_auto_slice(o) &&
			 (strcmp(name, "alpha") == 0 || strcmp(name, "bw") == 0))
			why = "with --platform it only chooses --slice auto's slice, and no slice is auto";
		else if (!o->platform && strcmp(name, "no-lp") == 0)
			why = "skips the LP bound of a --platform, and there is none";
		if (why) {
			lb_cli_error(cmd, name, "%s", why);
			return -1;
		}
	}
	return 0;
}

/* lb_cmd.check_given: the WAN and platform options where they mean
 * something, and options the chosen algorithms take (bench/algo_opt.h). */
static int check_given(const struct lb_cmd *cmd, const void *base, const unsigned char *given)
{
	const struct sim_opts *o = base;
	const struct lb_cli_algo_opts ao = { .algos = o->algos.a, .n = o->algos.n,
					     .site_algo = o->site_algo,
					     .network_sites = !o->platform,
					     .network_alpha = !o->platform,
					     .lanes = o->platform ? 0 : o->lanes };
	return check_wan(cmd, o, given) || check_platform_pairs(cmd, o, given) ||
	       lb_cli_check_algo_opts(cmd, given, &ao) ? -1 : 0;
}

static int run_sim(const struct lb_cmd *cmd, int argc, char **argv)
{
	struct sim_opts o = { .wan_alpha = -1, .wan_lat = -1 };
	return lb_cli_run(cmd, argc, argv, &o, sim);
}

const struct lb_cmd lb_cmd_sim = {
	.name = "sim",
	.summary = "simulate algorithms x ranks x sizes x slices; CSV beside the cost models",
	.usage = "[-a LIST|all] [-p RANKS] [-m SIZES] [-s SIZES] [-k LANES] [-r ROOT] [options]",
	.opts = opts,
	.nopts = sizeof(opts) / sizeof(opts[0]),
	.more_help = sim_more_help,
	.run = run_sim,
	.check_given = check_given,
};
