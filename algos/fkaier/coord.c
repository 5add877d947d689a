/* Seed 002's coordinator heuristics (coord.h): the selection rules of
 * docs/papers.md#seed002-heuristics over the clock of
 * docs/papers.md#seed002-clock. */
#include "coord.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const NAMES[LB_COORD_HEURISTICS] = {
	"flat", "ecef", "ecef-la", "ecef-lat-min", "ecef-lat-max",
	"bottomup", "bottomup-nort", "mostcrit",
};

const char *lb_coord_name(enum lb_coord_heuristic h)
{
	return (unsigned)h < LB_COORD_HEURISTICS ? NAMES[h] : NULL;
}

int lb_coord_find(const char *name)
{
	for (int h = 0; h < LB_COORD_HEURISTICS; h++)
		if (strcmp(NAMES[h], name) == 0)
			return h;
	return -1;
}

/* The state of the loop: who holds the message, ready times, arrivals. */
struct state {
	const struct lb_coord_in *in;
	char *in_a;     /* [n] */
	double *rt;     /* [n] RT_i */
	double *arrive; /* [n] */
};

struct pick {
	uint32_t i, j;
	uint8_t factor;
};

static double g_of(const struct state *st, uint32_t i, uint32_t j)
{
	return st->in->g[(size_t)i * st->in->n + j];
}

static double reach(const struct state *st, uint32_t i, uint32_t j)
{
	return g_of(st, i, j) + st->in->lat[(size_t)i * st->in->n + j];
}

/* Look-ahead F_j over B \ {j}: min or max of g_jk + L_jk (+ T_k). */
enum look { LOOK_NONE, LOOK_LA, LOOK_T_MIN, LOOK_T_MAX };

static double look_ahead(const struct state *st, uint32_t j, enum look look)
{
	if (look == LOOK_NONE)
		return 0;
	double f = NAN;
	for (uint32_t k = 0; k < st->in->n; k++) {
		if (st->in_a[k] || k == j)
			continue;
		double v = reach(st, j, k) + (look == LOOK_LA ? 0 : st->in->T[k]);
		if (isnan(f) || (look == LOOK_T_MAX ? v > f : v < f))
			f = v;
	}
	return isnan(f) ? 0 : f;
}

/* ecef and its look-ahead variants: the pair of least RT_i + g + L + F_j,
 * scanned i then j ascending with a strict '<' (ties: smaller i, then j). */
static struct pick min_pair(const struct state *st, enum look look)
{
	struct pick p = { 0 };
	double best = INFINITY;
	int any = 0;
	for (uint32_t j = 0; j < st->in->n; j++) {
		if (st->in_a[j])
			continue;
		double f = look_ahead(st, j, look);
		for (uint32_t i = 0; i < st->in->n; i++) {
			if (!st->in_a[i])
				continue;
			double v = st->rt[i] + reach(st, i, j) + f;
			if (!any || v < best || (v == best && (i < p.i || (i == p.i && j < p.j))))
				best = v, p.i = i, p.j = j, any = 1;
		}
	}
	return p;
}

/* min_i (RT_i +) g_ij + L_ij and its argmin (smaller i on ties). */
static double quickest(const struct state *st, uint32_t j, int with_rt, uint32_t *sender)
{
	double best = INFINITY;
	*sender = st->in->source;
	for (uint32_t i = 0; i < st->in->n; i++) {
		double v = (with_rt ? st->rt[i] : 0) + reach(st, i, j);
		if (st->in_a[i] && v < best)
			best = v, *sender = i;
	}
	return best;
}

/* bottomup: the most loaded receiver through its quickest sender. */
static struct pick bottom_up(const struct state *st, int with_rt)
{
	struct pick p = { 0 };
	double best = -INFINITY;
	int any = 0;
	for (uint32_t j = 0; j < st->in->n; j++) {
		uint32_t i;
		double v = st->in_a[j] ? 0 : quickest(st, j, with_rt, &i) + st->in->T[j];
		if (!st->in_a[j] && (!any || v > best))
			best = v, p.i = i, p.j = j, any = 1;
	}
	return p;
}

