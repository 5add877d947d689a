/* The simulation engine; see simsweep.h. */
#include "simsweep.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/agent_auto.h"
#include "model/slice_auto.h"
#include "lib/error.h"
#include "lib/memory.h"
#include "lib/stop.h"
#include "lib/units.h"
#include "model/lp.h"
#include "model/sim.h"
#include "lpset.h"

/* results/README.md documents these columns; the table shows some. */
static const struct lb_col columns[] = {
	{ LB_COLUMN("algorithm", LB_COL_TEXT),
	  .table = { { LB_SHOW_TEXT, "algorithm", -11,
		       .legend = "the algorithm (lanebench help sim lists them)" } } },
	{ LB_COLUMN("ranks", LB_COL_UINT), .table = { { LB_SHOW_UINT, "p", 7, .legend = "ranks" } } },
	{ LB_COLUMN("lanes", LB_COL_UINT) },
	{ LB_COLUMN("root", LB_COL_UINT), .table = { { LB_SHOW_UINT, "root", 5, .legend = "the rank that holds the message" } } },
	{ LB_COLUMN("stripe", LB_COL_TEXT) },
	{ LB_COLUMN("message_bytes", LB_COL_UINT),
	  .table = { { LB_SHOW_SIZE, "size", 9, .legend = "message size (KiB, MiB: 1024-based); an allgather's is each rank's share" } } },
	{ LB_COLUMN("slice_bytes", LB_COL_UINT),
	  .table = { { LB_SHOW_SIZE, "slice", 9, .legend = "pipelining unit" } } },
	{ LB_COLUMN("slices", LB_COL_UINT), .table = { { LB_SHOW_UINT, "slices", 7, .legend = "slices per message" } } },
	{ LB_COLUMN("alpha_seconds", LB_COL_REAL) },
	{ LB_COLUMN("lane_bandwidth_bytes_per_second", LB_COL_REAL) },
	{ LB_COLUMN("sim_seconds", LB_COL_REAL),
	  .table = { { LB_SHOW_SECONDS, "sim", 11,
		       .legend = "simulated time until the last rank holds the whole message" } } },
	{ LB_COLUMN("table_seconds", LB_COL_REAL),
	  .table = { { LB_SHOW_SECONDS, "table", 11,
		       .legend = "the multi-lane paper's closed form (its Table 1, docs/papers.md#seed003)" } } },
	{ LB_COLUMN("refined_seconds", LB_COL_REAL),
	  .table = { { LB_SHOW_SECONDS, "refined", 11,
		       .legend = "the closed form that counts slices" } } },
	{ LB_COLUMN("sim_over_table_ratio", LB_COL_REAL), .table = { { LB_SHOW_FIXED, "sim/table", 9, 3,
		       .legend = "sim over table (1: the model is exact; above 1: slower than it)" } } },
	{ LB_COLUMN("sim_over_refined_ratio", LB_COL_REAL),
	  .table = { { LB_SHOW_FIXED, "sim/refined", 11, 3, .legend = "sim over refined" } } },
	{ LB_COLUMN("sim_bandwidth_bytes_per_second", LB_COL_REAL) },
	{ LB_COLUMN("period_seconds", LB_COL_REAL) },
	{ LB_COLUMN("throughput_bytes_per_second", LB_COL_REAL) },
	{ LB_COLUMN("collective", LB_COL_TEXT) },
	/* with a platform: */
	{ LB_COLUMN("platform", LB_COL_TEXT) },
	{ LB_COLUMN("lp_bound_bytes_per_second", LB_COL_REAL) },
	{ LB_COLUMN("ratio_to_lp", LB_COL_REAL) },
	/* only with two sites: */
	{ LB_COLUMN("two_site_seconds", LB_COL_REAL) },
	{ LB_COLUMN("sim_over_two_site_ratio", LB_COL_REAL),
	  .table = { { LB_SHOW_FIXED, "sim/2-site", 10, 3,
		       .legend = "sim over the paper's two-site form (--sites 2)" } } },
};

