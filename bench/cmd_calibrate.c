/* lanebench calibrate: every ordered pair of the job's ranks measured on
 * every lane (engine/calibpairs.h), written by rank 0 as a platform file
 * (net/platform.h) that plan, sim, lp and bcast read with --platform. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "engine/calibpairs.h"
#include "engine/job.h"
#include "lib/error.h"

struct calibrate_opts {
	int pairs, idle;
	uint64_t calib_size;
	uint32_t iters, window;
	double timeout, connect_timeout;
	struct lb_tp_options tpo;
	const char *nics, *transport, *output;
};

#define OFF(f) offsetof(struct calibrate_opts, f)

static const char *const pair_sets[] = { "all", NULL };
static const char *const idles[] = { "spin", "yield", "sleep", NULL };

static const struct lb_opt opts[] = {
	{ LB_OPT("pairs", 0, NULL, "which pairs to measure: all (every ordered pair; at most 32 ranks)",
	  LB_OPT_ENUM, OFF(pairs)), .def = "all", .choices = pair_sets },
	{ LB_OPT("calib-size", 0, "BYTES", "message size of the bandwidth test",
	  LB_OPT_SIZE, OFF(calib_size)), .def = "256K" },
	{ LB_OPT("iters", 0, "N", "measured repetitions per pair, direction and lane (the median is kept)",
	  LB_OPT_UINT, OFF(iters)), .def = "5", .min = 1, .max = 100000 },
	{ LB_OPT("window", 'w', "N", "messages in flight in the bandwidth test", LB_OPT_UINT,
	  OFF(window)), .def = "8", .min = 1, .max = 4096 },
	LB_NICS_ROWS("NICs, a lane each: interfaces, IPv4 addresses or devices (rail0,rail1), or auto; default $LANEBENCH_NICS, else auto",
		     OFF(nics)),
	{ LB_OPT("transport", 't', "NAME", "data transport: tcp, dpdk, rdma (as built: lanebench --help)", LB_OPT_STRING, OFF(transport)),
	  .def = "tcp" },
	{ LB_OPT("idle", 0, NULL, "what the progress loop does with nothing to do",
	  LB_OPT_ENUM, OFF(idle)), .def = "sleep", .choices = idles },
	LB_TP_OPTION_ROWS(OFF(tpo)),
	{ LB_OPT("timeout", 0, "SECONDS", "limit for every wait: meeting the other ranks, connecting lanes, one repetition (default $LANEBENCH_TIMEOUT, else 60s)",
	  LB_OPT_HANDLER, OFF(timeout)), .handler = lb_cli_set_timeout,
	  .show = lb_cli_show_timeout },
	{ LB_OPT("connect-timeout", 0, "SECONDS", "limit for connecting and for a pair's first ping-pong on a lane: past it the pair has no link there, written nolink (default a quarter of --timeout)",
	  LB_OPT_HANDLER, OFF(connect_timeout)), .handler = lb_cli_set_timeout,
	  .show = lb_cli_show_timeout },
	{ LB_OPT("output", 'o', "FILE", "the platform file (default: stdout of rank 0)",
	  LB_OPT_STRING, OFF(output)) },
};

static void calibrate_more_help(FILE *out)
{
	lb_cli_list_tp_options(out);
	fputs("\n"
	      "Every rank of a job of at least two runs this command (launched as for\n"
	      "bcast: see lanebench bcast --help).  Per lane, every ordered pair (u, v) is\n"
	      "measured: the one-way latency of an 8-byte message (ping-pong / 2, timed\n"
	      "at u) and the streaming bandwidth u -> v (windows of --calib-size\n"
	      "messages), each the median of --iters repetitions.  Pairs meet in the\n"
	      "rounds of a round-robin tournament (p - 1 rounds of p / 2 pairs; p rounds\n"
	      "for an odd p), so no rank measures with two peers at once; a pair measures\n"
	      "one direction, then the other.  --pairs all is refused above 32 ranks.\n"
	      "\n"
	      "Rank 0 writes the platform file (lanebench platform show reads it):\n"
	      "\"default none\", then per ordered pair and lane\n"
	      "  link U V lane L lat <one-way latency> bw <bandwidth>B/s oneway\n"
	      "with an occupation of 0: in the platform model latency is time in flight,\n"
	      "paid once by a pipelined stream, and the measured bandwidth already holds\n"
	      "the per-byte cost; a per-message occupation is not separable from these\n"
	      "two measurements.  The file opens with comments: the time, the command,\n"
	      "the transport, the hosts and lanes.  Nothing is written when the run fails.\n"
	      "\n"
	      "Missing links: a pair that cannot connect on a lane within --connect-timeout\n"
	      "(all pairs connect at once), or whose first 8-byte ping-pong there does not\n"
	      "come back within it (one per pair and lane, at the start of its round), has\n"
	      "no link on that lane: both directions are written\n"
	      "  nolink U V lane L oneway\n"
	      "(a link cut one way cannot be timed either way), rank 0 names each on\n"
	      "stderr, and the run goes on with the other pairs.  A run in which no pair\n"
	      "connects fails.  A transport that cannot say which peers it connected\n"
	      "(rdma) still fails on the first missing link.\n",
	      out);
}

/* Rank 0 says which round runs (a round takes seconds on slow links). */
static void on_round(uint32_t round, uint32_t rounds, void *arg)
{
	(void)arg;
	fprintf(stderr, "lanebench calibrate: round %u/%u\n", round + 1, rounds);
}

