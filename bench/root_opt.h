/* -r/--root fastest (docs/papers.md#seed004-costs): the root is the platform's
 * fastest rank overall by its nodes' rates (lb_hbsp_fastest), for plan, sim and
 * bcast; without --platform there is no rate to rank by, a usage error. */
#ifndef LB_ROOT_OPT_H
#define LB_ROOT_OPT_H

#include <stdint.h>

#include "cli.h"

struct lb_platform;

#define LB_ROOT_FASTEST "fastest"
#define LB_ROOT_FASTEST_RANK UINT32_MAX /* plan's -r fastest, until resolved */

/* sim and bcast: -r as typed, a rank list or "fastest", kept as text. */
int lb_cli_check_roots(void *target, const char *arg, char *err, size_t errlen);

/* plan: one rank, or "fastest" as LB_ROOT_FASTEST_RANK; its show. */
int lb_cli_set_root(void *target, const char *arg, char *err, size_t errlen);
void lb_cli_show_root(const void *target, struct lb_buf *out);

/* -r fastest as the one root it names: the platform's fastest rank in
 * *root, 0; -1 after saying why when there is no platform. */
int lb_cli_root_fastest(const struct lb_cmd *cmd, const struct lb_platform *pf,
			uint32_t *root);

#endif
