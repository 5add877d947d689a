/* lanebench tune's search; see tune.h. */
#include "tune.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/slice.h"
#include "calibrate.h"
#include "job.h"
#include "lib/error.h"
#include "model/algo_rank.h"

#define TOP_MAX 8

struct tune {
	const struct lb_tune_params *tp;
	struct lb_job job;
	struct lb_calib cal;
	/* this size's measured (algorithm, slice) pairs: none twice */
	uint64_t done[2 * TOP_MAX + 4][2];
	size_t ndone;
};

/* One measured configuration, as rank 0 tells the others. */
struct measured {
	uint32_t algo; /* index into lb_algos */
	uint64_t slice;
	double seconds; /* median; INFINITY: not measured */
};

static int take_median(void *ctx, const struct lb_result *r, char *err, size_t len)
{
	*(double *)ctx = lb_result_val(r, "time_median_seconds")->d;
	return 0;
}

/* The median of a at bytes cut into slice (rank 0's; the others' INFINITY). */
static int measure(struct tune *t, const struct lb_algo *a, uint64_t bytes, uint64_t slice,
		   double *seconds, char *err, size_t len)
{
	static const uint64_t root = 0;
	struct lb_coll_params p = t->tp->job;
	p.algos = &a, p.nalgos = 1;
	p.sizes = &bytes, p.nsizes = 1;
	p.slices = &slice, p.nslices = 1;
	p.roots = &root, p.nroots = 1;
	p.calib_bytes = 0; /* calibrated once, in tune_sizes */
	*seconds = INFINITY;
	const struct lb_sink sink = { .row = take_median, .ctx = seconds };
	int rc = lb_coll_run_in(&p, &t->job, &sink, err, len);
	if (rc == 0 && t->job.rank == 0 && t->tp->on_measured)
		t->tp->on_measured(a->name, bytes, slice, *seconds);
	return rc;
}

/* Measures cand unless it was, or its algorithm cannot cut bytes so
 * finely; keeps the best. */
static int try_one(struct tune *t, uint64_t bytes, struct measured cand, struct measured *best,
		   char *err, size_t len)
{
	for (size_t i = 0; i < t->ndone; i++)
		if (t->done[i][0] == cand.algo && t->done[i][1] == cand.slice)
			return 0;
	if (t->ndone < sizeof(t->done) / sizeof(t->done[0])) {
		t->done[t->ndone][0] = cand.algo;
		t->done[t->ndone++][1] = cand.slice;
	}
	struct lb_algo_params p = { .ranks = t->job.size, .lanes = t->job.lanes, .bytes = bytes,
				    .slice_bytes = cand.slice, .sites = 1,
				    .stripe_off = t->tp->job.stripe_off,
				    .allgather = t->tp->job.allgather };
	if (lb_algo_check(&lb_algos[cand.algo], &p, NULL, 0))
		return 0; /* too many blocks: no candidate */
	int rc = measure(t, &lb_algos[cand.algo], bytes, cand.slice, &cand.seconds, err, len);
	if (rc == 0 && cand.seconds < best->seconds)
		*best = cand;
	return rc;
}

/* Rank 0's best, to every rank (the next round is built on it). */
static int share(struct tune *t, struct measured *best, char *err, size_t len)
{
	return lb_boot_bcast(t->job.boot, best, sizeof(*best), err, len);
}

/* The candidate slices next to slice (algos/slice.h: the powers of two
 * from 1 KiB below the message, and the message): the one below (0:
 * none), the one above (the message at most). */
static uint64_t below(uint64_t slice)
{
	uint64_t c = LB_SLICE_AUTO_FLOOR;
	while (c * 2 < slice)
		c *= 2;
	return c < slice ? c : 0;
}

static uint64_t above(uint64_t slice, uint64_t bytes)
{
	uint64_t c = LB_SLICE_AUTO_FLOOR;
	while (c <= slice)
		c *= 2;
	return c < bytes ? c : bytes;
}

/* One size: the model's top at their slices and whole, the previous
 * class's pick, then the best one's slice halved and doubled. */
/* The previous (smaller) class's pick, carried to bytes: at its slice
 * (one slice stays one slice) and whole.  Where the model ranks a
 * broadcast low that measures fast (binomial in one slice at 8-32 KiB on
 * the emulated cluster, below the multi-lane trees the model prefers), the
 * smaller class found it. */
static int try_previous(struct tune *t, uint64_t bytes, const struct lb_tuning_pick *prev,
			struct measured *best, char *err, size_t len)
{
	uint32_t algo = (uint32_t)(prev->algo - lb_algos);
	uint64_t slice = prev->slice >= prev->bytes || prev->slice >= bytes ? bytes : prev->slice;
	int rc = try_one(t, bytes, (struct measured){ algo, slice, INFINITY }, best, err, len);
	if (rc == 0)
		rc = try_one(t, bytes, (struct measured){ algo, bytes, INFINITY }, best, err, len);
	return rc;
}

