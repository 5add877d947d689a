/* Discrete-event simulation of a schedule under the alpha-beta model or on
 * a platform, with a port model (see sim.h for the models).  Events are the starts of SENDs, taken in time
 * order from a queue holding at most one entry per (rank, lane): the lane's
 * next SEND once its blocks' arrival times are known.  Arrival times are
 * fixed when a transfer starts, so every later event is at or after the
 * current one and no event is ever revised.
 *
 * At 16,384 ranks the run is bound by memory latency, not arithmetic, so
 * the state is laid out for it: each lane's SENDs are copied once into one
 * compact array (RECVs need no action here, and skipping them in the
 * schedule cost a cache miss per op), and a queued SEND travels in its
 * event.  On a platform each SEND's occupation and latency sit in an array
 * beside, resolved once; without one the per-lane path reads nothing more
 * per event than it did before latency and port models (a test of the
 * model, the same branch every time).  Arrival times are kept per
 * segment of a rank's blocks (struct cells), and a schedule built for the
 * run (lb_sim_run_free) loses each rank's ops as they are copied, so the
 * two never take their sum. */
#include "sim.h"
#include "sim_private.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include "algos/platform.h"
#include "algos/sites.h"
#include "fluid.h"
#include "lib/error.h"
#include "lib/memory.h"
#include "lib/stop.h"

/* A SEND as the simulator needs it: to whom, which blocks.  Schedules
 * with barriers add marks to the stream, told by peer: a RECV's blocks
 * (placed just before the lane's next BARRIER: the lane has reached it once
 * they have arrived, yet its SENDs never wait for them) and the BARRIER
 * itself (first_block = its group). */
struct send {
	uint32_t peer;
	uint32_t first_block;
	uint32_t nblocks;
};

#define MARK_RECV (UINT32_MAX - 1)
#define MARK_BARRIER UINT32_MAX

/* A SEND's costs on a platform, resolved once when it is copied (a link
 * lookup per event would cost a search of the platform's rules). */
struct send_cost {
	double occupation; /* occ + n / bw: ports held */
	double latency;    /* in flight after that */
	uint32_t link;     /* multi-port: its directed link's index in link_free */
};

/* Fluid: a directed link's transfer in progress (one at a time) and the
 * SENDs queued behind it, in the lane's order (indices into sends, linked
 * through queued_next), as a TCP connection's send queue. */
#define NO_SEND SIZE_MAX

struct in_flight {
	struct send op;
	uint32_t slot;   /* its sender's lane */
	int busy;        /* a transfer in progress or in its overhead */
	double overhead; /* alpha or occ: after its bytes, no bandwidth held */
	double latency;  /* in flight after that */
	size_t head, tail; /* queued SENDs, NO_SEND: none */
};

/* Fluid: a link's overhead ends, its next queued SEND may start.  The
 * releases are a heap of these, not of link ids on lib/heap: with the
 * times in a release_at[link] array the sifts read it at random, and the
 * fluid run `sim --model fluid -a all -p 4096 -k 4 -m 256M -s 1M` took
 * 1.035 times the CPU (4 alternate runs each) for 1.017 times the
 * instructions. */
struct release {
	double at;
	uint32_t link;
};

/* The SEND rides in its event, so starting it reads no schedule memory. */
struct event {
	double at;      /* when the SEND can start */
	double ready;   /* when it first could have (FCFS at busy receivers) */
	uint32_t slot;  /* rank * lanes + lane */
	struct send op;
};

/* The event queue.  Events come out in (at, ready, slot) order, and a
 * simulator never queues an event before the one it is handling, so a
 * monotone queue fits: a radix heap over the bits of at (non-negative
 * doubles order as their bit patterns).  An event waits in the bucket of
 * the highest bit in which its at differs from that of the last event
 * out; when the ties (at equal to it) run out, the lowest non-empty
 * bucket's least at becomes the last, and that bucket is spread over the
 * lower ones.  An event moves at most 64 times in all, and in practice a
 * few, against a heap's sift through every level at each event.  The
 * ties are a binary heap on (ready, slot), which keeps the order exact.
 * A slot has at most one event queued, so events live in ev[slot] and a
 * bucket is a list linked through link[slot].
 *
 * The tie heap is its own, not lib/heap's: its entries carry their key, so
 * a sift reads the heap's array alone and inline, where lib/heap's ids
 * read a key array at random and pay a call per push and pop -- and this
 * queue is the per-lane run's inner loop.  Tried, with ready[slot] as
 * the keys and ties by slot (the same results): `sim -a all -p 4096 -k 4
 * -m 64M -s 1M` took 1.15 times the instructions (callgrind), and 1.04
 * times the CPU at 256M. */
#define NO_SLOT UINT32_MAX

struct tie {
	double ready;
	uint32_t slot;
};

struct queue {
	struct event *ev;      /* [slot] */
	uint32_t *link;        /* [slot]: the next slot in its bucket */
	struct tie *ties;      /* binary heap of the events at `last` */
	size_t nties;
	uint64_t last;         /* bits of the at of the last event out */
	uint64_t nonempty;     /* bit b - 1: bucket b has events */
	uint32_t head[65];     /* bucket b (1..64): at differs from last first in bit b - 1 */
	/* Fluid's peek: the lowest bucket's least at, while least_known
	 * (cleared whenever a bucket gains or loses an event). */
	uint64_t least;
	int least_known;
};

/* Where a (rank, block)'s arrival time lives.  Every block of an op's
 * range arrives at once, so a rank's blocks fall into segments -- runs
 * between the starts and ends of the ranges its ops and the SENDs to it
 * name -- whose blocks always share one arrival time: the run keeps one
 * time per segment, a cell.  van de Geijn at 16,384 ranks x 1 GiB has
 * 16,384 blocks of 64 KiB moved 16 to an op: about 1,030 segments a rank
 * instead of 16,384 blocks, 140 MB of times instead of 2 GiB (and 16
 * times fewer to read and write per event).  A map word per 64 blocks of
 * a rank marks where its segments start (bit b % 64 of word
 * [rank * words + b / 64]) beside the cell of the first segment it
 * marks: a lookup reads one 16-byte word, one cache line.  Where segments
 * would save less than half of the cells (a slice per op, as chain's),
 * map is NULL and cell (r, b) is r * nblocks + b, the lookups skipped. */
struct map_word {
	uint64_t start;
	uint64_t cell; /* cells before this word's first segment */
};

struct cells {
	struct map_word *map;
	size_t words; /* per rank */
	size_t count; /* cells in all */
};

/* Per-(rank, lane) state lives in small parallel arrays indexed by slot
 * (rank * lanes + lane): each stays in cache at 65,536 slots. */
