/* Help text that fits a terminal.
 *
 * Help is written as lines of any length; lb_wrap_text() breaks each line
 * longer than the width at spaces, continuing with a hanging indent: under
 * the second column of a two-column row ("  -m, --size BYTES   text ..."
 * or "  chain   text ..."), else under the line's own indent (and past a
 * "- " bullet).  Lines that fit are left as written, so hand-made layouts
 * stay.  lb_wrap_width() says how wide: the terminal's width on a tty,
 * 80 columns otherwise, never more than LB_WRAP_MAX. */
#ifndef LB_WRAP_H
#define LB_WRAP_H

#include <stdio.h>

#define LB_WRAP_MIN 60     /* narrower terminals: long lines fold there */
#define LB_WRAP_MAX 100    /* wider ones: lines stay readable */
#define LB_WRAP_DEFAULT 80 /* not a terminal: a pipe, a file, a man page */

/* Columns for text written to out: TIOCGWINSZ when out is a terminal,
 * else $COLUMNS when out is a terminal that does not say, else
 * LB_WRAP_DEFAULT; clamped to [LB_WRAP_MIN, LB_WRAP_MAX]. */
int lb_wrap_width(FILE *out);

/* Writes text to out, each line over width columns broken as above (a
 * word longer than the room left stays whole, over the width). */
void lb_wrap_text(const char *text, int width, FILE *out);

/* Capture, then wrap: lb_wrap_begin returns a stream to write the help
 * to (out itself when memory is short: unwrapped, never lost);
 * lb_wrap_end writes it to out wrapped at width and frees it. */
struct lb_wrap {
	FILE *out, *mem;
	char *text;
	size_t len;
	int width;
};

FILE *lb_wrap_begin(struct lb_wrap *w, FILE *out, int width);
void lb_wrap_end(struct lb_wrap *w);

#endif
