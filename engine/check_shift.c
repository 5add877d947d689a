/* Phase 1 of the check by --pattern shift (mpiGraph's): per lane, for
 * d = 1 .. p - 1, every rank sends a window to rank + d while it receives
 * one from rank - d, all ranks of a step at once; then a second look at
 * the links the matrix finds slow.  See check.h. */
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "check_links.h"
#include "check_private.h"
#include "idle.h"
#include "launch/bootstrap.h"
#include "lib/error.h"
#include "pattern.h"

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

/* ---- one step on one lane ------------------------------------------------- */

enum shift_id { DATA_IN = 1, ACK_IN, DATA_OUT, ACK_OUT, READY_IN, READY_OUT };

/* A step's two directions: what this rank sends rank + d (OUT) and
 * receives from rank - d (IN).  Each goes on when the other failed: a
 * dead receiver must not keep this rank from acknowledging its sender,
 * or one dead port would fail every link of the lane. */
enum { DIR_OUT = 1, DIR_IN = 2 };

/* Where things go, and one repetition's progress.  The lane's region
 * holds three windows (one per colour), three 8-byte acknowledgements and
 * three ready tokens: a rank sends from its colour's, receives into its
 * sender's.  A receiver tells its sender it is ready (its receives
 * posted): a sender that started before would find its window buffered
 * on the way (TCP's socket buffers) and the receiver would time a copy,
 * not the link.  It times from the first message it got to the last (a
 * sender still busy with its own receiver starts late, no fault of the
 * link) and acknowledges with the rate. */
struct shift {
	const struct check *c;
	uint32_t lane, to, from, window;
	uint64_t window_bytes, out, in, ack_out, ack_in, ready_out, ready_in;
	int dead;               /* DIR_*: given up in an earlier repetition */
	int failed;             /* DIR_*: failed in this one */
	uint32_t data_in, data_out, acks_in, acks_out, ready_ins, ready_outs; /* this repetition */
	int sent, acked;        /* the window went out; ours was acknowledged */
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
			   .window = c->p->window,
			   .window_bytes = (uint64_t)c->p->window * c->p->bw_bytes, .tp_fd = -1 };
	uint64_t base = lane * c->region, acks = base + 3 * s.window_bytes;
	uint32_t mine = lb_check_shift_colour(me, p, d);
	s.out = base + s.window_bytes * mine;
	s.in = base + s.window_bytes * lb_check_shift_colour(s.from, p, d);
	s.ack_out = acks + 8 * mine;
	s.ack_in = acks + 8 * lb_check_shift_colour(s.to, p, d);
	s.ready_out = acks + 24 + 8 * mine;
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

/* Whether a direction is left out: given up before, or failed now. */
static int off(const struct shift *s, int dir)
{
	return ((s->dead | s->failed) & dir) != 0;
}

/* What each direction still waits for. */
static int out_done(const struct shift *s)
{
	return off(s, DIR_OUT) || (s->sent && s->data_out == s->window && s->acks_in == 1);
}

static int in_done(const struct shift *s)
{
	return off(s, DIR_IN) || (s->acked && s->acks_out == 1 && s->ready_outs == 1);
}

static int late(struct shift *s, char *err, size_t len)
{
	const struct check *c = s->c;
	s->failed |= (out_done(s) ? 0 : DIR_OUT) | (in_done(s) ? 0 : DIR_IN);
	return lb_errf(err, len, "lane %u: %u of %u messages from rank %u came, %u of %u sends to "
		       "rank %u done (%s), within %.0f s", s->lane, s->data_in, s->window, s->from,
		       s->data_out, s->window, s->to,
		       !s->sent ? "it never said it was ready" : s->acks_in ? "acknowledged"
								    : "not acknowledged",
		       c->pair_timeout);
}

/* Nothing came: the idle policy (p2p.c's: linger, arm, sleep), and the
 * deadline. */
