/* Calibration of every ordered pair; see calibpairs.h. */
#include "calibpairs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job.h"
#include "jobprov.h"
#include "lib/error.h"
#include "p2p.h"
#include "stats.h"

uint32_t lb_calib_pairs_rounds(uint32_t size)
{
	return size < 2 ? 0 : size - (size % 2 == 0);
}

/* The circle method on n = size rounded up to even players: player n - 1
 * stays put, the others x, y (mod m = n - 1, odd) meet in the round r
 * where x + y = 2r (mod m); the one with 2x = 2r meets player n - 1.  A
 * player n - 1 beyond the ranks (odd size) is a bye. */
int lb_calib_pairs_partner(uint32_t rank, uint32_t size, uint32_t round)
{
	uint32_t n = size + size % 2, m = n - 1, partner;
	if (size < 2 || rank >= size || round >= lb_calib_pairs_rounds(size))
		return -1;
	if (rank == n - 1) {
		partner = round;
	} else {
		partner = (2 * round % m + m - rank % m) % m;
		if (partner == rank)
			partner = n - 1;
	}
	return partner < size ? (int)partner : -1;
}

int lb_calib_pairs_check(uint32_t size, char *err, size_t len)
{
	if (size <= LB_CALIB_PAIRS_MAX_RANKS)
		return 0;
	return lb_errf(err, len, "--pairs all measures every ordered pair (%u ranks: %llu pairs "
		       "per lane) and is refused above %u ranks: calibrate a job of at most %u "
		       "ranks (a subset of the hosts, several runs for several subsets) and write "
		       "the remaining links by hand (platform file: default and link lines)",
		       size, (unsigned long long)size * (size - 1), LB_CALIB_PAIRS_MAX_RANKS,
		       LB_CALIB_PAIRS_MAX_RANKS);
}

/* One run's state on one rank. */
struct pairs_run {
	const struct lb_calib_pairs_params *prm;
	struct lb_job job;
	double contact;  /* seconds: connecting, and a pair's first exchange */
	uint8_t *up;     /* [lane * size + v]: this rank's channel with v was made */
	double *samples; /* [iters] */
	double *mine;    /* [(lane * size + v) * 2]: latency, bandwidth me -> v */
};

/* A figure that is no number (a failed or empty measurement) must not
 * become a link: it is refused, naming the direction and lane. */
static int check_figures(const struct pairs_run *r, uint32_t lane, uint32_t peer,
			 const double *fig, char *err, size_t len)
{
	if (isfinite(fig[0]) && fig[0] > 0 && isfinite(fig[1]) && fig[1] > 0)
		return 0;
	return lb_errf(err, len, "rank %u: lane %u: %u -> %u: no usable figures (latency %g s, "
		       "bandwidth %g B/s)", r->job.rank, lane, r->job.rank, peer, fig[0], fig[1]);
}

/* One direction on one lane: the initiator (the sender) times a ping-pong
 * of 8 bytes, then a stream of windows; the peer answers.  The initiator
 * keeps the medians in fig[0] (seconds one way) and fig[1] (bytes/s). */
static int measure_direction(struct pairs_run *r, uint32_t lane, uint32_t peer, int initiator,
			     double *fig, char *err, size_t len)
{
	const struct lb_calib_pairs_params *c = r->prm;
	struct lb_p2p_cfg p = {
		.ops = r->job.ops, .tp = r->job.tp, .buf = r->job.buf, .lane = lane, .peer = peer,
		.initiator = initiator, .bytes = 8, .iters = c->iters, .warmup = 2,
		.window = c->window, .idle = c->idle, .timeout = r->job.timeout,
	};
	double *s = initiator ? r->samples : NULL;
	struct lb_stats st;
	if (lb_p2p_latency(&p, s, err, len))
		return -1;
	if (s) {
		lb_stats_compute(s, c->iters, &st);
		fig[0] = st.median;
	}
	p.bytes = c->bw_bytes;
	p.warmup = 1;
	if (lb_p2p_bandwidth(&p, s, err, len))
		return -1;
	if (!s)
		return 0;
	lb_stats_compute(s, c->iters, &st);
	fig[1] = st.median;
	return check_figures(r, lane, peer, fig, err, len);
}

/* The pair's first exchange on a lane: one 8-byte ping-pong within the
 * connect wait.  A link cut on the way (one way or both) fails it. */
static int answers(struct pairs_run *r, uint32_t lane, uint32_t peer)
{
	char why[256];
	struct lb_p2p_cfg p = {
		.ops = r->job.ops, .tp = r->job.tp, .buf = r->job.buf, .lane = lane, .peer = peer,
		.initiator = r->job.rank < peer, .bytes = 8, .iters = 1, .warmup = 0,
		.window = 1, .idle = r->prm->idle, .timeout = r->contact,
	};
	return lb_p2p_latency(&p, p.initiator ? r->samples : NULL, why, sizeof(why));
}

