/* What the operating system says about a lane's NIC, for the provenance
 * of result files (engine/jobprov.h): its network interface, port, link
 * speed, MTU and IPv4 address: the part of launch/portinfo.h's facts
 * that provenance records.  Every field has an "unknown" value, so a lane
 * on a veth, a bridge or an RDMA device without a netdev still describes
 * what it can. */
#ifndef LB_NICINFO_H
#define LB_NICINFO_H

struct lb_nic_facts {
	char ifname[64];  /* the network interface; "" unknown */
	int port;         /* 1-based: an RDMA name's ":N", an RDMA device's 1, a
			   * netdev's dev_port + 1; 0 unknown */
	double speed_bps; /* link speed, bits/s, of a device (sysfs, ethtool, an
			   * IB port's rate; not a veth's or a bridge's: theirs
			   * is made up); 0 unknown */
	int mtu;          /* 0 unknown */
	char addr[64];    /* first IPv4 address of the interface; "" none */
};

/* Facts about the lane named `lane` as the user or hwloc named it: an
 * interface (rail0), an IPv4 address of one, or an OpenFabrics device
 * (mlx5_0, mlx5_0:1). */
void lb_nic_facts(const char *lane, struct lb_nic_facts *out);

#endif
