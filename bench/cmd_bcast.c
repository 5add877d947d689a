/* lanebench bcast: real broadcasts across the ranks of a job (one process
 * per host, launched by scripts/cluster run, srun or mpirun).  Each rank
 * runs the engine (engine/bcast.c); rank 0 hands every configuration's
 * result to its sinks: the CSV file, a table on stdout, and with --json
 * the JSON document. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "progress.h"
#include "engine/coll.h"
#include "engine/job.h"
#include "engine/tuning.h"
#include "platform_file.h"
#include "algo_opt.h"
#include "root_opt.h"
#include "site_opt.h"
#include "report/csv.h"
#include "report/table.h"
#include "lib/error.h"
#include "lib/stop.h"
#include "lib/units.h"

struct bcast_opts {
	struct lb_algo_set algos;
	struct lb_list sizes, slices;
	uint32_t iterations, warmup;
	const char *roots; /* -r as typed: "all" needs the job's size */
	int stripe_off, allgather, idle, no_calibration, no_pin, verbose, balance, super2;
	int sim_model; /* enum lb_sim_choice: auto, fluid, fluid-rtt, multi-port, bounded */
	uint32_t agents;
	uint64_t calib_size;
	double timeout, lane_rate;
	double wan_lat, wan_bw; /* the predictions' WAN between sites; 0: none */
	struct lb_tp_options tpo;
	const char *nics, *transport, *output, *label, *json, *platform, *site_algo, *tuning;
	uint32_t sites;
	const char *site_sizes;
};

#define OFF(f) offsetof(struct bcast_opts, f)

static const char *const idles[] = { "spin", "yield", "sleep", NULL };
static const char *const sim_models[] = { "auto", "fluid", "fluid-rtt", "multi-port", "bounded", NULL };

