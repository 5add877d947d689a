/* The table sink; see table.h. */
#include "table.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <string.h>

#include "lib/error.h"
#include "lib/stop.h"
#include "lib/units.h"

/* One field's text, without its padding. */
static void show(const struct lb_show_as *v, union lb_val val, char *buf, size_t len)
{
	if ((v->how == LB_SHOW_SECONDS || v->how == LB_SHOW_FIXED) && v->nan && isnan(val.d)) {
		snprintf(buf, len, "%s", v->nan);
		return;
	}
	switch (v->how) {
	case LB_SHOW_TEXT:
		snprintf(buf, len, "%s", val.s ? val.s : "");
		break;
	case LB_SHOW_UINT:
		snprintf(buf, len, "%llu", (unsigned long long)val.u);
		break;
	case LB_SHOW_SIZE:
		lb_format_size(val.u, buf, len);
		break;
	case LB_SHOW_SECONDS:
		lb_format_seconds(val.d, buf, len);
		break;
	case LB_SHOW_FIXED:
		snprintf(buf, len, "%.*f", v->decimals, v->per ? val.d / v->per : val.d);
		break;
	case LB_SHOW_NONE:
		buf[0] = '\0';
		break;
	}
}

/* One line: r's fields, or the headings when r is NULL. */
static void print_line(const struct lb_col *cols, size_t ncols, FILE *out,
		       const struct lb_result *r)
{
	int first = 1;
	char text[64]; /* numbers; text cells are printed whole, never cut */
	for (size_t i = 0; i < ncols; i++) {
		for (int k = 0; k < LB_SHOWN_MAX && cols[i].table[k].how != LB_SHOW_NONE; k++) {
			const struct lb_show_as *v = &cols[i].table[k];
			const char *s = v->heading;
			if (r && v->how == LB_SHOW_TEXT)
				s = r->vals[i].s ? r->vals[i].s : "";
			else if (r) {
				show(v, r->vals[i], text, sizeof(text));
				s = text;
			}
			fprintf(out, "%s%*s", first ? "" : " ", v->width, s);
			first = 0;
		}
	}
	fputc('\n', out);
}

void lb_table_header(struct lb_table *t, const struct lb_col *cols, size_t ncols)
{
	print_line(cols, ncols, t->out, NULL);
	t->headed = 1;
}

int lb_table_row(struct lb_table *t, const struct lb_result *r, char *err, size_t len)
{
	if (!t->headed)
		lb_table_header(t, r->cols, r->ncols);
	print_line(r->cols, r->ncols, t->out, r);
	errno = 0;
	if (fflush(t->out) != EOF && !ferror(t->out))
		return 0;
	if (errno == EPIPE) {
		lb_stop_request(SIGPIPE); /* the table's reader left: stop, quietly */
		return 0;
	}
	return lb_errf(err, len, "cannot write the table to stdout: %s",
		       strerror(errno ? errno : EIO));
}

int lb_table_sink_begin(void *table, const struct lb_col *cols, size_t ncols, char *err,
			size_t len)
{
	lb_table_header(table, cols, ncols);
	return 0;
}

int lb_table_sink_row(void *table, const struct lb_result *r, char *err, size_t len)
{
	return lb_table_row(table, r, err, len);
}
