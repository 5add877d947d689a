/* Rows kept as a table of text: a sink (engine/result.h) that builds the
 * struct lb_table a CSV read back would give (report/csvread.h) -- the
 * same cells, numbers printed as the CSV writer prints them ("%.9g"),
 * empty for no value, and the run's provenance as the head's lines.
 * So a report that renders a record works alike on a run's rows as they
 * come and on a file read back later (lanebench check's HTML page). */
#ifndef LB_ROWTABLE_H
#define LB_ROWTABLE_H

#include <stddef.h>

#include "csvread.h"
#include "engine/result.h"

struct lb_rowtable {
	struct lb_table t;   /* t.path: "<rows>" */
	size_t cap;          /* rows the cells have room for */
};

/* A sink filling rt (zeroed by the caller): provenance, begin and row. */
struct lb_sink lb_rowtable_sink(struct lb_rowtable *rt);

/* Frees what rt holds (its table). */
void lb_rowtable_free(struct lb_rowtable *rt);

#endif
