/* The N x N matrix of one lane (rows send, columns receive): which cell is
 * a slow LINK and which row or column is a slow PORT.  Pure: rates in,
 * verdicts out; the check's rows are made from them (check_verdict.c).
 *
 * A port that sends slowly is low with every receiver: its whole row is
 * low, and each of its cells is unremarkable in its column.  A slow link
 * (a cable, a switch port, one path through the fabric) is one cell low
 * against both its row and its column: the sender reaches the others and
 * the receiver hears from them.  Rows and columns are judged first,
 * against the median of every cell of the lane; then each row's median is
 * taken again without the columns found low (and each column's without
 * the rows found low), so that a slow receiver does not drag its senders'
 * rows down -- on a sparse matrix (two partners a port) half a row may be
 * one slow receiver.  Only measured cells count (NaN: not measured). */
#ifndef LB_ENGINE_CHECK_LINKS_H
#define LB_ENGINE_CHECK_LINKS_H

#include <stdint.h>

struct lb_link_verdicts {
	double lane_median;          /* of every measured cell; NaN: none */
	double *row_median;          /* [n]: of the row, the low columns left out; NaN: none */
	double *col_median;          /* [n]: of the column, the low rows left out */
	uint8_t *row_low, *col_low;  /* [n]: that port sends (row), receives (column) slowly */
	uint8_t *link_low;           /* [n * n]: the link s -> r is slow, its ports are not */
};

/* rate[s * n + r]: bytes/s from s to r, NaN where not measured (the
 * diagonal is ignored); min_share: a cell, row or column below this share
 * of its yardstick is low (--min-bw).  Returns 0, or -1 out of memory
 * (nothing to free). */
int lb_link_judge(const double *rate, uint32_t n, double min_share, struct lb_link_verdicts *out);

void lb_link_verdicts_free(struct lb_link_verdicts *v);

#endif
