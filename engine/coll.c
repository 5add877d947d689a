/* The broadcast benchmark engine; see bcast.h.  Every step that can fail
 * on one rank is followed by a status agreement (lb_boot_agree), so one
 * rank's failure stops all ranks with its reason, before any timing. */
#include "coll.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/sites.h"
#include "algos/slice.h"
#include "model/agent_auto.h"
#include "model/algo_rank.h"
#include "model/slice_auto.h"
#include "bcastlp.h"
#include "calibrate.h"
#include "cputime.h"
#include "lib/error.h"
#include "job.h"
#include "jobprov.h"
#include "pattern.h"
#include "stats.h"
#include "tuning.h"
#include "model/sim.h"
#include "transports/transport.h"

/* One configuration's figures on rank 0, every derived number included. */
struct bcast_row {
	const char *algorithm;
	uint32_t ranks, lanes, root;
	uint64_t bytes, slice_bytes;
	uint32_t slices;            /* blocks of the schedule */
	uint32_t iterations;
	struct lb_stats time;       /* seconds; per iteration the slowest rank */
	double algbw;               /* bytes / median time; NaN for 1 rank (nothing moves) */
	double efficiency;          /* (M / (k x lane_rate)) / median; NaN unknown */
	double table, refined, sim; /* predicted seconds; NaN = not available */
	double over_table, over_refined, over_sim; /* median / predicted */
	double period;              /* platform algorithms: the tree's seconds per slice */
	double hbsp;                /* seed 004's: the HBSP cost, seconds; NaN: none */
	const char *collective;     /* bcast, gather or allgather (the schedule's owners and want) */
	uint64_t verified_bytes;    /* bytes checked on all ranks, all iterations */
	struct lb_cpu_summary cpu;  /* per timed iteration, across ranks */
	const char *auto_source;    /* -a auto: table or model; else NULL */
	const char *auto_reason;
};

/* A transport's event counts: summed over ranks for a configuration. */
struct counts {
	struct lb_counter c[LB_COUNTERS_MAX];
	size_t n;
};

#define NFIXED_MAX 42 /* room for the fixed columns in struct run */

const struct lb_algo lb_coll_auto = {
	.name = "auto",
	.summary = "per size: the tuning table's measured pick, else the model's",
	.takes = LB_TAKES_ROOT | LB_TAKES_SLICE | LB_TAKES_STRIPE | LB_TAKES_ALLGATHER,
};

/* -a auto's choice for one configuration: plain data, as rank 0 tells it
 * to the others (each rank might have been given another table). */
struct auto_pick {
	uint64_t slice;
	uint32_t algo;    /* index into lb_algos */
	uint32_t source;  /* enum auto_source */
	char reason[256];
};

enum auto_source { AUTO_NONE, AUTO_TABLE, AUTO_MODEL };

struct run {
	const struct lb_coll_params *prm;
	struct lb_job job;
	struct lb_calib cal;
	struct lb_lp_set lp; /* the lp-* algorithms' edge loads */
	/* With a platform, [nconfigs]: each configuration's --agents, auto
	 * resolved once (model/agent_auto.h simulates every count where nodes
	 * have rates: not per iteration); NULL: prm->agents as it is. */
	uint32_t *agents;
	/* [nconfigs] with -a auto, once calibrated: what each auto
	 * configuration runs (the same on every rank); NULL before. */
	struct auto_pick *picks;
	char platform_hash[17]; /* 16 hex digits, with a platform */
	uint32_t pattern_id;   /* distinct per iteration of the whole run */
	size_t config, nconfigs;
	char label[128];       /* the parameter, or <transport>-p<ranks>-k<lanes> */
	/* The fixed columns, then <transport>_<counter>_count per counter. */
	struct lb_col cols[NFIXED_MAX + LB_COUNTERS_MAX];
	char counter_cols[LB_COUNTERS_MAX][80];
	size_t ncols;
};

/* results/README.md documents these columns; the table shows some. */
static const struct lb_col columns[] = {
	{ LB_COLUMN("label", LB_COL_TEXT) },
	{ LB_COLUMN("transport", LB_COL_TEXT) },
	{ LB_COLUMN("algorithm", LB_COL_TEXT),
	  .table = { { LB_SHOW_TEXT, "algorithm", -11,
		       .legend = "the algorithm (lanebench help sim lists them)" } } },
	{ LB_COLUMN("ranks", LB_COL_UINT) },
	{ LB_COLUMN("lanes", LB_COL_UINT) },
	{ LB_COLUMN("root", LB_COL_UINT) },
	{ LB_COLUMN("stripe", LB_COL_TEXT) },
	{ LB_COLUMN("idle", LB_COL_TEXT) },
	{ LB_COLUMN("message_bytes", LB_COL_UINT),
	  .table = { { LB_SHOW_SIZE, "size", 9, .legend = "message size (KiB, MiB: 1024-based); an allgather's is each rank's share" } } },
	{ LB_COLUMN("slice_bytes", LB_COL_UINT),
	  .table = { { LB_SHOW_SIZE, "slice", 9, .legend = "pipelining unit" } } },
	{ LB_COLUMN("slices", LB_COL_UINT) },
	{ LB_COLUMN("iterations", LB_COL_UINT) },
	{ LB_COLUMN("warmup", LB_COL_UINT) },
	{ LB_COLUMN("time_min_seconds", LB_COL_REAL) },
	{ LB_COLUMN("time_median_seconds", LB_COL_REAL),
	  .table = { { LB_SHOW_SECONDS, "median", 11,
		       .legend = "median time of an iteration (the slowest rank's)" } } },
	{ LB_COLUMN("time_mean_seconds", LB_COL_REAL) },
	{ LB_COLUMN("time_p99_seconds", LB_COL_REAL), .table = { { LB_SHOW_SECONDS, "p99", 11, .legend = "its 99th percentile" } } },
	{ LB_COLUMN("time_max_seconds", LB_COL_REAL) },
	{ LB_COLUMN("algbw_bytes_per_second", LB_COL_REAL),
	  .table = { { LB_SHOW_FIXED, "Gbit/s", 8, 3, 1.25e8,
		       .legend = "message bits / median, 10^9 bit/s (an allgather: p x the message)" } } },
	{ LB_COLUMN("lane_rate_bytes_per_second", LB_COL_REAL) },
	{ LB_COLUMN("efficiency_ratio", LB_COL_REAL),
	  .table = { { LB_SHOW_FIXED, "eff", 6, 3,
		       .legend = "efficiency: (message / (lanes x a lane's line rate)) / median, the share of a rank's line rate achieved" } } },
	{ LB_COLUMN("calib_latency_seconds", LB_COL_REAL) },
	{ LB_COLUMN("calib_lane_bandwidth_bytes_per_second", LB_COL_REAL) },
	{ LB_COLUMN("table_seconds", LB_COL_REAL) },
	{ LB_COLUMN("refined_seconds", LB_COL_REAL) },
	{ LB_COLUMN("sim_seconds", LB_COL_REAL),
	  .table = { { LB_SHOW_SECONDS, "sim", 11,
		       .legend = "the simulator's time on the calibrated network (or --platform)" } } },
	{ LB_COLUMN("measured_over_table_ratio", LB_COL_REAL),
	  .table = { { LB_SHOW_FIXED, "meas/tab", 9, 3,
		       .legend = "median over the multi-lane paper's closed form (its Table 1, docs/papers.md#seed003) with the calibrated latency and bandwidth" } } },
	{ LB_COLUMN("measured_over_refined_ratio", LB_COL_REAL),
	  .table = { { LB_SHOW_FIXED, "meas/ref", 9, 3,
		       .legend = "median over the closed form that counts slices" } } },
	{ LB_COLUMN("measured_over_sim_ratio", LB_COL_REAL),
	  .table = { { LB_SHOW_FIXED, "meas/sim", 9, 3,
		       .legend = "median over sim (1: as predicted; above 1: slower)" } } },
	{ LB_COLUMN("platform", LB_COL_TEXT) },
	{ LB_COLUMN("period_seconds", LB_COL_REAL) },
	{ LB_COLUMN("collective", LB_COL_TEXT) },
	{ LB_COLUMN("hbsp_seconds", LB_COL_REAL) },
	{ LB_COLUMN("verified_bytes", LB_COL_UINT) },
	{ LB_COLUMN("cpu_user_seconds", LB_COL_REAL) },
	{ LB_COLUMN("cpu_sys_seconds", LB_COL_REAL) },
	{ LB_COLUMN("cpu_max_rank_seconds", LB_COL_REAL) },
	{ LB_COLUMN("cpu_seconds_per_gigabyte", LB_COL_REAL) },
	{ LB_COLUMN("auto_source", LB_COL_TEXT) },
	{ LB_COLUMN("auto_reason", LB_COL_TEXT) },
	/* then one column per counter of the run's transport: describe_columns() */
};

