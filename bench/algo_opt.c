/* Options only some algorithms take; see algo_opt.h. */
#include "algo_opt.h"

#include <string.h>

const char *const lb_stripe_choices[] = { "on", "off", NULL };
const char *const lb_allgather_choices[] = { "auto", "doubling", "ring", NULL };
const char *const lb_balance_choices[] = { "equal", "speed", NULL };
const char *const lb_super2_choices[] = { "1phase", "2phase", NULL };

/* LB_TAKES_SITE_FORM, or (the network's sites) any homogeneous algorithm */
#define TAKES_SITES (1u << 30)
/* a refined model (lb_slice_auto's), or (the network's alpha) any algorithm */
#define TAKES_REFINED (1u << 29)

/* Which lb_algo_takes bit each option needs; options not listed are every
 * algorithm's (or not about algorithms). */
static const struct {
	const char *option;
	unsigned bit;
} scope[] = {
	{ "root", LB_TAKES_ROOT },
	{ "slice", LB_TAKES_SLICE },
	{ "stripe", LB_TAKES_STRIPE },
	{ "allgather", LB_TAKES_ALLGATHER },
	{ "balance", LB_TAKES_BALANCE },
	{ "super2", LB_TAKES_SUPER2 },
	{ "site-algo", LB_TAKES_SITE_ALGO },
	{ "agents", LB_TAKES_AGENTS },
	{ "sites", TAKES_SITES },
	{ "site-sizes", TAKES_SITES },
	{ "wan-alpha", TAKES_SITES },
	{ "wan-bw", TAKES_SITES },
	{ "wan-lat", TAKES_SITES },
	{ "alpha", TAKES_REFINED },
	{ "bw", TAKES_REFINED },
};

static unsigned bit_of(const char *option)
{
	for (size_t j = 0; j < sizeof(scope) / sizeof(scope[0]); j++)
		if (strcmp(option, scope[j].option) == 0)
			return scope[j].bit;
	return 0;
}

static int takes(const struct lb_algo *a, unsigned bit, const struct lb_cli_algo_opts *ao)
{
	unsigned t = lb_algo_takes(a, ao->site_algo);
	if (bit == TAKES_SITES)
		return (t & LB_TAKES_SITE_FORM) || (ao->network_sites && !a->needs);
	if (bit == TAKES_REFINED)
		return ao->network_alpha || a->cost_refined;
	return (t & bit) != 0;
}

/* "a, b, c": the algorithms that take bit (want 1) or not (want 0), of the
 * chosen set (of_set) or of the whole registry. */
static void names(char *buf, size_t len, unsigned bit, int want,
		  const struct lb_cli_algo_opts *ao, int of_set)
{
	size_t n = of_set ? ao->n : lb_nalgos, at = 0;
	buf[0] = 0;
	for (size_t i = 0; i < n && at < len; i++) {
		const struct lb_algo *a = of_set ? ao->algos[i] : &lb_algos[i];
		if (takes(a, bit, ao) == want)
			at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? ", " : "", a->name);
	}
}

/* A given option: refused (-1) when no chosen algorithm takes it, a note
 * when only some do. */
static int check_one(const struct lb_cmd *cmd, const char *option, unsigned bit,
		     const struct lb_cli_algo_opts *ao)
{
	char with[1024], without[1024], others[1024];
	names(with, sizeof(with), bit, 1, ao, 1);
	names(without, sizeof(without), bit, 0, ao, 1);
	if (!without[0])
		return 0;
	if (with[0]) {
		lb_cli_error(cmd, option, "applied to %s; not taken by %s (run without it)",
			     with, without);
		return 0;
	}
	names(with, sizeof(with), bit, 1, ao, 0);
	names(others, sizeof(others), bit, 0, ao, 0);
	if (strlen(others) < strlen(with)) /* the shorter list */
		lb_cli_error(cmd, option, "applies to every algorithm but %s; not to %s", others,
			     without);
	else
		lb_cli_error(cmd, option, "applies to %s; not to %s", with, without);
	return -1;
}

/* multilane sends half the message on the even lanes and half on the odd
 * ones (algos/multilane.c): on an odd k > 1 the odd half has one lane
 * fewer and sets the time, so -k 3 runs exactly as -k 2 -- while every
 * table and CSV would say 3 lanes.  klane is the k-lane algorithm. */
static int check_lanes(const struct lb_cmd *cmd, const struct lb_cli_algo_opts *ao)
{
	size_t multilane = 0;
	for (size_t i = 0; i < ao->n; i++)
		multilane += strcmp(ao->algos[i]->name, "multilane") == 0;
	if (!multilane || ao->lanes < 3 || ao->lanes % 2 == 0)
		return 0;
	const char *option = ao->lanes_option ? ao->lanes_option : "lanes";
	const char *even = ao->lanes_option ? "name an even number of NICs" : "give an even -k";
	if (multilane == ao->n) {
		lb_cli_error(cmd, option, "multilane on %u lanes runs as on %u: it sends one half "
			     "of the message on the even lanes (%u) and the other on the odd lanes "
			     "(%u), and the half with fewer lanes sets the time; %s, or "
			     "-a klane (one part per lane)", ao->lanes, ao->lanes - 1,
			     (ao->lanes + 1) / 2, ao->lanes / 2, even);
		return -1;
	}
	lb_cli_error(cmd, option, "multilane on %u lanes runs as on %u (its half on the odd "
		     "lanes has one lane fewer)", ao->lanes, ao->lanes - 1);
	return 0;
}

int lb_cli_check_algo_opts(const struct lb_cmd *cmd, const unsigned char *given,
			   const struct lb_cli_algo_opts *ao)
{
	if (check_lanes(cmd, ao))
		return -1;
	for (size_t i = 0; i < cmd->nopts; i++) {
		unsigned bit = bit_of(cmd->opts[i].name);
		if (given[i] && bit && check_one(cmd, cmd->opts[i].name, bit, ao))
			return -1;
	}
	return 0;
}