/* Bit l set: the channel with peer on lane l was made and answered. */
static uint32_t lanes_answering(struct pairs_run *r, int peer)
{
	uint32_t ok = 0;
	for (uint32_t l = 0; peer >= 0 && l < r->job.lanes; l++)
		if (r->up[(size_t)l * r->job.size + (uint32_t)peer] && answers(r, l, (uint32_t)peer) == 0)
			ok |= 1u << l;
	return ok;
}

/* The lanes both ends of the pair found answering (one end may have
 * had its ping-pong finish while the other's timed out): each rank's
 * answering lanes, allgathered, the partner's ANDed with ours. */
static int lanes_linked(struct pairs_run *r, int peer, uint32_t *linked, char *err, size_t len)
{
	uint32_t mine = lanes_answering(r, peer);
	uint32_t *all = calloc(r->job.size, sizeof(*all));
	int rc = lb_job_agree(&r->job, all ? 0 : lb_errf(err, len, "out of memory"), err, len);
	if (rc == 0)
		rc = lb_boot_allgather(r->job.boot, &mine, sizeof(mine), all, err, len);
	*linked = rc == 0 && peer >= 0 ? mine & all[peer] : 0;
	free(all);
	return rc;
}

/* A lane the pair has no link on: its figures stay 0 (written nolink),
 * and the channel is given up, so that a late answer fails nothing. */
static void no_link(struct pairs_run *r, uint32_t lane, uint32_t peer)
{
	double *fig = &r->mine[((size_t)lane * r->job.size + peer) * 2];
	fig[0] = fig[1] = 0;
	if (r->job.ops->forget)
		r->job.ops->forget(r->job.tp, lane, peer);
}

/* The pair {me, peer} on every linked lane: the lower rank's direction
 * first. */
static int measure_pair(struct pairs_run *r, uint32_t peer, uint32_t linked, char *err, size_t len)
{
	uint32_t me = r->job.rank, size = r->job.size;
	for (uint32_t l = 0; l < r->job.lanes; l++) {
		if (!(linked >> l & 1)) {
			no_link(r, l, peer);
			continue;
		}
		double *fig = &r->mine[((size_t)l * size + peer) * 2];
		for (int first = 1; first >= 0; first--) {
			int initiator = (me < peer) == first;
			if (measure_direction(r, l, peer, initiator, fig, err, len))
				return -1;
		}
	}
	return 0;
}

/* Every round, then an agreement: one failure stops every rank. */
static int run_rounds(struct pairs_run *r, char *err, size_t len)
{
	uint32_t rounds = lb_calib_pairs_rounds(r->job.size);
	for (uint32_t round = 0; round < rounds; round++) {
		int peer = lb_calib_pairs_partner(r->job.rank, r->job.size, round);
		char why[512] = "";
		uint32_t linked;
		if (r->job.rank == 0 && r->prm->on_round)
			r->prm->on_round(round, rounds, r->prm->on_round_arg);
		int rc = lanes_linked(r, peer, &linked, err, len);
		if (rc)
			return rc;
		rc = peer >= 0 ? measure_pair(r, (uint32_t)peer, linked, why, sizeof(why)) : 0;
		if (rc)
			lb_errf(err, len, "%s", why);
		rc = lb_job_agree(&r->job, rc, err, len);
		if (rc)
			return rc;
	}
	return 0;
}

/* Every lane connects to every other rank, within the connect wait: a
 * pair that cannot (a missing link) is left out, not waited for. */
static int connect_all(struct pairs_run *r, char *err, size_t len)
{
	char why[256];
	uint32_t *peers[LB_JOB_MAX_LANES] = { 0 }, npeers[LB_JOB_MAX_LANES] = { 0 };
	uint32_t *others = calloc(r->job.size, sizeof(*others)), n = 0;
	for (uint32_t q = 0; others && q < r->job.size; q++)
		if (q != r->job.rank)
			others[n++] = q;
	for (uint32_t l = 0; l < r->job.lanes; l++)
		peers[l] = others, npeers[l] = n;
	int rc = lb_job_agree(&r->job, others ? 0 : lb_errf(err, len, "out of memory"), err, len);
	if (rc == 0)
		rc = lb_job_connect_some(&r->job, peers, npeers, r->up, why, sizeof(why), err, len);
	free(others);
	return rc;
}

/* Rank 0 spreads the gathered rows (all[u]: this module's `mine` of rank
 * u) into the matrices. */
static void take_figures(struct lb_calib_pairs *out, const double *all)
{
	uint32_t p = out->ranks, k = out->lanes;
	for (uint32_t u = 0; u < p; u++)
		for (uint32_t l = 0; l < k; l++)
			for (uint32_t v = 0; v < p; v++) {
				const double *fig = &all[(((size_t)u * k + l) * p + v) * 2];
				size_t at = ((size_t)l * p + u) * p + v;
				out->latency[at] = u == v ? 0 : fig[0];
				out->bandwidth[at] = u == v ? 0 : fig[1];
			}
}

