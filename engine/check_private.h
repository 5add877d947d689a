/* What the check's measuring part (check.c) hands to its verdicts
 * (check_verdict.c): every rank's figures, gathered on rank 0. */
#ifndef LB_CHECK_PRIVATE_H
#define LB_CHECK_PRIVATE_H

#include <stdint.h>

#include "check.h"
#include "job.h"

#define CHECK_WHY 192

/* One rank's view of one pair (a lane in a round, or all lanes at once). */
struct check_pair {
	int32_t partner;       /* -1: sat the round out */
	int32_t ok;            /* measured both ways, every byte right */
	double lat;            /* one-way latency, seconds; measured by the lower rank, else NaN */
	double tx;             /* bytes/s this rank sent to the partner */
	uint64_t verified;     /* bytes this rank received and checked */
	char why[CHECK_WHY];   /* !ok: what went wrong */
};

/* What a rank tells about itself. */
struct check_rank {
	char host[64];
	double speed[LB_JOB_MAX_LANES];        /* bytes/s reported by the transport; 0 unknown */
	char nic[LB_JOB_MAX_LANES][32];
};

/* One collective of phase 3, as the collective engine measured it. */
struct check_bcast {
	const char *algorithm;
	const char *collective;  /* bcast, allgather (lb_sched_collective) */
	double median, sim, ratio;
	uint64_t verified;
};

/* Everything rank 0 knows at the end. */
struct check_all {
	const struct lb_check_params *p;
	const char *transport;
	uint32_t size, lanes, rounds;
	double pair_timeout;
	struct check_rank *ranks;       /* [size] */
	struct check_pair *pairs;       /* [(rank * lanes + lane) * rounds + round] */
	struct check_pair *aggs;        /* [rank * rounds + round] */
	struct check_bcast *bcasts;     /* [nbcasts] */
	size_t nbcasts;
	const char *bcast_skipped;      /* why phase 3 did not run; NULL: it did */
};

/* Rank 0: the verdicts, as rows to the sink. */
int lb_check_report(const struct check_all *a, const struct lb_sink *sink, char *err,
		    size_t errlen);

/* The columns of every row. */
extern const struct lb_col lb_check_columns[];
extern const size_t lb_check_ncolumns;

#endif
