/* The man page and the bash completion from the option tables.  See
 * help_gen.h. */
#include <stdlib.h>
#include <string.h>

#include "help_gen.h"
#include "lib/wrap.h"

const char lb_help_intro[] =
	"lanebench benchmarks broadcasts on multi-rail (multi-NIC) clusters: it builds\n"
	"the schedule of each broadcast algorithm, runs it on real transports (one\n"
	"progress thread per NIC) or in a discrete-event simulator, verifies every\n"
	"byte, and sets measured times beside the analytic cost model.\n";

const char lb_help_csv_note[] =
	"CSV rows are written as they are measured.  A run stopped early (Ctrl-C,\n"
	"TERM, HUP, stdout closed, or an error) keeps the rows it finished, and the\n"
	"file's last line says so: '# lanebench: incomplete after N rows: <why>'\n"
	"(results/README.md).\n";

const char lb_help_exit_status[] =
	"exit status: 0 done; 1 the run failed (the reason is on stderr); 2 bad usage\n"
	"(options, or bcast/p2p/check started outside a job);\n"
	"3 stopped because another rank of the job died, disconnected, stopped\n"
	"answering or failed itself (the message names it); 4 the work cannot fit\n"
	"in memory (sim, plan, lp: refused before allocating); 128+N stopped by\n"
	"signal N, after closing the CSV: 130 SIGINT, 143 SIGTERM, 129 SIGHUP,\n"
	"141 stdout closed.\n";

/* Text columns of the man page's indented blocks on an 80-column terminal
 * (man indents a subsection's text by 7 and keeps a margin). */
#define MAN_TEXT_WIDTH 70

/* ---- troff ---- */

/* s as troff text: backslashes and minus signs escaped (so options copy
 * as typed), a control character at a line's start neutralised. */
static void man_escape(FILE *out, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		int line_start = i == 0 || s[i - 1] == '\n';
		if (line_start && (s[i] == '.' || s[i] == '\''))
			fputs("\\&", out);
		if (s[i] == '\\')
			fputs("\\e", out);
		else if (s[i] == '-')
			fputs("\\-", out);
		else
			fputc(s[i], out);
	}
}

/* A usage line, filled: a bracketed group never broken across lines,
 * the leading spaces that aligned it on a terminal dropped. */
static void man_synopsis(FILE *out, const char *s, size_t len)
{
	int depth = 0;
	size_t lead = strspn(s, " ");
	for (size_t i = lead < len ? lead : len; i < len; i++) {
		depth += s[i] == '[' ? 1 : s[i] == ']' ? -1 : 0;
		if (s[i] == ' ' && depth > 0)
			fputs("\\ ", out);
		else
			man_escape(out, s + i, 1);
	}
	fputc('\n', out);
}

static void man_line(FILE *out, const char *s)
{
	man_escape(out, s, strlen(s));
	fputc('\n', out);
}

/* Text that was laid out for a terminal, kept as laid out (no fill),
 * wrapped to the man page's width first. */
static void man_preformatted(FILE *out, const char *text)
{
	char *wrapped = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&wrapped, &len);
	if (!mem)
		return;
	lb_wrap_text(text, MAN_TEXT_WIDTH, mem);
	if (fclose(mem) == 0) {
		fputs(".nf\n", out);
		for (const char *p = wrapped; *p;) {
			size_t n = strcspn(p, "\n");
			if (n == 0)
				fputs(".sp\n", out);
			else
				man_escape(out, p, n), fputc('\n', out);
			p += n + (p[n] == '\n');
		}
		fputs(".fi\n", out);
	}
	free(wrapped);
}

