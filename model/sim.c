/* Discrete-event simulation of a schedule under the alpha-beta model (see
 * sim.h for the model).  Events are the starts of SENDs, taken in time
 * order from a heap holding at most one entry per (rank, lane): the lane's
 * next SEND once its blocks' arrival times are known.  Arrival times are
 * fixed when a transfer starts, so every later event is at or after the
 * current one and no event is ever revised.
 *
 * At 16,384 ranks the run is bound by memory latency, not arithmetic, so
 * the state is laid out for it: each lane's SENDs are copied once into one
 * compact array (RECVs need no action here, and skipping them in the
 * schedule cost a cache miss per op), and a queued SEND travels in its
 * event. */
#include "sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include "lib/error.h"
#include "lib/memory.h"

/* A SEND as the simulator needs it: to whom, which blocks. */
struct send {
	uint32_t peer;
	uint32_t first_block;
	uint32_t nblocks;
};

/* The SEND rides in its event, so starting it reads no schedule memory. */
struct event {
	double at;      /* when the SEND can start */
	double ready;   /* when it first could have (FCFS at busy receivers) */
	uint32_t slot;  /* rank * lanes + lane */
	struct send op;
};

/* Per-(rank, lane) state lives in small parallel arrays indexed by slot
 * (rank * lanes + lane): each stays in cache at 65,536 slots. */
struct sim {
	const struct lb_schedule *s;
	const struct lb_sim_net *net;
	double *arrival;    /* [rank * nblocks + block], INFINITY = not yet */
	double *send_free;  /* [slot] */
	double *recv_free;  /* [slot] */
	size_t *next;       /* [slot]: its next SEND in sends */
	size_t *end;        /* [slot]: one past its last SEND */
	uint8_t *waiting;   /* [slot]: the next SEND waits for a block */
	struct send *sends; /* every lane's SENDs, lane after lane, in order */
	struct event *heap;
	size_t nheap;
	struct lb_sim_result *res;
};

/* Times are never NaN (check_net), so a comparison does what fmax and
 * fmin do, without the library call they compile to. */
static inline double later(double a, double b)
{
	return a < b ? b : a;
}

static inline double earlier(double a, double b)
{
	return b < a ? b : a;
}

static int before(const struct event *a, const struct event *b)
{
	if (a->at != b->at)
		return a->at < b->at;
	if (a->ready != b->ready)
		return a->ready < b->ready;
	return a->slot < b->slot;
}

/* A 4-ary heap: half the levels of a binary one, and a node's children
 * share two cache lines.  (at, ready, slot) orders events totally, so the
 * events come out in the same order from any heap. */
#define ARITY 4

static void heap_push(struct sim *x, struct event ev)
{
	size_t i = x->nheap++;
	while (i > 0 && before(&ev, &x->heap[(i - 1) / ARITY])) {
		x->heap[i] = x->heap[(i - 1) / ARITY];
		i = (i - 1) / ARITY;
	}
	x->heap[i] = ev;
}

/* Puts ev at the root, in place of the top, and sifts it down. */
static void heap_replace_top(struct sim *x, struct event ev)
{
	size_t i = 0, n = x->nheap;
	for (;;) {
		size_t c = ARITY * i + 1, best = c;
		if (c >= n)
			break;
		for (size_t j = c + 1; j < c + ARITY && j < n; j++)
			if (before(&x->heap[j], &x->heap[best]))
				best = j;
		if (!before(&x->heap[best], &ev))
			break;
		x->heap[i] = x->heap[best];
		i = best;
	}
	x->heap[i] = ev;
}

static struct event heap_pop(struct sim *x)
{
	struct event top = x->heap[0], last = x->heap[--x->nheap];
	if (x->nheap)
		heap_replace_top(x, last);
	return top;
}

/* The lane's next SEND, or NULL when it has sent everything. */
static const struct send *head_send(const struct sim *x, uint32_t slot)
{
	return x->next[slot] < x->end[slot] ? &x->sends[x->next[slot]] : NULL;
}

/* Queues the lane's next SEND if all its blocks have arrival times. */
static void try_ready(struct sim *x, uint32_t slot)
{
	const struct send *op = head_send(x, slot);
	x->waiting[slot] = 0;
	if (!op)
		return;
	const double *arr = x->arrival + (size_t)(slot / x->s->lanes) * x->s->nblocks;
	double ready = x->send_free[slot];
	for (uint32_t b = op->first_block; b < op->first_block + op->nblocks; b++) {
		if (isinf(arr[b])) {
			x->waiting[slot] = 1;
			return;
		}
		ready = later(ready, arr[b]);
	}
	heap_push(x, (struct event){ ready, ready, slot, *op });
}

static uint32_t site(const struct sim *x, uint32_t r)
{
	return lb_site_of(x->s->ranks, x->net->sites, r);
}

