/* lanebench's man page and bash completion, generated from the commands'
 * option tables (`lanebench help --man`, `lanebench help
 * --bash-completion`, run by meson at build time), so that neither can
 * miss an option --help shows. */
#ifndef LB_HELP_GEN_H
#define LB_HELP_GEN_H

#include <stdio.h>

#include "cli.h"

/* What lanebench --help and the man page both say (bench/help_gen.c). */
extern const char lb_help_intro[];       /* what lanebench is, one paragraph */
extern const char lb_help_csv_note[];    /* a run stopped early keeps its rows */
extern const char lb_help_exit_status[]; /* the exit statuses */

/* lanebench.1 (troff, man macros): NAME, SYNOPSIS, DESCRIPTION, one
 * subsection per command with its options and notes, ENVIRONMENT, EXIT
 * STATUS, FILES, SEE ALSO. */
void lb_help_man(const struct lb_cmd *const *cmds, size_t ncmds, FILE *out);

/* A bash completion script defining _lanebench: the commands, each one's
 * options, enum and transport and algorithm choices, files for FILE
 * arguments and positional words. */
void lb_help_bash_completion(const struct lb_cmd *const *cmds, size_t ncmds, FILE *out);

#endif