static int tune_size(struct tune *t, uint64_t bytes, const struct lb_tuning_pick *prev,
		     struct lb_tuning_pick *out, char *err, size_t len)
{
	struct lb_algo_params p = { .ranks = t->job.size, .lanes = t->job.lanes, .bytes = bytes,
				    .slice_bytes = LB_SLICE_AUTO, .sites = 1,
				    .stripe_off = t->tp->job.stripe_off,
				    .allgather = t->tp->job.allgather };
	struct lb_algo_cand c[TOP_MAX];
	size_t top = t->tp->top < TOP_MAX ? t->tp->top : TOP_MAX;
	size_t n = lb_algo_rank(&p, t->cal.latency_median, t->cal.bandwidth_median, c, top);
	struct measured best = { .seconds = INFINITY };
	t->ndone = 0;
	int rc = n ? 0 : lb_errf(err, len, "no broadcast builds %llu bytes on %u ranks",
				 (unsigned long long)bytes, t->job.size);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		uint32_t algo = (uint32_t)(c[i].algo - lb_algos);
		rc = try_one(t, bytes, (struct measured){ algo, c[i].slice, INFINITY }, &best, err, len);
		/* one slice too: what a burst lets through fast, no model sees */
		if (rc == 0 && c[i].slice != bytes)
			rc = try_one(t, bytes, (struct measured){ algo, bytes, INFINITY }, &best, err, len);
	}
	if (rc == 0 && prev)
		rc = try_previous(t, bytes, prev, &best, err, len);
	if (rc == 0)
		rc = share(t, &best, err, len);
	struct measured first = best;
	uint64_t half = below(first.slice), twice = above(first.slice, bytes);
	if (rc == 0 && half)
		rc = try_one(t, bytes, (struct measured){ first.algo, half, INFINITY }, &best, err, len);
	if (rc == 0 && twice != first.slice)
		rc = try_one(t, bytes, (struct measured){ first.algo, twice, INFINITY }, &best, err, len);
	if (rc == 0)
		rc = share(t, &best, err, len);
	*out = (struct lb_tuning_pick){ bytes, best.slice, &lb_algos[best.algo], best.seconds };
	return rc;
}

static void key_of(const struct tune *t, struct lb_tuning_key *k)
{
	memset(k, 0, sizeof(*k));
	snprintf(k->transport, sizeof(k->transport), "%s", t->job.ops->name);
	k->ranks = t->job.size;
	k->lanes = t->job.lanes;
	k->lane_rate = t->job.lane_rate > 0 ? t->job.lane_rate : 0;
	snprintf(k->platform, sizeof(k->platform), "-");
}

/* Connects every peer any candidate may need: -a auto's set. */
static int connect_all(struct tune *t, char *err, size_t len)
{
	const struct lb_algo *autos = &lb_coll_auto;
	static const uint64_t root = 0, slice = LB_SLICE_AUTO;
	struct lb_coll_params p = t->tp->job;
	p.algos = &autos, p.nalgos = 1;
	p.sizes = t->tp->sizes, p.nsizes = t->tp->nsizes;
	p.slices = &slice, p.nslices = 1;
	p.roots = &root, p.nroots = 1;
	uint32_t *peers[LB_JOB_MAX_LANES] = { 0 }, npeers[LB_JOB_MAX_LANES];
	int rc = lb_job_agree(&t->job, lb_coll_peers(&p, &t->job, peers, npeers, err, len), err, len);
	if (rc == 0)
		rc = lb_job_connect(&t->job, peers, npeers, err, len);
	for (uint32_t l = 0; l < t->job.lanes; l++)
		free(peers[l]);
	return rc;
}

static int calibrate(struct tune *t, char *err, size_t len)
{
	const struct lb_coll_params *p = &t->tp->job;
	struct lb_calib_cfg c = { .ops = t->job.ops, .tp = t->job.tp, .buf = t->job.buf,
				  .lanes = t->job.lanes, .bw_bytes = p->calib_bytes, .window = 8,
				  .iters = 5, .idle = p->idle, .timeout = t->job.timeout };
	return lb_calibrate(t->job.boot, &c, &t->cal, err, len);
}

static uint64_t largest(const struct lb_tune_params *tp)
{
	uint64_t most = tp->job.calib_bytes;
	for (size_t i = 0; i < tp->nsizes; i++)
		most = tp->sizes[i] > most ? tp->sizes[i] : most;
	return most;
}

int lb_tune_run(const struct lb_tune_params *tp, struct lb_tuning *out, char *err, size_t len)
{
	struct tune t = { .tp = tp };
	const struct lb_coll_params *p = &tp->job;
	struct lb_job_params jp = { .nics = p->nics, .transport = p->transport,
				    .timeout = p->timeout, .lane_rate = p->lane_rate,
				    .buffer_bytes = largest(tp), .tp_options = p->tp_options,
				    .polls_only = p->idle != LB_IDLE_SLEEP, .pins = p->pin };
	if (!p->calib_bytes || tp->nsizes > LB_TUNING_MAX_PICKS)
		return lb_errf(err, len, "tune needs a calibration and at most %d sizes",
			       LB_TUNING_MAX_PICKS);
	memset(out, 0, sizeof(*out));
	int rc = lb_job_open(&t.job, &jp, err, len);
	if (rc == 0)
		rc = connect_all(&t, err, len);
	if (rc == 0)
		rc = calibrate(&t, err, len);
	for (size_t i = 0; rc == 0 && i < tp->nsizes; i++)
		rc = tune_size(&t, tp->sizes[i], i ? &out->picks[i - 1] : NULL, &out->picks[out->n++],
			       err, len);
	if (rc == 0)
		key_of(&t, &out->key);
	if (t.job.rank != 0)
		out->n = 0; /* the table is rank 0's */
	lb_calib_free(&t.cal);
	lb_job_close(&t.job);
	return rc;
}
