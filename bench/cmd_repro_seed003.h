/* lanebench repro seed003-fig8 (repro/repro003.h): the command's part. */
#ifndef LB_BENCH_CMD_REPRO_SEED003_H
#define LB_BENCH_CMD_REPRO_SEED003_H

#include "cli.h"

/* Runs it: the table on stdout (stderr when --json takes stdout), the CSV
 * to output (NULL: none), the JSON document to json (NULL: none); opts is
 * the command's option struct (provenance).  full: every size from 1 MiB
 * to 512 MiB, else a CI-sized few.  Returns the exit status. */
int lb_repro_seed003_fig8(const struct lb_cmd *cmd, const void *opts, int full,
			  const char *output, const char *json);

#endif
