/* The event simulator's loop for the fluid model (sim.h, LB_PORT_FLUID).
 * Its resources, numbered for model/fluid.h: per slot a send port (2 slot)
 * and a receive port (2 slot + 1); without a platform one WAN link per
 * ordered pair of sites and lane after them.  Three kinds of event, taken
 * in time order: a flow's end (the sharing's next), a link's release (its
 * overhead over: its next queued SEND starts) and a SEND's dispatch (the
 * queue, sim_queue.h: the lane hands its SEND to the link, which starts it
 * at once when idle); at a tie in that order, so that a SEND sees what the
 * others free.  Its setup and memory are here too. */
#include "sim_private.h"

#include <stdlib.h>

#include "fluid.h"
#include "net/platform.h"
#include "lib/error.h"
#include "lib/memory.h"

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
		f->overhead = sim_transfer_time(x, src, dst, lane, 0, &f->latency); /* alpha + 0 / B */
		if (net->sites > 1 && net->wan_bw > 0 && sim_site(x, src) != sim_site(x, dst))
			res[n++] = 2 * x->s->ranks * lanes +
				   (sim_site(x, src) * net->sites + sim_site(x, dst)) * lanes + lane;
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
	sim_try_ready(x, ev->slot);
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
		sim_try_ready(x, slot);
	for (uint32_t l = 0; l < lanes; l++)
		if (x->waiting[f->op.peer * lanes + l])
			sim_try_ready(x, f->op.peer * lanes + l);
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
int sim_run_fluid(struct sim *x)
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

/* Fluid: the limit of each resource (see the top of this file): without a
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

/* Fluid: links numbered (on a platform sim_gather_costs did it), the
 * resources' limits and the state of the flows. */
int sim_fluid_setup(struct sim *x, char *err, size_t len)
{
	const struct lb_sim_net *net = x->net;
	size_t slots = (size_t)x->s->ranks * x->s->lanes, sends = x->end[slots - 1];
	uint32_t wan = !net->platform && net->sites > 1 && net->wan_bw > 0
			       ? net->sites * net->sites * x->s->lanes : 0;
	if (!x->cost) {
		x->cost = lb_alloc_large((sends ? sends : 1) * sizeof(*x->cost));
		if (!x->cost)
			return lb_errf(err, len, "sim: out of memory for the SENDs' links");
		if (sim_number_links(x, x->s, err, len))
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

void sim_fluid_free(struct sim *x)
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
