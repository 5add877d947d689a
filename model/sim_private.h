/* The event simulator's state, shared by its parts (every mode but LogP):
 *   sim.c        the entry points: checks the net, hands LogP to
 *                sim_logp.c, else sets the run up, runs one of the two
 *                loops below, collects the result and frees;
 *   sim_sends.c  the run's copy of the schedule: each lane's SENDs in one
 *                array, on a platform their costs and links;
 *   sim_cells.c  where arrival times live: the segments of each rank's
 *                blocks (struct cells), cleared and read back;
 *   sim_lanes.c  a lane's progress: past its barriers and RECV marks to
 *                its next SEND, queued once its blocks have arrived;
 *   sim_ports.c  the port models' loop (per-lane, one-port-uni,
 *                multi-port, bounded): a SEND's end fixed when it starts;
 *   sim_fluid.c  the fluid model's loop: flows that share bandwidth;
 *   sim_queue.h  the queue of SENDs ready to start.
 * sim_logp.c includes none of this: it shares sim_shared.h only. */
#ifndef LB_SIM_PRIVATE_H
#define LB_SIM_PRIVATE_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "sim.h"
#include "sim_queue.h"
#include "sim_shared.h"
#include "algos/sites.h"
#include "lib/stop.h"

struct lb_fluid;

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
	uint32_t links;     /* how many links sim_number_links numbered (fluid too) */
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
	/* Fluid only (sim_fluid.c): */
	struct lb_fluid *fl;      /* the transfers in progress as flows */
	double *fluid_cap;        /* [resource] bytes/s, INFINITY: no limit */
	struct in_flight *flight; /* [link]: its transfer in progress, its queue */
	size_t *queued_next;      /* [like sends]: the next SEND queued on its link */
	uint32_t *inflight;       /* [slot]: its SENDs started or queued, not ended */
	struct release *rel;      /* binary heap by at, at most one per link */
	size_t nrel;
};

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

/* The cells of blocks [first, first + n) at rank r: [*from, returned). */
static inline size_t cell_range(const struct sim *x, uint32_t r, uint32_t first,
				uint32_t n, size_t *from)
{
	if (!n)
		return *from = 0;
	*from = cell(x, r, first);
	return n == 1 ? *from + 1 : cell(x, r, first + n - 1) + 1;
}

/* The lane's next SEND, or NULL when it has sent everything. */
static inline const struct send *head_send(const struct sim *x, uint32_t slot)
{
	return x->next[slot] < x->end[slot] ? &x->sends[x->next[slot]] : NULL;
}

#define WAIT_BLOCKS 2 /* waiting[]: for a block of its SEND, in pending[] */

/* Every LB_STOP_POLL_EVERY events: 1 once a stop was asked, the run
 * given up (a configuration can take minutes: lib/stop.h). */
static inline int stop_polled(uint32_t *events)
{
	if (++*events < LB_STOP_POLL_EVERY)
		return 0;
	*events = 0;
	return lb_stop_requested();
}

/* The cells in use: a time per segment, or per (rank, block). */
static inline size_t cell_count(const struct sim *x)
{
	if (x->cells.map)
		return x->cells.count;
	return (size_t)x->s->ranks * x->s->nblocks;
}

/* The site of rank r. */
static inline uint32_t sim_site(const struct sim *x, uint32_t r)
{
	return lb_sites_find(x->net->site_first, x->s->ranks, x->net->sites, r);
}

/* alpha + n / B for one transfer without a platform: the slower end sets
 * the pace.  *lat is its time in flight. */
static inline double sim_transfer_time(const struct sim *x, uint32_t src, uint32_t dst,
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
	if (net->sites > 1 && sim_site(x, src) != sim_site(x, dst)) {
		alpha = net->wan_alpha;
		*lat = net->wan_latency;
		if (net->wan_bw > 0)
			bw = fmin(bw, net->wan_bw);
	}
	return alpha + (double)bytes / bw;
}

/* sim_lanes.c: queues the lane's next SEND if all its blocks have arrival
 * times, first moving it past the marks whose blocks have arrived and
 * through a barrier the last of whose lanes it is. */
void sim_try_ready(struct sim *x, uint32_t slot);

/* sim_ports.c: the port models' events in time order until none is left;
 * -1: stopped. */
int sim_run_ports(struct sim *x);

/* sim_fluid.c: the fluid model's state (links numbered, the resources'
 * limits, the flows), its loop (-1: out of memory, -2: stopped) and its
 * memory freed. */
int sim_fluid_setup(struct sim *x, char *err, size_t len);
int sim_run_fluid(struct sim *x);
void sim_fluid_free(struct sim *x);

/* sim_cells.c: x->cells for s (-1: out of memory or stopped), the arrival
 * times at the start (-1: stopped), and the result read from them. */
int sim_find_segments(struct sim *x, const struct lb_schedule *s);
int sim_clear_arrivals(struct sim *x);
int sim_collect_cells(struct sim *x, char *err, size_t len);

/* sim_sends.c: x->sends (and next, end) from s, to_free (s or NULL)
 * losing each rank's ops once they are copied (-1: out of memory or
 * stopped); on a platform every SEND's costs (and multi-port links);
 * the links numbered; the heap's freed memory given back. */
int sim_gather_sends(struct sim *x, const struct lb_schedule *s, struct lb_schedule *to_free);
int sim_gather_costs(struct sim *x, const struct lb_schedule *s, const struct lb_platform *pf,
		     char *err, size_t len);
int sim_number_links(struct sim *x, const struct lb_schedule *s, char *err, size_t len);
void sim_give_back_freed(void);

#endif
