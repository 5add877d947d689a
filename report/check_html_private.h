/* What the parts of the check's HTML page share (check_html.c: the page,
 * verdict and hosts; check_html_findings.c: failures and warnings;
 * check_html_burnin.c: burn-in; check_html_matrix.c: the link matrices;
 * check_html_ports.c: inventory, counters, collectives). */
#ifndef LB_CHECK_HTML_PRIVATE_H
#define LB_CHECK_HTML_PRIVATE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "csvread.h"

/* Ranks and lanes a record may place: no more than a job can have (the
 * bootstrap's 65,536 ranks, engine/job.h's 16 lanes), so that a crafted
 * "rank 1048575, lane 1023" cannot size an index of ranks x lanes (8.6 GB
 * at the former limits; 9 MB at these); rows beyond are still listed, not
 * drawn. */
#define CHTML_MAX_RANKS 65536u
#define CHTML_MAX_LANES 16u
/* Matrices are drawn up to this many ranks (N x N cells a lane); the rows
 * of a larger record are listed in the failures, not drawn. */
#define CHTML_MAX_MATRIX_RANKS 1024u

enum chtml_level { CHTML_PASS, CHTML_WARN, CHTML_FAIL, CHTML_ERROR, CHTML_OTHER };

/* "pass", "warn", "fail", "error", "other": CSS classes by level (never
 * the record's text). */
extern const char *const chtml_level_class[];

struct chtml_page {
	const struct lb_table *t;
	uint32_t nranks, nlanes;
	const char **host;   /* [nranks]: a rank's host, "" unknown */
	const char **nic;    /* [nlanes]: a lane's NIC name, "" unknown */
	size_t *rows_of;     /* [rank * (nlanes + 1) + lane]: its port row, at lane
			      * nlanes its aggregate row; SIZE_MAX: none */
};

/* The row's cell of column col; "" without such a column. */
const char *chtml_cell(const struct chtml_page *pg, size_t row, const char *col);
int chtml_is_phase(const struct chtml_page *pg, size_t row, const char *phase);
/* The cell as a finite number; NAN when empty or not one. */
double chtml_num(const struct chtml_page *pg, size_t row, const char *col);
/* A whole number below max in *v: 1; else (empty, not whole, too big) 0. */
int chtml_index(const struct chtml_page *pg, size_t row, const char *col, uint32_t max,
		uint32_t *v);
enum chtml_level chtml_level_of(const char *verdict);
enum chtml_level chtml_row_level(const struct chtml_page *pg, size_t row);
/* Whether the level is a finding: FAIL, ERROR or WARN. */
int chtml_is_finding(enum chtml_level lv);
/* The port row (lane < nlanes) or aggregate row (lane == nlanes) of rank;
 * SIZE_MAX: none. */
size_t chtml_port_row(const struct chtml_page *pg, uint32_t rank, uint32_t lane);

/* Text escaped for element content and attribute values alike. */
void chtml_esc(FILE *f, const char *s);
/* The same for the n bytes at s. */
void chtml_esc_n(FILE *f, const char *s, size_t n);
/* "12.3 Gbit/s", "940 Mbit/s", "-" */
void chtml_rate(double bytes_per_s, char *buf, size_t len);
/* <td class="v-fail">FAIL</td> */
void chtml_verdict_cell(FILE *f, const char *verdict);
/* <td>text</td>, "-" when empty */
void chtml_td(FILE *f, const char *text);
/* "rank 3 (lb-h3)", "lane 1 (rail1)" */
void chtml_rank_name(const struct chtml_page *pg, uint32_t rank, FILE *f);
void chtml_lane_name(const struct chtml_page *pg, uint32_t lane, FILE *f);

/* The sections; -1 out of memory. */
int chtml_write_findings(const struct chtml_page *pg, FILE *f);
int chtml_write_burnin(const struct chtml_page *pg, FILE *f);
int chtml_write_matrices(const struct chtml_page *pg, FILE *f);
int chtml_write_inventory(const struct chtml_page *pg, FILE *f);
void chtml_write_counters(const struct chtml_page *pg, FILE *f);
void chtml_write_collectives(const struct chtml_page *pg, FILE *f);

#endif
