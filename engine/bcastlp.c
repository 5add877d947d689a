/* The lp-* algorithms' edge loads in a job; see bcastlp.h. */
#include "bcastlp.h"

#include "lib/error.h"

int lb_bcast_lp_add(struct lb_lp_set *s, struct lb_job *job, const struct lb_platform *pf,
		    uint32_t root, uint64_t slice_bytes, char *err, size_t len)
{
	if (lb_lp_set_find(s, root, slice_bytes))
		return 0;
	int rc = 0;
	if (job->rank == 0)
		rc = lb_lp_set_add(s, pf, root, slice_bytes, err, len);
	else if (!lb_lp_set_put(s, root, slice_bytes, pf->nodes))
		rc = lb_errf(err, len, "rank %u: out of memory", job->rank);
	rc = lb_job_agree(job, rc, err, len);
	if (rc)
		return rc; /* the run ends: an entry left behind is never read */
	const struct lb_lp_result *res = lb_lp_set_find(s, root, slice_bytes);
	return lb_boot_bcast(job->boot, res->load, (size_t)pf->nodes * pf->nodes * sizeof(double),
			     err, len);
}
