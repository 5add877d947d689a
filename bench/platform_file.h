/* A platform file (net/platform.h's text format) read from disk, for the
 * commands that take --platform FILE or a platform argument. */
#ifndef LB_PLATFORM_FILE_H
#define LB_PLATFORM_FILE_H

#include <stddef.h>

#include "net/platform.h"

/* Reads and parses the file at path ("-": standard input).  NULL with one
 * line in err naming the path: "PATH: cannot open: why" or the parser's
 * "PATH:LINE: 'TOKEN': why". */
struct lb_platform *lb_platform_read_file(const char *path, char *err, size_t errlen);

#endif
