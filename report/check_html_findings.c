/* The check page's failures and warnings: every FAIL, ERROR and WARN row
 * with where it is and its cause, the worst first.
 *
 * A slow port makes each link of its row (it sends slowly) or column (it
 * receives slowly) of its lane's matrix WARN, pointing at the port
 * (engine/check_verdict.c judge_link): 14 rows on 8 ranks, hundreds on a
 * larger cluster, all saying what the port's own row says.  They fold
 * under that row: one line with how many and where in the matrix, the
 * rows themselves in a <details>, so each is still on the page.  A link
 * that fails on its own (low in its row and its column) stays a row. */
#include "check_html_private.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* What the row is: "port rank 3 (lb-h3) lane 1 (rail1)", "link ...". */
static void row_where(const struct chtml_page *pg, size_t r, FILE *f)
{
	uint32_t rank, peer, lane;
	int has_rank = chtml_index(pg, r, "rank", pg->nranks, &rank),
	    has_lane = chtml_index(pg, r, "lane", pg->nlanes, &lane);
	const char *phase = chtml_cell(pg, r, "phase");
	if (strcmp(phase, "bcast") == 0) {
		chtml_esc(f, *chtml_cell(pg, r, "collective") ? chtml_cell(pg, r, "collective") : "collective");
		fputc(' ', f);
		chtml_esc(f, chtml_cell(pg, r, "algorithm"));
		return;
	}
	if (strcmp(phase, "lane") == 0 && has_lane) { /* a finding on a whole lane */
		chtml_lane_name(pg, lane, f);
		return;
	}
	chtml_esc(f, phase);
	if (strcmp(phase, "link") == 0 && has_rank && chtml_index(pg, r, "peer", pg->nranks, &peer)) {
		fputc(' ', f);
		chtml_rank_name(pg, rank, f);
		fputs(" &#8594; ", f);
		chtml_rank_name(pg, peer, f);
	} else if (has_rank) {
		fputc(' ', f);
		chtml_rank_name(pg, rank, f);
	}
	if (has_lane) {
		fputs(", ", f);
		chtml_lane_name(pg, lane, f);
	}
}

static void write_finding(const struct chtml_page *pg, size_t r, FILE *f)
{
	fprintf(f, "<tr class=\"%s\">", chtml_level_class[chtml_row_level(pg, r)]);
	chtml_verdict_cell(f, chtml_cell(pg, r, "verdict"));
	fputs("<td class=\"where\">", f);
	row_where(pg, r, f);
	fputs("</td>", f);
	chtml_td(f, chtml_cell(pg, r, "reason"));
	fputs("</tr>\n", f);
}

/* Which link rows fold under which port row. */
struct folds {
	size_t *port;  /* [nrows]: the port row a link row folds under; SIZE_MAX: none */
	size_t *first; /* [nrows]: a port row's first folded link; SIZE_MAX: none */
	size_t *next;  /* [nrows]: the next link of the same fold; SIZE_MAX: the last */
};

/* The rank and direction ("sends", "receives") a link's reason points
 * at, from its ": rank ": 1, else 0. */
static int port_pointed(const char *at, unsigned *who, char dir[9])
{
	int end = 0;
	if (sscanf(at, ": rank %u's port %8[a-z] slowly (its port row)%n", who, dir, &end) == 2 &&
	    end && !at[end])
		return 1;
	end = 0;
	return sscanf(at, ": rank %u's port loses what it %8[a-z] (its port row)%n", who, dir,
		      &end) == 2 && end && !at[end];
}

/* The port a WARN link row points at ("55.6 Mbit/s: rank 6's port sends
 * slowly (its port row)", or "..., 1.3 % of it sent again: rank 3's port
 * loses what it receives (its port row)"): the link's sender when it
 * sends, its receiver when it receives; 1 with the rank, else 0. */
static int points_at_port(const struct chtml_page *pg, size_t r, uint32_t *rank)
{
	const char *at = strstr(chtml_cell(pg, r, "reason"), ": rank ");
	char dir[9];
	unsigned who;
	uint32_t sender, receiver;
	if (!at || !chtml_is_phase(pg, r, "link") || chtml_row_level(pg, r) != CHTML_WARN ||
	    !chtml_index(pg, r, "rank", pg->nranks, &sender) ||
	    !chtml_index(pg, r, "peer", pg->nranks, &receiver) ||
	    !port_pointed(at, &who, dir))
		return 0;
	*rank = who;
	return (strcmp(dir, "sends") == 0 && who == sender) ||
	       (strcmp(dir, "receives") == 0 && who == receiver);
}

/* The port row link row r folds under: the port it points at, on its
 * lane, when that row is itself listed; SIZE_MAX otherwise. */
static size_t fold_target(const struct chtml_page *pg, size_t r)
{
	uint32_t rank, lane;
	if (!points_at_port(pg, r, &rank) || !chtml_index(pg, r, "lane", pg->nlanes, &lane))
		return SIZE_MAX;
	size_t p = chtml_port_row(pg, rank, lane);
	return p != SIZE_MAX && chtml_is_finding(chtml_row_level(pg, p)) ? p : SIZE_MAX;
}

