/* Seed 001's all-to-all broadcasts as per-rank op lists (agent_sched.h). */
#include "agent_sched.h"

#include <stdlib.h>
#include <string.h>

struct build {
	struct lb_agent_sched *s;
	size_t len, cap;
	uint32_t msg; /* the rank's next message */
	int oom;
};

static void push(struct build *b, int send, uint32_t peer, uint32_t block, uint32_t msg)
{
	if (b->len == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 64;
		struct lb_agent_op *op = realloc(b->s->op, cap * sizeof(*op));
		if (!op) {
			b->oom = 1;
			return;
		}
		b->s->op = op, b->cap = cap;
	}
	b->s->op[b->len++] = (struct lb_agent_op){ .send = (uint8_t)send, .peer = peer,
						   .block = block, .msg = msg };
}

/* One message of `nb` blocks to or from peer. */
static void message(struct build *b, int send, uint32_t peer, const uint32_t *blocks, uint32_t nb)
{
	uint32_t msg = b->msg++;
	for (uint32_t i = 0; i < nb; i++)
		push(b, send, peer, blocks[i], msg);
}

/* Every block but `except`, ascending: what stage 3 carries to a client. */
static void all_but(struct build *b, int send, uint32_t peer, uint32_t except)
{
	uint32_t msg = b->msg++;
	for (uint32_t blk = 0; blk < b->s->n; blk++)
		if (blk != except)
			push(b, send, peer, blk, msg);
}

/* Stable sort of idx[0..k-1] by key[idx] ascending. */
static void sort_by(uint32_t *idx, uint32_t k, const double *key)
{
	for (uint32_t i = 1; i < k; i++) {
		uint32_t x = idx[i], j = i;
		for (; j > 0 && key[idx[j - 1]] > key[x]; j--)
			idx[j] = idx[j - 1];
		idx[j] = x;
	}
}

/* Cluster j's blocks in an inter-agent message: its agent's own first
 * when with_agent, then its clients' in assignment order. */
static uint32_t cluster_blocks(const struct lb_agent_plan *p, uint32_t j, int with_agent,
			       uint32_t *out)
{
	uint32_t k = 0;
	if (with_agent)
		out[k++] = p->agent[j];
	for (uint32_t i = p->first[j]; i < p->first[j + 1]; i++)
		out[k++] = p->client[i];
	return k;
}

/* Which agents carry a message in an exchange, and what. */
struct exchange {
	int with_agent;        /* the agents' own blocks are in it */
	int clients;           /* the clients' blocks are in it */
};

static int has_message(const struct lb_agent_plan *p, uint32_t j, const struct exchange *x)
{
	return x->with_agent || p->first[j + 1] > p->first[j];
}

/* When agent j's message reaches agent a if j never waits: j sends to the
 * agents after it in turn, a is its d-th send, out d * T_send(j) after the
 * start (Definition 4's clock), then T_end on the way.  Equal times stay
 * in agent order. */
static double arrival(const struct lb_agent_model *md, const struct lb_agent_plan *p, uint32_t j,
		      uint32_t a)
{
	uint32_t d = (a + p->m - j - 1) % p->m + 1;
	return d * md->send[p->agent[j]] + lb_agent_end(md, p->agent[j], p->agent[a]);
}

/* One inter-agent all-to-all broadcast, agent a's side
 * (docs/papers.md#seed001-framework): k sends, then one receive and one send in
 * turn, then the remaining receives. */
static void exchange(struct build *b, const struct lb_agent_model *md,
		     const struct lb_agent_plan *p, uint32_t a, const struct exchange *x,
		     uint32_t *blocks, uint32_t *from, double *key)
{
	uint32_t m = p->m, ag = p->agent[a], nfrom = 0;
	for (uint32_t j = 0; j < m; j++)
		if (j != a && has_message(p, j, x))
			key[j] = arrival(md, p, j, a), from[nfrom++] = j;
	sort_by(from, nfrom, key);
	uint32_t nsend = has_message(p, a, x) ? m - 1 : 0, sent = 0, got = 0;
	uint32_t k = lb_agent_sends_first(md, p->agent, m, ag);
	uint32_t mine = x->clients ? cluster_blocks(p, a, x->with_agent, blocks)
				   : (blocks[0] = ag, 1);
	for (; sent < nsend && sent < k; sent++)
		message(b, 1, p->agent[(a + 1 + sent) % m], blocks, mine);
	while (got < nfrom || sent < nsend) {
		if (got < nfrom) {
			uint32_t j = from[got++];
			uint32_t nb = x->clients ? cluster_blocks(p, j, x->with_agent, blocks + mine)
						 : (blocks[mine] = p->agent[j], 1);
			message(b, 0, p->agent[j], blocks + mine, nb);
		}
		if (sent < nsend)
			message(b, 1, p->agent[(a + 1 + sent++) % m], blocks, mine);
	}
}

/* Stage 1 of GB (and TS's client part): the clients' messages in order of
 * arrival. */