static const struct lb_opt opts[] = {
	{ LB_OPT("algorithm", 'a', "LIST", "algorithms: all (the broadcasts that need no --platform), or a comma list of names (see below); auto (anywhere in the list): per size the --tuning table's measured pick when it is for this job, else the model's fastest",
	  LB_OPT_HANDLER, OFF(algos)), .def = "all", .handler = lb_cli_set_bcast_algos,
	  .show = lb_cli_show_algos },
	{ LB_OPT("message-size", 'm', "SIZES", "message sizes, list and ranges: 4K,1M, 4K:16M (doubling) or 4K:16M:4 (x4); an allgather's is each rank's contribution (p x it in all)",
	  LB_OPT_SIZE_LIST, OFF(sizes)), .def = "4K:16M" },
	{ LB_OPT("slice", 's', "SIZES", "slice sizes (pipelining unit), list and ranges; auto: per algorithm and size the fastest by the refined model (settled by the simulator where cheap) with the calibrated latency and bandwidth (64K with --no-calibration)",
	  LB_OPT_SLICE_LIST, OFF(slices)), .def = "auto" },
	{ LB_OPT("iterations", 'i', "N", "timed iterations per configuration", LB_OPT_UINT,
	  OFF(iterations)), .def = "10", .min = 1, .max = 1000000 },
	{ LB_OPT("warmup", 'x', "N", "untimed iterations first", LB_OPT_UINT, OFF(warmup)),
	  .def = "2", .min = 0, .max = 1000000 },
	{ LB_OPT("root", 'r', "RANKS", "rank that holds the message; several (a list 0,2-3, or all) are swept one after another, each a row; fastest: the --platform's fastest rank by its nodes' rates",
	  LB_OPT_HANDLER, OFF(roots)), .def = "0", .handler = lb_cli_check_roots,
	  .show = lb_cli_show_text },
	LB_NICS_ROWS("NICs, a lane each: interfaces, IPv4 addresses or devices (rail0,rail1), or auto (the NICs of the transport's kind; auto:network, auto:openfabrics); default $LANEBENCH_NICS, else auto",
		     OFF(nics)),
	{ LB_OPT("transport", 't', "NAME", "data transport: tcp, dpdk, rdma (as built: lanebench --help)", LB_OPT_STRING, OFF(transport)),
	  .def = "tcp" },
	{ LB_OPT("idle", 0, NULL, "what a lane thread does with nothing to do (sleep when ranks share cores)",
	  LB_OPT_ENUM, OFF(idle)), .def = "sleep", .choices = idles },
	LB_TP_OPTION_ROWS(OFF(tpo)),
	LB_ALGO_OPT_ROWS(struct bcast_opts),
	{ LB_OPT("lane-rate", 0, "RATE", "line rate of one lane for the efficiency column (200mbit); default: asked from the transport",
	  LB_OPT_RATE, OFF(lane_rate)) },
	LB_SITE_ALGO_ROW(struct bcast_opts),
	{ LB_OPT("tuning", 0, "FILE", "-a auto's table of measured picks (lanebench tune writes it); used when its key (transport, ranks, lanes, lane rate) is the job's, else the model",
	  LB_OPT_STRING, OFF(tuning)) },
	{ LB_OPT("platform", 0, "FILE", "the network (a platform file, e.g. from lanebench calibrate): the platform algorithms need it, the others are checked against its links; a node per rank, every rank given the same file",
	  LB_OPT_STRING, OFF(platform)) },
	LB_SITES_ROWS(struct bcast_opts),
	{ LB_OPT("wan-lat", 0, "SECONDS", "with sites: the WAN's time in flight between them (one way), for the predictions: sim_seconds and the two-site table_seconds (scripts/cluster's --wan-delay); not with --platform, whose links carry its WAN",
	  LB_OPT_SECONDS, OFF(wan_lat)) },
	{ LB_OPT("wan-bw", 0, "RATE", "with sites: the bandwidth cap of a transfer between them, for the simulator (a lane's share of the WAN: scripts/cluster's --wan-rate; default none beyond the calibrated lanes)",
	  LB_OPT_RATE, OFF(wan_bw)) },
	{ LB_OPT("sim-model", 0, NULL, "the simulator's port model for sim_seconds (model/sim.h): auto = bounded on a --platform (fluid for the allgathers, logp for cluster-agent-gb/-ts, the model their plans are built for), fluid with sites (--sites, --site-sizes) and no --platform, else per-lane; fluid = the transfers in progress share each rank's ports (and the WAN, --wan-bw) max-min fairly, as TCP streams share a shaped port; fluid-rtt = the same weighted by 1 / round trip (sim --fluid-share rtt: 2 x (the calibrated latency, + --wan-lat between sites; on a --platform a link's occ + lat)); multi-port, bounded (need --platform) = sim --model's: a node's sends overlap, each link one transfer at a time; bounded also shares each node's rate (its NIC cap) among them",
	  LB_OPT_ENUM, OFF(sim_model)), .def = "auto", .choices = sim_models },
	{ LB_OPT("calib-size", 0, "BYTES", "message size of the bandwidth calibration",
	  LB_OPT_SIZE, OFF(calib_size)), .def = "256K" },
	{ LB_OPT("no-calibration", 0, NULL, "skip calibration (no predicted columns; with --platform, sim_seconds still)",
	  LB_OPT_FLAG, OFF(no_calibration)) },
	{ LB_OPT("no-pin", 0, NULL, "do not bind lane threads to cores near their NIC",
	  LB_OPT_FLAG, OFF(no_pin)) },
	{ LB_OPT("timeout", 0, "SECONDS", "limit for every wait: meeting the other ranks, connecting lanes, calibration, one iteration (default $LANEBENCH_TIMEOUT, else 60s)",
	  LB_OPT_HANDLER, OFF(timeout)), .handler = lb_cli_set_timeout,
	  .show = lb_cli_show_timeout },
	{ LB_OPT("verbose", 'v', NULL, "every rank says on stderr when each iteration's data phase starts (\"lanebench bcast: rank 2: chain 4M slice 64K root 0: iteration 3/12 started\"): follow a run in its logs, or act once data moves",
	  LB_OPT_FLAG, OFF(verbose)) },
	{ LB_OPT("label", 0, "NAME", "name of this run in the CSV and its file name",
	  LB_OPT_STRING, OFF(label)) },
	{ LB_OPT("output", 'o', "FILE", "CSV file (default results/<time>-<label>.csv)",
	  LB_OPT_STRING, OFF(output)) },
	LB_JSON_ROW(OFF(json)),
};

