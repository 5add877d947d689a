/* lanebench platform show FILE: a platform file (algos/platform.h) as
 * people read it (bandwidth, latency and occupation matrices per lane,
 * node overheads, sites) or as one line per directed link (--format links:
 * for scripts such as the emulated cluster's per-link set-up). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "lib/units.h"
#include "platform_file.h"
#include "report/outfile.h"

#define ALL_LANES UINT32_MAX /* --lane not given */

enum show_format { FORMAT_MATRIX, FORMAT_LINKS };

struct platform_opts {
	const char *words[2]; /* ACTION FILE */
	uint32_t lane;
	int format; /* enum show_format */
	const char *output;
};

#define OFF(f) offsetof(struct platform_opts, f)

static const char *const format_names[] = { "matrix", "links", NULL };

static const struct lb_opt platform_opts_table[] = {
	{ LB_OPT("lane", 0, "L", "show lane L only (default: every lane)", LB_OPT_UINT, OFF(lane)),
	  .min = 0, .max = LB_PLATFORM_MAX_LANES - 1 },
	{ LB_OPT("format", 'f', NULL, "matrix: tables for people; links: one line per directed "
		 "link for scripts (see below)", LB_OPT_ENUM, OFF(format)),
	  .def = "matrix", .choices = format_names },
	{ LB_OPT("output", 'o', "FILE", "write to FILE instead of stdout (not created when the "
		 "platform is refused)", LB_OPT_STRING, OFF(output)) },
};

/* ---- readable values ---- */

/* Bytes per second in the decimal unit that fits: "95 MB/s", "333.3 KB/s". */
static void format_rate(double bytes_per_s, char *buf, size_t len)
{
	static const char *const units[] = { "B/s", "KB/s", "MB/s", "GB/s", "TB/s" };
	size_t i = 0;
	while (i < 4 && bytes_per_s >= 1000) {
		bytes_per_s /= 1000;
		i++;
	}
	snprintf(buf, len, "%.4g %s", bytes_per_s, units[i]);
}

enum quantity { Q_BW, Q_LAT, Q_OCC };

static const char *const quantity_title[] = {
	"bandwidth", "latency, in flight", "occupation per message, ports busy",
};

/* One cell of a matrix: the value of u -> v, or '-' (no link, or u == v). */
static void cell(const struct lb_platform *pf, uint32_t u, uint32_t v, uint32_t lane,
		 enum quantity q, char *buf, size_t len)
{
	struct lb_link l = lb_platform_link(pf, u, v, lane);
	if (u == v || l.bw <= 0)
		snprintf(buf, len, "-");
	else if (q == Q_BW)
		format_rate(l.bw, buf, len);
	else
		lb_format_seconds(q == Q_LAT ? l.lat : l.occ, buf, len);
}

/* Whether some existing link of the lane has a non-zero lat (or occ). */
static int any_nonzero(const struct lb_platform *pf, uint32_t lane, enum quantity q)
{
	for (uint32_t u = 0; u < pf->nodes; u++)
		for (uint32_t v = 0; v < pf->nodes; v++) {
			struct lb_link l = lb_platform_link(pf, u, v, lane);
			if (u != v && l.bw > 0 && (q == Q_LAT ? l.lat : l.occ) != 0)
				return 1;
		}
	return 0;
}

static int cell_width(const struct lb_platform *pf, uint32_t lane, enum quantity q)
{
	char buf[64];
	int w = snprintf(buf, sizeof(buf), "%u", pf->nodes - 1);
	for (uint32_t u = 0; u < pf->nodes; u++)
		for (uint32_t v = 0; v < pf->nodes; v++) {
			cell(pf, u, v, lane, q, buf, sizeof(buf));
			if ((int)strlen(buf) > w)
				w = (int)strlen(buf);
		}
	return w;
}

/* Rows: from; columns: to. */
static void print_matrix(FILE *f, const struct lb_platform *pf, uint32_t lane, enum quantity q)
{
	char buf[64];
	int w = cell_width(pf, lane, q);
	int rw = snprintf(buf, sizeof(buf), "%u", pf->nodes - 1);
	fprintf(f, "\nlane %u %s (row: from, column: to; '-': no link)\n%*s", lane,
		quantity_title[q], rw, "");
	for (uint32_t v = 0; v < pf->nodes; v++)
		fprintf(f, "  %*u", w, v);
	fputc('\n', f);
	for (uint32_t u = 0; u < pf->nodes; u++) {
		fprintf(f, "%*u", rw, u);
		for (uint32_t v = 0; v < pf->nodes; v++) {
			cell(pf, u, v, lane, q, buf, sizeof(buf));
			fprintf(f, "  %*s", w, buf);
		}
		fputc('\n', f);
	}
}

