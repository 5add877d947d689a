/* Seed 002's heuristics on a platform with sites (docs/papers.md#seed002): the
 * problem of algos/fkaier/coord.h read from the platform, and the schedule that
 * carries its answer.
 *
 * Clusters are the platform's sites, each with its coordinator (the
 * `coordinator` line, by default the site's lowest rank); the root stands
 * in for its own site's coordinator, and its site is the source.  Between
 * coordinators i and j: L_ij = the lat of their link on the WAN lane and
 * g_ij = its occ + M / bw (the whole message: the heuristics' sends are
 * atomic), the very link the simulator charges.  T_k = the site's
 * `local-bcast` when given (model-only platforms, and seed 002's
 * generators), else the site algorithm's refined model (its cost_refined) on the
 * site's ranks, with the coordinator's link to the site's next rank (lat +
 * occ, bw) as l and B; 0 for a site of one rank.
 *
 * Lanes and clock: with k >= 2 lanes the coordinators' sends go on lane
 * k - 1 (the WAN lane) and each site's broadcast on lanes 0 .. k - 2, so a
 * coordinator forwards between sites while its site broadcasts: clock V1
 * (overlap).  With one lane both share lane 0 and a coordinator's site
 * broadcast starts after its last send between sites: clock V3.  The
 * model's time is the clock the schedule runs; with one slice (the whole
 * message) the simulator's per-lane model gives that same time when every
 * T_k is the site broadcast's own time.
 *
 * The schedule: every send of the order, in decision order, as one
 * transfer per block on the WAN lane (with several slices a coordinator
 * may forward a slice before the next arrives: pipelined, a lanebench
 * extension; the model stays atomic), then each site's broadcast from its
 * coordinator (lb_emit_subschedule).  Blocks: the site algorithm's block
 * count, which must be the same on every site. */
#ifndef LB_COORD_PLATFORM_H
#define LB_COORD_PLATFORM_H

#include <stddef.h>
#include <stdint.h>

#include "algos/algos.h"
#include "coord.h"

#define LB_COORD_SITE_ALGO_DEFAULT "binomial" /* [002 3.1]: the homogeneous optimum */

struct lb_coord_problem {
	struct lb_coord_in in;     /* n = sites, source = the root's site */
	uint32_t *coord;           /* [sites]: each site's coordinator (the root for its own) */
	uint32_t *member, *start;  /* site k's ranks: member[start[k] .. start[k + 1]) */
	uint32_t wan_lane, site_lanes; /* sites on lanes 0 .. site_lanes - 1 */
	const struct lb_algo *site_algo;
	uint32_t nblocks;          /* the site algorithm's, on every site */
};

/* The problem prm poses (prm->platform with sites).  0, or -1 with the
 * reason in err: no sites, a rank in none, an unknown or platform site
 * algorithm, a site it cannot run on, block counts that differ between
 * sites, coordinators without a link between them, no memory. */
int lb_coord_problem_make(const struct lb_algo_params *prm, struct lb_coord_problem *cp,
			  char *err, size_t errlen);
void lb_coord_problem_free(struct lb_coord_problem *cp);

#endif