static void bcast_more_help(FILE *out)
{
	lb_cli_list_tp_options(out);
	fputs("\nalgorithms:\n", out);
	lb_cli_list_algos(out);
	fputs("\nEvery rank of the job runs this command; rank and size come from\n"
	      "LANEBENCH_RANK/LANEBENCH_SIZE, SLURM_PROCID/SLURM_NTASKS,\n"
	      "OMPI_COMM_WORLD_RANK/OMPI_COMM_WORLD_SIZE or PMI_RANK/PMI_SIZE; ranks meet\n"
	      "at LANEBENCH_COORD=host:port (rank 0 listens) and present LANEBENCH_TOKEN.\n"
	      "scripts/cluster run sets all of these; without a rank and size the command\n"
	      "refuses to run (LANEBENCH_RANK=0 LANEBENCH_SIZE=1: one rank, on purpose; no\n"
	      "data moves, so no bandwidth is reported).  Every iteration's bytes are checked\n"
	      "on every rank; a mismatch is an error, never a number.  Time per iteration\n"
	      "is the slowest rank's.  The CSV columns are described in results/README.md.\n"
	      "\nA rank that dies or stops answering stops the others: each exits with\n"
	      "status 3 and a message naming it (a dpdk peer counts as gone after 3 s of\n"
	      "silence, or half of --timeout if that is shorter).  Exit statuses: see\n"
	      "lanebench --help.\n",
	      out);
}

/* ---- rank 0's sinks: the CSV file and the table on stdout ----------------- */

struct bcast_out {
	const struct bcast_opts *o;
	struct lb_prov prov; /* the run's, for the CSV's head */
	struct lb_csv *csv;  /* opened with the first result */
	struct lb_table table;
	struct lb_progress progress;
	size_t nroots; /* each configuration runs once per root */
	char path[512];
};

/* What a configuration costs, for the time estimate: its bytes, plus a
 * fixed part so that small messages count too. */
static double config_weight(uint64_t bytes)
{
	return (double)bytes + 65536.0;
}

/* The set-up and calibration are done: progress counts from here, a line
 * per configuration when stderr is a log. */
static void start_progress(struct bcast_out *out)
{
	const struct bcast_opts *o = out->o;
	double weight = 0;
	for (size_t i = 0; i < o->sizes.n; i++)
		weight += config_weight(o->sizes.v[i]) *
			  (double)(o->algos.n * o->slices.n * out->nroots);
	lb_progress_start(&out->progress, "bcast",
			  o->algos.n * o->sizes.n * o->slices.n * out->nroots, weight,
			  !isatty(STDERR_FILENO));
}

/* "chain 1M slice 64K" done ("... root 3" when several roots are swept). */
static void row_progress(struct bcast_out *out, const struct lb_result *r)
{
	char what[112], size[24], slice[24], root[24] = "";
	uint64_t bytes = lb_result_val(r, "message_bytes")->u;
	uint64_t sl = lb_result_val(r, "slice_bytes")->u;
	lb_format_size(bytes, size, sizeof(size));
	lb_format_size(sl ? sl : bytes, slice, sizeof(slice));
	if (out->nroots > 1)
		snprintf(root, sizeof(root), " root %llu",
			 (unsigned long long)lb_result_val(r, "root")->u);
	snprintf(what, sizeof(what), "%s %s slice %s%s", lb_result_val(r, "algorithm")->s, size,
		 slice, root);
	lb_progress_done(&out->progress, what, config_weight(bytes));
}

static int out_provenance(void *ctx, const struct lb_prov *prov, char *err, size_t len)
{
	struct bcast_out *out = ctx;
	start_progress(out);
	lb_prov_add_all(&out->prov, prov);
	return lb_prov_failed(&out->prov) ? lb_errf(err, len, "out of memory") : 0;
}

/* results/<UTC time>-<label>.csv, creating results/ when needed. */
static void default_path(struct bcast_out *out, const char *label)
{
	char stamp[32];
	time_t t = time(NULL);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", gmtime(&t));
	mkdir("results", 0777);
	snprintf(out->path, sizeof(out->path), "results/%s-%s.csv", stamp, label);
}

/* The file opens with the first result (its default name holds the run's
 * label, which holds the job's size); from then on a signal stops the
 * sweep instead of losing the file. */
