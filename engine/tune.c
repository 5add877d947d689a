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
/* A measurement lasts about this long at the least (-i iterations at the
 * least, RUN_ITER_MAX at the most): the median of 10 iterations of an 8-byte
 * broadcast (0.3 ms each on the emulated cluster) moves by half between two
 * measurements of one configuration, so small sizes get more iterations. */
#define RUN_SECONDS 20e-3
#define RUN_ITER_MAX 200
/* The search's FINALISTS fastest are measured again, RUNOFF_ROUNDS times
 * each, interleaved, and the pick is the fastest median of those: the
 * fastest of a dozen single measurements is often the luckiest one.  So
 * is every other algorithm's fastest within RUNOFF_REACH of the fastest
 * (RUNOFF_MAX in all): one measurement can read 1.5 x another of the same
 * configuration, and at 32 KiB over tcp the fastest broadcast (binary in
 * one slice, 0.34 ms in bench-tune's rounds against binomial's 0.47) once
 * measured slower than three others and never reached a runoff of three. */
#define FINALISTS 3
#define RUNOFF_ROUNDS 3
#define RUNOFF_REACH 1.5
#define RUNOFF_MAX 6

/* One measured configuration, as rank 0 tells the others. */
struct measured {
	uint32_t algo; /* index into lb_algos */
	uint64_t slice;
	double seconds; /* median; INFINITY: not measured */
};

/* The search's fastest, as rank 0 measured them, told to every rank. */
struct finalists {
	uint32_t n;
	struct measured m[RUNOFF_MAX];
};

struct tune {
	const struct lb_tune_params *tp;
	struct lb_job job;
	struct lb_calib cal;
	uint32_t iterations; /* this size's, per measurement */
	/* this size's measured configurations (rank 0's times): none twice */
	struct measured done[2 * TOP_MAX + 4 * FINALISTS];
	size_t ndone;
	/* the previous (smaller) class's pick, then the fastest configuration
	 * of each other of its FINALISTS fastest algorithms; carried_bytes its size */
	struct finalists carried;
	uint64_t carried_bytes;
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
	p.iterations = t->iterations;
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
		if (t->done[i].algo == cand.algo && t->done[i].slice == cand.slice)
			return 0;
	struct measured *slot = t->ndone < sizeof(t->done) / sizeof(t->done[0])
					? &t->done[t->ndone++] : NULL;
	if (slot)
		*slot = cand;
	struct lb_algo_params p = { .ranks = t->job.size, .lanes = t->job.lanes, .bytes = bytes,
				    .slice_bytes = cand.slice, .sites = 1,
				    .stripe_off = t->tp->job.stripe_off,
				    .allgather = t->tp->job.allgather };
	if (lb_algo_check(&lb_algos[cand.algo], &p, NULL, 0))
		return 0; /* too many blocks: no candidate */
	int rc = measure(t, &lb_algos[cand.algo], bytes, cand.slice, &cand.seconds, err, len);
	if (slot)
		slot->seconds = cand.seconds;
	if (rc == 0 && cand.seconds < best->seconds)
		*best = cand;
	return rc;
}

/* This size's iterations per measurement: RUN_SECONDS by the model's
 * fastest prediction, within [-i, RUN_ITER_MAX] (alike on every rank: one
 * calibration, one model). */
static uint32_t iterations_for(const struct tune *t, double predicted)
{
	uint32_t least = t->tp->job.iterations;
	if (!(predicted > 0) || predicted * least >= RUN_SECONDS)
		return least;
	double n = ceil(RUN_SECONDS / predicted);
	return n > RUN_ITER_MAX ? (least > RUN_ITER_MAX ? least : RUN_ITER_MAX) : (uint32_t)n;
}

/* Rank 0's best, to every rank (the next round is built on it). */
static int share(struct tune *t, struct measured *best, char *err, size_t len)
{
	return lb_boot_bcast(t->job.boot, best, sizeof(*best), err, len);
}

