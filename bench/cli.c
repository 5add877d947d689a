/* Option tables -> getopt_long, setters and help.  See cli.h. */
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "lib/error.h"
#include "engine/job.h"
#include "engine/coll.h"
#include "lib/stop.h"
#include "lib/units.h"
#include "lib/wrap.h"

/* getopt's value for a long-only option: past every char. */
#define LONG_ONLY_BASE 256

typedef int (*setter_fn)(const struct lb_opt *o, void *target, const char *arg,
			 char *err, size_t errlen);

static void *field(void *base, const struct lb_opt *o)
{
	return (char *)base + o->offset;
}

static int takes_arg(const struct lb_opt *o)
{
	return o->kind != LB_OPT_FLAG;
}

/* getopt's has_arg: a moved option is refused with or without one. */
static int getopt_has_arg(const struct lb_opt *o)
{
	return o->kind == LB_OPT_MOVED ? optional_argument : takes_arg(o);
}

/* "-m/--message-size" or "--slice". */
static void opt_label(const struct lb_opt *o, char *buf, size_t len)
{
	if (o->short_name)
		snprintf(buf, len, "-%c/--%s", o->short_name, o->name);
	else
		snprintf(buf, len, "--%s", o->name);
}

static void verror(const struct lb_cmd *cmd, const struct lb_opt *o,
		   const char *fmt, va_list ap)
{
	char label[64];
	fprintf(stderr, "lanebench %s: ", cmd->name);
	if (o) {
		opt_label(o, label, sizeof(label));
		fprintf(stderr, "%s: ", label);
	}
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

static const struct lb_opt *find_opt(const struct lb_cmd *cmd, const char *name)
{
	for (size_t i = 0; name && i < cmd->nopts; i++)
		if (strcmp(cmd->opts[i].name, name) == 0)
			return &cmd->opts[i];
	return NULL;
}

void lb_cli_error(const struct lb_cmd *cmd, const char *opt_name,
		  const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	verror(cmd, find_opt(cmd, opt_name), fmt, ap);
	va_end(ap);
}

int lb_cli_exit_status(int rc)
{
	if (rc == LB_EINPUT)
		return LB_EXIT_USAGE;
	return rc == 0 ? 0 : rc == LB_EPEER ? LB_EXIT_PEER : LB_EXIT_FAILED;
}

/* ---- setters, one per kind ---- */

static int set_flag(const struct lb_opt *o, void *t, const char *arg,
		    char *err, size_t errlen)
{
	*(int *)t = 1;
	return 0;
}

static int set_uint(const struct lb_opt *o, void *t, const char *arg,
		    char *err, size_t errlen)
{
	uint64_t v;
	if (lb_parse_uint(arg, o->min, o->max, &v, err, errlen))
		return -1;
	*(uint32_t *)t = (uint32_t)v;
	return 0;
}

static int set_size(const struct lb_opt *o, void *t, const char *arg,
		    char *err, size_t errlen)
{
	return lb_parse_size(arg, t, err, errlen);
}

static void replace_list(struct lb_list *l, uint64_t *v, size_t n)
{
	free(l->v);
	l->v = v;
	l->n = n;
}

static int set_size_list(const struct lb_opt *o, void *t, const char *arg,
			 char *err, size_t errlen)
{
	uint64_t *v;
	size_t n;
	if (lb_parse_size_list(arg, &v, &n, err, errlen))
		return -1;
	replace_list(t, v, n);
	return 0;
}

/* One item of a slice list: "auto", or sizes and ranges, appended to *v. */
static int add_slice_item(const char *item, uint64_t **v, size_t *n, char *err, size_t errlen)
{
	uint64_t *sizes = NULL, *grown;
	size_t nsizes = 1;
	if (strcmp(item, "auto") != 0 && lb_parse_size_list(item, &sizes, &nsizes, err, errlen))
		return -1;
	if (*n + nsizes > LB_LIST_MAX || !(grown = realloc(*v, (*n + nsizes) * sizeof(**v)))) {
		free(sizes);
		return lb_errf(err, errlen, "bad slice list: expected at most %d values", LB_LIST_MAX);
	}
	for (size_t i = 0; i < nsizes; i++)
		grown[*n + i] = sizes ? sizes[i] : LB_SLICE_AUTO;
	*v = grown;
	*n += nsizes;
	free(sizes);
	return 0;
}

/* "auto,64K,1M:4M": sizes and ranges as a size list, "auto" as LB_SLICE_AUTO. */
static int set_slice_list(const struct lb_opt *o, void *t, const char *arg,
			  char *err, size_t errlen)
{
	char *copy = strdup(arg), *save = NULL;
	uint64_t *v = NULL;
	size_t n = 0;
	int rc = copy ? 0 : lb_errf(err, errlen, "out of memory");
	if (rc == 0 && (arg[0] == '\0' || arg[0] == ',' || arg[strlen(arg) - 1] == ',' || strstr(arg, ",,")))
		rc = lb_errf(err, errlen, "bad slice list '%s': expected comma-separated sizes, ranges A:B or auto, found an empty item", arg);
	for (char *item = rc ? NULL : strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save))
		if ((rc = add_slice_item(item, &v, &n, err, errlen)))
			break;
	free(copy);
	if (rc) {
		free(v);
		return -1;
	}
	replace_list(t, v, n);
	return 0;
}

