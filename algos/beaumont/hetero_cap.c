/* cap-trees: k trees planned with each node's cap (hetero_cap.h). */
#include "hetero_cap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hetero_graph.h"
#include "lib/error.h"

/* A node's seconds per slice it sends: its cap and its CPU are shared by
 * every send it makes (0 when it has neither). */
static double send_time(const struct lb_hetero_in *in, uint32_t u)
{
	const struct lb_node *n = &in->pf->node[u];
	double through = n->rate > 0 ? (double)in->slice_bytes / n->rate : 0;
	return fmax(through, n->send);
}

static double recv_time(const struct lb_hetero_in *in, uint32_t v)
{
	double rate = in->pf->node[v].rate;
	return rate > 0 ? (double)in->slice_bytes / rate : 0;
}

/* Trees among the k whose parent of v is u. */
static uint32_t trees_on(const uint32_t *parent, uint32_t p, uint32_t k, uint32_t u, uint32_t v)
{
	uint32_t n = 0;
	for (uint32_t t = 0; t < k; t++)
		n += parent[(size_t)t * p + v] == u;
	return n;
}

double lb_period_bounded(const struct lb_hetero_in *in, const uint32_t *parent, uint32_t k)
{
	uint32_t p = in->pf->nodes;
	uint32_t *children = calloc(p, sizeof(*children));
	if (!children || k == 0) {
		free(children);
		return NAN;
	}
	double period = 0;
	for (uint32_t t = 0; t < k; t++)
		for (uint32_t v = 0; v < p; v++) {
			uint32_t u = parent[(size_t)t * p + v];
			if (u == LB_NO_PARENT)
				continue;
			children[u]++;
			double link = lb_platform_occupation(in->pf, u, v, in->lane, in->slice_bytes);
			period = fmax(period, trees_on(parent, p, k, u, v) * link / k);
		}
	for (uint32_t u = 0; u < p; u++) {
		period = fmax(period, (double)children[u] / k * send_time(in, u));
		if (u != in->root)
			period = fmax(period, recv_time(in, u));
	}
	free(children);
	return period;
}

/* ---- growing k trees ---- */

struct grow {
	struct het_graph g;
	uint32_t k;
	double *send;     /* [p]: send_time */
	uint32_t *out;    /* [p]: children over the trees grown so far */
	uint32_t *kids;   /* [p]: children in the tree being grown */
	uint32_t *uses;   /* [m]: trees on the edge so far */
	uint8_t *in_tree; /* [p] */
	double *arr;      /* [p]: the first slice's arrival in the tree being grown */
	uint32_t relays;  /* nodes but the root with children in the tree being grown */
	uint32_t quota;   /* how many it may have: the later trees need theirs */
};

static void grow_free(struct grow *s)
{
	het_graph_free(&s->g);
	free(s->send);
	free(s->out);
	free(s->kids);
	free(s->uses);
	free(s->in_tree);
	free(s->arr);
}

static int grow_init(struct grow *s, const struct lb_hetero_in *in, char *err, size_t len)
{
	memset(s, 0, sizeof(*s));
	if (het_graph_init(&s->g, in, err, len))
		return -1;
	uint32_t p = s->g.p;
	s->send = malloc(p * sizeof(*s->send));
	s->out = malloc(p * sizeof(*s->out));
	s->kids = malloc(p * sizeof(*s->kids));
	s->uses = malloc((s->g.m + 1) * sizeof(*s->uses));
	s->in_tree = malloc(p);
	s->arr = malloc(p * sizeof(*s->arr));
	if (!s->send || !s->out || !s->kids || !s->uses || !s->in_tree || !s->arr) {
		grow_free(s);
		return lb_errf(err, len, "out of memory for a platform of %u nodes", p);
	}
	for (uint32_t u = 0; u < p; u++)
		s->send[u] = send_time(in, u);
	return 0;
}

/* How long edge i's tail takes to pass it one slice as its next child in
 * this tree: the link (shared with the trees already on it) or the
 * tail's cap, through which its earlier children's copies go first. */
static double hop(const struct grow *s, size_t i)
{
	uint32_t u = s->g.e[i].u;
	return fmax(s->g.t[i] * (s->uses[i] + 1), (s->kids[u] + 1) * s->send[u]);
}

/* The root gives each tree one child; another node gives up to k, all in
 * one tree: a node that sent in two trees would hold one tree's next
 * block behind the other's (a rank sends in its schedule's order), and
 * two such nodes can wait on each other round after round. */
static int has_room(const struct grow *s, uint32_t u)
{
	if (u == s->g.in->root)
		return s->kids[u] < 1;
	if (s->out[u] >= s->k || s->kids[u] != s->out[u])
		return 0;
	return s->kids[u] > 0 || s->relays < s->quota;
}

