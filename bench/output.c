/* --json for every command that produces results: a JSON sink opened on
 * the rank that records, when the run hands it the provenance (so the
 * other ranks of a job create nothing), and closed like the CSV. */
#include <limits.h>
#include <signal.h>
#include <string.h>

#include "cli.h"
#include "launch/bootstrap.h"
#include "lib/stop.h"
#include "report/outfile.h"

static int json_provenance(void *ctx, const struct lb_prov *prov, char *err, size_t len)
{
	struct lb_cli_json *j = ctx;
	if (!j->json && !(j->json = lb_json_open(j->path, err, len)))
		return -1;
	lb_stop_arm(); /* results to keep: a signal stops the run */
	return lb_json_sink_provenance(j->json, prov, err, len);
}

static int json_begin(void *ctx, const struct lb_col *cols, size_t ncols, char *err, size_t len)
{
	struct lb_cli_json *j = ctx;
	if (!j->json && json_provenance(j, NULL, err, len))
		return -1;
	return lb_json_sink_begin(j->json, cols, ncols, err, len);
}

static int json_row(void *ctx, const struct lb_result *r, char *err, size_t len)
{
	struct lb_cli_json *j = ctx;
	if (!j->json && json_provenance(j, NULL, err, len))
		return -1;
	if (lb_json_sink_row(j->json, r, err, len) == 0)
		return 0;
	if (!lb_json_reader_gone(j->json))
		return -1;
	lb_stop_request(SIGPIPE); /* the document's reader left: stop, quietly */
	return 0;
}

struct lb_sink lb_cli_json_sink(struct lb_cli_json *j)
{
	return (struct lb_sink){ .provenance = json_provenance, .begin = json_begin,
				 .row = json_row, .ctx = j };
}

int lb_cli_json_to_stdout(const struct lb_cli_json *j)
{
	return j->path && strcmp(j->path, "-") == 0;
}

/* The rank that writes results: rank 0 of a job, or a process outside
 * one.  A bad environment counts as recording: its error comes later. */
static int records_here(void)
{
	struct lb_boot_cfg cfg;
	char err[256];
	return lb_boot_env(&cfg, err, sizeof(err)) != 0 || cfg.rank == 0;
}

/* Rank 0 refuses its targets before the job meets: the other ranks would
 * wait --timeout for it and then blame the network.  It meets them only to
 * say why (they fail with "rank 0 aborted: <why>"), then leaves. */
static void tell_the_job(const char *why)
{
	struct lb_boot_cfg cfg;
	struct lb_boot *b;
	char err[256];
	if (lb_boot_env(&cfg, err, sizeof(err)) || cfg.size < 2 ||
	    lb_boot_open(&cfg, &b, err, sizeof(err)))
		return;
	lb_boot_abort(b, why);
	lb_boot_close(b);
}

static int refuse_target(const struct lb_cmd *cmd, const char *option, const char *spelled,
			 const char *why)
{
	char reason[PATH_MAX + 192];
	lb_cli_error(cmd, option, "cannot create %s", why);
	snprintf(reason, sizeof(reason), "%s: cannot create %s", spelled, why);
	tell_the_job(reason);
	return -1;
}

int lb_cli_check_target(const struct lb_cmd *cmd, const char *option, const char *spelled,
			const char *path)
{
	char err[PATH_MAX + 128];
	if (records_here() && lb_outfile_can_create(path, err, sizeof(err)))
		return refuse_target(cmd, option, spelled, err);
	return 0;
}

int lb_cli_check_targets(const struct lb_cmd *cmd, const char *output, const char *json)
{
	char err[PATH_MAX + 128];
	if (output && json && strcmp(output, "-") == 0 && strcmp(json, "-") == 0)
		return lb_cli_error(cmd, "json", "'-' and -o - both want stdout: give one of them a "
				    "file"), -1;
	if (lb_outfile_same(output, json))
		return lb_cli_error(cmd, "json", "'%s' is the -o file too: one would overwrite the "
				    "other; give each its own file", json), -1;
	if (!records_here())
		return 0;
	if (lb_outfile_can_create(output, err, sizeof(err)))
		return refuse_target(cmd, "output", "-o/--output", err);
	if (lb_outfile_can_create(json, err, sizeof(err)))
		return refuse_target(cmd, "json", "--json", err);
	return 0;
}

int lb_cli_check_stdout(const struct lb_cmd *cmd, const struct lb_cli_json *j,
			const char *output)
{
	return lb_cli_check_targets(cmd, output, j->path);
}

int lb_cli_finish_json(const struct lb_cmd *cmd, struct lb_cli_json *j, int rc, const char *why)
{
	int sig = *lb_stop_flag();
	const char *reason = sig ? lb_stop_reason(sig) : rc ? why : NULL;
	char err[512];
	int closed = reason ? lb_json_close_incomplete(j->json, reason, err, sizeof(err))
			    : lb_json_close(j->json, err, sizeof(err));
	j->json = NULL;
	if (closed)
		lb_cli_error(cmd, "json", "%s", err);
	return closed ? LB_EXIT_FAILED : 0;
}

int lb_cli_write_json(const struct lb_cmd *cmd, const void *base, const char *path,
		      const struct lb_json_table *t, const void *ctx)
{
	char err[512];
	struct lb_prov prov = { 0 };
	lb_cli_provenance(&prov, cmd, base);
	int rc = lb_json_write_table(path, &prov, t, ctx, err, sizeof(err));
	lb_prov_free(&prov);
	if (rc)
		lb_cli_error(cmd, "json", "%s", err);
	return rc;
}
