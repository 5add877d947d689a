/* The point-to-point engine; see p2psweep.h. */
#include "p2psweep.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job.h"
#include "jobprov.h"
#include "lib/error.h"
#include "p2p.h"
#include "p2pverify.h"
#include "stats.h"

/* results/README.md documents these columns; the table shows some. */
static const struct lb_col columns[] = {
	{ LB_COLUMN("transport", LB_COL_TEXT) },
	{ LB_COLUMN("lane", LB_COL_UINT), .table = { { LB_SHOW_UINT, "lane", 4, .legend = "lane index" } } },
	{ LB_COLUMN("lane_name", LB_COL_TEXT), .table = { { LB_SHOW_TEXT, "name", -10, .legend = "its NIC" } } },
	{ LB_COLUMN("message_bytes", LB_COL_UINT),
	  .table = { { LB_SHOW_SIZE, "size", 9, .legend = "message size (KiB, MiB: 1024-based)" } } },
	{ LB_COLUMN("iterations", LB_COL_UINT), .table = { { LB_SHOW_UINT, "iters", 8, .legend = "repetitions" } } },
	{ LB_COLUMN("window", LB_COL_UINT) },
	{ LB_COLUMN("direction", LB_COL_TEXT) },
	{ LB_COLUMN("latency_min_seconds", LB_COL_REAL),
	  .table = { { LB_SHOW_SECONDS, "lat min", 11,
		       .legend = "one-way latency (half a ping-pong's round trip): least" } } },
	{ LB_COLUMN("latency_median_seconds", LB_COL_REAL),
	  .table = { { LB_SHOW_SECONDS, "lat median", 11, .legend = "median" } } },
	{ LB_COLUMN("latency_p99_seconds", LB_COL_REAL),
	  .table = { { LB_SHOW_SECONDS, "lat p99", 11, .legend = "99th percentile" } } },
	{ LB_COLUMN("bandwidth_median_bytes_per_second", LB_COL_REAL),
	  .table = { { LB_SHOW_FIXED, "bw GB/s", 8, 3, 1e9,
		       .legend = "median bandwidth, 10^9 bytes/s (window x size until acknowledged)" },
		     { LB_SHOW_FIXED, "bw Gbit/s", 10, 3, 1.25e8, .legend = "the same, 10^9 bit/s" } } },
	{ LB_COLUMN("bandwidth_max_bytes_per_second", LB_COL_REAL) },
	{ LB_COLUMN("bandwidth_sent_median_bytes_per_second", LB_COL_REAL) },
	{ LB_COLUMN("bandwidth_received_median_bytes_per_second", LB_COL_REAL) },
	{ LB_COLUMN("lane_rate_bytes_per_second", LB_COL_REAL) },
	{ LB_COLUMN("efficiency_ratio", LB_COL_REAL),
	  .table = { { LB_SHOW_FIXED, "eff", 6, 3,
		       .legend = "efficiency: bandwidth / the lane's line rate (-b: of twice it)" } } },
	{ LB_COLUMN("verified_bytes", LB_COL_UINT) },
};

#define NCOLUMNS (sizeof(columns) / sizeof(columns[0]))

struct p2p_row {
	uint32_t lane;
	uint64_t bytes;
	struct lb_stats lat, bw;    /* bw: both directions summed when bidirectional */
	double sent, received;      /* medians of each direction, rank 0's view; NaN: none */
	double efficiency;
	uint64_t verified;          /* payload bytes ranks 0 and 1 checked (each its own until gathered) */
};

/* The columns of the run: a bidirectional one also shows the direction
 * and each direction's bandwidth in the table (a one-way table is as
 * before). */
static void columns_of(const struct lb_p2psweep_params *p, struct lb_col *cols)
{
	memcpy(cols, columns, sizeof(columns));
	for (size_t i = 0; p->bidirectional && i < NCOLUMNS; i++) {
		struct lb_show_as *t = &cols[i].table[0];
		if (strcmp(cols[i].name, "direction") == 0)
			*t = (struct lb_show_as){ .how = LB_SHOW_TEXT, .heading = "dir", .width = -4 };
		else if (strcmp(cols[i].name, "bandwidth_sent_median_bytes_per_second") == 0)
			*t = (struct lb_show_as){ .how = LB_SHOW_FIXED, .heading = "0->1 MB/s",
						  .width = 10, .decimals = 2, .per = 1e6 };
		else if (strcmp(cols[i].name, "bandwidth_received_median_bytes_per_second") == 0)
			*t = (struct lb_show_as){ .how = LB_SHOW_FIXED, .heading = "1->0 MB/s",
						  .width = 10, .decimals = 2, .per = 1e6 };
	}
}

