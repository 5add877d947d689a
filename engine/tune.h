/* `lanebench tune`: measured tuning on the job itself.  For each message
 * size, a short search over (algorithm, slice) seeded by the model: the
 * model's `top` fastest broadcasts (model/algo_rank.h, on this job's
 * calibration), each at its model slice and in one slice, are measured
 * (a real link's burst carries a small message whole faster than any
 * link model says: 2-3x at 32-128 KiB on the emulated cluster), and the
 * previous size's pick at its slice and whole (what the model ranks low
 * may measure fast); then the best measured one at half and twice its
 * slice; then the three fastest measured are measured three times more,
 * interleaved, and the one of least median over those is the size's pick
 * (engine/tuning.h; the fastest of a dozen single measurements is often
 * the luckiest).  A measurement takes -i iterations, more where the model
 * predicts a broadcast shorter than 2 ms (up to 200: about 20 ms each).  Every measurement is an ordinary
 * engine sweep in the one open job (lb_coll_run_in): nothing is relaunched,
 * every iteration's bytes are verified. */
#ifndef LB_ENGINE_TUNE_H
#define LB_ENGINE_TUNE_H

#include "coll.h"
#include "tuning.h"

struct lb_tune_params {
	/* The job and the measurement: nics, transport, timeout, lane_rate,
	 * tp_options, idle, pin, stripe_off, allgather, iterations, warmup,
	 * calib_bytes (> 0: the model needs a calibration), label, prov;
	 * algos, sizes, slices and roots are the search's. */
	struct lb_coll_params job;
	const uint64_t *sizes; /* the size classes, increasing */
	size_t nsizes;
	size_t top; /* algorithms measured per size, >= 1 */
	/* Optional, on rank 0: each measurement (for progress). */
	void (*on_measured)(const char *algo, uint64_t bytes, uint64_t slice, double seconds);
};

/* Collective: every rank of the job calls it; on rank 0, *out is the
 * table (key and a pick per size), elsewhere empty (n 0).  0, or -1 with a reason as
 * lb_coll_run's. */
int lb_tune_run(const struct lb_tune_params *tp, struct lb_tuning *out, char *err, size_t len);

#endif