/* Every rank's figures to rank 0. */
static int gather(struct pairs_run *r, struct lb_calib_pairs *out, char *err, size_t len)
{
	size_t each = (size_t)r->job.lanes * r->job.size * 2, cells = (size_t)r->job.lanes *
		      r->job.size * r->job.size;
	double *all = NULL;
	int ok = 1;
	if (r->job.rank == 0) {
		all = calloc(each * r->job.size, sizeof(*all));
		out->latency = calloc(cells, sizeof(double));
		out->bandwidth = calloc(cells, sizeof(double));
		ok = all && out->latency && out->bandwidth;
	}
	int rc = lb_job_agree(&r->job, ok ? 0 : lb_errf(err, len, "out of memory"), err, len);
	if (rc == 0)
		rc = lb_boot_gather(r->job.boot, r->mine, each * sizeof(double), all, err, len);
	if (rc == 0 && r->job.rank == 0)
		take_figures(out, all);
	free(all);
	return rc;
}

/* Rank 0: some pair has a link on some lane, else the run measured
 * nothing (every connection failed: rather a failure than a file of
 * nolinks), agreed. */
static int some_link(struct pairs_run *r, const struct lb_calib_pairs *out, char *err, size_t len)
{
	size_t cells = (size_t)out->lanes * out->ranks * out->ranks;
	int found = r->job.rank != 0;
	for (size_t i = 0; !found && i < cells; i++)
		found = out->bandwidth[i] > 0;
	return lb_job_agree(&r->job, found ? 0 : lb_errf(err, len, "no pair of ranks connected "
				"and answered within %g s on any lane: nothing measured",
				r->contact), err, len);
}

static int measure_all(struct pairs_run *r, struct lb_calib_pairs *out, char *err, size_t len)
{
	out->ranks = r->job.size;
	out->lanes = r->job.lanes;
	out->connect_timeout = r->contact = r->job.connect_timeout;
	r->samples = calloc(r->prm->iters + 1, sizeof(double));
	r->mine = calloc((size_t)r->job.lanes * r->job.size * 2, sizeof(double));
	r->up = calloc((size_t)r->job.lanes * r->job.size, 1);
	int rc = lb_job_agree(&r->job, r->samples && r->mine && r->up ? 0
				  : lb_errf(err, len, "out of memory"), err, len);
	if (rc == 0)
		rc = lb_job_provenance(&r->job, &out->prov, err, len);
	if (rc == 0)
		rc = connect_all(r, err, len);
	if (rc == 0)
		rc = run_rounds(r, err, len);
	if (rc == 0)
		rc = gather(r, out, err, len);
	if (rc == 0)
		rc = some_link(r, out, err, len);
	free(r->samples);
	free(r->mine);
	free(r->up);
	return rc;
}

int lb_calib_pairs_run(const struct lb_calib_pairs_params *p, struct lb_calib_pairs *out,
		       char *err, size_t len)
{
	struct lb_job_params jp = { .nics = p->nics, .transport = p->transport,
				    .timeout = p->timeout, .tp_options = p->tp_options,
				    .connect_timeout = p->connect_timeout,
				    .connect_share = LB_CALIB_PAIRS_CONNECT_SHARE,
				    .buffer_bytes = p->bw_bytes > 8 ? p->bw_bytes : 8,
				    .polls_only = p->idle != LB_IDLE_SLEEP };
	struct pairs_run r = { .prm = p };
	memset(out, 0, sizeof(*out));
	int rc = lb_job_open(&r.job, &jp, err, len);
	if (rc == 0)
		rc = measure_all(&r, out, err, len);
	lb_job_close(&r.job);
	if (rc)
		lb_calib_pairs_free(out);
	return rc;
}

struct lb_platform *lb_calib_pairs_platform(const struct lb_calib_pairs *c)
{
	struct lb_platform *pf = lb_platform_new(c->ranks, c->lanes);
	for (uint32_t l = 0; pf && l < c->lanes; l++)
		for (uint32_t u = 0; pf && u < c->ranks; u++)
			for (uint32_t v = 0; pf && v < c->ranks; v++) {
				size_t at = ((size_t)l * c->ranks + u) * c->ranks + v;
				struct lb_link link = { .lat = c->latency[at], .bw = c->bandwidth[at] };
				unsigned fields = link.bw > 0 ? LB_LINK_LAT | LB_LINK_BW : LB_LINK_BW;
				if (u != v && lb_platform_set_link(pf, u, v, l, fields, &link) != 0) {
					lb_platform_free(pf);
					pf = NULL;
				}
			}
	if (pf && lb_platform_seal(pf) != 0) {
		lb_platform_free(pf);
		pf = NULL;
	}
	return pf;
}

void lb_calib_pairs_free(struct lb_calib_pairs *c)
{
	free(c->latency);
	free(c->bandwidth);
	lb_prov_free(&c->prov);
	memset(c, 0, sizeof(*c));
}
