/* Sites (seed 003 section 3.2, seed 002's clusters): ranks split into
 * contiguous ranges joined by a WAN.  A site map is `sites` + 1 rank
 * boundaries: site i is ranks first[i] .. first[i + 1] - 1, first[0] = 0 and
 * first[sites] = ranks.  A NULL map means the even split of
 * lb_site_first/lb_site_of (algos/schedule.h), the default of --sites N;
 * sites of unequal sizes ("The number of nodes in each site can be
 * different" [003 3.2]) come from --site-sizes 16,8,8 or a platform's
 * "site S ranks" lines. */
#ifndef LB_SITES_H
#define LB_SITES_H

#include <stddef.h>
#include <stdint.h>

#include "schedule.h"

struct lb_platform;

/* First rank of site i (i == sites gives ranks), map or even split. */
static inline uint32_t lb_sites_start(const uint32_t *first, uint32_t ranks,
				      uint32_t sites, uint32_t i)
{
	return first ? first[i] : lb_site_first(ranks, sites, i);
}

/* The site of rank r: a binary search of the map, or the even split's. */
static inline uint32_t lb_sites_find(const uint32_t *first, uint32_t ranks,
				     uint32_t sites, uint32_t r)
{
	if (!first)
		return lb_site_of(ranks, sites, r);
	uint32_t lo = 0, hi = sites; /* first[lo] <= r < first[hi] */
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (first[mid] <= r)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* 0 when first[] is a map of `sites` non-empty sites over `ranks` ranks,
 * else -1 with the reason in err. */
int lb_sites_check(const uint32_t *first, uint32_t sites, uint32_t ranks,
		   char *err, size_t errlen);

/* Parses "16,8,8" (each size >= 1) into a malloc'd map (*first, caller
 * frees) of *sites sites.  -1 with err naming the bad token ("site size
 * 'x8': not a number"). */
int lb_sites_parse_sizes(const char *list, uint32_t **first, uint32_t *sites,
			 char *err, size_t errlen);

/* The map of a platform's "site S ranks" lines: every node in a site,
 * site 0's ranks first, then site 1's, each a contiguous range.  -1 with
 * err naming the first node out of place ("node 5: in site 0 after site
 * 1's ranks: sites must be contiguous rank ranges in site order"); a
 * platform without sites gives -1 too ("no site lines"). */
int lb_sites_from_platform(const struct lb_platform *pf, uint32_t **first,
			   uint32_t *sites, char *err, size_t errlen);

#endif
