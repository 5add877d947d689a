/* Where a repro experiment's rows go: the table on stdout (on stderr when
 * --json takes stdout), the CSV of -o (if any), the JSON document of
 * --json (if any), tee'd into one sink (bench/cmd_repro.c, cmd_repro_seed003.c). */
#ifndef LB_REPRO_OUT_H
#define LB_REPRO_OUT_H

#include "cli.h"
#include "report/csv.h"
#include "report/table.h"

struct lb_repro_out {
	struct lb_table table;
	struct lb_sink sinks[3];
	struct lb_tee tee;
	struct lb_sink sink; /* the one to hand to the engine */
};

/* Fills out (which must stay in place while the sink is used). */
void lb_repro_out_init(struct lb_repro_out *out, struct lb_csv *csv, struct lb_cli_json *json);

/* The legend under the table (lb_table_legend), once the run is over;
 * none when it was stopped. */
void lb_repro_out_legend(struct lb_repro_out *out);

#endif
