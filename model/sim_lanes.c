/* The event simulator's lanes (sim_private.h): a lane's progress from its
 * head in the stream of SENDs (sim_sends.c) to the queue -- past the RECV
 * marks whose blocks have arrived, through barriers once the last of a
 * group's lanes reaches them, and its next SEND queued once every block
 * it sends has an arrival time.  Both loops (sim_ports.c, sim_fluid.c)
 * call it whenever a lane may move. */
#include "sim_private.h"

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
			sim_try_ready(x, grp->members[i] * s->lanes + l);
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
void sim_try_ready(struct sim *x, uint32_t slot)
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