/* A size, or "auto". */
static int set_slice(const struct lb_opt *o, void *t, const char *arg, char *err, size_t errlen)
{
	if (strcmp(arg, "auto") != 0)
		return lb_parse_size(arg, t, err, errlen);
	*(uint64_t *)t = LB_SLICE_AUTO;
	return 0;
}

static int set_count_list(const struct lb_opt *o, void *t, const char *arg,
			  char *err, size_t errlen)
{
	uint64_t *v;
	size_t n;
	if (lb_parse_count_list(arg, &v, &n, err, errlen))
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (v[i] < o->min || v[i] > o->max) {
			snprintf(err, errlen, "bad count '%llu' in '%s': expected whole numbers from %llu to %llu",
				 (unsigned long long)v[i], arg,
				 (unsigned long long)o->min, (unsigned long long)o->max);
			free(v);
			return -1;
		}
	}
	replace_list(t, v, n);
	return 0;
}

static int set_seconds(const struct lb_opt *o, void *t, const char *arg,
		       char *err, size_t errlen)
{
	return lb_parse_model_time(arg, t, err, errlen);
}

static int set_rate(const struct lb_opt *o, void *t, const char *arg,
		    char *err, size_t errlen)
{
	return lb_parse_rate(arg, t, err, errlen);
}

static void join_choices(const char *const *c, const char *sep, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (size_t i = 0; c[i] && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? sep : "", c[i]);
}

static int set_enum(const struct lb_opt *o, void *t, const char *arg,
		    char *err, size_t errlen)
{
	char all[128];
	for (int i = 0; o->choices[i]; i++) {
		if (strcmp(o->choices[i], arg) == 0) {
			*(int *)t = i;
			return 0;
		}
	}
	join_choices(o->choices, ", ", all, sizeof(all));
	snprintf(err, errlen, "bad value '%s': expected one of %s", arg, all);
	return -1;
}

static int set_string(const struct lb_opt *o, void *t, const char *arg,
		      char *err, size_t errlen)
{
	*(const char **)t = arg;
	return 0;
}

static int set_handler(const struct lb_opt *o, void *t, const char *arg,
		       char *err, size_t errlen)
{
	return o->handler(t, arg, err, errlen);
}

static const setter_fn setters[] = {
	[LB_OPT_FLAG] = set_flag,
	[LB_OPT_UINT] = set_uint,
	[LB_OPT_SIZE] = set_size,
	[LB_OPT_SIZE_LIST] = set_size_list,
	[LB_OPT_SLICE_LIST] = set_slice_list,
	[LB_OPT_SLICE] = set_slice,
	[LB_OPT_COUNT_LIST] = set_count_list,
	[LB_OPT_SECONDS] = set_seconds,
	[LB_OPT_RATE] = set_rate,
	[LB_OPT_ENUM] = set_enum,
	[LB_OPT_STRING] = set_string,
	[LB_OPT_HANDLER] = set_handler,
};

