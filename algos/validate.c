/* Schedule validator.  Five checks, each naming what is wrong:
 *  1. every op is well formed (peer, lane, block range, flags; a BARRIER's
 *     group has its rank), and with a platform, between ranks linked on its
 *     lane; owner[], block_offset[] and the groups are in range;
 *  2. channels match: the k-th SEND from a to b on lane l is the k-th RECV
 *     at b from a on lane l, with the same blocks;
 *  3. an untimed execution (SENDs in lane order, released when their blocks
 *     are present) completes: nothing is sent that is never held, and no
 *     cycle of waiting SENDs exists;
 *  4. barriers: every lane of every member of a group has as many of its
 *     BARRIERs, and members agree on the order of the groups they share;
 *  5. a rank that wants a block it does not own receives it exactly once,
 *     an owner never its own, nobody twice (transit RECVs aside: each pairs
 *     with a transit SEND of its rank).  The untimed execution of 3 starts
 *     from the owners and holds every lane at a BARRIER until all of the
 *     group's lanes are there. */
#include "schedule.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/error.h"
#include "net/platform.h"

/* With a platform: its size fits the schedule, and op's pair is linked. */
static int check_platform(const struct lb_schedule *s, char *err, size_t len)
{
	const struct lb_platform *pf = s->platform;
	if (pf && (pf->nodes != s->ranks || pf->lanes < s->lanes))
		return lb_errf(err, len, "platform of %u nodes x %u lanes for a schedule of %u ranks x %u lanes",
			    pf->nodes, pf->lanes, s->ranks, s->lanes);
	return 0;
}

static int check_link(const struct lb_schedule *s, uint32_t r, const struct lb_op *op,
		      char *err, size_t len)
{
	int send = op->kind == LB_SEND;
	uint32_t from = send ? r : op->peer, to = send ? op->peer : r;
	if (!s->platform || lb_platform_has_link(s->platform, from, to, op->lane))
		return 0;
	return lb_errf(err, len, "rank %u lane %u: no link %s peer %u in the platform",
		    r, op->lane, send ? "to" : "from", op->peer);
}

int lb_sched_check_links(const struct lb_schedule *s, char *err, size_t len)
{
	if (check_platform(s, err, len))
		return -1;
	for (uint32_t r = 0; s->platform && r < s->ranks; r++)
		for (uint32_t i = 0; i < s->rank[r].count; i++) {
			const struct lb_op *op = &s->rank[r].ops[i];
			if (op->lane < s->lanes && op->peer < s->ranks && op->peer != r &&
			    check_link(s, r, op, err, len))
				return -1;
		}
	return 0;
}