/* What pick_edge may take: its tail must have room for a child (ROOM),
 * its head too (RELAY: a node that can pass the tree on). */
enum { PICK_ANY = 0, PICK_ROOM = 1, PICK_RELAY = 2 };

static int may_pick(const struct grow *s, size_t i, unsigned want)
{
	uint32_t u = s->g.e[i].u, v = s->g.e[i].v;
	if (!s->in_tree[u] || s->in_tree[v])
		return 0;
	return (!(want & PICK_ROOM) || has_room(s, u)) && (!(want & PICK_RELAY) || has_room(s, v));
}

/* The edge from the tree to a node outside it that delivers earliest
 * (ties: smaller T, then (u, v)) among those `want` allows; SIZE_MAX when
 * there is none. */
static size_t pick_edge(const struct grow *s, unsigned want)
{
	size_t best = SIZE_MAX;
	double best_at = INFINITY;
	for (size_t i = 0; i < s->g.m; i++) {
		if (!may_pick(s, i, want))
			continue;
		double at = s->arr[s->g.e[i].u] + hop(s, i);
		/* best == SIZE_MAX: the first candidate is taken whatever its
		 * time, so a tie is never broken against t[SIZE_MAX] */
		if (best == SIZE_MAX || at < best_at ||
		    (at == best_at && s->g.t[i] < s->g.t[best])) {
			best = i;
			best_at = at;
		}
	}
	return best;
}

/* The next edge: nodes that can relay first (a node whose room the
 * earlier trees used up joins as a leaf, after them, so that it does not
 * take a slot a relay needs), senders over their room last. */
static size_t next_edge(const struct grow *s)
{
	size_t i = pick_edge(s, PICK_ROOM | PICK_RELAY);
	if (i == SIZE_MAX)
		i = pick_edge(s, PICK_ROOM);
	return i == SIZE_MAX ? pick_edge(s, PICK_ANY) : i;
}

/* Tree t of the plan, grown from the root. */
static int grow_tree(struct grow *s, uint32_t *parent, struct lb_edge *edge)
{
	uint32_t p = s->g.p, root = s->g.in->root;
	memset(s->in_tree, 0, p);
	memset(s->kids, 0, p * sizeof(*s->kids));
	for (uint32_t v = 0; v < p; v++)
		parent[v] = LB_NO_PARENT;
	s->in_tree[root] = 1;
	s->arr[root] = 0;
	s->relays = 0;
	for (uint32_t n = 0; n + 1 < p; n++) {
		size_t i = next_edge(s);
		if (i == SIZE_MAX)
			return -1; /* het_graph_init checked every node reachable */
		uint32_t u = s->g.e[i].u, v = s->g.e[i].v;
		s->arr[v] = s->arr[u] + hop(s, i);
		parent[v] = u;
		edge[n] = (struct lb_edge){ .src = u, .dst = v };
		s->relays += u != root && s->kids[u] == 0;
		s->kids[u]++;
		s->out[u]++;
		s->uses[i]++;
		s->in_tree[v] = 1;
	}
	return 0;
}

/* The pipeline fill: the latest first-slice arrival over the k trees,
 * each hop taking the link (times the trees on it) or the sender's cap
 * split among all its children, as when every tree flows. */
static double fill_time(const struct lb_hetero_in *in, const struct lb_cap_plan *plan,
			const uint32_t *out, double *arr)
{
	uint32_t p = plan->nodes, k = plan->k;
	double fill = 0;
	for (uint32_t t = 0; t < k; t++) {
		const struct lb_edge *e = plan->edge + (size_t)t * (p - 1);
		arr[in->root] = 0;
		for (uint32_t n = 0; n + 1 < p; n++) {
			uint32_t u = e[n].src, v = e[n].dst;
			double link = lb_platform_occupation(in->pf, u, v, in->lane, in->slice_bytes);
			double h = fmax(link * trees_on(plan->parent, p, k, u, v), out[u] * send_time(in, u));
			arr[v] = arr[u] + h;
			fill = fmax(fill, arr[v]);
		}
	}
	return fill;
}

static int plan_alloc(struct lb_cap_plan *plan, uint32_t p, uint32_t k)
{
	*plan = (struct lb_cap_plan){ .k = k, .nodes = p };
	plan->parent = malloc((size_t)k * p * sizeof(*plan->parent));
	plan->edge = malloc((size_t)k * (p - 1 ? p - 1 : 1) * sizeof(*plan->edge));
	return plan->parent && plan->edge ? 0 : -1;
}

/* Relays tree t may have: the nodes that relay in no earlier tree, less
 * what each later tree needs at least (its p - 2 children beyond the
 * root's one, k per relay); at least 1. */