/* Runs o's setter; on error prints the one-line message. */
static int apply(const struct lb_cmd *cmd, const struct lb_opt *o, void *base,
		 const char *arg)
{
	char err[512] = "";
	if (setters[o->kind](o, field(base, o), arg, err, sizeof(err)) == 0)
		return 0;
	lb_cli_error(cmd, o->name, "%s", err);
	return -1;
}

/* ---- parsing ---- */

/* The getopt_long view of the table, plus -h/--help. */
struct getopt_view {
	struct option *longs;
	char *shorts;
};

static int build_view(const struct lb_cmd *cmd, struct getopt_view *v)
{
	size_t n = cmd->nopts, k = 0;
	v->longs = calloc(n + 2, sizeof(*v->longs));
	v->shorts = malloc(2 * n + 4);
	if (!v->longs || !v->shorts)
		return -1;
	v->shorts[k++] = ':'; /* report a missing argument as ':' */
	for (size_t i = 0; i < n; i++) {
		const struct lb_opt *o = &cmd->opts[i];
		v->longs[i] = (struct option){ o->name, getopt_has_arg(o), NULL,
					      o->short_name ? o->short_name
							    : LONG_ONLY_BASE + (int)i };
		if (o->short_name) {
			v->shorts[k++] = o->short_name;
			if (takes_arg(o))
				v->shorts[k++] = ':';
		}
	}
	v->longs[n] = (struct option){ "help", no_argument, NULL, 'h' };
	v->shorts[k++] = 'h';
	v->shorts[k] = '\0';
	return 0;
}

static const struct lb_opt *opt_by_val(const struct lb_cmd *cmd, int val)
{
	if (val >= LONG_ONLY_BASE && (size_t)(val - LONG_ONLY_BASE) < cmd->nopts)
		return &cmd->opts[val - LONG_ONLY_BASE];
	for (size_t i = 0; i < cmd->nopts; i++)
		if (val && cmd->opts[i].short_name == val)
			return &cmd->opts[i];
	return NULL;
}

static enum lb_cli_status apply_defaults(const struct lb_cmd *cmd, void *base)
{
	for (size_t i = 0; i < cmd->nopts; i++) {
		const struct lb_opt *o = &cmd->opts[i];
		if (o->def && takes_arg(o) && apply(cmd, o, base, o->def))
			return LB_CLI_USAGE; /* a bug in the table */
	}
	return LB_CLI_RUN;
}

/* What getopt refused, named as the user typed it.  glibc sets optopt to
 * the option's value for a missing or unwanted argument, to the character
 * for an unknown short option, and to 0 for an unknown long option. */
static void bad_option(const struct lb_cmd *cmd, int c, char **argv)
{
	const struct lb_opt *o = opt_by_val(cmd, optopt);
	if (c == ':' && o)
		lb_cli_error(cmd, o->name, "needs an argument (see lanebench %s --help)",
			     cmd->name);
	else if (o)
		lb_cli_error(cmd, o->name, "takes no argument (got '%s')", argv[optind - 1]);
	else if (optopt > 0 && optopt < LONG_ONLY_BASE)
		lb_cli_error(cmd, NULL, "unknown option '-%c' (see lanebench %s --help)",
			     optopt, cmd->name);
	else
		lb_cli_error(cmd, NULL, "unknown option '%s' (see lanebench %s --help)",
			     argv[optind - 1], cmd->name);
}

/* Words after the options: exactly cmd->npositional of them, stored as
 * const char * in the array at cmd->positional_offset. */
static enum lb_cli_status take_positional(const struct lb_cmd *cmd, int argc, char **argv,
					  void *base)
{
	size_t have = (size_t)(argc - optind);
	if (have > cmd->npositional) {
		lb_cli_error(cmd, NULL, "unexpected argument '%s' (see lanebench %s --help)",
			     argv[optind + cmd->npositional], cmd->name);
		return LB_CLI_USAGE;
	}
	if (have < cmd->npositional) {
		lb_cli_error(cmd, NULL, "needs %zu arguments: %s (see lanebench %s --help)",
			     cmd->npositional, cmd->usage, cmd->name);
		return LB_CLI_USAGE;
	}
	const char **out = (const char **)((char *)base + cmd->positional_offset);
	for (size_t i = 0; i < have; i++)
		out[i] = argv[optind + (int)i];
	return LB_CLI_RUN;
}

