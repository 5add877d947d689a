/* The simulator's entry points (sim.h): checks the net, hands the LogP
 * mode to sim_logp.c, and runs every other mode as a discrete-event
 * simulation -- sets its state up (sim_private.h names the parts), runs
 * the port models' loop (sim_ports.c) or the fluid model's (sim_fluid.c),
 * collects the result and frees.
 *
 * At 16,384 ranks the run is bound by memory latency, not arithmetic, so
 * the state is laid out for it: each lane's SENDs are copied once into one
 * compact array (sim_sends.c), and a queued SEND travels in its event
 * (sim_queue.h).  On a platform each SEND's occupation and latency sit in
 * an array beside, resolved once; without one the per-lane path reads
 * nothing more per event than it did before latency and port models (a
 * test of the model, the same branch every time).  Arrival times are kept
 * per segment of a rank's blocks (sim_cells.c), and a schedule built for
 * the run (lb_sim_run_free) loses each rank's ops as they are copied, so
 * the two never take their sum. */
#include "sim.h"

#include <math.h>
#include <stdlib.h>

#include "sim_logp.h"
#include "sim_private.h"
#include "net/platform.h"
#include "algos/sites.h"
#include "lib/error.h"
#include "lib/memory.h"
#include "lib/stop.h"

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
		return sim_collect_cells(x, err, len);
	return lb_sim_collect(s, x->arrival, x->released, x->res, err, len);
}

/* Trimming the heap after freeing the schedule walks the whole heap:
 * worth it for a schedule of this many bytes of ops or more. */
#define TRIM_ABOVE_BYTES ((size_t)64 << 20)

/* The models whose ranks have a CPU (multi-port, bounded, fluid on a
 * platform). */
static int uses_cpu(const struct lb_sim_net *net)
{
	return net->model == LB_PORT_MULTI || net->model == LB_PORT_BOUNDED ||
	       (net->model == LB_PORT_FLUID && net->platform);
}

/* The per-(rank, lane) state and the queue, allocated (alloc_run checks). */
static void alloc_slots(struct sim *x)
{
	const struct lb_sim_net *net = x->net;
	size_t slots = (size_t)x->s->ranks * x->s->lanes;
	x->send_free = calloc(slots, sizeof(double));
	x->recv_free = net->model == LB_PORT_ONE_PORT_UNI ? NULL : calloc(slots, sizeof(double));
	x->cpu_free = uses_cpu(net) ? calloc(x->s->ranks, sizeof(double)) : NULL;
	x->cap_free = net->model == LB_PORT_BOUNDED ? calloc(2 * slots, sizeof(double)) : NULL;
	x->next = calloc(slots, sizeof(size_t));
	x->end = calloc(slots, sizeof(size_t));
	x->waiting = calloc(slots, 1);
	x->pending = malloc(slots * sizeof(struct send));
	x->q.ev = malloc(slots * sizeof(struct event));
	x->q.link = malloc(slots * sizeof(uint32_t));
	x->q.ties = malloc(slots * sizeof(struct tie));
	if (net->model == LB_PORT_ONE_PORT_UNI)
		x->recv_free = x->send_free; /* one port per lane: both ends hold it */
}

/* Copies s's SENDs and finds its segments; to_free (s or NULL) is freed
 * then, whether that worked or not, keeping what the run reads of the
 * collective (x->s has it).  1: copied. */
static int take_schedule(struct sim *x, const struct lb_schedule *s, struct lb_schedule *to_free)
{
	/* trimming walks the whole heap: worth it for a large schedule only */
	int large = lb_sched_op_count(s) * sizeof(struct lb_op) >= TRIM_ABOVE_BYTES;
	int gathered = x->next && x->end && sim_find_segments(x, s) == 0 &&
		       sim_gather_sends(x, s, large ? to_free : NULL) == 0;
	if (to_free) {
		/* the run keeps what it reads of the collective (x->s has it) */
		to_free->owner = NULL, to_free->block_offset = NULL;
		to_free->group = NULL, to_free->groups = 0;
		lb_sched_free(to_free);
		if (large)
			sim_give_back_freed();
	}
	return gathered;
}

