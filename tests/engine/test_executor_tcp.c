/* Executor + TCP transport end to end on loopback, each rank a thread of
 * this process (addresses exchanged in memory): every algorithm, several
 * sizes, slices, lanes and roots (the platform algorithms on two small
 * platforms, with relays in transit, seed 004's gathers and barriers
 * among them); the bytes of every rank that must end with the message
 * checked against the iteration's pattern.  A second part shows a dead peer is reported, and
 * a channel given up (forget) costs no other channel of its lane. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "algos/algos.h"
#include "net/clustergen.h"
#include "net/platform.h"
#include "check.h"
#include "lib/error.h"
#include "engine/executor.h"
#include "engine/pattern.h"
#include "transports/transport.h"

#define MAX_RANKS 9
#define ITERS 3

struct job {
	const struct lb_schedule *s;
	uint8_t *addrs;            /* [rank * lanes + lane] blobs */
	pthread_barrier_t barrier;
	enum lb_idle idle;
	int kill_rank;             /* >= 0: this rank closes after setup */
	atomic_int failed;         /* a rank failed: the others stop with it,
				    * not wait for it at the next barrier */
	char err[MAX_RANKS][256];
	int rc[MAX_RANKS];
};

struct rank_arg {
	struct job *job;
	uint32_t rank;
};

static const char *const LOOPBACK[] = { "127.0.0.1", "127.0.0.1", "127.0.0.1" };

static int connect_rank(struct job *j, uint32_t r, struct lb_tp **tp, char *err, size_t len)
{
	const struct lb_schedule *s = j->s;
	struct lb_tp_cfg cfg = { .rank = r, .size = s->ranks, .lanes = s->lanes,
				 .lane_names = LOOPBACK, .token = "test-token", .timeout = 10 };
	uint32_t peers[MAX_RANKS][MAX_RANKS], npeers[3];
	const uint32_t *pp[3] = { peers[0], peers[1], peers[2] };
	int rc = lb_transport_tcp.open(&cfg, tp, err, len);
	for (uint32_t l = 0; rc == 0 && l < s->lanes; l++) {
		lb_transport_tcp.local_address(*tp, l, j->addrs + ((size_t)r * s->lanes + l) * LB_TP_ADDR_MAX);
		npeers[l] = (uint32_t)lb_sched_lane_peers(s, r, l, peers[l]);
	}
	pthread_barrier_wait(&j->barrier); /* every address published */
	struct lb_tp_peers p = { pp, npeers };
	if (rc == 0)
		rc = lb_transport_tcp.connect(*tp, j->addrs, &p, err, len);
	return rc;
}

/* The pattern where rank r owns the blocks (a broadcast's root: all), 0xee
 * elsewhere. */
static void fill_owned(const struct lb_schedule *s, uint32_t r, uint8_t *buf, uint32_t it)
{
	for (uint32_t b = 0; b < s->nblocks; b++) {
		uint64_t off = lb_block_offset(s, b), n = lb_range_bytes(s, b, 1);
		if (lb_sched_owns(s, r, b))
			lb_pattern_fill_range(buf, off, n, it);
		else
			memset(buf + off, 0xee, n);
	}
}

/* One iteration on rank r, the bytes it must end with checked. */
static int run_iteration(const struct lb_schedule *s, uint32_t r, struct lb_exec *x,
			 const uint8_t *buf, uint32_t it, char *err, size_t len)
{
	double secs;
	uint64_t bad;
	int rc = lb_exec_iteration(x, &secs, err, len);
	/* every rank that must end with every block: all of them (a
	 * gather's root only), the broadcast's root too (it keeps them) */
	if (rc == 0 && lb_sched_wants(s, r) && lb_pattern_check(buf, s->bytes, it, &bad))
		rc = -1, snprintf(err, len, "rank %u: wrong byte at offset %llu in iteration %u",
				  r, (unsigned long long)bad, it);
	return rc;
}

/* The iterations, after setup (rc: its outcome).  A rank that fails sets
 * j->failed before the barrier that ends its step, and every rank reads it
 * only after that barrier (no one sets it between then and the next
 * step's first barrier), so all stop together instead of waiting at a
 * barrier for the failed rank until meson's timeout. */