#define NFIXED (sizeof(columns) / sizeof(columns[0]))

/* Configuration i of the sweep: algorithms x sizes x slices x roots (the
 * roots innermost, so that a configuration's rows for each root are
 * adjacent and a root that is slower than the others stands out). */
static void config_at(const struct lb_coll_params *p, size_t i, const struct lb_algo **a,
		      uint64_t *bytes, uint64_t *slice, uint32_t *root)
{
	*root = (uint32_t)p->roots[i % p->nroots];
	i /= p->nroots;
	*slice = p->slices[i % p->nslices];
	i /= p->nslices;
	*bytes = p->sizes[i % p->nsizes];
	*a = p->algos[i / p->nsizes];
}

/* The run's site count (1: none). */
static uint32_t sites_of(const struct lb_coll_params *prm)
{
	return prm->sites ? prm->sites : 1;
}

/* Without calibration --slice auto has no latency or bandwidth to model:
 * it means the former default slice. */
#define AUTO_UNCALIBRATED_SLICE 65536

/* Configuration i's parameters as a builder takes them, its slice
 * resolved: auto is the slice the refined model prefers with the
 * calibration's medians (allgathered: every rank chooses the same). */
static struct lb_algo_params config_params(const struct run *r, size_t i, const struct lb_algo **a)
{
	struct lb_algo_params p = { .ranks = r->job.size, .lanes = r->job.lanes,
				    .stripe_off = r->prm->stripe_off,
				    .allgather = r->prm->allgather,
				    .sites = sites_of(r->prm),
				    .site_first = r->prm->site_first,
				    .platform = r->prm->platform,
				    .site_algo = r->prm->site_algo,
				    .balance = r->prm->balance, .super2 = r->prm->super2,
				    .agents = r->agents ? r->agents[i] : r->prm->agents };
	config_at(r->prm, i, a, &p.bytes, &p.slice_bytes, &p.root);
	if (*a == &lb_coll_auto && !r->picks)
		return p; /* not chosen yet: sweep_peers connects for every choice */
	if (*a == &lb_coll_auto) {
		*a = &lb_algos[r->picks[i].algo];
		p.slice_bytes = r->picks[i].slice;
	}
	/* a platform algorithm's choice needs no calibration: it has no model */
	if (p.slice_bytes == LB_SLICE_AUTO && ((*a)->needs || r->cal.bandwidth_median > 0))
		p.slice_bytes = lb_slice_auto(*a, &p, r->cal.latency_median, r->cal.bandwidth_median);
	else if (p.slice_bytes == LB_SLICE_AUTO)
		p.slice_bytes = AUTO_UNCALIBRATED_SLICE;
	const struct lb_lp_result *lp = (*a)->needs & LB_ALGO_NEEDS_LP
		? lb_lp_set_find(&r->lp, p.root, p.slice_bytes) : NULL;
	p.lp_load = lp ? lp->load : NULL;
	return p;
}

static struct lb_schedule *build(const struct run *r, size_t i, char *err, size_t len)
{
	const struct lb_algo *a;
	struct lb_algo_params p = config_params(r, i, &a);
	return lb_algo_build(a, &p, err, len);
}

/* The slices configuration i may run with: its own, or -- auto with a
 * calibration to come, as connections are made before it -- every
 * candidate the choice may pick. */
static size_t possible_slices(const struct run *r, size_t i, uint64_t out[LB_SLICE_CANDIDATES_MAX])
{
	const struct lb_algo *a;
	struct lb_algo_params p = config_params(r, i, &a);
	uint64_t given;
	config_at(r->prm, i, &a, &p.bytes, &given, &p.root);
	if (given == LB_SLICE_AUTO && r->prm->calib_bytes && !a->needs)
		return lb_slice_candidates(p.bytes, out);
	out[0] = p.slice_bytes;
	return 1;
}

/* With a platform, a homogeneous algorithm's schedule may use a pair the
 * platform has no link for, and so may seed 002's, whose sites run a
 * homogeneous one (seed 000's trees are built on its links: those with a
 * period): the validator (s carries the platform) refuses it, naming rank,
 * lane and peer, and the run stops before any connection with LB_EINPUT
 * (exit 2 on every rank, as plan and sim exit for the same input). */
static int refused_by_platform(const struct run *r, const struct lb_algo *a,
			       const struct lb_schedule *s, char *err, size_t len)
{
	char why[256];
	if (!r->prm->platform || a->period || lb_sched_validate(s, why, sizeof(why)) == 0)
		return 0;
	lb_errf(err, len, "%s: %s (leave it out of -a: it needs every link its schedule uses)",
		a->name, why);
	return LB_EINPUT; /* every rank builds the same schedule: all refuse it */
}

/* Marks in seen[lane * size + peer] the peers of this rank in configuration
 * i cut into slices of `slice` bytes.  A candidate of auto the algorithm
 * cannot cut so finely is none (lb_slice_auto skips it too). */
static int mark_peers(const struct run *r, size_t i, const struct lb_algo *as, uint64_t slice,
		      int candidate, uint8_t *seen, uint32_t *tmp, char *err, size_t len)
{
	const struct lb_algo *a;
	struct lb_algo_params p = config_params(r, i, &a);
	a = as ? as : a;
	p.slice_bytes = slice;
	if (candidate && lb_algo_check(a, &p, NULL, 0))
		return 0;
	struct lb_schedule *s = lb_algo_build(a, &p, err, len);
	if (!s)
		return -1;
	int refused = refused_by_platform(r, a, s, err, len);
	if (refused) {
		lb_sched_free(s);
		return refused;
	}
	for (uint32_t l = 0; l < r->job.lanes; l++) {
		int n = lb_sched_lane_peers(s, r->job.rank, l, tmp);
		for (int j = 0; j < n; j++)
			seen[l * r->job.size + tmp[j]] = 1;
	}
	lb_sched_free(s);
	return 0;
}

