/* Seed 004's machine read from a platform, and the HBSP^k costs of its gathers
 * and broadcasts (docs/papers.md#seed004-costs, checked against the values
 * listed there by tests/algos/test_hbsp.c). */
#include <math.h>
#include <stdlib.h>

#include "hbsp.h"
#include "net/platform.h"

void lb_hbsp_cut(uint64_t bytes, const double *w, uint32_t k, uint64_t *off)
{
	double total = 0, sum = 0;
	for (uint32_t i = 0; i < k; i++)
		total += w[i];
	off[0] = 0;
	for (uint32_t i = 1; i < k; i++) {
		sum += w[i - 1];
		off[i] = i + (uint64_t)floor((double)(bytes - k) * (sum / total));
	}
	off[k] = bytes;
}

/* B_j: the node's rate, within the default bandwidth. */
static double speed(const struct lb_platform *pf, uint32_t j)
{
	double rate = pf->node[j].rate, bw = pf->dflt.bw;
	if (rate > 0 && bw > 0)
		return rate < bw ? rate : bw;
	return rate > 0 ? rate : bw > 0 ? bw : 1;
}

uint32_t lb_hbsp_fastest(const struct lb_platform *pf)
{
	uint32_t best = 0;
	for (uint32_t j = 1; j < pf->nodes; j++)
		if (speed(pf, j) > speed(pf, best))
			best = j;
	return best;
}

/* Sites, ranks in block order (unsited ranks form one more site), the
 * coordinators (fastest; the root in its own site). */
static void place(const struct lb_platform *pf, struct lb_hbsp_machine *m, const double *B)
{
	uint32_t named = pf->sites, unsited = 0;
	for (uint32_t j = 0; j < m->p; j++)
		unsited |= pf->node[j].site == LB_PLATFORM_NO_SITE;
	m->sites = named + unsited;
	for (uint32_t j = 0; j < m->p; j++)
		m->site[j] = pf->node[j].site == LB_PLATFORM_NO_SITE ? named : pf->node[j].site;
	uint32_t k = 0;
	for (uint32_t c = 0; c < m->sites; c++) {
		m->site_first[c] = k;
		m->coord[c] = UINT32_MAX;
		for (uint32_t j = 0; j < m->p; j++) {
			if (m->site[j] != c)
				continue;
			m->order[k++] = j;
			if (m->coord[c] == UINT32_MAX || B[j] > B[m->coord[c]])
				m->coord[c] = j;
		}
		m->members[c] = k - m->site_first[c];
		m->L1[c] = c < named ? pf->site[c].barrier : 0;
	}
	m->site_first[m->sites] = k;
	m->coord[m->site[m->root]] = m->root;
}

/* Shares of n over order[from .. to) by the weights w (by rank) into
 * share[rank] as fractions of n. */
static void shares(const struct lb_hbsp_machine *m, const double *w, uint32_t from,
		   uint32_t to, double *share, uint64_t *off, double *wk)
{
	for (uint32_t i = from; i < to; i++)
		wk[i - from] = w[m->order[i]];
	lb_hbsp_cut((uint64_t)m->n, wk, to - from, off);
	for (uint32_t i = from; i < to; i++)
		share[m->order[i]] = (double)(off[i - from + 1] - off[i - from]) / m->n;
}

/* wk and off have room for p + 1 (sites <= p + 1). */
static void all_shares(struct lb_hbsp_machine *m, const double *w, uint64_t *off, double *wk)
{
	shares(m, w, 0, m->p, m->c, off, wk);
	for (uint32_t c = 0; c < m->sites; c++)
		shares(m, w, m->site_first[c], m->site_first[c + 1], m->cs, off, wk);
	/* the coordinators' weights in wk (its own allocation used to go
	 * unchecked: out of memory left the shares cc unset, the run went on) */
	for (uint32_t c = 0; c < m->sites; c++)
		wk[c] = w[m->coord[c]];
	lb_hbsp_cut((uint64_t)m->n, wk, m->sites, off);
	for (uint32_t c = 0; c < m->sites; c++)
		m->cc[c] = (double)(off[c + 1] - off[c]) / m->n;
}

int lb_hbsp_machine_of(const struct lb_algo_params *prm, struct lb_hbsp_machine *m)
{
	const struct lb_platform *pf = prm->platform;
	uint32_t p = prm->ranks, slots = p + 1;
	*m = (struct lb_hbsp_machine){
		.p = p, .root = prm->root, .n = (double)prm->bytes, .L2 = pf->barrier_all,
		.balance = prm->balance, .super2 = prm->super2,
		.r = malloc(p * sizeof(double)), .c = malloc(p * sizeof(double)),
		.cs = malloc(p * sizeof(double)), .cc = malloc(slots * sizeof(double)),
		.site = malloc(p * sizeof(uint32_t)), .order = malloc(p * sizeof(uint32_t)),
		.site_first = malloc((slots + 1) * sizeof(uint32_t)),
		.coord = malloc(slots * sizeof(uint32_t)), .members = malloc(slots * sizeof(uint32_t)),
		.L1 = malloc(slots * sizeof(double)),
	};
	double *B = malloc(p * sizeof(double)), *wk = malloc(slots * sizeof(double));
	uint64_t *off = malloc((slots + 1) * sizeof(uint64_t));
	int rc = !B || !wk || !off || !m->r || !m->c || !m->cs || !m->cc || !m->site ||
		 !m->order || !m->site_first || !m->coord || !m->members || !m->L1;
	if (!rc) {
		double fast = 0;
		for (uint32_t j = 0; j < p; j++)
			B[j] = speed(pf, j), fast = B[j] > fast ? B[j] : fast;
		for (uint32_t j = 0; j < p; j++)
			m->r[j] = fast / B[j];
		m->g = 1 / fast;
		place(pf, m, B);
		if (prm->balance == LB_BALANCE_EQUAL)
			for (uint32_t j = 0; j < p; j++)
				B[j] = 1;
		all_shares(m, B, off, wk);
	}
	free(B);
	free(wk);
	free(off);
	if (rc)
		lb_hbsp_machine_free(m);
	return rc ? -1 : 0;
}