#define NCOLUMNS (sizeof(columns) / sizeof(columns[0]))
#define NCOLUMNS_ONE_SITE (NCOLUMNS - 2)

static int two_site(const struct lb_simsweep_params *p)
{
	return p->sites == 2 && !p->platform;
}

/* Instead of the two-site pair (which needs no platform), with a platform
 * and one of seed 004's algorithms in the sweep: */
static const struct lb_col hbsp_pair[] = {
	{ LB_COLUMN("hbsp_seconds", LB_COL_REAL),
	  .table = { { LB_SHOW_SECONDS, "hbsp", 11,
		       .legend = "the HBSP^k cost (docs/papers.md#seed004)" } } },
	{ LB_COLUMN("sim_over_hbsp_ratio", LB_COL_REAL),
	  .table = { { LB_SHOW_FIXED, "sim/hbsp", 9, 3, .legend = "sim over hbsp" } } },
};

static int hbsp_sweep(const struct lb_simsweep_params *p)
{
	for (size_t i = 0; p->platform && i < p->nalgos; i++)
		if (p->algos[i]->hbsp)
			return 1;
	return 0;
}

const struct lb_col *lb_simsweep_columns(const struct lb_simsweep_params *p, size_t *ncols)
{
	static struct lb_col with_hbsp[NCOLUMNS]; /* the same, every sweep */
	*ncols = two_site(p) || hbsp_sweep(p) ? NCOLUMNS : NCOLUMNS_ONE_SITE;
	if (!hbsp_sweep(p))
		return columns;
	memcpy(with_hbsp, columns, sizeof(columns));
	memcpy(with_hbsp + NCOLUMNS_ONE_SITE, hbsp_pair, sizeof(hbsp_pair));
	return with_hbsp;
}

/* One configuration's figures, every derived number included. */
struct sim_row {
	const struct lb_algo *algo;
	const char *collective; /* the built schedule's (lb_sched_collective) */
	uint32_t ranks, root;
	uint64_t bytes, slice;
	uint32_t slices;
	double sim, table, refined, two_site; /* seconds; NaN: no model */
	double sim_over_table, sim_over_refined, sim_over_two_site;
	double hbsp, sim_over_hbsp; /* seed 004's HBSP cost; NaN: none */
	double bandwidth; /* bytes per second */
	double period;     /* the simulator's steady state, seconds per slice */
	double throughput; /* slice bytes / period, bytes per second */
	double lp_bound;   /* TP* x slice bytes, bytes per second; NaN: none */
	double ratio_to_lp;
};

static double wan_alpha(const struct lb_simsweep_params *p)
{
	return p->wan_alpha < 0 ? p->alpha : p->wan_alpha;
}

static double wan_latency(const struct lb_simsweep_params *p)
{
	return p->wan_latency < 0 ? p->latency : p->wan_latency;
}

static double ratio(double a, double b)
{
	return b > 0 ? a / b : NAN;
}

/* The closed forms know one latency per transfer, l (and L between
 * sites): occupation and time in flight together. */
static void eval_models(const struct lb_simsweep_params *p, const struct lb_algo_params *prm,
			struct sim_row *r)
{
	struct lb_cost_in in = {
		.ranks = prm->ranks, .lanes = prm->lanes, .bytes = prm->bytes,
		.slice_bytes = prm->slice_bytes, .latency = p->alpha + p->latency,
		.lane_bw = p->lane_bw, .sites = p->sites,
		.wan_latency = wan_alpha(p) + wan_latency(p),
		.allgather = prm->allgather, .stripe_off = prm->stripe_off,
	};
	/* (the platform algorithms have no closed forms, and on a platform
	 * no closed form knows the links: NaN) */
	int forms = !p->platform;
	r->table = forms && r->algo->cost_table ? r->algo->cost_table(&in) : NAN;
	r->refined = forms && r->algo->cost_refined ? r->algo->cost_refined(&in) : NAN;
	r->two_site = two_site(p) && r->algo->cost_two_site ? r->algo->cost_two_site(&in) : NAN;
	r->sim_over_table = ratio(r->sim, r->table);
	r->sim_over_refined = ratio(r->sim, r->refined);
	r->sim_over_two_site = ratio(r->sim, r->two_site);
	r->hbsp = p->platform && r->algo->hbsp ? r->algo->hbsp(prm) : NAN;
	r->sim_over_hbsp = ratio(r->sim, r->hbsp);
	r->bandwidth = r->sim > 0 ? (double)r->bytes / r->sim : NAN;
	r->throughput = r->period > 0 ? (double)r->slice / r->period : NAN;
	r->ratio_to_lp = ratio(r->throughput, r->lp_bound);
}

