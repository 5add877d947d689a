/* What the check's measuring part (check.c) hands to its verdicts
 * (check_verdict.c): every rank's figures, gathered on rank 0. */
#ifndef LB_CHECK_PRIVATE_H
#define LB_CHECK_PRIVATE_H

#include <stdint.h>

#include "check.h"
#include "check_burnin.h"
#include "job.h"
#include "transports/port.h"

#define CHECK_WHY 192

/* One rank's view of one pair (a lane in a round, or all lanes at once). */
struct check_pair {
	int32_t partner;       /* the rank this one sent to; -1: sat the round out */
	int32_t from;          /* the rank this one received from: the partner, but
				* for --pattern shift's rank - d */
	int32_t ok;            /* measured both ways, every byte right */
	double lat;            /* one-way latency, seconds; measured by the lower rank, else NaN */
	double tx;             /* bytes/s this rank sent to the partner */
	uint64_t verified;     /* bytes this rank received and checked */
	uint64_t resent, sent; /* units (segments, frames) this rank sent the
				* partner on the lane and sent again, as the
				* transport counts them (lane_counters); 0: none */
	char why[CHECK_WHY];   /* !ok: what went wrong */
};

/* What a rank tells about itself. */
struct check_rank {
	char host[64];
	double speed[LB_JOB_MAX_LANES];        /* bytes/s reported by the transport; 0 unknown */
	char nic[LB_JOB_MAX_LANES][32];
};

/* Where a port that carried nothing with any partner answers (check_ports.c):
 * ARP probes from its netdev for its own lane's peer addresses and for
 * every other lane's. */
struct check_wiring {
	int32_t probed;          /* 1: the probe ran */
	int32_t own_asked, own;  /* own lane's peer addresses asked, answered */
	int32_t other_lane;      /* the other lane whose peers answered most; -1 none */
	int32_t other;           /* how many of that lane's answered */
	char other_net[24];      /* "10.10.0.x": that lane's network */
	char why[96];            /* the probe could not run: why ("" it ran or was not needed) */
};

/* What a port tells at the end: its counters' growth over the check
 * (system and transport), and where it answers. */
struct check_port_end {
	struct lb_port_counters delta;
	struct check_wiring wiring;
};

/* One collective of phase 3, as the collective engine measured it. */
struct check_bcast {
	const char *algorithm;
	const char *collective;  /* bcast, allgather (lb_sched_collective) */
	double median, sim, ratio;
	uint64_t verified;
};

/* Burn-in's series (check_burnin.c): every port's tx and rx per
 * interval, best over its partners and the interval's passes. */
struct check_burnin {
	uint32_t planned;   /* intervals the duration holds, ceil(duration / interval) */
	uint32_t n, cap;    /* intervals closed; room for */
	uint32_t ports;     /* size x lanes */
	double *tx, *rx;    /* [interval * ports + rank * lanes + lane], bytes/s; NaN: not measured */
	double t0;          /* when it began (CLOCK_MONOTONIC) */
};

/* Shift's second looks at slow links (check_shift.c), per lane: from
 * which cell (s * size + r) on a slow link was not measured again, and
 * why -- the lane's share of looks was taken (a lane this slow has a slow
 * switch), or they ran out of time (--timeout, rank 0's clock, told to
 * all).  Those links keep their first figures. */
#define CHECK_LINK_LOOKS_PER_RANK 2 /* a lane's share: this many times its ranks */
enum check_looks_end { LOOKS_ALL, LOOKS_LANE_SHARE, LOOKS_OUT_OF_TIME };
struct check_looks {
	uint32_t from[LB_JOB_MAX_LANES];            /* UINT32_MAX: every slow link looked at */
	enum check_looks_end why[LB_JOB_MAX_LANES];
	double budget;                              /* seconds, all lanes' looks together */
};

