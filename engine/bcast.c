/* The broadcast benchmark engine; see bcast.h.  Every step that can fail
 * on one rank is followed by a status agreement (lb_boot_agree), so one
 * rank's failure stops all ranks with its reason, before any timing. */
#include "bcast.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate.h"
#include "lib/error.h"
#include "job.h"
#include "pattern.h"
#include "model/sim.h"
#include "transports/transport.h"

struct run {
	const struct lb_bcast_params *prm;
	struct lb_job job;
	struct lb_calib cal;
	uint32_t pattern_id;   /* distinct per iteration of the whole run */
	size_t config, nconfigs;
};

/* Configuration i of the sweep: algorithms x sizes x slices. */
static void config_at(const struct lb_bcast_params *p, size_t i, const struct lb_algo **a,
		      uint64_t *bytes, uint64_t *slice)
{
	*slice = p->slices[i % p->nslices];
	i /= p->nslices;
	*bytes = p->sizes[i % p->nsizes];
	*a = p->algos[i / p->nsizes];
}

static struct lb_schedule *build(const struct run *r, size_t i, char *err, size_t len)
{
	const struct lb_algo *a;
	struct lb_algo_params p = { .ranks = r->job.size, .root = r->prm->root, .lanes = r->job.lanes,
				    .stripe_off = r->prm->stripe_off,
				    .allgather = r->prm->allgather, .sites = 1 };
	config_at(r->prm, i, &a, &p.bytes, &p.slice_bytes);
	return lb_algo_build(a, &p, err, len);
}

/* Peers each lane talks to over the whole sweep: connect once for all. */
static int sweep_peers(struct run *r, uint32_t **peers, uint32_t *npeers, char *err, size_t len)
{
	uint8_t *seen = calloc((size_t)r->job.lanes * r->job.size, 1);
	uint32_t *tmp = calloc(r->job.size, sizeof(*tmp));
	int rc = seen && tmp ? 0 : lb_errf(err, len, "out of memory");
	for (size_t i = 0; rc == 0 && i < r->nconfigs; i++) {
		struct lb_schedule *s = build(r, i, err, len);
		if (!s) {
			rc = -1;
			break;
		}
		for (uint32_t l = 0; l < r->job.lanes; l++) {
			int n = lb_sched_lane_peers(s, r->job.rank, l, tmp);
			for (int j = 0; j < n; j++)
				seen[l * r->job.size + tmp[j]] = 1;
		}
		lb_sched_free(s);
	}
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
	struct lb_bcast_step st = { .rank = r->job.rank, .algorithm = s->algo, .config = r->config,
				    .nconfigs = r->nconfigs, .iteration = it + 1,
				    .iterations = r->prm->warmup + r->prm->iterations };
	if (!r->prm->on_iteration)
		return;
	config_at(r->prm, r->config, &a, &st.bytes, &st.slice_bytes);
	r->prm->on_iteration(&st, r->prm->on_iteration_arg);
}

/* One timed iteration: fresh pattern at the root, cleared elsewhere, start
 * together, run, then check every byte. */
static int iteration(struct run *r, struct lb_exec *x, const struct lb_schedule *s, uint32_t it,
		     double *secs, char *err, size_t len)
{
	uint32_t id = ++r->pattern_id;
	uint64_t bad;
	if (r->job.rank == s->root)
		lb_pattern_fill(r->job.buf, s->bytes, id);
	else
		memset(r->job.buf, 0, s->bytes);
	int rc = lb_boot_barrier(r->job.boot, err, len);
	if (rc)
		return rc;
	announce(r, s, it);
	rc = lb_exec_iteration(x, secs, err, len);
	if (rc == LB_EPEER)
		name_root_cause(r, err, len);
	if (rc)
		return rc;
	if (r->job.rank != s->root && lb_pattern_check(r->job.buf, s->bytes, id, &bad))
		return lb_errf(err, len, "rank %u: wrong data at byte %llu of %llu (%s, iteration %u)",
			       r->job.rank, (unsigned long long)bad, (unsigned long long)s->bytes,
			       s->algo, id);
	return 0;
}

/* Asked to stop (a signal on this rank): -1 with the reason. */
static int stopped(const struct run *r, char *err, size_t len)
{
	const volatile sig_atomic_t *stop = r->prm->stop;
	if (!stop || !*stop)
		return 0;
	return lb_errf(err, len, "rank %u stopped: %s (signal %d)", r->job.rank, strsignal(*stop),
		       (int)*stop);
}

