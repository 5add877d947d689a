#include "result.h"

#include <string.h>

const union lb_val *lb_result_val(const struct lb_result *r, const char *name)
{
	for (size_t i = 0; i < r->ncols; i++)
		if (strcmp(r->cols[i].name, name) == 0)
			return &r->vals[i];
	return NULL;
}

int lb_result_counter(const struct lb_result *r, const char *name, uint64_t *v)
{
	for (size_t i = 0; i < r->ncounters; i++) {
		if (strcmp(r->counters[i].name, name) == 0) {
			*v = r->counters[i].value;
			return 1;
		}
	}
	return 0;
}

int lb_sink_start(const struct lb_sink *s, const struct lb_prov *prov,
		  const struct lb_col *cols, size_t ncols, char *err, size_t len)
{
	if (s->provenance && s->provenance(s->ctx, prov, err, len))
		return -1;
	return s->begin ? s->begin(s->ctx, cols, ncols, err, len) : 0;
}

int lb_tee_provenance(void *ctx, const struct lb_prov *prov, char *err, size_t len)
{
	const struct lb_tee *t = ctx;
	for (size_t i = 0; i < t->n; i++)
		if (t->sinks[i].provenance && t->sinks[i].provenance(t->sinks[i].ctx, prov, err, len))
			return -1;
	return 0;
}

int lb_tee_begin(void *ctx, const struct lb_col *cols, size_t ncols, char *err, size_t len)
{
	const struct lb_tee *t = ctx;
	for (size_t i = 0; i < t->n; i++)
		if (t->sinks[i].begin && t->sinks[i].begin(t->sinks[i].ctx, cols, ncols, err, len))
			return -1;
	return 0;
}

int lb_tee_row(void *ctx, const struct lb_result *r, char *err, size_t len)
{
	const struct lb_tee *t = ctx;
	for (size_t i = 0; i < t->n; i++)
		if (t->sinks[i].row(t->sinks[i].ctx, r, err, len))
			return -1;
	return 0;
}