static int iterate(struct job *j, uint32_t r, struct lb_tp *tp, uint8_t *buf, int rc,
		   char *err, size_t len)
{
	const struct lb_schedule *s = j->s;
	struct lb_exec_cfg xc = { .sched = s, .rank = r, .tp_ops = &lb_transport_tcp, .tp = tp,
				  .buf = buf, .idle = j->idle, .timeout = 20 };
	struct lb_exec *x = NULL;
	if (rc == 0)
		rc = lb_exec_new(&xc, &x, err, len);
	if (rc)
		atomic_store(&j->failed, 1);
	pthread_barrier_wait(&j->barrier); /* every rank set up, or none goes on */
	for (uint32_t it = 0; !atomic_load(&j->failed) && it < ITERS; it++) {
		fill_owned(s, r, buf, it);
		pthread_barrier_wait(&j->barrier);
		rc = run_iteration(s, r, x, buf, it, err, len);
		if (rc)
			atomic_store(&j->failed, 1);
		pthread_barrier_wait(&j->barrier);
	}
	lb_exec_free(x);
	return rc;
}

static void *rank_main(void *arg)
{
	struct rank_arg *a = arg;
	struct job *j = a->job;
	uint32_t r = a->rank;
	struct lb_tp *tp = NULL;
	uint8_t *buf = malloc(j->s->bytes);
	char *err = j->err[r];
	int rc = connect_rank(j, r, &tp, err, 256);
	if (rc == 0)
		rc = lb_transport_tcp.register_buffer(tp, buf, j->s->bytes, err, 256);
	if (j->kill_rank == (int)r) {
		lb_transport_tcp.close(tp); /* a rank that dies after setup */
		tp = NULL;
		pthread_barrier_wait(&j->barrier);
	} else if (j->kill_rank >= 0) {
		struct lb_exec_cfg xc = { .sched = j->s, .rank = r, .tp_ops = &lb_transport_tcp,
					  .tp = tp, .buf = buf, .idle = j->idle, .timeout = 5 };
		struct lb_exec *x = NULL;
		double secs;
		pthread_barrier_wait(&j->barrier);
		if (r == j->s->root)
			lb_pattern_fill(buf, j->s->bytes, 0);
		rc = lb_exec_new(&xc, &x, err, 256);
		if (rc == 0)
			rc = lb_exec_iteration(x, &secs, err, 256);
		lb_exec_free(x);
	} else {
		rc = iterate(j, r, tp, buf, rc, err, 256);
	}
	lb_transport_tcp.close(tp);
	free(buf);
	j->rc[r] = rc;
	return NULL;
}

static void run_job(struct job *j)
{
	uint32_t p = j->s->ranks;
	pthread_t th[MAX_RANKS];
	struct rank_arg args[MAX_RANKS];
	j->addrs = calloc((size_t)p * j->s->lanes, LB_TP_ADDR_MAX);
	pthread_barrier_init(&j->barrier, NULL, p);
	atomic_init(&j->failed, 0);
	for (uint32_t r = 0; r < p; r++) {
		args[r] = (struct rank_arg){ j, r };
		pthread_create(&th[r], NULL, rank_main, &args[r]);
	}
	for (uint32_t r = 0; r < p; r++)
		pthread_join(th[r], NULL);
	pthread_barrier_destroy(&j->barrier);
	free(j->addrs);
}

static void broadcast_prm(const char *algo, const struct lb_algo_params *prm, enum lb_idle idle)
{
	char err[256];
	struct lb_schedule *s = lb_algo_build(lb_algo_find(algo), prm, err, sizeof(err));
	CHECK(s != NULL, "%s: %s", algo, err);
	if (!s)
		return;
	struct job j = { .s = s, .idle = idle, .kill_rank = -1 };
	run_job(&j);
	for (uint32_t r = 0; r < prm->ranks; r++)
		CHECK(j.rc[r] == 0, "%s p=%u root=%u k=%u M=%llu slice=%llu%s rank %u: %s", algo,
		      prm->ranks, prm->root, prm->lanes, (unsigned long long)prm->bytes,
		      (unsigned long long)prm->slice_bytes, prm->platform ? " (platform)" : "", r,
		      j.err[r]);
	lb_sched_free(s);
}

static void broadcast_case(const char *algo, uint32_t p, uint32_t root, uint32_t k,
			   uint64_t bytes, uint64_t slice, enum lb_idle idle)
{
	struct lb_algo_params prm = { .ranks = p, .root = root, .lanes = k, .bytes = bytes,
				      .slice_bytes = slice };
	broadcast_prm(algo, &prm, idle);
}

/* A rank that disappears: the ranks sending to it or waiting for it fail
 * naming it, with LB_EPEER (the peer is gone); nobody hangs. */
