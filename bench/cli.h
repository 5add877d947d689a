/* Table-driven option parsing shared by the lanebench subcommands.
 *
 * A subcommand declares its options once, as a static const table; the
 * getopt_long arrays, the setters that store each value and the --help text
 * all come from that table, so names, parsing and help cannot drift.  Values
 * land in the command's own options struct (a table entry names a field by
 * offsetof), so no option state is global.  Defaults are strings in the same
 * table, parsed by the same setter before argv, and shown in --help.
 *
 *	static const struct lb_opt opts[] = {
 *		{ LB_OPT("lanes", 'k', "LANES", "lanes (NICs) per rank", LB_OPT_UINT,
 *			 offsetof(struct plan_opts, lanes)), .def = "2", .min = 1, .max = 64 },
 *		...
 *	};
 */
#ifndef LB_CLI_H
#define LB_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "algos/algos.h"
#include "algos/slice.h"
#include "report/csv.h"
#include "report/json.h"
#include "transports/transport.h"

enum lb_opt_kind {
	LB_OPT_FLAG,       /* int: set to 1; takes no argument */
	LB_OPT_UINT,       /* uint32_t in [min, max] */
	LB_OPT_SIZE,       /* uint64_t bytes, lb_parse_size */
	LB_OPT_SIZE_LIST,  /* struct lb_list of bytes, lb_parse_size_list */
	LB_OPT_SLICE_LIST, /* as LB_OPT_SIZE_LIST, and items "auto" (LB_SLICE_AUTO) */
	LB_OPT_SLICE,      /* uint64_t: a size, or "auto" (LB_SLICE_AUTO) */
	LB_OPT_COUNT_LIST, /* struct lb_list, each value in [min, max] */
	LB_OPT_SECONDS,    /* double seconds, lb_parse_model_time (0, 1 ns .. 1 h) */
	LB_OPT_RATE,       /* double bytes per second, lb_parse_rate (1kbit .. 10tbit) */
	LB_OPT_ENUM,       /* int: index of the argument in choices */
	LB_OPT_STRING,     /* const char *: the argument (points into argv) */
	LB_OPT_HANDLER,    /* handler(target, arg, ...) */
	LB_OPT_MOVED,      /* an option that became `--tp-opt <help>`: refused with its
			    * new spelling (and .hidden from --help) */
};

/* A parsed list; owned by the options struct, freed by lb_cli_free(). */
struct lb_list {
	uint64_t *v;
	size_t n;
};

/* Stores arg at target or returns -1 with a message naming arg in err. */
typedef int (*lb_opt_handler)(void *target, const char *arg,
			      char *err, size_t errlen);

struct lb_opt {
	const char *name;  /* long name without "--" */
	char short_name;   /* 0: long option only */
	const char *arg;   /* argument name for help ("BYTES"); NULL for flags
			    * (and for enums: the choices are shown) */
	const char *help;  /* one line */
	enum lb_opt_kind kind;
	size_t offset;     /* target: offsetof(options struct, field) */
	const char *def;   /* default, parsed before argv; NULL: none */
	uint64_t min, max; /* LB_OPT_UINT, LB_OPT_COUNT_LIST */
	const char *const *choices; /* LB_OPT_ENUM: NULL-terminated */
	lb_opt_handler handler;     /* LB_OPT_HANDLER */
	int required;
	int hidden;        /* left out of --help: an old spelling that is refused */
	/* LB_OPT_HANDLER: the stored value as text, for the provenance
	 * (option.<name>); NULL: recorded as "-" */
	void (*show)(const void *target, struct lb_buf *out);
};

/* The positional part of a table entry; designated fields may follow:
 * { LB_OPT("lanes", 'k', "LANES", "lanes per rank", LB_OPT_UINT, OFF(lanes)),
 *   .def = "2", .min = 1, .max = 64 } */
#define LB_OPT(name_, short_, arg_, help_, kind_, offset_)                  \
	.name = (name_), .short_name = (short_), .arg = (arg_), .help = (help_), \
	.kind = (kind_), .offset = (offset_)

/* `--tp-opt KEY=VALUE`, repeatable, into the struct lb_tp_options at
 * offset `base` of the command's options struct (the transport checks the
 * keys and parses the values when it opens), and the options it replaced,
 * refused with their new spelling. */