/* ---- the parts of the matrix form ---- */

static void print_nodes(FILE *f, const struct lb_platform *pf)
{
	int header = 0;
	for (uint32_t u = 0; u < pf->nodes; u++) {
		const struct lb_node *n = &pf->node[u];
		if (n->send == 0 && n->recv == 0 && n->gap == 0 && n->rate == 0)
			continue;
		char send[32], recv[32], gap[32], rate[32] = "none";
		lb_format_seconds(n->send, send, sizeof(send));
		lb_format_seconds(n->recv, recv, sizeof(recv));
		lb_format_seconds(n->gap, gap, sizeof(gap));
		if (n->rate > 0)
			format_rate(n->rate, rate, sizeof(rate));
		if (!header++)
			fprintf(f, "\nnode overheads (per message) and NIC caps:\n");
		fprintf(f, "  node %u: send %s, recv %s, gap %s, rate cap %s\n", u, send, recv, gap,
			rate);
	}
}

static void print_site_ranks(FILE *f, const struct lb_platform *pf, uint32_t s)
{
	const char *sep = "";
	for (uint32_t u = 0; u < pf->nodes; u++) {
		if (pf->node[u].site != s)
			continue;
		uint32_t last = u;
		while (last + 1 < pf->nodes && pf->node[last + 1].site == s)
			last++;
		if (last > u)
			fprintf(f, "%s%u-%u", sep, u, last);
		else
			fprintf(f, "%s%u", sep, u);
		sep = ",";
		u = last;
	}
}

static void print_sites(FILE *f, const struct lb_platform *pf)
{
	char t[32];
	for (uint32_t s = 0; s < pf->sites; s++) {
		fprintf(f, "%ssite %u: ranks ", s ? "" : "\n", s);
		print_site_ranks(f, pf, s);
		fprintf(f, ", coordinator %u", pf->site[s].coordinator);
		lb_format_seconds(pf->site[s].local_bcast, t, sizeof(t));
		if (pf->site[s].local_bcast > 0)
			fprintf(f, ", local-bcast %s", t);
		lb_format_seconds(pf->site[s].barrier, t, sizeof(t));
		if (pf->site[s].barrier > 0)
			fprintf(f, ", barrier %s", t);
		fputc('\n', f);
	}
	for (size_t i = 0; i < pf->nwan; i++) {
		char lat[32], bw[32];
		lb_format_seconds(pf->wan[i].lat, lat, sizeof(lat));
		format_rate(pf->wan[i].bw, bw, sizeof(bw));
		fprintf(f, "wan %u-%u: lat %s, bw %s\n", pf->wan[i].a, pf->wan[i].b, lat, bw);
	}
	lb_format_seconds(pf->barrier_all, t, sizeof(t));
	if (pf->barrier_all > 0)
		fprintf(f, "barrier all: %s\n", t);
}

static void show_matrix(FILE *f, const char *path, const struct lb_platform *pf, uint32_t lane)
{
	fprintf(f, "platform %s: %u nodes, %u lane%s, %u site%s (hash %016llx)\n", path,
		pf->nodes, pf->lanes, pf->lanes == 1 ? "" : "s", pf->sites,
		pf->sites == 1 ? "" : "s", (unsigned long long)lb_platform_hash(pf));
	print_nodes(f, pf);
	print_sites(f, pf);
	for (uint32_t l = 0; l < pf->lanes; l++) {
		if (lane != ALL_LANES && l != lane)
			continue;
		print_matrix(f, pf, l, Q_BW);
		if (any_nonzero(pf, l, Q_LAT))
			print_matrix(f, pf, l, Q_LAT);
		if (any_nonzero(pf, l, Q_OCC))
			print_matrix(f, pf, l, Q_OCC);
	}
}

/* "link U V LANE BYTES_PER_S LAT_S OCC_S" / "nolink U V LANE", numbers
 * exact (17 digits), every ordered pair of every lane shown. */
static void show_lane_links(FILE *f, const struct lb_platform *pf, uint32_t lane)
{
	for (uint32_t u = 0; u < pf->nodes; u++)
		for (uint32_t v = 0; v < pf->nodes; v++) {
			if (u == v)
				continue;
			struct lb_link k = lb_platform_link(pf, u, v, lane);
			if (k.bw > 0)
				fprintf(f, "link %u %u %u %.17g %.17g %.17g\n", u, v, lane, k.bw,
					k.lat, k.occ);
			else
				fprintf(f, "nolink %u %u %u\n", u, v, lane);
		}
}