void lb_hbsp_machine_free(struct lb_hbsp_machine *m)
{
	free(m->r);
	free(m->c);
	free(m->cs);
	free(m->cc);
	free(m->site);
	free(m->order);
	free(m->site_first);
	free(m->coord);
	free(m->members);
	free(m->L1);
	*m = (struct lb_hbsp_machine){ 0 };
}

static double max2(double a, double b)
{
	return a > b ? a : b;
}

/* max over j of r_j c_j (j != skip; UINT32_MAX: none skipped). */
static double max_rc(const struct lb_hbsp_machine *m, const double *c, uint32_t skip)
{
	double h = 0;
	for (uint32_t j = 0; j < m->p; j++)
		if (j != skip)
			h = max2(h, m->r[j] * c[j]);
	return h;
}

/* The slowest r among site c's members (c = UINT32_MAX: all ranks). */
static double slowest(const struct lb_hbsp_machine *m, uint32_t c)
{
	double r = 0;
	for (uint32_t j = 0; j < m->p; j++)
		if (c == UINT32_MAX || m->site[j] == c)
			r = max2(r, m->r[j]);
	return r;
}

/* Bytes of site c's shares: x_{1,c}. */
static double site_bytes(const struct lb_hbsp_machine *m, uint32_t c)
{
	double x = 0;
	for (uint32_t j = 0; j < m->p; j++)
		if (m->site[j] == c)
			x += m->c[j] * m->n;
	return x;
}

/* HBSP^1 gather [004 4.2]: one superstep, everyone to the root. */
static double gather1(const struct lb_hbsp_machine *m)
{
	double h = max2(m->r[m->root] * m->n, max_rc(m, m->c, m->root) * m->n);
	return m->g * h + m->L2;
}

/* HBSP^2 gather [004 4.3]: a gather in every site, then coordinators to
 * the root. */
static double gather2(const struct lb_hbsp_machine *m)
{
	double super1 = 0, h2 = m->r[m->root] * m->n;
	for (uint32_t c = 0; c < m->sites; c++) {
		double xc = site_bytes(m, c), h = m->r[m->coord[c]] * xc;
		for (uint32_t j = 0; j < m->p; j++)
			if (m->site[j] == c)
				h = max2(h, m->r[j] * m->c[j] * m->n);
		super1 = max2(super1, m->g * h + m->L1[c]);
		h2 = max2(h2, m->r[m->coord[c]] * xc);
	}
	return super1 + m->g * h2 + m->L2;
}

/* HBSP^1 two-phase broadcast [004 4.4]: scatter c_j n to each, then a
 * total exchange in which the slowest receives n. */
static double bcast1(const struct lb_hbsp_machine *m)
{
	double h1 = max2(m->r[m->root] * m->n, max_rc(m, m->c, m->root) * m->n);
	return m->g * (h1 + slowest(m, UINT32_MAX) * m->n) + 2 * m->L2;
}

/* HBSP^1 one-phase broadcast: n to each of the m_{1,0} = p processors. */
static double bcast1_1phase(const struct lb_hbsp_machine *m)
{
	double h = max2(m->r[m->root] * m->n * m->p, slowest(m, UINT32_MAX) * m->n);
	return m->g * h + m->L2;
}

/* The super^2 part of the HBSP^2 broadcast [004 4.5]; 0 with one site. */
static double bcast2_super2(const struct lb_hbsp_machine *m)
{
	double r1s = 0, scatter = m->r[m->root] * m->n;
	if (m->sites < 2)
		return 0;
	for (uint32_t c = 0; c < m->sites; c++) {
		r1s = max2(r1s, m->r[m->coord[c]]);
		scatter = max2(scatter, m->r[m->coord[c]] * m->cc[c] * m->n);
	}
	if (m->super2 == LB_SUPER2_1PHASE)
		return m->g * max2(r1s * m->n, m->r[m->root] * m->n * m->sites) + m->L2;
	return m->g * (scatter + r1s * m->n) + 2 * m->L2;
}

/* Site c's two-phase broadcast from its coordinator (the general form of
 * docs/papers.md#seed004-costs); 0 for a site of one rank, which has nothing to
 * do. */
static double bcast2_super1(const struct lb_hbsp_machine *m, uint32_t c)
{
	double h1 = m->r[m->coord[c]];
	if (m->members[c] < 2)
		return 0;
	for (uint32_t j = 0; j < m->p; j++)
		if (m->site[j] == c && j != m->coord[c])
			h1 = max2(h1, m->r[j] * m->cs[j]);
	return m->g * m->n * (h1 + slowest(m, c)) + 2 * m->L1[c];
}

static double bcast2(const struct lb_hbsp_machine *m)
{
	double super1 = 0;
	for (uint32_t c = 0; c < m->sites; c++)
		super1 = max2(super1, bcast2_super1(m, c));
	return bcast2_super2(m) + super1;
}

double lb_hbsp_cost(enum lb_hbsp_algo a, const struct lb_hbsp_machine *m)
{
	switch (a) {
	case LB_HBSP1_GATHER:
		return gather1(m);
	case LB_HBSP2_GATHER:
		return gather2(m);
	case LB_HBSP1_BCAST:
		return bcast1(m);
	case LB_HBSP1_BCAST_1PHASE:
		return bcast1_1phase(m);
	case LB_HBSP2_BCAST:
		return bcast2(m);
	}
	return NAN;
}
