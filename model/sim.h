/* The simulator: executes a whole schedule for all ranks in one process as a
 * discrete-event simulation under the alpha-beta model, or on a platform
 * (net/platform.h) with per-pair values.
 *
 * One transfer of n bytes from (src, lane) to (dst, lane) has
 *   - an occupation T: the time it holds ports (below);
 *   - a latency lat: time in flight after the occupation, holding nothing.
 * Its blocks arrive at dst at start + T + lat, so a pipelined stream of slices
 * pays lat once per path, not once per slice (docs/papers.md#model-timing).
 *   Without a platform: T = alpha + n / B, alpha the larger and B the
 *   smaller of the two ends' values (rank_alpha / rank_bw when given: a
 *   switched fabric, the slower NIC sets the pace), and lat = latency.
 *   Between ranks of different sites wan_alpha replaces alpha, wan_latency
 *   replaces latency, and wan_bw caps B when given.
 *   With a platform: T = occ + n / bw and lat of lb_platform_link(src, dst,
 *   lane); alpha, lane_bw, the rank and site values and both latencies are
 *   not read.  A SEND over a pair with no link fails the run.
 *
 * A block is at a rank from the first arrival of any copy of it there,
 * transit copies (LB_OP_TRANSIT, a relay's routed pass) included: RECVs
 * need no action of their own.
 *
 * A SEND starts when all its blocks have arrived at its rank, its lane's
 * previous SEND allows it, and the resources its port model needs are
 * free; a busy resource serves waiting SENDs first come, first served (by
 * the time each could have started, then by rank and lane).  The models:
 *   LB_PORT_PER_LANE (default): each lane of each rank has one send port and
 *     one receive port (full duplex).  A transfer holds src's send port and
 *     dst's receive port for T; the lane's next SEND may start at its end.
 *     With one lane this is seed 000's bidirectional one-port model.
 *   LB_PORT_ONE_PORT_UNI: each lane of each rank has one port that its sends
 *     and receives share.  A transfer holds src's port and dst's port for T
 *     (seed 000's unidirectional one-port model when there is one lane).
 * LB_PORT_MULTI (needs a platform; docs/papers.md#model-timing, seed 000
 * section 3.2): each
 *     rank has one CPU across its lanes, busy node[src].send from the start
 *     of each of its SENDs; a directed link (src, dst, lane) carries one
 *     transfer at a time, for T; dst's receive port of the lane is held for
 *     T.  The lane's next SEND may start once the CPU is free, so transfers
 *     of one sender to different peers overlap: a rank that sends each slice
 *     to d children on one lane sends one every max(d * send, max T).
 *   LB_PORT_BOUNDED (needs a platform): bounded multi-port.  As multi-port
 *     (CPU per rank, one transfer at a time per directed link), but no
 *     receive port is held: a rank's concurrent transfers share caps
 *     instead, each (rank, lane) a send cap and a receive cap of its
 *     node's `rate` (the NIC cap of net/platform.h; 0: no cap).  The
 *     bytes of a rank's sends on a lane pass its send cap one transfer after
 *     the other, in start order, at the cap's rate, and likewise the bytes
 *     it receives pass its receive cap; a transfer of n bytes started at t
 *     ends at the latest of t + T, its turn through the sender's cap
 *     (max(t, cap free) + n / rate) and its turn through the receiver's.
 *     For transfers that start together the last ends when fair sharing of
 *     the cap would end them all (n_total / rate) as long as the links do
 *     not bind; the earlier ones end sooner than under sharing, and a link
 *     slower than its share makes the cap's bound optimistic.  Ends are
 *     fixed when a transfer starts, as for the other models.  The two
 *     turns are taken at different times, where a flow passes both caps
 *     at once, and the link is held to the later: with fast and slow
 *     nodes mixed, a slow node's transfers to slow peers wait for
 *     receive caps that fast senders took first, its links are all held
 *     and its send cap idles, so the model is pessimistic there
 *     (allgather-simultaneous on 4 fast + 4 slow nodes, 4-8 MiB: 1.43-1.54
 *     x the slow nodes' receive bound, which fluid reaches; on equal nodes
 *     both give the bound).
 *   LB_PORT_FLUID: flow level, as TCP streams share a shaped port.  The
 *     transfers in progress share bandwidth max-min fairly (model/fluid.h:
 *     progressive filling, rates recomputed whenever a transfer starts or
 *     ends) through these resources: each (rank, lane) a send port and a
 *     receive port, and without a platform each ordered pair of sites a
 *     WAN link per lane.  Without a platform a port passes its rank's lane
 *     bandwidth (rank_bw, else lane_bw) and a WAN link wan_bw (0: none);
 *     on a platform a port passes its node's `rate` (0: no limit) and a
 *     transfer at most its link's bw.  A transfer's bytes flow from its
 *     start; then it holds its link (src, dst, lane) alpha (or wan_alpha;
 *     a platform's occ) more without bandwidth, and its blocks arrive lat
 *     after that.  As the executor posts every SEND whose blocks are
 *     there, the lane hands each SEND, once its blocks have arrived, to
 *     its directed link (src, dst, lane) and goes on to its next at once
 *     (on a platform when its node's CPU is free, node.send after the
 *     last); a link is a TCP stream: it carries one transfer at a time and
 *     queues the others in the lane's order, so a busy link holds up only
 *     its own SENDs, and a rank's streams to different peers overlap and
 *     share its port.  A barrier is reached once the lane's transfers have
 *     ended.  A transfer is two or three events (its start, its end, and
 *     its link's release when a SEND is queued behind it), and starts and
 *     ends recompute the rates of the transfers that share a resource
 *     with it, transitively (model/fluid.h); ends are not fixed at the
 *     start, the other models' shortcut.  With share LB_SHARE_RTT the
 *     sharing is weighted max-min, as TCP Reno/CUBIC streams through one
 *     bottleneck get rates about inverse to their round trips: a
 *     transfer's weight is 1 / RTT, RTT = 2 x (its overhead + its
 *     latency), the two times it spends without bandwidth (alpha and
 *     latency, between sites wan_alpha and wan_latency; on a platform its
 *     link's occ and lat), at least 1 ns so that a net of neither shares
 *     fairly.  Nothing in it is fitted to a measurement.
 *   LB_PORT_LOGP (needs a platform; seed 001 section 4, docs/papers.md#seed001;
 *     model/sim_logp.c): LogP with eager messages.  Each rank is one
 *     process that runs its ops in program order: the order its builder
 *     appended them in, across lanes (first_lane and next_lane,
 *     algos/schedule.h); no barriers (refused: seed 001's model has none).  A message is an op and the LB_OP_CONT ops after it.
 *     A SEND starts when the rank's CPU is free and `gap` has passed since
 *     its previous send start, holds the CPU node[src].send (o_s), and is
 *     in dst's buffer lat + occ + bytes / bw after its start (seed 001's
 *     T_end, from the start of the send) whether or not dst is receiving:
 *     a send never waits for its receiver.  A RECV blocks until its peer's
 *     oldest message not yet taken is there; it ends at the later of the
 *     CPU free + node[dst].recv (o_r) and the message's arrival (the
 *     receiver's overhead overlaps the flight when it is idle, and a
 *     message queued at a busy receiver costs o_r: seed 001's gather
 *     recurrence), and its blocks are at the rank then.  The one resource
 *     ranks share is a node's NIC cap, LogGP's G: on a platform whose
 *     nodes carry a `rate`, each (rank, lane) has a send cap and a
 *     receive cap, as in the bounded model, that a message's bytes pass
 *     one message after the other in the order the sends start; the
 *     message is in dst's buffer at the later of the start + T_end and
 *     lat after its turn through both caps ends.  A node that receives
 *     7 messages of m at once takes 7 m / rate, not m / rate (without the
 *     caps the mode predicted scripts/bench-allgather's cluster-agent
 *     rows 7-9 times too fast).  The seed's platforms have no rate: its
 *     switched network, nodes sending independently.
 */
