/* Seed 001's op lists (algos/wu/agent_sched.h) executed as the seed's model
 * runs them -- sends never wait, receives block, each pair's messages in
 * order -- on the paper's 8 workstations for every agent count, both
 * algorithms and both assignment tie rules, and the simultaneous broadcast on 1-9 ranks: no rank sends a
 * block it does not hold, every receive meets the send it expects, nothing
 * deadlocks, and every rank ends with every block exactly once (its own
 * never received).  Plus C.1's m = 3 agent 0 under Gather-Broadcast, op by
 * op. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/wu/agent_sched.h"
#include "check.h"

#define MAXN 9
#define MAXQ 512

/* In-flight blocks per ordered pair, in send order. */
struct fifo {
	uint32_t block[MAXQ];
	unsigned head, tail;
};

struct run {
	const struct lb_agent_sched *s;
	uint32_t pc[MAXN];
	unsigned char held[MAXN][MAXN], got[MAXN][MAXN];
	struct fifo q[MAXN][MAXN];
	int bad;
};

/* One op of rank r if it can run now: 1 ran, 0 waits, -1 wrong. */
static int step(struct run *x, uint32_t r, const char *name)
{
	const struct lb_agent_op *o = &x->s->op[x->s->first[r] + x->pc[r]];
	if (o->send) {
		struct fifo *f = &x->q[r][o->peer];
		CHECK(x->held[r][o->block] && f->tail < MAXQ, "%s: rank %u sends block %u it lacks",
		      name, r, o->block);
		if (!x->held[r][o->block] || f->tail >= MAXQ)
			return -1;
		f->block[f->tail++] = o->block;
	} else {
		struct fifo *f = &x->q[o->peer][r];
		if (f->head == f->tail)
			return 0;
		uint32_t blk = f->block[f->head++];
		CHECK(blk == o->block, "%s: rank %u expects block %u from %u, gets %u", name, r,
		      o->block, o->peer, blk);
		if (blk != o->block)
			return -1;
		x->held[r][blk] = 1, x->got[r][blk]++;
	}
	x->pc[r]++;
	return 1;
}

static void execute(const struct lb_agent_sched *s, const char *name)
{
	static struct run x;
	uint32_t n = s->n;
	memset(&x, 0, sizeof(x));
	x.s = s;
	for (uint32_t r = 0; r < n; r++)
		x.held[r][r] = 1;
	for (int progress = 1; progress;) {
		progress = 0;
		for (uint32_t r = 0; r < n; r++)
			for (int rc; x.pc[r] < s->first[r + 1] - s->first[r] && (rc = step(&x, r, name));) {
				if (rc < 0)
					return;
				progress = 1;
			}
	}
	for (uint32_t r = 0; r < n; r++) {
		CHECK(x.pc[r] == s->first[r + 1] - s->first[r], "%s: rank %u stuck at op %u", name, r,
		      x.pc[r]);
		for (uint32_t b = 0; b < n; b++)
			CHECK(x.got[r][b] == (b != r), "%s: rank %u got block %u %u times", name, r, b,
			      x.got[r][b]);
	}
}

static double SEND[8], RECV[8], END[64];

static struct lb_agent_model wu8(void)
{
	for (int u = 0; u < 8; u++) {
		SEND[u] = u < 4 ? 90 : 160, RECV[u] = u < 4 ? 70 : 130;
		for (int v = 0; v < 8; v++)
			END[u * 8 + v] = u == v ? 0 : 150 + 100 * ((u >= 4) + (v >= 4));
	}
	return (struct lb_agent_model){ .n = 8, .send = SEND, .recv = RECV, .end = END };
}

/* C.1's agent 0 (node 0, clients F4 = 3 and S3 = 6) under GB: receives 3
 * then 6 (arrivals 250, 350); k = 2 sends of {0, 3, 6} to agents 1 and 2;
 * receives {2, 5} from 2 (its first send: 90 + 250) before {1, 4, 7} from 1
 * (its second: 180 + 250); then to 3 every block but 3, to 6 every block
 * but 6. */
static void check_c1_agent0(const struct lb_agent_sched *s)
{
	static const struct { uint8_t send; uint32_t peer, nblocks; } want[] = {
		{ 0, 3, 1 }, { 0, 6, 1 }, { 1, 1, 3 }, { 1, 2, 3 }, { 0, 2, 2 }, { 0, 1, 3 },
		{ 1, 3, 7 }, { 1, 6, 7 },
	};
	uint32_t at = s->first[0];
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		uint32_t msg = s->op[at].msg, nb = 0;
		for (; at < s->first[1] && s->op[at].msg == msg; at++, nb++)
			CHECK(s->op[at].send == want[i].send && s->op[at].peer == want[i].peer,
			      "C.1 agent 0 message %zu: %s %u", i, s->op[at].send ? "send" : "recv",
			      s->op[at].peer);
		CHECK(nb == want[i].nblocks, "C.1 agent 0 message %zu: %u blocks, want %u", i, nb,
		      want[i].nblocks);
	}
	CHECK(at == s->first[1], "C.1 agent 0: %u ops, want %u", s->first[1] - s->first[0],
	      at - s->first[0]);
}

int main(void)
{
	struct lb_agent_model md = wu8();
	char name[64];
	for (uint32_t m = 1; m <= 8; m++)
		for (int cell = 0; cell < 2 * LB_AGENT_NALGOS; cell++) {
			int algo = cell % LB_AGENT_NALGOS, tie = cell / LB_AGENT_NALGOS;
			struct lb_agent_plan p;
			struct lb_agent_sched s;
			snprintf(name, sizeof(name), "%s m %u ties %s", algo ? "ts" : "gb", m,
				 tie ? "lowest" : "fewest");
			if (lb_agent_plan(&md, m, (enum lb_agent_tie)tie, LB_AGENT_COUNT_N, &p) ||
			    lb_agent_sched_build(&md, &p, (enum lb_agent_algo)algo, &s)) {
				CHECK(0, "%s: build failed", name);
				continue;
			}
			execute(&s, name);
			if (m == 3 && algo == LB_AGENT_GB && tie == LB_AGENT_TIE_FEWEST)
				check_c1_agent0(&s);
			lb_agent_sched_free(&s);
			lb_agent_plan_free(&p);
		}
	for (uint32_t n = 1; n <= MAXN; n++) {
		struct lb_agent_sched s;
		snprintf(name, sizeof(name), "simultaneous %u", n);
		CHECK(lb_agent_sched_simultaneous(n, &s) == 0, "%s: build failed", name);
		execute(&s, name);
		lb_agent_sched_free(&s);
	}
	return check_status("test_agent_sched");
}
