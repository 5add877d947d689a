/* The sim sweep on several threads: the same rows, in the same order, as
 * on one; a stop before the first configuration gives no rows. */
#include <signal.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "engine/simsweep.h"

#define MAX_ROWS 512

/* What a row says, enough to tell any two configurations and results apart. */
struct seen {
	char algo[16];
	uint64_t ranks, root, bytes, slice;
	double sim;
};

struct rows {
	struct seen row[MAX_ROWS];
	size_t n;
};

static int keep_row(void *ctx, const struct lb_result *r, char *err, size_t len)
{
	struct rows *rows = ctx;
	(void)err, (void)len;
	if (rows->n == MAX_ROWS)
		return -1;
	struct seen *s = &rows->row[rows->n++];
	snprintf(s->algo, sizeof(s->algo), "%s", lb_result_val(r, "algorithm")->s);
	s->ranks = lb_result_val(r, "ranks")->u;
	s->root = lb_result_val(r, "root")->u;
	s->bytes = lb_result_val(r, "message_bytes")->u;
	s->slice = lb_result_val(r, "slice_bytes")->u;
	s->sim = lb_result_val(r, "sim_seconds")->d;
	return 0;
}

static const struct lb_algo *algos[6];
static const uint64_t ranks[] = { 2, 5, 8, 17 }, sizes[] = { 1024, 100000, 3u << 20 };
static const uint64_t slices[] = { 8192 }, roots[] = { 0, 1 };

static int run(unsigned workers, const atomic_int *stop, struct rows *rows)
{
	static const char *const names[] = { "chain", "binary", "binomial",
					     "vandegeijn", "multilane", "klane" };
	for (size_t i = 0; i < 6; i++)
		algos[i] = lb_algo_find(names[i]);
	struct lb_simsweep_params p = {
		.algos = algos, .nalgos = 6, .ranks = ranks, .nranks = 4, .sizes = sizes,
		.nsizes = 3, .slices = slices, .nslices = 1, .lanes = 2, .roots = roots,
		.nroots = 2, .alpha = 5e-6, .lane_bw = 1.25e9, .wan_alpha = -1,
		.sites = 1, .stop = stop, .workers = workers,
	};
	struct lb_sink sink = { .row = keep_row, .ctx = rows };
	char err[512] = "";
	rows->n = 0;
	int rc = lb_simsweep_run(&p, &sink, err, sizeof(err));
	CHECK(rc == 0, "%u workers: %s", workers, err);
	return rc;
}

int main(void)
{
	static struct rows one, three;
	run(1, NULL, &one);
	run(3, NULL, &three);
	CHECK(one.n == 6 * 4 * 3 * 2, "one worker: %zu rows", one.n);
	CHECK(three.n == one.n, "three workers: %zu rows, one: %zu", three.n, one.n);
	for (size_t i = 0; i < one.n && i < three.n; i++)
		CHECK(memcmp(&one.row[i], &three.row[i], sizeof(one.row[i])) == 0,
		      "row %zu: %s p=%llu differs from %s p=%llu", i, three.row[i].algo,
		      (unsigned long long)three.row[i].ranks, one.row[i].algo,
		      (unsigned long long)one.row[i].ranks);
	static atomic_int stopped = SIGINT;
	static struct rows none;
	run(2, &stopped, &none);
	CHECK(none.n == 0, "stopped before the start: %zu rows", none.n);
	return check_status("simsweep");
}