/* Everything rank 0 knows at the end. */
struct check_all {
	const struct lb_check_params *p;
	const char *transport;
	uint32_t size, lanes, rounds;   /* rounds of pairs (lb_check_rounds) */
	uint32_t slots;                 /* a pair record's: the rounds, then the third partner's */
	double pair_timeout;
	struct check_rank *ranks;       /* [size] */
	struct check_pair *pairs;       /* [(rank * lanes + lane) * slots + slot] */
	const struct lb_port_facts *facts;   /* [rank * lanes + lane]: the inventory */
	const struct check_port_end *ends;   /* [rank * lanes + lane] */
	struct check_port_end *ends_all;     /* what ends points to (allocated) */
	struct check_pair *aggs;        /* [rank * rounds + round] */
	struct check_bcast *bcasts;     /* [nbcasts] */
	size_t nbcasts;
	const char *bcast_skipped;      /* why phase 3 did not run; NULL: it did */
	const struct check_burnin *burnin; /* --duration's intervals; NULL: no burn-in */
	const struct check_looks *looks;   /* shift's second looks; NULL: none */
};

/* The measuring side's state on every rank (check.c). */
struct check {
	const struct lb_check_params *p;
	struct lb_job job;
	uint32_t rounds;          /* of pairs (lb_check_rounds) */
	uint32_t slots;           /* a port's pair records: the rounds, then the third partner's */
	uint64_t region;          /* a lane's part of the buffer */
	double pair_timeout;
	struct check_pair *mine;  /* [lane * slots + slot] */
	struct check_pair *all;   /* phase 1, every rank's (allgathered) */
	struct check_pair agg[3]; /* phase 2, this rank's, per round */
	uint32_t rank;            /* kept after the job closed */
	int connected;            /* 0: every lane connected to every partner */
	char connect_why[CHECK_WHY]; /* else the transport's reason */
	int32_t gave_up;          /* some pair failed: its channel was given up */
	struct lb_port_facts *facts;        /* [rank * lanes + lane], every rank's */
	struct lb_port_counters *before;    /* [lane]: this rank's, before any traffic */
	struct check_port_end *ends;        /* [lane]: this rank's, at the end */
	struct check_burnin burnin;         /* --duration: phase 1's intervals */
	struct check_looks looks;           /* --pattern shift: its second looks */
};

/* check_ports.c: the inventory of this rank's ports (facts, counters
 * before traffic), allgathered; the transport's lane counters around a
 * pair; where a silent port answers; the counters' growth at the end. */
int check_inventory(struct check *c, char *err, size_t len);
void check_lane_counters(const struct check *c, uint32_t lane, struct lb_port_counters *out);
void check_pair_loss(const struct lb_port_counters *before, const struct lb_port_counters *after,
		     uint64_t *resent, uint64_t *sent);
void check_probe_wiring(struct check *c);
void check_port_ends(struct check *c);
void check_ports_free(struct check *c);

/* check_burnin.c: phase 1 (pass) repeated until --duration is over, as
 * every rank is told by rank 0; each interval's figures kept, and on rank
 * 0 a progress line after each.  A port's series judged, and read. */
typedef int check_pass_fn(struct check *c, char *err, size_t len);
int check_burnin_run(struct check *c, check_pass_fn *pass, char *err, size_t len);
void check_burnin_free(struct check_burnin *b);
void check_burnin_rates(const struct check_burnin *b, uint32_t interval, uint32_t port,
			double *tx, double *rx);
enum lb_level check_burnin_port(const struct check_all *a, uint32_t port,
				const struct lb_burnin_limits *lim, struct lb_burnin_port *fig,
				char *why, size_t len);

/* check_verdict.c: the medians of the measured ports' best send and
 * receive rates (over partners) and the latency limit (--max-lat, else
 * LB_CHECK_LAT_FACTOR x the median of the ports' best latencies), as the
 * verdict judges the pairs of a; the measuring side's second looks use
 * them, so a port the verdict would fail is always looked at again first. */
