/* Seed 001's closed forms and planner (algos/wu/agent.h;
 * docs/papers.md#seed001-cost). */
#include "agent.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A node's NIC time for `part` bytes on one lane: 0 without a cap. */
static double nic_time(const struct lb_node *node, double part)
{
	return node->rate > 0 ? part / node->rate : 0;
}

/* T_end(u, v) of a message cut in `lanes` parts of `part` bytes, one per
 * lane: when its last part is in v's buffer; INFINITY when a lane has no
 * link u -> v. */
static double end_over_lanes(const struct lb_platform *pf, uint32_t u, uint32_t v,
			     uint32_t lanes, double part)
{
	double t = 0;
	for (uint32_t lane = 0; lane < lanes; lane++) {
		struct lb_link l = lb_platform_link(pf, u, v, lane);
		if (!(l.bw > 0))
			return INFINITY;
		t = fmax(t, l.lat + l.occ + part / l.bw);
	}
	return t;
}

int lb_agent_model_from_platform(const struct lb_platform *pf, uint32_t lanes,
				 uint64_t bytes, struct lb_agent_model *md)
{
	uint32_t n = pf->nodes;
	double *send = malloc(n * sizeof(*send)), *recv = malloc(n * sizeof(*recv));
	double *end = malloc((size_t)n * n * sizeof(*end)), *nic = malloc(n * sizeof(*nic));
	memset(md, 0, sizeof(*md));
	if (!send || !recv || !end || !nic || lanes == 0 || lanes > pf->lanes) {
		free(send), free(recv), free(end), free(nic);
		return -1;
	}
	double part = (double)bytes / lanes;
	for (uint32_t u = 0; u < n; u++) {
		const struct lb_node *node = &pf->node[u];
		nic[u] = nic_time(node, part);
		send[u] = lanes * node->send + nic[u];
		recv[u] = lanes * node->recv + nic[u];
		for (uint32_t v = 0; v < n; v++)
			end[(size_t)u * n + v] = u == v ? 0 : end_over_lanes(pf, u, v, lanes, part);
	}
	*md = (struct lb_agent_model){ .n = n, .send = send, .recv = recv, .end = end, .nic = nic };
	return 0;
}

void lb_agent_model_free(struct lb_agent_model *md)
{
	free((void *)md->send), free((void *)md->recv), free((void *)md->end), free((void *)md->nic);
	memset(md, 0, sizeof(*md));
}

double lb_agent_gather(const double *end, size_t k, double recv)
{
	double t = k ? end[0] : 0;
	for (size_t j = 1; j < k; j++)
		t = fmax(t + recv, end[j]);
	return t;
}

/* Stable insertion sort of arrival times: the lists are a few dozen long,
 * and equal times keep the order they were given in. */
static void sort_times(double *t, size_t k)
{
	for (size_t i = 1; i < k; i++) {
		double x = t[i];
		size_t j = i;
		for (; j > 0 && t[j - 1] > x; j--)
			t[j] = t[j - 1];
		t[j] = x;
	}
}

double lb_agent_bcast(const struct lb_agent_model *md, const uint32_t *agents,
		      const unsigned char *has_msg, uint32_t m, uint32_t agent,
		      enum lb_agent_count count)
{
	double arrive[m ? m : 1];
	size_t senders = 0, self = m;
	for (uint32_t j = 0; j < m; j++) {
		if (agents[j] == agent)
			self = j;
		else if (has_msg[j])
			arrive[senders++] = lb_agent_end(md, agents[j], agent);
	}
	sort_times(arrive, senders);
	int sends = self < m && has_msg[self];
	/* With a message: T_R(i, n - 1) is all the senders; without: all n of
	 * them under the consistent reading, one fewer under the printed one. */
	size_t heard = sends || count == LB_AGENT_COUNT_N || senders == 0 ? senders : senders - 1;
	double tr = lb_agent_gather(arrive, heard, md->recv[agent]);
	if (!sends)
		return tr;
	return fmax((m - 1) * md->send[agent] + (double)senders * md->recv[agent], tr);
}

uint32_t lb_agent_sends_first(const struct lb_agent_model *md, const uint32_t *agents,
			      uint32_t m, uint32_t agent)
{
	double tmax = 0;
	for (uint32_t j = 0; j < m; j++)
		if (agents[j] != agent)
			tmax = fmax(tmax, lb_agent_end(md, agents[j], agent));
	double cpu = md->send[agent] - (md->nic ? md->nic[agent] : 0);
	double k = cpu > 0 ? ceil(tmax / cpu) : INFINITY;
	return m == 0 ? 0 : k < m - 1 ? (uint32_t)k : m - 1;
}