#define LB_TP_OPTION_ROWS(base)                                                              \
	{ LB_OPT("tp-opt", 0, "KEY=VALUE", "an option of the transport, repeatable (each transport's keys: below)", \
		 LB_OPT_HANDLER, (base)), .handler = lb_cli_add_tp_option, .show = lb_cli_show_tp_options }, \
	{ LB_OPT("eal", 0, NULL, "eal=ARGS", LB_OPT_MOVED, 0), .hidden = 1 },                                \
	{ LB_OPT("inject", 0, NULL, "inject=FAULTS", LB_OPT_MOVED, 0), .hidden = 1 },                        \
	{ LB_OPT("rdma-op", 0, NULL, "op=OP", LB_OPT_MOVED, 0), .hidden = 1 },                               \
	{ LB_OPT("rdma-ack-timeout", 0, NULL, "ack-timeout=TIME", LB_OPT_MOVED, 0), .hidden = 1 }

/* Handler of --tp-opt: appends the item to a struct lb_tp_options; its
 * show: the items as given, space-separated ("-": none). */
int lb_cli_add_tp_option(void *target, const char *arg, char *err, size_t errlen);
void lb_cli_show_tp_options(const void *target, struct lb_buf *out);

/* For a command's more_help: every built transport's --tp-opt keys, from
 * their tables. */
void lb_cli_list_tp_options(FILE *out);

struct lb_cmd {
	const char *name;    /* "plan" */
	const char *summary; /* one line, for lanebench --help */
	const char *usage;   /* synopsis after "lanebench <name> " */
	const struct lb_opt *opts;
	size_t nopts;
	void (*more_help)(FILE *out); /* printed after the options; may be NULL */
	size_t npositional;        /* words after the options, exactly this many */
	size_t positional_offset;  /* where they go: const char *[npositional] */
	int (*run)(const struct lb_cmd *cmd, int argc, char **argv); /* exit status */
	/* Optional, for options that only some values of the positional words
	 * take: called after a successful parse with given[i] set for each
	 * opts[i] that argv named; nonzero (after printing why with
	 * lb_cli_error) refuses the command line as bad input. */
	int (*check_given)(const struct lb_cmd *cmd, const void *base,
			   const unsigned char *given);
};

/* git describe at build time (bench/version.c.in): "v0.1.0-57-gac65485-dirty". */
extern const char lb_version[];

/* The subcommands (bench/cmd_*.c); bench/main.c lists them in one table. */
extern const struct lb_cmd lb_cmd_plan;
extern const struct lb_cmd lb_cmd_sim;
extern const struct lb_cmd lb_cmd_bcast;
extern const struct lb_cmd lb_cmd_tune;
extern const struct lb_cmd lb_cmd_p2p;
extern const struct lb_cmd lb_cmd_calibrate;
extern const struct lb_cmd lb_cmd_compare;
extern const struct lb_cmd lb_cmd_topo;
extern const struct lb_cmd lb_cmd_check;
extern const struct lb_cmd lb_cmd_report;
extern const struct lb_cmd lb_cmd_platform;
extern const struct lb_cmd lb_cmd_lp;
extern const struct lb_cmd lb_cmd_repro;

enum lb_cli_status {
	LB_CLI_RUN = 0, /* options stored: go on */
	LB_CLI_HELP,    /* --help printed: exit 0 */
	LB_CLI_USAGE,   /* error printed: exit 2 */
};

/* Exit statuses of every command; lanebench --help and docs/guide/failures.md list them. */
#define LB_EXIT_FAILED 1   /* the run failed; the message says why */
#define LB_EXIT_USAGE 2    /* bad command line or input */
#define LB_EXIT_PEER 3     /* stopped because another rank died, disconnected, stopped
			    * answering, or failed itself; the message names it */
#define LB_EXIT_TOO_BIG 4  /* the work cannot fit in this machine's memory (refused
			    * before allocating) */
/* 128 + N: stopped by signal N, after closing the CSV (lib/stop.h). */

/* The exit status of a run that returned rc (0, -1, or LB_EPEER). */
int lb_cli_exit_status(int rc);