void check_verdict_limits(const struct check_all *a, double *median_tx, double *median_rx,
			  double *max_lat);

/* check_verdict.c: a port's tx and rx, best over its partners, from
 * a->pairs; NaN when no partner carried data both ways. */
void check_port_rates(const struct check_all *a, uint32_t k, uint32_t lane, double *tx,
		      double *rx);

/* The pattern ids of the transfers: a pair's (check.c: phase, lane, round,
 * direction, repetition) below CHECK_PAIR_IDS, a shift step's
 * (check_shift.c: lane, d, repetition) from there on, so that a shift
 * window left in the buffer never passes for a second look's. */
#define CHECK_PAIR_IDS (1u << 20)
uint32_t check_pattern_id(uint32_t phase, uint32_t lane, uint32_t round, uint32_t dir,
			  uint32_t rep);
uint32_t check_shift_id(uint32_t lane, uint32_t d, uint32_t rep);

/* check.c: one pair on one lane (latency, then streaming both ways, every
 * byte checked), its channel given up when it fails; returns 0 or -1. */
int check_measure_pair(struct check *c, uint32_t phase, uint32_t lane, uint32_t round, uint32_t q,
		       struct check_pair *m);
void check_add_peer(uint32_t *list, uint32_t *n, uint32_t q);

/* check_patterns.c: phase 1 by --pattern shift or bisection, or by
 * --rerun: the pair records a port has (slots), the peers a lane
 * connects to (added to list), the measurements (into c->mine, then a
 * barrier: check.c gathers), and whether every rank runs on the record's
 * host (--rerun). */
uint32_t check_pattern_slots(const struct lb_check_params *p, uint32_t size, uint32_t lanes);
void check_pattern_peers(const struct check *c, uint32_t lane, uint32_t *list, uint32_t *n);
int check_phase_pattern(struct check *c, char *err, size_t len);
int check_retest_hosts(const struct check *c, const char *host, char *err, size_t len);
/* --rerun: every rank reads RECORD itself; copies that differ would give
 * the ranks different steps and their barriers would not match.  The
 * fingerprint of what sets the steps (the suspects, their lanes and
 * partners, the hosts), and its agreement: 0, or on every rank LB_EINPUT
 * naming the lowest rank whose record differs from rank 0's. */
uint64_t check_retest_hash(const struct lb_check_retest *rt);
int check_retest_agree(const struct check *c, char *err, size_t len);

/* check_shift.c: --pattern shift's steps, gathered into c->all (rank 0:
 * every record whole; the others: each cell's partner, from, ok and tx),
 * then a second look at the links the matrix finds slow; the part of a
 * lane's buffer it needs.  check_shift_fits: 0, or LB_EINPUT naming the
 * most ranks the gather allows with `lanes` lanes (check_shift_max_ranks,
 * from the bootstrap's LB_BOOT_MSG_MAX). */
int check_phase_shift(struct check *c, char *err, size_t len);
uint32_t check_shift_max_ranks(uint32_t lanes);
int check_shift_fits(uint32_t size, uint32_t lanes, char *err, size_t len);
uint64_t check_shift_region(const struct lb_check_params *p);

/* Rank 0: the verdicts, as rows to the sink. */
int lb_check_report(const struct check_all *a, const struct lb_sink *sink, char *err,
		    size_t errlen);

/* A counter's name says what it counts: an error (a bad frame, a symbol,
 * a CRC), a drop, or traffic; what was sent again is judged per pair
 * (check_verdict.c; an RDMA port's retransmissions too, through the
 * rdma transport's lane_counters).  A transport's own counters are
 * traffic. */
enum lb_check_counter_kind { COUNTS_TRAFFIC, COUNTS_ERRORS, COUNTS_DROPS };
enum lb_check_counter_kind lb_check_counter_kind(const char *name);

/* The columns of every row. */
extern const struct lb_col lb_check_columns[];
extern const size_t lb_check_ncolumns;

#endif
