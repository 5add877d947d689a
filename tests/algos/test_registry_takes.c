/* The registry's `takes` (algos/algos.h) against what the builders do: for
 * every homogeneous algorithm, changing an option it is said to take
 * changes its schedule, and changing one it is said not to take leaves the
 * schedule as it was -- so plan, sim and bcast refuse exactly the options
 * that would be ignored, and a new row with a wrong `takes` fails here. */
#include <stdio.h>

#include "algos/algos.h"
#include "check.h"

/* 8 ranks (doubling and ring both run), 2 lanes, 8 slices, one site. */
static const struct lb_algo_params BASE = {
	.ranks = 8, .root = 0, .lanes = 2, .bytes = 4096, .slice_bytes = 512,
	.allgather = LB_ALLGATHER_AUTO, .sites = 1,
};

/* Op i of kind k on the lane from index *at on, or NULL. */
static const struct lb_op *next_of(const struct lb_op *op, uint32_t n, uint32_t *at, int kind)
{
	while (*at < n && op[*at].kind != kind)
		(*at)++;
	return *at < n ? &op[(*at)++] : NULL;
}

/* The same SENDs and the same RECVs on every (rank, lane), each kind in
 * its order (schedule.h: a lane's SENDs go in list order, its RECVs do not
 * wait for them, so how the two interleave in the list means nothing).
 * With renumbered, blocks may be numbered otherwise: the allgathers' root
 * is the rank whose chunk is block 0, every chunk the same size, so nothing
 * a run measures moves. */
static int same_lane(const struct lb_op *a, uint32_t n, const struct lb_op *b, uint32_t m,
		     int renumbered)
{
	for (int kind = LB_SEND; kind <= LB_BARRIER; kind++) {
		uint32_t i = 0, j = 0;
		const struct lb_op *x, *y;
		do {
			x = next_of(a, n, &i, kind), y = next_of(b, m, &j, kind);
			if (!x != !y || (x && (x->peer != y->peer || x->nblocks != y->nblocks ||
					       x->flags != y->flags ||
					       (!renumbered && x->first_block != y->first_block))))
				return 0;
		} while (x);
	}
	return 1;
}

static int same_ops(const struct lb_schedule *x, const struct lb_schedule *y, int renumbered)
{
	if (x->nblocks != y->nblocks)
		return 0;
	for (uint32_t r = 0; r < x->ranks; r++)
		for (uint32_t l = 0; l < x->lanes; l++) {
			uint32_t n, m;
			const struct lb_op *a = lb_lane_ops(x, r, l, &n), *b = lb_lane_ops(y, r, l, &m);
			if (!same_lane(a, n, b, m, renumbered))
				return 0;
		}
	return 1;
}

/* Whether prm's schedule differs from BASE's. */
static int changes(const struct lb_algo *a, const struct lb_algo_params *prm, int renumbered)
{
	char err[300];
	struct lb_schedule *x = lb_algo_build(a, &BASE, err, sizeof(err));
	struct lb_schedule *y = x ? lb_algo_build(a, prm, err, sizeof(err)) : NULL;
	CHECK(x && y, "%s: %s", a->name, err);
	int differ = x && y && !same_ops(x, y, renumbered);
	lb_sched_free(x);
	lb_sched_free(y);
	return differ;
}

static void check_option(const struct lb_algo *a, unsigned bit, const char *option,
			 struct lb_algo_params prm)
{
	int said = (a->takes & bit) != 0, does = changes(a, &prm, bit == LB_TAKES_ROOT);
	CHECK(said == does, "%s: takes %s says %d, its schedule %s", a->name, option, said,
	      does ? "changes" : "stays");
}

int main(void)
{
	for (size_t i = 0; i < lb_nalgos; i++) {
		const struct lb_algo *a = &lb_algos[i];
		struct lb_algo_params p;
		if (a->needs)
			continue; /* the platform algorithms: tests/cli/algo_opts_test.sh */
		p = BASE, p.root = 3;
		check_option(a, LB_TAKES_ROOT, "-r", p);
		p = BASE, p.slice_bytes = 0;
		check_option(a, LB_TAKES_SLICE, "-s", p);
		p = BASE, p.stripe_off = 1;
		check_option(a, LB_TAKES_STRIPE, "--stripe", p);
		p = BASE, p.allgather = LB_ALLGATHER_RING; /* auto: doubling at 8 */
		check_option(a, LB_TAKES_ALLGATHER, "--allgather", p);
		p = BASE, p.sites = 2;
		check_option(a, LB_TAKES_SITE_FORM, "--sites", p);
	}
	return check_status("algo-takes");
}