static int open_csv(struct bcast_out *out, const struct lb_result *r, char *err, size_t len)
{
	if (out->o->output)
		snprintf(out->path, sizeof(out->path), "%s", out->o->output);
	else
		default_path(out, lb_result_val(r, "label")->s);
	if (!(out->csv = lb_csv_create(out->path, &out->prov, r->cols, r->ncols, err, len)))
		return -1;
	lb_stop_arm();
	return 0;
}

static int out_row(void *ctx, const struct lb_result *r, char *err, size_t len)
{
	struct bcast_out *out = ctx;
	if (!out->csv && open_csv(out, r, err, len))
		return -1;
	if (lb_csv_sink_row(out->csv, r, err, len))
		return -1;
	row_progress(out, r);
	return lb_table_row(&out->table, r, err, len);
}

/* Rank 0 says which lane it calibrates against whom. */
static void on_calibration(uint32_t rank, int round, uint32_t lane, uint32_t peer, void *arg)
{
	if (rank == 0)
		fprintf(stderr, "lanebench bcast: calibration round %d: lane %u against rank %u\n",
			round + 1, lane, peer);
}

/* Before each iteration's data phase: with --verbose a line per rank and
 * iteration (logs; tests wait for it before they kill a rank), else rank
 * 0's progress line on a terminal. */
static void on_iteration(const struct lb_coll_step *st, void *arg)
{
	const struct bcast_opts *o = arg;
	char size[24], slice[24];
	lb_format_size(st->bytes, size, sizeof(size));
	if (o->verbose) {
		lb_format_size(st->slice_bytes ? st->slice_bytes : st->bytes, slice, sizeof(slice));
		fprintf(stderr, "lanebench bcast: rank %u: %s %s slice %s root %u: iteration %u/%u started\n",
			st->rank, st->algorithm, size, slice, st->root, st->iteration, st->iterations);
		return;
	}
	if (st->rank != 0 || !isatty(STDERR_FILENO))
		return;
	fprintf(stderr, "\r[%zu/%zu] %-10s %6s  iteration %u/%u   ", st->config + 1, st->nconfigs,
		st->algorithm, size, st->iteration, st->iterations);
	if (st->config + 1 == st->nconfigs && st->iteration == st->iterations)
		fprintf(stderr, "\r%60s\r", "");
}

/* In a job: the NICs' default may name the rank's own. */
static struct lb_coll_params params_of(const struct lb_cmd *cmd, const struct bcast_opts *o,
					const struct lb_list *roots)
{
	return (struct lb_coll_params){
		.algos = o->algos.a, .nalgos = o->algos.n, .sizes = o->sizes.v,
		.nsizes = o->sizes.n, .slices = o->slices.v, .nslices = o->slices.n,
		.iterations = o->iterations, .warmup = o->warmup,
		.roots = roots->v, .nroots = roots->n,
		.stripe_off = o->stripe_off, .allgather = (enum lb_allgather)o->allgather,
		.balance = (enum lb_balance)o->balance, .super2 = (enum lb_super2)o->super2,
		.agents = o->agents,
		.nics = lb_cli_nics(cmd, o->nics), .transport = o->transport, .label = o->label,
		.idle = (enum lb_idle)o->idle,
		.tp_options = o->tpo,
		.timeout = o->timeout, .lane_rate = o->lane_rate,
		.calib_bytes = o->no_calibration ? 0 : o->calib_size, .pin = !o->no_pin,
		.on_iteration = on_iteration, .on_iteration_arg = (void *)o,
		.on_calibration = on_calibration,
		.stop = lb_stop_flag(),
	};
}

/* The roots of -r for this job: "all" is every rank of it, "fastest" the
 * platform's fastest rank, and a rank beyond it is a usage error, named.
 * -r is expanded only here: its handler checked the syntax alone. */