#ifndef LB_SIM_H
#define LB_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "algos/schedule.h"

struct lb_platform;

enum lb_port_model {
	LB_PORT_PER_LANE = 0, /* one send and one receive port per lane */
	LB_PORT_ONE_PORT_UNI, /* one port per lane, sends and receives share it */
	LB_PORT_MULTI,        /* CPU per rank, links overlap: see above */
	LB_PORT_BOUNDED,      /* multi-port, a rank's transfers sharing its NIC caps */
	LB_PORT_FLUID,        /* transfers share ports (and the WAN) max-min fairly */
	LB_PORT_LOGP,         /* a process per rank in program order, eager: see above */
};

/* How the fluid model's flows share a resource. */
enum lb_fluid_share {
	LB_SHARE_FAIR = 0, /* max-min fair */
	LB_SHARE_RTT,      /* weighted max-min, a flow's weight 1 / its round trip */
};

struct lb_sim_net {
	double alpha;   /* seconds of port occupation per transfer (per-message cost) */
	double lane_bw; /* bytes/s of one lane */
	/* Optional per-(rank, lane) values, index rank * lanes + lane; NULL = use
	 * alpha / lane_bw for every rank (heterogeneous platforms). */
	const double *rank_alpha;
	const double *rank_bw;
	/* Optional sites: contiguous rank ranges, the map site_first
	 * ([sites + 1], algos/sites.h) or when NULL equal ones (lb_site_of);
	 * transfers between sites use wan_alpha and wan_bw (wan_bw 0 = no WAN
	 * limit beyond the lanes). */
	uint32_t sites;
	const uint32_t *site_first;
	double wan_alpha;
	double wan_bw;
	/* Seconds in flight, added to arrival times only (no port held): within
	 * a site and between sites.  0 = none (alpha is all of it). */
	double latency;
	double wan_latency;
	/* Sealed platform whose nodes are the ranks, or NULL for the rules
	 * above; it has at least the schedule's lanes. */
	const struct lb_platform *platform;
	enum lb_port_model model;
	enum lb_fluid_share share; /* LB_PORT_FLUID only */
};

