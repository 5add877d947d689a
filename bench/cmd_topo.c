/* lanebench topo: what hwloc sees (packages, NUMA nodes, cores, NICs and
 * their locality) and the pinning plan of a lane per given NIC; with
 * --json, the NICs and the plan as rows of one document. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "launch/topology.h"

struct topo_opts {
	const char *nics, *json;
};

static const struct lb_opt opts[] = {
	LB_NICS_ROWS("NICs to plan a lane each for: interfaces, OpenFabrics devices, IPv4 addresses, or auto; default $LANEBENCH_NICS, else auto",
		     offsetof(struct topo_opts, nics)),
	{ LB_OPT("json", 0, "FILE", "also write the NICs and the plan as rows of one JSON document (results/README.md); '-': to stdout, the report then to stderr",
	  LB_OPT_STRING, offsetof(struct topo_opts, json)) },
};

/* ---- json: a row per NIC hwloc lists, then a row per planned lane ---- */

static const struct lb_col topo_columns[] = {
	{ LB_COLUMN("row", LB_COL_TEXT) },   /* "nic" or "lane" */
	{ LB_COLUMN("lane", LB_COL_REAL) },  /* lane rows: the lane's index */
	{ LB_COLUMN("name", LB_COL_TEXT) },
	{ LB_COLUMN("kind", LB_COL_TEXT) },
	{ LB_COLUMN("pci", LB_COL_TEXT) },
	{ LB_COLUMN("numa", LB_COL_REAL) },  /* the NIC's NUMA node; null unknown */
	{ LB_COLUMN("cpus", LB_COL_TEXT) },
	{ LB_COLUMN("core", LB_COL_REAL) },  /* lane rows: the PU planned */
	{ LB_COLUMN("core_numa", LB_COL_REAL) },
	{ LB_COLUMN("note", LB_COL_TEXT) },
};

#define NTOPO_COLUMNS (sizeof(topo_columns) / sizeof(topo_columns[0]))
#define TOPO_MAX 64

/* -1 (unknown) as no value. */
static double known(int v)
{
	return v < 0 ? NAN : v;
}

static int nic_row(struct lb_json *j, const struct lb_nic *n, char *err, size_t len)
{
	const union lb_val v[NTOPO_COLUMNS] = {
		{ .s = "nic" }, { .d = NAN }, { .s = n->name }, { .s = n->kind },
		{ .s = n->pci[0] ? n->pci : NULL }, { .d = known(n->numa) }, { .s = n->cpus },
		{ .d = NAN }, { .d = NAN }, { .s = NULL },
	};
	return lb_json_table_row(j, v, err, len);
}

static int lane_row(struct lb_json *j, int i, const struct lb_lane_plan *p, char *err, size_t len)
{
	const union lb_val v[NTOPO_COLUMNS] = {
		{ .s = "lane" }, { .d = i }, { .s = p->name }, { .s = NULL }, { .s = NULL },
		{ .d = known(p->nic_numa) }, { .s = NULL }, { .d = known(p->core) },
		{ .d = known(p->core_numa) }, { .s = p->note[0] ? p->note : NULL },
	};
	return lb_json_table_row(j, v, err, len);
}

/* What the rows are made of: hwloc's view and the NICs to plan lanes on. */
struct topo_json {
	struct lb_topo *t;
	const char *nics;
};

static int json_rows(struct lb_json *j, const void *ctx, char *err, size_t len)
{
	const struct topo_json *in = ctx;
	struct lb_nic nic[TOPO_MAX];
	struct lb_lane_plan plan[TOPO_MAX];
	int n = lb_topo_nics(in->t, nic, TOPO_MAX), k = 0;
	for (int i = 0; i < n; i++)
		if (nic_row(j, &nic[i], err, len))
			return -1;
	if (lb_topo_plan(in->t, in->nics, plan, TOPO_MAX, &k, err, len))
		return -1;
	for (int i = 0; i < k; i++)
		if (lane_row(j, i, &plan[i], err, len))
			return -1;
	return 0;
}

static const struct lb_json_table topo_table = {
	.cols = topo_columns, .ncols = NTOPO_COLUMNS, .rows = json_rows,
};

static int topo(const struct lb_cmd *cmd, void *base)
{
	const struct topo_opts *o = base;
	const char *nics = lb_cli_nics(cmd, o->nics);
	FILE *out = o->json && strcmp(o->json, "-") == 0 ? stderr : stdout;
	struct lb_topo *t = NULL;
	char err[512];
	if (lb_cli_check_targets(cmd, NULL, o->json))
		return LB_EXIT_USAGE;
	nics = nics && *nics ? nics : "auto";
	int rc = lb_topo_open(&t, err, sizeof(err)) || lb_topo_report(t, nics, out, err, sizeof(err));
	if (rc)
		lb_cli_error(cmd, NULL, "%s", err);
	else if (o->json)
		rc = lb_cli_write_json(cmd, o, o->json, &topo_table,
				       &(struct topo_json){ .t = t, .nics = nics });
	lb_topo_close(t);
	return rc ? 1 : 0;
}

static int run_topo(const struct lb_cmd *cmd, int argc, char **argv)
{
	struct topo_opts o = { NULL, NULL };
	return lb_cli_run(cmd, argc, argv, &o, topo);
}

const struct lb_cmd lb_cmd_topo = {
	.name = "topo",
	.summary = "NICs, cores and NUMA nodes as hwloc sees them; the lane pinning plan",
	.usage = "[-d NICS] [--json FILE]",
	.opts = opts,
	.nopts = sizeof(opts) / sizeof(opts[0]),
	.run = run_topo,
};
