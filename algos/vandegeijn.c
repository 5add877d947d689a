/* vandegeijn: binomial scatter then allgather (seed 003 section 4.2).
 *
 * The message is cut into p chunks, chunk v belonging to relative rank v;
 * each chunk is q blocks so that a block is at most one slice.  The scatter
 * sends every node the chunks of its binomial subtree [v, v + lowbit(v)),
 * so a node already holds them all when the allgather starts; the allgather
 * (recursive doubling for powers of two, a ring otherwise, or as asked)
 * skips chunks the receiver holds, which keeps "every block exactly once".
 * A transfer is cut into ops of at most one slice, striped over lanes.
 * The allgather collective's ring, doubling and simultaneous builders
 * (below) run the same phases from each rank's own chunk. */
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "cost.h"

struct vdg {
	struct lb_schedule *s;
	struct lb_striper st;
	uint32_t p, q;     /* ranks, blocks per chunk */
	uint32_t per_op;   /* blocks per op (<= one slice) */
	int scattered;     /* 1: after the scatter; 0: the allgather collective,
			    * each rank holding only its own chunk */
};

static uint32_t lowbit(uint32_t v, uint32_t p)
{
	return v ? v & -v : 1u << lb_ceil_log2(p);
}

/* Which ops of a transfer to append: the SENDs at its source, the RECVs
 * at its destination, or both. */
enum side { SIDE_SEND = 1, SIDE_RECV = 2, SIDE_BOTH = 3 };

/* Chunks [c0, c1) from relative src to relative dst, cut into ops: the
 * `sides` of them. */
static int chunk_ops(struct vdg *g, uint32_t src, uint32_t dst, uint32_t c0, uint32_t c1,
		     enum side sides)
{
	uint32_t first = c0 * g->q, end = c1 * g->q;
	uint32_t a = lb_abs_rank(g->s, src), d = lb_abs_rank(g->s, dst);
	for (uint32_t b = first; b < end; b += g->per_op) {
		uint32_t n = end - b < g->per_op ? end - b : g->per_op;
		uint32_t lane = lb_striper_lane(&g->st, a);
		if (((sides & SIDE_SEND) && lb_sched_add(g->s, a, LB_SEND, d, lane, b, n)) ||
		    ((sides & SIDE_RECV) && lb_sched_add(g->s, d, LB_RECV, a, lane, b, n)))
			return -1;
	}
	return 0;
}

static int send_chunks(struct vdg *g, uint32_t src, uint32_t dst, uint32_t c0, uint32_t c1)
{
	return chunk_ops(g, src, dst, c0, c1, SIDE_BOTH);
}

/* One step of an allgather phase: its transfers' `sides`. */
typedef int (*step_fn)(struct vdg *g, uint32_t step, enum side sides);

/* Appends a step's SENDs, then its RECVs: in program order every rank
 * sends before it receives.  The executors post a lane's RECVs at once
 * and its SENDs as their blocks arrive, and the port models read only the
 * SENDs, so this order changes nothing there; the simulator's LogP mode
 * runs a rank's ops in this order, where a rank receiving first would
 * wait for its peer's send of the step, which would wait on that peer's
 * receive: a chain round the ring instead of one concurrent step.  The
 * RECVs replay the striper from its state before the SENDs (saved: p
 * entries), so each gets its SEND's lane. */
static int send_then_recv(struct vdg *g, step_fn step, uint32_t t, uint32_t *saved)
{
	memcpy(saved, g->st.next, (size_t)g->p * sizeof(*saved));
	if (step(g, t, SIDE_SEND))
		return -1;
	memcpy(g->st.next, saved, (size_t)g->p * sizeof(*saved));
	return step(g, t, SIDE_RECV);
}

/* The steps first .. last of a phase, each sends before receives. */
static int run_steps(struct vdg *g, step_fn step, uint32_t first, uint32_t last)
{
	uint32_t *saved = malloc((size_t)g->p * sizeof(*saved));
	int rc = saved ? 0 : -1;
	for (uint32_t t = first; rc == 0 && t <= last; t++)
		rc = send_then_recv(g, step, t, saved);
	free(saved);
	return rc;
}

/* Binomial scatter: parent v sends child v + m the chunks [v + m, v + 2m). */
static int scatter(struct vdg *g)
{
	for (uint32_t m = lowbit(0, g->p) >> 1; m >= 1; m >>= 1) {
		for (uint32_t v = 0; v + m < g->p; v += 2 * m) {
			uint32_t end = v + 2 * m < g->p ? v + 2 * m : g->p;
			if (send_chunks(g, v, v + m, v + m, end))
				return -1;
		}
		if (m == 1)
			break;
	}
	return 0;
}

/* Chunks the receiver holds when the allgather phase starts: its subtree
 * after the scatter, or only its own chunk (the allgather collective). */
static int holds_at_start(const struct vdg *g, uint32_t v, uint32_t c)
{
	if (!g->scattered)
		return c == v;
	return v == 0 || (c >= v && c < v + lowbit(v, g->p));
}

