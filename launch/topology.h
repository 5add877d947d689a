/* Topology and pinning: hwloc finds the NICs (network and OpenFabrics OS
 * devices) and their locality; the plan gives every lane one PU near its
 * NIC, computed once before the lane threads start (plan, then launch).
 *
 * Lanes are named by interface (eth0), OpenFabrics device (mlx5_0, or
 * mlx5_0:1 with a port, ignored for locality), IPv4 address of a local
 * interface, or "auto" (every NIC hwloc lists).  Interfaces hwloc does not
 * know (veth, bridges, lo) still plan, with a note that their locality is
 * unknown.
 *
 * Thread safety: the hwloc topology is loaded and refreshed in
 * lb_topo_open and never modified afterwards; hwloc documents concurrent
 * reads of a loaded topology as safe.  lb_topo_bind_thread only reads it
 * (no allocation, no shared state), so lane threads may call it at the
 * same time.  Open, close, nics, plan and report belong to one thread.
 *
 * Functions returning int give 0 (or a count), or -1 with a one-line
 * reason naming the bad value in err (err may be NULL or errlen 0).  Only
 * lb_topo_report prints. */
#ifndef LB_TOPOLOGY_H
#define LB_TOPOLOGY_H

#include <stddef.h>
#include <stdio.h>

struct lb_topo;                 /* an hwloc topology with I/O devices */

struct lb_nic {                 /* one NIC-like OS device */
	char name[64];          /* OS name: eth0, ib0, mlx5_0 */
	char kind[16];          /* "network" or "openfabrics" */
	char pci[16];           /* PCI bus id "0000:3b:00.0", "" if none */
	int numa;               /* OS index of the nearest NUMA node, -1 unknown */
	char cpus[64];          /* locality cpuset as a list string, e.g. "0-15" */
};

struct lb_lane_plan {
	char name[64];          /* the lane as the user named it */
	int found;              /* hwloc knows the device */
	int core;               /* PU OS index the lane thread is bound to, -1 none */
	int nic_numa, core_numa; /* -1 unknown */
	char note[160];         /* why, or a warning: remote NUMA node, unknown device, shared core */
};

/* Loads this machine's topology with I/O devices, or the XML file named by
 * $LANEBENCH_TOPOLOGY_XML, else $HWLOC_XMLFILE (tests).  On failure *out
 * is NULL. */
int lb_topo_open(struct lb_topo **out, char *err, size_t errlen);

/* NULL is fine. */
void lb_topo_close(struct lb_topo *t);

/* NICs: network OS devices behind a PCI device, and all OpenFabrics
 * devices, in hwloc's order.  Returns how many were written (<= max). */
int lb_topo_nics(struct lb_topo *t, struct lb_nic *out, int max);

/* Plans `lanes` ("auto", "auto:network", "auto:openfabrics" or a comma
 * list) into plan[0..*k).  Each lane gets
 * a PU inside its NIC's locality not used by another lane (distinct
 * physical cores first, then distinct PUs); when every local PU is taken,
 * or the device is unknown to hwloc, the least-used PU of the machine, and
 * the note says so.  A PU on another NUMA node than the NIC gets a
 * warning note.  Errors: an empty lane name, a name that is neither a
 * device hwloc knows nor a local interface or IPv4 address, more than max
 * lanes, "auto" with no NIC.  Returns 0, -1, or LB_EINPUT (lib/error.h)
 * for a list no host could have: an empty or over-long name, too many. */
int lb_topo_plan(struct lb_topo *t, const char *lanes, struct lb_lane_plan *plan, int max,
		 int *k, char *err, size_t errlen);

/* Binds the calling thread to the PU with OS index `core` (strict binding,
 * else plain).  Fails for an unknown PU and for a topology loaded from XML
 * (not this machine).  Safe to call from several threads at once. */
int lb_topo_bind_thread(struct lb_topo *t, int core, char *err, size_t errlen);

/* The `lanebench topo` report: machine (packages, NUMA nodes, cores, PUs),
 * every NIC with kind, PCI id, NUMA node and local cpus, then, if lanes is
 * not NULL, the pinning plan with notes.  A plan that fails is reported
 * after the machine and NICs were printed. */
int lb_topo_report(struct lb_topo *t, const char *lanes, FILE *out, char *err, size_t errlen);

#endif
