/* Platform generators of seed 000's experiments
 * (docs/papers.md#seed000-experiments): random graphs (Table 2) and a
 * TIERS-like three-level WAN/MAN/LAN generator.
 *
 * Both are pure and deterministic: the same parameters and seed give the
 * same platform on every machine (a splitmix64 stream of their own, never
 * rand()).  Topology and bandwidths come from two separate streams, so a
 * change in the bandwidth law does not move the edges.
 *
 * What the paper leaves open, and the readings taken here:
 *   - Bandwidth: Gaussian, mean 100 MB/s, deviation 20 MB/s (MB = 10^6
 *     bytes), a draw <= 1 MB/s drawn again; one draw per undirected pair
 *     (both directions equal) unless `asymmetric`.
 *   - Latency and occupation 0: the experiments draw bandwidths only.
 *   - Multi-port send_u = 0.80 * min over u's out-edges of T_{u,w}, at a
 *     slice of `send_slice` bytes (default 1 MB, the paper's unit): stored
 *     as node u's `send`, so it is right for that slice size only.
 *   - random: connectivity is forced by a uniformly random spanning tree
 *     first (a random permutation, node k attached to a uniformly chosen
 *     earlier one), then every other pair is present with probability
 *     `density` (so the measured density is a little above it).
 *   - tiers-like: one WAN (as TIERS), `nm` MANs under it, `nl` LANs under
 *     each MAN.  The WAN's nodes are uniform in the unit square; a MAN's
 *     lie within 0.1 of a uniform centre, a LAN's within 0.02 of a uniform
 *     node of its MAN.  A WAN or MAN is its Euclidean minimum spanning tree,
 *     a LAN a star on its first node; then every node of a network is also
 *     joined to its `r` nearest neighbours in that network (intranetwork
 *     redundancy).  A MAN is joined to the WAN by `rmw` edges: its `rmw`
 *     nodes nearest to the WAN, each to its nearest WAN node; a LAN to its
 *     MAN by `rlm` edges alike (internetwork redundancy; at least 1).
 *     Node ids: the WAN first, then each MAN, then each LAN (TIERS's own
 *     order), or with `shuffle` a random permutation of them (a stream of
 *     its own): an id-based algorithm such as seed 000's binomial tree
 *     then sees no hierarchy in the numbering.
 */
#ifndef LB_PLATGEN_H
#define LB_PLATGEN_H

#include <stddef.h>
#include <stdint.h>

#include "net/platform.h"

enum lb_platgen_kind {
	LB_PLATGEN_RANDOM,
	LB_PLATGEN_TIERS,
};

struct lb_platgen_tiers {
	uint32_t sw;          /* nodes of the WAN */
	uint32_t nm, sm;      /* MANs, nodes per MAN */
	uint32_t nl, sl;      /* LANs per MAN, nodes per LAN */
	uint32_t rw, rm, rl;  /* intranetwork redundancy: nearest neighbours */
	uint32_t rmw, rlm;    /* internetwork redundancy: edges MAN-WAN, LAN-MAN */
};

struct lb_platgen {
	enum lb_platgen_kind kind;
	uint64_t seed;
	uint32_t nodes;       /* random; tiers-like: derived from `tiers` */
	double density;       /* random: probability of each extra pair */
	int asymmetric;       /* one bandwidth draw per direction */
	int shuffle;          /* tiers-like: node ids a random permutation */
	double bw_mean, bw_dev; /* bytes/s */
	uint64_t send_slice;  /* bytes: the slice send_u is stated for */
	struct lb_platgen_tiers tiers;
};

/* Defaults of a kind.  For tiers-like, `nodes` picks a preset: 30 (WAN 10 + 4
 * MANs x 5, rw = rm = 3, rmw = 2) or 65 (WAN 13 + 4 MANs x 13, rw = rm = 4, rmw
 * = 3), the two presets of docs/papers.md#seed000-experiments; 0 = the 30-node
 * one.  Returns -1 for another tiers-like node count (give the network sizes
 * instead). */
int lb_platgen_defaults(struct lb_platgen *g, enum lb_platgen_kind kind,
			uint32_t nodes);

/* Node count the parameters give (tiers-like: sw + nm*sm + nm*nl*sl). */
uint32_t lb_platgen_nodes(const struct lb_platgen *g);

/* A sealed one-lane platform, or NULL with the reason in err (a parameter
 * out of range, named). */
struct lb_platform *lb_platgen_make(const struct lb_platgen *g, char *err,
				    size_t errlen);

/* One line "generator: tiers-like seed=7 nodes=30 sw=10 ..." naming every
 * parameter, so a generated file says how it was made.  Returns what
 * snprintf returns. */
int lb_platgen_describe(const struct lb_platgen *g, char *buf, size_t len);

/* Undirected density of lane 0: pairs with a link either way over
 * nodes*(nodes-1)/2. */
double lb_platgen_density(const struct lb_platform *pf);

#endif
