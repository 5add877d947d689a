/* The event simulator's copy of the schedule (sim_private.h): every
 * lane's SENDs in one compact array (RECVs need no action, and skipping
 * them in the schedule cost a cache miss per op), with marks for barriers;
 * a schedule the run owns loses each rank's ops as they are copied, so the
 * two never take their sum.  On a platform each SEND's occupation and
 * latency are resolved here once (a link lookup per event would cost a
 * search of the platform's rules), and its directed link numbered. */
#include "sim_private.h"

#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "net/platform.h"
#include "lib/error.h"
#include "lib/memory.h"

/* The schedule is many small blocks inside malloc's heap: freed, they stay
 * resident until the heap is trimmed (glibc's free trims only its top).
 * Not under AddressSanitizer: its allocator replaces glibc's, whose
 * malloc_trim then walks an arena it never set up (a crash in a thread). */
void sim_give_back_freed(void)
{
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
	malloc_trim(0);
#endif
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
		sim_give_back_freed();
		*unreturned = 0;
	}
}

/* Copies every lane's SENDs of s (and marks, with barriers), in lane
 * order, into x->sends; to_free (s or NULL) loses each rank's ops once
 * they are copied. */
int sim_gather_sends(struct sim *x, const struct lb_schedule *s, struct lb_schedule *to_free)
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

/* Multi-port: gives each directed link (src, peer, lane) the SENDs use an
 * index, and every link a free time.  A lane's links are numbered together:
 * at[peer] is the index of (src, peer, lane) if owner[peer] is its slot. */
int sim_number_links(struct sim *x, const struct lb_schedule *s, char *err, size_t len)
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
int sim_gather_costs(struct sim *x, const struct lb_schedule *s, const struct lb_platform *pf,
		     char *err, size_t len)
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
	return x->cpu_free ? sim_number_links(x, s, err, len) : 0;
}