/* Recursive doubling (p a power of two): at step k (m = 2^k), v and v ^ m
 * swap the aligned groups of m chunks each holds, minus what the receiver
 * has. */
static int doubling_step(struct vdg *g, uint32_t k, enum side sides)
{
	uint32_t m = 1u << k;
	for (uint32_t v = 0; v < g->p; v++) {
		uint32_t w = v ^ m, c0 = w & ~(m - 1);
		if (holds_at_start(g, v, c0))
			continue; /* v holds the whole group */
		if (chunk_ops(g, w, v, c0, c0 + m, sides))
			return -1;
	}
	return 0;
}

static int allgather_doubling(struct vdg *g)
{
	return run_steps(g, doubling_step, 0, lb_ceil_log2(g->p) - 1);
}

/* Ring: at step t, v passes chunk v - t + 1 on to v + 1, unless v + 1
 * holds it already (then v + 1 passes its own copy on next step). */
static int ring_step(struct vdg *g, uint32_t t, enum side sides)
{
	for (uint32_t v = 0; v < g->p; v++) {
		uint32_t to = (v + 1) % g->p;
		uint32_t c = (v + g->p - (t - 1)) % g->p;
		if (holds_at_start(g, to, c))
			continue;
		if (chunk_ops(g, v, to, c, c + 1, sides))
			return -1;
	}
	return 0;
}

static int allgather_ring(struct vdg *g)
{
	return run_steps(g, ring_step, 1, g->p - 1);
}

static int use_ring(const struct lb_algo_params *prm)
{
	int pow2 = (prm->ranks & (prm->ranks - 1)) == 0;
	return prm->allgather == LB_ALLGATHER_RING ||
	       (prm->allgather == LB_ALLGATHER_AUTO && !pow2);
}

/* p chunks of q blocks, a block at most one slice. */
uint64_t lb_blocks_vandegeijn(const struct lb_algo_params *prm)
{
	uint64_t chunk = lb_div_ceil(prm->bytes, prm->ranks);
	uint64_t slice = prm->slice_bytes ? prm->slice_bytes : prm->bytes;
	return lb_mul_sat(lb_div_ceil(chunk, slice), prm->ranks);
}

/* g's schedule of `blocks` blocks (q per chunk) over `total` bytes, its
 * op size and striper.  0, or -1 (g->s freed) on failure. */
static int vdg_init(struct vdg *g, const struct lb_algo_params *prm, const char *name,
		    uint64_t blocks, uint64_t total)
{
	uint64_t slice = prm->slice_bytes ? prm->slice_bytes : prm->bytes;
	if (blocks > LB_MAX_BLOCKS)
		return -1;
	g->p = prm->ranks, g->q = (uint32_t)(blocks / prm->ranks);
	g->s = lb_sched_for(prm, name, (uint32_t)blocks);
	if (!g->s)
		return -1;
	g->s->bytes = total;
	/* Blocks are ~total / (p q) bytes; an op carries as many as fit a slice. */
	uint64_t block = lb_div_ceil(total, (uint64_t)g->p * g->q);
	uint64_t per_op = block ? slice / block : 1;
	g->per_op = per_op < 1 ? 1 : per_op > g->q * g->p ? g->q * g->p : (uint32_t)per_op;
	if (lb_striper_init(&g->st, g->s, prm->stripe_off)) {
		lb_sched_free(g->s);
		return -1;
	}
	return 0;
}

static struct lb_schedule *vdg_done(struct vdg *g, int rc)
{
	lb_striper_free(&g->st);
	return rc ? lb_sched_abandon(g->s) : g->s;
}

struct lb_schedule *lb_build_vandegeijn(const struct lb_algo_params *prm)
{
	struct vdg g = { .scattered = 1 };
	if (vdg_init(&g, prm, "vandegeijn", lb_blocks_vandegeijn(prm), prm->bytes))
		return NULL;
	int rc = scatter(&g);
	if (rc == 0 && g.p > 1)
		rc = use_ring(prm) ? allgather_ring(&g) : allgather_doubling(&g);
	return vdg_done(&g, rc);
}

/* ---- the allgather collective (issue 15) --------------------------------
 * prm->bytes is each rank's contribution m; the schedule moves p x m bytes:
 * chunk v (q blocks of at most one slice) is owned by relative rank v and
 * wanted by all.  The same phases as van de Geijn's allgather, started from
 * the owners instead of the scatter. */

uint64_t lb_blocks_allgather(const struct lb_algo_params *prm)
{
	uint64_t slice = prm->slice_bytes ? prm->slice_bytes : prm->bytes;
	return lb_mul_sat(lb_div_ceil(prm->bytes, slice), prm->ranks);
}

