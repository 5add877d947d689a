/* The job set-up shared by the commands that run on every rank. */
#include "job.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "executor.h"
#include "lib/error.h"

/* Splits the lane list ("rail0,rail1") into names. */
static int split_lanes(struct lb_job *r, const char *spec, char *err, size_t len)
{
	r->lane_spec = strdup(spec);
	if (!r->lane_spec)
		return lb_errf(err, len, "out of memory");
	r->lanes = 0;
	for (char *save = NULL, *t = strtok_r(r->lane_spec, ",", &save); t;
	     t = strtok_r(NULL, ",", &save)) {
		if (r->lanes == LB_JOB_MAX_LANES)
			return lb_errf(err, len, "too many lanes in '%s' (at most %d)", spec, LB_JOB_MAX_LANES);
		r->lane_names[r->lanes++] = t;
	}
	return r->lanes ? 0 : lb_errf(err, len, "no lane named in '%s'", spec);
}

/* A lane per NIC: those named, or hwloc's ("auto"); the pinning plan from
 * hwloc.  Local step: the caller agrees on the outcome. */
static int plan_lanes(struct lb_job *r, const struct lb_job_params *p, char *err, size_t len)
{
	const char *spec = p->nics;
	const struct lb_transport *tp = lb_transport_find(p->transport);
	char auto_kind[32];
	if (!spec || !*spec)
		spec = "auto";
	if (strcmp(spec, "auto") == 0 && tp && tp->nic_kind) {
		snprintf(auto_kind, sizeof(auto_kind), "auto:%s", tp->nic_kind);
		spec = auto_kind;
	}
	if (lb_topo_open(&r->topo, err, len))
		return -1;
	int k = 0, planned = lb_topo_plan(r->topo, spec, r->plan, LB_JOB_MAX_LANES, &k, err, len);
	if (planned)
		return planned; /* LB_EINPUT: a NIC list no host could have */
	if (strncmp(spec, "auto", 4) != 0)
		return split_lanes(r, spec, err, len);
	/* auto: the plan names the NICs it found */
	size_t need = 0;
	for (int i = 0; i < k; i++)
		need += strlen(r->plan[i].name) + 1;
	char *names = malloc(need + 1), *w = names;
	if (!names)
		return lb_errf(err, len, "out of memory");
	for (int i = 0; i < k; i++)
		w += sprintf(w, "%s%s", i ? "," : "", r->plan[i].name);
	int rc = split_lanes(r, names, err, len);
	free(names);
	return rc;
}

void lb_job_pin(uint32_t lane, void *arg)
{
	struct lb_job *r = arg;
	char why[256];
	if (r->topo && r->plan[lane].core >= 0 &&
	    lb_topo_bind_thread(r->topo, r->plan[lane].core, why, sizeof(why)))
		fprintf(stderr, "lanebench: rank %u lane %u: not pinned: %s\n", r->rank, lane, why);
}

/* Notes of the pinning plan (unknown locality, remote NUMA), rank 0
 * only, and only when threads will be bound by it: p2p, check and
 * calibrate run their lanes unpinned, where "lane -> core" would be false. */
static void report_plan(const struct lb_job *r, int pins)
{
	if (r->rank != 0 || !pins)
		return;
	for (uint32_t l = 0; l < r->lanes; l++)
		if (r->plan[l].note[0])
			fprintf(stderr, "lanebench: lane %u (%s) -> core %d: %s\n", l,
				r->lane_names[l], r->plan[l].core, r->plan[l].note);
}

int lb_job_agree(struct lb_job *j, int rc, char *err, size_t len)
{
	char reason[512];
	snprintf(reason, sizeof(reason), "%s", rc ? err : "");
	int agreed = lb_boot_agree(j->boot, rc == 0, reason, err, len);
	/* A refused input stays one (exit 2) on the rank that found it. */
	return agreed == -1 && rc == LB_EINPUT ? LB_EINPUT : agreed;
}

static int same_lane_count(struct lb_job *r, char *err, size_t len)
{
	uint32_t *k = calloc(r->size, sizeof(*k));
	if (!k)
		return lb_errf(err, len, "out of memory");
	int rc = lb_boot_allgather(r->boot, &r->lanes, sizeof(r->lanes), k, err, len);
	for (uint32_t i = 0; rc == 0 && i < r->size; i++)
		if (k[i] != r->lanes)
			rc = lb_errf(err, len, "rank %u has %u lanes but rank %u has %u: every rank needs the same count",
				     i, k[i], r->rank, r->lanes);
	free(k);
	return rc;
}

