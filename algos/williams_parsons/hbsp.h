/* Seed 004 (Williams & Parsons, HBSP^k; docs/papers.md#seed004): gather and
 * one-to-all broadcast as bulk-synchronous supersteps separated by
 * barriers, on a platform's ranks and sites.
 *
 * The machine (lb_hbsp_machine_of): rank j's speed B_j is its node rate
 * (else the platform's default bandwidth), its slowness r_j = B_fast / B_j
 * (the fastest has r = 1), and g = 1 / B_fast seconds per byte (an item
 * is a byte: g n does not depend on the item size).  Level 1 is the
 * platform's sites (none: one site of every rank); a site's coordinator
 * is its fastest rank (ties: the lowest), the root's site's is the root.
 * The root is the schedule's (--root): the paper's is the fastest rank
 * (lb_hbsp_fastest, -r fastest), and repro seed004 compares it with the
 * slowest.
 * L_{1,c} is the site's "barrier site" value, L_{2,0} (and HBSP^1's one
 * barrier L_{1,0}) the platform's "barrier all".
 *
 * Work shares c_j (--balance): equal, or proportional to B_j (speed).
 * Each share is one block (or a run of blocks), at least one byte.
 *
 * The closed forms (lb_hbsp_cost) are the paper's Eq. (1) per superstep,
 * h = max_j r_j h_j, with its n where the exact count is a little smaller
 * (docs/papers.md#seed004-costs): they give the values listed there exactly. */
#ifndef LB_HBSP_H
#define LB_HBSP_H

#include <stdint.h>

#include "algos/algos.h"

struct lb_platform;

enum lb_hbsp_algo {
	LB_HBSP1_GATHER,
	LB_HBSP2_GATHER,
	LB_HBSP1_BCAST,        /* two-phase: scatter + total exchange */
	LB_HBSP1_BCAST_1PHASE, /* the root sends everything to everyone */
	LB_HBSP2_BCAST,        /* super^2 (--super2) then two-phase per site */
};

struct lb_hbsp_machine {
	uint32_t p, root, sites;
	double n;              /* bytes */
	double g;              /* seconds per byte at the fastest rank */
	double *r;             /* [p] slowness, >= 1 */
	double *c;             /* [p] share of n: what j holds (gather) or gets
				* in phase 1 (HBSP^1 broadcast) */
	double *cs;            /* [p] share of n within j's site: what j gets
				* in its site's phase 1 (HBSP^2 broadcast) */
	double *cc;            /* [sites] a coordinator's share of the
				* two-phase super^2 scatter */
	uint32_t *site;        /* [p] */
	uint32_t *order;       /* [p] ranks by site, then by rank: the block
				* order of the shares */
	uint32_t *site_first;  /* [sites + 1]: site c is order[site_first[c]
				* .. site_first[c + 1]) */
	uint32_t *coord;       /* [sites] */
	uint32_t *members;     /* [sites]: m_{1,c} */
	double *L1;            /* [sites] L_{1,c} */
	double L2;             /* L_{2,0}; HBSP^1: L_{1,0} */
	enum lb_balance balance;
	enum lb_super2 super2;
};

/* The machine of prm (prm->platform, root, bytes, balance, super2), its
 * arrays malloc'd; 0, or -1 when out of memory. */
int lb_hbsp_machine_of(const struct lb_algo_params *prm, struct lb_hbsp_machine *m);
void lb_hbsp_machine_free(struct lb_hbsp_machine *m);

/* The fastest rank of pf by B_j (ties: the lowest): the paper's root,
 * -r fastest. */
uint32_t lb_hbsp_fastest(const struct lb_platform *pf);

/* The HBSP^k cost of algorithm a on m, in seconds
 * (docs/papers.md#seed004-costs). */
double lb_hbsp_cost(enum lb_hbsp_algo a, const struct lb_hbsp_machine *m);

/* Byte offsets of k shares of `bytes` proportional to w[0..k): off[0] = 0,
 * off[k] = bytes, each share at least one byte (bytes >= k). */
void lb_hbsp_cut(uint64_t bytes, const double *w, uint32_t k, uint64_t *off);

#endif