/* A platform of p nodes and k lanes with links u <-> v (every lane). */
static struct lb_platform *platform(uint32_t p, uint32_t k, const uint32_t (*link)[2], size_t n)
{
	struct lb_platform *pf = lb_platform_new(p, k);
	struct lb_link l = { .bw = 1e9 };
	for (size_t i = 0; pf && i < n; i++) {
		lb_platform_set_link(pf, link[i][0], link[i][1], LB_PLATFORM_ALL_LANES, LB_LINK_BW, &l);
		lb_platform_set_link(pf, link[i][1], link[i][0], LB_PLATFORM_ALL_LANES, LB_LINK_BW, &l);
	}
	if (pf && lb_platform_seal(pf) == 0)
		return pf;
	lb_platform_free(pf);
	return NULL;
}

/* Every platform algorithm but the LP ones (no loads here; they emit trees
 * like the others).  The star makes binomial-routed route 2 -> 3 through
 * the root: a transit RECV lands in the root's own buffer (the same bytes;
 * its pattern is checked after every iteration); on the path with a chord
 * 0 -> 4 goes 0 -> 2 -> 3 -> 4, through two ranks that also get their own
 * copy. */
static void platform_cases(void)
{
	static const uint32_t star[][2] = { { 0, 1 }, { 0, 2 }, { 0, 3 } };
	static const uint32_t path[][2] = { { 0, 1 }, { 1, 2 }, { 2, 3 }, { 3, 4 }, { 0, 2 } };
	struct lb_platform *pfs[] = { platform(4, 2, star, 3), platform(5, 2, path, 5) };
	for (size_t i = 0; i < 2; i++)
		for (size_t a = 0; pfs[i] && a < lb_nalgos; a++) {
			if (!lb_algos[a].needs || (lb_algos[a].needs & LB_ALGO_NEEDS_LP) ||
			    lb_algos[a].makespan)
				continue; /* seed 002's need sites: coord_cases(); seed 001's
					   * node overheads: tests/job/agent_test.sh */
			struct lb_algo_params prm = { .ranks = pfs[i]->nodes, .root = 0, .lanes = 2,
						      .bytes = 100000, .slice_bytes = 8192,
						      .platform = pfs[i] };
			broadcast_prm(lb_algos[a].name, &prm, LB_IDLE_SLEEP);
		}
	CHECK(pfs[0] && pfs[1], "platforms: out of memory");
	lb_platform_free(pfs[0]);
	lb_platform_free(pfs[1]);
}

/* Seed 002's heuristics on three g5k sites of three ranks (algos/
 * clustergen.h): the coordinators' sends on lane 1 and each site's
 * broadcast on lane 0 (chain, binomial; four slices), and everything on
 * one lane; every byte checked on every rank. */
static void coord_cases(void)
{
	struct lb_clustergen g;
	char err[256];
	lb_clustergen_defaults(&g, LB_CLUSTERGEN_G5K);
	g.clusters = 3, g.site_ranks = 3;
	struct lb_platform *pf = lb_clustergen_make(&g, err, sizeof(err));
	CHECK(pf, "clustergen: %s", err);
	static const char *const site[] = { "binomial", "chain" };
	for (size_t a = 0; pf && a < lb_nalgos; a++)
		for (uint32_t k = 1; lb_algos[a].check == lb_check_coord && k <= 2; k++) {
			struct lb_algo_params prm = { .ranks = pf->nodes, .root = 3 * (a % 3), .lanes = k,
						      .bytes = 100000, .slice_bytes = 25000,
						      .platform = pf, .site_algo = site[a % 2] };
			broadcast_prm(lb_algos[a].name, &prm, LB_IDLE_SLEEP);
		}
	lb_platform_free(pf);
}

static void dead_peer(void)
{
	char err[256];
	struct lb_algo_params prm = { .ranks = 4, .lanes = 2, .bytes = 1 << 20, .slice_bytes = 64 << 10 };
	struct lb_schedule *s = lb_algo_build(lb_algo_find("chain"), &prm, err, sizeof(err));
	struct job j = { .s = s, .idle = LB_IDLE_SLEEP, .kill_rank = 2 };
	run_job(&j);
	CHECK(j.rc[1] == LB_EPEER && strstr(j.err[1], "rank 2"), "rank 1 should name rank 2: %d '%s'",
	      j.rc[1], j.err[1]);
	CHECK(j.rc[3] == LB_EPEER && strstr(j.err[3], "rank 2"), "rank 3 should name rank 2: %d '%s'",
	      j.rc[3], j.err[3]);
	printf("dead peer: rank 1: %s\n           rank 3: %s\n", j.err[1], j.err[3]);
	lb_sched_free(s);
}

/* A refused post says why: the transport names the bytes and the
 * buffer, or the unknown peer, and the executor passes that on. */
