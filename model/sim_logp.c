/* The simulator's LogP mode (LB_PORT_LOGP, model/sim.h; seed 001 section 4,
 * docs/papers.md#model-ports): each rank is one process running its ops in
 * program order, sends eager, receives blocking.
 *
 * The one resource ranks share is a node's NIC cap (its `rate`, LogGP's
 * G): each (rank, lane) a send cap and a receive cap that a message's
 * bytes pass in the order the sends start, as in the bounded model.  On
 * the seed's platforms (no rate: its switched network, nodes sending
 * independently) a message's times follow from its sender's and
 * receiver's clocks alone; with caps, a message's turn depends on the
 * sends that started before it anywhere.  So the ranks run one op at a
 * time in time order: a heap of the runnable ranks by the earliest their
 * next op can start (a SEND's start; a RECV's CPU, a lower bound on the
 * sends after it), which hands out the SENDs in start order; a rank that
 * blocks on a message not yet sent leaves the heap and the send wakes it.
 * Program order crosses lanes (finalize's chain of lanes,
 * algos/schedule.h); messages of a channel (src, dst, lane) are taken in
 * the order they were sent. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_logp.h"
#include "sim_shared.h"
#include "net/platform.h"
#include "lib/error.h"
#include "lib/heap.h"
#include "lib/stop.h"

/* A message sent and not yet taken, in its receiver's list. */
struct pending {
	uint32_t src;
	uint8_t lane;   /* a channel is (src, dst, lane), as in the schedule */
	double arrival; /* in the receiver's buffer */
};

struct logp_rank {
	uint8_t lane;      /* of its next op in program order (LB_LANE_END: done) */
	uint32_t pc;       /* ops run */
	double cpu;        /* when it may start its next op */
	double last_send;  /* start of its last send; -INFINITY before any */
	struct pending *in;
	uint32_t nin, cap;
	uint32_t waits_for; /* the sender it blocks on, or UINT32_MAX */
};

struct logp {
	const struct lb_schedule *s;
	const struct lb_platform *pf;
	struct logp_rank *rank;
	uint32_t *seen;     /* [rank * lanes + lane]: ops of the lane run */
	double *arrival;    /* [rank * nblocks + block]: in its memory */
	double *cap_free;   /* [2 * (rank * lanes + lane)] its send cap free, + 1 its receive cap */
	double *next_at;    /* [rank]: when its next op may start, while it is runnable */
	struct lb_heap runnable; /* ranks by next_at, ties by rank (deterministic) */
	struct lb_sim_result *res;
	char *err;
	size_t errlen;
};

/* Rank r's next op in program order (the order its builder appended its
 * ops in, across lanes: lb_rank_ops' chain of lanes), or NULL at its end. */
static const struct lb_op *next_op(const struct logp *x, uint32_t r)
{
	const struct logp_rank *rk = &x->rank[r];
	const struct lb_rank_ops *ro = &x->s->rank[r];
	if (rk->lane == LB_LANE_END)
		return NULL;
	return &ro->ops[ro->lane_start[rk->lane] + x->seen[(size_t)r * x->s->lanes + rk->lane]];
}

/* Moves rank r past op, its next op. */
static void skip_op(struct logp *x, uint32_t r, const struct lb_op *op)
{
	struct logp_rank *rk = &x->rank[r];
	x->seen[(size_t)r * x->s->lanes + rk->lane]++;
	rk->lane = op->next_lane;
	rk->pc++;
}

/* Takes the message at r's next op: the op and the LB_OP_CONT ops after
 * it.  Returns its bytes; a finite `at` puts its blocks at r then. */
static uint64_t take_message(struct logp *x, uint32_t r, double at)
{
	uint64_t bytes = 0;
	const struct lb_op *op = next_op(x, r);
	do {
		bytes += lb_range_bytes(x->s, op->first_block, op->nblocks);
		for (uint32_t b = op->first_block; at < INFINITY && b < op->first_block + op->nblocks; b++) {
			double *cell = &x->arrival[(size_t)r * x->s->nblocks + b];
			*cell = fmin(*cell, at);
		}
		skip_op(x, r, op);
		op = next_op(x, r);
	} while (op && (op->flags & LB_OP_CONT));
	return bytes;
}

static int push_pending(struct logp_rank *rk, uint32_t src, uint32_t lane, double arrival)
{
	if (rk->nin == rk->cap) {
		uint32_t cap = rk->cap ? 2 * rk->cap : 8;
		struct pending *in = realloc(rk->in, cap * sizeof(*in));
		if (!in)
			return -1;
		rk->in = in, rk->cap = cap;
	}
	rk->in[rk->nin++] = (struct pending){ src, (uint8_t)lane, arrival };
	return 0;
}