static int is_auto(const struct run *r, size_t i)
{
	return r->prm->algos[i / r->prm->nroots / r->prm->nslices / r->prm->nsizes] == &lb_coll_auto;
}

/* -a auto is chosen after calibration, connections before it: the peers
 * of every broadcast it may choose, at every slice it may run. */
static int mark_auto_peers(const struct run *r, size_t i, uint8_t *seen, uint32_t *tmp,
			   char *err, size_t len)
{
	const struct lb_algo *a;
	struct lb_algo_params p = config_params(r, i, &a);
	uint64_t slices[LB_SLICE_CANDIDATES_MAX];
	size_t n = p.slice_bytes == LB_SLICE_AUTO ? lb_slice_candidates(p.bytes, slices) : 1;
	if (n == 1)
		slices[0] = p.slice_bytes;
	int rc = 0;
	for (size_t k = 0; rc == 0 && k < lb_nalgos; k++)
		for (size_t j = 0; rc == 0 && lb_algo_homogeneous_bcast(&lb_algos[k]) && j < n; j++)
			rc = mark_peers(r, i, &lb_algos[k], slices[j], 1, seen, tmp, err, len);
	return rc;
}

/* Peers each lane talks to over the whole sweep: connect once for all. */
static int sweep_peers(struct run *r, uint32_t **peers, uint32_t *npeers, char *err, size_t len)
{
	uint8_t *seen = calloc((size_t)r->job.lanes * r->job.size, 1);
	uint32_t *tmp = calloc(r->job.size, sizeof(*tmp));
	uint64_t slices[LB_SLICE_CANDIDATES_MAX];
	int rc = seen && tmp ? 0 : lb_errf(err, len, "out of memory");
	for (size_t i = 0; rc == 0 && i < r->nconfigs; i++)
		if (is_auto(r, i))
			rc = mark_auto_peers(r, i, seen, tmp, err, len);
		else
			for (size_t n = possible_slices(r, i, slices), j = 0; rc == 0 && j < n; j++)
				rc = mark_peers(r, i, NULL, slices[j], n > 1, seen, tmp, err, len);
	/* Calibration measures every lane, even one no schedule uses (--stripe off). */
	for (int round = 0; rc == 0 && r->prm->calib_bytes && round < 2; round++) {
		int q = lb_calib_partner(r->job.rank, r->job.size, round);
		for (uint32_t l = 0; q >= 0 && l < r->job.lanes; l++)
			seen[l * r->job.size + (uint32_t)q] = 1;
	}
	for (uint32_t l = 0; rc == 0 && l < r->job.lanes; l++) {
		peers[l] = calloc(r->job.size, sizeof(uint32_t));
		npeers[l] = 0;
		if (!peers[l])
			rc = lb_errf(err, len, "out of memory");
		for (uint32_t p = 0; rc == 0 && p < r->job.size; p++)
			if (seen[l * r->job.size + p])
				peers[l][npeers[l]++] = p;
	}
	free(seen);
	free(tmp);
	return rc;
}

/* ---- one configuration --------------------------------------------------- */

/* Seconds a rank that lost a peer waits for the report behind it: a peer
 * that failed on its own sends it before closing its lanes, but on a busy
 * machine it may arrive just after we saw them close. */
#define REPORT_WAIT 0.5

/* This rank lost a peer: if a report explains it (that peer failed and
 * said why, or the rank whose death started it), it goes first, then what
 * this rank saw. */
static void name_root_cause(struct run *r, char *err, size_t len)
{
	char cause[512], seen[512];
	if (lb_boot_take_report(r->job.boot, REPORT_WAIT, cause, sizeof(cause)) == 0)
		return;
	snprintf(seen, sizeof(seen), "%s", err);
	snprintf(err, len, "%s -- %s", cause, seen);
}

static void announce(const struct run *r, const struct lb_schedule *s, uint32_t it)
{
	const struct lb_algo *a;
	struct lb_coll_step st = { .rank = r->job.rank, .algorithm = s->algo, .config = r->config,
				    .nconfigs = r->nconfigs, .iteration = it + 1,
				    .iterations = r->prm->warmup + r->prm->iterations };
	if (!r->prm->on_iteration)
		return;
	struct lb_algo_params p = config_params(r, r->config, &a);
	st.bytes = p.bytes;
	st.slice_bytes = p.slice_bytes;
	st.root = p.root;
	r->prm->on_iteration(&st, r->prm->on_iteration_arg);
}

/* The iteration's data before it starts: the pattern where the rank owns
 * the blocks (the root all of a broadcast), zeros elsewhere. */
static void fill_owned(const struct run *r, const struct lb_schedule *s, uint32_t id)
{
	if (!s->owner) {
		if (r->job.rank == s->root)
			lb_pattern_fill(r->job.buf, s->bytes, id);
		else
			memset(r->job.buf, 0, s->bytes);
		return;
	}
	for (uint32_t b = 0; b < s->nblocks; b++) {
		uint64_t off = lb_block_offset(s, b), n = lb_range_bytes(s, b, 1);
		if (s->owner[b] == r->job.rank)
			lb_pattern_fill_range(r->job.buf, off, n, id);
		else
			memset(r->job.buf + off, 0, n);
	}
}

/* The rank checks every byte at the end: it must end with every block
 * (a broadcast's root started with them: nothing to check). */
static int checks(const struct lb_schedule *s, uint32_t rank)
{
	return lb_sched_wants(s, rank) && (rank != s->root || s->owner);
}

/* Ranks that check, for verified_bytes. */
static uint32_t checking_ranks(const struct lb_schedule *s)
{
	uint32_t n = 0;
	for (uint32_t r = 0; r < s->ranks; r++)
		n += checks(s, r);
	return n;
}

/* One iteration: fresh pattern at the owners, cleared elsewhere, start
 * together, run, wait until every rank's data has moved, then check every
 * byte where the rank wants it.  The process's CPU time while the data
 * moves -- not the pattern's filling and checking, nor the barriers -- is
 * added to *cpu (NULL: a warm-up iteration, not counted).
 *
 * The second barrier keeps the check out of the data phase: ranks that
 * share CPUs (the emulated cluster: 8 ranks on 2 cores) read every byte of
 * their copy as soon as their own part is done, taking the CPU from the
 * ranks still receiving: the last slice of a broadcast reached its host
 * on time but was acked and handed to the rank 6-8 ms late (tcpdump, per-
 * slice arrival times), where the slices before it took ~1 ms a hop
 * (multilane 8 MiB at 700 Mbit/s, 8 x 2 rails: 0.80 of M/(kB) with the
 * overlap, 0.90 without). */
