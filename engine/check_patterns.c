/* Phase 1 of the check by --pattern bisection and by --rerun (the
 * suspects of a record with healthy partners), and which pattern runs;
 * neighbours is check.c's, shift check_shift.c's.  See check.h. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "check_private.h"
#include "launch/bootstrap.h"
#include "lib/error.h"

int lb_check_bisection_partner(uint32_t rank, uint32_t size)
{
	uint32_t m = size - size % 2;
	if (m < 2 || rank >= m)
		return -1;
	return (int)((rank + m / 2) % m);
}

/* ---- bisection: rank + p/2, every lane at once ---------------------------- */

struct lane_pair {
	struct check *c;
	uint32_t lane, peer;
	int rc;
};

static void *bisection_lane(void *arg)
{
	struct lane_pair *lp = arg;
	lp->rc = check_measure_pair(lp->c, 0, lp->lane, 0, lp->peer,
				    &lp->c->mine[lp->lane * lp->c->slots]);
	return NULL;
}

static int phase_bisection(struct check *c, char *err, size_t len)
{
	struct lane_pair lp[LB_JOB_MAX_LANES];
	pthread_t t[LB_JOB_MAX_LANES];
	int q = lb_check_bisection_partner(c->job.rank, c->job.size);
	uint32_t started = 0;
	for (; q >= 0 && started < c->job.lanes; started++) {
		lp[started] = (struct lane_pair){ .c = c, .lane = started, .peer = (uint32_t)q };
		if (pthread_create(&t[started], NULL, bisection_lane, &lp[started]) != 0)
			break;
	}
	for (uint32_t l = started; q >= 0 && l < c->job.lanes; l++)
		snprintf(c->mine[l * c->slots].why, CHECK_WHY, "cannot start a lane thread");
	for (uint32_t i = 0; i < started; i++) {
		pthread_join(t[i], NULL);
		c->gave_up |= lp[i].rc != 0;
	}
	return lb_boot_barrier(c->job.boot, err, len);
}

/* ---- --rerun: each suspect with its partners, one pair at a time --------- */

/* The partners the lane's suspects meet, each once, in the order first
 * met; returns how many (at most 3 a suspect, into out). */
static uint32_t lane_partners(const struct lb_check_retest *rt, uint32_t lane, uint32_t *out)
{
	uint32_t n = 0;
	for (size_t i = 0; i < rt->n; i++)
		for (uint32_t j = 0; rt->ports[i].lane == lane && j < rt->ports[i].npartners; j++)
			check_add_peer(out, &n, rt->ports[i].partners[j]);
	return n;
}

/* One step of a lane's rerun: ranks a and b measured as a pair. */
struct retest_step {
	uint32_t a, b;
};

/* The lane's steps, in order: each suspect with its partners, then the
 * reference pairs -- the lane's partners with each other, in a ring (one
 * pair of two), so that what a healthy port reaches now, by the same
 * method, is the yardstick (check_verdict.c), not the earlier record's,
 * measured perhaps by another pattern.  Made once per lane: a step looked
 * up by scanning, inside the loop over the steps, was cubic.  *n how many;
 * NULL: out of memory. */
static struct retest_step *retest_plan(const struct lb_check_retest *rt, uint32_t lane,
				       uint32_t *n)
{
	uint32_t *q = calloc(3 * rt->n + 1, sizeof(*q)), m = 0;
	struct retest_step *st = calloc(6 * rt->n + 1, sizeof(*st));
	*n = 0;
	if (!q || !st) {
		free(q);
		free(st);
		return NULL;
	}
	for (size_t i = 0; i < rt->n; i++)
		for (uint32_t j = 0; rt->ports[i].lane == lane && j < rt->ports[i].npartners; j++)
			st[(*n)++] = (struct retest_step){ rt->ports[i].rank, rt->ports[i].partners[j] };
	m = lane_partners(rt, lane, q);
	for (uint32_t k = 0; m >= 2 && k < (m == 2 ? 1 : m); k++)
		st[(*n)++] = (struct retest_step){ q[k], q[(k + 1) % m] };
	free(q);
	return st;
}

/* The other rank of a step's pair, or -1: this rank sits it out. */
static int retest_peer(const struct check *c, const struct retest_step *st)
{
	uint32_t me = c->job.rank;
	return st->a == me ? (int)st->b : st->b == me ? (int)st->a : -1;
}

static int phase_retest(struct check *c, char *err, size_t len)
{
	int rc = 0;
	for (uint32_t l = 0; rc == 0 && l < c->job.lanes; l++) {
		uint32_t n;
		struct retest_step *st = retest_plan(c->p->retest, l, &n);
		if (!st)
			return lb_errf(err, len, "out of memory");
		for (uint32_t s = 0; rc == 0 && s < n; s++) {
			int q = retest_peer(c, &st[s]);
			if (q >= 0)
				c->gave_up |= check_measure_pair(c, 0, l, s % 4, (uint32_t)q,
								  &c->mine[l * c->slots + s]) != 0;
			rc = lb_boot_barrier(c->job.boot, err, len);
		}
		free(st);
	}
	return rc;
}

