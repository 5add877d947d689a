/* The acceptance check of a cluster (what `lanebench check` runs on every
 * rank): every port (rank x lane) measured against two partners on its
 * rail, then every lane of a rank at once, then one broadcast per
 * algorithm, each with a verdict against what it should reach.
 *
 * Phase 1, per lane: rounds of pairs (0-1, 2-3, ... then 1-2, 3-4, ...,
 * p-1 - 0; with an odd count a third round pairs the two ranks that sat
 * out), all pairs of a round at once (the fabric loaded as a job loads
 * it).  Per pair: ping-pong latency, then streaming bandwidth each way,
 * every byte verified.  A link A->B runs at min(A's tx, B's rx), so a
 * port's tx and rx are the best over its partners: a healthy partner does
 * not limit, and a degraded port is low with every partner.  A pair that
 * fails is given up (transport.h, forget): a dead partner costs only the
 * ports that touch it, not the lane's later pairs.
 * Before any traffic every rank reads its ports' inventory (link, speed,
 * MTU, driver, firmware, PCIe, verbs port: launch/portinfo.h and the
 * transport's port_facts) and counters; the transport's lane counters
 * are read around every pair (what it sent the partner, and sent again).
 * A port that looks bad with both partners (slow, or losing) meets a
 * third (lb_check_third) before it is blamed: both of its partners may be
 * the bad ones.  A port that carried nothing with any partner probes
 * where it is cabled (launch/arpprobe.h: which lane's peers answer it).
 * --pattern shift and bisection pair the ranks otherwise in phase 1
 * (check_shift.c, check_patterns.c), --rerun only the suspects of a record
 * with healthy partners; every directed pair measured is a cell of its
 * lane's N x N matrix, judged by check_links.h (a link, or a port).
 * Phase 2: every lane of a rank at once with the same partners; the rank's
 * sum, best over partners.
 * Phase 3: one collective per algorithm (broadcasts, allgathers) by the
 * collective engine (slice: auto), in the check's own job
 * (lb_coll_run_in: dpdk allows one EAL per process), measured over
 * simulated time; an allgather also over its receive bound, (p - 1) m
 * over the slowest receiver's summed phase-1 rx (check_verdict.c);
 * skipped when a pair failed.
 *
 * Results are rows (result.h) to a sink on rank 0: one per port
 * (phase "port": its figures, inventory and counters' growth), per rank
 * ("aggregate") and per algorithm ("bcast", whatever its collective: the
 * column "collective" says which), each with its verdict -- PASS, WARN,
 * FAIL -- and the reasons, whole.  A port's verdict weighs its inventory
 * against --expect or its lane's majority (check_expect.h), its rates,
 * its losses and counters, and its wiring (check_verdict.c). */
#ifndef LB_ENGINE_CHECK_H
#define LB_ENGINE_CHECK_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "algos/algos.h"
#include "executor.h"
#include "result.h"
#include "transports/transport.h"

struct lb_expect; /* check_expect.h */

/* --pattern: who meets whom in phase 1.  Every pattern's pairs feed the
 * same per-port verdicts, and every directed pair it measured is a cell
 * of the lane's N x N matrix (rows of phase "link": rank sends, peer
 * receives), where a cell low in its row and its column names the link,
 * a row low throughout names the port. */
enum lb_check_pattern {
	LB_CHECK_NEIGHBOURS, /* two neighbours per port, O(1) rounds (the default) */
	LB_CHECK_SHIFT,      /* mpiGraph's ring shift per lane: for d = 1 .. p - 1 every
			      * rank sends to rank + d while it receives from rank - d,
			      * all pairs of a step at once: the whole matrix */
	LB_CHECK_BISECTION,  /* every rank with rank + p/2, every lane at once */
};

/* The names --pattern takes, in the enum's order; NULL-terminated. */
extern const char *const lb_check_pattern_names[];

/* --rerun: ports of an earlier record tested again, each with partners
 * that were healthy there (bench/ reads the record and chooses them), and
 * the partners of a lane with each other: what they reach is the
 * suspects' yardstick. */
struct lb_check_retest_port {
	uint32_t rank, lane;
	uint32_t partners[3];
	uint32_t npartners;
	const char *was;           /* the record's verdict and reason; NULL: none */
};

struct lb_check_retest {
	const struct lb_check_retest_port *ports;
	size_t n;
	const char *const *hosts;  /* [nhosts]: the record's host of every rank; a job
				    * whose ranks run elsewhere is refused, naming the rank */
	uint32_t nhosts;
	const double *expected;    /* [nexpected]: bytes/s a port of the lane should reach,
				    * from the record (its ports' expected), the yardstick
				    * when no two partners met (check_verdict.c); 0: unknown */
	uint32_t nexpected;
};