/* Builds, optionally validates, and simulates one configuration.
 * Returns 0, or -1 with the reason in err. */
static int simulate(const struct lb_simsweep_params *p, const struct lb_algo_params *prm,
		    struct sim_row *r, char *err, size_t len)
{
	struct lb_sim_net net = { .alpha = p->alpha, .lane_bw = p->lane_bw, .sites = p->sites,
				  .site_first = p->site_first, .wan_bw = p->wan_bw,
				  .wan_alpha = wan_alpha(p), .latency = p->latency,
				  .wan_latency = wan_latency(p), .platform = p->platform,
				  .model = p->model, .share = p->share };
	struct lb_sim_result res = { 0 };
	char why[384];
	int rc = 0;
	/* Without the validator, a platform (its algorithms' barriers and
	 * flags) or LogP, the run reads only SENDs: half the ops unbuilt. */
	struct lb_algo_params built = *prm;
	built.sends_only = !p->validate && !p->platform && p->model != LB_PORT_LOGP;
	struct lb_schedule *s = lb_algo_build(r->algo, &built, err, len);
	if (!s)
		return -1;
	if (p->validate && lb_sched_validate(s, why, sizeof(why)))
		rc = lb_errf(err, len, "%s, %u ranks, %llu bytes, slice %llu: invalid schedule: %s",
			     r->algo->name, prm->ranks, (unsigned long long)prm->bytes,
			     (unsigned long long)prm->slice_bytes, why);
	r->slices = s->nblocks;
	r->collective = lb_sched_collective(s);
	if (rc)
		lb_sched_free(s);
	else if (lb_sim_run_free(s, &net, &res, why, sizeof(why)))
		rc = lb_errf(err, len, "%s, %u ranks: %s", r->algo->name, prm->ranks, why);
	r->sim = res.seconds;
	r->period = rc ? NAN : (res.period > 0 ? res.period : NAN);
	return rc;
}

/* How params_of resolves LB_SLICE_AUTO: as the run does, or by the
 * refined model alone (for estimates before it: lb_slice_auto returns
 * that pick or a schedule within LB_SLICE_SIM_BUDGET ranks x blocks, whose
 * memory and simulation are small, without simulating anything). */
enum resolve { RESOLVE_RUN, RESOLVE_ESTIMATE };

/* The configuration's parameters, a slice of LB_SLICE_AUTO resolved with
 * this sweep's alpha and bandwidth.  (--agents auto is resolved in
 * run_job only: it simulates every agent count, and the estimates and the
 * LP pass call this too.) */
static struct lb_algo_params params_of(const struct lb_simsweep_params *p,
				       const struct lb_algo *a, uint32_t ranks, uint64_t bytes,
				       uint64_t slice, uint32_t root, enum resolve how)
{
	struct lb_algo_params prm = {
		.ranks = ranks, .root = root, .lanes = p->lanes, .bytes = bytes,
		.slice_bytes = slice, .stripe_off = p->stripe_off, .allgather = p->allgather,
		.sites = p->sites, .site_first = p->site_first, .platform = p->platform,
		.site_algo = p->site_algo,
		.balance = p->balance, .super2 = p->super2, .agents = p->agents,
	};
	if (slice == LB_SLICE_AUTO)
		prm.slice_bytes = how == RESOLVE_RUN ? lb_slice_auto(a, &prm, p->alpha, p->lane_bw)
						     : lb_slice_refined(a, &prm, p->alpha, p->lane_bw);
	return prm;
}

