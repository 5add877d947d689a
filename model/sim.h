/* The simulator: executes a whole schedule for all ranks in one process as a
 * discrete-event simulation under the alpha-beta model.
 *
 * Model: each lane of each rank has one send port and one receive port (full
 * duplex).  A transfer of n bytes from (src, lane) to (dst, lane) occupies
 * src's send port and dst's receive port for alpha + n / B, where alpha is
 * the larger and B the smaller of the two ends' values (a switched fabric:
 * the slower NIC sets the pace).  Between ranks of different sites the WAN
 * values apply instead when given.  A SEND starts when its lane's previous
 * SEND is done, all its blocks have arrived at its rank, and the receiving
 * port is free; receivers serve waiting senders first come, first served.
 */
#ifndef LB_SIM_H
#define LB_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "algos/schedule.h"

struct lb_sim_net {
	double alpha;   /* seconds per transfer (latency, per-message cost) */
	double lane_bw; /* bytes/s of one lane */
	/* Optional per-(rank, lane) values, index rank * lanes + lane; NULL = use
	 * alpha / lane_bw for every rank (heterogeneous platforms). */
	const double *rank_alpha;
	const double *rank_bw;
	/* Optional sites: contiguous equal rank ranges (lb_site_of); transfers
	 * between sites use wan_alpha and wan_bw (wan_bw 0 = no WAN limit
	 * beyond the lanes). */
	uint32_t sites;
	double wan_alpha;
	double wan_bw;
};

struct lb_sim_result {
	double seconds;      /* time the last block reached its last rank */
	uint64_t transfers;  /* SENDs executed */
	uint64_t bytes_moved;
	double *rank_done;   /* optional, caller-owned [ranks]: when each rank
			      * held every block (root: 0) */
};

/* Bytes lb_sim_run allocates for a schedule of these dimensions: an
 * arrival time per (rank, block), a copy of each of its `sends` SENDs and
 * per-(rank, lane) state.  (With lb_sim_run_free the schedule and the
 * arrival times are not held together; this and the schedule's estimate
 * summed stay an upper bound.) */
uint64_t lb_sim_bytes(uint32_t ranks, uint32_t lanes, uint64_t blocks, uint64_t sends);

/* Runs the finalized schedule.  Returns 0, or -1 with a reason in err (bad
 * network parameters, a stuck schedule, out of memory). */
int lb_sim_run(const struct lb_schedule *s, const struct lb_sim_net *net,
	       struct lb_sim_result *res, char *err, size_t errlen);

/* lb_sim_run, freeing s (always) as soon as its SENDs are copied: the
 * schedule and the simulator's arrival times, the two largest parts, then
 * never take memory at the same time. */
int lb_sim_run_free(struct lb_schedule *s, const struct lb_sim_net *net,
		    struct lb_sim_result *res, char *err, size_t errlen);

#endif