/* The parts of a check whose wall time rank 0 keeps (lb_check_params'
 * part_seconds), in the order they run: opening the job and connecting
 * the partners, phase 1, phase 2, gathering the figures on rank 0,
 * phase 3, the verdicts and rows. */
enum lb_check_part {
	LB_CHECK_PART_SETUP, LB_CHECK_PART_PORTS, LB_CHECK_PART_AGGREGATE, LB_CHECK_PART_GATHER,
	LB_CHECK_PART_COLLECTIVES, LB_CHECK_PART_REPORT, LB_CHECK_NPARTS
};

/* Their names, in the enum's order: "setup", "ports", ... */
extern const char *const lb_check_part_names[LB_CHECK_NPARTS];

/* Burn-in (--duration): what rank 0 is told after every interval; the
 * line ends without a newline. */
typedef void lb_check_progress_fn(void *ctx, const char *line);

struct lb_check_params {
	const char *nics;          /* one lane each; NULL: auto */
	const char *transport;
	struct lb_tp_options tp_options;
	enum lb_idle idle;
	double timeout;            /* seconds: every wait, one repetition of a pair
				    * included (a dead link is named after it) */
	double lane_rate;          /* bytes/s expected of every port; 0: the port's
				    * reported speed, else the cluster's median */
	uint64_t bw_bytes;         /* bandwidth message size */
	uint32_t window;           /* messages in flight */
	uint32_t iterations;       /* measured repetitions per direction */
	uint32_t lat_iterations;   /* round trips per pair */
	const struct lb_expect *expect; /* --expect: what every port must show; NULL none */
	double min_bw;             /* fraction of expected a port must reach (0.9) */
	double max_loss;           /* a port fails when its partners retransmit more than
				    * this share of what they sent it (or it, of what it
				    * sent them), or a drop counter grows by more than this
				    * share of its packets */
	uint64_t max_errors;       /* a port fails when an error counter grows by more */
	double max_lat;            /* seconds; 0: LB_CHECK_LAT_FACTOR x the median */
	double max_model_ratio;    /* a collective: measured / simulated at most this */
	double max_bound_ratio;    /* an allgather: measured over its receive bound,
				    * (p - 1) m / a rank's summed rx (the largest
				    * over ranks), at most this */
	const struct lb_algo *const *algos; /* phase 3; none: skipped */
	size_t nalgos;
	uint64_t bcast_bytes;
	const atomic_int *stop;
	const struct lb_prov *prov; /* the caller's part of the provenance; NULL: none */
	enum lb_check_pattern pattern;      /* phase 1's pairs */
	const struct lb_check_retest *retest; /* --rerun: only these ports; NULL: every port */
	double duration;           /* burn-in: seconds phase 1 repeats over; 0: once */
	double interval;           /* burn-in: seconds per interval (a progress line each) */
	lb_check_progress_fn *progress; /* rank 0; NULL: quiet */
	void *progress_ctx;
	double max_spread;         /* burn-in: a port whose rate varies by more than this
				    * share of its best over the intervals warns */
	double *part_seconds;      /* [LB_CHECK_NPARTS]: each part's wall seconds on
				    * this rank (a part that did not run: 0); NULL */
};

/* Without --max-lat a port fails at this many times the median port
 * latency. */
#define LB_CHECK_LAT_FACTOR 10.0

/* Partner of `rank` in round `round` (0 .. lb_check_rounds(size)), or -1
 * when it sits the round out. */
int lb_check_partner(uint32_t rank, uint32_t size, uint32_t round);
uint32_t lb_check_rounds(uint32_t size);

/* The third partner of `rank`, met only when its port looks bad with the
 * first two (a pair's two ends cannot be told apart otherwise when both
 * of its partners are bad), or -1: none (fewer than 4 ranks; the last of
 * an odd count).  Never a partner of the rounds; an involution. */
int lb_check_third(uint32_t rank, uint32_t size);

/* --pattern bisection: rank + p/2 (mod p), or -1: the last rank of an odd
 * count sits out.  An involution. */
int lb_check_bisection_partner(uint32_t rank, uint32_t size);

/* --pattern shift: which of three buffer slots `rank` sends from in step
 * d (to rank + d), never the one its sender (rank - d) sends from: a
 * transfer lands at the offset it was sent from (rdma's write mode), so a
 * rank receives into its sender's slot while it sends from its own. */
uint32_t lb_check_shift_colour(uint32_t rank, uint32_t size, uint32_t d);

/* Collective: every rank calls it; rows to sink on rank 0 (begin once the
 * lanes are connected, agreed by all).  A lane that does not connect to a
 * partner within a quarter of the timeout is not fatal: its pairs fail,
 * named, and the other lanes are measured.  Returns 0 (the verdicts are
 * in the rows), or -1 / LB_EPEER (lib/error.h) with a reason, as
 * lb_coll_run does. */
int lb_check_run(const struct lb_check_params *p, const struct lb_sink *sink, char *err,
		 size_t errlen);

#endif