/* alpha + n / B for one transfer: the slower end sets the pace. */
static double transfer_time(const struct sim *x, uint32_t src, uint32_t dst,
			    uint32_t lane, uint64_t bytes)
{
	const struct lb_sim_net *net = x->net;
	size_t i = (size_t)src * x->s->lanes + lane, j = (size_t)dst * x->s->lanes + lane;
	double alpha = net->alpha, bw = net->lane_bw;
	if (net->rank_alpha)
		alpha = fmax(net->rank_alpha[i], net->rank_alpha[j]);
	if (net->rank_bw)
		bw = fmin(net->rank_bw[i], net->rank_bw[j]);
	if (net->sites > 1 && site(x, src) != site(x, dst)) {
		alpha = net->wan_alpha;
		if (net->wan_bw > 0)
			bw = fmin(bw, net->wan_bw);
	}
	return alpha + (double)bytes / bw;
}

/* Starts the SEND of ev (receiver free) and releases what it unblocks. */
static void start_send(struct sim *x, const struct event *ev)
{
	const struct lb_schedule *s = x->s;
	const struct send *op = &ev->op;
	uint32_t src = ev->slot / s->lanes, lane = ev->slot % s->lanes;
	uint32_t dslot = op->peer * s->lanes + lane;
	uint64_t bytes = lb_range_bytes(s, op->first_block, op->nblocks);
	double end = ev->at + transfer_time(x, src, op->peer, lane, bytes);
	double *arr = x->arrival + (size_t)op->peer * s->nblocks;
	for (uint32_t b = op->first_block; b < op->first_block + op->nblocks; b++)
		arr[b] = earlier(arr[b], end);
	x->send_free[ev->slot] = end;
	x->recv_free[dslot] = end;
	x->res->transfers++;
	x->res->bytes_moved += bytes;
	x->next[ev->slot]++;
	try_ready(x, ev->slot);
	for (uint32_t l = 0; l < s->lanes; l++)
		if (x->waiting[op->peer * s->lanes + l])
			try_ready(x, op->peer * s->lanes + l);
}

static void run_events(struct sim *x)
{
	while (x->nheap) {
		struct event ev = x->heap[0];
		uint32_t dslot = ev.op.peer * x->s->lanes + ev.slot % x->s->lanes;
		if (x->recv_free[dslot] > ev.at) {
			ev.at = x->recv_free[dslot]; /* receiver busy: wait */
			heap_replace_top(x, ev);
			continue;
		}
		heap_pop(x);
		start_send(x, &ev);
	}
}

/* Completion times, or the first lane that never finished. */
static int collect(struct sim *x, char *err, size_t len)
{
	const struct lb_schedule *s = x->s;
	for (uint32_t slot = 0; slot < s->ranks * s->lanes; slot++) {
		const struct send *op = head_send(x, slot);
		if (op)
			return lb_errf(err, len, "simulation stuck: rank %u lane %u cannot send blocks [%u,%u) to rank %u (schedule not valid?)",
				    slot / s->lanes, slot % s->lanes, op->first_block,
				    op->first_block + op->nblocks, op->peer);
	}
	x->res->seconds = 0;
	for (uint32_t r = 0; r < s->ranks; r++) {
		const double *arr = x->arrival + (size_t)r * s->nblocks;
		double done = 0;
		for (uint32_t b = 0; b < s->nblocks; b++)
			done = later(done, arr[b]);
		if (isinf(done))
			return lb_errf(err, len, "simulation: rank %u never receives every block (schedule not valid?)", r);
		if (x->res->rank_done)
			x->res->rank_done[r] = done;
		x->res->seconds = fmax(x->res->seconds, done);
	}
	return 0;
}

static int check_net(const struct lb_schedule *s, const struct lb_sim_net *net,
		     char *err, size_t len)
{
	if (!(net->alpha >= 0) || !isfinite(net->alpha))
		return lb_errf(err, len, "sim: bad alpha %g s (need >= 0)", net->alpha);
	if (!(net->lane_bw > 0) || !isfinite(net->lane_bw))
		return lb_errf(err, len, "sim: bad lane bandwidth %g B/s (need > 0)", net->lane_bw);
	if (net->sites > s->ranks)
		return lb_errf(err, len, "sim: %u sites for %u ranks", net->sites, s->ranks);
	if (net->sites > 1 && (!(net->wan_alpha >= 0) || net->wan_bw < 0))
		return lb_errf(err, len, "sim: bad WAN alpha %g s or bandwidth %g B/s",
			    net->wan_alpha, net->wan_bw);
	for (size_t i = 0; i < (size_t)s->ranks * s->lanes; i++)
		if ((net->rank_alpha && !(net->rank_alpha[i] >= 0)) ||
		    (net->rank_bw && !(net->rank_bw[i] > 0)))
			return lb_errf(err, len, "sim: bad alpha or bandwidth for rank %zu lane %zu",
				    i / s->lanes, i % s->lanes);
	return 0;
}