/* ---- what check.c asks ---------------------------------------------------- */

uint32_t check_pattern_slots(const struct lb_check_params *p, uint32_t size, uint32_t lanes)
{
	uint32_t most = 1;
	if (p->retest) {
		for (uint32_t l = 0; l < lanes; l++) {
			uint32_t n;
			free(retest_plan(p->retest, l, &n));
			most = n > most ? n : most;
		}
		return most;
	}
	if (p->pattern == LB_CHECK_SHIFT)
		return size > 1 ? size - 1 : 1;
	if (p->pattern == LB_CHECK_BISECTION)
		return 1;
	return lb_check_rounds(size) + 1;
}

void check_pattern_peers(const struct check *c, uint32_t lane, uint32_t *list, uint32_t *n)
{
	uint32_t me = c->job.rank;
	int q = lb_check_bisection_partner(me, c->job.size);
	if (c->p->retest) {
		uint32_t steps;
		struct retest_step *st = retest_plan(c->p->retest, lane, &steps);
		for (uint32_t s = 0; st && s < steps; s++)
			if ((q = retest_peer(c, &st[s])) >= 0)
				check_add_peer(list, n, (uint32_t)q);
		free(st);
	} else if (c->p->pattern == LB_CHECK_SHIFT) {
		for (uint32_t k = 0; k < c->job.size; k++)
			if (k != me)
				check_add_peer(list, n, k);
	} else if (c->p->pattern == LB_CHECK_BISECTION && q >= 0) {
		check_add_peer(list, n, (uint32_t)q);
	}
}

int check_phase_pattern(struct check *c, char *err, size_t len)
{
	if (c->p->retest)
		return phase_retest(c, err, len);
	if (c->p->pattern == LB_CHECK_SHIFT)
		return check_phase_shift(c, err, len);
	return phase_bisection(c, err, len);
}

/* FNV-1a, 64 bits: a fingerprint, not a defence. */
static uint64_t mix(uint64_t h, const void *data, size_t n)
{
	const unsigned char *b = data;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

uint64_t check_retest_hash(const struct lb_check_retest *rt)
{
	uint64_t h = 0xcbf29ce484222325ull;
	h = mix(h, &rt->n, sizeof(rt->n));
	for (size_t i = 0; i < rt->n; i++) {
		const struct lb_check_retest_port *pt = &rt->ports[i];
		h = mix(h, &pt->rank, sizeof(pt->rank));
		h = mix(h, &pt->lane, sizeof(pt->lane));
		h = mix(h, &pt->npartners, sizeof(pt->npartners));
		h = mix(h, pt->partners, pt->npartners * sizeof(pt->partners[0]));
	}
	h = mix(h, &rt->nhosts, sizeof(rt->nhosts));
	for (uint32_t k = 0; k < rt->nhosts; k++)
		h = mix(h, rt->hosts[k], strlen(rt->hosts[k]) + 1);
	return h;
}

int check_retest_agree(const struct check *c, char *err, size_t len)
{
	uint64_t mine = check_retest_hash(c->p->retest), *all = calloc(c->job.size, sizeof(*all));
	int rc = all ? lb_boot_allgather(c->job.boot, &mine, sizeof(mine), all, err, len)
		     : lb_errf(err, len, "out of memory");
	for (uint32_t k = 1; rc == 0 && k < c->job.size; k++)
		if (all[k] != all[0]) {
			lb_errf(err, len, "rank %u read another record than rank 0 (its suspects, their "
				"partners or the hosts differ): every rank must read the same RECORD", k);
			rc = LB_EINPUT;
		}
	free(all);
	return rc;
}

/* Every rank runs where the record says it ran: 0, or LB_EINPUT naming
 * the rank. */
int check_retest_hosts(const struct check *c, const char *host, char *err, size_t len)
{
	const struct lb_check_retest *rt = c->p->retest;
	uint32_t me = c->job.rank;
	if (rt->nhosts != c->job.size)
		return lb_errf(err, len, "the record has %u ranks, this job %u: rerun it with the "
			       "same hosts in the same order", rt->nhosts, c->job.size), LB_EINPUT;
	if (strcmp(rt->hosts[me], host) != 0)
		return lb_errf(err, len, "rank %u runs on host %s, the record's rank %u ran on %s: "
			       "rerun it with the same hosts in the same order", me, host, me,
			       rt->hosts[me]), LB_EINPUT;
	for (size_t i = 0; i < rt->n; i++) {
		const struct lb_check_retest_port *pt = &rt->ports[i];
		int bad = pt->rank >= c->job.size || pt->lane >= c->job.lanes;
		for (uint32_t j = 0; j < pt->npartners; j++)
			bad |= pt->partners[j] >= c->job.size || pt->partners[j] == pt->rank;
		if (bad)
			return lb_errf(err, len, "the record's port rank %u lane %u, or a partner of it, "
				       "is not in this job (%u ranks, %u lanes)", pt->rank, pt->lane,
				       c->job.size, c->job.lanes), LB_EINPUT;
	}
	return 0;
}
