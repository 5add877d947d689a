/* Helpers shared by the builders (internal to algos/). */
#ifndef LB_BUILD_H
#define LB_BUILD_H

#include <stdlib.h>

#include "algos.h"

/* Builders work on relative ranks (root = 0); v <-> absolute rank. */
static inline uint32_t lb_abs_rank(const struct lb_schedule *s, uint32_t v)
{
	return (uint32_t)(((uint64_t)v + s->root) % s->ranks);
}

static inline uint32_t lb_ceil_log2(uint32_t p)
{
	uint32_t d = 0;
	while (d < 32 && (1ull << d) < p)
		d++;
	return d;
}

/* Picks the lane of each SEND of a single-lane algorithm: with striping,
 * round-robin over each rank's sends in the order they are emitted (the
 * paper's aggregated NICs); without, lane 0. */
struct lb_striper {
	uint32_t lanes;
	uint32_t *next; /* per rank */
};

int lb_striper_init(struct lb_striper *st, const struct lb_schedule *s,
		    int stripe_off);
uint32_t lb_striper_lane(struct lb_striper *st, uint32_t src);
void lb_striper_free(struct lb_striper *st);

/* Transfers blocks [first, first + n) from src to dst, one op per block,
 * each on the lane the striper picks.  Absolute ranks. */
int lb_emit_blocks(struct lb_schedule *s, struct lb_striper *st,
		   uint32_t src, uint32_t dst, uint32_t first, uint32_t n);

/* A tree given as edges in relative ranks, parents before children, each
 * node's children in sending order.  Emits the pipelined broadcast of every
 * block down the tree: block by block, every edge in order. */
struct lb_edge {
	uint32_t src, dst;
};

int lb_emit_tree(struct lb_schedule *s, const struct lb_edge *edges,
		 size_t nedges, int stripe_off);

/* A homogeneous tree on positions 0 .. n-1 (0 its root): its edges into
 * e (room for n), parents first, each node's children in sending order;
 * returns their count. */
typedef size_t (*lb_tree_edges_fn)(uint32_t n, struct lb_edge *e);
size_t lb_binary_edges(uint32_t n, struct lb_edge *e);
size_t lb_binomial_edges(uint32_t n, struct lb_edge *e);

/* With prm->sites > 1 (seed 003 section 6, algos/sitetree.c): the root
 * sends the whole message to each other site's first rank, then each site
 * runs `tree` on its ranks, pipelined. */
int lb_emit_site_trees(struct lb_schedule *s, const struct lb_algo_params *prm,
		       lb_tree_edges_fn tree);

/* A tree given as edges in ABSOLUTE ranks (heterogeneous platforms: the
 * tree is tied to nodes, not to positions relative to the root), parents
 * before children, each node's children in sending order.  Emits the
 * pipelined broadcast of every block down the tree, block by block, every
 * edge in order, all on `lane` (the platform lane the tree was built for;
 * one-port: the other lanes stay idle). */
int lb_emit_tree_abs(struct lb_schedule *s, const struct lb_edge *edges,
		     size_t nedges, uint32_t lane);

/* lb_sched_transfer with op flags on the SEND and on the RECV. */
int lb_sched_transfer_flags(struct lb_schedule *s, uint32_t src, uint32_t dst,
			    uint32_t lane, uint32_t block, uint8_t send_flags,
			    uint8_t recv_flags);

/* New schedule sized from the parameters (block = slice). */
struct lb_schedule *lb_sched_for(const struct lb_algo_params *prm,
				 const char *name, uint32_t nblocks);

/* Frees s and returns NULL: for builders' error paths. */
struct lb_schedule *lb_sched_abandon(struct lb_schedule *s);

#endif
