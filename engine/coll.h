/* The collective engine (what `lanebench bcast` runs on every rank, for
 * broadcasts, gathers and allgathers alike): bootstrap, lanes, transport,
 * calibration, then for each
 * (algorithm, size, slice, root) warm-up and timed iterations of the schedule,
 * every iteration's bytes verified on every rank, times gathered to rank 0,
 * predictions from the cost table and the simulator beside them.
 *
 * The parameters are one immutable struct; results (result.h) are handed
 * to a sink on rank 0.  The engine formats nothing. */
#ifndef LB_COLL_H
#define LB_COLL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "algos/algos.h"
#include "net/platform.h"
#include "executor.h"
#include "result.h"
#include "transports/transport.h"

/* Where a rank is in the sweep, told just before an iteration's data
 * phase (after the barrier that starts it: every rank is in it). */
struct lb_coll_step {
	uint32_t rank;
	const char *algorithm;
	uint64_t bytes, slice_bytes;
	uint32_t root;
	size_t config, nconfigs;        /* 0-based configuration of the sweep; their count */
	uint32_t iteration, iterations; /* 1-based, warm-up ones included; their count */
};

/* bcast --sim-model: the simulator's port model for sim_seconds. */
enum lb_sim_choice {
	LB_SIM_AUTO,
	LB_SIM_FLUID,      /* shared max-min fairly */
	LB_SIM_FLUID_RTT,  /* shared weighted by 1 / round trip (LB_SHARE_RTT) */
	LB_SIM_MULTI_PORT, /* needs a platform */
	LB_SIM_BOUNDED,    /* needs a platform */
};

/* -a auto: an entry of algos the engine replaces, per message size, by the
 * tuning table's pick when the table matches the job (engine/tuning.h),
 * else by the model's first (model/algo_rank.h, on the calibration; binomial
 * without one).  Its slice comes with the pick when slices is auto, else
 * it is the fixed slice given.  The rows say which was used and why
 * (auto_source, auto_reason).  Not with a platform. */
extern const struct lb_algo lb_coll_auto;

struct lb_tuning;

struct lb_coll_params {
	const struct lb_algo *const *algos; /* may hold &lb_coll_auto */
	size_t nalgos;
	const uint64_t *sizes;
	size_t nsizes;
	const uint64_t *slices;    /* slice sizes; 0 = whole message; LB_SLICE_AUTO
				    * (algos/slice.h): per algorithm and size,
				    * lb_slice_auto's choice with the calibration's
				    * medians (64 KiB without calibration) */
	size_t nslices;
	uint32_t iterations, warmup;
	const uint64_t *roots;     /* ranks that hold the message, each < the job's
				    * size; the sweep's innermost dimension */
	size_t nroots;
	int stripe_off;
	enum lb_allgather allgather;
	enum lb_balance balance;   /* seed 004's (hbsp*) */
	enum lb_super2 super2;
	uint32_t agents;           /* seed 001's (cluster-agent-*); 0 = auto */
	const char *nics;          /* one lane each: "rail0,rail1", "auto"; NULL: auto */
	const char *transport;     /* "tcp" */
	const char *label;         /* the run's name, first column of every result;
				    * NULL: <transport>-p<ranks>-k<lanes> */
	enum lb_idle idle;
	struct lb_tp_options tp_options; /* --tp-opt KEY=VALUE items, for the transport */
	double timeout;            /* seconds: every wait, from the rendezvous to one
				    * iteration; 0 = $LANEBENCH_TIMEOUT, else 60 */
	double lane_rate;          /* bytes/s per lane as stated by the user; 0 = ask the transport */
	uint64_t calib_bytes;      /* bandwidth calibration message size; 0 = skip calibration */
	/* The network (net/platform.h), or NULL: every algorithm is built on
	 * it (lb_algo_params.platform): the platform algorithms (seed 000)
	 * need it, the others are checked against its links.  Its nodes are
	 * the job's ranks and it has at least the job's lanes; every rank
	 * passes an equal one (their hashes are compared).  The lp-*
	 * algorithms' edge loads are solved once per (root, slice) on rank 0
	 * and sent to the others.  lb_coll_peers and lb_coll_run_in take
	 * none (NULL). */
	const struct lb_platform *platform;
	/* Sites (algos/sites.h; seed 003): the site-aware algorithms build
	 * for them (multilane, binary, binomial); the WAN is the network's.
	 * sites 0 or 1: one; site_first NULL: the even split. */
	uint32_t sites;
	const uint32_t *site_first;
	const char *site_algo; /* seed 002's: each site's algorithm; NULL: binomial */
	/* The WAN between sites for the predictions (sites > 1, no
	 * platform): seconds in flight and a transfer's bandwidth cap (0:
	 * none beyond the calibrated lanes).  The simulator charges them to
	 * every transfer between sites, whose occupation stays the
	 * calibrated latency; the table's two-site forms take latency +
	 * wan_latency as L.  0 and 0: a WAN as fast as the LAN. */
	double wan_latency, wan_bw;
	/* The predictions' simulator port model (model/sim.h): auto is
	 * bounded on a platform (LogP for the algorithms with sim_logp: seed
	 * 001's; fluid for the other allgathers), the fluid model with sites
	 * and no platform, per-lane without either. */
	enum lb_sim_choice sim_model;
	/* -a auto's measured picks (rank 0's is used, and told to the
	 * others); NULL: the model's. */
	const struct lb_tuning *tuning;
	int pin;                   /* bind lane threads near their NIC (hwloc) */
	/* The caller's provenance (version, command, options), handed to
	 * the sink with the job's part (hosts, lanes); NULL: none. */
	const struct lb_prov *prov;
	/* Optional, on every rank: each iteration's start (progress, logs). */
	void (*on_iteration)(const struct lb_coll_step *step, void *arg);
	void *on_iteration_arg;
	/* Optional, on every rank: before each lane's calibration measurement
	 * (rank, round 0 or 1, lane, partner; arg: on_iteration_arg). */
	void (*on_calibration)(uint32_t rank, int round, uint32_t lane, uint32_t peer, void *arg);
	/* Optional: non-zero (a signal's number) stops the sweep at once, the
	 * other ranks told; lb_coll_run then fails with "stopped by signal". */
	const atomic_int *stop;
};

