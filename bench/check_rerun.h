/* lanebench check --rerun RECORD: the suspects of an earlier check's
 * record -- its ports whose verdict was FAIL, WARN or ERROR (not SKIP: a
 * port that sat out bisection) -- each with up to three partners whose
 * ports on that lane passed there (another host's, the
 * ranks after it first), the host of every rank, and what a port of each
 * lane was expected to reach: engine/check.h's lb_check_retest. */
#ifndef LB_BENCH_CHECK_RERUN_H
#define LB_BENCH_CHECK_RERUN_H

#include <stddef.h>

#include "engine/check.h"

struct lb_rerun_record; /* the record as read (check_rerun.c) */

struct lb_rerun {
	struct lb_rerun_record *rec;          /* the strings below point into it */
	struct lb_check_retest_port *ports;
	char **was;                           /* [n]: "FAIL: reason" of each suspect */
	const char **hosts;
	double *expected;
	struct lb_check_retest retest;        /* what the engine is handed */
	size_t link_fails;                    /* link rows that failed: not retested */
};

/* Reads the record at path.  Returns 0 (retest.n 0: nothing failed
 * there), or LB_EINPUT (lib/error.h) with the reason, naming the file and
 * line, the rank or the port; -1 out of memory.  Free with lb_rerun_free
 * either way. */
int lb_rerun_load(const char *path, struct lb_rerun *r, char *err, size_t len);

void lb_rerun_free(struct lb_rerun *r);

#endif
