/* Seed 004's HBSP^k gathers and broadcasts as schedules
 * (docs/papers.md#seed004-costs): supersteps of transfers on lane 0 (HBSP has
 * one network per level; the other lanes only carry the barriers), each ended
 * by a BARRIER of the ranks it concerns, costing the platform's L.  The machine
 * (sites, coordinators, shares) is lb_hbsp_machine_of's, so the closed forms
 * and the schedules see the same shares to the byte. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "algos/build.h"
#include "hbsp.h"

#define HBSP_LANE 0

/* A builder's state: the machine and the schedule it fills. */
struct hbsp {
	struct lb_hbsp_machine m;
	struct lb_schedule *s;
	uint32_t g_all, g_coords, *g_site; /* barrier groups */
};

/* Groups: everyone (L_{1,0}), the coordinators (L_{2,0}), each site. */
static int add_groups(struct hbsp *h)
{
	const struct lb_hbsp_machine *m = &h->m;
	uint32_t *all = malloc(m->p * sizeof(*all));
	int64_t g = -1;
	h->g_site = malloc(m->sites * sizeof(*h->g_site));
	if (all && h->g_site) {
		for (uint32_t j = 0; j < m->p; j++)
			all[j] = j;
		g = lb_sched_add_group(h->s, all, m->p, m->L2);
		h->g_all = (uint32_t)g;
		g = g < 0 ? g : lb_sched_add_group(h->s, m->coord, m->sites, m->L2);
		h->g_coords = (uint32_t)g;
		for (uint32_t c = 0; g >= 0 && c < m->sites; c++) {
			g = lb_sched_add_group(h->s, m->order + m->site_first[c], m->members[c], m->L1[c]);
			h->g_site[c] = (uint32_t)g;
		}
	}
	free(all);
	return g < 0 ? -1 : 0;
}

/* The machine and an empty schedule of nblocks (nblocks 0: one per rank,
 * at the shares of all ranks in block order). */
static int hbsp_begin(struct hbsp *h, const struct lb_algo_params *prm, const char *name,
		      uint32_t nblocks)
{
	*h = (struct hbsp){ 0 };
	if (lb_hbsp_machine_of(prm, &h->m))
		return -1;
	h->s = lb_sched_for(prm, name, nblocks ? nblocks : prm->ranks);
	if (!h->s || add_groups(h))
		return -1;
	if (nblocks)
		return 0;
	uint64_t *off = lb_sched_set_offsets(h->s);
	for (uint32_t i = 0; off && i <= h->m.p; i++) /* the shares, in bytes */
		off[i] = i == 0 ? 0 : off[i - 1] + (uint64_t)(h->m.c[h->m.order[i - 1]] * h->m.n + 0.5);
	return off ? 0 : -1;
}

static struct lb_schedule *hbsp_end(struct hbsp *h, int rc)
{
	struct lb_schedule *s = h->s;
	lb_hbsp_machine_free(&h->m);
	free(h->g_site);
	return rc ? lb_sched_abandon(s) : s;
}

static int xfer(struct hbsp *h, uint32_t src, uint32_t dst, uint32_t first, uint32_t n)
{
	return src == dst ? 0 : lb_sched_transfer(h->s, src, dst, HBSP_LANE, first, n);
}

/* Gathers: block i is the share of rank order[i], which owns it. */
static int own_blocks(struct hbsp *h)
{
	uint32_t *owner = lb_sched_set_owners(h->s);
	for (uint32_t i = 0; owner && i < h->m.p; i++)
		owner[i] = h->m.order[i];
	h->s->want = LB_WANT_ROOT;
	return owner ? 0 : -1;
}

/* HBSP^1 gather: everyone sends its share to the root; one barrier. */
struct lb_schedule *lb_build_hbsp1_gather(const struct lb_algo_params *prm)
{
	struct hbsp h;
	int rc = hbsp_begin(&h, prm, "hbsp1-gather", 0) || own_blocks(&h);
	for (uint32_t i = 0; !rc && i < h.m.p; i++)
		rc = xfer(&h, h.m.order[i], h.m.root, i, 1);
	rc = rc || lb_sched_barrier(h.s, h.g_all);
	return hbsp_end(&h, rc);
}

/* HBSP^2 gather: a gather to the coordinator in every site (super^1, the
 * site's barrier), then each coordinator's site to the root (super^2, the
 * coordinators' barrier). */