/* Largest rank count the commands accept: bounds memory on a typo. */
#define LB_MAX_RANKS (1u << 20)

/* Applies the table's defaults, then parses argv (argv[0] is the command
 * name) into the struct at base.  Errors print one line
 * "lanebench <cmd>: <option>: <message>" on stderr.  Call lb_cli_free()
 * afterwards whatever this returns. */
enum lb_cli_status lb_cli_parse(const struct lb_cmd *cmd, int argc, char **argv,
				void *base);

/* The common shape of a command's run(): parse into base (which holds the
 * initial values of fields without a table default), call body on success,
 * free.  Returns the exit status: body's, 0 after --help, LB_EXIT_USAGE on
 * bad input. */
int lb_cli_run(const struct lb_cmd *cmd, int argc, char **argv, void *base,
	       int (*body)(const struct lb_cmd *cmd, void *base));

/* Frees what parsing allocated in the struct at base (lists). */
void lb_cli_free(const struct lb_cmd *cmd, void *base);

/* Usage, summary, every option of the table with its help and default,
 * then the command's more_help; wrapped to out's width (lib/wrap.h). */
void lb_cli_help(const struct lb_cmd *cmd, FILE *out);

/* The same wrapped at width columns (the man page's text). */
void lb_cli_help_width(const struct lb_cmd *cmd, FILE *out, int width);

/* "lanebench <cmd>: " + message on stderr; for errors found after parsing.
 * With opt_name (a long name of the table) the option is named too. */
