/* The site map of a command's --sites N, --site-sizes LIST or its
 * platform's "site" lines (algos/sites.h), for plan, sim and bcast. */
#ifndef LB_SITE_OPT_H
#define LB_SITE_OPT_H

#include <stdint.h>

#include "cli.h"

struct lb_platform;

struct lb_cli_sites {
	uint32_t sites;  /* >= 1 */
	uint32_t *first; /* [sites + 1], malloc'd; NULL: the even split */
	uint32_t ranks;  /* the ranks the map covers; 0 with the even split */
};

/* --site-sizes when given (its count must agree with --sites N > 1), else
 * with --sites 1 the platform's site lines when it has some, else the even
 * split of --sites.  Returns 0, or -1 after saying why, naming the option
 * and the bad token. */
int lb_cli_sites_resolve(const struct lb_cmd *cmd, uint32_t sites, const char *sizes,
			 const struct lb_platform *pf, struct lb_cli_sites *out);

/* With a map, the rank count must be its total: 0, or -1 said. */
int lb_cli_sites_check_ranks(const struct lb_cmd *cmd, const struct lb_cli_sites *st,
			     uint64_t ranks);

#endif
