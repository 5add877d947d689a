/* lanebench tune: measured tuning on the job itself (engine/tune.h).
 * Every rank runs it; rank 0 writes the tuning table (engine/tuning.h,
 * docs/guide/tuning.md) that `bcast -a auto --tuning FILE` reads. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "engine/tune.h"
#include "lib/error.h"
#include "lib/stop.h"
#include "lib/units.h"

struct tune_opts {
	struct lb_list sizes;
	uint32_t iterations, warmup, top;
	int idle, no_pin;
	uint64_t calib_size;
	double timeout, lane_rate;
	struct lb_tp_options tpo;
	const char *nics, *transport, *output;
};

#define OFF(f) offsetof(struct tune_opts, f)

static const char *const idles[] = { "spin", "yield", "sleep", NULL };

static const struct lb_opt opts[] = {
	{ LB_OPT("message-size", 'm', "SIZES", "the size classes, list and ranges: 8:32M:4 (x4), 4K,1M; bcast -a auto takes the nearest class (within x4)",
	  LB_OPT_SIZE_LIST, OFF(sizes)), .def = "8:32M:4" },
	{ LB_OPT("top", 0, "N", "per size, measure the model's N fastest broadcasts and the previous size's 3 fastest, each at its slice and in one slice, then the 3 fastest algorithms' slices halved and doubled",
	  LB_OPT_UINT, OFF(top)), .def = "3", .min = 1, .max = 8 },
	{ LB_OPT("iterations", 'i', "N", "timed iterations per measurement, at least (a short broadcast gets about 20 ms of them, up to 200)", LB_OPT_UINT,
	  OFF(iterations)), .def = "5", .min = 1, .max = 100000 },
	{ LB_OPT("warmup", 'x', "N", "untimed iterations first", LB_OPT_UINT, OFF(warmup)),
	  .def = "1", .min = 0, .max = 100000 },
	LB_NICS_ROWS("NICs, a lane each (rail0,rail1), or auto; default $LANEBENCH_NICS, else auto",
		     OFF(nics)),
	{ LB_OPT("transport", 't', "NAME", "data transport: tcp, dpdk, rdma (as built: lanebench --help)", LB_OPT_STRING, OFF(transport)),
	  .def = "tcp" },
	{ LB_OPT("idle", 0, NULL, "what a lane thread does with nothing to do (as bcast's)",
	  LB_OPT_ENUM, OFF(idle)), .def = "sleep", .choices = idles },
	LB_TP_OPTION_ROWS(OFF(tpo)),
	{ LB_OPT("lane-rate", 0, "RATE", "line rate of one lane (the table's key); default: asked from the transport",
	  LB_OPT_RATE, OFF(lane_rate)) },
	{ LB_OPT("calib-size", 0, "BYTES", "message size of the bandwidth calibration the model ranks on",
	  LB_OPT_SIZE, OFF(calib_size)), .def = "256K" },
	{ LB_OPT("no-pin", 0, NULL, "do not bind lane threads to cores near their NIC",
	  LB_OPT_FLAG, OFF(no_pin)) },
	{ LB_OPT("timeout", 0, "SECONDS", "limit for every wait (default $LANEBENCH_TIMEOUT, else 60s)",
	  LB_OPT_HANDLER, OFF(timeout)), .handler = lb_cli_set_timeout,
	  .show = lb_cli_show_timeout },
	{ LB_OPT("output", 'o', "FILE", "the tuning table to write", LB_OPT_STRING, OFF(output)),
	  .def = "lanebench-tuning.txt" },
};

static void on_measured(const char *algo, uint64_t bytes, uint64_t slice, double seconds)
{
	char size[24], sl[24], t[24];
	lb_format_size(bytes, size, sizeof(size));
	lb_format_size(slice, sl, sizeof(sl));
	lb_format_seconds(seconds, t, sizeof(t));
	fprintf(stderr, "lanebench tune: %s: %s slice %s: %s\n", size, algo, sl, t);
}

static struct lb_tune_params params_of(const struct lb_cmd *cmd, const struct tune_opts *o)
{
	return (struct lb_tune_params){
		.job = { .iterations = o->iterations, .warmup = o->warmup,
			 .nics = lb_cli_nics(cmd, o->nics), .transport = o->transport,
			 .idle = (enum lb_idle)o->idle, .tp_options = o->tpo,
			 .timeout = o->timeout, .lane_rate = o->lane_rate,
			 .calib_bytes = o->calib_size, .pin = !o->no_pin },
		.sizes = o->sizes.v, .nsizes = o->sizes.n, .top = o->top,
		.on_measured = on_measured,
	};
}

/* Rank 0: the table to o->output, whole or not at all. */
static int write_table(const struct lb_cmd *cmd, const struct tune_opts *o,
		       const struct lb_tuning *t, const struct lb_prov *prov)
{
	char tmp[1024];
	snprintf(tmp, sizeof(tmp), "%s.tmp", o->output);
	FILE *f = fopen(tmp, "w");
	int rc = f ? lb_tuning_write(f, t, prov) : -1;
	if (f && fclose(f))
		rc = -1;
	if (rc == 0 && rename(tmp, o->output) == 0) {
		printf("tuning table: %s\n", o->output);
		return 0;
	}
	lb_cli_error(cmd, "output", "%s: %s", o->output, strerror(errno));
	remove(tmp);
	return LB_EXIT_FAILED;
}

