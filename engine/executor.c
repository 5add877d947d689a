/* Executor: persistent lane threads; the main thread starts an iteration
 * by bumping a generation counter and waits until every lane is done. */
#include "executor.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "exec_barrier.h"
#include "lib/error.h"

#define COMP_BATCH 64

struct lane_ctx {
	struct lb_exec *x;
	uint32_t lane;
	pthread_t thread;
	int started;
	const struct lb_op *ops; /* the lane's ops, barriers expanded */
	uint32_t n;
	struct lb_op *xops; /* owned: ops when the schedule has barriers */
	uint8_t *op_done; /* per op of the lane: completed this iteration */
	uint32_t bars;    /* LOCAL barrier points passed this iteration */
	uint32_t local_at; /* the LOCAL op it has arrived at, UINT32_MAX: none */
	/* Under the sleep policy, a lane whose next send waits for a block
	 * another lane receives sleeps on wake_fd too (beside the transport's
	 * fd, or instead of a nap); `parked` tells the receiving lane to
	 * write it. */
	int wake_fd;
	atomic_int parked;
	struct lb_linger linger; /* the sleep policy's, across iterations */
	char err[512];
	int failed;       /* the lane's code: 0, -1, or LB_EPEER (its peer is gone) */
};

struct lb_exec {
	struct lb_exec_cfg cfg;
	_Atomic uint8_t *present;  /* per block */
	struct lane_ctx *lanes;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	atomic_uint generation;    /* bumped to start an iteration */
	atomic_uint done;          /* lanes finished this iteration */
	atomic_int abort;          /* a lane failed: the others stop */
	atomic_uint bar_arrived;   /* lanes' arrivals at LOCAL barrier points */
	atomic_int quit;
	struct lb_linger linger;   /* the main thread's, waiting for the lanes */
};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* code: -1, or LB_EPEER when the transport lost the peer. */
static int lane_fail(struct lane_ctx *lc, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int lane_fail(struct lane_ctx *lc, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(lc->err, sizeof(lc->err), fmt, ap);
	va_end(ap);
	lc->failed = code;
	atomic_store(&lc->x->abort, 1);
	return code;
}

/* After new blocks arrived on `lane`: wake the lanes parked on them. */
static void wake_parked(const struct lb_exec *x, uint32_t lane)
{
	for (uint32_t l = 0; l < x->cfg.sched->lanes; l++)
		if (l != lane && atomic_exchange(&x->lanes[l].parked, 0)) {
			uint64_t one = 1;
			if (write(x->lanes[l].wake_fd, &one, sizeof(one)) < 0) {
				/* counter full: the lane wakes anyway */
			}
		}
}

static void drain_wake(struct lane_ctx *lc)
{
	uint64_t v;
	atomic_store(&lc->parked, 0);
	if (read(lc->wake_fd, &v, sizeof(v)) < 0) {
		/* EAGAIN: nothing written; the fd is non-blocking */
	}
}

static int blocks_present(const struct lb_exec *x, const struct lb_op *op)
{
	for (uint32_t b = op->first_block; b < op->first_block + op->nblocks; b++)
		if (!atomic_load_explicit(&x->present[b], memory_order_acquire))
			return 0;
	return 1;
}

static void mark_present(struct lb_exec *x, const struct lb_op *op)
{
	for (uint32_t b = op->first_block; b < op->first_block + op->nblocks; b++)
		atomic_store_explicit(&x->present[b], 1, memory_order_release);
}

/* Posts (a transfer of) op i; 1 when the transport's queue is full. */
static int post(struct lane_ctx *lc, const struct lb_op *op, uint32_t i)
{
	const struct lb_exec *x = lc->x;
	const struct lb_schedule *s = x->cfg.sched;
	uint64_t off = lb_block_offset(s, op->first_block);
	uint64_t len = lb_range_bytes(s, op->first_block, op->nblocks);
	char why[256];
	int send = lb_xop_is_send(op->kind);
	int rc = x->cfg.tp_ops->post(x->cfg.tp, lc->lane, send ? LB_XFER_SEND : LB_XFER_RECV,
				     op->peer, off, len, i, why, sizeof(why));
	if (rc < 0)
		return lane_fail(lc, -1, "lane %u: %s %s rank %u of bytes [%llu,+%llu) refused: %s",
				 lc->lane, send ? "send" : "receive", send ? "to" : "from", op->peer,
				 (unsigned long long)off, (unsigned long long)len, why);
	return rc;
}

/* Names what the lane still waits for when time runs out. */
static int lane_timeout(struct lane_ctx *lc, const struct lb_op *ops, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (!lc->op_done[i] && ops[i].kind > LB_RECV)
			return lane_fail(lc, -1, "lane %u: no completion within %.0f s: still at a barrier with rank %u",
					 lc->lane, lc->x->cfg.timeout, ops[i].peer);
		else if (!lc->op_done[i])
			return lane_fail(lc, -1, "lane %u: no completion within %.0f s: still %s blocks [%u,%u) %s rank %u",
					 lc->lane, lc->x->cfg.timeout,
					 ops[i].kind == LB_SEND ? "sending" : "receiving",
					 ops[i].first_block, ops[i].first_block + ops[i].nblocks,
					 ops[i].kind == LB_SEND ? "to" : "from", ops[i].peer);
	return lane_fail(lc, -1, "lane %u: timeout", lc->lane);
}

struct cursor {
	uint32_t next_recv, next_send, left;
	uint32_t first_undone; /* every op before it has completed */
};

/* Every op of the lane before op i has completed. */
static int done_before(const struct lane_ctx *lc, struct cursor *cur, uint32_t i)
{
	while (cur->first_undone < i && lc->op_done[cur->first_undone])
		cur->first_undone++;
	return cur->first_undone >= i;
}

/* The rank's lanes all at the LOCAL point this lane last reached. */
static int lanes_met(const struct lane_ctx *lc)
{
	return atomic_load(&lc->x->bar_arrived) >= lc->x->cfg.sched->lanes * lc->bars;
}

/* The leader's LOCAL point i: once every earlier op is done, the lane
 * arrives (once), and passes when all the rank's lanes have. */
static int local_wait(struct lane_ctx *lc, struct cursor *cur, uint32_t i)
{
	if (!done_before(lc, cur, i))
		return 1;
	if (lc->local_at != i) {
		lc->local_at = i;
		lc->bars++;
		atomic_fetch_add(&lc->x->bar_arrived, 1);
		wake_parked(lc->x, lc->lane);
	}
	if (!lanes_met(lc))
		return 2;
	lc->op_done[i] = 1;
	cur->left--;
	return 0;
}

/* What a barrier op i (exec_barrier.h) waits for: 0 nothing (go on), 1 the
 * lane's own completions, 2 another lane. */
static int barrier_wait(struct lane_ctx *lc, const struct lb_op *op, struct cursor *cur,
			uint32_t i)
{
	switch (op->kind) {
	case LB_XOP_TOKEN_RECV:
	case LB_XOP_RELEASE_RECV:
		return !lc->op_done[i];
	case LB_XOP_TOKEN_SEND:
		return !done_before(lc, cur, i);
	case LB_XOP_LOCAL:
		return local_wait(lc, cur, i);
	default:
		return 0;
	}
}

/* Posts receives not yet posted and sends whose blocks are present, in
 * lane order.  Returns how many it posted, or -1.
 *
 * A transit RECV (LB_OP_TRANSIT: a relay on a routed transfer, which may
 * hold the blocks already -- the root too) is posted like any other, into
 * the blocks' own place in the buffer.  That is safe: it carries the
 * broadcast's bytes, identical to what the rank holds or will hold, so
 * landing there (even while a SEND reads the same bytes) changes nothing
 * but marks the blocks present for the forwarding SEND.  Nothing here
 * counts deliveries: completion counts ops, and the data is checked after
 * the run; the validator makes sure every rank has its own delivery. */
static int post_ready(struct lane_ctx *lc, const struct lb_op *ops, uint32_t n,
		      struct cursor *cur, int *blocked)
{
	int posted = 0, rc;
	for (; cur->next_recv < n; cur->next_recv++) {
		if (!lb_xop_is_recv(ops[cur->next_recv].kind))
			continue;
		if ((rc = post(lc, &ops[cur->next_recv], cur->next_recv)) != 0)
			return rc < 0 ? -1 : posted;
		posted++;
	}
	*blocked = 0;
	for (; cur->next_send < n; cur->next_send++) {
		const struct lb_op *op = &ops[cur->next_send];
		if (op->kind == LB_RECV)
			continue;
		int wait = op->kind == LB_SEND ? !blocks_present(lc->x, op)
					       : barrier_wait(lc, op, cur, cur->next_send);
		if (wait) {
			*blocked = op->kind == LB_SEND || wait == 2;
			break;
		}
		if (!lb_xop_is_send(op->kind))
			continue;
		if ((rc = post(lc, op, cur->next_send)) != 0)
			return rc < 0 ? -1 : posted;
		posted++;
	}
	return posted;
}

static int complete(struct lane_ctx *lc, const struct lb_op *ops, struct cursor *cur,
		    int *progressed)
{
	const struct lb_exec *x = lc->x;
	struct lb_completion comp[COMP_BATCH];
	char why[sizeof(lc->err) - 16];
	int k = x->cfg.tp_ops->poll(x->cfg.tp, lc->lane, comp, COMP_BATCH, why, sizeof(why));
	int arrived = 0;
	if (k < 0)
		return lane_fail(lc, k == LB_EPEER ? LB_EPEER : -1, "%s", why);
	for (int i = 0; i < k; i++) {
		if (comp[i].kind == LB_XFER_RECV) {
			mark_present(lc->x, &ops[comp[i].id]);
			arrived = 1;
		}
		lc->op_done[comp[i].id] = 1;
		cur->left--;
	}
	if (arrived)
		wake_parked(x, lc->lane);
	*progressed |= k > 0;
	return 0;
}

/* The sleep policy, before sleeping: the transport arms its fd, or -1
 * when it has none to offer (the lane then naps). */
static int arm(const struct lane_ctx *lc)
{
	const struct lb_exec *x = lc->x;
	return x->cfg.tp_ops->arm ? x->cfg.tp_ops->arm(x->cfg.tp, lc->lane) : -1;
}

/* Nothing moved (under the sleep policy: also in the poll after arming).
 * A lane blocked on another lane's block parks on its wake fd, checking
 * the block again after parking so a wake-up cannot be lost. */
static void idle_lane(struct lane_ctx *lc, const struct lb_op *ops, const struct cursor *cur,
		      int blocked, int tp_fd)
{
	const struct lb_exec *x = lc->x;
	if (x->cfg.idle != LB_IDLE_SLEEP) {
		if (x->cfg.idle == LB_IDLE_YIELD)
			sched_yield();
		return;
	}
	if (blocked) {
		atomic_store(&lc->parked, 1);
		const struct lb_op *op = &ops[cur->next_send];
		if (op->kind == LB_SEND ? blocks_present(x, op) : lanes_met(lc)) {
			atomic_store(&lc->parked, 0);
			return;
		}
	}
	lb_idle_sleep(tp_fd, blocked ? lc->wake_fd : -1, LB_IDLE_MAX_SLEEP);
	if (blocked)
		drain_wake(lc);
}

/* Idle passes between looks at the clock when not sleeping: in a VM whose
 * clock source is the HPET (the Soft-RoCE guest) a clock read is a system
 * call and an emulated device read, which a pass that reads it every time
 * adds to the time until it sees the next arrival. */
#define CLOCK_EVERY 64

/* A lane's idle state between polls that found nothing (the lingering
 * part: lc->linger). */
struct rest {
	int armed;      /* the transport is armed since the last poll */
	int tp_fd;      /* what arm() returned */
};

/* Nothing moved at time t.  Under the sleep policy an idle lane lingers,
 * then arms the transport, polls once more (what arrived before arming
 * raises no event: transport.h), and only then sleeps. */
static void rest(struct lane_ctx *lc, const struct lb_op *ops, const struct cursor *cur,
		 int blocked, struct rest *st, double t)
{
	int sleep_policy = lc->x->cfg.idle == LB_IDLE_SLEEP;
	if (sleep_policy && lb_linger_idle(&lc->linger, t)) {
		sched_yield();
		return;
	}
	if (sleep_policy && !st->armed) {
		st->tp_fd = arm(lc);
		st->armed = 1;
		return;
	}
	idle_lane(lc, ops, cur, blocked, st->tp_fd);
	st->armed = 0;
}

static int run_lane(struct lane_ctx *lc)
{
	struct lb_exec *x = lc->x;
	uint32_t n = lc->n;
	const struct lb_op *ops = lc->ops;
	struct cursor cur = { 0, 0, n, 0 };
	double deadline = now() + x->cfg.timeout;
	struct rest st = { .tp_fd = -1 };
	uint32_t idle_passes = 0;
	memset(lc->op_done, 0, n);
	lb_linger_busy(&lc->linger);
	lc->bars = 0;
	lc->local_at = UINT32_MAX;
	while (cur.left > 0) {
		int blocked = 0, posted = post_ready(lc, ops, n, &cur, &blocked);
		int progressed = posted > 0;
		if (posted < 0 || complete(lc, ops, &cur, &progressed))
			return -1;
		if (atomic_load(&x->abort))
			return -1;
		if (x->cfg.stop && *x->cfg.stop)
			return lane_fail(lc, -1, "lane %u: stopped by signal %d", lc->lane, (int)*x->cfg.stop);
		if (progressed) {
			st.armed = 0;
			lb_linger_busy(&lc->linger);
			continue;
		}
		double t = 0;
		if (x->cfg.idle == LB_IDLE_SLEEP || ++idle_passes % CLOCK_EVERY == 0) {
			t = now(); /* (unused by rest() unless the policy is sleep) */
			if (t > deadline)
				return lane_timeout(lc, ops, n);
		}
		rest(lc, ops, &cur, blocked, &st, t);
	}
	return 0;
}

/* Waits for the next generation (or quit) under the idle policy. */
static int wait_start(struct lb_exec *x, unsigned seen)
{
	if (x->cfg.idle == LB_IDLE_SLEEP) {
		pthread_mutex_lock(&x->mu);
		while (atomic_load(&x->generation) == seen && !atomic_load(&x->quit))
			pthread_cond_wait(&x->cv, &x->mu);
		pthread_mutex_unlock(&x->mu);
	}
	while (atomic_load(&x->generation) == seen && !atomic_load(&x->quit))
		if (x->cfg.idle == LB_IDLE_YIELD)
			sched_yield();
	return !atomic_load(&x->quit);
}

static void signal_done(struct lb_exec *x)
{
	pthread_mutex_lock(&x->mu);
	atomic_fetch_add(&x->done, 1);
	pthread_cond_broadcast(&x->cv);
	pthread_mutex_unlock(&x->mu);
}

static void *lane_main(void *arg)
{
	struct lane_ctx *lc = arg;
	struct lb_exec *x = lc->x;
	unsigned seen = 0;
	if (x->cfg.pin)
		x->cfg.pin(lc->lane, x->cfg.pin_arg);
	if (x->cfg.idle == LB_IDLE_SLEEP)
		(void)lb_idle_short_slice(); /* refused: only slower (idle.h) */
	while (wait_start(x, seen)) {
		seen = atomic_load(&x->generation);
		if (!lc->failed)
			run_lane(lc);
		signal_done(x);
	}
	return NULL;
}

static int start_threads(struct lb_exec *x, char *err, size_t len)
{
	for (uint32_t l = 0; l < x->cfg.sched->lanes; l++) {
		struct lane_ctx *lc = &x->lanes[l];
		uint32_t n;
		if (lb_exec_expand(x->cfg.sched, x->cfg.rank, l, &lc->xops, &n)) {
			snprintf(err, len, "executor: out of memory");
			return -1;
		}
		lc->ops = lc->xops ? lc->xops : lb_lane_ops(x->cfg.sched, x->cfg.rank, l, &n);
		lc->n = n;
		lc->x = x;
		lc->lane = l;
		lc->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (lc->wake_fd < 0) {
			snprintf(err, len, "executor: eventfd: %s", strerror(errno));
			return -1;
		}
		lc->op_done = calloc(n + 1, 1);
		if (!lc->op_done) {
			snprintf(err, len, "executor: out of memory");
			return -1;
		}
		int e = pthread_create(&lc->thread, NULL, lane_main, lc);
		if (e) {
			snprintf(err, len, "executor: cannot start lane %u thread: %s", l, strerror(e));
			return -1;
		}
		lc->started = 1;
	}
	return 0;
}

int lb_exec_new(const struct lb_exec_cfg *cfg, struct lb_exec **out, char *err,
		size_t len)
{
	struct lb_exec *x = calloc(1, sizeof(*x));
	*out = x;
	if (!x) {
		snprintf(err, len, "executor: out of memory");
		return -1;
	}
	x->cfg = *cfg;
	/* The caller's thread waits for the lanes: woken by the last, it
	 * stops the iteration's clock. */
	if (cfg->idle == LB_IDLE_SLEEP)
		(void)lb_idle_short_slice();
	pthread_mutex_init(&x->mu, NULL);
	pthread_cond_init(&x->cv, NULL);
	x->present = calloc(cfg->sched->nblocks, sizeof(*x->present));
	x->lanes = calloc(cfg->sched->lanes, sizeof(*x->lanes));
	if (!x->present || !x->lanes) {
		snprintf(err, len, "executor: out of memory");
		return -1;
	}
	for (uint32_t l = 0; l < cfg->sched->lanes; l++)
		x->lanes[l].wake_fd = -1;
	return start_threads(x, err, len);
}

/* Resets the presence map: the rank holds the blocks it owns (the root
 * every block of a broadcast), none else. */
static void reset(struct lb_exec *x)
{
	const struct lb_schedule *s = x->cfg.sched;
	for (uint32_t b = 0; b < s->nblocks; b++)
		atomic_store_explicit(&x->present[b], lb_sched_owns(s, x->cfg.rank, b),
				      memory_order_relaxed);
	atomic_store(&x->done, 0);
	atomic_store(&x->bar_arrived, 0);
}

/* Under the sleep policy the main thread lingers too: lanes that finish
 * soon then need not wake it. */
static void wait_lanes(struct lb_exec *x)
{
	uint32_t lanes = x->cfg.sched->lanes;
	lb_linger_busy(&x->linger);
	while (x->cfg.idle == LB_IDLE_SLEEP && atomic_load(&x->done) < lanes &&
	       lb_linger_idle(&x->linger, now()))
		sched_yield();
	if (x->cfg.idle == LB_IDLE_SLEEP) {
		pthread_mutex_lock(&x->mu);
		while (atomic_load(&x->done) < lanes)
			pthread_cond_wait(&x->cv, &x->mu);
		pthread_mutex_unlock(&x->mu);
	}
	while (atomic_load(&x->done) < lanes)
		if (x->cfg.idle == LB_IDLE_YIELD)
			sched_yield();
}

int lb_exec_iteration(struct lb_exec *x, double *seconds, char *err, size_t len)
{
	reset(x);
	atomic_thread_fence(memory_order_seq_cst);
	double t0 = now();
	pthread_mutex_lock(&x->mu);
	atomic_fetch_add(&x->generation, 1);
	pthread_cond_broadcast(&x->cv);
	pthread_mutex_unlock(&x->mu);
	wait_lanes(x);
	*seconds = now() - t0;
	for (uint32_t l = 0; l < x->cfg.sched->lanes; l++)
		if (x->lanes[l].failed) {
			snprintf(err, len, "rank %u %s", x->cfg.rank, x->lanes[l].err);
			return x->lanes[l].failed;
		}
	return 0;
}

void lb_exec_free(struct lb_exec *x)
{
	if (!x)
		return;
	pthread_mutex_lock(&x->mu);
	atomic_store(&x->quit, 1);
	pthread_cond_broadcast(&x->cv);
	pthread_mutex_unlock(&x->mu);
	for (uint32_t l = 0; x->lanes && l < x->cfg.sched->lanes; l++) {
		if (x->lanes[l].started)
			pthread_join(x->lanes[l].thread, NULL);
		if (x->lanes[l].wake_fd >= 0)
			close(x->lanes[l].wake_fd);
		free(x->lanes[l].op_done);
		free(x->lanes[l].xops);
	}
	pthread_mutex_destroy(&x->mu);
	pthread_cond_destroy(&x->cv);
	free(x->lanes);
	free((void *)x->present);
	free(x);
}