/* The row as a result, to the sink. */
static int emit(const struct lb_simsweep_params *p, const struct sim_row *r,
		const char *platform, const struct lb_sink *sink, char *err, size_t len)
{
	const union lb_val v[] = {
		{ .s = r->algo->name }, { .u = r->ranks }, { .u = p->lanes },
		{ .u = r->root }, { .s = p->stripe_off ? "off" : "on" },
		{ .u = r->bytes }, { .u = r->slice }, { .u = r->slices },
		{ .d = p->alpha }, { .d = p->lane_bw }, { .d = r->sim },
		{ .d = r->table }, { .d = r->refined }, { .d = r->sim_over_table },
		{ .d = r->sim_over_refined }, { .d = r->bandwidth },
		{ .d = r->period }, { .d = r->throughput }, { .s = r->collective },
		{ .s = platform }, { .d = r->lp_bound }, { .d = r->ratio_to_lp },
		{ .d = hbsp_sweep(p) ? r->hbsp : r->two_site },
		{ .d = hbsp_sweep(p) ? r->sim_over_hbsp : r->sim_over_two_site },
	};
	_Static_assert(sizeof(v) / sizeof(v[0]) == NCOLUMNS, "a value for every column");
	struct lb_result res = { .vals = v };
	res.cols = lb_simsweep_columns(p, &res.ncols);
	return sink->row(sink->ctx, &res, err, len);
}

uint64_t lb_simsweep_slice_estimate(const struct lb_simsweep_params *p, const struct lb_algo *a,
				    uint32_t ranks, uint64_t bytes, uint64_t slice)
{
	return params_of(p, a, ranks, bytes, slice, 0, RESOLVE_ESTIMATE).slice_bytes;
}

/* ---- running configurations on every core, results in sweep order ----
 *
 * Configurations are independent, so workers (one per CPU this process may
 * use) take them in sweep order and the calling thread hands the rows to
 * the sink in that order: output is the same as one at a time.  A
 * configuration starts beside the running ones only if their memory
 * estimates together fit what lb_simsweep_check measured against (so a
 * sweep that passed the check alone never needs more than is available);
 * the first always starts. */

enum job_end { JOB_RUNNING, JOB_DONE, JOB_FAILED, JOB_STOPPED };

struct job {
	struct sim_row row;
	uint64_t memory;  /* estimate, set when it is next to start */
	enum job_end done; /* JOB_RUNNING: not ended (or not started) */
	char *err;        /* its failure, malloc'd */
};

struct pool {
	const struct lb_simsweep_params *p;
	struct job *jobs;
	size_t njobs, next;      /* next to start */
	size_t failed;           /* first failed job, njobs: none */
	size_t running;
	uint64_t running_memory, budget;
	int quit;                /* the caller stopped reading (stop, sink failure) */
	struct lb_lp_set lp;     /* with a platform: solved before the workers start */
	char platform[17];       /* the platform's hash, hex; "" without one */
	pthread_mutex_t lock;
	pthread_cond_t change;   /* a job started or ended, or quit */
};

static uint64_t config_memory(const struct lb_simsweep_params *p, const struct sim_row *r);

/* The roots swept with `ranks` ranks, and the j-th of them. */
static size_t nroots_for(const struct lb_simsweep_params *p, uint32_t ranks)
{
	return p->nroots ? p->nroots : ranks;
}

static uint32_t root_at(const struct lb_simsweep_params *p, size_t j)
{
	return p->nroots ? (uint32_t)p->roots[j] : (uint32_t)j;
}

/* Every configuration in sweep order (algorithms, ranks, sizes, slices,
 * roots innermost) into pl->jobs.  Returns 0 or -1 (no memory). */