static int idle_or_late(struct shift *s, char *err, size_t len)
{
	const struct check *c = s->c;
	if (c->p->stop && *c->p->stop)
		return s->failed = DIR_OUT | DIR_IN, lb_errf(err, len, "stopped");
	if (now() > s->deadline)
		return late(s, err, len);
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

/* A poll that fails cannot say which direction: both. */
static int poll_once(struct shift *s, char *err, size_t len)
{
	struct lb_completion comp[64];
	const struct check *c = s->c;
	int k = c->job.ops->poll(c->job.tp, s->lane, comp, 64, err, len);
	if (k < 0)
		return s->failed = DIR_OUT | DIR_IN, -1;
	count(s, comp, k);
	return k == 0 ? idle_or_late(s, err, len) : 0;
}

/* A post of direction dir, again after a poll while the lane's queue is
 * full. */
static int post(struct shift *s, int dir, int send, uint32_t peer, uint64_t off, uint64_t bytes,
		enum shift_id id, char *err, size_t len)
{
	const struct check *c = s->c;
	for (;;) {
		char why[256] = "";
		int rc = c->job.ops->post(c->job.tp, s->lane, send ? LB_XFER_SEND : LB_XFER_RECV,
					  peer, off, bytes, id, why, sizeof(why));
		if (rc < 0)
			return s->failed |= dir, lb_errf(err, len, "lane %u: cannot post a %s of %llu "
							 "bytes with rank %u: %s", s->lane,
							 send ? "send" : "receive",
							 (unsigned long long)bytes, peer, why);
		if (rc == 0 || poll_once(s, err, len))
			return rc ? -1 : 0;
	}
}

static int post_window(struct shift *s, int send, char *err, size_t len)
{
	uint64_t b = s->c->p->bw_bytes;
	int rc = 0;
	for (uint32_t w = 0; rc == 0 && w < s->window; w++)
		rc = send ? post(s, DIR_OUT, 1, s->to, s->out + w * b, b, DATA_OUT, err, len)
			  : post(s, DIR_IN, 0, s->from, s->in + w * b, b, DATA_IN, err, len);
	return rc;
}

/* Keeps the first failure's reason in err (from one in `now`). */
static void first_why(int rc, const char *now, char *err, size_t len)
{
	if (rc && !*err)
		snprintf(err, len, "%s", now);
}

/* The receives of a repetition, in the order each peer sends (to and
 * from are one rank when d = p/2): its ready, its window, its
 * acknowledgement; then ours: ready.  A direction that cannot post is
 * left out; the other goes on. */
static void post_receives(struct shift *s, char *err, size_t len)
{
	char now[CHECK_WHY];
	if (!off(s, DIR_OUT))
		first_why(post(s, DIR_OUT, 0, s->to, s->ready_in, 8, READY_IN, now, sizeof(now)), now,
			  err, len);
	if (!off(s, DIR_IN))
		first_why(post_window(s, 0, now, sizeof(now)), now, err, len);
	if (!off(s, DIR_OUT))
		first_why(post(s, DIR_OUT, 0, s->to, s->ack_in, sizeof(double), ACK_IN, now,
			       sizeof(now)), now, err, len);
	if (!off(s, DIR_IN))
		first_why(post(s, DIR_IN, 1, s->from, s->ready_out, 8, READY_OUT, now, sizeof(now)),
			  now, err, len);
}

/* The window from `from` arrived: its rate (*in), checked, acknowledged. */
static int acknowledge(struct shift *s, uint32_t id, double ready_at, double *in, char *err,
		       size_t len)
{
	const struct check *c = s->c;
	uint64_t bad, b = c->p->bw_bytes;
	double done = now();
	uint32_t after = s->window - s->first;
	*in = after > 0 && done > s->first_at ? (double)(after * b) / (done - s->first_at)
					      : (double)s->window_bytes / (done - ready_at);
	s->acked = 1;
	if (lb_pattern_check(c->job.buf + s->in, s->window_bytes, id, &bad))
		return s->failed |= DIR_IN, lb_errf(err, len, "wrong data from rank %u on lane %u at "
						    "byte %llu", s->from, s->lane,
						    (unsigned long long)bad);
	memcpy(c->job.buf + s->ack_out, in, sizeof(*in));
	return post(s, DIR_IN, 1, s->from, s->ack_out, sizeof(double), ACK_OUT, err, len);
}

/* One repetition: the window from rank - d received (its rate *in) while
 * ours goes to rank + d once it is ready, which tells its rate (*out).
 * A direction given up before, or failing now, is left out and the other
 * goes on (a poll that fails, a deadline passed, end both).  Returns -1
 * when one failed (s->failed says which; err the first reason). */
static int shift_rep(struct shift *s, uint32_t id, double *in, double *out, char *err,
		     size_t len)
{
	char now_why[CHECK_WHY];
	s->data_in = s->data_out = s->acks_in = s->acks_out = s->ready_ins = s->ready_outs = 0;
	s->sent = s->acked = 0, s->first = 0, s->failed = 0;
	s->deadline = now() + s->c->pair_timeout;
	*err = 0;
	lb_pattern_fill(s->c->job.buf + s->out, s->window_bytes, id);
	double ready_at = now();
	post_receives(s, err, len);
	while (!(out_done(s) && in_done(s))) {
		int rc;
		if (!off(s, DIR_OUT) && !s->sent && s->ready_ins) {
			s->sent = 1;
			rc = post_window(s, 1, now_why, sizeof(now_why));
		} else if (!off(s, DIR_IN) && !s->acked && s->data_in == s->window) {
			rc = acknowledge(s, id, ready_at, in, now_why, sizeof(now_why));
		} else {
			rc = poll_once(s, now_why, sizeof(now_why));
		}
		first_why(rc, now_why, err, len);
	}
	if (!off(s, DIR_OUT))
		memcpy(out, s->c->job.buf + s->ack_in, sizeof(*out));
	return s->failed ? -1 : 0;
}

/* A direction that failed is given up (transport.h, forget), as check.c's
 * pairs are: both when to and from are one rank. */
static void shift_give_up(struct shift *s)
{
	const struct lb_transport *ops = s->c->job.ops;
	if (s->to == s->from && s->failed)
		s->failed = DIR_OUT | DIR_IN;
	s->dead |= s->failed;
	if (!ops->forget)
		return;
	if (s->failed & DIR_IN)
		ops->forget(s->c->job.tp, s->lane, s->from);
	if ((s->failed & DIR_OUT) && s->to != s->from)
		ops->forget(s->c->job.tp, s->lane, s->to);
}

/* Above every pair's (check_pattern_id, phases 0 .. 5 of 16 lanes:
 * < 786,432 <= CHECK_PAIR_IDS); d < 2048 (shift's most ranks, 1,448) and
 * rep <= 500 (-i's most) keep a step's ids apart, 16 lanes < 2^26. */
uint32_t check_shift_id(uint32_t lane, uint32_t d, uint32_t rep)
{
	return CHECK_PAIR_IDS + 1 + rep + 1024 * (d + 2048 * lane);
}

/* The best repetition after a warm-up one (noise only slows a window
 * down: check.c's stream), as the receiver measured it: m->tx.  What
 * this rank received is its sender's record's.  A failed direction is
 * left out of the repetitions after it; the other goes on. */
static void shift_step(struct check *c, uint32_t lane, uint32_t d, struct check_pair *m)
{
	struct shift s = shift_of(c, lane, d);
	struct lb_port_counters before, after;
	char why[CHECK_WHY];
	*m = (struct check_pair){ .partner = (int32_t)s.to, .from = (int32_t)s.from, .lat = NAN,
				  .tx = NAN, .ok = 1 };
	check_lane_counters(c, lane, &before);
	for (uint32_t i = 0; i <= c->p->iterations && s.dead != (DIR_OUT | DIR_IN); i++) {
		double in = NAN, out = NAN;
		uint32_t id = check_shift_id(lane, d, i);
		int rc = shift_rep(&s, id, &in, &out, why, sizeof(why));
		m->verified += off(&s, DIR_IN) ? 0 : s.window_bytes;
		if (rc) {
			if (m->ok)
				memcpy(m->why, c->connected ? c->connect_why : why, sizeof(m->why));
			m->ok = 0;
			shift_give_up(&s);
			c->gave_up = 1;
		}
		if (i > 0 && !off(&s, DIR_OUT) && out > 0 && out < INFINITY)
			m->tx = isnan(m->tx) || out > m->tx ? out : m->tx;
	}
	check_lane_counters(c, lane, &after);
	check_pair_loss(&before, &after, &m->resent, &m->sent);
}

/* ---- a second look at slow links ------------------------------------------ */

/* Phase 1's pattern for a second look at a link (check.c's pattern ids). */
#define PHASE_LINK_AGAIN 5

/* At most CHECK_LINK_LOOKS_PER_RANK second looks a lane, times the
 * ranks: a lane whose links are all slow has a slow switch, which more
 * looks do not change.  All lanes' looks together stop after the job's
 * --timeout (each may take a pair's timeout, and up to 2 n of them run one
 * after another). */

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
 * are checked but not counted in the cell's (the matrix's own).  Then
 * rank 0 tells every rank whether the looks' time is up (*stop), so all
 * stop after the same look. */