static int is_member(const struct lb_barrier_group *g, uint32_t r)
{
	uint32_t lo = 0, hi = g->count;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (g->members[mid] == r)
			return 1;
		if (g->members[mid] < r)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

static int check_barrier_op(const struct lb_schedule *s, uint32_t r,
			    const struct lb_op *op, char *err, size_t len)
{
	if (op->lane >= s->lanes)
		return lb_errf(err, len, "rank %u BARRIER: lane %u out of range (schedule has %u lanes)",
			    r, op->lane, s->lanes);
	if (op->peer >= s->groups)
		return lb_errf(err, len, "rank %u BARRIER on lane %u: group %u out of range (schedule has %u)",
			    r, op->lane, op->peer, s->groups);
	if (op->nblocks || op->first_block || op->flags)
		return lb_errf(err, len, "rank %u BARRIER on lane %u: carries blocks or flags",
			    r, op->lane);
	if (!is_member(&s->group[op->peer], r))
		return lb_errf(err, len, "rank %u BARRIER on lane %u: not a member of group %u",
			    r, op->lane, op->peer);
	return 0;
}

/* An op continuing a message (LB_OP_CONT) follows one of the same kind to
 * the same peer on its lane (ops are grouped by lane here). */
static int check_cont(const struct lb_schedule *s, uint32_t r, uint32_t i, char *err,
		      size_t len)
{
	const struct lb_rank_ops *ro = &s->rank[r];
	const struct lb_op *op = &ro->ops[i], *prev = i ? op - 1 : NULL;
	if (!(op->flags & LB_OP_CONT))
		return 0;
	if (i == ro->lane_start[op->lane] || prev->kind != op->kind || prev->peer != op->peer)
		return lb_errf(err, len, "rank %u %s on lane %u: continues a message it does not follow",
			    r, op->kind == LB_SEND ? "SEND" : "RECV", op->lane);
	return 0;
}

/* owner[], block_offset[] and the groups' members in range. */
static int check_layout(const struct lb_schedule *s, char *err, size_t len)
{
	if (s->want != LB_WANT_ALL && s->want != LB_WANT_ROOT)
		return lb_errf(err, len, "unknown want %d", (int)s->want);
	for (uint32_t b = 0; s->owner && b < s->nblocks; b++)
		if (s->owner[b] >= s->ranks)
			return lb_errf(err, len, "block %u: owner %u out of range (ranks 0..%u)",
				    b, s->owner[b], s->ranks - 1);
	const uint64_t *off = s->block_offset;
	if (off && (off[0] != 0 || off[s->nblocks] != s->bytes))
		return lb_errf(err, len, "block offsets run from %llu to %llu, not 0 to %llu",
			    (unsigned long long)off[0], (unsigned long long)off[s->nblocks],
			    (unsigned long long)s->bytes);
	for (uint32_t b = 0; off && b < s->nblocks; b++)
		if (off[b + 1] <= off[b])
			return lb_errf(err, len, "block %u: empty or negative size (offsets %llu, %llu)",
				    b, (unsigned long long)off[b], (unsigned long long)off[b + 1]);
	for (uint32_t g = 0; g < s->groups; g++)
		for (uint32_t i = 0; i < s->group[g].count; i++)
			if (s->group[g].members[i] >= s->ranks ||
			    (i && s->group[g].members[i] == s->group[g].members[i - 1]))
				return lb_errf(err, len, "barrier group %u: member %u out of range or repeated",
					    g, s->group[g].members[i]);
	return 0;
}

static int check_ops(const struct lb_schedule *s, char *err, size_t len)
{
	if (check_platform(s, err, len) || check_layout(s, err, len))
		return -1;
	for (uint32_t r = 0; r < s->ranks; r++) {
		const struct lb_rank_ops *ro = &s->rank[r];
		for (uint32_t i = 0; i < ro->count; i++) {
			const struct lb_op *op = &ro->ops[i];
			const char *what = op->kind == LB_SEND ? "SEND" : "RECV";
			if (op->kind == LB_BARRIER) {
				if (check_barrier_op(s, r, op, err, len))
					return -1;
				continue;
			}
			if (op->kind != LB_SEND && op->kind != LB_RECV)
				return lb_errf(err, len, "rank %u op %u: unknown op kind %u",
					    r, i, op->kind);
			if (op->lane >= s->lanes)
				return lb_errf(err, len, "rank %u %s: lane %u out of range (schedule has %u lanes)",
					    r, what, op->lane, s->lanes);
			if (op->peer >= s->ranks || op->peer == r)
				return lb_errf(err, len, "rank %u %s on lane %u: bad peer %u (ranks 0..%u, not itself)",
					    r, what, op->lane, op->peer, s->ranks - 1);
			if (op->nblocks == 0 || op->first_block >= s->nblocks ||
			    op->nblocks > s->nblocks - op->first_block)
				return lb_errf(err, len, "rank %u %s on lane %u: block range [%u,%u) outside [0,%u)",
					    r, what, op->lane, op->first_block,
					    op->first_block + op->nblocks, s->nblocks);
			if (op->flags & ~(LB_OP_TRANSIT | LB_OP_CONT))
				return lb_errf(err, len, "rank %u %s on lane %u: unknown flags 0x%x",
					    r, what, op->lane, op->flags);
			if (check_cont(s, r, i, err, len))
				return -1;
			if (check_link(s, r, op, err, len))
				return -1;
		}
	}
	return 0;
}

/* One endpoint of a channel message, for matching SENDs to RECVs. */
struct msg {
	uint32_t src, dst, lane, first, n;
};

static int chan_cmp(const struct msg *x, const struct msg *y)
{
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	if (x->dst != y->dst)
		return x->dst < y->dst ? -1 : 1;
	return x->lane < y->lane ? -1 : x->lane > y->lane;
}

/* Collects SENDs (kind LB_SEND) or RECVs, keyed by channel and order. */
static struct msg *collect(const struct lb_schedule *s, int kind, size_t *n)
{
	size_t total = lb_sched_op_count(s), k = 0;
	struct msg *m = malloc((total + 1) * sizeof(*m));
	if (!m)
		return NULL;
	for (uint32_t r = 0; r < s->ranks; r++) {
		const struct lb_rank_ops *ro = &s->rank[r];
		for (uint32_t i = 0; i < ro->count; i++) {
			const struct lb_op *op = &ro->ops[i];
			if (op->kind != kind)
				continue;
			m[k++] = (struct msg){
				.src = kind == LB_SEND ? r : op->peer,
				.dst = kind == LB_SEND ? op->peer : r,
				.lane = op->lane,
				.first = op->first_block, .n = op->nblocks,
			};
		}
	}
	*n = k;
	return m;
}

enum msg_key { KEY_SRC, KEY_DST, KEY_LANE };

static inline uint32_t msg_key(const struct msg *m, enum msg_key k)
{
	return k == KEY_SRC ? m->src : k == KEY_DST ? m->dst : m->lane;
}

/* One stable counting-sort pass of m[0..n) by a key (< nkeys) into out. */
static int sort_pass(const struct msg *m, struct msg *out, size_t n,
		     enum msg_key key, uint32_t nkeys)
{
	size_t *pos = calloc((size_t)nkeys + 1, sizeof(*pos));
	if (!pos)
		return -1;
	for (size_t i = 0; i < n; i++)
		pos[msg_key(&m[i], key) + 1]++;
	for (uint32_t k = 0; k < nkeys; k++)
		pos[k + 1] += pos[k];
	for (size_t i = 0; i < n; i++)
		out[pos[msg_key(&m[i], key)]++] = m[i];
	free(pos);
	return 0;
}

/* Sorts by channel (src, dst, lane), keeping each channel's op order:
 * stable passes from the least significant key up. */
static int sort_channels(const struct lb_schedule *s, struct msg *m, size_t n)
{
	struct msg *tmp = malloc((n + 1) * sizeof(*tmp));
	int rc = !tmp ||
		 sort_pass(m, tmp, n, KEY_LANE, s->lanes) ||
		 sort_pass(tmp, m, n, KEY_DST, s->ranks) ||
		 sort_pass(m, tmp, n, KEY_SRC, s->ranks);
	if (!rc)
		memcpy(m, tmp, n * sizeof(*m));
	free(tmp);
	return rc ? -1 : 0;
}

/* Explains an unmatched SEND: is the RECV there, but on another lane? */
static int unmatched_send(const struct msg *snd, const struct msg *rcv,
			  size_t nr, char *err, size_t len)
{
	for (size_t i = 0; i < nr; i++)
		if (rcv[i].src == snd->src && rcv[i].dst == snd->dst &&
		    rcv[i].first == snd->first && rcv[i].n == snd->n &&
		    rcv[i].lane != snd->lane)
			return lb_errf(err, len, "lane mismatch: rank %u sends blocks [%u,%u) to rank %u on lane %u but rank %u receives them on lane %u",
				    snd->src, snd->first, snd->first + snd->n,
				    snd->dst, snd->lane, snd->dst, rcv[i].lane);
	return lb_errf(err, len, "rank %u sends blocks [%u,%u) to rank %u on lane %u with no matching RECV",
		    snd->src, snd->first, snd->first + snd->n, snd->dst,
		    snd->lane);
}

static int match_pairs(const struct msg *snd, size_t ns,
		       const struct msg *rcv, size_t nr, char *err, size_t len)
{
	for (size_t i = 0, j = 0; i < ns || j < nr; i++, j++) {
		int c = i == ns ? 1 : j == nr ? -1 : chan_cmp(&snd[i], &rcv[j]);
		if (c < 0)
			return unmatched_send(&snd[i], rcv, nr, err, len);
		if (c > 0)
			return lb_errf(err, len, "rank %u expects blocks [%u,%u) from rank %u on lane %u but no SEND matches",
				    rcv[j].dst, rcv[j].first,
				    rcv[j].first + rcv[j].n, rcv[j].src,
				    rcv[j].lane);
		if (snd[i].first != rcv[j].first || snd[i].n != rcv[j].n)
			return lb_errf(err, len, "channel rank %u -> rank %u lane %u out of step: SEND of blocks [%u,%u) meets RECV of [%u,%u)",
				    snd[i].src, snd[i].dst, snd[i].lane,
				    snd[i].first, snd[i].first + snd[i].n,
				    rcv[j].first, rcv[j].first + rcv[j].n);
	}
	return 0;
}

static int check_channels(const struct lb_schedule *s, char *err, size_t len)
{
	size_t ns = 0, nr = 0;
	struct msg *snd = collect(s, LB_SEND, &ns);
	struct msg *rcv = collect(s, LB_RECV, &nr);
	int rc = (!snd || !rcv || sort_channels(s, snd, ns) ||
		  sort_channels(s, rcv, nr))
			 ? lb_errf(err, len, "out of memory")
			 : match_pairs(snd, ns, rcv, nr, err, len);
	free(snd);
	free(rcv);
	return rc;
}

/* recv_count[r * nblocks + b]: how many deliveries (RECVs not in transit)
 * of block b rank r has (saturating). */
static void count_recvs(const struct lb_schedule *s, uint8_t *recv_count)
{
	for (uint32_t r = 0; r < s->ranks; r++) {
		const struct lb_rank_ops *ro = &s->rank[r];
		uint8_t *cnt = recv_count + (size_t)r * s->nblocks;
		for (uint32_t i = 0; i < ro->count; i++) {
			const struct lb_op *op = &ro->ops[i];
			if (op->kind != LB_RECV || (op->flags & LB_OP_TRANSIT))
				continue;
			for (uint32_t b = op->first_block; b < op->first_block + op->nblocks; b++)
				cnt[b] += cnt[b] < 255;
		}
	}
}

/* 0, or -1 naming what rank r's count of deliveries of block b breaks. */
static int check_block(const struct lb_schedule *s, uint32_t r, uint32_t b,
		       uint8_t cnt, char *err, size_t len)
{
	if (lb_sched_owns(s, r, b) && cnt)
		return s->owner ? lb_errf(err, len, "rank %u owns block %u but receives it", r, b)
				: lb_errf(err, len, "rank %u is the root but receives block %u", r, b);
	if (!lb_sched_owns(s, r, b) && lb_sched_wants(s, r) && cnt == 0)
		return lb_errf(err, len, "missing block: rank %u never receives block %u",
			    r, b);
	if (cnt > 1)
		return lb_errf(err, len, "duplicate: rank %u receives block %u %u times",
			    r, b, cnt);
	return 0;
}

static int check_once(const struct lb_schedule *s, const uint8_t *recv_count,
		      char *err, size_t len)
{
	for (uint32_t r = 0; r < s->ranks; r++) {
		const uint8_t *cnt = recv_count + (size_t)r * s->nblocks;
		for (uint32_t b = 0; b < s->nblocks; b++)
			if (check_block(s, r, b, cnt[b], err, len))
				return -1;
	}
	return 0;
}

/* Transit RECVs (+1) and transit SENDs (-1) of rank r, block b. */
static int transit_balance(const struct lb_schedule *s, uint32_t r, uint32_t b,
			   uint32_t *recvs, uint32_t *sends)
{
	const struct lb_rank_ops *ro = &s->rank[r];
	*recvs = *sends = 0;
	for (uint32_t i = 0; i < ro->count; i++) {
		const struct lb_op *op = &ro->ops[i];
		if ((op->flags & LB_OP_TRANSIT) && b >= op->first_block &&
		    b - op->first_block < op->nblocks)
			*(op->kind == LB_RECV ? recvs : sends) += 1;
	}
	return (int)(*recvs - *sends);
}

static int has_transit(const struct lb_schedule *s)
{
	for (uint32_t r = 0; r < s->ranks; r++)
		for (uint32_t i = 0; i < s->rank[r].count; i++)
			if (s->rank[r].ops[i].flags & LB_OP_TRANSIT)
				return 1;
	return 0;
}

/* Each block a rank receives in transit it forwards once, and it forwards
 * in transit only what it so received: a relay neither swallows a routed
 * copy nor claims to pass on one it never got.  The balance table exists
 * only for schedules with transit ops (small platforms, seed 000). */
static int check_transit(const struct lb_schedule *s, char *err, size_t len)
{
	if (!has_transit(s))
		return 0;
	int32_t *bal = calloc((size_t)s->ranks * s->nblocks, sizeof(*bal));
	if (!bal)
		return lb_errf(err, len, "out of memory");
	for (uint32_t r = 0; r < s->ranks; r++)
		for (uint32_t i = 0; i < s->rank[r].count; i++) {
			const struct lb_op *op = &s->rank[r].ops[i];
			for (uint32_t b = op->first_block;
			     (op->flags & LB_OP_TRANSIT) && b < op->first_block + op->nblocks; b++)
				bal[(size_t)r * s->nblocks + b] += op->kind == LB_RECV ? 1 : -1;
		}
	int rc = 0;
	for (size_t i = 0; i < (size_t)s->ranks * s->nblocks && rc == 0; i++) {
		uint32_t r = (uint32_t)(i / s->nblocks), b = (uint32_t)(i % s->nblocks), recvs, sends;
		if (bal[i] && transit_balance(s, r, b, &recvs, &sends))
			rc = lb_errf(err, len, "transit: rank %u receives block %u in transit %u times but forwards it in transit %u times",
				     r, b, recvs, sends);
	}
	free(bal);
	return rc;
}

/* The group of the next BARRIER at (r, lane) from *pos on whose group
 * also holds rank `with` (past it after), or UINT32_MAX when none is left. */
static uint32_t next_shared(const struct lb_schedule *s, uint32_t r, uint32_t lane,
			    uint32_t with, uint32_t *pos)
{
	uint32_t n;
	const struct lb_op *ops = lb_lane_ops(s, r, lane, &n);
	for (; *pos < n; (*pos)++)
		if (ops[*pos].kind == LB_BARRIER && is_member(&s->group[ops[*pos].peer], with))
			return ops[(*pos)++].peer;
	return UINT32_MAX;
}

static const char *group_name(uint32_t g, char *buf, size_t len)
{
	if (g == UINT32_MAX)
		return "the end";
	snprintf(buf, len, "group %u", g);
	return buf;
}

/* (a, la) and (b, lb) meet the groups they share in the same order. */
static int same_barriers(const struct lb_schedule *s, uint32_t a, uint32_t la,
			 uint32_t b, uint32_t lb, char *err, size_t len)
{
	uint32_t pa = 0, pb = 0, ga, gb;
	char na[24], nb[24];
	do {
		ga = next_shared(s, a, la, b, &pa);
		gb = next_shared(s, b, lb, a, &pb);
		if (ga != gb)
			return lb_errf(err, len, "barriers out of step: rank %u lane %u reaches %s where rank %u lane %u reaches %s",
				    a, la, group_name(ga, na, sizeof(na)), b, lb,
				    group_name(gb, nb, sizeof(nb)));
	} while (ga != UINT32_MAX);
	return 0;
}

/* Every lane of every member of a group agrees with its first member's
 * lane 0 on the barriers they share: else some lane waits forever. */
static int check_barriers(const struct lb_schedule *s, char *err, size_t len)
{
	for (uint32_t g = 0; g < s->groups; g++) {
		uint32_t first = s->group[g].members[0];
		for (uint32_t i = 0; i < s->group[g].count; i++)
			for (uint32_t l = 0; l < s->lanes; l++)
				if ((i || l) && same_barriers(s, first, 0, s->group[g].members[i], l,
							      err, len))
					return -1;
	}
	return 0;
}

/* Untimed execution state. */
struct exec {
	const struct lb_schedule *s;
	uint8_t *have;     /* [rank * nblocks + block] */
	uint32_t *cursor;  /* [rank * lanes + lane]: next op index in the lane */
	uint32_t *stack;   /* (rank, lane) slots to try, as rank * lanes + lane */
	uint32_t *queued;  /* slot is on the stack */
	size_t top;
	uint32_t *arrived; /* [group]: lanes waiting at its current barrier */
	uint8_t *waits;    /* [slot]: the lane waits at a barrier */
};

static void push(struct exec *x, uint32_t slot)
{
	if (!x->queued[slot]) {
		x->queued[slot] = 1;
		x->stack[x->top++] = slot;
	}
}

/* First block of op that rank r lacks, or UINT32_MAX when it holds all. */
static uint32_t first_missing(const struct exec *x, uint32_t r,
			      const struct lb_op *op)
{
	const uint8_t *h = x->have + (size_t)r * x->s->nblocks;
	for (uint32_t b = op->first_block; b < op->first_block + op->nblocks; b++)
		if (!h[b])
			return b;
	return UINT32_MAX;
}

/* The lane at slot reaches a BARRIER of group g; the last of the group's
 * lanes to come releases them all past it.  Returns 1 when released. */
static int reach_barrier(struct exec *x, uint32_t g)
{
	const struct lb_schedule *s = x->s;
	const struct lb_barrier_group *grp = &s->group[g];
	if (++x->arrived[g] < (size_t)grp->count * s->lanes)
		return 0;
	x->arrived[g] = 0;
	for (uint32_t i = 0; i < grp->count; i++)
		for (uint32_t l = 0; l < s->lanes; l++) {
			uint32_t slot = grp->members[i] * s->lanes + l;
			x->waits[slot] = 0;
			x->cursor[slot]++;
			push(x, slot);
		}
	return 1;
}

/* Runs the SENDs of one (rank, lane) until one waits for a block or the
 * lane waits at a barrier (where only the last lane to come moves it on). */
static void advance(struct exec *x, uint32_t slot)
{
	const struct lb_schedule *s = x->s;
	uint32_t r = slot / s->lanes, lane = slot % s->lanes, n;
	const struct lb_op *ops = lb_lane_ops(s, r, lane, &n);
	while (x->cursor[slot] < n) {
		const struct lb_op *op = &ops[x->cursor[slot]];
		if (op->kind == LB_BARRIER) {
			if (!x->waits[slot]) {
				x->waits[slot] = 1;
				reach_barrier(x, op->peer);
			}
			return;
		}
		if (op->kind == LB_SEND) {
			if (first_missing(x, r, op) != UINT32_MAX)
				return;
			uint8_t *h = x->have + (size_t)op->peer * s->nblocks;
			memset(h + op->first_block, 1, op->nblocks);
			for (uint32_t l = 0; l < s->lanes; l++)
				push(x, op->peer * s->lanes + l);
		}
		x->cursor[slot]++;
	}
}

/* Names the first stuck SEND: a block never received, or a wait cycle. */
static int report_stuck(const struct exec *x, const uint8_t *recv_count,
			char *err, size_t len)
{
	const struct lb_schedule *s = x->s;
	size_t stuck = 0, first = SIZE_MAX;
	for (size_t slot = 0; slot < (size_t)s->ranks * s->lanes; slot++) {
		uint32_t n;
		lb_lane_ops(s, (uint32_t)(slot / s->lanes),
			    (uint32_t)(slot % s->lanes), &n);
		if (x->cursor[slot] < n) {
			stuck++;
			if (first == SIZE_MAX)
				first = slot;
		}
	}
	if (!stuck)
		return 0;
	uint32_t r = (uint32_t)(first / s->lanes), lane = (uint32_t)(first % s->lanes), n;
	const struct lb_op *op = &lb_lane_ops(s, r, lane, &n)[x->cursor[first]];
	if (op->kind == LB_BARRIER)
		return lb_errf(err, len, "deadlock: rank %u lane %u waits at a barrier of group %u (%zu lanes stuck)",
			    r, lane, op->peer, stuck);
	uint32_t b = first_missing(x, r, op);
	if (!lb_sched_owns(s, r, b) && !recv_count[(size_t)r * s->nblocks + b])
		return lb_errf(err, len, "rank %u lane %u sends block %u to rank %u but never holds it",
			    r, lane, b, op->peer);
	return lb_errf(err, len, "deadlock: rank %u lane %u waits to send block %u to rank %u (%zu lanes stuck)",
		    r, lane, b, op->peer, stuck);
}

static int check_execution(const struct lb_schedule *s,
			   const uint8_t *recv_count, char *err, size_t len)
{
	size_t slots = (size_t)s->ranks * s->lanes;
	struct exec x = {
		.s = s,
		.have = calloc((size_t)s->ranks * s->nblocks, 1),
		.cursor = calloc(slots, sizeof(uint32_t)),
		.stack = malloc(slots * sizeof(uint32_t)),
		.queued = calloc(slots, sizeof(uint32_t)),
		.arrived = calloc((size_t)s->groups + 1, sizeof(uint32_t)),
		.waits = calloc(slots, 1),
	};
	int rc = -1;
	if (!x.have || !x.cursor || !x.stack || !x.queued || !x.arrived || !x.waits) {
		lb_errf(err, len, "out of memory");
		goto out;
	}
	for (uint32_t b = 0; b < s->nblocks; b++)
		x.have[(size_t)(s->owner ? s->owner[b] : s->root) * s->nblocks + b] = 1;
	for (size_t slot = slots; slot-- > 0;)
		push(&x, (uint32_t)slot);
	while (x.top) {
		uint32_t slot = x.stack[--x.top];
		x.queued[slot] = 0;
		advance(&x, slot);
	}
	rc = report_stuck(&x, recv_count, err, len);
out:
	free(x.have);
	free(x.cursor);
	free(x.stack);
	free(x.queued);
	free(x.arrived);
	free(x.waits);
	return rc;
}

/* The larger of the two phases: channel matching holds the SENDs, the
 * RECVs and a sort buffer (one message each per transfer, ops / 2);
 * execution holds two bytes per (rank, block). */
uint64_t lb_sched_validate_min_bytes(uint32_t ranks, uint64_t blocks, uint64_t ops)
{
	uint64_t channels = lb_mul_sat(ops / 2, 3 * sizeof(struct msg));
	uint64_t execution = lb_mul_sat(2 * (uint64_t)ranks, blocks);
	return channels > execution ? channels : execution;
}

int lb_sched_validate(const struct lb_schedule *s, char *err, size_t len)
{
	if (!s->finalized)
		return lb_errf(err, len, "schedule not finalized");
	if (s->sends_only)
		return lb_errf(err, len, "schedule built without its RECVs (sends_only)");
	if (check_ops(s, err, len) || check_channels(s, err, len) ||
	    check_transit(s, err, len) || check_barriers(s, err, len))
		return -1;
	uint8_t *recv_count = calloc((size_t)s->ranks * s->nblocks, 1);
	if (!recv_count)
		return lb_errf(err, len, "out of memory");
	/* Execution first: "sends a block it never holds" is more telling
	 * than the "never receives" the exactly-once check would report. */
	count_recvs(s, recv_count);
	int rc = check_execution(s, recv_count, err, len);
	if (rc == 0)
		rc = check_once(s, recv_count, err, len);
	free(recv_count);
	return rc;
}