static int list_jobs(struct pool *pl)
{
	const struct lb_simsweep_params *p = pl->p;
	size_t n = 0;
	for (size_t k = 0; k < p->nranks; k++)
		n += nroots_for(p, (uint32_t)p->ranks[k]) * p->nsizes * p->nslices;
	pl->jobs = calloc(n * p->nalgos + 1, sizeof(*pl->jobs));
	if (!pl->jobs)
		return -1;
	for (size_t a = 0; a < p->nalgos; a++)
		for (size_t k = 0; k < p->nranks; k++)
			for (size_t m = 0; m < p->nsizes; m++)
				for (size_t i = 0; i < p->nslices; i++)
					for (size_t j = 0; j < nroots_for(p, (uint32_t)p->ranks[k]); j++)
						pl->jobs[pl->njobs++].row = (struct sim_row){
							.algo = p->algos[a], .ranks = (uint32_t)p->ranks[k],
							.root = root_at(p, j), .bytes = p->sizes[m],
							.slice = p->slices[i] };
	return 0;
}

/* Under the lock: the next job may start now. */
static int may_start(struct pool *pl)
{
	if (pl->quit || pl->next >= pl->njobs || pl->next > pl->failed)
		return 0;
	struct job *j = &pl->jobs[pl->next];
	if (!j->memory)
		j->memory = config_memory(pl->p, &j->row);
	return pl->running == 0 || (pl->running_memory <= pl->budget &&
				    j->memory <= pl->budget - pl->running_memory);
}

static int stop_asked(const struct lb_simsweep_params *p)
{
	return p->stop && *p->stop;
}

/* Under the lock: no job will start any more.  A stop is looked at here
 * too, not only by the thread that emits (it sees it only while it
 * waits): a worker that would start a job after a stop starts none. */
static int finished(const struct pool *pl)
{
	return pl->quit || stop_asked(pl->p) || pl->next >= pl->njobs ||
	       pl->next > pl->failed;
}

static void run_job(struct pool *pl, struct job *j)
{
	char err[512];
	struct lb_algo_params prm = params_of(pl->p, j->row.algo, j->row.ranks, j->row.bytes,
					      j->row.slice, j->row.root, RESOLVE_RUN);
	prm.agents = lb_agent_auto(j->row.algo, &prm, NULL); /* model/agent_auto.h */
	j->row.slice = prm.slice_bytes;
	const struct lb_lp_result *lp = lb_lp_set_find(&pl->lp, j->row.root, prm.slice_bytes);
	prm.lp_load = lp ? lp->load : NULL;
	j->row.lp_bound = lp ? lp->tp * (double)prm.slice_bytes : NAN;
	int rc = simulate(pl->p, &prm, &j->row, err, sizeof(err));
	if (rc == 0)
		eval_models(pl->p, &prm, &j->row);
	int stopped = rc && lb_stop_requested(); /* the build or run gave up */
	pthread_mutex_lock(&pl->lock);
	if (rc && !stopped)
		j->err = strdup(err); /* NULL: reported as out of memory */
	if (rc && (size_t)(j - pl->jobs) < pl->failed)
		pl->failed = (size_t)(j - pl->jobs);
	j->done = stopped ? JOB_STOPPED : rc ? JOB_FAILED : JOB_DONE;
	pl->running--;
	pl->running_memory -= j->memory;
	pthread_cond_broadcast(&pl->change);
	pthread_mutex_unlock(&pl->lock);
}

static void *worker(void *arg)
{
	struct pool *pl = arg;
	pthread_mutex_lock(&pl->lock);
	for (;;) {
		while (!finished(pl) && !may_start(pl))
			pthread_cond_wait(&pl->change, &pl->lock);
		if (finished(pl))
			break;
		struct job *j = &pl->jobs[pl->next++];
		pl->running++;
		pl->running_memory += j->memory;
		pthread_mutex_unlock(&pl->lock);
		run_job(pl, j);
		pthread_mutex_lock(&pl->lock);
	}
	pthread_mutex_unlock(&pl->lock);
	return NULL;
}

/* Under the lock: waits until job i has ended or will never start.  A
 * signal does not end a condition wait, so the wait looks at the stop
 * flag every 100 ms. */
