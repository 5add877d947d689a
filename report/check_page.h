/* The check's HTML page for lanebench check (report/check_html.h): a
 * sink that keeps the run's rows as they come, then writes the page.
 * Kept apart from check_html.h, which speaks of the CSV reader's struct
 * lb_table, so a command that prints tables (report/table.h, another
 * struct lb_table) can include it. */
#ifndef LB_CHECK_PAGE_H
#define LB_CHECK_PAGE_H

#include <stddef.h>

#include "engine/result.h"

struct lb_check_page;

/* NULL out of memory. */
struct lb_check_page *lb_check_page_new(void);

/* The sink keeping the rows (provenance, begin, row). */
struct lb_sink lb_check_page_sink(struct lb_check_page *p);

/* Writes the page of the rows kept to path (lb_check_html_file); name:
 * the record's file, for the title.  0, or -1 with a message. */
int lb_check_page_write(const struct lb_check_page *p, const char *name, const char *path,
			char *err, size_t errlen);

/* NULL is fine. */
void lb_check_page_free(struct lb_check_page *p);

#endif
