/* Seed 002's heuristics as registry algorithms (coord_platform.h). */
#include "coord_platform.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/build.h"
#include "algos/compose.h"
#include "net/platform.h"

void lb_coord_problem_free(struct lb_coord_problem *cp)
{
	free(cp->coord);
	free(cp->member);
	free(cp->start);
	free((double *)cp->in.g);
	free((double *)cp->in.lat);
	free((double *)cp->in.T);
	memset(cp, 0, sizeof(*cp));
}

/* Sites' ranks grouped (counting sort by site), coordinators, source. */
static const char *group_sites(const struct lb_algo_params *prm, struct lb_coord_problem *cp,
			       char *buf, size_t len)
{
	const struct lb_platform *pf = prm->platform;
	uint32_t n = pf->sites;
	for (uint32_t u = 0; u < pf->nodes; u++)
		if (pf->node[u].site == LB_PLATFORM_NO_SITE) {
			snprintf(buf, len, "rank %u is in no site (every rank needs a 'site S ranks' line)", u);
			return buf;
		}
	for (uint32_t u = 0; u < pf->nodes; u++)
		cp->start[pf->node[u].site + 1]++;
	for (uint32_t k = 0; k < n; k++)
		cp->start[k + 1] += cp->start[k];
	uint32_t *fill = calloc(n, sizeof(*fill));
	if (!fill)
		return "out of memory";
	for (uint32_t u = 0; u < pf->nodes; u++) {
		uint32_t k = pf->node[u].site;
		cp->member[cp->start[k] + fill[k]++] = u;
	}
	free(fill);
	for (uint32_t k = 0; k < n; k++)
		cp->coord[k] = pf->site[k].coordinator;
	cp->in.source = pf->node[prm->root].site;
	cp->coord[cp->in.source] = prm->root;
	return NULL;
}

static struct lb_subschedule site_sub(const struct lb_algo_params *prm,
				      const struct lb_coord_problem *cp, uint32_t k)
{
	return (struct lb_subschedule){
		.ranks = cp->member + cp->start[k], .n = cp->start[k + 1] - cp->start[k],
		.root = cp->coord[k], .algo = cp->site_algo, .first_lane = 0,
		.sub_lanes = cp->site_lanes, .slice_bytes = prm->slice_bytes,
		.stripe_off = prm->stripe_off, .allgather = prm->allgather,
	};
}

/* The site algorithm can run on every site, with one block count. */
static const char *check_sites(const struct lb_algo_params *prm, struct lb_coord_problem *cp,
			       char *buf, size_t len)
{
	for (uint32_t k = 0; k < cp->in.n; k++) {
		struct lb_subschedule sub = site_sub(prm, cp, k);
		struct lb_algo_params sp;
		char why[200];
		lb_subschedule_params(&sub, prm->bytes, &sp);
		uint32_t blocks = (uint32_t)lb_subschedule_blocks(&sub, prm->bytes);
		if (lb_algo_check(cp->site_algo, &sp, why, sizeof(why)))
			snprintf(buf, len, "site %u: %s", k, why);
		else if (k > 0 && blocks != cp->nblocks)
			snprintf(buf, len, "--site-algo %s cuts the message into %u blocks on site 0 "
				 "and %u on site %u: it needs one block count on every site",
				 cp->site_algo->name, cp->nblocks, blocks, k);
		else {
			cp->nblocks = blocks;
			continue;
		}
		return buf;
	}
	return NULL;
}

/* T_k: the site's local-bcast, or the site algorithm's refined model. */
static double site_time(const struct lb_algo_params *prm, const struct lb_coord_problem *cp,
			uint32_t k)
{
	const struct lb_platform *pf = prm->platform;
	uint32_t first = cp->start[k], n = cp->start[k + 1] - first;
	if (pf->site[k].local_bcast > 0)
		return pf->site[k].local_bcast;
	if (n < 2)
		return 0;
	uint32_t other = cp->member[first] == cp->coord[k] ? cp->member[first + 1] : cp->member[first];
	struct lb_link l = lb_platform_link(pf, cp->coord[k], other, 0);
	const struct lb_cost_in in = {
		.ranks = n, .lanes = cp->site_lanes, .bytes = prm->bytes,
		.slice_bytes = prm->slice_bytes, .latency = l.lat + l.occ, .lane_bw = l.bw,
		.allgather = prm->allgather, .stripe_off = prm->stripe_off,
	};
	return cp->site_algo->cost_refined(&in);
}