static int roots_of(const struct lb_cmd *cmd, const struct bcast_opts *o,
		    const struct lb_platform *pf, struct lb_list *roots)
{
	const char *from = NULL;
	char err[768];
	uint32_t fastest;
	if (strcmp(o->roots, LB_ROOT_FASTEST) == 0) {
		if (lb_cli_root_fastest(cmd, pf, &fastest))
			return LB_EXIT_USAGE;
		if (!(roots->v = malloc(sizeof(*roots->v))))
			return LB_EXIT_FAILED;
		roots->v[0] = fastest, roots->n = 1;
		return 0;
	}
	uint32_t size = lb_job_launched(&from, err, sizeof(err));
	if (size && lb_parse_rank_list(o->roots, size, &roots->v, &roots->n, err, sizeof(err)) == 0)
		return 0;
	lb_cli_error(cmd, "root", "%s", err);
	return LB_EXIT_USAGE;
}

/* A platform algorithm among -a: the first, or NULL. */
static const char *platform_algorithm(const struct bcast_opts *o)
{
	for (size_t i = 0; i < o->algos.n; i++)
		if (o->algos.a[i]->needs)
			return o->algos.a[i]->name;
	return NULL;
}

/* The platform algorithms' trees reach every node from each root (lane
 * 0, the lane they use): else the first node that cannot be reached. */
static int check_reach(const struct lb_cmd *cmd, const struct bcast_opts *o,
		       const struct lb_platform *pf, const struct lb_list *roots)
{
	char err[512];
	for (size_t i = 0; platform_algorithm(o) && i < roots->n; i++)
		if (lb_platform_check_reachable(pf, (uint32_t)roots->v[i], 0, err, sizeof(err))) {
			lb_cli_error(cmd, "platform", "%s: %s", o->platform, err);
			return LB_EXIT_USAGE;
		}
	return 0;
}

/* --platform: read, a node per rank of the job; NULL without one (refused
 * when an algorithm needs it). */
static int platform_of(const struct lb_cmd *cmd, const struct bcast_opts *o,
		       struct lb_platform **pf)
{
	char err[768];
	const char *from = NULL, *needs = platform_algorithm(o);
	*pf = NULL;
	if (!o->platform && needs) {
		lb_cli_error(cmd, "algorithm", "%s needs --platform FILE (lanebench calibrate writes one)",
			     needs);
		return LB_EXIT_USAGE;
	}
	if (!o->platform && (o->sim_model == LB_SIM_MULTI_PORT || o->sim_model == LB_SIM_BOUNDED)) {
		lb_cli_error(cmd, "sim-model", "%s needs --platform FILE (its nodes' send times and rates)",
			     sim_models[o->sim_model]);
		return LB_EXIT_USAGE;
	}
	if (o->platform && !(*pf = lb_platform_read_file(o->platform, err, sizeof(err)))) {
		lb_cli_error(cmd, "platform", "%s", err);
		return LB_EXIT_USAGE;
	}
	uint32_t size = lb_job_launched(&from, err, sizeof(err));
	if (*pf && (*pf)->nodes != size) {
		lb_cli_error(cmd, "platform", "%s has %u nodes but the job has %u ranks (%s=%u): "
			     "a node per rank", o->platform, (*pf)->nodes, size, from, size);
		return LB_EXIT_USAGE;
	}
	return 0;
}

/* --sites, --site-sizes or the platform's sites, over the job's ranks. */
static int sites_of(const struct lb_cmd *cmd, const struct bcast_opts *o,
		    const struct lb_platform *pf, struct lb_cli_sites *sites)
{
	char err[768];
	const char *from = NULL;
	if (lb_cli_sites_resolve(cmd, o->sites, o->site_sizes, pf, sites))
		return LB_EXIT_USAGE;
	uint32_t size = lb_job_launched(&from, err, sizeof(err));
	if (sites->first && sites->ranks != size) {
		lb_cli_error(cmd, "site-sizes", "the %u sites hold %u ranks but the job has %u (%s=%u)",
			     sites->sites, sites->ranks, size, from, size);
		free(sites->first);
		sites->first = NULL;
		return LB_EXIT_USAGE;
	}
	if (!sites->first && sites->sites > size) {
		lb_cli_error(cmd, "sites", "%u sites for a job of %u ranks (%s=%u)", sites->sites,
			     size, from, size);
		return LB_EXIT_USAGE;
	}
	return 0;
}

/* --wan-lat and --wan-bw describe a WAN between sites, for the
 * simulator without a platform (a platform's links are its network). */
