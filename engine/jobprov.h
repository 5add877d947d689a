/* The job's part of a result file's provenance (lib/prov.h): how it was
 * launched, the transport, ranks and lanes, and from every rank its host
 * name and each lane's NIC -- gathered to rank 0 through the bootstrap.
 * Keys (results/README.md): launcher, transport, ranks, lanes,
 * host.<rank>, lane.<rank>.<lane> = "nic=rail1 port=1 speed_bps=200000000
 * mtu=1500 numa=-1 core=1 addr=10.11.0.6" ("-" for what is unknown). */
#ifndef LB_JOBPROV_H
#define LB_JOBPROV_H

#include <stddef.h>

#include "job.h"
#include "lib/prov.h"
#include "result.h"

/* Collective, after lb_job_open; adds to out on rank 0 only (the others
 * may pass NULL).  Returns 0, or -1/LB_EPEER with the reason. */
int lb_job_provenance(struct lb_job *j, struct lb_prov *out, char *err, size_t errlen);

/* Collective: rank 0's sink started (lb_sink_start) with the provenance
 * given (the caller's part; may be NULL) plus the job's, its outcome
 * agreed so nobody waits for a rank that quit. */
int lb_job_sink_start(struct lb_job *j, const struct lb_prov *given, const struct lb_sink *sink,
		      const struct lb_col *cols, size_t ncols, char *err, size_t errlen);

/* The launcher named by the variable that gave the job's size
 * (struct lb_boot_cfg.size_from): "slurm", "openmpi", "pmi",
 * "lanebench-env", or "none". */
const char *lb_job_launcher(const char *size_from);

#endif