void lb_cli_error(const struct lb_cmd *cmd, const char *opt_name,
		  const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Ends a command that writes a CSV (csv may be NULL: no row yet).  rc is
 * the sweep's outcome, why its error (already printed).  Closes the CSV
 * complete if rc is 0 and no signal asked to stop, else as incomplete
 * with the signal's reason or why, and says on stderr how many rows were
 * kept where (not for a closed stdout: that stops quietly).  After a
 * signal the process ends by it; otherwise returns the exit status. */
int lb_cli_finish_csv(const struct lb_cmd *cmd, struct lb_csv *csv, int rc, const char *why);

/* ---- provenance (bench/provenance.c) ---- */

/* main() saves the process's command line for the provenance. */
void lb_cli_save_command_line(int argc, char **argv);

/* Adds the command's part of a result file's provenance to p: version,
 * command (shell-quoted), time_utc (now), and option.<long> for every
 * option of cmd's table as stored in base (defaults included; "-": not
 * given). */
void lb_cli_provenance(struct lb_prov *p, const struct lb_cmd *cmd, const void *base);

/* tp_opt.<key> for every key of the named transport's option table: the
 * value given, else its default, else "-". */
void lb_cli_tp_provenance(struct lb_prov *p, const char *transport,
			  const struct lb_tp_options *given);

/* ---- --json FILE (bench/output.c) ---- */

/* The option's table row; the field is a const char * (NULL: no JSON). */
#define LB_JSON_ROW(offset_)                                                            \
	{ LB_OPT("json", 0, "FILE", "also write the results as one JSON document (results/README.md); "  \
		 "'-': to stdout, the table then to stderr", LB_OPT_STRING, (offset_)) }

struct lb_cli_json {
	const char *path;    /* the option's value */
	struct lb_json *json; /* opened when the run hands over the provenance */
};

/* A sink writing to j (add it to a struct lb_tee beside the others). */
struct lb_sink lb_cli_json_sink(struct lb_cli_json *j);

/* --json - : the document takes stdout. */
int lb_cli_json_to_stdout(const struct lb_cli_json *j);

/* Before the run, so that a run's results are never lost at its end: -o
 * (output) and --json (json; either NULL: not given) are not both "-"
 * (stdout), do not name one file, and each can be created
 * (report/outfile.h: lb_outfile_can_create).  Checked by the process that
 * records (rank 0, or no job); others return 0.  Prints what is wrong,
 * naming the option and path, and returns -1 (a usage error); else 0. */
int lb_cli_check_targets(const struct lb_cmd *cmd, const char *output, const char *json);

/* The same for one more file a command writes (option "html", spelled
 * "--html"): on the recording process, whether path can be created; else
 * prints why, tells the job, and returns -1. */
int lb_cli_check_target(const struct lb_cmd *cmd, const char *option, const char *spelled,
			const char *path);

/* lb_cli_check_targets for j's path and output. */
int lb_cli_check_stdout(const struct lb_cmd *cmd, const struct lb_cli_json *j,
			const char *output);

/* Closes the document: complete when rc is 0 and no signal asked to stop,
 * else with "incomplete" (the signal's reason, or why).  Call before
 * lb_cli_finish_csv (which ends the process after a signal).  Returns 0
 * or LB_EXIT_FAILED (the error printed). */
int lb_cli_finish_json(const struct lb_cmd *cmd, struct lb_cli_json *j, int rc, const char *why);

/* --json FILE of a command whose rows are all at hand (plan, topo, lp):
 * the document of table t (report/json.h: lb_json_write_table, its rows
 * given ctx), with the provenance of cmd's options at base.  0, or -1
 * after saying why, naming --json. */
int lb_cli_write_json(const struct lb_cmd *cmd, const void *base, const char *path,
		      const struct lb_json_table *t, const void *ctx);

/* For commands run by every rank of a job: 0 when this process is a rank
 * of a job of at least min_ranks (from the environment), else prints why
 * and how to launch one, and returns LB_EXIT_USAGE. */
int lb_cli_require_job(const struct lb_cmd *cmd, uint32_t min_ranks);

/* Handler for --timeout: seconds in (0, LB_MAX_TIMEOUT] into a double;
 * a field left at 0 means "not given" (struct lb_job_params.timeout).
 * Its show: "10 s", or "-" when not given. */
int lb_cli_set_timeout(void *target, const char *arg, char *err, size_t errlen);
void lb_cli_show_timeout(const void *target, struct lb_buf *out);

/* The NICs of bcast, p2p and topo (one lane each): -d/--nics LIST, whose
 * default is $LANEBENCH_NICS.  --lanes is the lane count of sim and plan;
 * given to these commands (its old meaning there), it is refused with
 * the new spelling in the message, never taken as a count or a list. */
#define LB_NICS_ROWS(help_, offset_)                                                   \
	{ LB_OPT("nics", 'd', "LIST", help_, LB_OPT_STRING, (offset_)) },              \
	{ LB_OPT("lanes", 'l', "LIST", "", LB_OPT_HANDLER, (offset_)),                 \
	  .handler = lb_cli_refuse_lanes, .hidden = 1 }

/* Handler of the refused --lanes/-l: always an error naming --nics. */
int lb_cli_refuse_lanes(void *target, const char *arg, char *err, size_t errlen);

/* The NIC list: the option's value, else $LANEBENCH_NICS, else the old
 * $LANEBENCH_LANES (read, since ignoring it would silently pick other
 * NICs, with a note on stderr), else NULL: auto. */
const char *lb_cli_nics(const struct lb_cmd *cmd, const char *option);

/* Shared option types for algorithms, from the registry (lb_algos[]). */
#define LB_ALGO_SET_MAX 64

struct lb_algo_set {
	const struct lb_algo *a[LB_ALGO_SET_MAX];
	size_t n;
};

/* Handler: "all" (every algorithm that needs no platform: the platform
 * algorithms of seed 000 only by name) or a comma list of registry names
 * into a struct lb_algo_set, in the order given; its show: the names,
 * comma-separated. */
int lb_cli_set_algos(void *target, const char *arg, char *err, size_t errlen);
/* bcast's: the same, and "auto" first in the list ("auto", "auto,chain"):
 * the engine's lb_coll_auto, chosen per size (engine/coll.h). */
int lb_cli_set_bcast_algos(void *target, const char *arg, char *err, size_t errlen);
void lb_cli_show_algos(const void *target, struct lb_buf *out);

/* The show of a handler that keeps its argument as typed (a const char *):
 * the text, or "-" when not given. */
void lb_cli_show_text(const void *target, struct lb_buf *out);

/* Prints the registry, one "  name  summary" line per algorithm. */
void lb_cli_list_algos(FILE *out);

/* "chain, binary, ..." for messages. */
void lb_cli_algo_names(char *buf, size_t len);

#endif
