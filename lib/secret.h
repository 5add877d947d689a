/* Comparing a secret a stranger presents (a job token) with ours without
 * telling the stranger, by the time the answer takes, how many of its
 * first bytes were right: the bootstrap's lobby and the tcp transport's
 * data listener both admit connections by token. */
#ifndef LB_SECRET_H
#define LB_SECRET_H

#include <stddef.h>

/* 1 when a[0, alen) and b[0, blen) are the same bytes, else 0.  Every
 * call reads cap bytes' worth whatever the contents (bytes past a
 * length count as zeros), so the time depends on cap alone; a length
 * above cap is never equal. */
int lb_secret_equal(const void *a, size_t alen, const void *b, size_t blen, size_t cap);

#endif