static int iteration(struct run *r, struct lb_exec *x, const struct lb_schedule *s, uint32_t it,
		     double *secs, struct lb_cpu *cpu, char *err, size_t len)
{
	struct lb_cpu start;
	uint32_t id = ++r->pattern_id;
	uint64_t bad;
	fill_owned(r, s, id);
	int rc = lb_boot_barrier(r->job.boot, err, len);
	if (rc)
		return rc;
	announce(r, s, it);
	lb_cpu_now(&start);
	rc = lb_exec_iteration(x, secs, err, len);
	if (cpu)
		lb_cpu_add_since(cpu, &start);
	if (rc == LB_EPEER)
		name_root_cause(r, err, len);
	if (rc)
		return rc;
	if ((rc = lb_boot_barrier(r->job.boot, err, len)) != 0)
		return rc;
	if (checks(s, r->job.rank) && lb_pattern_check(r->job.buf, s->bytes, id, &bad))
		return lb_errf(err, len, "rank %u: wrong data at byte %llu of %llu (%s, iteration %u)",
			       r->job.rank, (unsigned long long)bad, (unsigned long long)s->bytes,
			       s->algo, id);
	return 0;
}

/* Asked to stop (a signal on this rank): -1 with the reason. */
static int stopped(const struct run *r, char *err, size_t len)
{
	const atomic_int *stop = r->prm->stop;
	if (!stop || !*stop)
		return 0;
	return lb_errf(err, len, "rank %u stopped: %s (signal %d)", r->job.rank, strsignal(*stop),
		       (int)*stop);
}

/* Warm-up and timed iterations; local times into secs[], the timed
 * iterations' CPU time into *cpu. */
static int iterate(struct run *r, const struct lb_schedule *s, double *secs, struct lb_cpu *cpu,
		   char *err, size_t len)
{
	struct lb_exec_cfg xc = { .sched = s, .rank = r->job.rank, .tp_ops = r->job.ops, .tp = r->job.tp,
				  .buf = r->job.buf, .idle = r->prm->idle, .timeout = r->job.timeout,
				  .pin = r->prm->pin ? lb_job_pin : NULL, .pin_arg = &r->job,
				  .stop = r->prm->stop };
	struct lb_exec *x = NULL;
	int rc = lb_exec_new(&xc, &x, err, len);
	*cpu = (struct lb_cpu){ 0, 0 };
	for (uint32_t it = 0; rc == 0 && it < r->prm->warmup + r->prm->iterations; it++) {
		double t;
		int timed = it >= r->prm->warmup;
		rc = stopped(r, err, len);
		if (rc == 0)
			rc = iteration(r, x, s, it, &t, timed ? cpu : NULL, err, len);
		if (rc == 0 && timed)
			secs[it - r->prm->warmup] = t;
	}
	lb_exec_free(x);
	if (rc)
		lb_boot_abort(r->job.boot, err); /* the others may sit in a barrier */
	return rc;
}

static double ratio(double measured, double predicted)
{
	return predicted > 0 ? measured / predicted : NAN;
}

/* The port model of sim_seconds under --sim-model auto.  On a platform
 * bounded multi-port: the executor posts every ready SEND of a lane at
 * once, so a rank's transfers to different peers overlap (each link
 * carrying one at a time, the node's send overhead apart) within the
 * node's rate; the per-lane model, one SEND at a time, predicted trees
 * with fan-out up to 3 times too slow on the emulated cluster
 * (scripts/bench-hetero), and plain multi-port, whose receive port takes
 * one transfer at a time, put the trees that receive from two peers at
 * once (multilane, cap-trees) at 0.34-0.64 x measured where bounded fitted
 * all 13 rows over tcp within 0.99-1.00 (over dpdk 12 of 13, 0.99-1.13,
 * the 13th CPU-bound); on
 * seed 004's hosts of unequal rates multi-port was 0.41-1.86 x measured
 * and bounded, as fluid, 1.02-1.14 (docs/benchmarks/bench-hbsp.md).  Seed 001's
 * cluster-agent allgathers (a->sim_logp) take the LogP mode instead, the
 * model their plans are built for (repro seed001's `sim us`); the other
 * allgathers fluid: p - 1 flows converge on every rank, and multi-port,
 * which books a transfer's sender and receiver at different times, put
 * allgather-simultaneous 1.43-1.54 x slow on 4 fast + 4 slow hosts where
 * fluid fitted it within 1.02-1.12 (26 of bench-allgather's 30 rows
 * within 15 %, multi-port 24; docs/benchmarks/bench-allgather.md).  Without a
 * platform, with sites, fluid shared fairly: a site-aware tree's root
 * feeds its own site and the WAN from one port, and with the emulated
 * fabric's queue per peer pair and the hosts on CUBIC (RTT-independent
 * window growth) the two streams get equal shares: on bench-sites fluid
 * fitted all 8 rows within 0.96-1.03, fluid-rtt put the trees at 0.74 x.
 * (Under BBR, with which fluid-rtt was chosen before the per-peer queues,
 * the trees fell between: 0.88 x fluid-rtt, 1.17 x fluid; docs/benchmarks/bench-sites.md.)  For
 * chain and multilane (one stream per port) every model gives the same
 * time.  Otherwise per-lane. */
static void auto_model(const struct lb_coll_params *prm, const struct lb_algo *a,
		       struct lb_sim_net *net)
{
	if (prm->platform && a->sim_logp) {
		net->model = LB_PORT_LOGP;
	} else if (prm->platform && a->collective && strcmp(a->collective, "allgather") == 0) {
		net->model = LB_PORT_FLUID;
		net->share = LB_SHARE_FAIR;
	} else if (prm->platform) {
		net->model = LB_PORT_BOUNDED;
	} else if (net->sites > 1) {
		net->model = LB_PORT_FLUID;
		net->share = LB_SHARE_FAIR;
	} else {
		net->model = LB_PORT_PER_LANE;
	}
}

int lb_coll_sim_net(const struct lb_coll_params *prm, const struct lb_calib *cal,
		    const struct lb_algo *a, struct lb_sim_net *net)
{
	*net = (struct lb_sim_net){ .platform = prm->platform };
	if (!prm->platform && !(cal->bandwidth_median > 0))
		return -1;
	if (!prm->platform)
		*net = (struct lb_sim_net){ .alpha = cal->latency_median,
					    .lane_bw = cal->bandwidth_median,
					    .rank_bw = cal->bandwidth,
					    .sites = sites_of(prm),
					    .site_first = prm->site_first,
					    .wan_alpha = cal->latency_median,
					    .wan_latency = prm->wan_latency,
					    .wan_bw = prm->wan_bw };
	switch (prm->sim_model) {
	case LB_SIM_AUTO:
		auto_model(prm, a, net);
		break;
	case LB_SIM_FLUID:
	case LB_SIM_FLUID_RTT:
		net->model = LB_PORT_FLUID;
		net->share = prm->sim_model == LB_SIM_FLUID_RTT ? LB_SHARE_RTT : LB_SHARE_FAIR;
		break;
	case LB_SIM_MULTI_PORT:
	case LB_SIM_BOUNDED:
		if (!prm->platform)
			return -1; /* bcast refuses it before: they need a platform's nodes */
		net->model = prm->sim_model == LB_SIM_BOUNDED ? LB_PORT_BOUNDED : LB_PORT_MULTI;
		break;
	}
	return 0;
}

