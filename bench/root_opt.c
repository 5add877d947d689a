#include <stdio.h>
#include <string.h>

#include "algos/williams_parsons/hbsp.h"
#include "lib/units.h"
#include "root_opt.h"

int lb_cli_check_roots(void *target, const char *arg, char *err, size_t errlen)
{
	if (strcmp(arg, LB_ROOT_FASTEST) != 0 && lb_check_rank_list(arg, err, errlen))
		return -1;
	*(const char **)target = arg;
	return 0;
}

int lb_cli_set_root(void *target, const char *arg, char *err, size_t errlen)
{
	uint64_t v;
	if (strcmp(arg, LB_ROOT_FASTEST) == 0) {
		*(uint32_t *)target = LB_ROOT_FASTEST_RANK;
		return 0;
	}
	if (lb_parse_uint(arg, 0, LB_MAX_RANKS - 1, &v, err, errlen))
		return -1;
	*(uint32_t *)target = (uint32_t)v;
	return 0;
}

void lb_cli_show_root(const void *target, struct lb_buf *out)
{
	uint32_t root = *(const uint32_t *)target;
	if (root == LB_ROOT_FASTEST_RANK)
		lb_buf_add(out, "%s", LB_ROOT_FASTEST);
	else
		lb_buf_add(out, "%u", root);
}

int lb_cli_root_fastest(const struct lb_cmd *cmd, const struct lb_platform *pf,
			uint32_t *root)
{
	if (!pf) {
		lb_cli_error(cmd, "root", "fastest needs --platform FILE (the ranks are ranked by its nodes' rates)");
		return -1;
	}
	*root = lb_hbsp_fastest(pf);
	return 0;
}