static int check_wan(const struct lb_cmd *cmd, const struct bcast_opts *o,
		     const struct lb_platform *pf, const struct lb_cli_sites *sites)
{
	const char *given = o->wan_lat > 0 ? "wan-lat" : o->wan_bw > 0 ? "wan-bw" : NULL;
	if (!given)
		return 0;
	if (pf) {
		lb_cli_error(cmd, given, "not with --platform: the simulator runs on the platform's links, "
			     "so its WAN is in its links between sites (lat, bw)");
		return LB_EXIT_USAGE;
	}
	if (sites->sites < 2) {
		lb_cli_error(cmd, given, "a WAN joins sites: give --sites N or --site-sizes LIST too");
		return LB_EXIT_USAGE;
	}
	return 0;
}

static int lists_auto(const struct lb_algo_set *set)
{
	for (size_t i = 0; i < set->n; i++)
		if (set->a[i] == &lb_coll_auto)
			return 1;
	return 0;
}

/* --tuning: read and checked, for -a auto (whether it is for this job is
 * the engine's to say, once the job is open); NULL without one.  -a auto
 * with --platform is refused here too: before any job. */
static int tuning_of(const struct lb_cmd *cmd, const struct bcast_opts *o, struct lb_tuning **t)
{
	char err[512];
	*t = NULL;
	if (lists_auto(&o->algos) && o->platform) {
		lb_cli_error(cmd, "platform", "not with -a auto yet: a platform's agents and LPs are "
			     "resolved before auto chooses; name the algorithms");
		return LB_EXIT_USAGE;
	}
	if (!o->tuning)
		return 0;
	if (!lists_auto(&o->algos)) {
		lb_cli_error(cmd, "tuning", "is -a auto's table: give -a auto");
		return LB_EXIT_USAGE;
	}
	if (!(*t = malloc(sizeof(**t))))
		return LB_EXIT_FAILED;
	if (lb_tuning_read(o->tuning, *t, err, sizeof(err)) == 0)
		return 0;
	lb_cli_error(cmd, "tuning", "%s", err);
	free(*t);
	*t = NULL;
	return LB_EXIT_USAGE;
}

/* The sinks on rank 0: the CSV and the table (out), the JSON document. */
static int run_sinks(const struct lb_coll_params *p, struct bcast_out *out,
		     struct lb_cli_json *json, char *err, size_t len)
{
	struct lb_sink sinks[2] = {
		{ .provenance = out_provenance, .row = out_row, .ctx = out },
		lb_cli_json_sink(json),
	};
	struct lb_tee tee = { sinks, json->path ? 2 : 1 };
	const struct lb_sink sink = { .provenance = lb_tee_provenance, .begin = lb_tee_begin,
				      .row = lb_tee_row, .ctx = &tee };
	return lb_coll_run(p, &sink, err, len);
}

/* The user's inputs, checked in the order their errors are told: the
 * tuning table first (no job needed), the job, the platform, the roots
 * (every node reachable from each on a platform), the sites and the WAN.
 * On an error all of them are freed. */
static int inputs_of(const struct lb_cmd *cmd, const struct bcast_opts *o,
		     struct lb_tuning **tuning, struct lb_platform **pf, struct lb_list *roots,
		     struct lb_cli_sites *sites)
{
	int rc = tuning_of(cmd, o, tuning);
	if (rc == 0)
		rc = lb_cli_require_job(cmd, 1);
	if (rc == 0)
		rc = platform_of(cmd, o, pf);
	if (rc == 0)
		rc = roots_of(cmd, o, *pf, roots);
	if (rc == 0 && *pf)
		rc = check_reach(cmd, o, *pf, roots);
	if (rc == 0)
		rc = sites_of(cmd, o, *pf, sites);
	if (rc == 0)
		rc = check_wan(cmd, o, *pf, sites);
	if (rc) {
		free(sites->first);
		free(roots->v);
		lb_platform_free(*pf);
		free(*tuning);
	}
	return rc;
}