static void free_folds(struct folds *fo)
{
	free(fo->port);
	free(fo->first);
	free(fo->next);
}

/* Each fold's links chained in the record's order; -1 out of memory. */
static int find_folds(const struct chtml_page *pg, struct folds *fo)
{
	size_t n = pg->t->nrows + 1;
	fo->port = malloc(n * sizeof(size_t));
	fo->first = malloc(n * sizeof(size_t));
	fo->next = malloc(n * sizeof(size_t));
	if (!fo->port || !fo->first || !fo->next)
		return -1;
	for (size_t r = 0; r < n; r++)
		fo->first[r] = fo->next[r] = SIZE_MAX;
	for (size_t r = pg->t->nrows; r-- > 0;) {
		size_t p = fo->port[r] = fold_target(pg, r);
		if (p != SIZE_MAX) {
			fo->next[r] = fo->first[p];
			fo->first[p] = r;
		}
	}
	return 0;
}

/* "14 links of this port WARN: its row and column of lane 0's matrix
 * (below)", then the links. */
static void write_fold(const struct chtml_page *pg, const struct folds *fo, size_t port,
		       FILE *f)
{
	size_t n = 0, row = 0, col = 0;
	uint32_t lane = 0, rank = 0;
	for (size_t r = fo->first[port]; r != SIZE_MAX; r = fo->next[r], n++) {
		uint32_t sender = 0;
		points_at_port(pg, r, &rank);
		chtml_index(pg, r, "rank", pg->nranks, &sender);
		if (sender == rank)
			row++; /* it sends slowly: a cell of its row */
		else
			col++;
	}
	chtml_index(pg, port, "lane", pg->nlanes, &lane);
	fprintf(f, "<tr class=\"fold\"><td></td><td colspan=\"2\"><details><summary>%zu link%s of "
		"this port WARN: its %s of ", n, n == 1 ? "" : "s",
		row && col ? "row and column" : row ? "row" : "column");
	if (pg->nranks <= CHTML_MAX_MATRIX_RANKS)
		fprintf(f, "<a href=\"#matrix-lane%u\">lane %u's matrix</a> (below)", lane, lane);
	else
		fprintf(f, "lane %u's matrix", lane);
	fputs("</summary>\n<table>\n", f);
	for (size_t r = fo->first[port]; r != SIZE_MAX; r = fo->next[r])
		write_finding(pg, r, f);
	fputs("</table>\n</details></td></tr>\n", f);
}

/* Shown at once; more findings than this fold away (<details>) so the
 * hosts and matrices stay near the top, yet every one is on the page. */
#define FINDINGS_SHOWN 25

static const char findings_header[] =
	"<table class=\"findings\">\n<tr><th>verdict</th><th>port, link or collective</th>"
	"<th>cause</th></tr>\n";

/* The n-th finding written opens the table or the fold as needed. */
static void finding_slot(size_t n, size_t total, FILE *f)
{
	if (n == 0)
		fputs(findings_header, f);
	if (n == FINDINGS_SHOWN && total > FINDINGS_SHOWN)
		fprintf(f, "</table>\n<details><summary>%zu more</summary>\n%s",
			total - FINDINGS_SHOWN, findings_header);
}

/* Whether row r goes in pass i: FAIL, ERROR, WARN, each the ports, ranks,
 * lanes and collectives first, then the links not folded under a port. */
static int in_pass(const struct chtml_page *pg, const struct folds *fo, size_t r, size_t i)
{
	static const enum chtml_level order[] = { CHTML_FAIL, CHTML_ERROR, CHTML_WARN };
	return chtml_row_level(pg, r) == order[i / 2] &&
	       chtml_is_phase(pg, r, "link") == (int)(i % 2) && fo->port[r] == SIZE_MAX;
}

#define NPASSES 6

static size_t count_findings(const struct chtml_page *pg, const struct folds *fo)
{
	size_t total = 0;
	for (size_t r = 0; r < pg->t->nrows; r++)
		for (size_t i = 0; i < NPASSES; i++)
			total += in_pass(pg, fo, r, i);
	return total;
}

int chtml_write_findings(const struct chtml_page *pg, FILE *f)
{
	struct folds fo = { 0 };
	size_t n = 0, total;
	if (find_folds(pg, &fo)) {
		free_folds(&fo);
		return -1;
	}
	total = count_findings(pg, &fo);
	fputs("<h2 id=\"findings\">Failures and warnings</h2>\n", f);
	for (size_t i = 0; i < NPASSES; i++)
		for (size_t r = 0; r < pg->t->nrows; r++) {
			if (!in_pass(pg, &fo, r, i))
				continue;
			finding_slot(n++, total, f);
			write_finding(pg, r, f);
			if (fo.first[r] != SIZE_MAX)
				write_fold(pg, &fo, r, f);
		}
	if (!n)
		fputs("<p>None: every port, link, rank and collective passed.</p>\n", f);
	else
		fputs(n > FINDINGS_SHOWN ? "</table>\n</details>\n" : "</table>\n", f);
	free_folds(&fo);
	return 0;
}
