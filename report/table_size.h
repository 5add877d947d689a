/* Sizes as the printed tables write them (report/table.c), apart from
 * report/table.h: the HTML page speaks of the CSV reader's struct
 * lb_table (report/csvread.h), which table.h's struct of the same name
 * would clash with. */
#ifndef LB_TABLE_SIZE_H
#define LB_TABLE_SIZE_H

#include <stddef.h>
#include <stdint.h>

/* Sizes as the table shows them: binary units, exact for a multiple of
 * one ("4 KiB", "1 MiB"), else in the largest unit below the size with up
 * to four significant digits ("1000 B", "976.6 KiB"); at most 9 characters
 * up to 1023 TiB. */
void lb_table_format_size(uint64_t bytes, char *buf, size_t len);

#endif