static void gather(struct build *b, const struct lb_agent_model *md,
		   const struct lb_agent_plan *p, uint32_t a, uint32_t *idx, double *key)
{
	uint32_t k = p->first[a + 1] - p->first[a], ag = p->agent[a];
	for (uint32_t i = 0; i < k; i++)
		idx[i] = i, key[i] = lb_agent_end(md, p->client[p->first[a] + i], ag);
	sort_by(idx, k, key);
	for (uint32_t i = 0; i < k; i++) {
		uint32_t c = p->client[p->first[a] + idx[i]];
		message(b, 0, c, &c, 1);
	}
}

/* Stage 3: the result to each client, in assignment order. */
static void scatter(struct build *b, const struct lb_agent_plan *p, uint32_t a)
{
	for (uint32_t i = p->first[a]; i < p->first[a + 1]; i++)
		all_but(b, 1, p->client[i], p->client[i]);
}

/* Scratch of one build: blocks [2n], indices [n], keys [n]. */
struct work {
	uint32_t *blocks, *idx;
	double *key;
};

static void agent_ops(struct build *b, const struct lb_agent_model *md,
		      const struct lb_agent_plan *p, uint32_t a, enum lb_agent_algo algo,
		      struct work *w)
{
	static const struct exchange gb = { 1, 1 }, ts_own = { 1, 0 }, ts_clients = { 0, 1 };
	if (algo == LB_AGENT_GB) {
		gather(b, md, p, a, w->idx, w->key);
		exchange(b, md, p, a, &gb, w->blocks, w->idx, w->key);
	} else {
		exchange(b, md, p, a, &ts_own, w->blocks, w->idx, w->key);
		gather(b, md, p, a, w->idx, w->key);
		exchange(b, md, p, a, &ts_clients, w->blocks, w->idx, w->key);
	}
	scatter(b, p, a);
}

/* A client: its block to its agent, then everything else from it. */
static void client_ops(struct build *b, uint32_t c, uint32_t agent)
{
	message(b, 1, agent, &c, 1);
	all_but(b, 0, agent, c);
}

/* Each rank's role: cluster[r] = its cluster, is_agent[r]. */
static void roles(const struct lb_agent_plan *p, uint32_t *cluster, unsigned char *is_agent)
{
	memset(is_agent, 0, p->n);
	for (uint32_t a = 0; a < p->m; a++) {
		cluster[p->agent[a]] = a, is_agent[p->agent[a]] = 1;
		for (uint32_t i = p->first[a]; i < p->first[a + 1]; i++)
			cluster[p->client[i]] = a;
	}
}

int lb_agent_sched_build(const struct lb_agent_model *md, const struct lb_agent_plan *plan,
			 enum lb_agent_algo algo, struct lb_agent_sched *s)
{
	uint32_t n = plan->n;
	struct work w = { malloc(2 * n * sizeof(uint32_t)), malloc(n * sizeof(uint32_t)),
			  malloc(n * sizeof(double)) };
	uint32_t *cluster = malloc(n * sizeof(*cluster));
	unsigned char *is_agent = malloc(n);
	*s = (struct lb_agent_sched){ .n = n, .first = malloc((n + 1) * sizeof(uint32_t)) };
	struct build b = { .s = s, .oom = !w.blocks || !w.idx || !w.key || !cluster || !is_agent ||
					 !s->first };
	if (!b.oom)
		roles(plan, cluster, is_agent);
	for (uint32_t r = 0; r < n && !b.oom; r++) {
		s->first[r] = (uint32_t)b.len, b.msg = 0;
		if (is_agent[r])
			agent_ops(&b, md, plan, cluster[r], algo, &w);
		else
			client_ops(&b, r, plan->agent[cluster[r]]);
	}
	if (!b.oom)
		s->first[n] = (uint32_t)b.len;
	free(w.blocks), free(w.idx), free(w.key), free(cluster), free(is_agent);
	if (b.oom)
		lb_agent_sched_free(s);
	return b.oom ? -1 : 0;
}

int lb_agent_sched_simultaneous(uint32_t n, struct lb_agent_sched *s)
{
	*s = (struct lb_agent_sched){ .n = n, .first = malloc((n + 1) * sizeof(uint32_t)) };
	struct build b = { .s = s, .oom = !s->first };
	for (uint32_t r = 0; r < n && !b.oom; r++) {
		s->first[r] = (uint32_t)b.len, b.msg = 0;
		for (uint32_t d = 1; d < n; d++)
			push(&b, 1, (r + d) % n, r, b.msg++);
		for (uint32_t d = 1; d < n; d++)
			push(&b, 0, (r + n - d) % n, (r + n - d) % n, b.msg++);
	}
	if (!b.oom)
		s->first[n] = (uint32_t)b.len;
	if (b.oom)
		lb_agent_sched_free(s);
	return b.oom ? -1 : 0;
}

void lb_agent_sched_free(struct lb_agent_sched *s)
{
	free(s->first), free(s->op);
	memset(s, 0, sizeof(*s));
}
