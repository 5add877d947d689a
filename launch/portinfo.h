/* A port's inventory and counters, read from the system: sysfs
 * (class/net, the PCI device behind it, class/infiniband) and the ethtool
 * ioctl (driver and firmware versions, link lanes, the driver's
 * statistics).  Every reader takes a sysfs root: "/sys" on a live system,
 * a captured tree in the tests (tests/data/sysfs).  Facts it cannot read
 * keep their "unknown" value (transports/port.h). */
#ifndef LB_PORTINFO_H
#define LB_PORTINFO_H

#include "transports/port.h"

/* The facts of the port a lane names: an interface (rail0), an IPv4
 * address of one, or an OpenFabrics device (mlx5_0, mlx5_0:1).  sysroot:
 * NULL or "/sys" reads the live system (and uses the ethtool ioctl and
 * getifaddrs); any other root reads only files under it. */
void lb_port_read(const char *sysroot, const char *lane, struct lb_port_facts *f);

/* Appends the port's error and drop counters to c (up to
 * LB_PORT_COUNTERS_MAX): the netdev's statistics, the driver's (ethtool
 * -S, live only), an OpenFabrics port's counters and hw_counters. */
void lb_port_counters_read(const char *sysroot, const struct lb_port_facts *f,
			   struct lb_port_counters *c);

/* after - before, counter by counter (a counter missing from before, or
 * that went backwards -- a driver reset -- counts from 0). */
void lb_port_counters_delta(const struct lb_port_counters *before,
			    const struct lb_port_counters *after, struct lb_port_counters *delta);

/* The value of counter `name` in c, or -1 when absent. */
int64_t lb_port_counter(const struct lb_port_counters *c, const char *name);

#endif
