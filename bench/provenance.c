/* The command's part of a result file's provenance (lib/prov.h): version,
 * command line, start time, every option of the table as resolved and
 * the transport's options with their effective values.  Generic over the
 * option table, so an option added to a command is recorded without a
 * line here.  The job adds hosts and lanes (engine/job.h). */
#include <math.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "lib/units.h"

static int saved_argc;
static char **saved_argv;

void lb_cli_save_command_line(int argc, char **argv)
{
	saved_argc = argc;
	saved_argv = argv;
}

/* Words a POSIX shell takes as they are stay bare; others go in single
 * quotes ('\'' for a quote inside). */
static void put_word(struct lb_buf *b, const char *w)
{
	if (*w && !w[strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			   "0123456789-_./:=,+%@")]) {
		lb_buf_add(b, "%s", w);
		return;
	}
	lb_buf_add(b, "'");
	for (; *w; w++)
		lb_buf_add(b, *w == '\'' ? "'\\''" : "%c", *w);
	lb_buf_add(b, "'");
}

static void command_line(struct lb_prov *p)
{
	struct lb_buf b = { 0 };
	lb_buf_add(&b, "lanebench");
	for (int i = 1; i < saved_argc; i++) {
		lb_buf_add(&b, " ");
		put_word(&b, saved_argv[i]);
	}
	lb_prov_add(p, "command", "%s", b.s ? b.s : "lanebench");
	lb_buf_free(&b);
}

static void list_value(struct lb_buf *b, const struct lb_list *l, int sizes)
{
	char one[32];
	for (size_t i = 0; i < l->n; i++) {
		if (sizes && l->v[i] == LB_SLICE_AUTO)
			snprintf(one, sizeof(one), "auto");
		else if (sizes)
			lb_format_size(l->v[i], one, sizeof(one));
		else
			snprintf(one, sizeof(one), "%llu", (unsigned long long)l->v[i]);
		lb_buf_add(b, "%s%s", i ? "," : "", one);
	}
}

/* A handler's value: through its .show, else "-" (unknown). */
static void handler_value(struct lb_buf *b, const struct lb_opt *o, const void *t)
{
	if (o->show)
		o->show(t, b);
	else
		lb_buf_add(b, "-");
}

static void scalar_value(struct lb_buf *b, const struct lb_opt *o, const void *t)
{
	char s[64];
	switch (o->kind) {
	case LB_OPT_FLAG:
		lb_buf_add(b, "%s", *(const int *)t ? "on" : "off");
		break;
	case LB_OPT_UINT:
		lb_buf_add(b, "%u", *(const uint32_t *)t);
		break;
	case LB_OPT_SIZE:
	case LB_OPT_SLICE:
		lb_format_size(*(const uint64_t *)t, s, sizeof(s));
		lb_buf_add(b, "%s", *(const uint64_t *)t == LB_SLICE_AUTO ? "auto" : s);
		break;
	case LB_OPT_SECONDS: /* negative: not given (the command's own default) */
		lb_format_seconds(*(const double *)t, s, sizeof(s));
		lb_buf_add(b, "%s", *(const double *)t >= 0 ? s : "-");
		break;
	case LB_OPT_RATE: /* 0: not given */
		if (*(const double *)t > 0)
			lb_buf_add(b, "%.0f bit/s", *(const double *)t * 8);
		else
			lb_buf_add(b, "-");
		break;
	default:
		break;
	}
}

static void option_value(struct lb_buf *b, const struct lb_opt *o, const void *t)
{
	switch (o->kind) {
	case LB_OPT_SIZE_LIST:
	case LB_OPT_SLICE_LIST:
	case LB_OPT_COUNT_LIST:
		list_value(b, t, o->kind != LB_OPT_COUNT_LIST);
		break;
	case LB_OPT_ENUM:
		lb_buf_add(b, "%s", o->choices[*(const int *)t]);
		break;
	case LB_OPT_STRING: /* NULL: not given */
		lb_buf_add(b, "%s", *(const char *const *)t ? *(const char *const *)t : "-");
		break;
	case LB_OPT_HANDLER:
		handler_value(b, o, t);
		break;
	default:
		scalar_value(b, o, t);
	}
}

static void options(struct lb_prov *p, const struct lb_cmd *cmd, const void *base)
{
	char key[80];
	for (size_t i = 0; i < cmd->nopts; i++) {
		const struct lb_opt *o = &cmd->opts[i];
		struct lb_buf b = { 0 };
		if (o->hidden || o->kind == LB_OPT_MOVED)
			continue; /* refused spellings: never set */
		option_value(&b, o, (const char *)base + o->offset);
		snprintf(key, sizeof(key), "option.%s", o->name);
		lb_prov_add(p, key, "%s", b.s ? b.s : "");
		lb_buf_free(&b);
	}
}

void lb_cli_tp_provenance(struct lb_prov *p, const char *transport,
			  const struct lb_tp_options *given)
{
	const struct lb_transport *t = lb_transport_find(transport);
	char key[80];
	for (const struct lb_tp_option *o = t ? t->options : NULL; o && o->key; o++) {
		const char *v = lb_tp_option(t->options, given, o->key);
		snprintf(key, sizeof(key), "tp_opt.%s", o->key);
		lb_prov_add(p, key, "%s", v ? v : "-");
	}
}

void lb_cli_provenance(struct lb_prov *p, const struct lb_cmd *cmd, const void *base)
{
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
	lb_prov_add(p, "version", "%s", lb_version);
	command_line(p);
	lb_prov_add(p, "time_utc", "%s", stamp);
	options(p, cmd, base);
}