static enum lb_cli_status run_getopt(const struct lb_cmd *cmd, int argc, char **argv,
				     void *base, const struct getopt_view *v,
				     unsigned char *seen)
{
	int c;
	opterr = 0;
	optind = 0; /* glibc and musl: restart scanning from argv[1] */
	while ((c = getopt_long(argc, argv, v->shorts, v->longs, NULL)) != -1) {
		const struct lb_opt *o = opt_by_val(cmd, c);
		if (c == 'h') {
			lb_cli_help(cmd, stdout);
			return LB_CLI_HELP;
		}
		if (c == '?' || c == ':' || !o) {
			bad_option(cmd, c, argv);
			return LB_CLI_USAGE;
		}
		if (o->kind == LB_OPT_MOVED) {
			lb_cli_error(cmd, NULL, "--%s is now --tp-opt %s (see lanebench %s --help)",
				     o->name, o->help, cmd->name);
			return LB_CLI_USAGE;
		}
		if (apply(cmd, o, base, optarg))
			return LB_CLI_USAGE;
		seen[o - cmd->opts] = 1;
	}
	return take_positional(cmd, argc, argv, base);
}

static enum lb_cli_status check_required(const struct lb_cmd *cmd,
					 const unsigned char *seen)
{
	for (size_t i = 0; i < cmd->nopts; i++) {
		if (cmd->opts[i].required && !seen[i]) {
			lb_cli_error(cmd, cmd->opts[i].name, "missing (required; see lanebench %s --help)",
				     cmd->name);
			return LB_CLI_USAGE;
		}
	}
	return LB_CLI_RUN;
}

enum lb_cli_status lb_cli_parse(const struct lb_cmd *cmd, int argc, char **argv,
				void *base)
{
	struct getopt_view v = { 0 };
	unsigned char *seen = calloc(cmd->nopts + 1, 1);
	enum lb_cli_status st = LB_CLI_USAGE;
	if (!seen || build_view(cmd, &v))
		lb_cli_error(cmd, NULL, "out of memory");
	else if ((st = apply_defaults(cmd, base)) == LB_CLI_RUN &&
		 (st = run_getopt(cmd, argc, argv, base, &v, seen)) == LB_CLI_RUN &&
		 (st = check_required(cmd, seen)) == LB_CLI_RUN && cmd->check_given &&
		 cmd->check_given(cmd, base, seen))
		st = LB_CLI_USAGE;
	free(v.longs);
	free(v.shorts);
	free(seen);
	return st;
}

int lb_cli_run(const struct lb_cmd *cmd, int argc, char **argv, void *base,
	       int (*body)(const struct lb_cmd *cmd, void *base))
{
	enum lb_cli_status st = lb_cli_parse(cmd, argc, argv, base);
	int rc = st == LB_CLI_RUN ? body(cmd, base) : st == LB_CLI_HELP ? 0 : LB_EXIT_USAGE;
	lb_cli_free(cmd, base);
	return rc;
}

void lb_cli_free(const struct lb_cmd *cmd, void *base)
{
	for (size_t i = 0; i < cmd->nopts; i++) {
		const struct lb_opt *o = &cmd->opts[i];
		if (o->kind == LB_OPT_SIZE_LIST || o->kind == LB_OPT_SLICE_LIST ||
		    o->kind == LB_OPT_COUNT_LIST)
			replace_list(field(base, o), NULL, 0);
	}
}

/* ---- help ---- */

