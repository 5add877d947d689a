/* Seed 002's settings drawn, and the platforms that carry them
 * (clustergen.h). */
#include "clustergen.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"

/* [002 Tables 1-2]: min and max of L (us), g (ms), T (ms). */
struct setting {
	const char *name;
	double lat[2], g[2], T[2];
};

static const struct setting SETTINGS[] = {
	{ "g5k", { 1, 15 }, { 100, 600 }, { 200, 3000 } },
	{ "x5", { 5, 75 }, { 500, 3000 }, { 40, 600 } },
	{ "x10", { 10, 150 }, { 1000, 6000 }, { 20, 300 } },
};

#define NSETTINGS (sizeof(SETTINGS) / sizeof(SETTINGS[0]))
#define MAX_NODES LB_PLATFORM_MAX_NODES

void lb_clustergen_defaults(struct lb_clustergen *g, enum lb_clustergen_setting setting)
{
	*g = (struct lb_clustergen){ .setting = setting, .seed = 1, .clusters = 10,
				     .site_ranks = 4, .lanes = 2, .bytes = 1 << 20 };
}

int lb_clustergen_setting_find(const char *name)
{
	for (size_t i = 0; i < NSETTINGS; i++)
		if (strcmp(SETTINGS[i].name, name) == 0)
			return (int)i;
	return -1;
}

const char *lb_clustergen_setting_name(enum lb_clustergen_setting s)
{
	return (unsigned)s < NSETTINGS ? SETTINGS[s].name : NULL;
}

static double uniform(struct lb_rng *r, const double range[2], double unit)
{
	return (range[0] + (range[1] - range[0]) * lb_rng_unit(r)) * unit;
}

void lb_cluster_draw_free(struct lb_cluster_draw *d)
{
	free(d->g);
	free(d->lat);
	free(d->T);
	d->g = d->lat = d->T = NULL;
}

int lb_clustergen_draw(const struct lb_clustergen *g, struct lb_cluster_draw *d)
{
	uint32_t n = g->clusters;
	const struct setting *st = &SETTINGS[g->setting];
	struct lb_rng pairs = { g->seed }, loads = { g->seed ^ 0x6a09e667f3bcc909ull };
	d->n = n;
	d->g = calloc((size_t)n * n, sizeof(double));
	d->lat = calloc((size_t)n * n, sizeof(double));
	d->T = calloc(n, sizeof(double));
	if (!d->g || !d->lat || !d->T) {
		lb_cluster_draw_free(d);
		return -1;
	}
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = i + 1; j < n; j++) {
			double lat = uniform(&pairs, st->lat, 1e-6), gap = uniform(&pairs, st->g, 1e-3);
			d->lat[(size_t)i * n + j] = d->lat[(size_t)j * n + i] = lat;
			d->g[(size_t)i * n + j] = d->g[(size_t)j * n + i] = gap;
		}
	for (uint32_t k = 0; k < n; k++)
		d->T[k] = uniform(&loads, st->T, 1e-3);
	return 0;
}

static const char *check_params(const struct lb_clustergen *g, char *buf, size_t len)
{
	if ((unsigned)g->setting >= NSETTINGS)
		return "unknown setting";
	if (g->clusters == 0 || g->site_ranks == 0 ||
	    (uint64_t)g->clusters * g->site_ranks > MAX_NODES) {
		snprintf(buf, len, "clusters %u x site ranks %u: each at least 1, at most %u nodes",
			 g->clusters, g->site_ranks, MAX_NODES);
		return buf;
	}
	if (g->lanes == 0 || g->lanes > LB_PLATFORM_MAX_LANES) {
		snprintf(buf, len, "lanes %u: must be 1..%u", g->lanes, LB_PLATFORM_MAX_LANES);
		return buf;
	}
	return g->bytes ? NULL : "the message must be at least 1 byte";
}

static uint32_t ceil_log2(uint32_t r)
{
	uint32_t d = 0;
	while ((1ull << d) < r)
		d++;
	return d;
}