/* Every node, fastest first: smallest T_send, ties by id. */
static void by_speed(const struct lb_agent_model *md, uint32_t *order)
{
	for (uint32_t i = 0; i < md->n; i++) {
		uint32_t j = i;
		for (; j > 0 && md->send[order[j - 1]] > md->send[i]; j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
}

/* Line 5: when agent a could finish receiving client c, its queue ending
 * at tr with k clients so far. */
static double receive_at(const struct lb_agent_model *md, uint32_t a, uint32_t c, double tr,
			 uint32_t k)
{
	double end = lb_agent_end(md, c, a);
	return k == 0 ? end : fmax(tr + md->recv[a], end);
}

/* Line 7's rule between two agents that would receive the client at the
 * same time: is agent a (ka clients so far) preferred to agent b? */
static int wins_tie(uint32_t a, uint32_t ka, uint32_t b, uint32_t kb, enum lb_agent_tie tie)
{
	if (tie == LB_AGENT_TIE_FEWEST && ka != kb)
		return ka < kb;
	return a < b;
}

/* Line 6's choice among the agents for client c. */
static uint32_t pick_agent(const struct lb_agent_model *md, const struct lb_agent_plan *p,
			   const double *tr, const uint32_t *k, uint32_t c, enum lb_agent_tie tie)
{
	uint32_t best = 0;
	double tbest = receive_at(md, p->agent[0], c, tr[0], k[0]);
	for (uint32_t a = 1; a < p->m; a++) {
		double t = receive_at(md, p->agent[a], c, tr[a], k[a]);
		int tied = lb_agent_cost_tie(t, tbest);
		if ((!tied && t < tbest) ||
		    (tied && wins_tie(p->agent[a], k[a], p->agent[best], k[best], tie)))
			best = a, tbest = t;
	}
	return best;
}

/* The planner's working arrays, freed together. */
struct scratch {
	uint32_t *order;  /* [n] fastest first */
	uint32_t *k;      /* [m] clients so far */
	double *tr;       /* [m] each agent's queue end (line 8) */
	uint32_t *cl;     /* [m * (n - m)] agent a's clients from a * (n - m) */
	double *clt;      /* like cl: each one's receive time */
	double *arrive;   /* [n] */
	unsigned char *msg; /* [m] */
};

static int scratch_alloc(struct scratch *s, uint32_t n, uint32_t m)
{
	size_t cells = (size_t)m * (n - m) + 1;
	*s = (struct scratch){ .order = malloc(n * sizeof(uint32_t)), .k = calloc(m, sizeof(uint32_t)),
			       .tr = calloc(m, sizeof(double)), .cl = malloc(cells * sizeof(uint32_t)),
			       .clt = malloc(cells * sizeof(double)),
			       .arrive = malloc(n * sizeof(double)), .msg = malloc(m) };
	return s->order && s->k && s->tr && s->cl && s->clt && s->arrive && s->msg ? 0 : -1;
}

static void scratch_free(struct scratch *s)
{
	free(s->order), free(s->k), free(s->tr), free(s->cl), free(s->clt), free(s->arrive);
	free(s->msg);
}

/* Lines 3-8: each client (fastest first) to the agent that receives it
 * earliest; cl[a * (n - m) + i] is agent a's i-th client. */
static void assign(const struct lb_agent_model *md, struct lb_agent_plan *p,
		   const uint32_t *clients, enum lb_agent_tie tie, struct scratch *s)
{
	uint32_t nc = p->n - p->m;
	for (uint32_t i = 0; i < nc; i++) {
		uint32_t a = pick_agent(md, p, s->tr, s->k, clients[i], tie);
		size_t at = (size_t)a * nc + s->k[a]++;
		s->tr[a] = receive_at(md, p->agent[a], clients[i], s->tr[a], s->k[a] - 1);
		s->cl[at] = clients[i], s->clt[at] = s->tr[a];
	}
	p->first[0] = 0;
	for (uint32_t a = 0; a < p->m; a++) {
		uint32_t k = s->k[a];
		p->first[a + 1] = p->first[a] + k;
		memcpy(p->client + p->first[a], s->cl + (size_t)a * nc, k * sizeof(*s->cl));
		memcpy(p->t_r + p->first[a], s->clt + (size_t)a * nc, k * sizeof(*s->clt));
	}
}

/* Definition 1 for cluster a: its clients' messages in order of arrival. */
static double cluster_gather(const struct lb_agent_model *md, const struct lb_agent_plan *p,
			     uint32_t a, double *arrive)
{
	uint32_t k = p->first[a + 1] - p->first[a];
	for (uint32_t j = 0; j < k; j++)
		arrive[j] = lb_agent_end(md, p->client[p->first[a] + j], p->agent[a]);
	sort_times(arrive, k);
	return lb_agent_gather(arrive, k, md->recv[p->agent[a]]);
}

/* Definition 4: the agent sends to its clients in assignment order, the
 * j-th at j * T_send. */
static double cluster_scatter(const struct lb_agent_model *md, const struct lb_agent_plan *p,
			      uint32_t a)
{
	uint32_t ag = p->agent[a];
	double t = 0;
	for (uint32_t j = 1; j <= p->first[a + 1] - p->first[a]; j++)
		t = fmax(t, j * md->send[ag] + lb_agent_end(md, ag, p->client[p->first[a] + j - 1]));
	return t;
}

/* Definitions 2-5 for both algorithms; msg and arrive are scratch. */
static void evaluate(const struct lb_agent_model *md, struct lb_agent_plan *p,
		     enum lb_agent_count count, unsigned char *msg, double *arrive)
{
	memset(p->t1, 0, sizeof(p->t1)), memset(p->t2, 0, sizeof(p->t2)), p->t3 = 0;
	for (uint32_t a = 0; a < p->m; a++)
		msg[a] = 1;
	for (uint32_t a = 0; a < p->m; a++) {
		uint32_t ag = p->agent[a], k = p->first[a + 1] - p->first[a];
		double tg = p->t_g[a] = cluster_gather(md, p, a, arrive);
		double tb = lb_agent_bcast(md, p->agent, msg, p->m, ag, count);
		p->t1[LB_AGENT_GB] = fmax(p->t1[LB_AGENT_GB], tg);
		p->t1[LB_AGENT_TS] = fmax(p->t1[LB_AGENT_TS], fmax(tb + k * md->recv[ag], tg));
		p->t2[LB_AGENT_GB] = fmax(p->t2[LB_AGENT_GB], tb);
		p->t3 = fmax(p->t3, cluster_scatter(md, p, a));
	}
	for (uint32_t a = 0; a < p->m; a++) /* TS stage 2: only agents with clients send */
		msg[a] = p->first[a + 1] > p->first[a];
	for (uint32_t a = 0; a < p->m; a++)
		p->t2[LB_AGENT_TS] = fmax(p->t2[LB_AGENT_TS],
					  lb_agent_bcast(md, p->agent, msg, p->m, p->agent[a], count));
	for (int g = 0; g < LB_AGENT_NALGOS; g++)
		p->all[g] = p->t1[g] + p->t2[g] + p->t3;
}

int lb_agent_plan(const struct lb_agent_model *md, uint32_t m, enum lb_agent_tie tie,
		  enum lb_agent_count count, struct lb_agent_plan *p)
{
	uint32_t n = md->n, nc = n - m;
	struct scratch s;
	memset(p, 0, sizeof(*p));
	if (m < 1 || m > n)
		return -1;
	*p = (struct lb_agent_plan){ .n = n, .m = m, .agent = malloc(m * sizeof(uint32_t)),
				     .first = malloc((m + 1) * sizeof(uint32_t)),
				     .client = malloc((nc + 1) * sizeof(uint32_t)),
				     .t_r = malloc((nc + 1) * sizeof(double)),
				     .t_g = malloc(m * sizeof(double)) };
	int rc = scratch_alloc(&s, n, m) == 0 && p->agent && p->first && p->client && p->t_r &&
				 p->t_g ? 0 : -1;
	if (rc == 0) {
		by_speed(md, s.order);
		memcpy(p->agent, s.order, m * sizeof(*s.order));
		assign(md, p, s.order + m, tie, &s);
		evaluate(md, p, count, s.msg, s.arrive);
	} else {
		lb_agent_plan_free(p);
	}
	scratch_free(&s);
	return rc;
}

void lb_agent_plan_free(struct lb_agent_plan *p)
{
	free(p->agent), free(p->first), free(p->client), free(p->t_r), free(p->t_g);
	memset(p, 0, sizeof(*p));
}

int lb_agent_cost_tie(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b));
}