static int tune(const struct lb_cmd *cmd, void *base)
{
	const struct tune_opts *o = base;
	struct lb_prov prov = { 0 };
	struct lb_tuning *t = calloc(1, sizeof(*t));
	char err[512] = "";
	int rc = t ? 0 : LB_EXIT_FAILED; /* the user's input first: no job needed */
	if (rc == 0 && o->sizes.n > LB_TUNING_MAX_PICKS) {
		lb_cli_error(cmd, "message-size", "at most %d size classes", LB_TUNING_MAX_PICKS);
		rc = LB_EXIT_USAGE;
	}
	for (size_t i = 1; rc == 0 && i < o->sizes.n; i++)
		if (o->sizes.v[i] <= o->sizes.v[i - 1]) { /* the table's classes increase */
			lb_cli_error(cmd, "message-size", "sizes must increase (%llu after %llu): "
				     "each is a size class of the table",
				     (unsigned long long)o->sizes.v[i], (unsigned long long)o->sizes.v[i - 1]);
			rc = LB_EXIT_USAGE;
		}
	if (rc == 0)
		rc = lb_cli_require_job(cmd, 2);
	if (rc) {
		free(t);
		return rc;
	}
	struct lb_tune_params p = params_of(cmd, o);
	lb_cli_provenance(&prov, cmd, o);
	lb_cli_tp_provenance(&prov, o->transport, &o->tpo);
	p.job.prov = &prov;
	rc = lb_tune_run(&p, t, err, sizeof(err));
	if (rc)
		lb_cli_error(cmd, NULL, "%s", err);
	rc = lb_cli_exit_status(rc);
	if (rc == 0 && t->n) /* rank 0 */
		rc = write_table(cmd, o, t, &prov);
	lb_prov_free(&prov);
	free(t);
	return rc;
}

static void tune_more_help(FILE *out)
{
	lb_cli_list_tp_options(out);
	fputs("\n"
	      "Every rank of a job of at least two runs this command (launched as for\n"
	      "bcast: see lanebench bcast --help).  After one calibration, each size\n"
	      "class is searched: the model's --top fastest broadcasts are measured at\n"
	      "their model slices and in one slice, and the previous class's pick and\n"
	      "runners-up (its three fastest algorithms) at their slices and in one\n"
	      "slice; then the three fastest algorithms' best slices halved and\n"
	      "doubled; then the three fastest, and every other algorithm's fastest\n"
	      "within 1.5 x (six at most), are measured three times more,\n"
	      "interleaved, and the least median is the class's pick (at most\n"
	      "2 x --top + 30 measurements per class, each at least -i iterations,\n"
	      "more for a broadcast the model predicts short: about 20 ms).  Rank 0\n"
	      "writes the table (docs/guide/tuning.md): its key (transport, ranks,\n"
	      "lanes, lane rate) and a pick per class, under the run's provenance.\n"
	      "bcast -a auto --tuning FILE uses it on a job with that key.\n", out);
}

static int run_tune(const struct lb_cmd *cmd, int argc, char **argv)
{
	struct tune_opts o = { 0 };
	return lb_cli_run(cmd, argc, argv, &o, tune);
}

const struct lb_cmd lb_cmd_tune = {
	.name = "tune",
	.summary = "measure the fastest broadcast per size: -a auto's tuning table",
	.usage = "[-m SIZES] [--top N] [-i N] [-d NICS] [-t NAME] [-o FILE] [options]",
	.opts = opts,
	.nopts = sizeof(opts) / sizeof(opts[0]),
	.more_help = tune_more_help,
	.run = run_tune,
};