static void wait_for(struct pool *pl, size_t i)
{
	while (!pl->jobs[i].done && !(i >= pl->next && finished(pl))) {
		if (stop_asked(pl->p) && !pl->quit) {
			pl->quit = 1; /* running jobs end; no new one starts */
			pthread_cond_broadcast(&pl->change);
		}
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 100000000;
		if (until.tv_nsec >= 1000000000)
			until.tv_sec++, until.tv_nsec -= 1000000000;
		pthread_cond_timedwait(&pl->change, &pl->lock, &until);
	}
}

/* Hands the rows to the sink in order until the end, the first failed
 * job or a stop.  Returns 0 or -1 with the reason in err. */
static int emit_in_order(struct pool *pl, const struct lb_sink *sink, char *err, size_t len)
{
	int rc = 0;
	pthread_mutex_lock(&pl->lock);
	for (size_t i = 0; i < pl->njobs && rc == 0; i++) {
		wait_for(pl, i);
		struct job *j = &pl->jobs[i];
		if (j->done == JOB_RUNNING || j->done == JOB_STOPPED)
			break; /* stopped before it started, or while it ran */
		if (j->done == JOB_FAILED) {
			snprintf(err, len, "%s", j->err ? j->err : "sim: out of memory");
			rc = -1;
			break;
		}
		pthread_mutex_unlock(&pl->lock);
		rc = emit(pl->p, &j->row, pl->platform[0] ? pl->platform : NULL, sink, err, len);
		pthread_mutex_lock(&pl->lock);
	}
	pl->quit = 1;
	pthread_cond_broadcast(&pl->change);
	pthread_mutex_unlock(&pl->lock);
	return rc;
}

/* Workers: one per CPU this process may run on, no more than jobs. */
static size_t worker_count(const struct pool *pl)
{
	cpu_set_t set;
	size_t cpus = sched_getaffinity(0, sizeof(set), &set) == 0 ? (size_t)CPU_COUNT(&set) : 1;
	if (pl->p->workers)
		cpus = pl->p->workers;
	return cpus < pl->njobs ? (cpus ? cpus : 1) : pl->njobs;
}