uint64_t lb_sim_bytes(uint32_t ranks, uint32_t lanes, uint64_t blocks, uint64_t sends)
{
	uint64_t per_slot = 2 * sizeof(double) + 2 * sizeof(size_t) + 1 + sizeof(struct event);
	uint64_t arrival = lb_mul_sat(lb_mul_sat(ranks, blocks), sizeof(double));
	return lb_add_sat(lb_add_sat(arrival, lb_mul_sat(sends, sizeof(struct send))),
			  (uint64_t)ranks * lanes * per_slot);
}

/* Copies every lane's SENDs of s, in lane order, into x->sends. */
static int gather_sends(struct sim *x, const struct lb_schedule *s)
{
	size_t total = 0, slot = 0;
	for (uint32_t r = 0; r < s->ranks; r++)
		for (uint32_t i = 0; i < s->rank[r].count; i++)
			total += s->rank[r].ops[i].kind == LB_SEND;
	x->sends = lb_alloc_large(total * sizeof(*x->sends));
	if (!x->sends)
		return -1;
	total = 0;
	for (uint32_t r = 0; r < s->ranks; r++) {
		for (uint32_t l = 0; l < s->lanes; l++, slot++) {
			uint32_t n;
			const struct lb_op *ops = lb_lane_ops(s, r, l, &n);
			x->next[slot] = total;
			for (uint32_t i = 0; i < n; i++)
				if (ops[i].kind == LB_SEND)
					x->sends[total++] = (struct send){ ops[i].peer, ops[i].first_block,
									   ops[i].nblocks };
			x->end[slot] = total;
		}
	}
	return 0;
}

/* Nothing has arrived yet except at the root, which holds every block. */
static void clear_arrivals(struct sim *x)
{
	const struct lb_schedule *s = x->s;
	for (uint32_t r = 0; r < s->ranks; r++) {
		double *row = x->arrival + (size_t)r * s->nblocks;
		double t = r == s->root ? 0 : INFINITY;
		for (uint32_t b = 0; b < s->nblocks; b++)
			row[b] = t;
	}
}

/* The schedule is many small blocks inside malloc's heap: freed, they stay
 * resident until the heap is trimmed (glibc's free trims only its top). */
static void give_back_freed(void)
{
#ifdef __GLIBC__
	malloc_trim(0);
#endif
}

/* Runs s; a non-NULL to_free (s itself) is freed once its SENDs are
 * copied, before the arrival times are allocated, so that the two never
 * take memory together. */
static int sim_run(const struct lb_schedule *s, struct lb_schedule *to_free,
		   const struct lb_sim_net *net, struct lb_sim_result *res, char *err,
		   size_t errlen)
{
	if (!s->finalized)
		return lb_errf(err, errlen, "sim: schedule not finalized");
	if (check_net(s, net, err, errlen))
		return -1;
	struct lb_schedule dims = *s; /* what the run reads of s, s->rank aside */
	dims.rank = NULL;
	size_t slots = (size_t)s->ranks * s->lanes, cells = (size_t)s->ranks * s->nblocks;
	struct sim x = {
		.s = &dims, .net = net, .res = res,
		.send_free = calloc(slots, sizeof(double)),
		.recv_free = calloc(slots, sizeof(double)),
		.next = calloc(slots, sizeof(size_t)),
		.end = calloc(slots, sizeof(size_t)),
		.waiting = calloc(slots, 1),
		.heap = malloc(slots * sizeof(struct event)),
	};
	int rc = -1, gathered = x.next && x.end && gather_sends(&x, s) == 0;
	if (to_free) {
		lb_sched_free(to_free);
		give_back_freed();
	}
	res->transfers = res->bytes_moved = 0;
	if (gathered)
		x.arrival = lb_alloc_large(cells * sizeof(double));
	if (!x.arrival || !x.send_free || !x.recv_free || !x.waiting || !x.heap) {
		lb_errf(err, errlen, "sim: out of memory for %u ranks x %u blocks",
		     dims.ranks, dims.nblocks);
		goto out;
	}
	clear_arrivals(&x);
	for (uint32_t slot = 0; slot < slots; slot++)
		try_ready(&x, slot);
	run_events(&x);
	rc = collect(&x, err, errlen);
out:
	free(x.arrival);
	free(x.send_free);
	free(x.recv_free);
	free(x.next);
	free(x.end);
	free(x.waiting);
	free(x.sends);
	free(x.heap);
	return rc;
}

int lb_sim_run(const struct lb_schedule *s, const struct lb_sim_net *net,
	       struct lb_sim_result *res, char *err, size_t errlen)
{
	return sim_run(s, NULL, net, res, err, errlen);
}

int lb_sim_run_free(struct lb_schedule *s, const struct lb_sim_net *net,
		    struct lb_sim_result *res, char *err, size_t errlen)
{
	return sim_run(s, s, net, res, err, errlen);
}