struct lb_sim_result {
	double seconds;      /* time the last block reached its last rank */
	uint64_t transfers;  /* SENDs executed */
	uint64_t bytes_moved;
	/* Steady state at the slowest rank (the last to hold every block; the
	 * root when there is one rank): (t_S - t_h) / (S - h), S blocks,
	 * h = ceil(S / 2), t_k its k-th arrival in time (docs/papers.md#model-period);
	 * 0 when S == 1. */
	double period;
	double *rank_done;   /* optional, caller-owned [ranks]: when each rank
			      * held every block (root: 0) */
};

/* Bytes lb_sim_run allocates for a schedule of these dimensions at most:
 * an arrival time per (rank, block) (fewer where a rank's blocks move in
 * runs: one per segment, model/sim.c) and the segments' map, a copy of
 * each of its `sends` SENDs and per-(rank, lane) state.  (With lb_sim_run_free the schedule and the
 * arrival times are not held together; this and the schedule's estimate
 * summed stay an upper bound.) */
uint64_t lb_sim_bytes(uint32_t ranks, uint32_t lanes, uint64_t blocks, uint64_t sends);

/* What a run on a platform adds per SEND to lb_sim_bytes: its occupation,
 * latency and (multi-port) link, resolved once, and at most one link's
 * free time; and per rank, multi-port and bounded only: its CPU and the
 * numbering of its links; per (rank, lane), bounded only: when its send
 * and receive caps are free. */
#define LB_SIM_PLATFORM_SEND_BYTES 32u
#define LB_SIM_MULTI_PORT_RANK_BYTES 16u
#define LB_SIM_BOUNDED_SLOT_BYTES 16u

/* What the fluid model adds, at most: per SEND its link's index (the
 * platform's 32 bytes) and its place in its link's queue, and (a link per
 * SEND at most) its link's free time, transfer in progress, release and
 * flow (model/fluid.h: the flow, its places in the order and the heap of
 * ends, and scratch); per (rank, lane) its two ports' limits, list heads,
 * marks and scratch and its count of SENDs not ended; per WAN link
 * (sites^2 x lanes) the same as a port. */
#define LB_SIM_FLUID_SEND_BYTES 256u
#define LB_SIM_FLUID_SLOT_BYTES 72u
#define LB_SIM_FLUID_WAN_BYTES 32u

/* Runs the finalized schedule.  Returns 0, or -1 with a reason in err (bad
 * network parameters, a SEND over a missing link naming rank, lane and
 * peer, a stuck schedule, out of memory). */
int lb_sim_run(const struct lb_schedule *s, const struct lb_sim_net *net,
	       struct lb_sim_result *res, char *err, size_t errlen);

/* lb_sim_run, freeing s (always) as soon as its SENDs are copied: the
 * schedule and the simulator's arrival times, the two largest parts, then
 * never take memory at the same time. */
int lb_sim_run_free(struct lb_schedule *s, const struct lb_sim_net *net,
		    struct lb_sim_result *res, char *err, size_t errlen);

#endif