static double dispersion(const double *e, uint32_t m, enum lb_coord_dispersion d)
{
	double mean = 0, dev = 0;
	for (uint32_t k = 0; k < m; k++)
		mean += e[k] / m;
	for (uint32_t k = 0; k < m; k++)
		dev += (d == LB_COORD_STDDEV ? (e[k] - mean) * (e[k] - mean) : fabs(e[k] - mean)) / m;
	return d == LB_COORD_STDDEV ? sqrt(dev) : dev;
}

/* mostcrit's factor: the set E1, E2 or E3 of the largest dispersion
 * (ties: 3, then 2, then 1).  e: room for 3 n values. */
static int most_critical(const struct state *st, double *e)
{
	uint32_t n = st->in->n, m = 0;
	for (uint32_t j = 0; j < n; j++) {
		uint32_t i;
		if (st->in_a[j])
			continue;
		double e1 = quickest(st, j, 1, &i);
		e[m] = e1, e[n + m] = e1 + look_ahead(st, j, LOOK_LA), e[2 * n + m] = e1 + st->in->T[j];
		m++;
	}
	double d[3];
	for (int f = 0; f < 3; f++)
		d[f] = dispersion(e + (size_t)f * n, m, st->in->dispersion);
	int best = 3;
	if (d[1] > d[best - 1])
		best = 2;
	if (d[0] > d[best - 1])
		best = 1;
	return best;
}

static struct pick choose(const struct state *st, enum lb_coord_heuristic h, double *scratch)
{
	switch (h) {
	case LB_COORD_FLAT: {
		uint32_t j = 0;
		while (st->in_a[j])
			j++;
		return (struct pick){ st->in->source, j, 0 };
	}
	case LB_COORD_ECEF: return min_pair(st, LOOK_NONE);
	case LB_COORD_ECEF_LA: return min_pair(st, LOOK_LA);
	case LB_COORD_ECEF_LAT_MIN: return min_pair(st, LOOK_T_MIN);
	case LB_COORD_ECEF_LAT_MAX: return min_pair(st, LOOK_T_MAX);
	case LB_COORD_BOTTOMUP: return bottom_up(st, 1);
	case LB_COORD_BOTTOMUP_NORT: return bottom_up(st, 0);
	default: break;
	}
	int factor = most_critical(st, scratch);
	struct pick p = factor == 1 ? min_pair(st, LOOK_NONE) : factor == 2 ? min_pair(st, LOOK_LA)
									 : bottom_up(st, 1);
	p.factor = (uint8_t)factor;
	return p;
}

/* docs/papers.md#seed002-clock: the receiver holds it after the gap and the
 * latency; the sender is busy for the gap; V2 broadcasts locally before sending
 * on. */
static void apply(struct state *st, struct pick p)
{
	const struct lb_coord_in *in = st->in;
	st->arrive[p.j] = st->rt[p.i] + reach(st, p.i, p.j);
	st->rt[p.i] += g_of(st, p.i, p.j);
	st->rt[p.j] = st->arrive[p.j] + (in->clock == LB_COORD_V2 ? in->T[p.j] : 0);
	st->in_a[p.j] = 1;
}

static double completion(const struct state *st)
{
	double t = 0;
	for (uint32_t j = 0; j < st->in->n; j++) {
		double start = st->in->clock == LB_COORD_V3 ? st->rt[j] : st->arrive[j];
		t = fmax(t, start + st->in->T[j]);
	}
	return t;
}

double lb_coord_order(const struct lb_coord_in *in, enum lb_coord_heuristic h,
		      struct lb_coord_send *sends)
{
	uint32_t n = in->n;
	struct state st = { .in = in, .in_a = calloc(n, 1), .rt = calloc(n, sizeof(double)),
			    .arrive = calloc(n, sizeof(double)) };
	double *scratch = malloc(3 * (size_t)n * sizeof(double));
	double t = NAN;
	if (st.in_a && st.rt && st.arrive && scratch) {
		st.in_a[in->source] = 1;
		st.rt[in->source] = in->clock == LB_COORD_V2 ? in->T[in->source] : 0;
		for (uint32_t k = 0; k + 1 < n; k++) {
			struct pick p = choose(&st, h, scratch);
			apply(&st, p);
			sends[k] = (struct lb_coord_send){ p.i, p.j, st.arrive[p.j], p.factor };
		}
		t = completion(&st);
	}
	free(st.in_a);
	free(st.rt);
	free(st.arrive);
	free(scratch);
	return t;
}
