/* Help text wrapped to the terminal.  See wrap.h. */
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "wrap.h"

static int clamp_width(long w)
{
	return w < LB_WRAP_MIN ? LB_WRAP_MIN : w > LB_WRAP_MAX ? LB_WRAP_MAX : (int)w;
}

int lb_wrap_width(FILE *out)
{
	struct winsize ws;
	int fd = fileno(out);
	const char *columns = getenv("COLUMNS");
	if (fd < 0 || !isatty(fd))
		return LB_WRAP_DEFAULT; /* scripts, man pages and tests see one layout */
	if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return clamp_width(ws.ws_col);
	if (columns && atol(columns) > 0)
		return clamp_width(atol(columns));
	return LB_WRAP_DEFAULT;
}

/* Where a two-column row's second column starts: past the first gap of
 * two or more spaces after the indent, when that gap does not end a
 * sentence (".  " inside free text) and lies in the line's first half;
 * 0: not such a row. */
static size_t second_column(const char *line, size_t len, size_t lead, int width)
{
	for (size_t i = lead; i + 1 < len && i < (size_t)width / 2; i++) {
		if (line[i] != ' ' || line[i + 1] != ' ')
			continue;
		if (i > lead && (line[i - 1] == '.' || line[i - 1] == ':'))
			return 0;
		while (i < len && line[i] == ' ')
			i++;
		return i < len ? i : 0;
	}
	return 0;
}

/* The indent of a line's continuations (see wrap.h). */
static size_t hanging_indent(const char *line, size_t len, int width)
{
	size_t lead = strspn(line, " "), col;
	const char *bracket;
	if (lead > len)
		lead = len;
	if (lead == 0 && strncmp(line, "usage: ", 7) == 0 &&
	    (bracket = memchr(line, '[', len)))
		return (size_t)(bracket - line); /* under the first option */
	if (lead > 0 && (col = second_column(line, len, lead, width)))
		return col;
	if (lead + 2 <= len && line[lead] == '-' && line[lead + 1] == ' ')
		return lead + 2;
	return lead;
}

/* Where to end a piece of at most room columns starting at s (len left):
 * the last space within room, else the first after it (a long word).  A
 * usage line breaks only between its bracketed items where it can, so
 * that "[-r RANKS]" never splits across lines. */
static size_t break_at(const char *s, size_t len, size_t room, int usage)
{
	if (len <= room)
		return len;
	for (size_t i = room; usage && i > room / 2; i--)
		if (s[i] == ' ' && s[i + 1] == '[')
			return i;
	for (size_t i = room; i > 0; i--)
		if (s[i] == ' ')
			return i;
	const char *sp = memchr(s, ' ', len);
	return sp ? (size_t)(sp - s) : len;
}

static void wrap_line(const char *line, size_t len, int width, FILE *out)
{
	size_t indent = hanging_indent(line, len, width), first = 1;
	int usage = strncmp(line, "usage: ", 7) == 0;
	if (indent + 10 > (size_t)width)
		indent = 8; /* too little room under the column: fold to the left */
	while (len > 0) {
		size_t start = first ? 0 : indent;
		size_t room = (size_t)width - start, cut;
		if (!first)
			fprintf(out, "%*s", (int)indent, "");
		/* the first piece keeps its indent and column layout whole */
		cut = break_at(line, len, room, usage);
		if (first && cut <= indent && len > room)
			cut = break_at(line + indent, len - indent, room - indent, usage) +
			      indent;
		fwrite(line, 1, cut, out);
		fputc('\n', out);
		line += cut, len -= cut, first = 0;
		while (len > 0 && *line == ' ')
			line++, len--;
	}
}

void lb_wrap_text(const char *text, int width, FILE *out)
{
	while (*text) {
		const char *nl = strchr(text, '\n');
		size_t len = nl ? (size_t)(nl - text) : strlen(text);
		if (len <= (size_t)width) {
			fwrite(text, 1, len, out);
			fputc('\n', out);
		} else {
			wrap_line(text, len, width, out);
		}
		text += len + (nl != NULL);
	}
}

FILE *lb_wrap_begin(struct lb_wrap *w, FILE *out, int width)
{
	*w = (struct lb_wrap){ .out = out, .width = width };
	w->mem = open_memstream(&w->text, &w->len);
	return w->mem ? w->mem : out;
}

void lb_wrap_end(struct lb_wrap *w)
{
	if (!w->mem)
		return;
	if (fclose(w->mem) == 0 && w->text)
		lb_wrap_text(w->text, w->width, w->out);
	free(w->text);
	w->mem = NULL, w->text = NULL;
}
