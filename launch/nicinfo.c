/* NIC facts for provenance: the part of a port's facts (portinfo.h) that
 * result files record; see nicinfo.h. */
#include "nicinfo.h"

#include <stdio.h>

#include "launch/portinfo.h"
#include "portinfo_private.h"

void lb_nic_facts(const char *lane, struct lb_nic_facts *out)
{
	struct lb_port_facts f;
	long dev_port = 0;
	lb_port_read(NULL, lane, &f);
	snprintf(out->ifname, sizeof(out->ifname), "%s", f.ifname);
	snprintf(out->addr, sizeof(out->addr), "%s", f.addr);
	out->speed_bps = f.speed_bps;
	out->mtu = f.mtu;
	out->port = f.rdma_port;
	if (!out->port && *f.ifname) {
		port_read_long(&dev_port, "/sys/class/net/%s/dev_port", f.ifname);
		out->port = dev_port >= 0 ? (int)dev_port + 1 : 1;
	}
}