static int bcast(const struct lb_cmd *cmd, void *base)
{
	const struct bcast_opts *o = base;
	struct lb_cli_json json = { .path = o->json };
	FILE *shown = lb_cli_json_to_stdout(&json) ? stderr : stdout; /* --json -: stdout is its */
	struct bcast_out out = { .o = o, .table = { .out = shown } };
	struct lb_prov prov = { 0 };
	struct lb_list roots = { 0 };
	struct lb_platform *pf = NULL;
	struct lb_tuning *tuning = NULL;
	struct lb_cli_sites sites = { .sites = 1 };
	char err[512] = "";
	if (lb_cli_check_stdout(cmd, &json, o->output))
		return LB_EXIT_USAGE;
	int rc = inputs_of(cmd, o, &tuning, &pf, &roots, &sites);
	if (rc)
		return rc;
	out.nroots = roots.n;
	struct lb_coll_params p = params_of(cmd, o, &roots);
	p.platform = pf;
	p.sites = sites.sites;
	p.site_first = sites.first;
	p.site_algo = o->site_algo;
	p.wan_latency = o->wan_lat;
	p.wan_bw = o->wan_bw;
	p.sim_model = (enum lb_sim_choice)o->sim_model;
	p.tuning = tuning;
	lb_cli_provenance(&prov, cmd, o);
	lb_cli_tp_provenance(&prov, o->transport, &o->tpo);
	p.prov = &prov;
	rc = run_sinks(&p, &out, &json, err, sizeof(err));
	if (!*lb_stop_flag())
		lb_table_legend(&out.table); /* rank 0's, under its table */
	free(roots.v);
	free(sites.first);
	lb_platform_free(pf);
	free(tuning);
	if (rc && !*lb_stop_flag())
		lb_cli_error(cmd, NULL, "%s", err);
	lb_prov_free(&prov);
	lb_prov_free(&out.prov);
	int json_rc = lb_cli_finish_json(cmd, &json, rc, err);
	rc = lb_cli_finish_csv(cmd, out.csv, rc, err); /* after a signal: ends by it */
	if (rc == 0 && out.csv)
		fprintf(shown, "results: %s\n", out.path);
	return rc ? rc : json_rc;
}

/* lb_cmd.check_given: options the chosen algorithms take (bench/algo_opt.h;
 * the sites are the network's, which every homogeneous algorithm's
 * predictions see -- with a --platform too: table_seconds becomes the
 * two-site form, the calibration across sites is replaced), and
 * --calib-size only when there is a calibration to size. */
/* The lanes an explicit NIC list names (one each), before any rank opens
 * them; 0 for auto or a --platform (whose lanes may differ in speed). */
static uint32_t listed_lanes(const struct bcast_opts *o)
{
	const char *nics = o->nics ? o->nics : getenv("LANEBENCH_NICS");
	if (!nics || o->platform || strncmp(nics, "auto", 4) == 0)
		return 0;
	uint32_t n = 1;
	for (const char *c = nics; *c; c++)
		n += *c == ',';
	return n;
}

static int check_given(const struct lb_cmd *cmd, const void *base, const unsigned char *given)
{
	const struct bcast_opts *o = base;
	const struct lb_cli_algo_opts ao = { .algos = o->algos.a, .n = o->algos.n,
					     .site_algo = o->site_algo, .network_sites = 1,
					     .lanes = listed_lanes(o), .lanes_option = "nics" };
	for (size_t i = 0; o->no_calibration && i < cmd->nopts; i++) {
		if (given[i] && strcmp(cmd->opts[i].name, "calib-size") == 0) {
			lb_cli_error(cmd, "calib-size", "sizes the calibration, and --no-calibration skips it");
			return -1;
		}
	}
	return lb_cli_check_algo_opts(cmd, given, &ao);
}

static int run_bcast(const struct lb_cmd *cmd, int argc, char **argv)
{
	struct bcast_opts o = { 0 };
	return lb_cli_run(cmd, argc, argv, &o, bcast);
}

const struct lb_cmd lb_cmd_bcast = {
	.name = "bcast",
	.summary = "run broadcasts across the job's ranks; measured vs predicted, CSV",
	.usage = "[-a LIST|all] [-m SIZES] [-s SIZES] [-i N] [-x N] [-r RANKS|all] [-d NICS] [options]",
	.opts = opts,
	.nopts = sizeof(opts) / sizeof(opts[0]),
	.more_help = bcast_more_help,
	.run = run_bcast,
	.check_given = check_given,
};
