/* Barriers on real transports (seed 004's supersteps; algos/schedule.h's
 * LB_BARRIER): each BARRIER op of a lane is expanded, before the run, into
 * zero-byte messages on that lane, with the group's first member as its
 * leader:
 *   a member:   TOKEN_SEND to the leader, then RELEASE_RECV from it;
 *   the leader: a TOKEN_RECV from each other member, LOCAL (its own lanes
 *               meet), then a RELEASE_SEND to each other member.
 * The executor posts a TOKEN_SEND once every earlier op of the lane has
 * completed, passes LOCAL once every lane of the rank is there (and the
 * tokens are in), and lets no op after a RELEASE_RECV or a TOKEN_RECV
 * start before it completes: so nothing after the barrier starts before
 * every lane of every member has done everything before it.  The tokens
 * ride on the lanes' own channels, in order with the data, so they need no
 * connection of their own, only the leader <-> member pairs
 * (lb_sched_lane_peers lists them).  Why not the bootstrap's barrier: it
 * is the whole job's, on the main thread, over the rendezvous connection;
 * a group barrier between lane threads would have to drag in every rank,
 * and its time would not be the network's. */
#ifndef LB_EXEC_BARRIER_H
#define LB_EXEC_BARRIER_H

#include <stdint.h>

#include "algos/schedule.h"

/* The executor's own op kinds, after LB_SEND, LB_RECV and LB_BARRIER. */
enum lb_xop_kind {
	LB_XOP_TOKEN_SEND = 3,
	LB_XOP_TOKEN_RECV,
	LB_XOP_RELEASE_SEND,
	LB_XOP_RELEASE_RECV,
	LB_XOP_LOCAL,
};

/* Posted to the transport as a receive / as a send. */
static inline int lb_xop_is_recv(uint8_t kind)
{
	return kind == LB_RECV || kind == LB_XOP_TOKEN_RECV || kind == LB_XOP_RELEASE_RECV;
}

static inline int lb_xop_is_send(uint8_t kind)
{
	return kind == LB_SEND || kind == LB_XOP_TOKEN_SEND || kind == LB_XOP_RELEASE_SEND;
}

/* Rank r's ops on `lane` with every BARRIER expanded (a group of one rank
 * orders nothing between ranks: nothing).  *out is malloc'd, or NULL when
 * the schedule has no barriers (use its ops as they are).  0, or -1 when
 * out of memory. */
int lb_exec_expand(const struct lb_schedule *s, uint32_t r, uint32_t lane,
		   struct lb_op **out, uint32_t *n);

#endif