/* The simulator's time for s on lb_coll_sim_net's network; NaN without
 * one. */
static double simulate(const struct run *r, const struct lb_algo *a, const struct lb_schedule *s)
{
	struct lb_sim_net net;
	if (lb_coll_sim_net(r->prm, &r->cal, a, &net))
		return NAN;
	struct lb_sim_result sr = { 0 };
	char why[256];
	return lb_sim_run(s, &net, &sr, why, sizeof(why)) == 0 ? sr.seconds : NAN;
}

/* The message size as the user gives it (-m): each rank's contribution
 * for an allgather (the schedule moves p of them), else the schedule's. */
static uint64_t message_bytes(const struct lb_schedule *s)
{
	return s->owner && s->want == LB_WANT_ALL ? s->bytes / s->ranks : s->bytes;
}

/* Cost table and refined model from the calibration (the platform
 * algorithms have no closed forms: NaN), and the simulation.  With sites
 * the schedules are the site-aware ones: the table is seed 003's
 * two-site form (section 6; L = the calibrated latency + the WAN's) for
 * two sites and NaN for more, and no refined form knows sites (NaN): the
 * simulator is the prediction that sees the WAN. */
static void predict(const struct run *r, const struct lb_algo *a, const struct lb_schedule *s,
		    struct bcast_row *res)
{
	res->table = res->refined = NAN;
	res->sim = simulate(r, a, s);
	if (!r->cal.bandwidth_median || a->needs)
		return;
	uint32_t sites = sites_of(r->prm);
	struct lb_cost_in in = { .ranks = s->ranks, .lanes = s->lanes, .bytes = message_bytes(s),
				 .slice_bytes = res->slice_bytes, .latency = r->cal.latency_median,
				 .lane_bw = r->cal.bandwidth_median, .sites = sites,
				 .wan_latency = r->cal.latency_median + r->prm->wan_latency,
				 .allgather = r->prm->allgather, .stripe_off = r->prm->stripe_off };
	lb_cost_fn table = sites > 1 ? (sites == 2 ? a->cost_two_site : NULL) : a->cost_table;
	res->table = table ? table(&in) : NAN;
	res->refined = sites == 1 && a->cost_refined ? a->cost_refined(&in) : NAN;
}

/* Rank 0: the slowest rank's time per iteration, statistics, predictions,
 * CPU time from every rank's (cpu[rank]). */
static int summarize(struct run *r, const struct lb_algo *a, const struct lb_schedule *s,
		     const double *all, const struct lb_cpu *cpu, struct bcast_row *res)
{
	uint32_t n = r->prm->iterations;
	uint64_t slice = res->slice_bytes;
	struct lb_stats time;
	double *slowest = calloc(n + 1, sizeof(*slowest));
	if (!slowest)
		return -1;
	for (uint32_t it = 0; it < n; it++)
		for (uint32_t k = 0; k < r->job.size; k++)
			slowest[it] = fmax(slowest[it], all[(size_t)k * n + it]);
	lb_stats_compute(slowest, n, &time);
	free(slowest);
	*res = (struct bcast_row){
		.algorithm = a->name, .ranks = s->ranks, .lanes = s->lanes, .root = s->root,
		.bytes = message_bytes(s), .slice_bytes = slice, .slices = s->nblocks, .iterations = n,
		.time = time,
		.verified_bytes = s->bytes * checking_ranks(s) * (uint64_t)(n + r->prm->warmup),
	};
	/* One rank moves no byte: its "bandwidth" would be the message size
	 * over an empty iteration's overhead (terabytes per second). */
	int moved = s->ranks > 1;
	res->algbw = moved ? s->bytes / res->time.median : NAN;
	res->efficiency = moved && r->job.lane_rate > 0
		? (double)s->bytes / (s->lanes * r->job.lane_rate) / res->time.median : NAN;
	lb_cpu_summarize(cpu, r->job.size, n, s->bytes, &res->cpu);
	predict(r, a, s, res);
	res->period = NAN;
	/* the tree's steady state at the row's slice (docs/papers.md#seed000-period) */
	if (a->period) {
		const struct lb_algo *same;
		struct lb_algo_params p = config_params(r, r->config, &same);
		res->period = a->period(&p);
	}
	res->hbsp = NAN;
	if (a->hbsp) { /* seed 004's closed form on the platform */
		const struct lb_algo *same;
		struct lb_algo_params p = config_params(r, r->config, &same);
		res->hbsp = a->hbsp(&p);
	}
	res->collective = lb_sched_collective(s);
	res->over_table = ratio(res->time.median, res->table);
	res->over_refined = ratio(res->time.median, res->refined);
	res->over_sim = ratio(res->time.median, res->sim);
	return 0;
}

_Static_assert(LB_TP_COUNTERS_MAX <= LB_COUNTERS_MAX, "a transport's counters fit a result");

/* This rank's counters now, as the transport names them; none when it
 * keeps none. */
static void counters_now(const struct run *r, struct counts *out)
{
	struct lb_tp_counter c[LB_TP_COUNTERS_MAX];
	int n = r->job.ops->counters ? r->job.ops->counters(r->job.tp, c) : 0;
	out->n = 0;
	for (int i = 0; i < n; i++)
		out->c[out->n++] = (struct lb_counter){ c[i].name, c[i].value };
}

/* With several roots, rows may differ by their root only: the table on
 * stdout shows it then (and only then, so one root's table is as before). */
static void show_root(struct run *r)
{
	for (size_t i = 0; r->prm->nroots > 1 && i < NFIXED; i++)
		if (strcmp(r->cols[i].name, "root") == 0)
			r->cols[i].table[0] = (struct lb_show_as){ .how = LB_SHOW_UINT, .heading = "root", .width = 4 };
}

/* The columns of this run: the fixed ones, then one per counter of its
 * transport (the same names on every call: transport.h), named
 * <transport>_<counter>_count. */
static void describe_columns(struct run *r)
{
	struct counts c;
	_Static_assert(NFIXED <= NFIXED_MAX, "struct run holds the fixed columns");
	memcpy(r->cols, columns, sizeof(columns));
	show_root(r);
	counters_now(r, &c);
	for (size_t i = 0; i < c.n; i++) {
		snprintf(r->counter_cols[i], sizeof(r->counter_cols[i]), "%s_%s_count",
			 r->job.ops->name, c.c[i].name);
		r->cols[NFIXED + i] = (struct lb_col){ LB_COLUMN(r->counter_cols[i], LB_COL_COUNTER),
						       .counter = c.c[i].name };
	}
	r->ncols = NFIXED + c.n;
}

/* The configuration's counters (now - before) of every rank, summed on
 * rank 0 into sum.  Collective; nothing to do for a transport without
 * counters. */