struct sim {
	const struct lb_schedule *s;
	const struct lb_sim_net *net;
	double *arrival;    /* [cell], INFINITY = not yet: see struct cells */
	struct cells cells;
	double *send_free;  /* [slot]: when the lane may start its next SEND */
	double *recv_free;  /* [slot]; one-port-uni: send_free itself */
	double *cpu_free;   /* multi-port, bounded: [rank], when its CPU may send again */
	double *link_free;  /* multi-port, bounded: [link], when it is free */
	uint32_t links;     /* how many links number_links numbered (fluid too) */
	double *cap_free;   /* bounded: [2 * slot] its send cap's free time, [2 * slot + 1]
			     * its receive cap's */
	size_t *next;       /* [slot]: its next SEND in sends */
	size_t *end;        /* [slot]: one past its last SEND */
	uint8_t *waiting;   /* [slot]: the next SEND waits (WAIT_BLOCKS: for a block) */
	struct send *pending; /* [slot]: with WAIT_BLOCKS, a copy of that SEND */
	struct send *sends; /* every lane's SENDs, lane after lane, in order */
	struct send_cost *cost; /* [like sends] on a platform, else NULL */
	struct queue q;
	struct lb_sim_result *res;
	/* Barriers (s->groups > 0 only): */
	double *reach;      /* [slot]: when its RECVs before the barrier ahead arrived */
	double *bar_at;     /* [group]: latest arrival at its current barrier */
	uint32_t *bar_count; /* [group]: lanes there */
	double released;    /* the last barrier's release */
	/* Fluid only (see the fluid section below): */
	struct lb_fluid *fl;      /* the transfers in progress as flows */
	double *fluid_cap;        /* [resource] bytes/s, INFINITY: no limit */
	struct in_flight *flight; /* [link]: its transfer in progress, its queue */
	size_t *queued_next;      /* [like sends]: the next SEND queued on its link */
	uint32_t *inflight;       /* [slot]: its SENDs started or queued, not ended */
	struct release *rel;      /* binary heap by at, at most one per link */
	size_t nrel;
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

/* The cell of block b at rank r (struct cells). */
static inline size_t cell(const struct sim *x, uint32_t r, uint32_t b)
{
	const struct cells *c = &x->cells;
	if (!c->map)
		return (size_t)r * x->s->nblocks + b;
	const struct map_word *w = &c->map[(size_t)r * c->words + b / 64];
	uint64_t upto_b = w->start & (~0ull >> (63 - b % 64));
	return w->cell + (size_t)__builtin_popcountll(upto_b) - 1;
}

/* The cells in use: a time per segment, or per (rank, block). */
static size_t cell_count(const struct sim *x)
{
	if (x->cells.map)
		return x->cells.count;
	return (size_t)x->s->ranks * x->s->nblocks;
}

/* The cells of blocks [first, first + n) at rank r: [*from, returned). */
static inline size_t cell_range(const struct sim *x, uint32_t r, uint32_t first,
				uint32_t n, size_t *from)
{
	if (!n)
		return *from = 0;
	*from = cell(x, r, first);
	return n == 1 ? *from + 1 : cell(x, r, first + n - 1) + 1;
}

static uint64_t time_bits(double t)
{
	uint64_t u;
	memcpy(&u, &t, sizeof(u));
	return u;
}

static int tie_before(struct tie a, struct tie b)
{
	return a.ready != b.ready ? a.ready < b.ready : a.slot < b.slot;
}

static void tie_push(struct queue *q, struct tie t)
{
	size_t i = q->nties++;
	while (i > 0 && tie_before(t, q->ties[(i - 1) / 2])) {
		q->ties[i] = q->ties[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	q->ties[i] = t;
}

static void tie_pop(struct queue *q)
{
	struct tie t = q->ties[--q->nties];
	size_t i = 0, n = q->nties;
	for (size_t c = 1; c < n; c = 2 * i + 1) {
		if (c + 1 < n && tie_before(q->ties[c + 1], q->ties[c]))
			c++;
		if (!tie_before(q->ties[c], t))
			break;
		q->ties[i] = q->ties[c];
		i = c;
	}
	q->ties[i] = t;
}

/* Files the event of slot (already in ev[slot]) by its at. */
static void queue_file(struct queue *q, uint32_t slot)
{
	uint64_t diff = time_bits(q->ev[slot].at) ^ q->last;
	if (!diff) {
		tie_push(q, (struct tie){ q->ev[slot].ready, slot });
		return;
	}
	unsigned b = 64 - (unsigned)__builtin_clzll(diff);
	q->least_known = 0;
	q->link[slot] = q->head[b];
	q->head[b] = slot;
	q->nonempty |= 1ull << (b - 1);
}

static void queue_push(struct queue *q, struct event ev)
{
	q->ev[ev.slot] = ev;
	queue_file(q, ev.slot);
}

/* No ties left: the lowest bucket's least at becomes the last, and the
 * bucket is spread over the ties and the buckets below it. */
static void queue_refill(struct queue *q)
{
	unsigned b = (unsigned)__builtin_ctzll(q->nonempty) + 1;
	uint64_t least = UINT64_MAX;
	for (uint32_t s = q->head[b]; s != NO_SLOT; s = q->link[s]) {
		uint64_t k = time_bits(q->ev[s].at);
		least = k < least ? k : least;
	}
	uint32_t s = q->head[b];
	q->head[b] = NO_SLOT;
	q->nonempty &= ~(1ull << (b - 1));
	q->last = least;
	q->least_known = 0;
	while (s != NO_SLOT) {
		uint32_t next = q->link[s];
		queue_file(q, s);
		s = next;
	}
}

/* The slot whose event is first, or NO_SLOT when none is queued. */
static uint32_t queue_top(struct queue *q)
{
	if (!q->nties && q->nonempty)
		queue_refill(q);
	return q->nties ? q->ties[0].slot : NO_SLOT;
}

/* The lane's next SEND, or NULL when it has sent everything. */
static const struct send *head_send(const struct sim *x, uint32_t slot)
{
	return x->next[slot] < x->end[slot] ? &x->sends[x->next[slot]] : NULL;
}

static void try_ready(struct sim *x, uint32_t slot);

#define WAIT_BLOCKS 2 /* waiting[]: for a block of its SEND, in pending[] */

/* A queued SEND will write its blocks' arrival times at its peer, then
 * its lane's next SEND is read: both far from what the run touches in
 * between (a random rank's row, a random lane's SENDs).  Fetched when it
 * is queued, they are in the cache when it starts, events later (the
 * queue holds at most a SEND per lane).  With segments the peer's map
 * word is fetched (the cell needs it first); prefetch_next fetches the
 * cell itself. */
static void prefetch_queued(const struct sim *x, uint32_t slot, const struct send *op)
{
	const struct cells *c = &x->cells;
	if (c->map)
		__builtin_prefetch(c->map + (size_t)op->peer * c->words + op->first_block / 64, 0);
	else
		__builtin_prefetch(x->arrival + (size_t)op->peer * x->s->nblocks + op->first_block, 1);
	__builtin_prefetch(x->sends + x->next[slot] + 1, 0);
}


/* The lane at slot reaches a barrier of group g: the last of the group's
 * lanes releases them all at the latest arrival + the group's cost. */
static void reach_barrier(struct sim *x, uint32_t slot, uint32_t g)
{
	const struct lb_schedule *s = x->s;
	const struct lb_barrier_group *grp = &s->group[g];
	x->bar_at[g] = later(x->bar_at[g], later(x->reach[slot], x->send_free[slot]));
	if (++x->bar_count[g] < (size_t)grp->count * s->lanes)
		return;
	double release = x->bar_at[g] + grp->cost_seconds;
	x->bar_at[g] = 0;
	x->bar_count[g] = 0;
	x->released = later(x->released, release);
	for (uint32_t i = 0; i < grp->count; i++)
		for (uint32_t l = 0; l < s->lanes; l++) {
			uint32_t m = grp->members[i] * s->lanes + l;
			x->send_free[m] = later(x->send_free[m], release);
			x->reach[m] = release;
			x->next[m]++;
		}
	for (uint32_t i = 0; i < grp->count; i++)
		for (uint32_t l = 0; l < s->lanes; l++)
			try_ready(x, grp->members[i] * s->lanes + l);
}

/* Moves the lane past the RECV marks at its head whose blocks have
 * arrived.  Returns 1 when its head is a SEND (or nothing), 0 when it
 * waits for a block or at a barrier. */
static int pass_marks(struct sim *x, uint32_t slot)
{
	const struct send *op;
	uint32_t rank = slot / x->s->lanes;
	while ((op = head_send(x, slot)) && op->peer >= MARK_RECV) {
		if (op->peer == MARK_BARRIER) {
			if (x->inflight && x->inflight[slot]) { /* fluid: its sends end first */
				x->waiting[slot] = 1;
				return 0;
			}
			reach_barrier(x, slot, op->first_block);
			return 0;
		}
		size_t c, end = cell_range(x, rank, op->first_block, op->nblocks, &c);
		for (; c < end; c++) {
			if (isinf(x->arrival[c])) {
				x->waiting[slot] = 1;
				return 0;
			}
			x->reach[slot] = later(x->reach[slot], x->arrival[c]);
		}
		x->next[slot]++;
	}
	return 1;
}

/* Queues the lane's next SEND if all its blocks have arrival times. */
static void try_ready(struct sim *x, uint32_t slot)
{
	/* a lane woken by an arrival reads its blocked SEND from pending[],
	 * beside the other lanes', not from its place among all the SENDs
	 * (a cache miss per wake-up, most events of a pipeline) */
	const struct send *op = x->waiting[slot] == WAIT_BLOCKS && !x->reach ? &x->pending[slot]
									: head_send(x, slot);
	x->waiting[slot] = 0;
	if (op && x->reach) {
		if (!pass_marks(x, slot))
			return;
		op = head_send(x, slot);
	}
	if (!op)
		return;
	double ready = x->send_free[slot];
	size_t c, end = cell_range(x, slot / x->s->lanes, op->first_block, op->nblocks, &c);
	for (; c < end; c++) {
		if (isinf(x->arrival[c])) {
			x->waiting[slot] = WAIT_BLOCKS;
			x->pending[slot] = *op;
			return;
		}
		ready = later(ready, x->arrival[c]);
	}
	prefetch_queued(x, slot, op);
	queue_push(&x->q, (struct event){ ready, ready, slot, *op });
}

static uint32_t site(const struct sim *x, uint32_t r)
{
	return lb_sites_find(x->net->site_first, x->s->ranks, x->net->sites, r);
}

/* alpha + n / B for one transfer without a platform: the slower end sets
 * the pace.  *lat is its time in flight. */
static double transfer_time(const struct sim *x, uint32_t src, uint32_t dst,
			    uint32_t lane, uint64_t bytes, double *lat)
{
	const struct lb_sim_net *net = x->net;
	size_t i = (size_t)src * x->s->lanes + lane, j = (size_t)dst * x->s->lanes + lane;
	double alpha = net->alpha, bw = net->lane_bw;
	*lat = net->latency;
	if (net->rank_alpha)
		alpha = fmax(net->rank_alpha[i], net->rank_alpha[j]);
	if (net->rank_bw)
		bw = fmin(net->rank_bw[i], net->rank_bw[j]);
	if (net->sites > 1 && site(x, src) != site(x, dst)) {
		alpha = net->wan_alpha;
		*lat = net->wan_latency;
		if (net->wan_bw > 0)
			bw = fmin(bw, net->wan_bw);
	}
	return alpha + (double)bytes / bw;
}

/* Multi-port: the SEND of ev holds its sender's CPU for node.send and its
 * link until end.  Returns when its lane may start the next SEND. */
static double multi_port_start(struct sim *x, const struct event *ev, uint32_t src,
			       double end)
{
	double cpu_done = ev->at + x->net->platform->node[src].send;
	x->cpu_free[src] = cpu_done;
	x->link_free[x->cost[x->next[ev->slot]].link] = end;
	return cpu_done;
}

double lb_sim_through_cap(double *cap_free, double start, uint64_t bytes, double rate)
{
	if (!(rate > 0))
		return start;
	*cap_free = later(start, *cap_free) + (double)bytes / rate;
	return *cap_free;
}

/* Bounded: the end of a transfer started at `at` that holds its link for
 * `occupation`: its bytes through the sender's send cap and the
 * receiver's receive cap of the lane too. */
static double bounded_end(struct sim *x, uint32_t slot, uint32_t dslot, double at,
			  double occupation, uint64_t bytes)
{
	const struct lb_node *node = x->net->platform->node;
	uint32_t lanes = x->s->lanes;
	double sent = lb_sim_through_cap(&x->cap_free[2 * (size_t)slot], at, bytes, node[slot / lanes].rate);
	double got = lb_sim_through_cap(&x->cap_free[2 * (size_t)dslot + 1], at, bytes,
				 node[dslot / lanes].rate);
	return later(at + occupation, later(sent, got));
}

/* When the SEND of ev finds the resources it needs free, the receiving
 * port aside: under per-lane, its own lane's port is free by construction
 * (only its SENDs take it, and the next is queued after). */
static double sender_free(const struct sim *x, const struct event *ev)
{
	switch (x->net->model) {
	case LB_PORT_ONE_PORT_UNI: /* receives take the same port */
		return x->send_free[ev->slot];
	case LB_PORT_MULTI:
	case LB_PORT_BOUNDED:
		return later(x->cpu_free[ev->slot / x->s->lanes],
			     x->link_free[x->cost[x->next[ev->slot]].link]);
	default:
		return 0;
	}
}

/* Starts the SEND of ev (its resources free) and releases what it unblocks. */
static void start_send(struct sim *x, const struct event *ev)
{
	const struct lb_schedule *s = x->s;
	const struct send *op = &ev->op;
	uint32_t src = ev->slot / s->lanes, lane = ev->slot % s->lanes;
	uint32_t dslot = op->peer * s->lanes + lane;
	uint64_t bytes = lb_range_bytes(s, op->first_block, op->nblocks);
	double occupation, lat;
	if (x->cost) {
		const struct send_cost *c = &x->cost[x->next[ev->slot]];
		occupation = c->occupation, lat = c->latency;
	} else {
		occupation = transfer_time(x, src, op->peer, lane, bytes, &lat);
	}
	double end = ev->at + occupation;
	if (x->cap_free)
		end = bounded_end(x, ev->slot, dslot, ev->at, occupation, bytes);
	double arrive = end + lat;
	size_t c, last = cell_range(x, op->peer, op->first_block, op->nblocks, &c);
	for (; c < last; c++)
		x->arrival[c] = earlier(x->arrival[c], arrive);
	x->send_free[ev->slot] = end;
	if (x->cpu_free)
		x->send_free[ev->slot] = multi_port_start(x, ev, src, end);
	if (!x->cap_free) /* bounded: the receive cap, not a port */
		x->recv_free[dslot] = end;
	x->res->transfers++;
	x->res->bytes_moved += bytes;
	x->next[ev->slot]++;
	try_ready(x, ev->slot);
	for (uint32_t l = 0; l < s->lanes; l++)
		if (x->waiting[op->peer * s->lanes + l])
			try_ready(x, op->peer * s->lanes + l);
}

/* The arrival times the next ties will write are far from this event's
 * (other ranks' rows): fetching them now overlaps those cache misses with
 * this event's work.  The tie heap's top comes next, one of its two
 * children after it (klane at 16,384 x 4: ~10 % less CPU than with the
 * top alone). */
static void prefetch_next(const struct sim *x)
{
	for (size_t i = 0; i < 3 && i < x->q.nties; i++) {
		const struct send *op = &x->q.ev[x->q.ties[i].slot].op;
		__builtin_prefetch(x->arrival + cell(x, op->peer, op->first_block), 1);
	}
}

/* Every LB_STOP_POLL_EVERY events: 1 once a stop was asked, the run
 * given up (a configuration can take minutes: lib/stop.h). */
static int stop_polled(uint32_t *events)
{
	if (++*events < LB_STOP_POLL_EVERY)
		return 0;
	*events = 0;
	return lb_stop_requested();
}

/* Events in time order until none is left.  -1: stopped. */
static int run_events(struct sim *x)
{
	uint32_t slot, events = 0;
	while ((slot = queue_top(&x->q)) != NO_SLOT) {
		if (stop_polled(&events))
			return -1;
		struct event ev = x->q.ev[slot]; /* starting it queues the lane's next */
		uint32_t dslot = ev.op.peer * x->s->lanes + slot % x->s->lanes;
		tie_pop(&x->q);
		prefetch_next(x);
		double free_at = x->cap_free ? 0 : x->recv_free[dslot];
		if (x->net->model != LB_PORT_PER_LANE)
			free_at = later(free_at, sender_free(x, &ev));
		if (free_at > ev.at) {
			ev.at = free_at; /* receiver (or sender's port, CPU, link) busy: wait */
			queue_push(&x->q, ev);
			continue;
		}
		start_send(x, &ev);
	}
	return 0;
}

/* The fluid model (sim.h, LB_PORT_FLUID).  Its resources, numbered for
 * model/fluid.h: per slot a send port (2 slot) and a receive port
 * (2 slot + 1); without a platform one WAN link per ordered pair of sites
 * and lane after them.  Three kinds of event, taken in time order: a
 * flow's end (the sharing's next), a link's release (its overhead over:
 * its next queued SEND starts) and a SEND's dispatch (the queue: the lane
 * hands its SEND to the link, which starts it at once when idle); at a
 * tie in that order, so that a SEND sees what the others free. */

/* The least `at` queued, without moving the queue's `last` (an end may
 * still come before it and queue events earlier than that).  The lowest
 * bucket's least is kept until a bucket changes: the run peeks at every
 * event, and that bucket can hold most of the lanes. */
static double queue_peek_at(struct queue *q)
{
	uint64_t least = q->last;
	if (!q->nties) {
		if (!q->nonempty)
			return INFINITY;
		if (!q->least_known) {
			q->least = UINT64_MAX, q->least_known = 1;
			for (uint32_t s = q->head[__builtin_ctzll(q->nonempty) + 1]; s != NO_SLOT;
			     s = q->link[s])
				q->least = time_bits(q->ev[s].at) < q->least ? time_bits(q->ev[s].at)
									     : q->least;
		}
		least = q->least;
	}
	double t;
	memcpy(&t, &least, sizeof(t));
	return t;
}

static void release_push(struct sim *x, struct release r)
{
	size_t i = x->nrel++;
	while (i > 0 && r.at < x->rel[(i - 1) / 2].at) {
		x->rel[i] = x->rel[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	x->rel[i] = r;
}

static struct release release_pop(struct sim *x)
{
	struct release top = x->rel[0], r = x->rel[--x->nrel];
	size_t i = 0, n = x->nrel;
	for (size_t c = 1; c < n; c = 2 * i + 1) {
		if (c + 1 < n && x->rel[c + 1].at < x->rel[c].at)
			c++;
		if (!(x->rel[c].at < r.at))
			break;
		x->rel[i] = x->rel[c];
		i = c;
	}
	x->rel[i] = r;
	return top;
}

/* The flow of a transfer src -> dst on lane: its resources (those with a
 * limit), its own cap, and its overhead and latency in *f. */
static uint32_t fluid_flow(const struct sim *x, uint32_t src, uint32_t dst, uint32_t lane,
			   uint32_t *res, double *cap, struct in_flight *f)
{
	const struct lb_sim_net *net = x->net;
	uint32_t lanes = x->s->lanes, n = 0, i = src * lanes + lane, j = dst * lanes + lane;
	*cap = INFINITY, f->overhead = 0, f->latency = 0;
	if (src == dst)
		return 0;
	if (net->platform) {
		struct lb_link l = lb_platform_link(net->platform, src, dst, lane);
		*cap = l.bw, f->overhead = l.occ, f->latency = l.lat;
	} else {
		f->overhead = transfer_time(x, src, dst, lane, 0, &f->latency); /* alpha + 0 / B */
		if (net->sites > 1 && net->wan_bw > 0 && site(x, src) != site(x, dst))
			res[n++] = 2 * x->s->ranks * lanes +
				   (site(x, src) * net->sites + site(x, dst)) * lanes + lane;
	}
	if (!isinf(x->fluid_cap[2 * i]))
		res[n++] = 2 * i;
	if (!isinf(x->fluid_cap[2 * j + 1]))
		res[n++] = 2 * j + 1;
	return n;
}

/* A flow's weight (sim.h, share): 1, or 1 / its round trip. */
static double fluid_weight(const struct sim *x, const struct in_flight *f)
{
	if (x->net->share != LB_SHARE_RTT)
		return 1;
	return 1 / fmax(2 * (f->overhead + f->latency), 1e-9);
}

/* SEND i (x->sends) starts on its idle link at `at` as a flow. */
static int fluid_start(struct sim *x, uint32_t link, size_t i, double at)
{
	const struct lb_schedule *s = x->s;
	struct in_flight *f = &x->flight[link];
	uint32_t res[LB_FLUID_MAX_RES];
	double cap;
	f->op = x->sends[i];
	uint32_t nres = fluid_flow(x, f->slot / s->lanes, f->op.peer, f->slot % s->lanes, res, &cap, f);
	uint64_t bytes = lb_range_bytes(s, f->op.first_block, f->op.nblocks);
	f->busy = 1;
	x->res->transfers++;
	x->res->bytes_moved += bytes;
	return lb_fluid_add(x->fl, at, (double)bytes, cap, fluid_weight(x, f), res, nres, link);
}

/* The lane of ev hands its SEND to the SEND's link: started at once when
 * the link is idle, else queued behind it.  The lane's next SEND may go
 * at once too (on a platform when the sender's CPU is free, node.send
 * after this one), as the executor posts every SEND whose blocks are
 * there. */
static int fluid_dispatch(struct sim *x, const struct event *ev)
{
	size_t i = x->next[ev->slot];
	uint32_t link = x->cost[i].link, src = ev->slot / x->s->lanes;
	struct in_flight *f = &x->flight[link];
	f->slot = ev->slot;
	x->inflight[ev->slot]++;
	x->queued_next[i] = NO_SEND;
	if (!f->busy) {
		if (fluid_start(x, link, i, ev->at))
			return -1;
	} else if (f->head == NO_SEND) {
		f->head = f->tail = i;
	} else {
		x->queued_next[f->tail] = i, f->tail = i;
	}
	x->send_free[ev->slot] = ev->at;
	if (x->cpu_free)
		x->send_free[ev->slot] = x->cpu_free[src] = ev->at + x->net->platform->node[src].send;
	x->next[ev->slot]++;
	try_ready(x, ev->slot);
	return 0;
}

/* The transfer on link has passed its bytes at t: its blocks arrive after
 * its overhead and latency, its link is released after the overhead, and
 * what waited for its blocks or for the lane's sends to end goes on. */
static void fluid_end(struct sim *x, uint32_t link, double t)
{
	struct in_flight *f = &x->flight[link];
	uint32_t slot = f->slot, lanes = x->s->lanes;
	double done = t + f->overhead, arrive = done + f->latency;
	size_t c, last = cell_range(x, f->op.peer, f->op.first_block, f->op.nblocks, &c);
	for (; c < last; c++)
		x->arrival[c] = earlier(x->arrival[c], arrive);
	release_push(x, (struct release){ done, link });
	if (x->reach) /* a barrier ahead counts the lane there once its sends end */
		x->reach[slot] = later(x->reach[slot], done);
	if (--x->inflight[slot] == 0 && x->waiting[slot])
		try_ready(x, slot);
	for (uint32_t l = 0; l < lanes; l++)
		if (x->waiting[f->op.peer * lanes + l])
			try_ready(x, f->op.peer * lanes + l);
}

/* The link's overhead is over at `at`: its next queued SEND starts. */
static int fluid_release(struct sim *x, uint32_t link, double at)
{
	struct in_flight *f = &x->flight[link];
	size_t i = f->head;
	f->busy = 0;
	if (i == NO_SEND)
		return 0;
	f->head = x->queued_next[i];
	return fluid_start(x, link, i, at);
}

/* Events in time order until none is left.  -1: out of memory, -2:
 * stopped. */
static int run_fluid_events(struct sim *x)
{
	uint32_t events = 0;
	for (;;) {
		if (stop_polled(&events))
			return -2;
		double start = queue_peek_at(&x->q), end = lb_fluid_next_end(x->fl);
		double rel = x->nrel ? x->rel[0].at : INFINITY;
		if (end <= start && end <= rel && !isinf(end)) {
			uint32_t link;
			while ((link = lb_fluid_take_ended(x->fl, end)) != LB_FLUID_NONE)
				fluid_end(x, link, end);
			continue;
		}
		if (rel <= start && !isinf(rel)) {
			struct release r = release_pop(x);
			if (fluid_release(x, r.link, r.at))
				return -1;
			continue;
		}
		uint32_t slot = queue_top(&x->q);
		if (slot == NO_SLOT)
			return 0;
		struct event ev = x->q.ev[slot];
		tie_pop(&x->q);
		if (x->cpu_free && x->cpu_free[slot / x->s->lanes] > ev.at) {
			ev.at = x->cpu_free[slot / x->s->lanes];
			queue_push(&x->q, ev);
			continue;
		}
		if (fluid_dispatch(x, &ev))
			return -1;
	}
}

static int by_time(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The steady state at one rank: the time between its arrivals over the
 * second half of them, (t_S - t_h) / (S - h) with h = ceil(S / 2) and t_k
 * its k-th arrival in time (block k for a schedule that sends in order;
 * in time order, stripes over lanes count the same way).  Sorts row,
 * which the run no longer needs. */
static double steady_period(double *row, uint32_t n)
{
	uint32_t half = n - n / 2; /* ceil(n / 2) */
	if (n < 2)
		return 0;
	qsort(row, n, sizeof(*row), by_time);
	return (row[n - 1] - row[half - 1]) / (n - half);
}

/* When rank r held the blocks it must end with (a rank that wants none:
 * its last arrival), or INFINITY when one never came. */
static double rank_done(const struct lb_schedule *s, const double *arr, size_t n, uint32_t r)
{
	double done = 0;
	if (lb_sched_wants(s, r)) {
		for (size_t b = 0; b < n; b++)
			done = later(done, arr[b]);
		return done;
	}
	for (size_t b = 0; b < n; b++)
		if (!isinf(arr[b]))
			done = later(done, arr[b]);
	return done;
}

/* lb_sim_collect on cells (struct cells): a segment's blocks share its
 * time, so a rank's completion is its cells' latest; the period needs the
 * slowest rank's time of every block. */
static int collect_cells(struct sim *x, char *err, size_t len)
{
	const struct lb_schedule *s = x->s;
	struct lb_sim_result *res = x->res;
	uint32_t slowest = s->root;
	res->seconds = 0;
	for (uint32_t r = 0; r < s->ranks; r++) {
		size_t from = cell(x, r, 0), to = r + 1 < s->ranks ? cell(x, r + 1, 0) : cell_count(x);
		double done = rank_done(s, x->arrival + from, to - from, r);
		if (isinf(done))
			return lb_errf(err, len, "simulation: rank %u never receives every block (schedule not valid?)", r);
		if (res->rank_done)
			res->rank_done[r] = done;
		if (done > res->seconds && lb_sched_wants(s, r))
			res->seconds = done, slowest = r;
	}
	res->seconds = later(res->seconds, x->released);
	double *row = malloc((size_t)s->nblocks * sizeof(*row));
	if (!row)
		return lb_errf(err, len, "sim: out of memory for the period");
	for (uint32_t b = 0; b < s->nblocks; b++)
		row[b] = x->arrival[cell(x, slowest, b)];
	res->period = steady_period(row, s->nblocks);
	free(row);
	return 0;
}

/* Completion times and the period, or the first lane that never finished.
 * The run ends when every rank holds what it wants and the last barrier
 * has released. */
static int collect(struct sim *x, char *err, size_t len)
{
	const struct lb_schedule *s = x->s;
	for (uint32_t slot = 0; slot < s->ranks * s->lanes; slot++) {
		const struct send *op = head_send(x, slot);
		if (op && op->peer >= MARK_RECV)
			return lb_errf(err, len, "simulation stuck: rank %u lane %u waits at a barrier (schedule not valid?)",
				    slot / s->lanes, slot % s->lanes);
		if (op)
			return lb_errf(err, len, "simulation stuck: rank %u lane %u cannot send blocks [%u,%u) to rank %u (schedule not valid?)",
				    slot / s->lanes, slot % s->lanes, op->first_block,
				    op->first_block + op->nblocks, op->peer);
	}
	if (x->cells.map)
		return collect_cells(x, err, len);
	return lb_sim_collect(s, x->arrival, x->released, x->res, err, len);
}

int lb_sim_collect(const struct lb_schedule *s, double *arrival, double released,
		   struct lb_sim_result *res, char *err, size_t len)
{
	res->seconds = 0;
	uint32_t slowest = s->root;
	for (uint32_t r = 0; r < s->ranks; r++) {
		double done = rank_done(s, arrival + (size_t)r * s->nblocks, s->nblocks, r);
		if (isinf(done))
			return lb_errf(err, len, "simulation: rank %u never receives every block (schedule not valid?)", r);
		if (res->rank_done)
			res->rank_done[r] = done;
		if (done > res->seconds && lb_sched_wants(s, r))
			res->seconds = done, slowest = r;
	}
	res->seconds = later(res->seconds, released);
	res->period = steady_period(arrival + (size_t)slowest * s->nblocks, s->nblocks);
	return 0;
}

/* A platform is read instead of every other value of the net. */
static int check_platform(const struct lb_schedule *s, const struct lb_platform *pf,
			  char *err, size_t len)
{
	if (!pf->sealed)
		return lb_errf(err, len, "sim: platform not sealed");
	if (pf->nodes != s->ranks)
		return lb_errf(err, len, "sim: platform of %u nodes for a schedule of %u ranks",
			    pf->nodes, s->ranks);
	if (pf->lanes < s->lanes)
		return lb_errf(err, len, "sim: platform of %u lanes for a schedule of %u lanes",
			    pf->lanes, s->lanes);
	return 0;
}

static int check_net(const struct lb_schedule *s, const struct lb_sim_net *net,
		     char *err, size_t len)
{
	if (net->model > LB_PORT_LOGP)
		return lb_errf(err, len, "sim: unknown port model %d", (int)net->model);
	if (net->model == LB_PORT_LOGP && !net->platform)
		return lb_errf(err, len, "sim: the logp model needs a platform (its nodes' send and receive overheads)");
	if (net->model == LB_PORT_MULTI && !net->platform)
		return lb_errf(err, len, "sim: the multi-port model needs a platform (its nodes' send times)");
	if (net->model == LB_PORT_BOUNDED && !net->platform)
		return lb_errf(err, len, "sim: the bounded multi-port model needs a platform (its nodes' send times and caps)");
	if (net->platform)
		return check_platform(s, net->platform, err, len);
	if (!(net->latency >= 0) || !isfinite(net->latency))
		return lb_errf(err, len, "sim: bad latency %g s (need >= 0)", net->latency);
	if (!(net->alpha >= 0) || !isfinite(net->alpha))
		return lb_errf(err, len, "sim: bad alpha %g s (need >= 0)", net->alpha);
	if (!(net->lane_bw > 0) || !isfinite(net->lane_bw))
		return lb_errf(err, len, "sim: bad lane bandwidth %g B/s (need > 0)", net->lane_bw);
	if (net->sites > s->ranks)
		return lb_errf(err, len, "sim: %u sites for %u ranks", net->sites, s->ranks);
	char why[128];
	if (net->site_first && net->sites > 1 &&
	    lb_sites_check(net->site_first, net->sites, s->ranks, why, sizeof(why)))
		return lb_errf(err, len, "sim: %s", why);
	if (net->sites > 1 && (!(net->wan_alpha >= 0) || net->wan_bw < 0 ||
			       !(net->wan_latency >= 0) || !isfinite(net->wan_latency)))
		return lb_errf(err, len, "sim: bad WAN alpha %g s, bandwidth %g B/s or latency %g s",
			    net->wan_alpha, net->wan_bw, net->wan_latency);
	for (size_t i = 0; i < (size_t)s->ranks * s->lanes; i++)
		if ((net->rank_alpha && !(net->rank_alpha[i] >= 0)) ||
		    (net->rank_bw && !(net->rank_bw[i] > 0)))
			return lb_errf(err, len, "sim: bad alpha or bandwidth for rank %zu lane %zu",
				    i / s->lanes, i % s->lanes);
	return 0;
}

uint64_t lb_sim_bytes(uint32_t ranks, uint32_t lanes, uint64_t blocks, uint64_t sends)
{
	uint64_t per_slot = 2 * sizeof(double) + 2 * sizeof(size_t) + 1 + sizeof(struct send) +
			    sizeof(struct event) +
			    sizeof(uint32_t) + sizeof(struct tie);
	/* at most a cell per (rank, block), and the segments' map of them */
	uint64_t arrival = lb_mul_sat(lb_mul_sat(ranks, blocks), sizeof(double));
	uint64_t map = lb_add_sat(lb_mul_sat(lb_mul_sat(ranks, lb_div_ceil(blocks, 64)),
					     sizeof(uint64_t) + sizeof(uint32_t)),
				  ((uint64_t)ranks + 1) * sizeof(size_t));
	return lb_add_sat(lb_add_sat(lb_add_sat(arrival, map), lb_mul_sat(sends, sizeof(struct send))),
			  (uint64_t)ranks * lanes * per_slot);
}

/* Appends one lane's SENDs to x->sends from *total on; with marks, each
 * BARRIER and before it the RECVs since the previous one (see struct send). */
static void copy_lane(struct sim *x, const struct lb_op *ops, uint32_t n, int marks,
		      size_t *total)
{
	uint32_t segment = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (ops[i].kind == LB_SEND)
			x->sends[(*total)++] = (struct send){ ops[i].peer, ops[i].first_block,
							      ops[i].nblocks };
		if (ops[i].kind != LB_BARRIER || !marks)
			continue;
		for (; segment < i; segment++)
			if (ops[segment].kind == LB_RECV)
				x->sends[(*total)++] = (struct send){ MARK_RECV, ops[segment].first_block,
								      ops[segment].nblocks };
		x->sends[(*total)++] = (struct send){ MARK_BARRIER, ops[i].peer, 0 };
		segment = i + 1;
	}
}

static void give_back_freed(void);

/* The schedule's ops are freed rank by rank as they are copied, the heap
 * trimmed every this many bytes of them: the copy and the schedule then
 * never take their sum (at 16,384 ranks, 270 + 200 MB for chain). */
#define TRIM_EVERY_BYTES ((size_t)32 << 20)

/* A rank's ops are copied: freed when the run owns the schedule. */
static void free_copied(struct lb_schedule *to_free, uint32_t r, size_t *unreturned)
{
	if (!to_free)
		return;
	*unreturned += (size_t)to_free->rank[r].cap * sizeof(struct lb_op);
	free(to_free->rank[r].ops);
	to_free->rank[r].ops = NULL;
	to_free->rank[r].count = to_free->rank[r].cap = 0;
	if (*unreturned >= TRIM_EVERY_BYTES) {
		give_back_freed();
		*unreturned = 0;
	}
}

/* Copies every lane's SENDs of s (and marks, with barriers), in lane
 * order, into x->sends; to_free (s or NULL) loses each rank's ops once
 * they are copied. */
static int gather_sends(struct sim *x, const struct lb_schedule *s, struct lb_schedule *to_free)
{
	size_t unreturned = 0;
	size_t total = 0, slot = 0;
	int marks = s->groups > 0;
	for (uint32_t r = 0; r < s->ranks; r++)
		for (uint32_t i = 0; i < s->rank[r].count; i++)
			total += s->rank[r].ops[i].kind == LB_SEND || marks;
	x->sends = lb_alloc_large(total * sizeof(*x->sends));
	if (!x->sends)
		return -1;
	total = 0;
	for (uint32_t r = 0; r < s->ranks; r++) {
		if (lb_stop_requested())
			return -1; /* seconds at 65,536 ranks: as out of memory */
		for (uint32_t l = 0; l < s->lanes; l++, slot++) {
			uint32_t n;
			const struct lb_op *ops = lb_lane_ops(s, r, l, &n);
			x->next[slot] = total;
			copy_lane(x, ops, n, marks, &total);
			x->end[slot] = total;
		}
		free_copied(to_free, r, &unreturned);
	}
	return 0;
}

/* Block b starts a segment at rank r (b == nblocks: the end, no mark). */
static void mark_start(struct cells *c, uint32_t r, uint32_t b, uint32_t nblocks)
{
	if (b < nblocks)
		c->map[(size_t)r * c->words + b / 64].start |= 1ull << (b % 64);
}

/* Each range of rank r's ops is its own segments at r, a SEND's at its
 * peer too (the receiver's RECV names the same range in a valid schedule;
 * the SEND is what writes there), an owned block one at its owner. */
static void mark_segments(struct cells *c, const struct lb_schedule *s, uint32_t r)
{
	const struct lb_rank_ops *ro = &s->rank[r];
	mark_start(c, r, 0, s->nblocks);
	for (uint32_t i = 0; i < ro->count; i++) {
		const struct lb_op *op = &ro->ops[i];
		if (op->kind == LB_BARRIER)
			continue;
		mark_start(c, r, op->first_block, s->nblocks);
		mark_start(c, r, op->first_block + op->nblocks, s->nblocks);
		if (op->kind == LB_SEND && op->peer < s->ranks) {
			mark_start(c, op->peer, op->first_block, s->nblocks);
			mark_start(c, op->peer, op->first_block + op->nblocks, s->nblocks);
		}
	}
}

/* Numbers the cells: each map word's first, and how many in all. */
static void number_cells(struct cells *c, uint32_t ranks)
{
	size_t total = 0;
	for (size_t w = 0; w < (size_t)ranks * c->words; w++) {
		c->map[w].cell = total;
		total += (size_t)__builtin_popcountll(c->map[w].start);
	}
	c->count = total;
}

/* x->cells for s (struct cells): start stays NULL where segments would not
 * halve the cells; the lookups then cost more than they save.  -1: out of
 * memory or stopped. */
static int find_segments(struct sim *x, const struct lb_schedule *s)
{
	struct cells *c = &x->cells;
	c->words = ((size_t)s->nblocks + 63) / 64;
	size_t words = (size_t)s->ranks * c->words, segments = 0;
	c->map = lb_alloc_large(words * sizeof(*c->map));
	if (!c->map)
		return -1;
	memset(c->map, 0, words * sizeof(*c->map));
	for (uint32_t r = 0; r < s->ranks; r++) {
		if (lb_stop_requested())
			return -1;
		mark_segments(c, s, r);
	}
	for (uint32_t b = 0; s->owner && b < s->nblocks; b++) {
		mark_start(c, s->owner[b], b, s->nblocks);
		mark_start(c, s->owner[b], b + 1, s->nblocks);
	}
	for (size_t w = 0; w < words; w++)
		segments += (size_t)__builtin_popcountll(c->map[w].start);
	if (segments * 2 > (size_t)s->ranks * s->nblocks) {
		free(c->map);
		c->map = NULL;
		return 0;
	}
	number_cells(c, s->ranks);
	return 0;
}

/* Multi-port: gives each directed link (src, peer, lane) the SENDs use an
 * index, and every link a free time.  A lane's links are numbered together:
 * at[peer] is the index of (src, peer, lane) if owner[peer] is its slot. */
static int number_links(struct sim *x, const struct lb_schedule *s, char *err, size_t len)
{
	uint32_t *owner = malloc((size_t)s->ranks * sizeof(*owner));
	uint32_t *at = malloc((size_t)s->ranks * sizeof(*at));
	uint32_t links = 0;
	for (uint32_t r = 0; owner && r < s->ranks; r++)
		owner[r] = NO_SLOT;
	int stopped = 0;
	for (uint32_t slot = 0; owner && at && slot < s->ranks * s->lanes; slot++) {
		if ((stopped = lb_stop_requested()))
			break;
		for (size_t i = x->next[slot]; i < x->end[slot]; i++) {
			uint32_t peer = x->sends[i].peer;
			if (peer >= MARK_RECV)
				continue;
			if (owner[peer] != slot)
				owner[peer] = slot, at[peer] = links++;
			x->cost[i].link = at[peer];
		}
	}
	int ok = owner && at && !stopped;
	free(owner);
	free(at);
	x->links = links;
	x->link_free = ok ? calloc(links ? links : 1, sizeof(double)) : NULL;
	if (!x->link_free)
		return lb_errf(err, len, stopped ? "sim: stopped"
						 : "sim: out of memory for the multi-port links");
	return 0;
}

/* Resolves the occupation and latency of every SEND (in x->sends' order)
 * on the platform; fails on a SEND over a missing link. */
static int gather_costs(struct sim *x, const struct lb_schedule *s,
			const struct lb_platform *pf, char *err, size_t len)
{
	x->cost = lb_alloc_large(x->end[(size_t)s->ranks * s->lanes - 1] * sizeof(*x->cost));
	if (!x->cost)
		return lb_errf(err, len, "sim: out of memory for the SENDs' link costs");
	for (uint32_t slot = 0; slot < s->ranks * s->lanes; slot++) {
		uint32_t src = slot / s->lanes, lane = slot % s->lanes;
		if (lb_stop_requested())
			return lb_errf(err, len, "sim: stopped");
		for (size_t i = x->next[slot]; i < x->end[slot]; i++) {
			const struct send *op = &x->sends[i];
			if (op->peer >= MARK_RECV) {
				x->cost[i] = (struct send_cost){ 0, 0, 0 };
				continue;
			}
			struct lb_link l = op->peer == src ? (struct lb_link){ 0 }
							   : lb_platform_link(pf, src, op->peer, lane);
			if (!(l.bw > 0))
				return lb_errf(err, len, "sim: rank %u lane %u sends to rank %u over no link",
					    src, lane, op->peer);
			uint64_t bytes = lb_range_bytes(s, op->first_block, op->nblocks);
			x->cost[i] = (struct send_cost){ l.occ + (double)bytes / l.bw, l.lat, 0 };
		}
	}
	return x->cpu_free ? number_links(x, s, err, len) : 0;
}

/* Fluid: the limit of each resource (see the fluid section): without a
 * platform a port has its rank's lane bandwidth and a WAN link wan_bw; on
 * one a port has its node's rate (0: INFINITY, no limit). */
static void fluid_limits(struct sim *x, size_t slots, uint32_t wan)
{
	const struct lb_sim_net *net = x->net;
	for (size_t slot = 0; slot < slots; slot++) {
		double c = net->rank_bw ? net->rank_bw[slot] : net->lane_bw;
		if (net->platform) {
			double rate = net->platform->node[slot / x->s->lanes].rate;
			c = rate > 0 ? rate : INFINITY;
		}
		x->fluid_cap[2 * slot] = x->fluid_cap[2 * slot + 1] = c;
	}
	for (uint32_t w = 0; w < wan; w++)
		x->fluid_cap[2 * slots + w] = net->wan_bw;
}

/* Fluid: links numbered (on a platform gather_costs did it), the
 * resources' limits and the state of the flows. */
static int fluid_setup(struct sim *x, char *err, size_t len)
{
	const struct lb_sim_net *net = x->net;
	size_t slots = (size_t)x->s->ranks * x->s->lanes, sends = x->end[slots - 1];
	uint32_t wan = !net->platform && net->sites > 1 && net->wan_bw > 0
			       ? net->sites * net->sites * x->s->lanes : 0;
	if (!x->cost) {
		x->cost = lb_alloc_large((sends ? sends : 1) * sizeof(*x->cost));
		if (!x->cost)
			return lb_errf(err, len, "sim: out of memory for the SENDs' links");
		if (number_links(x, x->s, err, len))
			return -1;
	}
	x->fluid_cap = malloc((2 * slots + wan) * sizeof(double));
	x->flight = malloc((x->links ? x->links : 1) * sizeof(*x->flight));
	x->queued_next = lb_alloc_large((sends ? sends : 1) * sizeof(size_t));
	x->inflight = calloc(slots, sizeof(uint32_t));
	x->rel = malloc((x->links ? x->links : 1) * sizeof(*x->rel));
	x->fl = malloc(sizeof(*x->fl));
	for (uint32_t l = 0; x->flight && l < x->links; l++)
		x->flight[l] = (struct in_flight){ .head = NO_SEND, .tail = NO_SEND };
	if (!x->fluid_cap || !x->flight || !x->queued_next || !x->inflight || !x->rel || !x->fl ||
	    lb_fluid_init(x->fl, x->fluid_cap, (uint32_t)(2 * slots + wan))) {
		free(x->fl);
		x->fl = NULL;
		return lb_errf(err, len, "sim: out of memory for the fluid model's flows");
	}
	fluid_limits(x, slots, wan);
	return 0;
}

static void fluid_free(struct sim *x)
{
	if (x->fl)
		lb_fluid_free(x->fl);
	free(x->fl);
	free(x->fluid_cap);
	free(x->flight);
	free(x->queued_next);
	free(x->inflight);
	free(x->rel);
}

/* Nothing has arrived yet except at the owners: the root, which holds
 * every block, or each block's owner.  Gigabytes at 65,536 ranks (seconds
 * of page faults): -1 once a stop was asked. */
static int clear_arrivals(struct sim *x)
{
	const struct lb_schedule *s = x->s;
	for (uint32_t r = 0; r < s->ranks; r++) {
		if (lb_stop_requested())
			return -1;
		size_t from = cell(x, r, 0), to = r + 1 < s->ranks ? cell(x, r + 1, 0) : cell_count(x);
		double t = r == s->root && !s->owner ? 0 : INFINITY;
		for (size_t c = from; c < to; c++)
			x->arrival[c] = t;
	}
	for (uint32_t b = 0; s->owner && b < s->nblocks; b++)
		x->arrival[cell(x, s->owner[b], b)] = 0;
	return 0;
}

/* The schedule is many small blocks inside malloc's heap: freed, they stay
 * resident until the heap is trimmed (glibc's free trims only its top).
 * Not under AddressSanitizer: its allocator replaces glibc's, whose
 * malloc_trim then walks an arena it never set up (a crash in a thread). */
#define TRIM_ABOVE_BYTES ((size_t)64 << 20)

static void give_back_freed(void)
{
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
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
	if (net->model == LB_PORT_LOGP) {
		int rc = lb_sim_logp(s, net, res, err, errlen);
		lb_sched_free(to_free);
		return rc;
	}
	struct lb_schedule dims = *s; /* what the run reads of s, s->rank aside */
	dims.rank = NULL;
	size_t slots = (size_t)s->ranks * s->lanes;
	int multi = net->model == LB_PORT_MULTI || net->model == LB_PORT_BOUNDED ||
		    (net->model == LB_PORT_FLUID && net->platform);
	struct sim x = {
		.s = &dims, .net = net, .res = res,
		.send_free = calloc(slots, sizeof(double)),
		.recv_free = net->model == LB_PORT_ONE_PORT_UNI ? NULL : calloc(slots, sizeof(double)),
		.cpu_free = multi ? calloc(s->ranks, sizeof(double)) : NULL,
		.cap_free = net->model == LB_PORT_BOUNDED ? calloc(2 * slots, sizeof(double)) : NULL,
		.next = calloc(slots, sizeof(size_t)),
		.end = calloc(slots, sizeof(size_t)),
		.waiting = calloc(slots, 1),
		.pending = malloc(slots * sizeof(struct send)),
		.q = { .ev = malloc(slots * sizeof(struct event)),
		       .link = malloc(slots * sizeof(uint32_t)),
		       .ties = malloc(slots * sizeof(struct tie)) },
	};
	if (net->model == LB_PORT_ONE_PORT_UNI)
		x.recv_free = x.send_free; /* one port per lane: both ends hold it */
	/* trimming walks the whole heap: worth it for a large schedule only */
	int large = lb_sched_op_count(s) * sizeof(struct lb_op) >= TRIM_ABOVE_BYTES;
	int rc = -1, gathered = x.next && x.end && find_segments(&x, s) == 0 &&
				gather_sends(&x, s, large ? to_free : NULL) == 0;
	if (to_free) {
		/* the run keeps what it reads of the collective (dims has it) */
		to_free->owner = NULL, to_free->block_offset = NULL;
		to_free->group = NULL, to_free->groups = 0;
		lb_sched_free(to_free);
		if (large)
			give_back_freed();
	}
	res->transfers = res->bytes_moved = 0;
	if (gathered)
		x.arrival = lb_alloc_large(cell_count(&x) * sizeof(double));
	if (!x.arrival || !x.send_free || !x.recv_free || !x.waiting || !x.pending || !x.q.ev ||
	    !x.q.link || !x.q.ties || (multi && !x.cpu_free) ||
	    (net->model == LB_PORT_BOUNDED && !x.cap_free)) {
		if (lb_stop_requested())
			lb_errf(err, errlen, "sim: stopped");
		else
			lb_errf(err, errlen, "sim: out of memory for %u ranks x %u blocks",
				dims.ranks, dims.nblocks);
		goto out;
	}
	if (dims.groups && !(x.reach = calloc(slots, sizeof(double)))) {
		lb_errf(err, errlen, "sim: out of memory for the barriers");
		goto out;
	}
	x.bar_at = dims.groups ? calloc(dims.groups, sizeof(double)) : NULL;
	x.bar_count = dims.groups ? calloc(dims.groups, sizeof(uint32_t)) : NULL;
	if (dims.groups && (!x.bar_at || !x.bar_count)) {
		lb_errf(err, errlen, "sim: out of memory for the barriers");
		goto out;
	}
	if (net->platform && gather_costs(&x, &dims, net->platform, err, errlen))
		goto out;
	if (net->model == LB_PORT_FLUID && fluid_setup(&x, err, errlen))
		goto out;
	if (clear_arrivals(&x)) {
		lb_errf(err, errlen, "sim: stopped");
		goto out;
	}
	for (unsigned b = 0; b < 65; b++)
		x.q.head[b] = NO_SLOT;
	for (uint32_t slot = 0; slot < slots; slot++)
		try_ready(&x, slot);
	int ran = x.fl ? run_fluid_events(&x) : run_events(&x) ? -2 : 0;
	if (ran) {
		lb_errf(err, errlen, ran == -2 ? "sim: stopped"
					       : "sim: out of memory for the flows in progress");
		goto out;
	}
	rc = collect(&x, err, errlen);
out:
	free(x.arrival);
	free(x.cells.map);
	if (x.recv_free != x.send_free)
		free(x.recv_free);
	free(x.send_free);
	free(x.cpu_free);
	free(x.cap_free);
	free(x.link_free);
	free(x.next);
	free(x.end);
	free(x.waiting);
	free(x.pending);
	free(x.sends);
	free(x.cost);
	free(x.q.ev);
	free(x.q.link);
	free(x.q.ties);
	free(x.reach);
	free(x.bar_at);
	free(x.bar_count);
	fluid_free(&x);
	if (to_free) /* what it took over from the freed schedule */
		lb_sched_free_collective(&dims);
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