static void refused_by_transport(void)
{
	struct lb_tp_cfg cfg = { .rank = 0, .size = 1, .lanes = 1, .lane_names = LOOPBACK,
				 .token = "t", .timeout = 10 };
	struct lb_tp *tp = NULL;
	uint8_t buf[100];
	char err[256] = "";
	uint32_t none = 0;
	const uint32_t *pp[1] = { &none };
	struct lb_tp_peers peers = { pp, &none };
	int rc = lb_transport_tcp.open(&cfg, &tp, err, sizeof(err));
	if (rc == 0)
		rc = lb_transport_tcp.register_buffer(tp, buf, sizeof(buf), err, sizeof(err));
	if (rc == 0)
		rc = lb_transport_tcp.connect(tp, NULL, &peers, err, sizeof(err));
	CHECK(rc == 0, "tcp set-up: %s", err);
	rc = lb_transport_tcp.post(tp, 0, LB_XFER_SEND, 0, 96, 8, 0, err, sizeof(err));
	CHECK(rc == -1 && strstr(err, "[96,+8)") && strstr(err, "100-byte"),
	      "a send beyond the buffer names bytes and size: %d '%s'", rc, err);
	rc = lb_transport_tcp.post(tp, 0, LB_XFER_RECV, 5, 0, 8, 0, err, sizeof(err));
	CHECK(rc == -1 && strstr(err, "rank 5"), "a receive from no peer names it: %d '%s'", rc, err);
	lb_transport_tcp.close(tp);
}

/* Rank 0 registers half the message: its first send is refused, and the
 * iteration's error carries the transport's reason. */
static void *short_buffer_rank(void *arg)
{
	struct rank_arg *a = arg;
	struct job *j = a->job;
	uint64_t bytes = a->rank == 0 ? j->s->bytes / 2 : j->s->bytes;
	struct lb_tp *tp = NULL;
	uint8_t *buf = calloc(1, j->s->bytes);
	char *err = j->err[a->rank];
	int rc = connect_rank(j, a->rank, &tp, err, 256);
	if (rc == 0)
		rc = lb_transport_tcp.register_buffer(tp, buf, bytes, err, 256);
	if (rc == 0 && a->rank == 0) {
		struct lb_exec_cfg xc = { .sched = j->s, .rank = 0, .tp_ops = &lb_transport_tcp,
					  .tp = tp, .buf = buf, .idle = j->idle, .timeout = 5 };
		struct lb_exec *x = NULL;
		double secs;
		rc = lb_exec_new(&xc, &x, err, 256);
		if (rc == 0)
			rc = lb_exec_iteration(x, &secs, err, 256);
		lb_exec_free(x);
	}
	pthread_barrier_wait(&j->barrier); /* rank 1 keeps its end open until then */
	lb_transport_tcp.close(tp);
	free(buf);
	j->rc[a->rank] = rc;
	return NULL;
}

static void refused_in_executor(void)
{
	char err[256];
	struct lb_algo_params prm = { .ranks = 2, .lanes = 1, .bytes = 4096, .slice_bytes = 4096 };
	struct lb_schedule *s = lb_algo_build(lb_algo_find("chain"), &prm, err, sizeof(err));
	struct job j = { .s = s, .idle = LB_IDLE_SLEEP, .kill_rank = -1 };
	pthread_t th[2];
	struct rank_arg args[2] = { { &j, 0 }, { &j, 1 } };
	j.addrs = calloc(2, LB_TP_ADDR_MAX);
	pthread_barrier_init(&j.barrier, NULL, 2);
	for (int r = 0; r < 2; r++)
		pthread_create(&th[r], NULL, short_buffer_rank, &args[r]);
	for (int r = 0; r < 2; r++)
		pthread_join(th[r], NULL);
	CHECK(j.rc[0] == -1 && strstr(j.err[0], "send to rank 1 of bytes [0,+4096) refused: tcp lane") &&
	      strstr(j.err[0], "2048-byte registered buffer"),
	      "rank 0 should say why its send was refused: %d '%s'", j.rc[0], j.err[0]);
	printf("refused: %s\n", j.err[0]);
	pthread_barrier_destroy(&j.barrier);
	free(j.addrs);
	lb_sched_free(s);
}

/* Polls the lane until a completion or an error (-1), for at most 5 s
 * (0: none came). */
static int poll_one(struct lb_tp *tp, char *err, size_t len)
{
	struct lb_completion c[4];
	for (int i = 0; i < 5000; i++) {
		int n = lb_transport_tcp.poll(tp, 0, c, 4, err, len);
		if (n != 0)
			return n;
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	}
	return 0;
}