static int counters_gather(struct run *r, const struct counts *before, struct counts *sum,
			   char *err, size_t len)
{
	uint64_t mine[LB_COUNTERS_MAX] = { 0 }, *all;
	counters_now(r, sum);
	if (sum->n == 0)
		return 0;
	for (size_t i = 0; i < sum->n; i++)
		mine[i] = sum->c[i].value - before->c[i].value;
	all = calloc(r->job.size, sizeof(mine));
	if (!all)
		return lb_errf(err, len, "out of memory");
	int rc = lb_boot_gather(r->job.boot, mine, sizeof(mine), all, err, len);
	for (size_t i = 0; rc == 0 && i < sum->n; i++) {
		sum->c[i].value = 0;
		for (uint32_t k = 0; k < r->job.size; k++)
			sum->c[i].value += all[(size_t)k * LB_COUNTERS_MAX + i];
	}
	free(all);
	return rc;
}

/* The row as a result, to the sink. */
static int record(const struct run *r, const struct bcast_row *w, const struct counts *c,
		  const struct lb_sink *sink, char *err, size_t len)
{
	static const char *const idle_names[] = { "spin", "yield", "sleep" };
	const double rate = r->job.lane_rate, lat = r->cal.latency_median,
		     bw = r->cal.bandwidth_median;
	const union lb_val v[] = {
		{ .s = r->label }, { .s = r->job.ops->name }, { .s = w->algorithm },
		{ .u = w->ranks }, { .u = w->lanes }, { .u = w->root },
		{ .s = r->prm->stripe_off ? "off" : "on" }, { .s = idle_names[r->prm->idle] },
		{ .u = w->bytes }, { .u = w->slice_bytes }, { .u = w->slices },
		{ .u = w->iterations }, { .u = r->prm->warmup },
		{ .d = w->time.min }, { .d = w->time.median }, { .d = w->time.mean },
		{ .d = w->time.p99 }, { .d = w->time.max }, { .d = w->algbw },
		{ .d = rate > 0 ? rate : NAN }, { .d = w->efficiency },
		{ .d = lat > 0 ? lat : NAN }, { .d = bw > 0 ? bw : NAN },
		{ .d = w->table }, { .d = w->refined }, { .d = w->sim },
		{ .d = w->over_table }, { .d = w->over_refined }, { .d = w->over_sim },
		{ .s = r->prm->platform ? r->platform_hash : NULL }, /* NULL: empty, JSON null */
		{ .d = w->period },
		{ .s = w->collective }, { .d = w->hbsp },
		{ .u = w->verified_bytes },
		{ .d = w->cpu.user }, { .d = w->cpu.sys }, { .d = w->cpu.max_rank },
		{ .d = w->cpu.per_gigabyte },
		{ .s = w->auto_source }, { .s = w->auto_reason },
	};
	_Static_assert(sizeof(v) / sizeof(v[0]) == NFIXED, "a value for every fixed column");
	union lb_val all[NFIXED_MAX + LB_COUNTERS_MAX] = { { 0 } };
	memcpy(all, v, sizeof(v));
	const struct lb_result res = { .cols = r->cols, .ncols = r->ncols, .vals = all,
				       .counters = c->c, .ncounters = c->n };
	return sink->row(sink->ctx, &res, err, len);
}

static int run_config(struct run *r, const struct lb_sink *sink, char *err, size_t len)
{
	struct counts before, sum;
	counters_now(r, &before);
	const struct lb_algo *a;
	uint64_t slice = config_params(r, r->config, &a).slice_bytes;
	struct lb_schedule *s = build(r, r->config, err, len);
	uint32_t n = r->prm->iterations;
	double *secs = calloc(n + 1, sizeof(*secs)), *all = calloc((size_t)r->job.size * n + 1, sizeof(*all));
	struct lb_cpu cpu, *cpus = calloc(r->job.size, sizeof(*cpus));
	int rc = s && secs && all && cpus ? 0 : -1;
	if (rc == 0)
		rc = iterate(r, s, secs, &cpu, err, len);
	if (rc == 0)
		rc = lb_boot_gather(r->job.boot, secs, n * sizeof(*secs), all, err, len);
	if (rc == 0)
		rc = lb_boot_gather(r->job.boot, &cpu, sizeof(cpu), cpus, err, len);
	if (rc == 0)
		rc = counters_gather(r, &before, &sum, err, len);
	if (rc == 0 && r->job.rank == 0) {
		struct bcast_row row = { .slice_bytes = slice };
		static const char *const sources[] = { NULL, "table", "model" };
		const struct auto_pick *pk = r->picks && is_auto(r, r->config) ? &r->picks[r->config] : NULL;
		char why[512] = "out of memory";
		int failed = summarize(r, a, s, all, cpus, &row);
		row.auto_source = pk ? sources[pk->source] : NULL;
		row.auto_reason = pk ? pk->reason : NULL;
		if (failed || record(r, &row, &sum, sink, why, sizeof(why))) {
			rc = lb_errf(err, len, "rank 0 could not record the results: %s", why);
			lb_boot_abort(r->job.boot, err); /* the others wait for the next step */
		}
	}
	free(secs);
	free(all);
	free(cpus);
	lb_sched_free(s);
	return rc;
}

/* ---- the run ------------------------------------------------------------- */

/* Rank k's calibration partner (the one whose figures it keeps) sat in
 * another site: then it measured the WAN, not its lanes. */
static int calibrated_across(const struct run *r, uint32_t k)
{
	uint32_t n = r->job.size, sites = sites_of(r->prm);
	int q = lb_calib_partner(k, n, 0);
	if (q < 0)
		q = lb_calib_partner(k, n, 1);
	return sites > 1 && q >= 0 &&
	       lb_sites_find(r->prm->site_first, n, sites, k) !=
		       lb_sites_find(r->prm->site_first, n, sites, (uint32_t)q);
}

/* With sites, the figures of ranks calibrated across the WAN become the
 * medians of those calibrated within a site (and the medians are
 * theirs), so the slice choice, the closed forms and the simulator see
 * the lanes; the WAN is the parameters' (wan_latency, wan_bw).  Every
 * rank holds the same figures and does the same. */
static void keep_lan_figures(struct run *r)
{
	size_t k = r->job.lanes, n = 0, total = (size_t)r->job.size * k;
	double *lat = calloc(total + 1, sizeof(*lat)), *bw = calloc(total + 1, sizeof(*bw));
	struct lb_stats sl, sb;
	for (uint32_t rank = 0; lat && bw && rank < r->job.size; rank++) {
		if (calibrated_across(r, rank))
			continue;
		memcpy(lat + n, r->cal.latency + rank * k, k * sizeof(*lat));
		memcpy(bw + n, r->cal.bandwidth + rank * k, k * sizeof(*bw));
		n += k;
	}
	/* none within a site (two ranks, two sites): the figures stay */
	if (n && n < total && lb_stats_compute(lat, (uint32_t)n, &sl) == 0 &&
	    lb_stats_compute(bw, (uint32_t)n, &sb) == 0) {
		r->cal.latency_median = sl.median;
		r->cal.bandwidth_median = sb.median;
		for (size_t i = 0; i < total; i++)
			if (calibrated_across(r, (uint32_t)(i / k))) {
				r->cal.latency[i] = sl.median;
				r->cal.bandwidth[i] = sb.median;
			}
	}
	free(lat);
	free(bw);
}

