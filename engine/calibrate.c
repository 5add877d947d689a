#include "calibrate.h"

#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "p2p.h"
#include "stats.h"

int lb_calib_partner(uint32_t rank, uint32_t size, int round)
{
	if (round == 0)
		return (rank ^ 1) < size ? (int)(rank ^ 1) : -1;
	if (size % 2 == 0 || size == 1)
		return -1;
	if (rank == size - 1)
		return 0;
	return rank == 0 ? (int)size - 1 : -1;
}

/* A round has two phases, each on every lane, agreed by all ranks before
 * the next: the latencies, then the bandwidths.  Measured lane after lane
 * instead, a pair's ping-pong on lane 1 ran while other pairs still
 * streamed their lane-0 bandwidth test: on 8 loopback ranks lane 1's
 * latencies came out 40-560 us where lane 0's were 14 us, and on the
 * emulated cluster (2 CPUs for every host) such an outlier took bcast's
 * per-slice predictions of chain and multilane to 2x (bench-sites, 2026-11-24: git history of README.md). */
enum phase { LATENCY, BANDWIDTH };

/* Measures one phase on one lane with one partner; the lower rank
 * initiates, and both sides take the figure (the link is the same). */
static int measure(const struct lb_calib_cfg *c, enum phase ph, uint32_t lane, uint32_t me,
		   uint32_t peer, double *figure, char *err, size_t len)
{
	double *s = calloc(c->iters + 1, sizeof(*s));
	if (!s)
		return lb_errf(err, len, "calibration: out of memory");
	struct lb_p2p_cfg p = {
		.ops = c->ops, .tp = c->tp, .buf = c->buf, .lane = lane, .peer = peer,
		.initiator = me < peer, .bytes = 8, .iters = c->iters, .warmup = 2,
		.window = c->window, .idle = c->idle, .timeout = c->timeout,
	};
	struct lb_stats st;
	int rc;
	if (ph == LATENCY) {
		rc = lb_p2p_latency(&p, s, err, len);
	} else {
		p.bytes = c->bw_bytes;
		p.warmup = 1;
		rc = lb_p2p_bandwidth(&p, s, err, len);
	}
	lb_stats_compute(s, c->iters, &st);
	*figure = st.median;
	free(s);
	return rc;
}

static double median_of(const double *v, uint32_t n)
{
	struct lb_stats st;
	lb_stats_compute(v, n, &st);
	return st.median;
}

static void tell(const struct lb_calib_cfg *c, uint32_t me, int round, uint32_t lane, int peer)
{
	if (c->on_measure)
		c->on_measure(me, round, lane, (uint32_t)peer, c->on_measure_arg);
}

/* One phase on every lane with peer; the figures into mine (k latencies,
 * then k bandwidths) unless keep is 0 (rank 0 keeps its round-0 figures
 * and measures round 1 for its partner's sake).  Each lane is told once,
 * as its latency test starts. */
static int measure_lanes(const struct lb_calib_cfg *c, enum phase ph, int round, uint32_t me,
			 uint32_t peer, int keep, double *mine, char *err, size_t len)
{
	for (uint32_t l = 0; l < c->lanes; l++) {
		double figure = 0;
		if (ph == LATENCY)
			tell(c, me, round, l, (int)peer);
		if (measure(c, ph, l, me, peer, &figure, err, len))
			return -1;
		if (keep)
			mine[ph == LATENCY ? l : c->lanes + l] = figure;
	}
	return 0;
}

/* Measure, then agree, phase by phase (a failure anywhere stops everyone
 * with its reason). */
static int run_rounds(struct lb_boot *boot, const struct lb_calib_cfg *c,
		      double *mine, char *err, size_t len)
{
	uint32_t me = lb_boot_rank(boot), size = lb_boot_size(boot);
	for (int round = 0; round < 2; round++) {
		int peer = lb_calib_partner(me, size, round);
		for (int ph = LATENCY; ph <= BANDWIDTH; ph++) {
			char why[256] = "";
			int ok = peer < 0 || measure_lanes(c, (enum phase)ph, round, me, (uint32_t)peer,
							   !(round == 1 && me == 0), mine, why,
							   sizeof(why)) == 0;
			int rc = lb_boot_agree(boot, ok, why, err, len);
			if (rc)
				return rc;
		}
	}
	return 0;
}

/* Every rank's figures (all[rank]: k latencies, then k bandwidths). */
static void take_figures(struct lb_calib *out, const double *all, uint32_t size, uint32_t k)
{
	for (uint32_t r = 0; r < size; r++)
		for (uint32_t l = 0; l < k; l++) {
			out->latency[r * k + l] = all[r * 2 * k + l];
			out->bandwidth[r * k + l] = all[r * 2 * k + k + l];
		}
	out->latency_median = median_of(out->latency, size * k);
	out->bandwidth_median = median_of(out->bandwidth, size * k);
}

int lb_calibrate(struct lb_boot *boot, const struct lb_calib_cfg *c,
		 struct lb_calib *out, char *err, size_t len)
{
	uint32_t size = lb_boot_size(boot), k = c->lanes;
	memset(out, 0, sizeof(*out));
	out->ranks = size;
	out->lanes = k;
	double *mine = calloc(2 * k, sizeof(*mine));
	double *all = calloc((size_t)size * 2 * k, sizeof(*all));
	out->latency = calloc((size_t)size * k, sizeof(double));
	out->bandwidth = calloc((size_t)size * k, sizeof(double));
	int rc = 0;
	if (!mine || !all || !out->latency || !out->bandwidth)
		rc = lb_errf(err, len, "calibration: out of memory");
	else if (size == 1)
		rc = 0; /* nothing to measure: no transfers happen */
	else if ((rc = run_rounds(boot, c, mine, err, len)) == 0)
		rc = lb_boot_allgather(boot, mine, 2 * k * sizeof(double), all, err, len);
	if (rc == 0 && size > 1)
		take_figures(out, all, size, k);
	free(mine);
	free(all);
	return rc;
}

void lb_calib_free(struct lb_calib *c)
{
	free(c->latency);
	free(c->bandwidth);
	memset(c, 0, sizeof(*c));
}