/* g, L between every two coordinators on the WAN lane; T per site. */
static const char *pair_times(const struct lb_algo_params *prm, struct lb_coord_problem *cp,
			      double *g, double *lat, double *T, char *buf, size_t len)
{
	uint32_t n = cp->in.n;
	for (uint32_t i = 0; i < n; i++) {
		T[i] = site_time(prm, cp, i);
		for (uint32_t j = 0; j < n; j++) {
			if (i == j)
				continue;
			struct lb_link l = lb_platform_link(prm->platform, cp->coord[i], cp->coord[j],
							    cp->wan_lane);
			if (!(l.bw > 0)) {
				snprintf(buf, len, "sites %u and %u: no link from %s %u to %s %u on lane %u "
					 "(the heuristics may pair any two coordinators; the root stands in "
					 "for its site's)", i, j, i == cp->in.source ? "root" : "coordinator",
					 cp->coord[i], j == cp->in.source ? "root" : "coordinator",
					 cp->coord[j], cp->wan_lane);
				return buf;
			}
			g[(size_t)i * n + j] = l.occ + (double)prm->bytes / l.bw;
			lat[(size_t)i * n + j] = l.lat;
		}
	}
	return NULL;
}

static const char *alloc_problem(const struct lb_algo_params *prm, struct lb_coord_problem *cp,
				 double **g, double **lat, double **T)
{
	uint32_t n = prm->platform->sites;
	cp->coord = calloc(n, sizeof(*cp->coord));
	cp->start = calloc((size_t)n + 1, sizeof(*cp->start));
	cp->member = calloc(prm->platform->nodes, sizeof(*cp->member));
	*g = calloc((size_t)n * n, sizeof(double));
	*lat = calloc((size_t)n * n, sizeof(double));
	*T = calloc(n, sizeof(double));
	cp->in.g = *g, cp->in.lat = *lat, cp->in.T = *T;
	return cp->coord && cp->start && cp->member && *g && *lat && *T ? NULL : "out of memory";
}

int lb_coord_problem_make(const struct lb_algo_params *prm, struct lb_coord_problem *cp,
			  char *err, size_t errlen)
{
	const struct lb_platform *pf = prm->platform;
	const char *name = prm->site_algo ? prm->site_algo : LB_COORD_SITE_ALGO_DEFAULT, *why = NULL;
	char buf[300];
	double *g = NULL, *lat = NULL, *T = NULL;
	memset(cp, 0, sizeof(*cp));
	cp->site_algo = lb_algo_find(name);
	cp->in.n = pf ? pf->sites : 0;
	cp->wan_lane = prm->lanes - 1;
	cp->site_lanes = prm->lanes > 1 ? prm->lanes - 1 : 1;
	cp->in.clock = prm->lanes > 1 ? LB_COORD_V1 : LB_COORD_V3;
	if (!pf || pf->sites == 0)
		why = "needs a platform with sites ('site S ranks LIST' lines)";
	else if (!cp->site_algo || !lb_algo_homogeneous_bcast(cp->site_algo))
		snprintf(buf, sizeof(buf), "--site-algo %s: %s", name, !cp->site_algo ? "no such algorithm"
			 : cp->site_algo->needs ? "a platform algorithm cannot run inside a site"
			 : "an allgather, not a broadcast (each site broadcasts from its coordinator)"),
			why = buf;
	else if (!(why = alloc_problem(prm, cp, &g, &lat, &T)) &&
		 !(why = group_sites(prm, cp, buf, sizeof(buf))) &&
		 !(why = check_sites(prm, cp, buf, sizeof(buf))))
		why = pair_times(prm, cp, g, lat, T, buf, sizeof(buf));
	if (why) {
		snprintf(err, errlen, "%s", why);
		cp->in.g = g, cp->in.lat = lat, cp->in.T = T;
		lb_coord_problem_free(cp);
		return -1;
	}
	return 0;
}