/* Rank 0: the row as a result, to the sink. */
static int emit(const struct lb_p2psweep_params *p, const struct lb_job *j, const struct lb_col *cols,
		const struct p2p_row *r, const struct lb_sink *sink, char *err, size_t len)
{
	const union lb_val v[] = {
		{ .s = j->ops->name }, { .u = r->lane }, { .s = j->lane_names[r->lane] },
		{ .u = r->bytes }, { .u = p->iterations }, { .u = p->window },
		{ .s = p->bidirectional ? "bi" : "uni" },
		{ .d = r->lat.min }, { .d = r->lat.median }, { .d = r->lat.p99 },
		{ .d = r->bw.median }, { .d = r->bw.max }, { .d = r->sent }, { .d = r->received },
		{ .d = j->lane_rate > 0 ? j->lane_rate : NAN }, { .d = r->efficiency },
		{ .u = r->verified },
	};
	_Static_assert(sizeof(v) / sizeof(v[0]) == NCOLUMNS, "a value for every column");
	const struct lb_result res = { .cols = cols, .ncols = NCOLUMNS, .vals = v };
	return sink->row(sink->ctx, &res, err, len);
}

/* Bandwidth of one size: one way (rank 0 to 1), or both ways at once. */
static int measure_bw(const struct lb_p2psweep_params *p, struct lb_p2p_verify *v,
		      const struct lb_p2p_cfg *c, double *s, struct p2p_row *row, char *err,
		      size_t len)
{
	struct lb_stats st;
	int rc;
	row->received = NAN;
	if (!p->bidirectional) {
		rc = lb_p2p_verified(v, c, LB_P2P_ONE_WAY, s, err, len);
		lb_stats_compute(s, p->iterations, &row->bw);
		row->sent = row->bw.median;
		return rc;
	}
	struct lb_p2p_bi_samples bi = { s, s + p->iterations, s + 2 * (size_t)p->iterations };
	rc = lb_p2p_verified(v, c, LB_P2P_BOTH_WAYS, s, err, len);
	lb_stats_compute(bi.sent, p->iterations, &st);
	row->sent = st.median;
	lb_stats_compute(bi.received, p->iterations, &st);
	row->received = st.median;
	lb_stats_compute(bi.sum, p->iterations, &row->bw);
	return rc;
}

/* Ranks 0 and 1 measure one size on one lane; rank 0 keeps the figures,
 * each rank the count of bytes it verified. */
static int measure(const struct lb_p2psweep_params *p, struct lb_job *j, uint32_t lane,
		   uint64_t bytes, struct lb_p2p_verify *v, struct p2p_row *row, char *err, size_t len)
{
	double *s = calloc(3 * (size_t)p->iterations, sizeof(*s)); /* bidirectional: 3 series */
	if (!s)
		return lb_errf(err, len, "out of memory");
	struct lb_p2p_cfg c = {
		.ops = j->ops, .tp = j->tp, .buf = j->buf, .lane = lane, .peer = !j->rank,
		.initiator = j->rank == 0, .bytes = bytes, .iters = p->iterations,
		.warmup = p->warmup, .window = p->window, .idle = p->idle,
		.timeout = j->timeout, .stop = p->stop,
	};
	v->bytes = 0;
	int rc = lb_p2p_verified(v, &c, LB_P2P_LATENCY, s, err, len);
	lb_stats_compute(s, p->iterations, &row->lat);
	if (rc == 0)
		rc = measure_bw(p, v, &c, s, row, err, len);
	row->lane = lane;
	row->bytes = bytes;
	row->verified = v->bytes;
	/* Both directions: a fraction of the full-duplex capacity, 2 x the rate. */
	double capacity = (p->bidirectional ? 2 : 1) * j->lane_rate;
	row->efficiency = j->lane_rate > 0 ? row->bw.median / capacity : NAN;
	free(s);
	return rc;
}

#define FAILED UINT64_MAX /* a rank's count when its measurement failed */

/* Collective: rank 0 learns what ranks 0 and 1 verified for the row, into
 * row->verified, and *both_ok whether both measured it.  rc is this rank's
 * measurement; err keeps its reason. */
