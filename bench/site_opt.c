/* Site maps from the options; see site_opt.h. */
#include "site_opt.h"

#include <stdlib.h>

#include "net/platform.h"
#include "algos/sites.h"

static int from_sizes(const struct lb_cmd *cmd, uint32_t sites, const char *sizes,
		      struct lb_cli_sites *out)
{
	char err[256];
	if (lb_sites_parse_sizes(sizes, &out->first, &out->sites, err, sizeof(err))) {
		lb_cli_error(cmd, "site-sizes", "%s", err);
		return -1;
	}
	if (sites > 1 && sites != out->sites) {
		lb_cli_error(cmd, "sites", "%u sites, but --site-sizes %s lists %u", sites, sizes,
			     out->sites);
		free(out->first);
		out->first = NULL;
		return -1;
	}
	out->ranks = out->first[out->sites];
	return 0;
}

int lb_cli_sites_resolve(const struct lb_cmd *cmd, uint32_t sites, const char *sizes,
			 const struct lb_platform *pf, struct lb_cli_sites *out)
{
	char err[256];
	*out = (struct lb_cli_sites){ .sites = sites ? sites : 1 };
	if (sizes)
		return from_sizes(cmd, sites, sizes, out);
	if (!pf || pf->sites == 0 || sites > 1)
		return 0;
	if (lb_sites_from_platform(pf, &out->first, &out->sites, err, sizeof(err))) {
		lb_cli_error(cmd, "platform", "its sites: %s", err);
		return -1;
	}
	out->ranks = pf->nodes;
	return 0;
}

int lb_cli_sites_check_ranks(const struct lb_cmd *cmd, const struct lb_cli_sites *st,
			     uint64_t ranks)
{
	if (!st->first || ranks == st->ranks)
		return 0;
	lb_cli_error(cmd, "ranks", "%llu ranks, but the %u sites hold %u",
		     (unsigned long long)ranks, st->sites, st->ranks);
	return -1;
}