static int by_seconds(const void *a, const void *b)
{
	double x = ((const struct measured *)a)->seconds, y = ((const struct measured *)b)->seconds;
	return (x > y) - (x < y);
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static int seen_algo(const struct finalists *f, uint32_t algo)
{
	for (uint32_t k = 0; k < f->n; k++)
		if (f->m[k].algo == algo)
			return 1;
	return 0;
}

/* How a class's measured configurations are picked from (fastest first). */
enum pick {
	PICK_PER_ALGO, /* the fastest of each of the FINALISTS fastest algorithms */
	PICK_RUNOFF,   /* the FINALISTS fastest, then each other algorithm's fastest
			* within RUNOFF_REACH of the fastest, RUNOFF_MAX in all */
};

static int picked(const struct finalists *f, enum pick how, const struct measured *m)
{
	switch (how) {
	case PICK_PER_ALGO:
		return f->n < FINALISTS && !seen_algo(f, m->algo);
	case PICK_RUNOFF:
		return f->n < FINALISTS ||
		       (f->n < RUNOFF_MAX && !seen_algo(f, m->algo) &&
			m->seconds <= RUNOFF_REACH * f->m[0].seconds);
	}
	return 0;
}

/* The configurations picked how from this class's measured ones, rank
 * 0's, to every rank. */
static int pick_finalists(struct tune *t, enum pick how, struct finalists *f, char *err,
			  size_t len)
{
	struct measured all[sizeof(t->done) / sizeof(t->done[0])];
	memcpy(all, t->done, t->ndone * sizeof(all[0]));
	qsort(all, t->ndone, sizeof(all[0]), by_seconds);
	memset(f, 0, sizeof(*f));
	for (size_t i = 0; i < t->ndone && isfinite(all[i].seconds); i++)
		if (picked(f, how, &all[i]))
			f->m[f->n++] = all[i];
	return lb_boot_bcast(t->job.boot, f, sizeof(*f), err, len);
}

/* The runoff's entrants measured RUNOFF_ROUNDS times more, each round in
 * another order (a slow stretch of the fabric falls on each in turn);
 * *best becomes the one of least median over those rounds, on every
 * rank. */
static int runoff(struct tune *t, uint64_t bytes, struct measured *best, char *err, size_t len)
{
	struct finalists f;
	double v[RUNOFF_MAX][RUNOFF_ROUNDS];
	int rc = pick_finalists(t, PICK_RUNOFF, &f, err, len);
	for (uint32_t r = 0; rc == 0 && f.n > 1 && r < RUNOFF_ROUNDS; r++)
		for (uint32_t j = 0, k; rc == 0 && j < f.n; j++) {
			k = (j + r) % f.n;
			rc = measure(t, &lb_algos[f.m[k].algo], bytes, f.m[k].slice, &v[k][r], err, len);
		}
	for (uint32_t k = 0; rc == 0 && f.n > 1 && k < f.n; k++) {
		qsort(v[k], RUNOFF_ROUNDS, sizeof(v[k][0]), by_value);
		f.m[k].seconds = v[k][RUNOFF_ROUNDS / 2];
		if (k == 0 || f.m[k].seconds < best->seconds)
			*best = f.m[k];
	}
	return rc == 0 ? share(t, best, err, len) : rc;
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

/* The previous (smaller) class's finalists (t->carried), carried to bytes:
 * each at its slice (one slice stays one slice) and whole.  Where the
 * model ranks a broadcast low that measures fast (binary and binomial in
 * one slice at 8-32 KiB on the emulated cluster, below the multi-lane
 * trees the model prefers), a smaller class found it; and where two of
 * them tie there, the larger class tells them apart (tcp, 32 KiB: binary
 * 0.33 ms, binomial 0.45 ms, after ties up to 8 KiB). */
static int try_carried(struct tune *t, uint64_t bytes, struct measured *best, char *err,
		       size_t len)
{
	int rc = 0;
	for (uint32_t k = 0; rc == 0 && k < t->carried.n; k++) {
		const struct measured *m = &t->carried.m[k];
		uint64_t slice = m->slice >= t->carried_bytes || m->slice >= bytes ? bytes : m->slice;
		rc = try_one(t, bytes, (struct measured){ m->algo, slice, INFINITY }, best, err, len);
		if (rc == 0)
			rc = try_one(t, bytes, (struct measured){ m->algo, bytes, INFINITY }, best, err,
				     len);
	}
	return rc;
}

/* What the next class tries first: the pick, then the best configuration
 * of each other of this class's FINALISTS fastest algorithms (alike on
 * every rank: pick_finalists shares them). */
static int carry(struct tune *t, uint64_t bytes, const struct measured *pick, char *err,
		 size_t len)
{
	struct finalists f;
	int rc = pick_finalists(t, PICK_PER_ALGO, &f, err, len);
	t->carried = (struct finalists){ .n = 1, .m = { *pick } };
	t->carried_bytes = bytes;
	for (uint32_t k = 0; rc == 0 && k < f.n && t->carried.n < FINALISTS; k++)
		if (f.m[k].algo != pick->algo)
			t->carried.m[t->carried.n++] = f.m[k];
	return rc;
}

/* The best measured slice of each of the FINALISTS fastest algorithms,
 * halved and doubled: at 512 KiB on the emulated cluster the fastest
 * configuration was the second algorithm's slice halved, which a search
 * around the first algorithm alone never measured (bench-tune). */
static int neighbours(struct tune *t, uint64_t bytes, struct measured *best, char *err,
		      size_t len)
{
	struct finalists f;
	int rc = pick_finalists(t, PICK_PER_ALGO, &f, err, len);
	for (uint32_t k = 0; rc == 0 && k < f.n; k++) {
		uint64_t half = below(f.m[k].slice), twice = above(f.m[k].slice, bytes);
		if (half)
			rc = try_one(t, bytes, (struct measured){ f.m[k].algo, half, INFINITY }, best,
				     err, len);
		if (rc == 0 && twice != f.m[k].slice)
			rc = try_one(t, bytes, (struct measured){ f.m[k].algo, twice, INFINITY }, best,
				     err, len);
	}
	return rc;
}

/* One size: the model's top at their slices and whole, the previous
 * class's finalists, then the three fastest algorithms' slices halved and
 * doubled; then the runoff of the fastest of those. */
static int tune_size(struct tune *t, uint64_t bytes, struct lb_tuning_pick *out, char *err,
		     size_t len)
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
	t->iterations = iterations_for(t, n ? c[0].seconds : 0);
	int rc = n ? 0 : lb_errf(err, len, "no broadcast builds %llu bytes on %u ranks",
				 (unsigned long long)bytes, t->job.size);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		uint32_t algo = (uint32_t)(c[i].algo - lb_algos);
		rc = try_one(t, bytes, (struct measured){ algo, c[i].slice, INFINITY }, &best, err, len);
		/* one slice too: what a burst lets through fast, no model sees */
		if (rc == 0 && c[i].slice != bytes)
			rc = try_one(t, bytes, (struct measured){ algo, bytes, INFINITY }, &best, err, len);
	}
	if (rc == 0)
		rc = try_carried(t, bytes, &best, err, len);
	if (rc == 0)
		rc = neighbours(t, bytes, &best, err, len);
	if (rc == 0)
		rc = runoff(t, bytes, &best, err, len);
	if (rc == 0)
		rc = carry(t, bytes, &best, err, len);
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
		rc = tune_size(&t, tp->sizes[i], &out->picks[out->n++], err, len);
	if (rc == 0)
		key_of(&t, &out->key);
	if (t.job.rank != 0)
		out->n = 0; /* the table is rank 0's */
	lb_calib_free(&t.cal);
	lb_job_close(&t.job);
	return rc;
}