/* "  -m, --message-size BYTES" or "      --stripe on|off". */
static void opt_synopsis(const struct lb_opt *o, char *buf, size_t len)
{
	char arg[128] = "";
	if (o->kind == LB_OPT_ENUM && !o->arg)
		join_choices(o->choices, "|", arg, sizeof(arg));
	else if (o->arg)
		snprintf(arg, sizeof(arg), "%s", o->arg);
	if (o->short_name)
		snprintf(buf, len, "  -%c, --%s%s%s", o->short_name, o->name,
			 arg[0] ? " " : "", arg);
	else
		snprintf(buf, len, "      --%s%s%s", o->name, arg[0] ? " " : "", arg);
}

/* Help column: wide enough for most synopses; longer ones get their own line. */
#define HELP_COLUMN 30

static void print_opt_help(FILE *out, const char *syn, const struct lb_opt *o)
{
	if (strlen(syn) + 2 > HELP_COLUMN)
		fprintf(out, "%s\n%*s", syn, HELP_COLUMN, "");
	else
		fprintf(out, "%-*s", HELP_COLUMN, syn);
	fputs(o->help, out);
	if (o->required)
		fputs(" (required)", out);
	else if (o->def && takes_arg(o))
		fprintf(out, " (default: %s)", o->def);
	fputc('\n', out);
}

/* The help, unwrapped: lines as long as their text. */
static void print_help(const struct lb_cmd *cmd, FILE *out)
{
	static const struct lb_opt help = { .name = "help", .short_name = 'h',
					    .help = "show this help and exit",
					    .kind = LB_OPT_FLAG };
	char syn[256];
	fprintf(out, "usage: lanebench %s %s\n\n%s\n\noptions:\n", cmd->name,
		cmd->usage, cmd->summary);
	for (size_t i = 0; i < cmd->nopts; i++) {
		if (cmd->opts[i].hidden)
			continue;
		opt_synopsis(&cmd->opts[i], syn, sizeof(syn));
		print_opt_help(out, syn, &cmd->opts[i]);
	}
	opt_synopsis(&help, syn, sizeof(syn));
	print_opt_help(out, syn, &help);
	if (cmd->more_help) {
		fputc('\n', out);
		cmd->more_help(out);
	}
}

void lb_cli_help(const struct lb_cmd *cmd, FILE *out)
{
	lb_cli_help_width(cmd, out, lb_wrap_width(out));
}

void lb_cli_help_width(const struct lb_cmd *cmd, FILE *out, int width)
{
	struct lb_wrap w;
	print_help(cmd, lb_wrap_begin(&w, out, width));
	lb_wrap_end(&w);
}

/* ---- transport options, from the transports' tables ---- */

int lb_cli_add_tp_option(void *target, const char *arg, char *err, size_t errlen)
{
	return lb_tp_options_add(target, arg, err, errlen);
}

void lb_cli_show_tp_options(const void *target, struct lb_buf *out)
{
	const struct lb_tp_options *o = target;
	for (uint32_t i = 0; i < o->n; i++)
		lb_buf_add(out, "%s%s", i ? " " : "", o->item[i]);
	if (o->n == 0)
		lb_buf_add(out, "-");
}

/* "  dpdk eal=ARGS    help (default: ...)"; "  tcp    no options". */
void lb_cli_list_tp_options(FILE *out)
{
	char syn[128];
	fputs("transport options (--tp-opt KEY=VALUE; a transport refuses keys not its own):\n", out);
	for (size_t i = 0; lb_transports[i]; i++) {
		const struct lb_transport *t = lb_transports[i];
		const struct lb_tp_option *o = t->options;
		if (!o || !o->key)
			fprintf(out, "  %-*s%s\n", HELP_COLUMN - 2, t->name, "no options");
		for (; o && o->key; o++) {
			struct lb_opt row = { .help = o->help, .def = o->def, .kind = LB_OPT_STRING };
			snprintf(syn, sizeof(syn), "  %s %s=%s", t->name, o->key, o->arg);
			print_opt_help(out, syn, &row);
		}
	}
}

/* ---- algorithms, from the registry ---- */

void lb_cli_algo_names(char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < lb_nalgos && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
					 lb_algos[i].name);
}