static int gather_verified(struct lb_job *j, int rc, struct p2p_row *row, int *both_ok,
			   char *err, size_t len)
{
	uint64_t mine = j->rank > 1 ? 0 : rc ? FAILED : row->verified;
	uint64_t *all = j->rank == 0 ? calloc(j->size, sizeof(*all)) : NULL;
	char why[256];
	*both_ok = 0;
	if (j->rank == 0 && !all)
		return rc ? rc : lb_errf(err, len, "out of memory");
	int grc = lb_boot_gather(j->boot, &mine, sizeof(mine), all, why, sizeof(why));
	if (grc && rc == 0)
		snprintf(err, len, "%s", why);
	*both_ok = grc == 0 && all && all[0] != FAILED && all[1] != FAILED;
	if (*both_ok)
		row->verified = all[0] + all[1];
	free(all);
	return grc;
}

/* Ranks beyond 0 and 1 only wait: each row's collectives return when
 * ranks 0 and 1 have measured it, which may take up to a timeout per
 * repetition (each bounded so on ranks 0 and 1), latency and bandwidth,
 * plus the set-up of both tests -- far beyond one timeout for a large size
 * on a slow link.  They wait that long, and no longer. */
static void wait_for_rows(const struct lb_p2psweep_params *p, struct lb_job *j)
{
	double steps = 2.0 * ((double)p->iterations + p->warmup) + 4;
	double most = j->timeout * steps;
	if (j->rank > 1)
		lb_boot_set_timeout(j->boot, most < LB_MAX_TIMEOUT ? most : LB_MAX_TIMEOUT);
}

static int sweep(const struct lb_p2psweep_params *p, struct lb_job *j, const struct lb_col *cols,
		 const struct lb_sink *sink, char *err, size_t len)
{
	wait_for_rows(p, j);
	struct lb_p2p_verify v = { .next_id = 1, .sync_at = j->buflen - 16 };
	for (uint32_t l = 0; l < j->lanes; l++)
		for (size_t i = 0; i < p->nsizes; i++) {
			struct p2p_row row = { 0 };
			int both_ok, rc = j->rank > 1 ? 0 : measure(p, j, l, p->sizes[i], &v, &row,
								   err, len);
			if (p->stop && *p->stop) { /* rank 1 may be in a data phase: tell it now */
				lb_boot_abort(j->boot, "rank 0 was stopped by a signal");
				return -1;
			}
			int grc = gather_verified(j, rc, &row, &both_ok, err, len);
			if (grc)
				return grc;
			if (rc == 0 && j->rank == 0 && both_ok) /* else agree names the cause */
				rc = emit(p, j, cols, &row, sink, err, len);
			rc = rc == LB_EPEER ? 0 : rc; /* the peer found wrong data: its reason */
			if ((rc = lb_job_agree(j, rc, err, len)) != 0)
				return rc;
		}
	return 0;
}

/* The largest size's payloads side by side (p2pverify.h). */
static uint64_t buffer_bytes(const struct lb_p2psweep_params *p)
{
	uint64_t max = 0;
	for (size_t i = 0; i < p->nsizes; i++)
		max = p->sizes[i] > max ? p->sizes[i] : max;
	return lb_p2p_verify_buffer(max, p->window, p->bidirectional);
}

int lb_p2psweep_run(const struct lb_p2psweep_params *p, const struct lb_sink *sink,
		    char *err, size_t len)
{
	struct lb_job_params jp = { .nics = p->nics, .transport = p->transport,
				    .timeout = p->timeout, .lane_rate = p->lane_rate,
				    .tp_options = p->tp_options, .polls_only = p->idle != LB_IDLE_SLEEP };
	jp.buffer_bytes = buffer_bytes(p);
	struct lb_col cols[NCOLUMNS];
	columns_of(p, cols);
	struct lb_job j;
	int rc = lb_job_open(&j, &jp, err, len);
	uint32_t peer[1] = { !j.rank }, *peers[LB_JOB_MAX_LANES], npeers[LB_JOB_MAX_LANES];
	for (uint32_t l = 0; l < LB_JOB_MAX_LANES; l++)
		peers[l] = peer, npeers[l] = j.rank < 2;
	if (rc == 0)
		rc = lb_job_connect(&j, peers, npeers, err, len);
	if (rc == 0)
		rc = lb_job_sink_start(&j, p->prov, sink, cols, NCOLUMNS, err, len);
	if (rc == 0)
		rc = sweep(p, &j, cols, sink, err, len);
	lb_job_close(&j);
	return rc;
}
