/* Phase 1 of the check by --pattern shift and bisection, and by --rerun
 * (the suspects of a record with healthy partners); neighbours is
 * check.c's.  See check.h. */
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "check_links.h"
#include "check_private.h"
#include "idle.h"
#include "lib/error.h"
#include "pattern.h"

int lb_check_bisection_partner(uint32_t rank, uint32_t size)
{
	uint32_t m = size - size % 2;
	if (m < 2 || rank >= m)
		return -1;
	return (int)((rank + m / 2) % m);
}

static uint32_t gcd(uint32_t a, uint32_t b)
{
	while (b) {
		uint32_t t = a % b;
		a = b, b = t;
	}
	return a;
}

/* rank -> rank + d runs in cycles of p / gcd(p, d) ranks, the ranks of
 * one residue mod gcd(p, d); colour each cycle alternately from its
 * smallest member, the last member of an odd cycle with the third
 * colour. */
uint32_t lb_check_shift_colour(uint32_t rank, uint32_t size, uint32_t d)
{
	uint32_t g = gcd(size, d % size), cycle = size / g, j = 0;
	for (uint32_t x = rank % g; x != rank && j < size; x = (x + d) % size)
		j++;
	return cycle % 2 && j == cycle - 1 ? 2 : j % 2;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- shift: to rank + d, from rank - d, every rank at once --------------- */

enum shift_id { DATA_IN = 1, ACK_IN, DATA_OUT, ACK_OUT, READY_IN, READY_OUT };

/* One step on one lane: where things go, and one repetition's progress.
 * The lane's region holds three windows (one per colour), three 8-byte
 * acknowledgements and three ready tokens: a rank sends from its
 * colour's, receives into its sender's.  A receiver tells its sender it
 * is ready (its receives posted) and times from then: a sender that
 * started before would find its window buffered on the way (TCP's socket
 * buffers) and the receiver would time a copy, not the link.  It
 * times from the first message it got to the last (a sender still busy
 * with its own receiver starts late, which is no fault of the link), and
 * its acknowledgement carries the rate back. */
struct shift {
	const struct check *c;
	uint32_t lane, to, from;
	uint64_t window_bytes, out, in, ack_out, ack_in, ready_out, ready_in;
	uint32_t data_in, data_out, acks_in, acks_out, ready_ins, ready_outs; /* this repetition */
	double first_at;        /* when the first of the window came, */
	uint32_t first;         /* with how many */
	double deadline, since;
	int armed, tp_fd;
};

uint64_t check_shift_region(const struct lb_check_params *p)
{
	return 3 * ((uint64_t)p->window * p->bw_bytes + 16) + 64;
}

static struct shift shift_of(const struct check *c, uint32_t lane, uint32_t d)
{
	uint32_t p = c->job.size, me = c->job.rank;
	struct shift s = { .c = c, .lane = lane, .to = (me + d) % p, .from = (me + p - d) % p,
			   .window_bytes = (uint64_t)c->p->window * c->p->bw_bytes, .tp_fd = -1 };
	uint64_t base = lane * c->region, acks = base + 3 * s.window_bytes;
	s.out = base + s.window_bytes * lb_check_shift_colour(me, p, d);
	s.in = base + s.window_bytes * lb_check_shift_colour(s.from, p, d);
	s.ack_out = acks + 8 * lb_check_shift_colour(me, p, d);
	s.ack_in = acks + 8 * lb_check_shift_colour(s.to, p, d);
	s.ready_out = acks + 24 + 8 * lb_check_shift_colour(me, p, d);
	s.ready_in = acks + 24 + 8 * lb_check_shift_colour(s.to, p, d);
	return s;
}

static void count(struct shift *s, const struct lb_completion *comp, int k)
{
	uint32_t had = s->data_in;
	for (int i = 0; i < k; i++) {
		s->data_in += comp[i].id == DATA_IN;
		s->acks_in += comp[i].id == ACK_IN;
		s->data_out += comp[i].id == DATA_OUT;
		s->acks_out += comp[i].id == ACK_OUT;
		s->ready_ins += comp[i].id == READY_IN;
		s->ready_outs += comp[i].id == READY_OUT;
	}
	if (had == 0 && s->data_in > 0)
		s->first_at = now(), s->first = s->data_in;
	if (k > 0)
		s->armed = 0, s->since = 0;
}

/* Nothing came: the idle policy (p2p.c's: linger, arm, sleep), and the
 * deadline. */
static int idle_or_late(struct shift *s, char *err, size_t len)
{
	const struct check *c = s->c;
	if (c->p->stop && *c->p->stop)
		return lb_errf(err, len, "stopped");
	if (now() > s->deadline)
		return lb_errf(err, len, "lane %u: %u of %u messages from rank %u, %u of %u sends to "
			       "rank %u done, its acknowledgement %s, within %.0f s", s->lane,
			       s->data_in, c->p->window, s->from, s->data_out, c->p->window, s->to,
			       s->acks_in ? "came" : "did not come", c->pair_timeout);
	if (c->p->idle == LB_IDLE_YIELD)
		sched_yield();
	if (c->p->idle != LB_IDLE_SLEEP)
		return 0;
	double t = now();
	if (s->since == 0)
		s->since = t;
	if (t - s->since < LB_IDLE_LINGER) {
		sched_yield();
	} else if (!s->armed) {
		s->tp_fd = c->job.ops->arm ? c->job.ops->arm(c->job.tp, s->lane) : -1;
		s->armed = 1;
	} else {
		lb_idle_sleep(s->tp_fd, -1, LB_IDLE_MAX_SLEEP);
		s->armed = 0;
	}
	return 0;
}

static int poll_once(struct shift *s, char *err, size_t len)
{
	struct lb_completion comp[64];
	const struct check *c = s->c;
	int k = c->job.ops->poll(c->job.tp, s->lane, comp, 64, err, len);
	if (k < 0)
		return -1;
	count(s, comp, k);
	return k == 0 ? idle_or_late(s, err, len) : 0;
}

/* A post, again after a poll while the lane's queue is full. */
static int post(struct shift *s, int send, uint32_t peer, uint64_t off, uint64_t bytes,
		enum shift_id id, char *err, size_t len)
{
	const struct check *c = s->c;
	for (;;) {
		char why[256] = "";
		int rc = send ? c->job.ops->post_send(c->job.tp, s->lane, peer, off, bytes, id, why, sizeof(why))
			      : c->job.ops->post_recv(c->job.tp, s->lane, peer, off, bytes, id, why, sizeof(why));
		if (rc < 0)
			return lb_errf(err, len, "lane %u: cannot post a %s of %llu bytes with rank %u: %s",
				       s->lane, send ? "send" : "receive", (unsigned long long)bytes, peer, why);
		if (rc == 0 || poll_once(s, err, len))
			return rc ? -1 : 0;
	}
}

static int wait_for(struct shift *s, uint32_t data_in, uint32_t data_out, uint32_t acks,
		    uint32_t ready, char *err, size_t len)
{
	while (s->data_in < data_in || s->data_out < data_out || s->acks_in < acks ||
	       s->acks_out < acks || s->ready_ins < ready || s->ready_outs < ready)
		if (poll_once(s, err, len))
			return -1;
	return 0;
}

/* The window's rate: the messages after the first over the time they
 * took; when they all came at once (a receiver that could not poll
 * sooner), the whole window over the time since it said ready. */
static double window_rate(const struct shift *s, double ready_at, double done)
{
	uint64_t b = s->c->p->bw_bytes;
	uint32_t after = s->c->p->window - s->first;
	if (after > 0 && done > s->first_at)
		return (double)(after * b) / (done - s->first_at);
	return (double)s->window_bytes / (done - ready_at);
}

/* Receives the window from `from`, checks it, acknowledges it with its
 * rate (*rate). */
static int receive_window(struct shift *s, uint32_t id, double t0, double *rate, char *err,
			  size_t len)
{
	const struct check *c = s->c;
	uint64_t bad;
	if (wait_for(s, c->p->window, 0, 0, 0, err, len))
		return -1;
	*rate = window_rate(s, t0, now());
	if (lb_pattern_check(c->job.buf + s->in, s->window_bytes, id, &bad))
		return lb_errf(err, len, "wrong data from rank %u on lane %u at byte %llu", s->from,
			       s->lane, (unsigned long long)bad);
	memcpy(c->job.buf + s->ack_out, rate, sizeof(*rate));
	return post(s, 1, s->from, s->ack_out, sizeof(double), ACK_OUT, err, len);
}

/* One repetition: the window from rank - d received (its rate *in)
 * while ours goes to rank + d, which tells its rate (*out).  What a
 * rank receives from one peer comes in the order that peer sends it --
 * ready, window, acknowledgement (to and from are one rank when d = p/2)
 * -- and is posted in that order. */
static int shift_rep(struct shift *s, uint32_t id, double *in, double *out, char *err,
		     size_t len)
{
	const struct check *c = s->c;
	uint64_t b = c->p->bw_bytes;
	s->data_in = s->data_out = s->acks_in = s->acks_out = s->ready_ins = s->ready_outs = 0;
	s->first = 0;
	s->deadline = now() + c->pair_timeout;
	lb_pattern_fill(c->job.buf + s->out, s->window_bytes, id);
	int rc = post(s, 0, s->to, s->ready_in, 8, READY_IN, err, len);
	for (uint32_t w = 0; rc == 0 && w < c->p->window; w++)
		rc = post(s, 0, s->from, s->in + w * b, b, DATA_IN, err, len);
	if (rc == 0)
		rc = post(s, 0, s->to, s->ack_in, sizeof(double), ACK_IN, err, len);
	double t0 = now();
	if (rc == 0)
		rc = post(s, 1, s->from, s->ready_out, 8, READY_OUT, err, len);
	while (rc == 0 && s->ready_ins < 1) /* the receiver is ready */
		rc = poll_once(s, err, len);
	for (uint32_t w = 0; rc == 0 && w < c->p->window; w++)
		rc = post(s, 1, s->to, s->out + w * b, b, DATA_OUT, err, len);
	if (rc == 0)
		rc = receive_window(s, id, t0, in, err, len);
	if (rc == 0)
		rc = wait_for(s, c->p->window, c->p->window, 1, 1, err, len);
	if (rc == 0)
		memcpy(out, c->job.buf + s->ack_in, sizeof(*out));
	return rc;
}

/* A failed step gives up the side that fell silent (both when it cannot
 * tell), as check.c's pairs do. */
static void shift_give_up(const struct shift *s)
{
	const struct lb_transport *ops = s->c->job.ops;
	int from_silent = s->data_in < s->c->p->window, to_silent = !from_silent || !s->acks_in;
	if (!ops->forget)
		return;
	if (from_silent)
		ops->forget(s->c->job.tp, s->lane, s->from);
	if (to_silent && s->to != s->from)
		ops->forget(s->c->job.tp, s->lane, s->to);
}

/* The best repetition after a warm-up one (noise only slows a window
 * down: check.c's stream), as the receiver measured it: m->tx.  What
 * this rank received is its sender's record's. */
static void shift_step(struct check *c, uint32_t lane, uint32_t d, struct check_pair *m)
{
	struct shift s = shift_of(c, lane, d);
	struct lb_port_counters before, after;
	int rc = 0;
	*m = (struct check_pair){ .partner = (int32_t)s.to, .from = (int32_t)s.from, .lat = NAN,
				  .tx = NAN };
	check_lane_counters(c, lane, &before);
	for (uint32_t i = 0; rc == 0 && i <= c->p->iterations; i++) {
		double in = NAN, out = NAN;
		uint32_t id = 1 + i + 1024 * (d + 1024 * lane);
		rc = shift_rep(&s, id, &in, &out, m->why, sizeof(m->why));
		m->verified += rc == 0 ? s.window_bytes : 0;
		if (rc || i == 0 || !(out > 0 && out < INFINITY))
			continue;
		m->tx = isnan(m->tx) || out > m->tx ? out : m->tx;
	}
	check_lane_counters(c, lane, &after);
	check_pair_loss(&before, &after, &m->resent, &m->sent);
	m->ok = rc == 0;
	if (rc) {
		shift_give_up(&s);
		c->gave_up = 1;
	}
	if (rc && c->connected)
		memcpy(m->why, c->connect_why, sizeof(m->why));
}

/* Phase 1's pattern for a second look at a link (check.c's pattern ids). */
#define PHASE_LINK_AGAIN 5

/* At most this many second looks a lane, times the ranks: a lane whose
 * links are all slow has a slow switch, which more looks do not change. */
#define LINK_LOOKS_PER_RANK 2

/* Lane l's matrix from every rank's records (c->all): what each sent its
 * partner at, as the receiver measured it. */
static void shift_matrix(const struct check *c, uint32_t l, double *rate)
{
	uint32_t n = c->job.size;
	for (size_t i = 0; i < (size_t)n * n; i++)
		rate[i] = NAN;
	for (uint32_t s = 0; s < n; s++)
		for (uint32_t slot = 0; slot < c->slots; slot++) {
			const struct check_pair *m = &c->all[((size_t)s * c->job.lanes + l) * c->slots + slot];
			if (m->partner >= 0)
				rate[(size_t)s * n + (uint32_t)m->partner] = m->tx;
		}
}

/* One link low in its row and column, measured once more as a pair (one
 * at a time, the others waiting): noise on a busy machine -- a rank not
 * scheduled while its window came -- only slows a cell down, a slow link
 * stays slow.  The sender keeps the better rate; the second look's bytes
 * are checked but not counted in the cell's (the matrix's own). */
static int link_again(struct check *c, uint32_t l, uint32_t s, uint32_t r, char *err, size_t len)
{
	uint32_t me = c->job.rank, n = c->job.size;
	if (me == s || me == r) {
		struct check_pair again;
		c->gave_up |= check_measure_pair(c, PHASE_LINK_AGAIN, l, 0, me == s ? r : s, &again) != 0;
		struct check_pair *m = &c->mine[l * c->slots + (r + n - s) % n - 1];
		if (me == s && again.ok)
			m->tx = isnan(m->tx) ? again.tx : fmax(m->tx, again.tx);
	}
	return lb_boot_barrier(c->job.boot, err, len);
}

/* Every rank finds the same slow links (the same records, the same pure
 * function), so every rank takes part in the same second looks. */
static int links_again(struct check *c, char *err, size_t len)
{
	uint32_t n = c->job.size, looks = 0;
	double *rate = malloc(((size_t)n * n + 1) * sizeof(double));
	int rc = rate ? 0 : lb_errf(err, len, "out of memory"), any = 0;
	for (uint32_t l = 0; rc == 0 && l < c->job.lanes; l++, looks = 0) {
		struct lb_link_verdicts v;
		shift_matrix(c, l, rate);
		if (lb_link_judge(rate, n, c->p->min_bw, &v)) {
			rc = lb_errf(err, len, "out of memory");
			break;
		}
		for (size_t i = 0; rc == 0 && i < (size_t)n * n && looks < LINK_LOOKS_PER_RANK * n; i++)
			if (v.link_low[i]) {
				any = 1, looks++;
				rc = link_again(c, l, (uint32_t)(i / n), (uint32_t)(i % n), err, len);
			}
		lb_link_verdicts_free(&v);
	}
	free(rate);
	size_t k = (size_t)c->job.lanes * c->slots;
	return rc || !any ? rc : lb_boot_allgather(c->job.boot, c->mine, k * sizeof(*c->mine), c->all,
						   err, len);
}

static int phase_shift(struct check *c, char *err, size_t len)
{
	for (uint32_t l = 0; l < c->job.lanes; l++)
		for (uint32_t d = 1; d < c->job.size; d++) {
			shift_step(c, l, d, &c->mine[l * c->slots + d - 1]);
			int rc = lb_boot_barrier(c->job.boot, err, len);
			if (rc)
				return rc;
		}
	size_t k = (size_t)c->job.lanes * c->slots;
	int rc = lb_boot_allgather(c->job.boot, c->mine, k * sizeof(*c->mine), c->all, err, len);
	return rc ? rc : links_again(c, err, len);
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

/* Pair `step` of the lane's: the suspect and one partner; 0: no such step. */
static int retest_pair(const struct lb_check_retest *rt, uint32_t lane, uint32_t step,
		       uint32_t *a, uint32_t *b)
{
	for (size_t i = 0; i < rt->n; i++) {
		const struct lb_check_retest_port *pt = &rt->ports[i];
		if (pt->lane != lane)
			continue;
		if (step < pt->npartners) {
			*a = pt->rank, *b = pt->partners[step];
			return 1;
		}
		step -= pt->npartners;
	}
	return 0;
}

static uint32_t retest_steps(const struct lb_check_retest *rt, uint32_t lane)
{
	uint32_t n = 0, a, b;
	while (retest_pair(rt, lane, n, &a, &b))
		n++;
	return n;
}

/* The other rank of the step's pair, or -1: this rank sits it out. */
static int retest_peer(const struct check *c, uint32_t lane, uint32_t step)
{
	uint32_t a, b, me = c->job.rank;
	if (!retest_pair(c->p->retest, lane, step, &a, &b))
		return -1;
	return a == me ? (int)b : b == me ? (int)a : -1;
}

static int phase_retest(struct check *c, char *err, size_t len)
{
	for (uint32_t l = 0; l < c->job.lanes; l++)
		for (uint32_t s = 0; s < retest_steps(c->p->retest, l); s++) {
			int q = retest_peer(c, l, s);
			if (q >= 0)
				c->gave_up |= check_measure_pair(c, 0, l, s % 4, (uint32_t)q,
								  &c->mine[l * c->slots + s]) != 0;
			int rc = lb_boot_barrier(c->job.boot, err, len);
			if (rc)
				return rc;
		}
	return 0;
}

/* ---- what check.c asks ---------------------------------------------------- */

uint32_t check_pattern_slots(const struct lb_check_params *p, uint32_t size, uint32_t lanes)
{
	uint32_t most = 1;
	if (p->retest) {
		for (uint32_t l = 0; l < lanes; l++)
			most = retest_steps(p->retest, l) > most ? retest_steps(p->retest, l) : most;
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
		for (uint32_t s = 0; s < retest_steps(c->p->retest, lane); s++)
			if ((q = retest_peer(c, lane, s)) >= 0)
				check_add_peer(list, n, (uint32_t)q);
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
		return phase_shift(c, err, len);
	return phase_bisection(c, err, len);
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