static int open_transport(struct lb_job *r, const struct lb_job_params *p, char *err, size_t len)
{
	r->ops = lb_transport_find(p->transport);
	if (!r->ops) {
		lb_errf(err, len, "unknown transport '%s'", p->transport);
		return LB_EINPUT;
	}
	r->connect_timeout = p->connect_timeout > 0 ? p->connect_timeout
			     : p->connect_share > 0 ? p->connect_share * r->timeout : r->timeout;
	struct lb_tp_cfg cfg = { .rank = r->rank, .size = r->size, .lanes = r->lanes,
				 .lane_names = r->lane_names, .token = r->token,
				 .timeout = r->connect_timeout, .opt = p->tp_options,
				 .polls_only = p->polls_only };
	if (lb_tp_check_options(r->ops, &p->tp_options, err, len))
		return LB_EINPUT; /* a key the transport does not take */
	return r->ops->open(&cfg, &r->tp, err, len);
}

/* One buffer for the largest message, registered once. */
static int register_buffer(struct lb_job *r, uint64_t bytes, char *err, size_t len)
{
	uint64_t max = bytes > 8 ? bytes : 8;
	r->buflen = max;
	r->buf = aligned_alloc(4096, (max + 4095) / 4096 * 4096);
	if (!r->buf)
		return lb_errf(err, len, "cannot allocate a %llu-byte buffer", (unsigned long long)max);
	memset(r->buf, 0, max);
	return r->ops->register_buffer(r->tp, r->buf, max, err, len);
}

double lb_slowest_rate(const double *rates, size_t n)
{
	double slowest = 0;
	for (size_t i = 0; i < n; i++) {
		if (!(rates[i] > 0)) /* unknown (0 or NaN): so is the minimum */
			return 0;
		slowest = i == 0 || rates[i] < slowest ? rates[i] : slowest;
	}
	return slowest;
}

/* This rank's lanes as the transport knows them (0 without lane_rate). */
static double my_slowest_rate(const struct lb_job *r)
{
	double rates[LB_JOB_MAX_LANES];
	if (!r->ops->lane_rate)
		return 0;
	for (uint32_t l = 0; l < r->lanes; l++)
		rates[l] = r->ops->lane_rate(r->tp, l);
	return lb_slowest_rate(rates, r->lanes);
}

/* The slowest lane rate anywhere: stated by the user, or known to the
 * transport on every rank (0 when any lane's is unknown). */
static int lane_rate(struct lb_job *r, double stated, char *err, size_t len)
{
	double mine = stated > 0 ? stated : my_slowest_rate(r);
	double *all = calloc(r->size, sizeof(*all));
	if (!all)
		return lb_errf(err, len, "out of memory");
	int rc = lb_boot_allgather(r->boot, &mine, sizeof(mine), all, err, len);
	r->lane_rate = rc == 0 ? lb_slowest_rate(all, r->size) : 0;
	free(all);
	return rc;
}

uint32_t lb_job_launched(const char **size_from, char *err, size_t len)
{
	struct lb_boot_cfg bc;
	if (lb_boot_env(&bc, err, len))
		return 0;
	*size_from = bc.size_from;
	if (bc.size_from)
		return bc.size;
	lb_errf(err, len, "not started as a rank of a job (no LANEBENCH_RANK/LANEBENCH_SIZE, "
		"SLURM_PROCID/SLURM_NTASKS, OMPI_COMM_WORLD_RANK/OMPI_COMM_WORLD_SIZE or PMI_RANK/PMI_SIZE "
		"in the environment): launch one process per host with 'scripts/cluster run -- lanebench ...', "
		"srun or mpirun (with LANEBENCH_COORD=host:port), or set LANEBENCH_RANK=0 LANEBENCH_SIZE=1 "
		"to run alone (no data moves)");
	return 0;
}