/* Collective: every rank of the job calls it; sink is used on rank 0
 * (provenance and begin once the job is set up and calibrated, agreed by
 * all ranks; a row per configuration, in sweep order: algorithms, then
 * sizes, then slices, then roots, the last varying fastest).  Returns 0, or -1 with a
 * reason naming the rank, lane or value that failed -- LB_EPEER
 * (lib/error.h) when another rank is the cause: it died, disconnected,
 * stopped answering or failed itself; LB_EINPUT when a schedule needs a
 * link the platform lacks (found on every rank, before any connection).  A rank that lost a peer mid-run
 * names the root cause when there is one to learn (that peer's own
 * report, or the rank whose death started it). */
int lb_coll_run(const struct lb_coll_params *prm, const struct lb_sink *sink,
		 char *err, size_t errlen);

struct lb_job;
struct lb_calib;
struct lb_sim_net;

/* The simulator's network for sim_seconds of algorithm a's schedule.  On
 * prm's platform when there is one (its per-pair links; the calibration
 * is not read).  Else on the calibration (engine/calibrate.h): each
 * transfer's overhead the latency median, within a site and across the
 * WAN (prm's wan_latency in flight, wan_bw a cap), each (rank, lane) its
 * own bandwidth.  Not each rank's latency: five ping-pongs of 8 bytes, one
 * lane's figure can be many times the others' on a busy machine, and a
 * pipelined schedule pays it per slice (one lane at 0.9 ms of a median of
 * 15 us doubled bench-sites' chain and multilane; the bandwidths are what
 * hosts of unequal rates differ by).  The port model is prm's sim_model;
 * auto: bounded on a platform (LogP for a->sim_logp, seed 001's agents;
 * fluid for the other allgathers), fluid (shared fairly) with sites and
 * no platform, else per-lane.  Returns 0, or -1 when there is neither a platform nor a
 * calibration. */
int lb_coll_sim_net(const struct lb_coll_params *prm, const struct lb_calib *cal,
		    const struct lb_algo *a, struct lb_sim_net *net);

/* How many messages of -m a rank's buffer holds for these algorithms: the
 * job's size when one of them is not a broadcast (an allgather: -m is each
 * rank's contribution), else 1. */
uint64_t lb_coll_buffer_times(const struct lb_algo *const *algos, size_t nalgos);

/* For a command that runs broadcasts in a job of its own (check): the
 * peers each lane of this rank needs for the sweep and its calibration
 * (peers[lane]: job->size entries, allocated here, the caller frees), to
 * connect with the job's other channels before lb_coll_run_in. */
int lb_coll_peers(const struct lb_coll_params *prm, const struct lb_job *job, uint32_t **peers,
		   uint32_t *npeers, char *err, size_t errlen);

/* lb_coll_run in an open job whose lanes are connected to (at least) the
 * peers lb_coll_peers named; the job's buffer holds the largest size.
 * prm's set-up fields (nics, transport, timeout, lane_rate, tp_options)
 * are the job's business and ignored; the job stays open. */
int lb_coll_run_in(const struct lb_coll_params *prm, const struct lb_job *job,
		    const struct lb_sink *sink, char *err, size_t errlen);

#endif