static int calibrate(struct run *r, char *err, size_t len)
{
	struct lb_calib_cfg c = { .ops = r->job.ops, .tp = r->job.tp, .buf = r->job.buf, .lanes = r->job.lanes,
				  .bw_bytes = r->prm->calib_bytes, .window = 8, .iters = 5,
				  .idle = r->prm->idle, .timeout = r->job.timeout,
				  .on_measure = r->prm->on_calibration,
				  .on_measure_arg = r->prm->on_iteration_arg };
	int rc = lb_calibrate(r->job.boot, &c, &r->cal, err, len);
	if (rc == 0 && r->job.size > 1)
		keep_lan_figures(r);
	return rc;
}

/* ---- -a auto -------------------------------------------------------------- */

/* The job as a tuning table's key names it. */
static void job_key(const struct run *r, struct lb_tuning_key *k)
{
	memset(k, 0, sizeof(*k));
	snprintf(k->transport, sizeof(k->transport), "%s", r->job.ops->name);
	k->ranks = r->job.size;
	k->lanes = r->job.lanes;
	k->lane_rate = r->job.lane_rate > 0 ? r->job.lane_rate : 0;
	snprintf(k->platform, sizeof(k->platform), "%s", r->prm->platform ? r->platform_hash : "-");
}

/* The model's first for p (its slice: the given one, or auto); binomial
 * at the uncalibrated slice when there is no calibration to model on. */
static void model_pick(const struct run *r, const struct lb_algo_params *p, const char *no_table,
		       struct auto_pick *out)
{
	struct lb_algo_cand c;
	out->source = AUTO_MODEL;
	if (r->cal.bandwidth_median > 0 &&
	    lb_algo_rank(p, r->cal.latency_median, r->cal.bandwidth_median, &c, 1) == 1) {
		out->algo = (uint32_t)(c.algo - lb_algos);
		out->slice = c.slice;
		snprintf(out->reason, sizeof(out->reason), "%.180s; the model's fastest (%.3g s predicted)",
			 no_table, c.seconds);
		return;
	}
	out->algo = (uint32_t)(lb_algo_find("binomial") - lb_algos);
	out->slice = p->slice_bytes != LB_SLICE_AUTO ? p->slice_bytes
		: p->bytes < AUTO_UNCALIBRATED_SLICE ? p->bytes : AUTO_UNCALIBRATED_SLICE;
	snprintf(out->reason, sizeof(out->reason), "%.180s; %s: binomial", no_table,
		 r->cal.bandwidth_median > 0 ? "the model ranks no broadcast for these options"
					     : "no calibration to model on");
}

/* Configuration i's choice: the table's when it is for this job and has
 * a size class near i's size, else the model's. */
static void pick_one(const struct run *r, size_t i, const char *table_off, struct auto_pick *out)
{
	const struct lb_algo *a;
	struct lb_algo_params p = config_params(r, i, &a); /* slice as given */
	char why[128];
	uint64_t slice;
	const struct lb_tuning_pick *tp = table_off
		? NULL : lb_tuning_lookup(r->prm->tuning, p.bytes, &slice, why, sizeof(why));
	if (tp) { /* tune measured the default build options: the pick may not build with these */
		struct lb_algo_params fitted = p;
		fitted.slice_bytes = p.slice_bytes == LB_SLICE_AUTO ? slice : p.slice_bytes;
		if (lb_algo_check(tp->algo, &fitted, why, sizeof(why))) {
			char off[200];
			snprintf(off, sizeof(off), "the table's pick %s cannot run here (%.120s)",
				 tp->algo->name, why);
			model_pick(r, &p, off, out);
			return;
		}
	}
	if (!tp) {
		model_pick(r, &p, table_off ? table_off : why, out);
		return;
	}
	out->source = AUTO_TABLE;
	out->algo = (uint32_t)(tp->algo - lb_algos);
	out->slice = p.slice_bytes == LB_SLICE_AUTO ? slice : p.slice_bytes;
	snprintf(out->reason, sizeof(out->reason), "the table's pick for %llu bytes (%.3g s measured)",
		 (unsigned long long)tp->bytes, tp->seconds);
}

static int any_auto(const struct run *r)
{
	for (size_t k = 0; k < r->prm->nalgos; k++)
		if (r->prm->algos[k] == &lb_coll_auto)
			return 1;
	return 0;
}

/* Rank 0 chooses every auto configuration (its table, the calibration
 * every rank shares) and tells the others: they may hold other files. */
static int resolve_auto(struct run *r, char *err, size_t len)
{
	char off[160] = "no --tuning table", why[128];
	struct lb_tuning_key key;
	if (!any_auto(r))
		return 0;
	struct auto_pick *picks = calloc(r->nconfigs, sizeof(*picks));
	if (!picks)
		return lb_errf(err, len, "out of memory");
	job_key(r, &key);
	if (r->prm->tuning && lb_tuning_matches(r->prm->tuning, &key, why, sizeof(why)) == 0)
		off[0] = 0;
	else if (r->prm->tuning)
		snprintf(off, sizeof(off), "the table is for another job (%.120s)", why);
	for (size_t i = 0; r->job.rank == 0 && i < r->nconfigs; i++)
		if (is_auto(r, i))
			pick_one(r, i, off[0] ? off : NULL, &picks[i]);
	int rc = lb_boot_bcast(r->job.boot, picks, r->nconfigs * sizeof(*picks), err, len);
	if (rc == 0)
		r->picks = picks;
	else
		free(picks);
	return rc;
}

/* The run's label: the parameter, or <transport>-p<ranks>-k<lanes>. */
static void name_run(struct run *r)
{
	if (r->prm->label)
		snprintf(r->label, sizeof(r->label), "%s", r->prm->label);
	else
		snprintf(r->label, sizeof(r->label), "%s-p%u-k%u", r->job.ops ? r->job.ops->name : "",
			 r->job.size, r->job.lanes);
}

/* ---- the platform ---------------------------------------------------------- */

/* The platform fits the job: a node per rank, a link set per lane. */
static int platform_fits(const struct run *r, char *err, size_t len)
{
	const struct lb_platform *pf = r->prm->platform;
	if (pf->nodes != r->job.size)
		return lb_errf(err, len, "the platform has %u nodes but the job has %u ranks",
			       pf->nodes, r->job.size);
	if (pf->lanes < r->job.lanes)
		return lb_errf(err, len, "the platform has %u lane(s) but the job has %u",
			       pf->lanes, r->job.lanes);
	return 0;
}

/* Every rank was given the same platform (equal hashes): the builders
 * must make the same trees everywhere.  Names the first rank that differs. */
static int same_platform(struct run *r, uint64_t mine, char *err, size_t len)
{
	uint64_t *all = calloc(r->job.size, sizeof(*all));
	int rc = lb_job_agree(&r->job, all ? 0 : lb_errf(err, len, "out of memory"), err, len);
	if (rc == 0)
		rc = lb_boot_allgather(r->job.boot, &mine, sizeof(mine), all, err, len);
	for (uint32_t k = 0; rc == 0 && k < r->job.size; k++)
		if (all[k] != all[0])
			rc = lb_errf(err, len, "rank %u's platform (hash %016llx) is not rank 0's "
				     "(%016llx): give every rank the same file", k,
				     (unsigned long long)all[k], (unsigned long long)all[0]);
	free(all);
	return rc;
}

