/* The lp-* algorithms' edge loads for a sweep; see bcastlp.h. */
#include "bcastlp.h"

#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "model/lp.h"

const double *lb_lp_cache_find(const struct lb_lp_cache *c, uint32_t root, uint64_t slice_bytes)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->e[i].root == root && c->e[i].slice_bytes == slice_bytes)
			return c->e[i].load;
	return NULL;
}

/* Rank 0: the LP solved into load (nodes x nodes). */
static int solve(const struct lb_platform *pf, uint32_t root, uint64_t slice_bytes, double *load,
		 char *err, size_t len)
{
	struct lb_lp_result res;
	char why[512];
	if (lb_lp_bound(pf, root, 0, slice_bytes, LB_LP_PHASE2_TIME, &res, why, sizeof(why)))
		return lb_errf(err, len, "the LP bound (root %u, slice %llu bytes) for the lp-* "
			       "algorithms: %s", root, (unsigned long long)slice_bytes, why);
	memcpy(load, res.load, (size_t)pf->nodes * pf->nodes * sizeof(*load));
	lb_lp_result_free(&res);
	return 0;
}

/* Room for one more entry (its load allocated), or -1. */
static struct lb_lp_loads *grow(struct lb_lp_cache *c, size_t cells)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 4;
		struct lb_lp_loads *e = realloc(c->e, cap * sizeof(*e));
		if (!e)
			return NULL;
		c->e = e;
		c->cap = cap;
	}
	struct lb_lp_loads *at = &c->e[c->n];
	at->load = calloc(cells, sizeof(double));
	return at->load ? at : NULL;
}

int lb_lp_cache_add(struct lb_lp_cache *c, struct lb_job *job, const struct lb_platform *pf,
		    uint32_t root, uint64_t slice_bytes, char *err, size_t len)
{
	if (lb_lp_cache_find(c, root, slice_bytes))
		return 0;
	size_t cells = (size_t)pf->nodes * pf->nodes;
	struct lb_lp_loads *at = grow(c, cells);
	int rc = at ? 0 : lb_errf(err, len, "rank %u: out of memory", job->rank);
	if (rc == 0 && job->rank == 0)
		rc = solve(pf, root, slice_bytes, at->load, err, len);
	rc = lb_job_agree(job, rc, err, len);
	if (rc == 0)
		rc = lb_boot_bcast(job->boot, at->load, cells * sizeof(double), err, len);
	if (rc) {
		if (at)
			free(at->load);
		return rc;
	}
	at->root = root;
	at->slice_bytes = slice_bytes;
	c->n++;
	return 0;
}

void lb_lp_cache_free(struct lb_lp_cache *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->e[i].load);
	free(c->e);
	memset(c, 0, sizeof(*c));
}