static void show_links(FILE *f, const struct lb_platform *pf, uint32_t lane)
{
	for (uint32_t l = 0; l < pf->lanes; l++)
		if (lane == ALL_LANES || l == lane)
			show_lane_links(f, pf, l);
}

/* ---- the command ---- */

/* The file as messages name it (lb_platform_read_file's "-" is stdin). */
static const char *display_name(const char *path)
{
	return strcmp(path, "-") == 0 ? "stdin" : path;
}

static int write_show(const struct lb_cmd *cmd, const struct platform_opts *o,
		      const struct lb_platform *pf)
{
	struct lb_outfile out;
	char err[1024];
	if (lb_outfile_open(&out, o->output, err, sizeof(err)) != 0) {
		lb_cli_error(cmd, "output", "%s", err);
		return LB_EXIT_FAILED;
	}
	if (o->format == FORMAT_LINKS)
		show_links(out.f, pf, o->lane);
	else
		show_matrix(out.f, display_name(o->words[1]), pf, o->lane);
	if (lb_outfile_check(&out, err, sizeof(err)) != 0) {
		lb_outfile_abort(&out);
		lb_cli_error(cmd, "output", "%s", err);
		return LB_EXIT_FAILED;
	}
	if (lb_outfile_finish(&out, err, sizeof(err)) != 0) {
		lb_cli_error(cmd, "output", "%s", err);
		return LB_EXIT_FAILED;
	}
	return 0;
}

static int platform_body(const struct lb_cmd *cmd, void *base)
{
	const struct platform_opts *o = base;
	char err[1024];
	if (strcmp(o->words[0], "show") != 0) {
		lb_cli_error(cmd, NULL, "unknown action '%s' (expected show)", o->words[0]);
		return LB_EXIT_USAGE;
	}
	struct lb_platform *pf = lb_platform_read_file(o->words[1], err, sizeof(err));
	if (!pf) {
		lb_cli_error(cmd, NULL, "%s", err);
		return LB_EXIT_USAGE;
	}
	int rc;
	if (o->lane != ALL_LANES && o->lane >= pf->lanes) {
		lb_cli_error(cmd, "lane", "lane %u out of range: %s has %u lane%s (0-%u)", o->lane,
			     display_name(o->words[1]), pf->lanes, pf->lanes == 1 ? "" : "s",
			     pf->lanes - 1);
		rc = LB_EXIT_USAGE;
	} else {
		rc = write_show(cmd, o, pf);
	}
	lb_platform_free(pf);
	return rc;
}

static int run_platform(const struct lb_cmd *cmd, int argc, char **argv)
{
	struct platform_opts o = { .lane = ALL_LANES };
	return lb_cli_run(cmd, argc, argv, &o, platform_body);
}

static void platform_more_help(FILE *out)
{
	fputs("show FILE reads a platform file ('-': stdin; the format is in algos/platform.h\n"
	      "and the README) and prints it.  Bad files: one line 'FILE:LINE: 'TOKEN': why'\n"
	      "on stderr, exit 2, nothing written.  Whether every node is reachable is not\n"
	      "checked here: that depends on the root.\n"
	      "\n"
	      "--format matrix (default): nodes, lanes, sites and the platform's hash, node\n"
	      "overheads, then per lane the bandwidth matrix (after the nodes' rate caps),\n"
	      "and the latency and occupation matrices when some link has a non-zero one;\n"
	      "row: sender, column: receiver, '-': no link.\n"
	      "\n"
	      "--format links: for scripts (the emulated cluster's per-link set-up), one line\n"
	      "per ordered pair (u, v), u != v, of each lane, lanes then u then v ascending:\n"
	      "  link U V LANE BYTES_PER_S LAT_S OCC_S   (the link u -> v, rate caps applied;\n"
	      "                                           numbers in %.17g form: exact)\n"
	      "  nolink U V LANE                         (no link u -> v on that lane)\n", out);
}

const struct lb_cmd lb_cmd_platform = {
	.name = "platform",
	.summary = "show a platform file (heterogeneous links): matrices, or one line per link",
	.usage = "show [--lane L] [--format matrix|links] [-o FILE] FILE",
	.opts = platform_opts_table,
	.nopts = sizeof(platform_opts_table) / sizeof(platform_opts_table[0]),
	.more_help = platform_more_help,
	.npositional = 2,
	.positional_offset = OFF(words),
	.run = run_platform,
};