void lb_cli_list_algos(FILE *out)
{
	int w = 0;
	for (size_t i = 0; i < lb_nalgos; i++)
		if ((int)strlen(lb_algos[i].name) > w)
			w = (int)strlen(lb_algos[i].name);
	for (size_t i = 0; i < lb_nalgos; i++)
		fprintf(out, "  %-*s  %s%s\n", w, lb_algos[i].name, lb_algos[i].summary,
			lb_algos[i].needs ? " (needs --platform)" : "");
}

static int add_algo(struct lb_algo_set *set, const char *name, size_t len,
		    const char *arg, char *err, size_t errlen)
{
	for (size_t i = 0; i < lb_nalgos; i++) {
		if (strlen(lb_algos[i].name) != len || strncmp(lb_algos[i].name, name, len))
			continue;
		for (size_t j = 0; j < set->n; j++)
			if (set->a[j] == &lb_algos[i])
				return 0; /* listed twice: run once */
		if (set->n == LB_ALGO_SET_MAX)
			break;
		set->a[set->n++] = &lb_algos[i];
		return 0;
	}
	/* the 30-odd names do not fit an error line; --help lists them, each explained */
	snprintf(err, errlen, "unknown algorithm '%.*s' in '%s': expected all or a comma list of "
		 "the algorithms --help lists", (int)len, name, arg);
	return -1;
}

/* The comma list's items in [p, end) added to set (all: the homogeneous
 * broadcasts, the others needing a platform or being other collectives);
 * an error names the item and the whole argument, arg. */
static int add_items(struct lb_algo_set *set, const char *p, const char *end, const char *arg,
		     char *err, size_t errlen)
{
	if (end - p == 3 && strncmp(p, "all", 3) == 0) {
		for (size_t i = 0; i < lb_nalgos; i++)
			if (lb_algo_homogeneous_bcast(&lb_algos[i]))
				(void)add_algo(set, lb_algos[i].name, strlen(lb_algos[i].name), arg,
					       err, errlen); /* known; a full set keeps what fits */
		return 0;
	}
	for (;; p++) {
		size_t len = strcspn(p, ",");
		len = len < (size_t)(end - p) ? len : (size_t)(end - p);
		if (add_algo(set, p, len, arg, err, errlen))
			return -1;
		p += len;
		if (p >= end)
			return 0;
	}
}

/* "interrupted (SIGINT): kept 12 rows in f.csv, marked incomplete", said
 * once the file is closed: a full disk may have discarded it. */
static void say_kept(const struct lb_cmd *cmd, uint64_t rows, const char *path,
		     const char *reason, int closed)
{
	if (rows && !closed)
		lb_cli_error(cmd, NULL, "%s: kept %llu rows in %s, marked incomplete", reason,
			     (unsigned long long)rows, path);
	else
		lb_cli_error(cmd, NULL, "%s: %s, no file written", reason,
			     rows ? "writing it failed" : "no row finished");
}

int lb_cli_finish_csv(const struct lb_cmd *cmd, struct lb_csv *csv, int rc, const char *why)
{
	int sig = *lb_stop_flag();
	const char *reason = sig ? lb_stop_reason(sig) : rc ? why : NULL;
	char err[512], path[512];
	uint64_t rows = lb_csv_rows(csv);
	snprintf(path, sizeof(path), "%s", csv ? lb_csv_path(csv) : "");
	int closed = reason ? lb_csv_close_incomplete(csv, reason, err, sizeof(err))
			    : lb_csv_close(csv, err, sizeof(err));
	if (closed)
		lb_cli_error(cmd, "output", "%s", err);
	if (reason && sig != SIGPIPE && csv)
		say_kept(cmd, rows, path, sig ? reason : "the run failed", closed);
	if (sig)
		lb_stop_exit(sig);
	return closed ? LB_EXIT_FAILED : lb_cli_exit_status(rc);
}

int lb_cli_require_job(const struct lb_cmd *cmd, uint32_t min_ranks)
{
	const char *from = NULL;
	char err[768];
	uint32_t size = lb_job_launched(&from, err, sizeof(err));
	if (size == 0) {
		lb_cli_error(cmd, NULL, "%s", err);
		return LB_EXIT_USAGE;
	}
	if (size < min_ranks) {
		lb_cli_error(cmd, NULL, "needs a job of at least %u ranks, this one has %u (%s=%u)",
			     min_ranks, size, from, size);
		return LB_EXIT_USAGE;
	}
	return 0;
}

