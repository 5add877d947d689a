/* lanebench topo: what hwloc sees (packages, NUMA nodes, cores, NICs and
 * their locality) and the pinning plan of a lane per given NIC. */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "launch/topology.h"

struct topo_opts {
	const char *nics;
};

static const struct lb_opt opts[] = {
	LB_NICS_ROWS("NICs to plan a lane each for: interfaces, OpenFabrics devices, IPv4 addresses, or auto; default $LANEBENCH_NICS, else auto",
		     offsetof(struct topo_opts, nics)),
};

static int topo(const struct lb_cmd *cmd, void *base)
{
	const struct topo_opts *o = base;
	const char *nics = lb_cli_nics(cmd, o->nics);
	struct lb_topo *t = NULL;
	char err[512];
	int rc = lb_topo_open(&t, err, sizeof(err)) ||
		 lb_topo_report(t, nics && *nics ? nics : "auto", stdout, err, sizeof(err));
	if (rc)
		lb_cli_error(cmd, NULL, "%s", err);
	lb_topo_close(t);
	return rc ? 1 : 0;
}

static int run_topo(const struct lb_cmd *cmd, int argc, char **argv)
{
	struct topo_opts o = { NULL };
	return lb_cli_run(cmd, argc, argv, &o, topo);
}

const struct lb_cmd lb_cmd_topo = {
	.name = "topo",
	.summary = "NICs, cores and NUMA nodes as hwloc sees them; the lane pinning plan",
	.usage = "[-d NICS]",
	.opts = opts,
	.nopts = sizeof(opts) / sizeof(opts[0]),
	.run = run_topo,
};