/* The magic line, the provenance as comments, then the platform's text. */
static int write_platform(FILE *f, const struct lb_prov *prov, const char *text)
{
	const char *body = strchr(text, '\n');
	body = body ? body + 1 : text;
	fprintf(f, "%.*s", (int)(body - text), text);
	fputs("# measured by lanebench calibrate: one-way latency and bandwidth per ordered pair and lane\n", f);
	for (size_t i = 0; i < prov->n; i++)
		fprintf(f, "# %s: %s\n", prov->items[i].key, prov->items[i].value);
	fputs(body, f);
	return ferror(f) ? -1 : 0;
}

/* Rank 0 names the pairs written nolink, once per unordered pair and
 * lane (both directions are cut alike). */
static void say_nolinks(const struct lb_cmd *cmd, const struct lb_calib_pairs *c)
{
	for (uint32_t l = 0; l < c->lanes; l++)
		for (uint32_t u = 0; u < c->ranks; u++)
			for (uint32_t v = u + 1; v < c->ranks; v++)
				if (!(c->bandwidth[((size_t)l * c->ranks + u) * c->ranks + v] > 0))
					fprintf(stderr, "lanebench %s: lane %u: ranks %u and %u did not "
						"connect and answer within %g s: written nolink\n",
						cmd->name, l, u, v, c->connect_timeout);
}

/* Rank 0: the figures as a platform file, at -o or on stdout. */
static int save(const struct lb_cmd *cmd, const struct calibrate_opts *o,
		const struct lb_calib_pairs *c, const struct lb_prov *prov)
{
	struct lb_platform *pf = lb_calib_pairs_platform(c);
	char *text = pf ? lb_platform_format(pf) : NULL;
	int to_stdout = !o->output || strcmp(o->output, "-") == 0;
	FILE *f = NULL;
	int rc = text ? 0 : -1;
	if (rc)
		lb_cli_error(cmd, NULL, "out of memory");
	else if (!(f = to_stdout ? stdout : fopen(o->output, "w")))
		rc = -1, lb_cli_error(cmd, "output", "%s: cannot create: %m", o->output);
	else if (write_platform(f, prov, text) != 0 || (to_stdout ? fflush(f) : fclose(f)) != 0)
		rc = -1, lb_cli_error(cmd, "output", "%s: cannot write: %m",
				      to_stdout ? "stdout" : o->output);
	if (rc && f && !to_stdout)
		remove(o->output);
	free(text);
	lb_platform_free(pf);
	return rc ? LB_EXIT_FAILED : 0;
}

static int check_size(const struct lb_cmd *cmd)
{
	const char *from = NULL;
	char err[768];
	uint32_t size = lb_job_launched(&from, err, sizeof(err));
	if (lb_calib_pairs_check(size, err, sizeof(err)) == 0)
		return 0;
	lb_cli_error(cmd, "pairs", "%s", err);
	return LB_EXIT_USAGE;
}

static int calibrate(const struct lb_cmd *cmd, void *base)
{
	const struct calibrate_opts *o = base;
	int rc = lb_cli_require_job(cmd, 2);
	if (rc == 0)
		rc = lb_cli_check_targets(cmd, o->output, NULL) ? LB_EXIT_USAGE : 0;
	if (rc == 0)
		rc = check_size(cmd);
	if (rc)
		return rc;
	struct lb_calib_pairs_params p = {
		.nics = lb_cli_nics(cmd, o->nics), .transport = o->transport,
		.idle = (enum lb_idle)o->idle, .tp_options = o->tpo, .timeout = o->timeout,
		.connect_timeout = o->connect_timeout,
		.bw_bytes = o->calib_size, .window = o->window, .iters = o->iters,
		.on_round = on_round,
	};
	struct lb_calib_pairs c;
	struct lb_prov prov = { 0 };
	char err[768] = "";
	rc = lb_calib_pairs_run(&p, &c, err, sizeof(err));
	if (rc) {
		lb_cli_error(cmd, NULL, "%s", err);
		return lb_cli_exit_status(rc);
	}
	if (c.latency) { /* rank 0 */
		lb_cli_provenance(&prov, cmd, o);
		lb_cli_tp_provenance(&prov, o->transport, &o->tpo);
		lb_prov_add_all(&prov, &c.prov);
		say_nolinks(cmd, &c);
		rc = lb_prov_failed(&prov) ? (lb_cli_error(cmd, NULL, "out of memory"), LB_EXIT_FAILED)
					   : save(cmd, o, &c, &prov);
	}
	lb_prov_free(&prov);
	lb_calib_pairs_free(&c);
	return rc;
}

static int run_calibrate(const struct lb_cmd *cmd, int argc, char **argv)
{
	struct calibrate_opts o = { 0 };
	return lb_cli_run(cmd, argc, argv, &o, calibrate);
}

const struct lb_cmd lb_cmd_calibrate = {
	.name = "calibrate",
	.summary = "measure every ordered pair of the job's ranks per lane; write a platform file",
	.usage = "[--pairs all] [--calib-size BYTES] [--iters N] [-d NICS] [-o FILE] [options]",
	.opts = opts,
	.nopts = sizeof(opts) / sizeof(opts[0]),
	.more_help = calibrate_more_help,
	.run = run_calibrate,
};
