/* The options of plan, sim and bcast that only some algorithms take
 * (algos/algos.h's enum lb_algo_takes, set per algorithm in the
 * registry): one the chosen algorithms all ignore is refused, naming the
 * option, the algorithms that take it and those chosen; one that only some
 * of them take is applied to those, and stderr says which ignore it. */
#ifndef LB_BENCH_ALGO_OPT_H
#define LB_BENCH_ALGO_OPT_H

#include "cli.h"

struct lb_cli_algo_opts {
	const struct lb_algo *const *algos; /* the algorithms chosen */
	size_t n;
	const char *site_algo;  /* --site-algo (NULL: binomial) */
	/* sim without --platform, and bcast: the sites are the network's (the
	 * simulator's WAN, bcast's predictions), so --sites, --site-sizes and
	 * --wan-* reach every homogeneous algorithm, not only the site-aware
	 * trees; plan, and sim on a platform (whose links are the network):
	 * 0, only the schedules of those trees change */
	int network_sites;
	/* sim without --platform: --alpha and --bw are the network's, so every
	 * algorithm's; plan, and sim with one: they only choose --slice auto's
	 * slice, by the refined model, so the algorithms that have one */
	int network_alpha;
	/* -k on lanes of one rate (sim and plan without --platform), else 0:
	 * multilane's halves on an odd k (check_lanes in algo_opt.c) */
	uint32_t lanes;
	/* the option lanes came from: NULL for -k (sim, plan), "nics" for
	 * bcast's -d list, which names the lanes one NIC each */
	const char *lanes_option;
};

/* For a command's check_given: 0, or -1 after saying which option no
 * chosen algorithm takes.  Notes on stderr the algorithms that ignore an
 * option others of the set take.  multilane alone on an odd number of
 * lanes above 1 is refused too (it runs as on one lane fewer), beside
 * other algorithms noted. */
int lb_cli_check_algo_opts(const struct lb_cmd *cmd, const unsigned char *given,
			   const struct lb_cli_algo_opts *ao);

#endif