/* The lp-* configurations' loads, one LP per (root, slice). */
static int solve_lps(struct run *r, char *err, size_t len)
{
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < r->nconfigs; i++) {
		const struct lb_algo *a;
		struct lb_algo_params p = config_params(r, i, &a);
		if (a->needs & LB_ALGO_NEEDS_LP)
			rc = lb_bcast_lp_add(&r->lp, &r->job, r->prm->platform, p.root, p.slice_bytes,
					     err, len);
	}
	return rc;
}

/* Every configuration's agent count (r->agents): auto resolved on the
 * platform, alike on every rank (the same platform, the same simulation);
 * a configuration of the previous one's algorithm and size (another slice
 * or root) takes its count.  0 or -1 (err). */
static int resolve_agents(struct run *r, char *err, size_t len)
{
	uint32_t *agents = calloc(r->nconfigs + 1, sizeof(*agents));
	if (!agents)
		return lb_errf(err, len, "out of memory");
	const struct lb_algo *a, *prev_a = NULL;
	uint64_t prev_bytes = 0;
	for (size_t i = 0; i < r->nconfigs; i++) {
		struct lb_algo_params p = config_params(r, i, &a);
		agents[i] = a == prev_a && p.bytes == prev_bytes ? agents[i - 1]
								 : lb_agent_auto(a, &p, NULL);
		prev_a = a, prev_bytes = p.bytes;
	}
	r->agents = agents;
	return 0;
}

/* With a platform: it fits, every rank has it, its agent counts are
 * resolved and its LPs solved. */
static int platform_ready(struct run *r, char *err, size_t len)
{
	const struct lb_platform *pf = r->prm->platform;
	if (!pf)
		return 0;
	if (any_auto(r)) /* its agents and LPs are resolved before any choice */
		return lb_errf(err, len, "-a auto does not run with a platform yet");
	uint64_t hash = lb_platform_hash(pf);
	snprintf(r->platform_hash, sizeof(r->platform_hash), "%016llx", (unsigned long long)hash);
	int rc = lb_job_agree(&r->job, platform_fits(r, err, len), err, len);
	if (rc == 0)
		rc = same_platform(r, hash, err, len);
	if (rc == 0)
		rc = lb_job_agree(&r->job, resolve_agents(r, err, len), err, len);
	if (rc == 0)
		rc = solve_lps(r, err, len);
	return rc;
}

uint64_t lb_coll_buffer_times(const struct lb_algo *const *algos, size_t nalgos)
{
	for (size_t i = 0; i < nalgos; i++)
		if (algos[i]->collective) {
			const char *from;
			char why[160];
			uint32_t size = lb_job_launched(&from, why, sizeof(why));
			return size ? size : 1; /* not launched: lb_job_open says so */
		}
	return 1;
}

/* The buffer a rank needs: the largest size, times the factor above. */
static uint64_t buffer_bytes(const struct lb_coll_params *p)
{
	uint64_t most = p->calib_bytes;
	for (size_t i = 0; i < p->nsizes; i++)
		most = p->sizes[i] > most ? p->sizes[i] : most;
	return lb_mul_sat(most, lb_coll_buffer_times(p->algos, p->nalgos));
}

/* Everything up to the first timed iteration, each step agreed by all. */
static int set_up(struct run *r, char *err, size_t len)
{
	const struct lb_coll_params *p = r->prm;
	struct lb_job_params jp = { .nics = p->nics, .transport = p->transport,
				    .timeout = p->timeout, .lane_rate = p->lane_rate,
				    .buffer_bytes = buffer_bytes(p), .tp_options = p->tp_options,
				    .polls_only = p->idle != LB_IDLE_SLEEP, .pins = p->pin };
	int rc = lb_job_open(&r->job, &jp, err, len);
	if (rc == 0)
		rc = platform_ready(r, err, len);
	if (rc)
		return rc;
	uint32_t *peers[LB_JOB_MAX_LANES] = { 0 }, npeers[LB_JOB_MAX_LANES];
	rc = lb_job_agree(&r->job, sweep_peers(r, peers, npeers, err, len), err, len);
	if (rc == 0)
		rc = lb_job_connect(&r->job, peers, npeers, err, len);
	for (uint32_t l = 0; l < r->job.lanes; l++)
		free(peers[l]);
	if (rc == 0 && p->calib_bytes)
		rc = calibrate(r, err, len);
	if (rc == 0)
		rc = resolve_auto(r, err, len);
	name_run(r);
	return rc;
}

/* Rank 0's sink begins with the provenance, agreed so nobody waits for
 * a rank that quit. */
static int begin(struct run *r, const struct lb_sink *sink, char *err, size_t len)
{
	describe_columns(r);
	return lb_job_sink_start(&r->job, r->prm->prov, sink, r->cols, r->ncols, err, len);
}

static size_t count_configs(const struct lb_coll_params *p)
{
	return p->nalgos * p->nsizes * p->nslices * p->nroots;
}

/* The sink begins, then every configuration. */
static int sweep(struct run *r, const struct lb_sink *sink, char *err, size_t len)
{
	int rc = begin(r, sink, err, len);
	for (r->config = 0; rc == 0 && r->config < r->nconfigs; r->config++)
		rc = run_config(r, sink, err, len);
	return rc;
}

int lb_coll_run(const struct lb_coll_params *prm, const struct lb_sink *sink,
		 char *err, size_t len)
{
	struct run r = { .prm = prm, .nconfigs = count_configs(prm) };
	int rc = set_up(&r, err, len);
	if (rc == 0)
		rc = sweep(&r, sink, err, len);
	lb_calib_free(&r.cal);
	lb_lp_set_free(&r.lp);
	free(r.agents);
	free(r.picks);
	lb_job_close(&r.job);
	return rc;
}

int lb_coll_peers(const struct lb_coll_params *prm, const struct lb_job *job, uint32_t **peers,
		   uint32_t *npeers, char *err, size_t len)
{
	struct run r = { .prm = prm, .nconfigs = count_configs(prm), .job = *job };
	if (prm->platform) /* its LPs would be solved twice, apart from the run */
		return lb_errf(err, len, "lb_coll_peers takes no platform");
	return sweep_peers(&r, peers, npeers, err, len);
}

int lb_coll_run_in(const struct lb_coll_params *prm, const struct lb_job *job,
		    const struct lb_sink *sink, char *err, size_t len)
{
	struct run r = { .prm = prm, .nconfigs = count_configs(prm),
			 .job = *job }; /* borrowed: not closed here */
	if (prm->platform)
		return lb_errf(err, len, "lb_coll_run_in takes no platform");
	int rc = prm->calib_bytes ? calibrate(&r, err, len) : 0;
	if (rc == 0)
		rc = resolve_auto(&r, err, len);
	name_run(&r);
	if (rc == 0)
		rc = sweep(&r, sink, err, len);
	lb_calib_free(&r.cal);
	free(r.picks);
	return rc;
}