/* Warm-up and timed iterations; local times into secs[]. */
static int iterate(struct run *r, const struct lb_schedule *s, double *secs,
		   char *err, size_t len)
{
	struct lb_exec_cfg xc = { .sched = s, .rank = r->job.rank, .tp_ops = r->job.ops, .tp = r->job.tp,
				  .buf = r->job.buf, .idle = r->prm->idle, .timeout = r->job.timeout,
				  .pin = r->prm->pin ? lb_job_pin : NULL, .pin_arg = &r->job,
				  .stop = r->prm->stop };
	struct lb_exec *x = NULL;
	int rc = lb_exec_new(&xc, &x, err, len);
	for (uint32_t it = 0; rc == 0 && it < r->prm->warmup + r->prm->iterations; it++) {
		double t;
		rc = stopped(r, err, len);
		if (rc == 0)
			rc = iteration(r, x, s, it, &t, err, len);
		if (rc == 0 && it >= r->prm->warmup)
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

/* Cost table, refined model and simulation from the calibration. */
static void predict(const struct run *r, const struct lb_algo *a, const struct lb_schedule *s,
		    struct lb_bcast_result *res)
{
	res->table = res->refined = res->sim = NAN;
	if (!r->cal.bandwidth_median)
		return;
	struct lb_cost_in in = { .ranks = s->ranks, .lanes = s->lanes, .bytes = s->bytes,
				 .slice_bytes = res->slice_bytes, .latency = r->cal.latency_median,
				 .lane_bw = r->cal.bandwidth_median, .sites = 1,
				 .allgather = r->prm->allgather, .stripe_off = r->prm->stripe_off };
	res->table = a->cost_table(&in);
	res->refined = a->cost_refined(&in);
	struct lb_sim_net net = { .alpha = in.latency, .lane_bw = in.lane_bw,
				  .rank_alpha = r->cal.latency, .rank_bw = r->cal.bandwidth };
	struct lb_sim_result sr = { 0 };
	char why[256];
	if (lb_sim_run(s, &net, &sr, why, sizeof(why)) == 0)
		res->sim = sr.seconds;
}

/* Rank 0: the slowest rank's time per iteration, statistics, predictions. */
static int summarize(struct run *r, const struct lb_algo *a, const struct lb_schedule *s,
		     const double *all, struct lb_bcast_result *res)
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
	*res = (struct lb_bcast_result){
		.algorithm = a->name, .transport = r->job.ops->name, .ranks = s->ranks,
		.lanes = s->lanes, .root = s->root, .stripe_off = r->prm->stripe_off,
		.idle = r->prm->idle, .bytes = s->bytes, .slice_bytes = slice,
		.slices = s->nblocks, .iterations = n, .warmup = r->prm->warmup, .time = time,
		.lane_rate = r->job.lane_rate, .calib_latency = r->cal.latency_median,
		.calib_lane_bw = r->cal.bandwidth_median,
		.verified_bytes = s->bytes * (s->ranks - 1) * (uint64_t)(n + r->prm->warmup),
	};
	/* One rank moves no byte: its "bandwidth" would be the message size
	 * over an empty iteration's overhead (terabytes per second). */
	int moved = s->ranks > 1;
	res->algbw = moved ? s->bytes / res->time.median : NAN;
	res->efficiency = moved && r->job.lane_rate > 0
		? (double)s->bytes / (s->lanes * r->job.lane_rate) / res->time.median : NAN;
	predict(r, a, s, res);
	res->over_table = ratio(res->time.median, res->table);
	res->over_refined = ratio(res->time.median, res->refined);
	res->over_sim = ratio(res->time.median, res->sim);
	return 0;
}

/* This rank's transport counters now: how many (0 without counters). */
static uint32_t counters_now(const struct run *r, struct lb_tp_counter *c)
{
	int n = r->job.ops->counters ? r->job.ops->counters(r->job.tp, c) : 0;
	return n > 0 ? (uint32_t)n : 0;
}

/* The configuration's counters (now - before) of every rank, summed on
 * rank 0 into sum[n].  Collective; nothing to do without counters. */
static int counters_gather(struct run *r, const struct lb_tp_counter *before, uint32_t n,
			   struct lb_tp_counter *sum, char *err, size_t len)
{
	struct lb_tp_counter now[LB_TP_COUNTERS_MAX];
	uint64_t mine[LB_TP_COUNTERS_MAX];
	if (n == 0)
		return 0;
	counters_now(r, now);
	for (uint32_t i = 0; i < n; i++) {
		mine[i] = now[i].value - before[i].value;
		sum[i] = (struct lb_tp_counter){ now[i].name, 0 };
	}
	uint64_t *all = calloc((size_t)r->job.size * n, sizeof(*all));
	if (!all)
		return lb_errf(err, len, "out of memory");
	int rc = lb_boot_gather(r->job.boot, mine, n * sizeof(*mine), all, err, len);
	for (uint32_t k = 0; rc == 0 && r->job.rank == 0 && k < r->job.size; k++)
		for (uint32_t i = 0; i < n; i++)
			sum[i].value += all[(size_t)k * n + i];
	free(all);
	return rc;
}

static int run_config(struct run *r, lb_bcast_sink sink, void *arg, char *err, size_t len)
{
	struct lb_tp_counter before[LB_TP_COUNTERS_MAX], sum[LB_TP_COUNTERS_MAX];
	uint32_t ncounters = counters_now(r, before);
	const struct lb_algo *a;
	uint64_t bytes, slice;
	config_at(r->prm, r->config, &a, &bytes, &slice);
	struct lb_schedule *s = build(r, r->config, err, len);
	uint32_t n = r->prm->iterations;
	double *secs = calloc(n + 1, sizeof(*secs)), *all = calloc((size_t)r->job.size * n + 1, sizeof(*all));
	int rc = s && secs && all ? 0 : -1;
	if (rc == 0)
		rc = iterate(r, s, secs, err, len);
	if (rc == 0)
		rc = lb_boot_gather(r->job.boot, secs, n * sizeof(*secs), all, err, len);
	if (rc == 0)
		rc = counters_gather(r, before, ncounters, sum, err, len);
	if (rc == 0 && r->job.rank == 0) {
		struct lb_bcast_result res = { .slice_bytes = slice };
		rc = summarize(r, a, s, all, &res);
		res.ncounters = ncounters;
		memcpy(res.counters, sum, ncounters * sizeof(*sum));
		if (rc == 0)
			rc = sink(&res, arg);
		if (rc) {
			lb_errf(err, len, "rank 0 could not record the results");
			lb_boot_abort(r->job.boot, err);
		}
	}
	free(secs);
	free(all);
	lb_sched_free(s);
	return rc;
}

/* ---- the run ------------------------------------------------------------- */

static int calibrate(struct run *r, char *err, size_t len)
{
	struct lb_calib_cfg c = { .ops = r->job.ops, .tp = r->job.tp, .buf = r->job.buf, .lanes = r->job.lanes,
				  .bw_bytes = r->prm->calib_bytes, .window = 8, .iters = 5,
				  .idle = r->prm->idle, .timeout = r->job.timeout };
	return lb_calibrate(r->job.boot, &c, &r->cal, err, len);
}

/* Everything up to the first timed iteration, each step agreed by all. */
static int set_up(struct run *r, char *err, size_t len)
{
	const struct lb_bcast_params *p = r->prm;
	struct lb_job_params jp = { .lanes = p->lanes, .transport = p->transport,
				    .timeout = p->timeout, .lane_rate = p->lane_rate,
				    .buffer_bytes = p->calib_bytes, .tp_options = p->tp_options };
	for (size_t i = 0; i < p->nsizes; i++)
		jp.buffer_bytes = p->sizes[i] > jp.buffer_bytes ? p->sizes[i] : jp.buffer_bytes;
	int rc = lb_job_open(&r->job, &jp, err, len);
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
	return rc;
}

int lb_bcast_run(const struct lb_bcast_params *prm, lb_bcast_sink sink, void *arg,
		 char *err, size_t len)
{
	struct run r = { .prm = prm, .nconfigs = prm->nalgos * prm->nsizes * prm->nslices };
	int rc = set_up(&r, err, len);
	for (r.config = 0; rc == 0 && r.config < r.nconfigs; r.config++)
		rc = run_config(&r, sink, arg, err, len);
	lb_calib_free(&r.cal);
	lb_job_close(&r.job);
	return rc;
}
