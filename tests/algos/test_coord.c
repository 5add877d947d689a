/* Seed 002's coordinator heuristics (algos/fkaier/coord.h) on the
 * worked example of docs/papers.md#seed002-example, four clusters worked
 * by hand: every heuristic's sends in decision
 * order with their arrival times, its makespan, and mostcrit's factors. */
#include <math.h>
#include <stdio.h>

#include "algos/fkaier/coord.h"
#include "check.h"

/* g (ms), symmetric: g01 = 2, g02 = 5, g03 = 4, g12 = 1, g13 = 6, g23 = 3;
 * L = 1 everywhere; T = (3, 2, 8, 5). */
static const double G[16] = { 0, 2, 5, 4, 2, 0, 1, 6, 5, 1, 0, 3, 4, 6, 3, 0 };
static const double L[16] = { 0, 1, 1, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1, 1, 1, 0 };
static const double T[4] = { 3, 2, 8, 5 };

struct expect {
	const char *name;
	uint32_t send[3][2];
	double arrive[3], makespan;
};

static const struct expect C2[] = {
	{ "flat", { { 0, 1 }, { 0, 2 }, { 0, 3 } }, { 3, 8, 12 }, 17 },
	{ "ecef", { { 0, 1 }, { 1, 2 }, { 0, 3 } }, { 3, 5, 7 }, 13 },
	{ "ecef-la", { { 0, 1 }, { 1, 2 }, { 0, 3 } }, { 3, 5, 7 }, 13 },
	{ "ecef-lat-min", { { 0, 2 }, { 0, 3 }, { 2, 1 } }, { 6, 10, 8 }, 15 },
	{ "ecef-lat-max", { { 0, 1 }, { 1, 2 }, { 0, 3 } }, { 3, 5, 7 }, 13 },
	{ "bottomup", { { 0, 2 }, { 0, 3 }, { 2, 1 } }, { 6, 10, 8 }, 15 },
	{ "mostcrit", { { 0, 2 }, { 0, 3 }, { 2, 1 } }, { 6, 10, 8 }, 15 },
};

static void check_order(const struct lb_coord_in *in, const struct expect *e)
{
	struct lb_coord_send s[3];
	int h = lb_coord_find(e->name);
	CHECK(h >= 0, "%s: no such heuristic", e->name);
	if (h < 0)
		return;
	double t = lb_coord_order(in, (enum lb_coord_heuristic)h, s);
	for (int k = 0; k < 3; k++)
		CHECK(s[k].from == e->send[k][0] && s[k].to == e->send[k][1] &&
			      s[k].arrive == e->arrive[k],
		      "%s send %d: %u->%u@%g, want %u->%u@%g", e->name, k, s[k].from, s[k].to,
		      s[k].arrive, e->send[k][0], e->send[k][1], e->arrive[k]);
	CHECK(t == e->makespan, "%s: makespan %g, want %g", e->name, t, e->makespan);
	for (int k = 0; k < 3; k++) /* C.2: factor 3 at every step (the last by the tie rule) */
		CHECK(s[k].factor == (h == LB_COORD_MOSTCRIT ? 3 : 0), "%s step %d: factor %u",
		      e->name, k, s[k].factor);
}

/* V2 by hand: the source broadcasts locally first (RT0 = 3); step 2 ties
 * 0->3 and 1->2 at 10, the smaller sender wins. */
static void check_v2(void)
{
	struct lb_coord_in in = { .n = 4, .g = G, .lat = L, .T = T, .clock = LB_COORD_V2 };
	struct lb_coord_send s[3];
	double t = lb_coord_order(&in, LB_COORD_ECEF, s);
	CHECK(s[0].to == 1 && s[0].arrive == 6 && s[1].from == 0 && s[1].to == 3 &&
		      s[1].arrive == 10 && s[2].from == 1 && s[2].to == 2 && s[2].arrive == 10,
	      "ecef V2: %u->%u@%g %u->%u@%g %u->%u@%g", s[0].from, s[0].to, s[0].arrive,
	      s[1].from, s[1].to, s[1].arrive, s[2].from, s[2].to, s[2].arrive);
	CHECK(t == 18, "ecef V2 makespan %g, want 18", t);
	in.clock = LB_COORD_V3; /* flat: the source's last send ends at 11, + T0 */
	t = lb_coord_order(&in, LB_COORD_FLAT, s);
	CHECK(t == 17, "flat V3 makespan %g, want max(11 + 3, 8 + 8, 12 + 5) = 17", t);
}

/* One cluster: nothing to send, the makespan is its own broadcast. */
static void check_edges(void)
{
	double one = 4;
	struct lb_coord_in in = { .n = 1, .g = &one, .lat = &one, .T = &one };
	CHECK(lb_coord_order(&in, LB_COORD_MOSTCRIT, NULL) == 4, "one cluster");
	CHECK(lb_coord_find("nope") == -1 && lb_coord_name(LB_COORD_HEURISTICS) == NULL, "names");
}

int main(void)
{
	struct lb_coord_in in = { .n = 4, .source = 0, .g = G, .lat = L, .T = T };
	for (size_t i = 0; i < sizeof(C2) / sizeof(C2[0]); i++)
		check_order(&in, &C2[i]);
	check_v2();
	in.dispersion = LB_COORD_STDDEV; /* step 1: sd 1.25, 1.70, 3.68: factor 3 all the same */
	check_order(&in, &C2[6]);
	check_edges();
	return check_status("coord");
}