/* Starts the workers, emits, joins them.  Returns 0 or -1 (err). */
static int run_pool(struct pool *pl, const struct lb_sink *sink, char *err, size_t len)
{
	size_t n = worker_count(pl), started = 0;
	pthread_t *threads = calloc(n ? n : 1, sizeof(*threads));
	int rc = -1;
	if (!threads)
		return lb_errf(err, len, "sim: out of memory for %zu threads", n);
	while (started < n && pthread_create(&threads[started], NULL, worker, pl) == 0)
		started++;
	if (started || pl->njobs == 0)
		rc = emit_in_order(pl, sink, err, len);
	else
		lb_errf(err, len, "sim: cannot start a thread");
	for (size_t i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	free(threads);
	return rc;
}

/* With a platform, before the workers: every job's slice resolved here,
 * and the LP of its (root, slice) solved when the row reports the bound or
 * its algorithm builds on the loads -- GLPK in this thread only.  Returns
 * 0 or -1 (err). */
static int solve_lps(struct pool *pl, char *err, size_t len)
{
	const struct lb_simsweep_params *p = pl->p;
	if (!p->platform)
		return 0;
	snprintf(pl->platform, sizeof(pl->platform), "%016llx",
		 (unsigned long long)lb_platform_hash(p->platform));
	for (size_t i = 0; i < pl->njobs && !stop_asked(p); i++) {
		struct sim_row *r = &pl->jobs[i].row;
		r->slice = params_of(p, r->algo, r->ranks, r->bytes, r->slice, r->root,
				     RESOLVE_RUN).slice_bytes;
		if ((p->lp_bound || (r->algo->needs & LB_ALGO_NEEDS_LP)) &&
		    lb_lp_set_add(&pl->lp, p->platform, r->root, r->slice, err, len))
			return -1;
	}
	return 0;
}

int lb_simsweep_run(const struct lb_simsweep_params *p, const struct lb_sink *sink,
		    char *err, size_t len)
{
	size_t ncols;
	const struct lb_col *cols = lb_simsweep_columns(p, &ncols);
	const char *what;
	if (lb_sink_start(sink, p->prov, cols, ncols, err, len))
		return -1;
	struct pool pl = { .p = p, .budget = lb_mem_available(&what) };
	if (list_jobs(&pl))
		return lb_errf(err, len, "sim: out of memory listing the configurations");
	pl.failed = pl.njobs;
	pthread_mutex_init(&pl.lock, NULL);
	pthread_cond_init(&pl.change, NULL);
	int rc = solve_lps(&pl, err, len);
	if (rc == 0)
		rc = run_pool(&pl, sink, err, len);
	pthread_cond_destroy(&pl.change);
	pthread_mutex_destroy(&pl.lock);
	lb_lp_set_free(&pl.lp);
	for (size_t i = 0; i < pl.njobs; i++)
		free(pl.jobs[i].err);
	free(pl.jobs);
	return rc;
}

/* ---- memory: refuse a sweep that cannot fit before allocating ---- */

/* The configuration of the sweep that needs the most memory. */
struct need {
	const struct lb_algo *algo;
	uint32_t ranks;
	uint64_t bytes, slice, blocks, memory;
};

/* Schedule (and validator) plus simulator, from the dimensions alone. */
static void consider(const struct lb_simsweep_params *p, const struct lb_algo *a,
		     const struct lb_algo_params *prm, struct need *n)
{
	struct lb_sched_estimate e;
	lb_algo_estimate(a, prm, p->validate, &e);
	/* e.ops counts both ends of every transfer: half are SENDs. */
	uint64_t sim = lb_sim_bytes(prm->ranks, p->lanes, e.blocks, e.ops / 2);
	if (p->platform)
		sim = lb_add_sat(lb_add_sat(sim, lb_mul_sat(e.ops / 2, LB_SIM_PLATFORM_SEND_BYTES)),
				 (uint64_t)prm->ranks * (LB_SIM_MULTI_PORT_RANK_BYTES +
							 p->lanes * LB_SIM_BOUNDED_SLOT_BYTES));
	if (p->model == LB_PORT_FLUID)
		sim = lb_add_sat(lb_add_sat(sim, lb_mul_sat(e.ops / 2, LB_SIM_FLUID_SEND_BYTES)),
				 (uint64_t)prm->ranks * p->lanes * LB_SIM_FLUID_SLOT_BYTES +
					 (uint64_t)p->sites * p->sites * p->lanes * LB_SIM_FLUID_WAN_BYTES);
	uint64_t memory = lb_add_sat(e.bytes, sim);
	if (memory > n->memory)
		*n = (struct need){ a, prm->ranks, prm->bytes, prm->slice_bytes, e.blocks, memory };
}

/* The estimate of one configuration, as lb_simsweep_check counts it. */
static uint64_t config_memory(const struct lb_simsweep_params *p, const struct sim_row *r)
{
	struct need n = { 0 };
	struct lb_algo_params prm = params_of(p, r->algo, r->ranks, r->bytes, r->slice, r->root,
					      RESOLVE_ESTIMATE);
	consider(p, r->algo, &prm, &n);
	return n.memory ? n.memory : 1;
}

/* On a platform, the schedule of a one-block message (seed 004's: a
 * byte per rank) uses every pair a larger one does: built and validated (s->platform makes the
 * validator refuse an op over a missing link), so a schedule that needs
 * a link the platform lacks is refused before any output. */
static int check_links(const struct lb_simsweep_params *p, const struct lb_algo *a,
		       const struct lb_algo_params *prm, char *err, size_t len)
{
	struct lb_algo_params one = *prm;
	char why[384];
	one.bytes = 1, one.slice_bytes = 1;
	if (a->hbsp) /* seed 004's give each rank a share of a byte at least */
		one.bytes = prm->ranks;
	struct lb_schedule *s = lb_algo_build(a, &one, err, len);
	if (!s)
		return -1;
	int rc = lb_sched_validate(s, why, sizeof(why));
	if (rc)
		lb_errf(err, len, "%s on the platform: %s", a->name, why);
	lb_sched_free(s);
	return rc;
}

/* Every configuration of one algorithm and rank count: buildable (else
 * -1, err names it), and the largest so far in n.  Every root below
 * the rank count builds, and the estimate works from the dimensions, so
 * the first root stands for all. */
static int check_sizes(const struct lb_simsweep_params *p, const struct lb_algo *a,
		       uint32_t ranks, struct need *n, char *err, size_t len)
{
	for (size_t m = 0; m < p->nsizes; m++) {
		for (size_t s = 0; s < p->nslices; s++) {
			struct lb_algo_params prm = params_of(p, a, ranks, p->sizes[m], p->slices[s],
							      root_at(p, 0), RESOLVE_ESTIMATE);
			static const double solved_later = 0; /* the run solves the LP first */
			if (p->platform)
				prm.lp_load = &solved_later;
			if (lb_algo_check(a, &prm, err, len))
				return -1;
			if (p->platform && m == 0 && s == 0 && !(a->needs & LB_ALGO_NEEDS_LP) &&
			    check_links(p, a, &prm, err, len))
				return -1;
			consider(p, a, &prm, n);
		}
	}
	return 0;
}

static void say_too_big(uint32_t lanes, const struct need *n, uint64_t available,
			const char *what, char *err, size_t len)
{
	char need[32], have[32], bytes[24], slice[24];
	lb_format_memory(n->memory, need, sizeof(need));
	lb_format_memory(available, have, sizeof(have));
	lb_format_size(n->bytes, bytes, sizeof(bytes));
	lb_format_size(n->slice, slice, sizeof(slice));
	snprintf(err, len, "%s with %u ranks x %u lanes, %s in slices of %s (%llu blocks per rank) "
		 "needs at least %s of memory, more than the %s available (%s): use fewer ranks, "
		 "larger slices or smaller messages", n->algo->name, n->ranks, lanes, bytes,
		 slice, (unsigned long long)n->blocks, need, have, what);
}

/* The LPs the run solves (one at a time, before the workers start). */
static int solves_lp(const struct lb_simsweep_params *p)
{
	for (size_t a = 0; p->platform && a < p->nalgos; a++)
		if (p->algos[a]->needs & LB_ALGO_NEEDS_LP)
			return 1;
	return p->platform && p->lp_bound;
}

enum lb_simsweep_fit lb_simsweep_check(const struct lb_simsweep_params *p, char *err,
				       size_t len)
{
	struct need n = { 0 };
	const char *what;
	for (size_t a = 0; a < p->nalgos; a++)
		for (size_t k = 0; k < p->nranks; k++)
			if (check_sizes(p, p->algos[a], (uint32_t)p->ranks[k], &n, err, len))
				return LB_SIMSWEEP_UNBUILDABLE;
	if (solves_lp(p) && lb_lp_check_memory(p->platform, 0, err, len))
		return LB_SIMSWEEP_TOO_BIG;
	uint64_t available = lb_mem_available(&what);
	if (n.memory <= available)
		return LB_SIMSWEEP_FITS;
	say_too_big(p->lanes, &n, available, what, err, len);
	return LB_SIMSWEEP_TOO_BIG;
}

int lb_schedule_fits(const struct lb_algo *a, const struct lb_algo_params *prm, char *err,
		     size_t len)
{
	struct lb_sched_estimate e;
	const char *what;
	lb_algo_estimate(a, prm, 1, &e);
	uint64_t available = lb_mem_available(&what);
	if (e.bytes <= available)
		return 0;
	const struct need n = { a, prm->ranks, prm->bytes, prm->slice_bytes, e.blocks, e.bytes };
	say_too_big(prm->lanes, &n, available, what, err, len);
	return -1;
}