int lb_cli_set_timeout(void *target, const char *arg, char *err, size_t errlen)
{
	double t;
	if (lb_parse_seconds(arg, &t, err, errlen))
		return -1;
	if (!(t > 0 && t <= LB_MAX_TIMEOUT))
		return lb_errf(err, errlen, "bad timeout '%s': expected more than 0 and at most %.0f s",
			       arg, LB_MAX_TIMEOUT);
	*(double *)target = t;
	return 0;
}

void lb_cli_show_timeout(const void *target, struct lb_buf *out)
{
	char s[32];
	double t = *(const double *)target;
	lb_format_seconds(t, s, sizeof(s));
	lb_buf_add(out, "%s", t > 0 ? s : "-");
}

int lb_cli_refuse_lanes(void *target, const char *arg, char *err, size_t errlen)
{
	return lb_errf(err, errlen, "counts lanes in sim and plan; bcast, p2p and topo take the "
		       "NIC list as -d/--nics (here: --nics %s)", arg);
}

const char *lb_cli_nics(const struct lb_cmd *cmd, const char *option)
{
	const char *nics = option ? option : getenv("LANEBENCH_NICS");
	const char *old = getenv("LANEBENCH_LANES");
	if (nics || !old)
		return nics;
	lb_cli_error(cmd, NULL, "LANEBENCH_LANES is now LANEBENCH_NICS: taking the NICs '%s' "
		     "from it; set LANEBENCH_NICS instead", old);
	return old;
}

void lb_cli_show_text(const void *target, struct lb_buf *out)
{
	const char *text = *(const char *const *)target;
	lb_buf_add(out, "%s", text ? text : "-");
}

void lb_cli_show_algos(const void *target, struct lb_buf *out)
{
	const struct lb_algo_set *set = target;
	for (size_t i = 0; i < set->n; i++)
		lb_buf_add(out, "%s%s", i ? "," : "", set->a[i]->name);
}

/* Where "auto" stands in a comma list: its offset, or NULL. */
static const char *auto_item(const char *arg)
{
	for (const char *p = arg;; p++) {
		size_t len = strcspn(p, ",");
		if (len == 4 && strncmp(p, "auto", 4) == 0)
			return p;
		p += len;
		if (!*p)
			return NULL;
	}
}

/* The list without its auto item: the algorithms before it, then those
 * after it (each once), and auto where it stood -- so that a benchmark can
 * place auto's rows anywhere in the job's order. */
int lb_cli_set_bcast_algos(void *target, const char *arg, char *err, size_t errlen)
{
	const char *at = auto_item(arg);
	if (!at)
		return lb_cli_set_algos(target, arg, err, errlen);
	struct lb_algo_set set = { .n = 0 };
	if (at > arg && add_items(&set, arg, at - 1, arg, err, errlen))
		return -1;
	size_t pos = set.n;
	if (at[4] && auto_item(at + 5))
		return lb_errf(err, errlen, "auto is listed twice in '%s'", arg);
	if (at[4] && add_items(&set, at + 5, at + strlen(at), arg, err, errlen))
		return -1;
	if (set.n == LB_ALGO_SET_MAX)
		return lb_errf(err, errlen, "more than %d algorithms", LB_ALGO_SET_MAX - 1);
	memmove(set.a + pos + 1, set.a + pos, (set.n - pos) * sizeof(set.a[0]));
	set.a[pos] = &lb_coll_auto;
	set.n++;
	*(struct lb_algo_set *)target = set;
	return 0;
}

int lb_cli_set_algos(void *target, const char *arg, char *err, size_t errlen)
{
	struct lb_algo_set set = { .n = 0 };
	if (add_items(&set, arg, arg + strlen(arg), arg, err, errlen))
		return -1;
	*(struct lb_algo_set *)target = set;
	return 0;
}