static uint32_t relay_quota(const struct grow *s, uint32_t t)
{
	uint32_t p = s->g.p, k = s->k, free_nodes = 0;
	for (uint32_t u = 0; u < p; u++)
		free_nodes += u != s->g.in->root && s->out[u] == 0;
	uint32_t need = p > 2 ? (p - 2 + k - 1) / k : 0;
	uint32_t later = (k - 1 - t) * need;
	return free_nodes > later + 1 ? free_nodes - later : 1;
}

/* k trees grown in turn, their period and estimate.  0, -1 (no memory) or
 * -2 (no spanning tree: impossible once het_graph_init found every node
 * reachable). */
static int plan_k(struct grow *s, uint32_t k, uint32_t slices, struct lb_cap_plan *plan)
{
	uint32_t p = s->g.p;
	if (plan_alloc(plan, p, k))
		return -1;
	s->k = k;
	memset(s->out, 0, p * sizeof(*s->out));
	memset(s->uses, 0, (s->g.m + 1) * sizeof(*s->uses));
	for (uint32_t t = 0; t < k; t++) {
		s->quota = relay_quota(s, t);
		if (grow_tree(s, plan->parent + (size_t)t * p, plan->edge + (size_t)t * (p - 1)))
			return -2;
	}
	plan->period = lb_period_bounded(s->g.in, plan->parent, k);
	double fill = fill_time(s->g.in, plan, s->out, s->arr);
	plan->estimate = fill + (slices > 1 ? slices - 1 : 0) * plan->period;
	return isnan(plan->period) ? -1 : 0;
}

void lb_cap_plan_free(struct lb_cap_plan *plan)
{
	if (!plan)
		return;
	free(plan->parent);
	free(plan->edge);
	plan->parent = NULL;
	plan->edge = NULL;
}

int lb_cap_plan(const struct lb_hetero_in *in, uint32_t slices, struct lb_cap_plan *out,
		char *err, size_t len)
{
	struct grow s;
	*out = (struct lb_cap_plan){ 0 };
	if (grow_init(&s, in, err, len))
		return -1;
	uint32_t most = s.g.p - 1 < LB_CAP_MAX_TREES ? s.g.p - 1 : LB_CAP_MAX_TREES;
	int rc = 0;
	if (most == 0) /* one node: one empty tree */
		most = 1;
	for (uint32_t k = 1; k <= most && rc == 0; k++) {
		struct lb_cap_plan cand;
		rc = plan_k(&s, k, slices, &cand);
		if (rc == 0 && (k == 1 || cand.estimate < out->estimate)) {
			lb_cap_plan_free(out);
			*out = cand;
		} else {
			lb_cap_plan_free(&cand);
		}
	}
	grow_free(&s);
	if (rc) {
		lb_cap_plan_free(out);
		return rc == -2 ? lb_errf(err, len, "cap-trees: internal error: no tree spans the nodes")
				: lb_errf(err, len, "out of memory for a platform of %u nodes", in->pf->nodes);
	}
	return 0;
}

/* ---- the registry's cap-trees ---- */

/* Block by block, each down its tree b % k, parents before children. */
static int emit_plan(struct lb_schedule *s, const struct lb_cap_plan *plan)
{
	uint32_t edges = plan->nodes - 1;
	for (uint32_t b = 0; b < s->nblocks; b++) {
		const struct lb_edge *e = plan->edge + (size_t)(b % plan->k) * edges;
		for (uint32_t n = 0; n < edges; n++)
			if (lb_sched_transfer(s, e[n].src, e[n].dst, LB_HETERO_LANE, b, 1))
				return -1;
	}
	return 0;
}

/* As the seed 000 builders: lb_algo_check refused what the planner would
 * (no platform, unreachable nodes), so a failure here is memory. */
struct lb_schedule *lb_build_cap_trees(const struct lb_algo_params *prm)
{
	struct lb_hetero_in in = lb_hetero_in_for(prm);
	uint32_t slices = lb_slice_count(prm->bytes, prm->slice_bytes);
	struct lb_cap_plan plan;
	char err[256];
	if (lb_cap_plan(&in, slices, &plan, err, sizeof(err)))
		return NULL;
	struct lb_schedule *s = lb_sched_for(prm, "cap-trees", slices);
	if (s && emit_plan(s, &plan))
		s = lb_sched_abandon(s);
	lb_cap_plan_free(&plan);
	return s;
}

double lb_period_cap_trees(const struct lb_algo_params *prm)
{
	struct lb_hetero_in in = lb_hetero_in_for(prm);
	struct lb_cap_plan plan;
	char err[256];
	if (lb_cap_plan(&in, lb_slice_count(prm->bytes, prm->slice_bytes), &plan, err, sizeof(err)))
		return NAN;
	double period = plan.period;
	lb_cap_plan_free(&plan);
	return period;
}
