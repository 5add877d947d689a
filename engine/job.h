/* A job's common set-up, shared by `bcast` and `p2p`: bootstrap, lanes and
 * their pinning plan, the transport opened, the message buffer registered,
 * then connections for the channels a command needs.  Every local step is
 * agreed by all ranks, so one rank's failure stops every rank with its
 * reason before any timing. */
#ifndef LB_JOB_H
#define LB_JOB_H

#include <stddef.h>
#include <stdint.h>

#include "launch/bootstrap.h"
#include "launch/topology.h"
#include "transports/transport.h"

#define LB_JOB_MAX_LANES 16

/* Largest timeout, in seconds (the bootstrap's limit). */
#define LB_MAX_TIMEOUT 1e6

struct lb_job_params {
	const char *nics;      /* one lane each: "rail0,rail1", "auto"; NULL or "": auto */
	const char *transport; /* "tcp" */
	double timeout;        /* seconds for every wait, start-up included;
				* 0: $LANEBENCH_TIMEOUT, else 60 */
	double lane_rate;      /* bytes/s stated by the user; 0: ask the transport */
	double connect_timeout; /* seconds the transport gets to connect; 0: connect_share */
	double connect_share;   /* with connect_timeout 0: this share of the timeout as
				 * resolved (0: all of it) */
	uint64_t buffer_bytes;
	struct lb_tp_options tp_options; /* --tp-opt items: keys checked, then open parses them */
	int polls_only;                  /* the idle policy never sleeps (lb_tp_cfg) */
	int pins;                        /* lane threads are bound per the plan (lb_job_pin):
					  * rank 0 then prints the plan's notes */
};

struct lb_job {
	struct lb_boot *boot;
	uint32_t rank, size, lanes;
	const char *lane_names[LB_JOB_MAX_LANES];
	char *lane_spec;
	char token[129];
	double timeout;        /* as resolved: the parameter, or the environment's */
	double connect_timeout; /* as resolved: what the transport got to connect */
	struct lb_topo *topo;
	struct lb_lane_plan plan[LB_JOB_MAX_LANES];
	const struct lb_transport *ops;
	struct lb_tp *tp;
	uint8_t *buf;
	uint64_t buflen;
	double lane_rate;      /* slowest lane anywhere, bytes/s; 0 unknown */
};

/* Before anything else: was this process started as a rank of a job?
 * Rank and size must come from the environment (lb_boot_env): a silent
 * "rank 0 of 1" runs nothing real and reports absurd bandwidths.  An
 * explicit size of 1 (LANEBENCH_SIZE=1) is a job.  Returns the job size,
 * or 0 with a message that says how to launch in err; *size_from gets the
 * variable that set the size. */
uint32_t lb_job_launched(const char **size_from, char *err, size_t errlen);

/* Collective.  On failure the job is still to be closed.  Like every
 * collective step here, fails with LB_EPEER (lib/error.h) rather than
 * -1 when another rank is the cause. */
int lb_job_open(struct lb_job *j, const struct lb_job_params *p, char *err, size_t errlen);

/* Exchanges lane addresses and connects to peers[lane][0..npeers[lane]). */
int lb_job_connect(struct lb_job *j, uint32_t *const *peers, const uint32_t *npeers,
		   char *err, size_t errlen);

/* As lb_job_connect, without agreeing on the transport's outcome: a rank
 * whose lanes did not all connect goes on with those that did (check names
 * the rest).  Returns the exchange's failure (collective, as above); the
 * transport's own is in *connected (0 or -1) with its reason in why. */
int lb_job_connect_each(struct lb_job *j, uint32_t *const *peers, const uint32_t *npeers,
			int *connected, char *why, size_t whylen, char *err, size_t errlen);

/* As lb_job_connect_each, for a caller that can do without some peers
 * (calibrate on a platform with missing links): up[lane * size + peer]
 * is 1 for each channel of peers[] the transport made -- all of them when
 * connect succeeded, else those its `connected` names -- and 0 for the
 * rest; why holds the transport's reason when connect failed ("" when
 * not).  A failed connect on a transport without `connected` fails this
 * rank with that reason.  Agreed: 0 on every rank, or a failure on all. */
int lb_job_connect_some(struct lb_job *j, uint32_t *const *peers, const uint32_t *npeers,
			uint8_t *up, char *why, size_t whylen, char *err, size_t errlen);

/* Agrees on a local step's outcome: 0 everywhere, or a failure everywhere
 * with the lowest failing rank's reason in err: -1 where the step failed
 * (LB_EINPUT where it failed with LB_EINPUT), LB_EPEER on the ranks where
 * it did not. */
int lb_job_agree(struct lb_job *j, int rc, char *err, size_t errlen);

/* Executor pin callback: binds lane `lane`'s thread per the plan. */
void lb_job_pin(uint32_t lane, void *job);

/* The smallest of n lane rates (bytes/s), or 0 when n is 0 or any rate is
 * unknown (0 or NaN): one unknown lane makes the slowest unknown. */
double lb_slowest_rate(const double *rates, size_t n);

/* Releases everything, in reverse order; safe after any failure. */
void lb_job_close(struct lb_job *j);

#endif