/* When rank r's next op (a SEND) may start: its CPU free and its gap since
 * its last send passed. */
static double send_start(const struct logp *x, uint32_t r)
{
	const struct logp_rank *rk = &x->rank[r];
	return fmax(rk->cpu, rk->last_send + x->pf->node[r].gap);
}

/* When the message of `bytes` sent from u to v on lane at `start` is in v's
 * buffer: T_end = lat + occ + bytes / bw after its start (seed 001's T_end,
 * as lb_agent_model_from_platform reads it), or later when its bytes wait
 * for their turn through u's send cap or v's receive cap of the lane (the
 * nodes' `rate`; none without one), lat after their turn ends. */
static double logp_arrival(struct logp *x, uint32_t u, uint32_t v, uint32_t lane, uint64_t bytes,
			   double start, const struct lb_link *l)
{
	double arrival = start + l->lat + l->occ + (double)bytes / l->bw;
	size_t su = (size_t)u * x->s->lanes + lane, sv = (size_t)v * x->s->lanes + lane;
	double sent = lb_sim_through_cap(&x->cap_free[2 * su], start, bytes, x->pf->node[u].rate);
	double got = lb_sim_through_cap(&x->cap_free[2 * sv + 1], start, bytes, x->pf->node[v].rate);
	return fmax(arrival, fmax(sent, got) + l->lat);
}

static void make_runnable(struct logp *x, uint32_t r);

/* A send of `bytes` from u to v: starts when u's CPU is free and its gap
 * since the last send has passed, holds the CPU o_s, and is in v's buffer
 * at logp_arrival.  Wakes v if it waits for u. */
static int logp_send(struct logp *x, uint32_t u, uint32_t v, uint32_t lane, uint64_t bytes)
{
	struct logp_rank *rk = &x->rank[u], *to = &x->rank[v];
	struct lb_link l = lb_platform_link(x->pf, u, v, lane);
	if (!(l.bw > 0))
		return lb_errf(x->err, x->errlen, "sim: rank %u lane %u sends to rank %u over no link",
			       u, lane, v);
	double start = send_start(x, u);
	rk->cpu = start + x->pf->node[u].send;
	rk->last_send = start;
	if (push_pending(to, u, lane, logp_arrival(x, u, v, lane, bytes, start, &l)))
		return lb_errf(x->err, x->errlen, "sim: out of memory for the LogP messages");
	x->res->transfers++, x->res->bytes_moved += bytes;
	if (to->waits_for == u)
		to->waits_for = UINT32_MAX, make_runnable(x, v);
	return 0;
}

/* A receive from u on lane: the oldest message of that channel in v's
 * buffer.  It holds v's CPU o_r and ends no earlier than the message's arrival: v's overhead
 * overlaps the flight when v is idle (T_end, measured by ping-pong, holds
 * it already) and each message taken from a busy v's buffer costs o_r --
 * seed 001's Definition 1, T_r(j) = max(T_r(j-1) + T_recv, T_end(j)).
 * Its blocks are in memory at the end.  0 taken, 1 none there yet. */
static int logp_recv(struct logp *x, uint32_t v, uint32_t u, uint32_t lane)
{
	struct logp_rank *rk = &x->rank[v];
	uint32_t j = 0;
	while (j < rk->nin && (rk->in[j].src != u || rk->in[j].lane != lane))
		j++;
	if (j == rk->nin)
		return 1;
	double done = fmax(rk->cpu + x->pf->node[v].recv, rk->in[j].arrival);
	memmove(rk->in + j, rk->in + j + 1, (rk->nin - j - 1) * sizeof(*rk->in));
	rk->nin--;
	rk->cpu = done;
	take_message(x, v, done);
	return 0;
}

/* The heap's key of runnable rank r: when its next op may start (a
 * RECV's: its CPU free, no later than any send after it). */
static double next_time(const struct logp *x, uint32_t r)
{
	const struct lb_op *op = next_op(x, r);
	return op->kind == LB_SEND ? send_start(x, r) : x->rank[r].cpu;
}

/* Rank r can run: queued by when its next op may start, which stays as it
 * is until r runs again (only r's own ops move its clock and program
 * counter; the others' sends only add to its buffer). */
static void make_runnable(struct logp *x, uint32_t r)
{
	x->next_at[r] = next_time(x, r);
	lb_heap_push(&x->runnable, r);
}

/* Rank r's next op in program order; back in the heap unless it ended or
 * blocked on a receive. */