static int link_again(struct check *c, uint32_t l, uint32_t s, uint32_t r, double t0,
		      int32_t *stop, char *err, size_t len)
{
	uint32_t me = c->job.rank, n = c->job.size;
	if (me == s || me == r) {
		struct check_pair again;
		c->gave_up |= check_measure_pair(c, PHASE_LINK_AGAIN, l, 0, me == s ? r : s, &again) != 0;
		struct check_pair *m = &c->mine[l * c->slots + (r + n - s) % n - 1];
		if (me == s && again.ok)
			m->tx = isnan(m->tx) ? again.tx : fmax(m->tx, again.tx);
	}
	*stop = me == 0 && now() - t0 > c->looks.budget;
	return lb_boot_bcast(c->job.boot, stop, sizeof(*stop), err, len);
}

/* ---- the matrix, gathered ------------------------------------------------- */

/* What every rank needs of a cell of the matrix -- the second looks,
 * phase 2's usable lanes, the wiring probe, burn-in's rates: the rate and
 * whether the pair held; the rest of a record (bytes verified, loss, why
 * it failed) only rank 0 reports, so only rank 0 gathers it whole.  A
 * whole record (struct check_pair, 248 bytes) per cell allgathered would
 * stop the bootstrap at ~185 ranks with 2 lanes. */