struct lb_schedule *lb_build_hbsp2_gather(const struct lb_algo_params *prm)
{
	struct hbsp h;
	int rc = hbsp_begin(&h, prm, "hbsp2-gather", 0) || own_blocks(&h);
	const struct lb_hbsp_machine *m = &h.m;
	for (uint32_t c = 0; !rc && c < m->sites; c++) {
		for (uint32_t i = m->site_first[c]; !rc && i < m->site_first[c + 1]; i++)
			rc = xfer(&h, m->order[i], m->coord[c], i, 1);
		rc = rc || lb_sched_barrier(h.s, h.g_site[c]);
	}
	for (uint32_t c = 0; !rc && c < m->sites; c++)
		rc = xfer(&h, m->coord[c], m->root, m->site_first[c], m->members[c]);
	rc = rc || lb_sched_barrier(h.s, h.g_coords);
	return hbsp_end(&h, rc);
}

/* Two-phase broadcast among ranks[0..k) from `from`, piece i = blocks
 * [first[i], first[i + 1]) for ranks[i]: the scatter, a barrier, the total
 * exchange (step t: everyone sends its piece t places on), a barrier. */
static int two_phase(struct hbsp *h, const uint32_t *ranks, uint32_t k, uint32_t from,
		     const uint32_t *first, uint32_t group)
{
	int rc = 0;
	for (uint32_t i = 0; !rc && i < k; i++)
		rc = xfer(h, from, ranks[i], first[i], first[i + 1] - first[i]);
	rc = rc || lb_sched_barrier(h->s, group);
	for (uint32_t t = 1; !rc && t < k; t++)
		for (uint32_t i = 0; !rc && i < k; i++) {
			uint32_t to = ranks[(i + t) % k];
			if (to != from)
				rc = xfer(h, ranks[i], to, first[i], first[i + 1] - first[i]);
		}
	return rc || lb_sched_barrier(h->s, group);
}

/* HBSP^1 two-phase broadcast: the root scatters the shares, then all
 * exchange them. */
struct lb_schedule *lb_build_hbsp1_bcast(const struct lb_algo_params *prm)
{
	struct hbsp h;
	int rc = hbsp_begin(&h, prm, "hbsp1-bcast", 0);
	uint32_t *first = rc ? NULL : malloc((h.m.p + 1) * sizeof(*first));
	for (uint32_t i = 0; first && i <= h.m.p; i++)
		first[i] = i;
	rc = rc || !first || two_phase(&h, h.m.order, h.m.p, h.m.root, first, h.g_all);
	free(first);
	return hbsp_end(&h, rc);
}

/* HBSP^1 one-phase broadcast: the root sends everything to everyone. */
struct lb_schedule *lb_build_hbsp1_bcast_1phase(const struct lb_algo_params *prm)
{
	struct hbsp h;
	int rc = hbsp_begin(&h, prm, "hbsp1-bcast-1phase", 1);
	for (uint32_t j = 0; !rc && j < h.m.p; j++)
		rc = xfer(&h, h.m.root, j, 0, 1);
	rc = rc || lb_sched_barrier(h.s, h.g_all);
	return hbsp_end(&h, rc);
}

static uint64_t share_bytes(const struct lb_hbsp_machine *m, double share)
{
	return (uint64_t)(share * m->n + 0.5);
}

static int by_offset(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* The blocks of the HBSP^2 broadcast: cut wherever a site's share or (two-
 * phase super^2) a coordinator's ends, so each piece is a run of blocks.
 * pts (room for p + sites + 1) gets the offsets; returns the block count. */
static uint32_t bcast2_cuts(const struct lb_hbsp_machine *m, uint64_t *pts)
{
	uint32_t k = 0, nb = 0;
	uint64_t at = 0;
	pts[k++] = 0;
	for (uint32_t c = 0; c < m->sites; c++, at = 0)
		for (uint32_t i = m->site_first[c]; i < m->site_first[c + 1]; i++)
			pts[k++] = at += share_bytes(m, m->cs[m->order[i]]);
	for (uint32_t c = 0; m->super2 == LB_SUPER2_2PHASE && c < m->sites; c++)
		pts[k++] = at += share_bytes(m, m->cc[c]);
	qsort(pts, k, sizeof(*pts), by_offset);
	for (uint32_t i = 1; i < k; i++)
		if (pts[i] != pts[nb])
			pts[++nb] = pts[i];
	return nb;
}

/* The first block of each of k pieces of the given shares (by rank, or
 * by index when ranks is NULL), into first[0..k]. */