static int logp_step(struct logp *x, uint32_t r)
{
	const struct lb_op *op = next_op(x, r);
	if (op->kind == LB_SEND) {
		uint32_t peer = op->peer, lane = op->lane;
		if (logp_send(x, r, peer, lane, take_message(x, r, INFINITY)))
			return -1;
	} else if (logp_recv(x, r, op->peer, op->lane)) {
		x->rank[r].waits_for = op->peer;
		return 0;
	}
	if (next_op(x, r))
		make_runnable(x, r);
	return 0;
}

/* What the LogP mode cannot run: a barrier (seed 001's model has none:
 * HBSP's supersteps are the other models' business), an op on a lane out
 * of range (the validator names it). */
static int logp_check(const struct lb_schedule *s, char *err, size_t len)
{
	if (s->groups)
		return lb_errf(err, len, "sim: the logp model runs no barriers (schedule %s has %u groups)",
			       s->algo, s->groups);
	for (uint32_t r = 0; r < s->ranks; r++)
		if (s->rank[r].lane_start[s->lanes] != s->rank[r].count)
			return lb_errf(err, len, "sim: %s's rank %u has an op on a lane out of range",
				       s->algo, r);
	return 0;
}

static int logp_alloc(struct logp *x)
{
	const struct lb_schedule *s = x->s;
	size_t cells = (size_t)s->ranks * s->nblocks;
	x->rank = calloc(s->ranks, sizeof(*x->rank));
	x->seen = calloc((size_t)s->ranks * s->lanes, sizeof(*x->seen));
	x->arrival = malloc(cells * sizeof(double));
	x->cap_free = calloc(2 * (size_t)s->ranks * s->lanes, sizeof(double));
	x->next_at = malloc(s->ranks * sizeof(double));
	if (!x->rank || !x->seen || !x->arrival || !x->cap_free || !x->next_at ||
	    lb_heap_init(&x->runnable, s->ranks, LB_HEAP_TIES_BY_ID, x->next_at))
		return lb_errf(x->err, x->errlen, "sim: out of memory for %u ranks x %u blocks",
			       s->ranks, s->nblocks);
	for (size_t c = 0; c < cells; c++)
		x->arrival[c] = INFINITY;
	for (uint32_t b = 0; b < s->nblocks; b++)
		x->arrival[(size_t)(s->owner ? s->owner[b] : s->root) * s->nblocks + b] = 0;
	for (uint32_t r = 0; r < s->ranks; r++) {
		x->rank[r] = (struct logp_rank){ .lane = s->rank[r].first_lane,
						 .last_send = -INFINITY, .waits_for = UINT32_MAX };
		if (next_op(x, r))
			make_runnable(x, r);
	}
	return 0;
}

/* Every rank ran to its end, or the first that did not. */
static int logp_stuck(const struct logp *x)
{
	for (uint32_t r = 0; r < x->s->ranks; r++) {
		const struct lb_op *op = next_op(x, r);
		if (op)
			return lb_errf(x->err, x->errlen, "simulation stuck: rank %u waits at op %u (program order) for a message from rank %u (schedule not valid?)",
				       r, x->rank[r].pc, op->peer);
	}
	return 0;
}

static void logp_free(struct logp *x)
{
	for (uint32_t r = 0; x->rank && r < x->s->ranks; r++)
		free(x->rank[r].in);
	lb_heap_free(&x->runnable);
	free(x->next_at);
	free(x->rank), free(x->seen), free(x->arrival), free(x->cap_free);
}

int lb_sim_logp(const struct lb_schedule *s, const struct lb_sim_net *net,
		struct lb_sim_result *res, char *err, size_t errlen)
{
	struct logp x = { .s = s, .pf = net->platform, .res = res, .err = err, .errlen = errlen };
	res->transfers = res->bytes_moved = 0;
	if (s->sends_only)
		return lb_errf(err, errlen, "sim: the logp model needs the schedule's RECVs (built sends_only)");
	int rc = logp_check(s, err, errlen) || logp_alloc(&x) ? -1 : 0;
	for (uint32_t steps = 1; rc == 0 && x.runnable.n; steps++) {
		if (steps % LB_STOP_POLL_EVERY == 0 && lb_stop_requested())
			rc = lb_errf(err, errlen, "sim: stopped");
		else
			rc = logp_step(&x, lb_heap_pop(&x.runnable));
	}
	if (rc == 0)
		rc = logp_stuck(&x);
	if (rc == 0)
		rc = lb_sim_collect(s, x.arrival, 0, res, err, errlen);
	logp_free(&x);
	return rc ? -1 : 0;
}
