/* libFuzzer target for the platform parser (net/platform_text.c): any
 * bytes as a platform file.  What it accepts must be usable downstream:
 * every link's slice time finite and > 0 (its values are bounded where
 * they enter), formatting it reads back to the same text, and on up to
 * 16 nodes cap-trees plans a broadcast (or says why not) with a finite
 * period -- the cheap consumers; GLPK and the simulators are left out. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "algos/beaumont/hetero_cap.h"
#include "net/platform.h"

#define MOST_PLANNED 16 /* nodes: a cap-trees plan stays cheap */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every link of lane 0 carries a 1 MiB slice in a finite time > 0. */
static void check_times(const struct lb_platform *pf)
{
	struct lb_platform_edge *e;
	size_t m;
	if (lb_platform_edges(pf, 0, &e, &m))
		return;
	for (size_t i = 0; i < m; i++) {
		double t = lb_platform_occupation(pf, e[i].u, e[i].v, 0, 1 << 20);
		if (!(isfinite(t) && t > 0))
			abort();
	}
	free(e);
}

/* format -> parse -> format gives the same text. */
static void check_round_trip(const struct lb_platform *pf)
{
	char err[512];
	char *text = lb_platform_format(pf);
	struct lb_platform *again = text ? lb_platform_parse(text, "formatted", err, sizeof(err)) : NULL;
	char *text2 = again ? lb_platform_format(again) : NULL;
	if (text && (!again || !text2 || strcmp(text, text2) != 0))
		abort();
	free(text);
	free(text2);
	lb_platform_free(again);
}

static void check_plan(const struct lb_platform *pf)
{
	char err[512];
	struct lb_hetero_in in = { .pf = pf, .root = 0, .lane = 0, .slice_bytes = 1 << 20 };
	struct lb_cap_plan plan;
	if (pf->nodes > MOST_PLANNED || lb_cap_plan(&in, 4, &plan, err, sizeof(err)))
		return;
	if (!(isfinite(plan.period) && plan.period >= 0 && isfinite(plan.estimate)))
		abort();
	lb_cap_plan_free(&plan);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512];
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0'; /* (a NUL inside ends the text, as the file reader refuses it) */
	struct lb_platform *pf = lb_platform_parse(text, "fuzz", err, sizeof(err));
	free(text);
	if (!pf) {
		if (strncmp(err, "fuzz:", 5) != 0) /* every refusal names the file */
			abort();
		return 0;
	}
	check_times(pf);
	check_round_trip(pf);
	check_plan(pf);
	lb_platform_free(pf);
	return 0;
}