struct shift_cell {
	float tx;   /* bytes/s; NaN: not measured */
	int32_t ok;
};

static size_t cells_of(uint32_t size, uint32_t lanes)
{
	return (size_t)lanes * (size > 1 ? size - 1 : 1);
}

uint32_t check_shift_max_ranks(uint32_t lanes)
{
	uint32_t p = 2;
	/* the allgather's: size * len within the cap, as boot_coll.c checks */
	while (cells_of(p + 1, lanes) * sizeof(struct shift_cell) <= LB_BOOT_MSG_MAX / (p + 1) &&
	       cells_of(p + 1, lanes) * sizeof(struct check_pair) <= LB_BOOT_MSG_MAX)
		p++;
	return p;
}

int check_shift_fits(uint32_t size, uint32_t lanes, char *err, size_t len)
{
	uint32_t most = check_shift_max_ranks(lanes);
	if (size <= most)
		return 0;
	return lb_errf(err, len, "--pattern shift: %u ranks x %u lanes need %zu bytes a rank in one "
		       "gather of the bootstrap's (at most %u / ranks): at most %u ranks with %u "
		       "lane%s; use neighbours or bisection", size, lanes,
		       cells_of(size, lanes) * sizeof(struct shift_cell) * size, LB_BOOT_MSG_MAX,
		       most, lanes, lanes == 1 ? "" : "s"), LB_EINPUT;
}

/* Rank 0 rounds its whole records' rates as the cells carry them: every
 * rank must find the same slow links (links_again), or their second looks
 * -- collectives -- would not match. */
static void as_cells(struct check *c)
{
	size_t n = (size_t)c->job.size * c->job.lanes * c->slots;
	for (size_t i = 0; c->job.rank == 0 && i < n; i++)
		c->all[i].tx = (float)c->all[i].tx;
}

/* Every rank's cells into c->all (partner and from follow from the
 * slot: step d = slot + 1), then rank 0's c->all whole. */
