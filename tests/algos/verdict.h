/* The validator's verdict on a hand-built schedule, for the tests that
 * build bad schedules on purpose (test_validator_broken, test_collective):
 * finalizes, validates and frees s; want NULL expects it valid, else a
 * rejection whose message contains want (printed, so a log shows what the
 * validator said).  Needs check.h's CHECK. */
#ifndef LB_TEST_VERDICT_H
#define LB_TEST_VERDICT_H

#include <stdio.h>
#include <string.h>

#include "algos/schedule.h"

static void expect(struct lb_schedule *s, const char *what, const char *want)
{
	char err[256] = "";
	lb_sched_finalize(s);
	int rc = lb_sched_validate(s, err, sizeof(err));
	if (!want) {
		CHECK(rc == 0, "%s: expected valid, got: %s", what, err);
	} else {
		CHECK(rc != 0, "%s: expected rejection", what);
		CHECK(strstr(err, want) != NULL, "%s: message '%s' lacks '%s'",
		      what, err, want);
		printf("%-26s -> %s\n", what, err);
	}
	lb_sched_free(s);
}

#endif
