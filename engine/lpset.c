/* See lpset.h. */
#include "lpset.h"

#include <stdio.h>
#include <stdlib.h>

const struct lb_lp_result *lb_lp_set_find(const struct lb_lp_set *s, uint32_t root,
					  uint64_t slice_bytes)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->e[i].root == root && s->e[i].slice_bytes == slice_bytes)
			return &s->e[i].res;
	return NULL;
}

static int grow(struct lb_lp_set *s)
{
	if (s->n < s->cap)
		return 0;
	size_t cap = s->cap ? 2 * s->cap : 8;
	struct lb_lp_entry *e = realloc(s->e, cap * sizeof(*e));
	if (!e)
		return -1;
	s->e = e;
	s->cap = cap;
	return 0;
}

int lb_lp_set_add(struct lb_lp_set *s, const struct lb_platform *pf, uint32_t root,
		  uint64_t slice_bytes, char *err, size_t errlen)
{
	char why[384];
	if (lb_lp_set_find(s, root, slice_bytes))
		return 0;
	if (grow(s)) {
		snprintf(err, errlen, "LP bound: out of memory");
		return -1;
	}
	struct lb_lp_entry *e = &s->e[s->n];
	*e = (struct lb_lp_entry){ .root = root, .slice_bytes = slice_bytes };
	if (lb_lp_bound(pf, root, 0, slice_bytes, LB_LP_PHASE2_TIME, &e->res, why, sizeof(why))) {
		snprintf(err, errlen, "LP bound from root %u, slices of %llu bytes: %s", root,
			 (unsigned long long)slice_bytes, why);
		return -1;
	}
	s->n++;
	return 0;
}

struct lb_lp_result *lb_lp_set_put(struct lb_lp_set *s, uint32_t root, uint64_t slice_bytes,
				   uint32_t nodes)
{
	double *load = calloc((size_t)nodes * nodes, sizeof(*load));
	if (!load || grow(s)) {
		free(load);
		return NULL;
	}
	struct lb_lp_entry *e = &s->e[s->n++];
	*e = (struct lb_lp_entry){ .root = root, .slice_bytes = slice_bytes,
				   .res = { .nodes = nodes, .load = load } };
	return &e->res;
}

void lb_lp_set_free(struct lb_lp_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		lb_lp_result_free(&s->e[i].res);
	free(s->e);
	*s = (struct lb_lp_set){ 0 };
}