static int shift_gather(struct check *c, char *err, size_t len)
{
	uint32_t n = c->job.size, lanes = c->job.lanes;
	size_t k = (size_t)lanes * c->slots;
	struct shift_cell *mine = calloc(k, sizeof(*mine)), *all = calloc(k * n, sizeof(*all));
	int rc = mine && all ? 0 : lb_errf(err, len, "out of memory");
	for (size_t i = 0; rc == 0 && i < k; i++)
		mine[i] = (struct shift_cell){ .tx = (float)c->mine[i].tx, .ok = c->mine[i].ok };
	if (rc == 0)
		rc = lb_boot_allgather(c->job.boot, mine, k * sizeof(*mine), all, err, len);
	for (size_t i = 0; rc == 0 && i < k * n; i++) {
		uint32_t s = (uint32_t)(i / k), d = (uint32_t)(i % c->slots) + 1;
		int one = n < 2; /* no step ran */
		c->all[i] = (struct check_pair){ .partner = one ? -1 : (int32_t)((s + d) % n),
						 .from = one ? -1 : (int32_t)((s + n - d) % n),
						 .ok = all[i].ok, .lat = NAN, .tx = all[i].tx };
	}
	free(mine);
	free(all);
	if (rc == 0)
		rc = lb_boot_gather(c->job.boot, c->mine, k * sizeof(*c->mine), c->all, err, len);
	if (rc == 0)
		as_cells(c);
	return rc;
}

/* Every rank finds the same slow links (the same records, the same pure
 * function), so every rank takes part in the same second looks.  The
 * steps' windows are wiped first, as burn-in wipes between passes: what
 * they left must not pass for what a second look sends (its ids differ
 * too); every rank is past the gather, so no step is under way. */
static int links_again(struct check *c, char *err, size_t len)
{
	uint32_t n = c->job.size, looks = 0;
	double *rate = malloc(((size_t)n * n + 1) * sizeof(double));
	int rc = rate ? 0 : lb_errf(err, len, "out of memory"), any = 0;
	int32_t stop = 0;
	double t0 = now();
	memset(c->job.buf, 0, (size_t)c->job.lanes * c->region);
	c->looks.budget = c->job.timeout;
	for (uint32_t l = 0; l < LB_JOB_MAX_LANES; l++)
		c->looks.from[l] = UINT32_MAX, c->looks.why[l] = LOOKS_ALL;
	for (uint32_t l = 0; rc == 0 && l < c->job.lanes; l++, looks = 0) {
		struct lb_link_verdicts v;
		shift_matrix(c, l, rate);
		if (lb_link_judge(rate, n, c->p->min_bw, &v)) {
			rc = lb_errf(err, len, "out of memory");
			break;
		}
		for (size_t i = 0; rc == 0 && i < (size_t)n * n; i++) {
			if (!v.link_low[i])
				continue;
			if (stop || looks == CHECK_LINK_LOOKS_PER_RANK * n) { /* the rest keep their figures */
				c->looks.from[l] = (uint32_t)i;
				c->looks.why[l] = stop ? LOOKS_OUT_OF_TIME : LOOKS_LANE_SHARE;
				break;
			}
			any = 1, looks++;
			rc = link_again(c, l, (uint32_t)(i / n), (uint32_t)(i % n), t0, &stop, err, len);
		}
		lb_link_verdicts_free(&v);
	}
	free(rate);
	return rc || !any ? rc : shift_gather(c, err, len);
}

/* The steps, then the matrix gathered (c->all: rank 0's whole, the
 * others' cells), then the second looks. */
int check_phase_shift(struct check *c, char *err, size_t len)
{
	for (uint32_t l = 0; l < c->job.lanes; l++)
		for (uint32_t d = 1; d < c->job.size; d++) {
			shift_step(c, l, d, &c->mine[l * c->slots + d - 1]);
			int rc = lb_boot_barrier(c->job.boot, err, len);
			if (rc)
				return rc;
		}
	int rc = shift_gather(c, err, len);
	return rc ? rc : links_again(c, err, len);
}
