/* lanebench: dispatch to a subcommand.  Adding a command is one line in
 * the table below (plus its declaration in cli.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "transports/transport.h"

static const struct lb_cmd *const commands[] = {
	&lb_cmd_plan,
	&lb_cmd_sim,
	&lb_cmd_bcast,
	&lb_cmd_p2p,
	&lb_cmd_calibrate,
	&lb_cmd_compare,
	&lb_cmd_topo,
	&lb_cmd_check,
	&lb_cmd_platform,
	&lb_cmd_lp,
	&lb_cmd_repro,
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *out)
{
	fputs("usage: lanebench [--help|--version] <command> [options]\n\n"
	      "lanebench benchmarks broadcasts on multi-rail (multi-NIC) clusters: it builds\n"
	      "the schedule of each broadcast algorithm, runs it on real transports (one\n"
	      "progress thread per NIC) or in a discrete-event simulator, verifies every\n"
	      "byte, and sets measured times beside the analytic cost model.\n\n"
	      "commands:\n", out);
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(out, "  %-10s %s\n", commands[i]->name, commands[i]->summary);
	fputs("\ntransports built in:\n", out);
	for (size_t i = 0; lb_transports[i]; i++)
		fprintf(out, "  %-10s %s\n", lb_transports[i]->name, lb_transports[i]->summary);
	fputs("\n'lanebench <command> --help' describes a command's options.\n\n"
	      "CSV rows are written as they are measured.  A run stopped early (Ctrl-C,\n"
	      "TERM, HUP, stdout closed, or an error) keeps the rows it finished, and the\n"
	      "file's last line says so: '# lanebench: incomplete after N rows: <why>'\n"
	      "(results/README.md).\n\n"
	      "exit status: 0 done; 1 the run failed (the reason is on stderr); 2 bad usage\n"
	      "(options, or bcast/p2p/check started outside a job);\n"
	      "3 stopped because another rank of the job died, disconnected, stopped\n"
	      "answering or failed itself (the message names it); 4 the work cannot fit\n"
	      "in memory (sim, refused before allocating); 128+N stopped by signal N,\n"
	      "after closing the CSV: 130 SIGINT, 143 SIGTERM, 129 SIGHUP, 141 stdout closed.\n", out);
}

static const struct lb_cmd *find_command(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (strcmp(commands[i]->name, name) == 0)
			return commands[i];
	return NULL;
}

/* Every command's last word: what it printed reached stdout, or the run
 * failed -- a table, help or report lost to a full disk or /dev/full
 * must not exit 0.  (A reader that left is a stop, exit 141, seen by the
 * writer that met EPIPE.) */
static int finish_stdout(int rc)
{
	if (rc != 0)
		return rc; /* failed already, said why (a CSV on stdout: its writer) */
	int failed = ferror(stdout);
	errno = 0;
	failed |= fflush(stdout) == EOF;
	if (!failed || errno == EPIPE)
		return 0;
	/* errno 0: an earlier write failed (its error is gone), the flush did not */
	fprintf(stderr, "lanebench: writing standard output: %s\n",
		errno ? strerror(errno) : "a write failed");
	return LB_EXIT_FAILED;
}

static int dispatch(int argc, char **argv)
{
	const char *arg = argc > 1 ? argv[1] : NULL;
	const struct lb_cmd *cmd;
	lb_cli_save_command_line(argc, argv);
	if (!arg) {
		usage(stderr);
		return LB_EXIT_USAGE;
	}
	if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(arg, "--version") == 0 || strcmp(arg, "-V") == 0) {
		printf("lanebench %s\n", lb_version);
		return 0;
	}
	if (arg[0] == '-') {
		fprintf(stderr, "lanebench: unknown option '%s' (see lanebench --help)\n", arg);
		return LB_EXIT_USAGE;
	}
	if (!(cmd = find_command(arg))) {
		fprintf(stderr, "lanebench: unknown command '%s' (see lanebench --help)\n", arg);
		return LB_EXIT_USAGE;
	}
	return cmd->run(cmd, argc - 1, argv + 1);
}

int main(int argc, char **argv)
{
	return finish_stdout(dispatch(argc, argv));
}