static void piece_blocks(const struct lb_schedule *s, const struct lb_hbsp_machine *m,
			 const double *share, const uint32_t *ranks, uint32_t k, uint32_t *first)
{
	uint64_t at = 0;
	uint32_t b = 0;
	for (uint32_t i = 0; i <= k; i++) {
		while (lb_block_offset(s, b) < at)
			b++;
		first[i] = b;
		if (i < k)
			at += share_bytes(m, share[ranks ? ranks[i] : i]);
	}
}

/* The root to the coordinators: everything to each (one phase), or the
 * two-phase broadcast among them. */
static int bcast2_super2(struct hbsp *h, uint32_t *first)
{
	const struct lb_hbsp_machine *m = &h->m;
	int rc = 0;
	if (m->sites < 2)
		return 0;
	if (m->super2 == LB_SUPER2_2PHASE) {
		piece_blocks(h->s, m, m->cc, NULL, m->sites, first);
		return two_phase(h, m->coord, m->sites, m->root, first, h->g_coords);
	}
	for (uint32_t c = 0; !rc && c < m->sites; c++)
		rc = xfer(h, m->root, m->coord[c], 0, h->s->nblocks);
	return rc || lb_sched_barrier(h->s, h->g_coords);
}

/* HBSP^2 broadcast: super^2 (--super2), then a two-phase broadcast from
 * each coordinator in its site. */
struct lb_schedule *lb_build_hbsp2_bcast(const struct lb_algo_params *prm)
{
	struct hbsp h = { 0 };
	const struct lb_hbsp_machine *m = &h.m;
	uint64_t *pts = malloc(((size_t)prm->ranks * 2 + 2) * sizeof(*pts));
	uint32_t *first = malloc(((size_t)prm->ranks + 2) * sizeof(*first));
	int rc = !pts || !first || lb_hbsp_machine_of(prm, &h.m);
	uint32_t nb = rc ? 0 : bcast2_cuts(m, pts);
	lb_hbsp_machine_free(&h.m);
	rc = rc || hbsp_begin(&h, prm, "hbsp2-bcast", nb);
	uint64_t *off = rc ? NULL : lb_sched_set_offsets(h.s);
	for (uint32_t b = 0; off && b <= nb; b++)
		off[b] = pts[b];
	rc = rc || !off || bcast2_super2(&h, first);
	for (uint32_t c = 0; !rc && c < m->sites; c++) {
		if (m->members[c] < 2)
			continue;
		const uint32_t *ranks = m->order + m->site_first[c];
		piece_blocks(h.s, m, m->cs, ranks, m->members[c], first);
		rc = two_phase(&h, ranks, m->members[c], m->coord[c], first, h.g_site[c]);
	}
	free(pts);
	free(first);
	return hbsp_end(&h, rc);
}

int lb_check_hbsp(const struct lb_algo_params *prm, char *err, size_t errlen)
{
	if (prm->bytes >= prm->ranks)
		return 0;
	snprintf(err, errlen, "%llu bytes cannot give each of %u ranks a share of one byte",
		 (unsigned long long)prm->bytes, prm->ranks);
	return -1;
}

/* The closed forms of the registry's hbsp column. */
static double hbsp_seconds(const struct lb_algo_params *prm, enum lb_hbsp_algo a)
{
	struct lb_hbsp_machine m;
	if (lb_hbsp_machine_of(prm, &m))
		return NAN;
	double t = lb_hbsp_cost(a, &m);
	lb_hbsp_machine_free(&m);
	return t;
}

double lb_hbsp_seconds_hbsp1_gather(const struct lb_algo_params *prm)
{
	return hbsp_seconds(prm, LB_HBSP1_GATHER);
}

double lb_hbsp_seconds_hbsp2_gather(const struct lb_algo_params *prm)
{
	return hbsp_seconds(prm, LB_HBSP2_GATHER);
}

double lb_hbsp_seconds_hbsp1_bcast(const struct lb_algo_params *prm)
{
	return hbsp_seconds(prm, LB_HBSP1_BCAST);
}

double lb_hbsp_seconds_hbsp1_bcast_1phase(const struct lb_algo_params *prm)
{
	return hbsp_seconds(prm, LB_HBSP1_BCAST_1PHASE);
}

double lb_hbsp_seconds_hbsp2_bcast(const struct lb_algo_params *prm)
{
	return hbsp_seconds(prm, LB_HBSP2_BCAST);
}
