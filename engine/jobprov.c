/* Hosts and lanes of every rank, for the provenance; see jobprov.h. */
#include "jobprov.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launch/hostname.h"
#include "launch/nicinfo.h"
#include "lib/error.h"

#define HOST_MAX 64
#define LANE_TEXT_MAX 256 /* host and lane texts are cut to fit */

/* What one rank sends: its host name, then a line per lane. */
static size_t facts_size(const struct lb_job *j)
{
	return HOST_MAX + (size_t)j->lanes * LANE_TEXT_MAX;
}

static const char *host_of(const char *facts)
{
	return facts;
}

static const char *lane_of(const char *facts, uint32_t l)
{
	return facts + HOST_MAX + (size_t)l * LANE_TEXT_MAX;
}

const char *lb_job_launcher(const char *size_from)
{
	static const char *const names[][2] = {
		{ "LANEBENCH_SIZE", "lanebench-env" }, { "SLURM_NTASKS", "slurm" },
		{ "OMPI_COMM_WORLD_SIZE", "openmpi" }, { "PMI_SIZE", "pmi" },
	};
	for (size_t i = 0; size_from && i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(size_from, names[i][0]) == 0)
			return names[i][1];
	return "none";
}

/* "-" for an unknown number (negative, or 0 where 0 means unknown). */
static const char *num(double v, int zero_known, char *buf, size_t len)
{
	if (v < 0 || (v == 0 && !zero_known))
		return "-";
	snprintf(buf, len, "%.0f", v);
	return buf;
}

/* The transport's rate (what the run used) before the link's. */
static double lane_bps(const struct lb_job *j, uint32_t l, const struct lb_nic_facts *f)
{
	double rate = j->ops->lane_rate ? j->ops->lane_rate(j->tp, l) : 0;
	return rate > 0 ? rate * 8 : f->speed_bps;
}

/* " via=<who>": what carries the lane, as the transport's port_facts
 * says it ("tcp", "dpdk(af_xdp)": the PMD a dpdk lane ended up on); ""
 * when it says nothing. */
static void lane_via(const struct lb_job *j, uint32_t l, char *out, size_t len)
{
	struct lb_port_facts pf;
	memset(&pf, 0, sizeof(pf));
	pf.carrier = -1;
	pf.numa_node = -1;
	*out = 0;
	if (j->ops->port_facts)
		j->ops->port_facts(j->tp, l, &pf);
	if (pf.source[0])
		snprintf(out, len, " via=%s", pf.source);
}

static void describe_lane(const struct lb_job *j, uint32_t l, char *out, size_t len)
{
	struct lb_nic_facts f;
	char port[16], speed[32], mtu[16], numa[16], core[16], via[48];
	lb_nic_facts(j->lane_names[l], &f);
	lane_via(j, l, via, sizeof(via));
	snprintf(out, len, "nic=%.63s port=%s speed_bps=%s mtu=%s numa=%s core=%s addr=%.47s%s",
		 *f.ifname ? f.ifname : j->lane_names[l], num(f.port, 0, port, sizeof(port)),
		 num(lane_bps(j, l, &f), 0, speed, sizeof(speed)), num(f.mtu, 0, mtu, sizeof(mtu)),
		 num(j->plan[l].nic_numa, 1, numa, sizeof(numa)),
		 num(j->plan[l].core, 1, core, sizeof(core)), *f.addr ? f.addr : "-", via);
}

static void my_facts(const struct lb_job *j, char *me)
{
	lb_host_name(me, HOST_MAX);
	for (uint32_t l = 0; l < j->lanes; l++)
		describe_lane(j, l, me + HOST_MAX + (size_t)l * LANE_TEXT_MAX, LANE_TEXT_MAX);
}

static void add_job(const struct lb_job *j, struct lb_prov *out, const char *all)
{
	struct lb_boot_cfg bc;
	char err[256], key[64];
	size_t each = facts_size(j);
	lb_prov_add(out, "launcher", "%s",
		    lb_job_launcher(lb_boot_env(&bc, err, sizeof(err)) == 0 ? bc.size_from : NULL));
	lb_prov_add(out, "transport", "%s", j->ops->name);
	lb_prov_add(out, "ranks", "%u", j->size);
	lb_prov_add(out, "lanes", "%u", j->lanes);
	for (uint32_t r = 0; r < j->size; r++) {
		snprintf(key, sizeof(key), "host.%u", r);
		lb_prov_add(out, key, "%s", host_of(all + r * each));
	}
	for (uint32_t r = 0; r < j->size; r++) {
		for (uint32_t l = 0; l < j->lanes; l++) {
			snprintf(key, sizeof(key), "lane.%u.%u", r, l);
			lb_prov_add(out, key, "%s", lane_of(all + r * each, l));
		}
	}
}

/* Every rank agrees on the buffers first: a rank 0 without memory must
 * not leave the others waiting in the gather. */
int lb_job_provenance(struct lb_job *j, struct lb_prov *out, char *err, size_t len)
{
	size_t each = facts_size(j);
	char *me = calloc(1, each), *all = NULL;
	int ok = me && (j->rank != 0 || (all = calloc(j->size, each)));
	int rc = lb_job_agree(j, ok ? 0 : lb_errf(err, len, "out of memory"), err, len);
	if (rc == 0) {
		my_facts(j, me);
		rc = lb_boot_gather(j->boot, me, each, all, err, len);
	}
	if (rc == 0 && j->rank == 0 && out)
		add_job(j, out, all);
	free(me);
	free(all);
	return rc;
}

int lb_job_sink_start(struct lb_job *j, const struct lb_prov *given, const struct lb_sink *sink,
		      const struct lb_col *cols, size_t ncols, char *err, size_t len)
{
	struct lb_prov prov = { 0 };
	lb_prov_add_all(&prov, given);
	int rc = lb_job_provenance(j, &prov, err, len);
	if (rc)
		goto out;
	if (j->rank == 0 && lb_prov_failed(&prov))
		rc = lb_errf(err, len, "out of memory");
	else if (j->rank == 0)
		rc = lb_sink_start(sink, &prov, cols, ncols, err, len);
	rc = lb_job_agree(j, rc, err, len);
out:
	lb_prov_free(&prov);
	return rc;
}