int lb_job_open(struct lb_job *j, const struct lb_job_params *p, char *err, size_t len)
{
	struct lb_boot_cfg bc;
	memset(j, 0, sizeof(*j));
	if (lb_boot_env(&bc, err, len))
		return -1;
	/* The rendezvous is the first wait of the job: it obeys the same
	 * limit as every later one. */
	if (p->timeout > 0)
		bc.timeout = p->timeout;
	j->timeout = bc.timeout;
	int opened = lb_boot_open(&bc, &j->boot, err, len);
	if (opened)
		return opened; /* LB_EINPUT: a bad LANEBENCH_COORD and the like */
	snprintf(j->token, sizeof(j->token), "%s", bc.token);
	j->rank = lb_boot_rank(j->boot);
	j->size = lb_boot_size(j->boot);
	int rc = lb_job_agree(j, plan_lanes(j, p, err, len), err, len);
	if (rc == 0)
		rc = same_lane_count(j, err, len);
	if (rc)
		return rc;
	report_plan(j, p->pins);
	rc = lb_job_agree(j, open_transport(j, p, err, len), err, len);
	if (rc == 0)
		rc = lb_job_agree(j, register_buffer(j, p->buffer_bytes, err, len), err, len);
	return rc ? rc : lane_rate(j, p->lane_rate, err, len);
}

int lb_job_connect_each(struct lb_job *r, uint32_t *const *peers, const uint32_t *npeers,
			int *connected, char *why, size_t whylen, char *err, size_t len)
{
	size_t blob = (size_t)r->lanes * LB_TP_ADDR_MAX;
	uint8_t *mine = calloc(1, blob), *all = calloc(r->size, blob);
	int rc = mine && all ? 0 : lb_errf(err, len, "out of memory");
	for (uint32_t l = 0; rc == 0 && l < r->lanes; l++)
		rc = r->ops->local_address(r->tp, l, mine + l * LB_TP_ADDR_MAX);
	if (rc == 0)
		rc = lb_boot_allgather(r->boot, mine, blob, all, err, len);
	if (rc == 0) {
		const uint32_t *pp[LB_JOB_MAX_LANES];
		for (uint32_t l = 0; l < r->lanes; l++)
			pp[l] = peers[l];
		struct lb_tp_peers tp_peers = { pp, npeers };
		*connected = r->ops->connect(r->tp, all, &tp_peers, why, whylen) ? -1 : 0;
	}
	free(mine);
	free(all);
	return rc;
}

/* This rank's channels after connect: all of peers[] when it succeeded,
 * else those the transport says were made, or a failure without its word. */
static int channels_made(struct lb_job *r, uint32_t *const *peers, const uint32_t *npeers,
			 int connected, uint8_t *up, const char *why, char *err, size_t len)
{
	memset(up, 0, (size_t)r->lanes * r->size);
	if (connected != 0 && !r->ops->connected)
		return lb_errf(err, len, "%s", why);
	for (uint32_t l = 0; l < r->lanes; l++)
		for (uint32_t i = 0; i < npeers[l]; i++)
			up[(size_t)l * r->size + peers[l][i]] =
				connected == 0 || r->ops->connected(r->tp, l, peers[l][i]);
	return 0;
}

int lb_job_connect_some(struct lb_job *r, uint32_t *const *peers, const uint32_t *npeers,
			uint8_t *up, char *why, size_t whylen, char *err, size_t len)
{
	int connected = 0;
	*why = '\0';
	int rc = lb_job_connect_each(r, peers, npeers, &connected, why, whylen, err, len);
	if (rc)
		return rc;
	return lb_job_agree(r, channels_made(r, peers, npeers, connected, up, why, err, len), err,
			    len);
}

/* Addresses through the bootstrap, then the connections, agreed. */
int lb_job_connect(struct lb_job *r, uint32_t *const *peers, const uint32_t *npeers,
		   char *err, size_t len)
{
	int connected = 0;
	int rc = lb_job_connect_each(r, peers, npeers, &connected, err, len, err, len);
	return rc ? rc : lb_job_agree(r, connected, err, len);
}

void lb_job_close(struct lb_job *j)
{
	char why[256];
	/* Every rank is done with the data path before anyone closes: a peer
	 * may still retransmit into us (and memif servers can crash when a
	 * client disconnects while they poll).  A failed bootstrap returns at
	 * once, so a failed job still closes. */
	if (j->tp && j->boot)
		(void)lb_boot_barrier(j->boot, why, sizeof(why));
	if (j->tp)
		j->ops->close(j->tp);
	free(j->buf);
	lb_topo_close(j->topo);
	lb_boot_close(j->boot);
	free(j->lane_spec);
	memset(j, 0, sizeof(*j));
}
