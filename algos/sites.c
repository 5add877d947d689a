/* Site maps; see sites.h. */
#include "sites.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/platform.h"

int lb_sites_check(const uint32_t *first, uint32_t sites, uint32_t ranks,
		   char *err, size_t errlen)
{
	if (sites == 0 || first[0] != 0 || first[sites] != ranks) {
		snprintf(err, errlen, "%u sites cover ranks %u..%u, not the %u ranks",
			 sites, first[0], first[sites > 0 ? sites : 0], ranks);
		return -1;
	}
	for (uint32_t i = 0; i < sites; i++)
		if (first[i + 1] <= first[i]) {
			snprintf(err, errlen, "site %u has no ranks", i);
			return -1;
		}
	return 0;
}

/* One size of the list, [tok, end): a whole number >= 1 that keeps the
 * total within uint32_t. */
static int parse_size(const char *tok, size_t n, uint32_t total, uint32_t *size,
		      char *err, size_t errlen)
{
	char buf[32], *end;
	if (n == 0 || n >= sizeof(buf)) {
		snprintf(err, errlen, "site size '%.*s': expected a whole number >= 1", (int)n, tok);
		return -1;
	}
	memcpy(buf, tok, n);
	buf[n] = 0;
	errno = 0;
	unsigned long long v = buf[0] >= '0' && buf[0] <= '9' ? strtoull(buf, &end, 10) : 0;
	if (errno || v == 0 || *end || v > UINT32_MAX - total) {
		snprintf(err, errlen, "site size '%s': expected a whole number >= 1", buf);
		return -1;
	}
	*size = (uint32_t)v;
	return 0;
}

int lb_sites_parse_sizes(const char *list, uint32_t **first, uint32_t *sites,
			 char *err, size_t errlen)
{
	size_t n = 1;
	for (const char *c = list; *c; c++)
		n += *c == ',';
	uint32_t *f = malloc((n + 1) * sizeof(*f));
	if (!f) {
		snprintf(err, errlen, "site sizes '%s': out of memory", list);
		return -1;
	}
	f[0] = 0;
	const char *tok = list;
	for (size_t i = 0; i < n; i++) {
		size_t len = strcspn(tok, ",");
		uint32_t size;
		if (parse_size(tok, len, f[i], &size, err, errlen)) {
			free(f);
			return -1;
		}
		f[i + 1] = f[i] + size;
		tok += len + 1;
	}
	*first = f;
	*sites = (uint32_t)n;
	return 0;
}

/* Walks the nodes: each site's ranks one range, the sites in order. */
static int contiguous(const struct lb_platform *pf, uint32_t *f, char *err, size_t errlen)
{
	uint32_t cur = 0;
	f[0] = 0;
	for (uint32_t u = 0; u < pf->nodes; u++) {
		uint32_t s = pf->node[u].site;
		if (s == LB_PLATFORM_NO_SITE) {
			snprintf(err, errlen, "node %u: in no site (every node needs one)", u);
			return -1;
		}
		if (u > 0 && s == cur + 1)
			f[++cur] = u;
		else if (s != cur) {
			snprintf(err, errlen, "node %u: in site %u after site %u's ranks: sites must be contiguous rank ranges in site order",
				 u, s, cur);
			return -1;
		}
	}
	if (cur + 1 != pf->sites) {
		snprintf(err, errlen, "site %u has no ranks", cur + 1);
		return -1;
	}
	f[pf->sites] = pf->nodes;
	return 0;
}

int lb_sites_from_platform(const struct lb_platform *pf, uint32_t **first,
			   uint32_t *sites, char *err, size_t errlen)
{
	if (pf->sites == 0) {
		snprintf(err, errlen, "the platform has no site lines");
		return -1;
	}
	uint32_t *f = malloc(((size_t)pf->sites + 1) * sizeof(*f));
	if (!f) {
		snprintf(err, errlen, "platform sites: out of memory");
		return -1;
	}
	if (contiguous(pf, f, err, errlen)) {
		free(f);
		return -1;
	}
	*first = f;
	*sites = pf->sites;
	return 0;
}
