/* The event simulator's loop for the port models (sim.h: per-lane,
 * one-port-uni, multi-port, bounded): events are the starts of SENDs, taken
 * in time order from the queue (sim_queue.h); a SEND waits while a
 * resource its model needs is busy, and when it starts its end, and so its
 * blocks' arrival times, are fixed, so every later event is at or after
 * the current one and no event is ever revised. */
#include "sim_private.h"

#include "net/platform.h"

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
		occupation = sim_transfer_time(x, src, op->peer, lane, bytes, &lat);
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
	sim_try_ready(x, ev->slot);
	for (uint32_t l = 0; l < s->lanes; l++)
		if (x->waiting[op->peer * s->lanes + l])
			sim_try_ready(x, op->peer * s->lanes + l);
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

/* Events in time order until none is left.  -1: stopped. */
int sim_run_ports(struct sim *x)
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