static int link_both(struct lb_platform *pf, uint32_t u, uint32_t v, double lat, double bw)
{
	struct lb_link l = { .lat = lat, .bw = bw };
	unsigned f = LB_LINK_LAT | LB_LINK_OCC | LB_LINK_BW;
	return lb_platform_set_link(pf, u, v, LB_PLATFORM_ALL_LANES, f, &l) ||
	       lb_platform_set_link(pf, v, u, LB_PLATFORM_ALL_LANES, f, &l);
}

/* Site k: its ranks, coordinator, T_k and the links that make a whole-
 * message binomial broadcast take T_k. */
static int add_site(struct lb_platform *pf, const struct lb_clustergen *g, uint32_t k, double T)
{
	uint32_t first = k * g->site_ranks, r = g->site_ranks;
	pf->site[k] = (struct lb_site){ .coordinator = first, .local_bcast = T };
	for (uint32_t u = first; u < first + r; u++)
		pf->node[u].site = k;
	double bw = (double)g->bytes * ceil_log2(r) / T;
	for (uint32_t u = first; u < first + r; u++)
		for (uint32_t v = u + 1; v < first + r; v++)
			if (link_both(pf, u, v, 0, bw))
				return -1;
	return 0;
}

static int add_wans(struct lb_platform *pf, const struct lb_clustergen *g,
		    const struct lb_cluster_draw *d)
{
	uint32_t n = d->n;
	pf->wan = calloc(n > 1 ? (size_t)n * (n - 1) / 2 : 1, sizeof(*pf->wan));
	if (!pf->wan)
		return -1;
	for (uint32_t a = 0; a < n; a++)
		for (uint32_t b = a + 1; b < n; b++) {
			double lat = d->lat[(size_t)a * n + b], bw = (double)g->bytes / d->g[(size_t)a * n + b];
			pf->wan[pf->nwan++] = (struct lb_wan){ a, b, lat, bw };
			if (link_both(pf, a * g->site_ranks, b * g->site_ranks, lat, bw))
				return -1;
		}
	return 0;
}

static struct lb_platform *build(const struct lb_clustergen *g, const struct lb_cluster_draw *d)
{
	struct lb_platform *pf = lb_platform_new(g->clusters * g->site_ranks, g->lanes);
	if (!pf || !(pf->site = calloc(g->clusters, sizeof(*pf->site))))
		goto fail;
	pf->sites = g->clusters;
	for (uint32_t k = 0; k < g->clusters; k++)
		if (add_site(pf, g, k, d->T[k]))
			goto fail;
	if (add_wans(pf, g, d) || lb_platform_seal(pf))
		goto fail;
	return pf;
fail:
	lb_platform_free(pf);
	return NULL;
}

struct lb_platform *lb_clustergen_make(const struct lb_clustergen *g, char *err,
				       size_t errlen)
{
	char buf[160];
	const char *why = check_params(g, buf, sizeof(buf));
	struct lb_cluster_draw d = { 0 };
	struct lb_platform *pf = NULL;
	if (!why && lb_clustergen_draw(g, &d) == 0)
		pf = build(g, &d);
	lb_cluster_draw_free(&d);
	if (!pf)
		snprintf(err, errlen, "clusters: %s", why ? why : "out of memory");
	return pf;
}

int lb_clustergen_describe(const struct lb_clustergen *g, char *buf, size_t len)
{
	const struct setting *st = &SETTINGS[g->setting];
	return snprintf(buf, len,
			"generator: clusters setting=%s seed=%llu clusters=%u site-ranks=%u lanes=%u "
			"bytes=%llu L=%g-%gus g=%g-%gms T=%g-%gms",
			st->name, (unsigned long long)g->seed, g->clusters, g->site_ranks, g->lanes,
			(unsigned long long)g->bytes, st->lat[0], st->lat[1], st->g[0], st->g[1],
			st->T[0], st->T[1]);
}