/* The arrival times (once the SENDs are copied) and the barriers' state;
 * 0, or -1 with the reason in err (out of memory, or a stop). */
static int alloc_run(struct sim *x, int gathered, char *err, size_t errlen)
{
	const struct lb_schedule *s = x->s;
	size_t slots = (size_t)s->ranks * s->lanes;
	if (gathered)
		x->arrival = lb_alloc_large(cell_count(x) * sizeof(double));
	if (!x->arrival || !x->send_free || !x->recv_free || !x->waiting || !x->pending ||
	    !x->q.ev || !x->q.link || !x->q.ties || (uses_cpu(x->net) && !x->cpu_free) ||
	    (x->net->model == LB_PORT_BOUNDED && !x->cap_free)) {
		if (lb_stop_requested())
			return lb_errf(err, errlen, "sim: stopped");
		return lb_errf(err, errlen, "sim: out of memory for %u ranks x %u blocks",
			       s->ranks, s->nblocks);
	}
	if (s->groups && !(x->reach = calloc(slots, sizeof(double))))
		return lb_errf(err, errlen, "sim: out of memory for the barriers");
	x->bar_at = s->groups ? calloc(s->groups, sizeof(double)) : NULL;
	x->bar_count = s->groups ? calloc(s->groups, sizeof(uint32_t)) : NULL;
	if (s->groups && (!x->bar_at || !x->bar_count))
		return lb_errf(err, errlen, "sim: out of memory for the barriers");
	return 0;
}

/* The model's own state, the arrival times at the start, and every
 * lane's first SEND queued; 0, or -1 with the reason in err. */
static int prepare(struct sim *x, char *err, size_t errlen)
{
	const struct lb_sim_net *net = x->net;
	if (net->platform && sim_gather_costs(x, x->s, net->platform, err, errlen))
		return -1;
	if (net->model == LB_PORT_FLUID && sim_fluid_setup(x, err, errlen))
		return -1;
	if (sim_clear_arrivals(x))
		return lb_errf(err, errlen, "sim: stopped");
	queue_clear(&x->q);
	for (uint32_t slot = 0; slot < (size_t)x->s->ranks * x->s->lanes; slot++)
		sim_try_ready(x, slot);
	return 0;
}

/* The events until none is left, then the result. */
static int run_and_collect(struct sim *x, char *err, size_t errlen)
{
	int ran = x->fl ? sim_run_fluid(x) : sim_run_ports(x) ? -2 : 0;
	if (ran)
		return lb_errf(err, errlen, ran == -2 ? "sim: stopped"
						      : "sim: out of memory for the flows in progress");
	return collect(x, err, errlen);
}

static void free_sim(struct sim *x)
{
	free(x->arrival);
	free(x->cells.map);
	if (x->recv_free != x->send_free)
		free(x->recv_free);
	free(x->send_free);
	free(x->cpu_free);
	free(x->cap_free);
	free(x->link_free);
	free(x->next);
	free(x->end);
	free(x->waiting);
	free(x->pending);
	free(x->sends);
	free(x->cost);
	free(x->q.ev);
	free(x->q.link);
	free(x->q.ties);
	free(x->reach);
	free(x->bar_at);
	free(x->bar_count);
	sim_fluid_free(x);
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
	struct sim x = { .s = &dims, .net = net, .res = res };
	alloc_slots(&x);
	int gathered = take_schedule(&x, s, to_free);
	res->transfers = res->bytes_moved = 0;
	int rc = alloc_run(&x, gathered, err, errlen) || prepare(&x, err, errlen) ||
			 run_and_collect(&x, err, errlen) ? -1 : 0;
	free_sim(&x);
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