static int allgather_init(struct vdg *g, const struct lb_algo_params *prm, const char *name)
{
	uint64_t total; /* p x m: lb_algo_check refused it past 64 bits */
	if (__builtin_mul_overflow(prm->bytes, (uint64_t)prm->ranks, &total) ||
	    vdg_init(g, prm, name, lb_blocks_allgather(prm), total))
		return -1;
	uint32_t *owner = lb_sched_set_owners(g->s);
	for (uint32_t b = 0; owner && b < g->s->nblocks; b++)
		owner[b] = lb_abs_rank(g->s, b / g->q);
	if (!owner)
		lb_striper_free(&g->st), lb_sched_free(g->s);
	return owner ? 0 : -1;
}

/* Simultaneous: at step t every rank v sends its chunk to v + t (a
 * permutation per step), so every rank sends p - 1 times its chunk. */
static int simultaneous_step(struct vdg *g, uint32_t t, enum side sides)
{
	for (uint32_t v = 0; v < g->p; v++)
		if (chunk_ops(g, v, (v + t) % g->p, v, v + 1, sides))
			return -1;
	return 0;
}

static int allgather_simultaneous(struct vdg *g)
{
	return run_steps(g, simultaneous_step, 1, g->p - 1);
}

static struct lb_schedule *build_allgather(const struct lb_algo_params *prm, const char *name,
					   int (*phase)(struct vdg *g))
{
	struct vdg g = { .scattered = 0 };
	if (allgather_init(&g, prm, name))
		return NULL;
	return vdg_done(&g, g.p > 1 ? phase(&g) : 0);
}

struct lb_schedule *lb_build_allgather_ring(const struct lb_algo_params *prm)
{
	return build_allgather(prm, "allgather-ring", allgather_ring);
}

struct lb_schedule *lb_build_allgather_doubling(const struct lb_algo_params *prm)
{
	return build_allgather(prm, "allgather-doubling", allgather_doubling);
}

struct lb_schedule *lb_build_allgather_simultaneous(const struct lb_algo_params *prm)
{
	return build_allgather(prm, "allgather-simultaneous", allgather_simultaneous);
}

/* Table 1 (seed 003): 2 log p l + 2 (p - 1) / p M / b.  The table prints
 * the fraction as p / (p - 1); the paper's own sum of the scatter phase,
 * M/2b + M/4b + ... + M/pb, is (p - 1) / p M / b, which DESIGN.md adopts. */
double lb_cost_vandegeijn_table(const struct lb_cost_in *in)
{
	if (in->ranks <= 1)
		return 0;
	double p = in->ranks;
	return 2 * log2(p) * in->latency + 2 * (p - 1) / p * in->bytes / lb_rank_bw(in);
}

/* One phase step moving `bytes` cut into slices, striped over k lanes. */
static double step_time(const struct lb_cost_in *in, double bytes)
{
	double slice = in->slice_bytes ? (double)in->slice_bytes : bytes;
	double pieces = ceil(bytes / slice), k = lb_stripe_lanes(in);
	if (pieces < 1)
		pieces = 1;
	return ceil(pieces / k) * (in->latency + bytes / pieces / in->lane_bw);
}

/* Scatter and doubling allgather: ceil(log2 p) steps of M/p, 2M/p, ...
 * chunks; ring allgather: p - 1 steps of one chunk.  Each step pays one
 * latency per slice it is cut into. */
double lb_cost_vandegeijn_refined(const struct lb_cost_in *in)
{
	if (in->ranks <= 1)
		return 0;
	double p = in->ranks, chunk = in->bytes / p, scatter = 0;
	uint32_t steps = lb_ceil_log2(in->ranks);
	for (uint32_t j = 0; j < steps; j++)
		scatter += step_time(in, chunk * (double)(1u << j));
	int pow2 = (in->ranks & (in->ranks - 1)) == 0;
	int ring = in->allgather == LB_ALLGATHER_RING ||
		   (in->allgather == LB_ALLGATHER_AUTO && !pow2);
	double gather = ring ? (p - 1) * step_time(in, chunk) : scatter;
	return scatter + gather;
}

/* The allgather's closed forms (in->bytes = m, each rank's chunk).  Ring
 * (and simultaneous: each rank's p - 1 sends share its port):
 * p - 1 steps of one chunk. */
double lb_cost_allgather_ring_table(const struct lb_cost_in *in)
{
	double p = in->ranks;
	return (p - 1) * (in->latency + in->bytes / lb_rank_bw(in));
}

/* Doubling: log2 p steps, the chunks doubling, (p - 1) m in all. */
double lb_cost_allgather_doubling_table(const struct lb_cost_in *in)
{
	double p = in->ranks;
	return log2(p) * in->latency + (p - 1) * in->bytes / lb_rank_bw(in);
}

double lb_cost_allgather_ring_refined(const struct lb_cost_in *in)
{
	return (in->ranks - 1.0) * step_time(in, (double)in->bytes);
}

double lb_cost_allgather_doubling_refined(const struct lb_cost_in *in)
{
	double t = 0;
	for (uint32_t m = 1; m < in->ranks; m <<= 1)
		t += step_time(in, (double)in->bytes * m);
	return t;
}