uint32_t lb_agent_choose(const struct lb_agent_model *md, enum lb_agent_algo algo,
			 enum lb_agent_tie tie, enum lb_agent_count count)
{
	uint32_t best = 0;
	double tbest = INFINITY;
	for (uint32_t m = 1; m <= md->n; m++) {
		struct lb_agent_plan p;
		if (lb_agent_plan(md, m, tie, count, &p))
			return 0;
		if (lb_agent_cost_tie(p.all[algo], tbest) || p.all[algo] < tbest)
			best = m, tbest = p.all[algo];
		lb_agent_plan_free(&p);
	}
	return best;
}

/* The latency of a pair of nodes: 0-3 fast, 4-7 slow. */
static double wu8_lat(uint32_t u, uint32_t v)
{
	unsigned fast = (u < 4) + (v < 4);
	return fast == 2 ? 250e-6 : fast == 1 ? 350e-6 : 450e-6;
}

struct lb_platform *lb_agent_wu8(void)
{
	struct lb_platform *pf = lb_platform_new(8, 1);
	if (!pf)
		return NULL;
	pf->dflt = (struct lb_link){ .lat = 350e-6, .occ = 0, .bw = 100e6 / 8 };
	int rc = 0;
	for (uint32_t u = 0; u < 8; u++) {
		int fast = u < 4;
		pf->node[u].send = pf->node[u].gap = fast ? 90e-6 : 160e-6;
		pf->node[u].recv = fast ? 70e-6 : 130e-6;
		for (uint32_t v = 0; v < 8; v++) {
			struct lb_link l = { .lat = wu8_lat(u, v) };
			if (u != v && (u < 4) == (v < 4))
				rc |= lb_platform_set_link(pf, u, v, LB_PLATFORM_ALL_LANES, LB_LINK_LAT, &l);
		}
	}
	if (rc || lb_platform_seal(pf)) {
		lb_platform_free(pf);
		return NULL;
	}
	return pf;
}
