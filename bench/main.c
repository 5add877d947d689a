/* lanebench: dispatch to a subcommand.  Adding a command is one line in
 * the table below (plus its declaration in cli.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "help_gen.h"
#include "lib/wrap.h"
#include "transports/transport.h"

static const struct lb_cmd *const commands[] = {
	&lb_cmd_plan,
	&lb_cmd_sim,
	&lb_cmd_bcast,
	&lb_cmd_tune,
	&lb_cmd_p2p,
	&lb_cmd_calibrate,
	&lb_cmd_compare,
	&lb_cmd_topo,
	&lb_cmd_check,
	&lb_cmd_report,
	&lb_cmd_platform,
	&lb_cmd_lp,
	&lb_cmd_repro,
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

/* The commands and transports, unwrapped. */
static void print_usage(FILE *out)
{
	fprintf(out, "usage: lanebench [--help|--version] <command> [options]\n"
		"       lanebench help [<command>]\n\n%s\ncommands:\n", lb_help_intro);
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(out, "  %-10s %s\n", commands[i]->name, commands[i]->summary);
	fputs("\ntransports built in:\n", out);
	for (size_t i = 0; lb_transports[i]; i++)
		fprintf(out, "  %-10s %s\n", lb_transports[i]->name, lb_transports[i]->summary);
	fprintf(out, "\n'lanebench help <command>' (or 'lanebench <command> --help') describes a\n"
		"command's options; 'man lanebench' all of them.\n\n%s\n%s",
		lb_help_csv_note, lb_help_exit_status);
}

static void usage(FILE *out)
{
	struct lb_wrap w;
	print_usage(lb_wrap_begin(&w, out, lb_wrap_width(out)));
	lb_wrap_end(&w);
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

/* lanebench help [CMD]; the hidden --man and --bash-completion write
 * what meson installs (bench/help_gen.h). */
static int help(int argc, char **argv)
{
	const struct lb_cmd *cmd;
	if (argc == 1) {
		usage(stdout);
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "--man") == 0) {
		lb_help_man(commands, NCOMMANDS, stdout);
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "--bash-completion") == 0) {
		lb_help_bash_completion(commands, NCOMMANDS, stdout);
		return 0;
	}
	if (argc > 2 || !(cmd = find_command(argv[1]))) {
		fprintf(stderr, "lanebench help: %s '%s' (see lanebench --help)\n",
			argc > 2 ? "unexpected argument" : "unknown command", argv[argc > 2 ? 2 : 1]);
		return LB_EXIT_USAGE;
	}
	lb_cli_help(cmd, stdout);
	return 0;
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
	if (strcmp(arg, "help") == 0)
		return help(argc - 1, argv + 1);
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