/* What a function prints, as a string (freed by the caller; NULL: none). */
static char *captured(void (*print)(FILE *out), size_t *len)
{
	char *text = NULL;
	FILE *mem = open_memstream(&text, len);
	if (!mem)
		return NULL;
	print(mem);
	if (fclose(mem) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

/* "\fB\-m\fR, \fB\-\-message\-size\fR \fISIZES\fR", "\fB\-\-stripe\fR on|off". */
static void man_opt_tag(FILE *out, const struct lb_opt *o)
{
	fputs(".TP\n", out);
	if (o->short_name)
		fprintf(out, "\\fB\\-%c\\fR, ", o->short_name);
	fputs("\\fB\\-\\-", out);
	man_escape(out, o->name, strlen(o->name));
	fputs("\\fR", out);
	if (o->kind == LB_OPT_ENUM && !o->arg) {
		for (size_t i = 0; o->choices[i]; i++) {
			fputs(i ? "|" : " ", out);
			man_escape(out, o->choices[i], strlen(o->choices[i]));
		}
	} else if (o->arg) {
		fputs(" \\fI", out);
		man_escape(out, o->arg, strlen(o->arg));
		fputs("\\fR", out);
	}
	fputc('\n', out);
}

static void man_option(FILE *out, const struct lb_opt *o)
{
	man_opt_tag(out, o);
	man_escape(out, o->help, strlen(o->help));
	if (o->required)
		fputs(" (required)", out);
	else if (o->def && o->kind != LB_OPT_FLAG) {
		fputs(" (default: ", out);
		man_escape(out, o->def, strlen(o->def));
		fputc(')', out);
	}
	fputc('\n', out);
}

static void man_command(FILE *out, const struct lb_cmd *cmd)
{
	static const struct lb_opt help = { .name = "help", .short_name = 'h',
					    .help = "show this help and exit", .kind = LB_OPT_FLAG };
	fprintf(out, ".SS \"lanebench %s\"\n", cmd->name);
	man_line(out, cmd->summary);
	fputs(".PP\n", out);
	for (const char *u = cmd->usage; *u;) {
		size_t n = strcspn(u, "\n");
		if (u == cmd->usage)
			fprintf(out, "\\fBlanebench %s\\fR ", cmd->name);
		else
			fputs(".br\n", out);
		man_synopsis(out, u, n);
		u += n + (u[n] == '\n');
	}
	for (size_t i = 0; i < cmd->nopts; i++)
		if (!cmd->opts[i].hidden)
			man_option(out, &cmd->opts[i]);
	man_option(out, &help);
	if (cmd->more_help) {
		size_t len;
		char *text = captured(cmd->more_help, &len);
		fputs(".PP\n", out);
		if (text)
			man_preformatted(out, text);
		free(text);
	}
}

static const char *const man_environment[][2] = {
	{ "LANEBENCH_RANK, LANEBENCH_SIZE",
	  "this process's rank and the job's size (bcast, p2p, calibrate, check); else "
	  "SLURM_PROCID/SLURM_NTASKS, OMPI_COMM_WORLD_RANK/OMPI_COMM_WORLD_SIZE or PMI_RANK/PMI_SIZE" },
	{ "LANEBENCH_COORD", "host:port where the ranks meet (rank 0 listens)" },
	{ "LANEBENCH_TOKEN", "the job's shared secret, which every rank presents" },
	{ "LANEBENCH_TIMEOUT", "default of --timeout: the limit for every wait, in seconds" },
	{ "LANEBENCH_NICS", "default of -d/--nics: the NICs, one lane each (LANEBENCH_LANES, its old name, is read with a note)" },
	{ "LANEBENCH_HOST", "the host name recorded in results (default: the network namespace's name, else the host name)" },
	{ "LANEBENCH_TOPOLOGY_XML, HWLOC_XMLFILE", "read the topology from this hwloc XML file instead of the machine" },
};

static void man_tail(FILE *out)
{
	fputs(".SH ENVIRONMENT\n", out);
	for (size_t i = 0; i < sizeof(man_environment) / sizeof(man_environment[0]); i++) {
		fputs(".TP\n.B ", out);
		man_line(out, man_environment[i][0]);
		man_line(out, man_environment[i][1]);
	}
	fputs(".SH EXIT STATUS\n", out);
	man_preformatted(out, lb_help_exit_status);
	fputs(".SH FILES\n.TP\n.I results/<time>\\-<label>.csv\n"
	      "the default CSV file of bcast; every result file's columns and provenance\n"
	      "are described in results/README.md of the source tree.\n"
	      ".SH SEE ALSO\n"
	      "The README and docs/ of the source tree (the user guide, docs/papers.md:\n"
	      "the papers each algorithm comes from).\n", out);
}

void lb_help_man(const struct lb_cmd *const *cmds, size_t ncmds, FILE *out)
{
	fprintf(out, ".\\\" Generated by 'lanebench help --man' from the option tables: do not edit.\n"
		".TH LANEBENCH 1 \"\" \"lanebench %s\" \"User Commands\"\n"
		".SH NAME\nlanebench \\- broadcast benchmarks and acceptance for multi\\-rail clusters\n"
		".SH SYNOPSIS\n.B lanebench\n.RB [ \\-\\-help | \\-\\-version ]\n.I command\n"
		".RI [ options ]\n.br\n.B lanebench help\n.RI [ command ]\n"
		".SH DESCRIPTION\n", lb_version);
	man_line(out, lb_help_intro);
	fputs(".PP\n", out);
	man_line(out, lb_help_csv_note);
	fputs(".PP\n\\fBlanebench help\\fR lists the commands; \\fBlanebench help\\fR \\fIcommand\\fR\n"
	      "(or \\fBlanebench\\fR \\fIcommand\\fR \\fB\\-\\-help\\fR) describes one.\n"
	      ".SH COMMANDS\n", out);
	for (size_t i = 0; i < ncmds; i++)
		man_command(out, cmds[i]);
	man_tail(out);
}

/* ---- bash completion ---- */

static int is_file_arg(const struct lb_opt *o)
{
	return o->arg && (strcmp(o->arg, "FILE") == 0 || strcmp(o->arg, "DIR") == 0);
}

/* The words a value of o may be, space-separated; nothing: any value
 * (a number, a size, a list). */
static void value_words(const struct lb_opt *o, FILE *out)
{
	if (o->kind == LB_OPT_ENUM)
		for (size_t i = 0; o->choices[i]; i++)
			fprintf(out, "%s%s", i ? " " : "", o->choices[i]);
	else if (strcmp(o->name, "transport") == 0)
		for (size_t i = 0; lb_transports[i]; i++)
			fprintf(out, "%s%s", i ? " " : "", lb_transports[i]->name);
	else if (strcmp(o->name, "algorithm") == 0)
		for (size_t i = 0; i < lb_nalgos; i++)
			fprintf(out, "%s%s", i ? " " : "", lb_algos[i].name);
	if (o->kind == LB_OPT_HANDLER && o->handler == lb_cli_set_algos)
		fputs(" all", out);
}

static int has_words(const struct lb_opt *o)
{
	return o->kind == LB_OPT_ENUM || strcmp(o->name, "transport") == 0 ||
	       strcmp(o->name, "algorithm") == 0;
}

enum value_class { VALUE_FILE, VALUE_WORDS, VALUE_ANY };

static enum value_class value_class(const struct lb_opt *o)
{
	return is_file_arg(o) ? VALUE_FILE : has_words(o) ? VALUE_WORDS : VALUE_ANY;
}

static void opt_names(FILE *out, const struct lb_opt *o, const char *sep)
{
	if (o->short_name)
		fprintf(out, "-%c%s", o->short_name, sep);
	fprintf(out, "--%s", o->name);
}

/* "\t\t-o | --output | --json)": the options of a class, as one pattern;
 * 0 when there is none. */
static int value_pattern(FILE *out, const struct lb_cmd *cmd, enum value_class c)
{
	int n = 0;
	for (size_t i = 0; i < cmd->nopts; i++) {
		const struct lb_opt *o = &cmd->opts[i];
		if (o->hidden || o->kind == LB_OPT_FLAG || value_class(o) != c)
			continue;
		fputs(n++ ? " | " : "\t\t", out);
		opt_names(out, o, " | ");
	}
	if (n)
		fputs(")", out);
	return n;
}

/* One command's case: its options for -*, then what follows each option
 * that takes a value: files, its words, or nothing to offer. */
static void completion_command(FILE *out, const struct lb_cmd *cmd)
{
	fprintf(out, "\t%s)\n\t\topts='--help -h", cmd->name);
	for (size_t i = 0; i < cmd->nopts; i++)
		if (!cmd->opts[i].hidden)
			fputc(' ', out), opt_names(out, &cmd->opts[i], " ");
	fputs("'\n\t\tcase $prev in\n", out);
	for (size_t i = 0; i < cmd->nopts; i++) {
		const struct lb_opt *o = &cmd->opts[i];
		if (o->hidden || o->kind == LB_OPT_FLAG || value_class(o) != VALUE_WORDS)
			continue;
		fputs("\t\t", out);
		opt_names(out, o, " | ");
		fputs(") _lanebench_words '", out);
		value_words(o, out);
		fputs("'; return ;;\n", out);
	}
	if (value_pattern(out, cmd, VALUE_FILE))
		fputs(" _lanebench_files; return ;;\n", out);
	if (value_pattern(out, cmd, VALUE_ANY))
		fputs(" COMPREPLY=(); return ;;\n", out);
	fputs("\t\tesac ;;\n", out);
}

void lb_help_bash_completion(const struct lb_cmd *const *cmds, size_t ncmds, FILE *out)
{
	fputs("# bash completion for lanebench.  Generated by 'lanebench help\n"
	      "# --bash-completion' from the option tables: do not edit.\n\n"
	      "_lanebench_words() { # the value's choices; none: nothing to offer\n"
	      "\tlocal w\n"
	      "\tCOMPREPLY=()\n"
	      "\tfor w in $(compgen -W \"$1\" -- \"$cur\"); do COMPREPLY+=(\"$w\"); done\n"
	      "}\n\n"
	      "_lanebench_files() {\n"
	      "\tlocal f\n"
	      "\tCOMPREPLY=()\n"
	      "\twhile IFS= read -r f; do COMPREPLY+=(\"$f\"); done < <(compgen -f -- \"$cur\")\n"
	      "}\n\n"
	      "_lanebench() {\n"
	      "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}\n"
	      "\tlocal commands='help", out);
	for (size_t i = 0; i < ncmds; i++)
		fprintf(out, " %s", cmds[i]->name);
	fputs("' opts\n"
	      "\tif [ \"$COMP_CWORD\" -eq 1 ]; then\n"
	      "\t\t_lanebench_words \"$commands --help --version\"\n"
	      "\t\treturn\n"
	      "\tfi\n"
	      "\tcase ${COMP_WORDS[1]} in\n"
	      "\thelp) _lanebench_words \"$commands\"; return ;;\n", out);
	for (size_t i = 0; i < ncmds; i++)
		completion_command(out, cmds[i]);
	fputs("\t*) return ;;\n"
	      "\tesac\n"
	      "\tif [[ $cur == -* ]]; then\n"
	      "\t\t_lanebench_words \"$opts\"\n"
	      "\telse\n"
	      "\t\t_lanebench_files # positional words: files, a platform's or repro's word\n"
	      "\tfi\n"
	      "}\n"
	      "complete -o filenames -F _lanebench lanebench\n", out);
}
