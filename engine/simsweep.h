/* The simulation engine (what `lanebench sim` runs): sweeps algorithms x
 * ranks x message sizes x slice sizes x roots; for each configuration it builds
 * the schedule, optionally validates it, simulates it (model/sim.h) and
 * evaluates the cost models with the same parameters, and hands one
 * result to the sink.  One process, no job. */
#ifndef LB_SIMSWEEP_H
#define LB_SIMSWEEP_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "algos/algos.h"
#include "model/sim.h"
#include "result.h"

struct lb_simsweep_params {
	const struct lb_algo *const *algos;
	size_t nalgos;
	const uint64_t *ranks; /* rank counts */
	size_t nranks;
	const uint64_t *sizes; /* message sizes, bytes */
	size_t nsizes;
	const uint64_t *slices; /* slice sizes, bytes; LB_SLICE_AUTO (algos/slice.h):
				 * per algorithm, ranks and size, lb_slice_auto's
				 * choice with alpha and lane_bw (the row shows it) */
	size_t nslices;
	uint32_t lanes;
	const uint64_t *roots; /* ranks that hold the message, each below every rank count */
	size_t nroots;         /* 0: every rank of each rank count, one after another */
	int stripe_off;
	enum lb_allgather allgather;
	enum lb_balance balance; /* seed 004's */
	enum lb_super2 super2;
	uint32_t agents;       /* seed 001's (cluster-agent-*); 0 = auto */
	uint32_t sites;        /* 2 adds the two-site model's columns */
	const uint32_t *site_first; /* [sites + 1]: the site map (algos/sites.h)
				     * of every rank count; NULL = even split */
	double alpha;          /* seconds per transfer on a lane */
	double lane_bw;        /* bytes/s of one lane */
	double wan_alpha;      /* seconds per transfer between sites; < 0: alpha */
	double wan_bw;         /* bytes/s cap between sites; 0: the lanes' only */
	double latency;        /* seconds in flight, no port held (model/sim.h) */
	double wan_latency;    /* the same between sites; < 0: latency */
	enum lb_port_model model;
	enum lb_fluid_share share; /* fluid only: fair or by round trip */
	/* The platform the ranks are the nodes of (every rank count is its
	 * node count), or NULL.  Its links replace alpha, lane_bw, the
	 * latencies and the sites' values in the simulator (alpha and lane_bw
	 * still choose a slice of LB_SLICE_AUTO), the closed forms are left
	 * out (NaN: they know no platform), and the heterogeneous algorithms
	 * build on it (lb_algo_params.platform). */
	const struct lb_platform *platform;
	const char *site_algo; /* seed 002's: each site's algorithm; NULL: binomial */
	/* With a platform: the LP bound TP* (model/lp.h, one-port, lane 0) of
	 * every row's root and slice, and the row's simulated throughput as a
	 * ratio of it.  Solved before the workers start, one LP per (root,
	 * slice); the lp-* algorithms need it whatever this says. */
	int lp_bound;
	int validate;          /* check every schedule with the validator first */
	/* The caller's provenance (version, command, options), handed to
	 * the sink as it is; NULL: none. */
	const struct lb_prov *prov;
	/* Optional: non-zero (a signal's number) ends the sweep before the
	 * next configuration; the run then returns 0 with the rows so far. */
	const atomic_int *stop;
	/* Configurations simulated at once, each on its own thread, as their
	 * memory estimates together allow; 0: one per CPU this process may
	 * use.  Rows reach the sink in sweep order either way. */
	unsigned workers;
};

/* The columns of this sweep's results (the two-site ones only with
 * sites == 2, without a platform); static storage. */
const struct lb_col *lb_simsweep_columns(const struct lb_simsweep_params *p, size_t *ncols);

/* The slice a configuration is estimated with (progress, memory):
 * `slice` itself, or for LB_SLICE_AUTO the refined model's pick, without
 * the simulation that may move it (model/slice_auto.h) to a schedule within
 * LB_SLICE_SIM_BUDGET ranks x blocks. */
uint64_t lb_simsweep_slice_estimate(const struct lb_simsweep_params *p, const struct lb_algo *a,
				    uint32_t ranks, uint64_t bytes, uint64_t slice);

enum lb_simsweep_fit {
	LB_SIMSWEEP_FITS = 0,
	LB_SIMSWEEP_UNBUILDABLE, /* a configuration no builder accepts: err names it */
	LB_SIMSWEEP_TOO_BIG,     /* the largest configuration needs more memory than
				  * is available: err names it and both figures */
};

/* Before any output: can every configuration be built, and does the
 * largest fit in the memory this process may use? */
enum lb_simsweep_fit lb_simsweep_check(const struct lb_simsweep_params *p, char *err,
				       size_t errlen);

/* The same check for one schedule built and validated, not simulated
 * (plan): 0 when its estimate fits the memory available, else -1 with
 * the sweep's message in err. */
int lb_schedule_fits(const struct lb_algo *a, const struct lb_algo_params *prm, char *err,
		     size_t len);

/* Runs the sweep, one result per configuration to sink (provenance and
 * begin first, if set), configurations on several threads (workers).  Returns 0 (also when stopped early), or -1 with the reason in
 * err: a schedule the validator or the simulator refused, or the sink's
 * failure. */
int lb_simsweep_run(const struct lb_simsweep_params *p, const struct lb_sink *sink,
		    char *err, size_t errlen);

#endif