int lb_check_coord(const struct lb_algo_params *prm, char *err, size_t errlen)
{
	struct lb_coord_problem cp;
	if (lb_coord_problem_make(prm, &cp, err, errlen))
		return -1;
	lb_coord_problem_free(&cp);
	return 0;
}

/* The order's sends on the WAN lane, then every site's broadcast. */
static int emit(struct lb_schedule *s, const struct lb_algo_params *prm,
		const struct lb_coord_problem *cp, const struct lb_coord_send *send)
{
	char err[300];
	for (uint32_t k = 0; k + 1 < cp->in.n; k++)
		for (uint32_t b = 0; b < s->nblocks; b++)
			if (lb_sched_transfer(s, cp->coord[send[k].from], cp->coord[send[k].to],
					      cp->wan_lane, b, 1))
				return -1;
	for (uint32_t k = 0; k < cp->in.n; k++) {
		struct lb_subschedule sub = site_sub(prm, cp, k);
		if (lb_emit_subschedule(s, &sub, err, sizeof(err)))
			return -1;
	}
	return 0;
}

/* Builders have no error channel: lb_algo_check ran lb_check_coord, so a
 * failure here is memory, reported by lb_algo_build. */
static struct lb_schedule *build(const struct lb_algo_params *prm, const char *name,
				 enum lb_coord_heuristic h)
{
	struct lb_coord_problem cp;
	char err[300];
	if (lb_coord_problem_make(prm, &cp, err, sizeof(err)))
		return NULL;
	struct lb_coord_send *send = malloc(cp.in.n * sizeof(*send));
	struct lb_schedule *s = send ? lb_sched_for(prm, name, cp.nblocks) : NULL;
	if (s && (isnan(lb_coord_order(&cp.in, h, send)) || emit(s, prm, &cp, send)))
		s = lb_sched_abandon(s);
	free(send);
	lb_coord_problem_free(&cp);
	return s;
}

static double makespan(const struct lb_algo_params *prm, enum lb_coord_heuristic h)
{
	struct lb_coord_problem cp;
	char err[300];
	if (lb_coord_problem_make(prm, &cp, err, sizeof(err)))
		return NAN;
	struct lb_coord_send *send = malloc(cp.in.n * sizeof(*send));
	double t = send ? lb_coord_order(&cp.in, h, send) : NAN;
	free(send);
	lb_coord_problem_free(&cp);
	return t;
}

#define COORD_ALGO(fn, name, h)                                             \
	struct lb_schedule *lb_build_coord_##fn(const struct lb_algo_params *prm) \
	{                                                                   \
		return build(prm, name, h);                                 \
	}                                                                   \
	double lb_makespan_coord_##fn(const struct lb_algo_params *prm)     \
	{                                                                   \
		return makespan(prm, h);                                    \
	}

COORD_ALGO(flat, "flat", LB_COORD_FLAT)
COORD_ALGO(ecef, "ecef", LB_COORD_ECEF)
COORD_ALGO(ecef_la, "ecef-la", LB_COORD_ECEF_LA)
COORD_ALGO(ecef_lat_min, "ecef-lat-min", LB_COORD_ECEF_LAT_MIN)
COORD_ALGO(ecef_lat_max, "ecef-lat-max", LB_COORD_ECEF_LAT_MAX)
COORD_ALGO(bottomup, "bottomup", LB_COORD_BOTTOMUP)
COORD_ALGO(bottomup_nort, "bottomup-nort", LB_COORD_BOTTOMUP_NORT)
COORD_ALGO(mostcrit, "mostcrit", LB_COORD_MOSTCRIT)
