/* lib/wrap: a line over the width breaks at spaces with its hanging indent
 * -- under a two-column row's second column, under a usage line's first
 * option, past a "- " bullet, else under its own indent -- a line that fits
 * is left as written, and a word longer than the room stays whole. */
#include <stdlib.h>

#include "../check.h"
#include "lib/wrap.h"

/* text wrapped at width, as a string to free (NULL: out of memory). */
static char *wrapped(const char *text, int width)
{
	char *out = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&out, &len);
	if (!mem)
		return NULL;
	lb_wrap_text(text, width, mem);
	fclose(mem);
	return out;
}

#define EXPECT(text, width, want)                                            \
	do {                                                                  \
		char *got_ = wrapped(text, width);                            \
		CHECK(got_ && strcmp(got_, want) == 0, "wrapping at %d:\n%s\nwant:\n%s", \
		      width, got_ ? got_ : "(null)", want);                   \
		free(got_);                                                   \
	} while (0)

int main(void)
{
	EXPECT("short line\n\n  kept  as  written\n", 20, "short line\n\n  kept  as  written\n");
	/* an option row: continuations under the description */
	EXPECT("  -k, --lanes N   lanes per rank, each a NIC of its own\n", 36,
	       "  -k, --lanes N   lanes per rank,\n"
	       "                  each a NIC of its\n"
	       "                  own\n");
	/* a free-text line with a sentence gap is not a two-column row */
	EXPECT("  one.  two three four five six\n", 16, "  one.  two\n  three four\n  five six\n");
	EXPECT("- a bullet that goes on\n", 12, "- a bullet\n  that goes\n  on\n");
	EXPECT("usage: lanebench sim [-a LIST] [-p RANKS]\n", 32,
	       "usage: lanebench sim [-a LIST]\n                     [-p RANKS]\n");
	/* a word longer than the room stays whole */
	EXPECT("see averyveryverylongword here\n", 10, "see\naveryveryverylongword\nhere\n");
	/* the width of a stream that is not a terminal */
	FILE *f = tmpfile();
	CHECK(f && lb_wrap_width(f) == LB_WRAP_DEFAULT, "a file's width is not %d", LB_WRAP_DEFAULT);
	if (f)
		fclose(f);
	return check_status("wrap");
}