/* forget, 3 ranks on one lane: rank 0 waits for rank 1 (which sends
 * nothing), gives it up, is refused a post to it, and still exchanges
 * with rank 2; rank 1, waiting for rank 0, sees the connection closed. */
static int forget_rank(struct job *j, uint32_t r, struct lb_tp *tp, char *err, size_t len)
{
	int rc = 0;
	if (r == 0) {
		rc = lb_transport_tcp.post(tp, 0, LB_XFER_RECV, 1, 0, 8, 1, err, len);
		lb_transport_tcp.forget(tp, 0, 1);
		CHECK(lb_transport_tcp.post(tp, 0, LB_XFER_SEND, 1, 0, 8, 2, err, len) == -1 &&
		      strstr(err, "rank 1 was given up"), "a post to a forgotten peer is refused: '%s'", err);
		if (rc == 0)
			rc = lb_transport_tcp.post(tp, 0, LB_XFER_RECV, 2, 8, 8, 3, err, len);
		if (rc == 0)
			rc = poll_one(tp, err, len) == 1 ? 0 : -1;
	} else if (r == 1) {
		rc = lb_transport_tcp.post(tp, 0, LB_XFER_RECV, 0, 0, 8, 4, err, len);
		if (rc == 0)
			rc = poll_one(tp, err, len);
	} else {
		rc = lb_transport_tcp.post(tp, 0, LB_XFER_SEND, 0, 8, 8, 5, err, len);
		if (rc == 0)
			rc = poll_one(tp, err, len) == 1 ? 0 : -1;
	}
	pthread_barrier_wait(&j->barrier); /* every end stays open until then */
	return rc;
}

static void *forget_main(void *arg)
{
	struct rank_arg *a = arg;
	struct job *j = a->job;
	struct lb_tp *tp = NULL;
	uint8_t buf[16] = { 0 };
	char *err = j->err[a->rank];
	int rc = connect_rank(j, a->rank, &tp, err, 256);
	if (rc == 0)
		rc = lb_transport_tcp.register_buffer(tp, buf, sizeof(buf), err, 256);
	j->rc[a->rank] = rc ? rc : forget_rank(j, a->rank, tp, err, 256);
	lb_transport_tcp.close(tp);
	return NULL;
}

static void forgotten_peer(void)
{
	char err[256];
	struct lb_algo_params prm = { .ranks = 3, .lanes = 1, .bytes = 16, .slice_bytes = 16 };
	struct lb_schedule *s = lb_algo_build(lb_algo_find("binomial"), &prm, err, sizeof(err));
	struct job j = { .s = s, .idle = LB_IDLE_SLEEP, .kill_rank = -1 };
	pthread_t th[3];
	struct rank_arg args[3] = { { &j, 0 }, { &j, 1 }, { &j, 2 } };
	j.addrs = calloc(3, LB_TP_ADDR_MAX);
	pthread_barrier_init(&j.barrier, NULL, 3);
	for (int r = 0; r < 3; r++)
		pthread_create(&th[r], NULL, forget_main, &args[r]);
	for (int r = 0; r < 3; r++)
		pthread_join(th[r], NULL);
	CHECK(j.rc[0] == 0 && j.rc[2] == 0, "ranks 0 and 2 exchange after 0 forgot 1: '%s' '%s'",
	      j.err[0], j.err[2]);
	CHECK(j.rc[1] == LB_EPEER && strstr(j.err[1], "rank 0"),
	      "rank 1 sees rank 0's connection closed: %d '%s'", j.rc[1], j.err[1]);
	pthread_barrier_destroy(&j.barrier);
	free(j.addrs);
	lb_sched_free(s);
}

int main(void)
{
	for (size_t a = 0; a < lb_nalgos; a++) {
		const char *name = lb_algos[a].name;
		if (!lb_algo_homogeneous_bcast(&lb_algos[a]))
			continue; /* a platform: platform_cases(); allgathers: test_collective, tests/job */
		broadcast_case(name, 1, 0, 2, 4096, 1024, LB_IDLE_SLEEP);
		broadcast_case(name, 2, 1, 1, 100000, 8192, LB_IDLE_SLEEP);
		broadcast_case(name, 7, 3, 2, (1 << 20) + 13, 64 << 10, LB_IDLE_SLEEP);
		broadcast_case(name, 8, 0, 3, 3 << 20, 256 << 10, LB_IDLE_YIELD);
		broadcast_case(name, 9, 8, 2, 777, 100, LB_IDLE_SLEEP);
	}
	platform_cases();
	coord_cases();
	dead_peer();
	refused_by_transport();
	refused_in_executor();
	forgotten_peer();
	return check_status("exec-tcp");
}
