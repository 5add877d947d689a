/* The table sink; see table.h. */
#include "table.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/stop.h"
#include "lib/units.h"
#include "lib/wrap.h"

/* One field's text, without its padding. */
static void show(const struct lb_show_as *v, union lb_val val, char *buf, size_t len)
{
	if ((v->how == LB_SHOW_SECONDS || v->how == LB_SHOW_FIXED) && isnan(val.d)) {
		snprintf(buf, len, "%s", v->nan ? v->nan : "-"); /* no value: never "nan" */
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
		lb_table_format_size(val.u, buf, len);
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

/* A size no unit divides, in the largest unit below it with up to four
 * significant digits ("976.6 KiB"): its bytes ("1000000 B") are too wide
 * for the size columns and hard to read.  At most 9 characters. */
static void format_approximate_size(uint64_t bytes, char *buf, size_t len)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int u = 0;
	double v = (double)bytes;
	while (u < 4 && v >= 1024) {
		v /= 1024;
		u++;
	}
	int decimals = u == 0 || v >= 1000 ? 0 : v >= 100 ? 1 : v >= 10 ? 2 : 3;
	int n = snprintf(buf, len, "%.*f", decimals, v);
	while (decimals && n > 0 && (size_t)n < len && buf[n - 1] == '0')
		buf[--n] = '\0'; /* "1.500" reads "1.5" */
	if (n > 0 && (size_t)n < len && buf[n - 1] == '.')
		buf[--n] = '\0';
	if (n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, " %s", units[u]);
}

void lb_table_format_size(uint64_t bytes, char *buf, size_t len)
{
	static const char *const units[] = { "TiB", "GiB", "MiB", "KiB" };
	for (int i = 0; i < 4; i++) {
		int shift = 10 * (4 - i);
		if (bytes && bytes % (1ull << shift) == 0) {
			snprintf(buf, len, "%llu %s", (unsigned long long)(bytes >> shift), units[i]);
			return;
		}
	}
	format_approximate_size(bytes, buf, len);
}

/* The shown columns with a legend, each heading once, for lb_table_legend. */
static void keep_legend(struct lb_table *t, const struct lb_col *cols, size_t ncols)
{
	t->nlegend = 0;
	for (size_t i = 0; i < ncols; i++) {
		for (int k = 0; k < LB_SHOWN_MAX && cols[i].table[k].how != LB_SHOW_NONE; k++) {
			const struct lb_show_as *v = &cols[i].table[k];
			if (v->legend && t->nlegend < LB_TABLE_LEGEND_MAX)
				t->legend[t->nlegend++] = *v;
		}
	}
}

void lb_table_header(struct lb_table *t, const struct lb_col *cols, size_t ncols)
{
	print_line(cols, ncols, t->out, NULL);
	keep_legend(t, cols, ncols);
	t->headed = 1;
}

void lb_table_legend(struct lb_table *t)
{
	char *text = NULL;
	size_t len = 0;
	int w = 1; /* the widest heading, "-" at least */
	FILE *mem;
	if (!t->headed || t->rows == 0 || t->nlegend == 0 ||
	    !(mem = open_memstream(&text, &len)))
		return;
	for (size_t i = 0; i < t->nlegend; i++)
		if ((int)strlen(t->legend[i].heading) > w)
			w = (int)strlen(t->legend[i].heading);
	fputs("columns:\n", mem);
	for (size_t i = 0; i < t->nlegend; i++)
		fprintf(mem, "  %-*s  %s\n", w, t->legend[i].heading, t->legend[i].legend);
	fprintf(mem, "  %-*s  no value: not measured, or the model does not apply\n", w, "-");
	if (fclose(mem) == 0) {
		fputc('\n', t->out);
		lb_wrap_text(text, lb_wrap_width(t->out), t->out);
		fflush(t->out);
	}
	free(text);
}

int lb_table_row(struct lb_table *t, const struct lb_result *r, char *err, size_t len)
{
	if (!t->headed)
		lb_table_header(t, r->cols, r->ncols);
	print_line(r->cols, r->ncols, t->out, r);
	t->rows++;
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
