/* What is known of one port -- a lane of a rank -- before any traffic, and
 * what it counts.  Filled by launch/portinfo.c from sysfs and the ethtool
 * ioctl (any port with a netdev or an OpenFabrics device), and by a
 * transport for what only it knows (transport.h port_facts: a DPDK PMD's
 * link, the verbs port attributes).  Fixed-size, so that ranks exchange
 * them through the bootstrap as bytes. */
#ifndef LB_TRANSPORTS_PORT_H
#define LB_TRANSPORTS_PORT_H

#include <stdint.h>

struct lb_port_facts {
	char ifname[32];          /* the netdev; "" none */
	char addr[16];            /* its first IPv4 address, dotted; "" none */
	char mac[18];             /* "02:00:00:00:01:03"; "" unknown */
	char driver[32];          /* "mlx5_core", "veth", a PMD's "net_af_packet" */
	char driver_version[32];  /* "" unknown */
	char firmware[48];        /* "" unknown or none */
	char bus[32];             /* PCI address "0000:3b:00.0"; "" none */
	char state[16];           /* operstate: "up", "down", "lowerlayerdown"; "" unknown */
	int32_t carrier;          /* 1 up, 0 down, -1 unknown */
	int32_t mtu;              /* bytes; 0 unknown */
	double speed_bps;         /* negotiated link speed, bits/s; 0 unknown (a
				   * virtual interface's made-up speed is unknown) */
	int32_t width;            /* link lanes (ethtool's lanes, an IB port's 4X: 4); 0 unknown */
	int32_t numa_node;        /* -1 unknown */
	double pcie_gts;          /* PCIe link speed now, GT/s per lane; 0 unknown */
	double pcie_max_gts;      /* the device's maximum; 0 unknown */
	int32_t pcie_width;       /* PCIe lanes now; 0 unknown */
	int32_t pcie_max_width;   /* the device's maximum; 0 unknown */
	int32_t is_virtual;       /* no device behind the netdev (veth, bridge, tap) */
	/* an OpenFabrics port (verbs, or its sysfs) */
	char rdma_dev[32];        /* "mlx5_0", "rxe0"; "" none */
	int32_t rdma_port;        /* 1-based; 0 none */
	char rdma_state[16];      /* "ACTIVE", "DOWN", "INIT", ...; "" unknown */
	int32_t rdma_mtu;         /* active MTU, bytes; 0 unknown */
	char gid[48];             /* GID index 0; "" unknown */
	char source[32];          /* who said so, '+'-joined: "sysfs+ethtool", "dpdk", "verbs" */
};

/* An error, drop or retransmission counter of a port.  Names are
 * "<source>:<counter>" -- "stat:rx_dropped" (sysfs statistics),
 * "ethtool:rx_crc_errors" (the driver's, ethtool -S), "rdma:symbol_error"
 * (an IB port's counters and hw_counters), "tcp:retransmits",
 * "dpdk:retransmitted", "xstat:rx_missed_errors" (a transport's) -- and
 * traffic counters a ratio needs: "tcp:segments_out". */
#define LB_PORT_COUNTER_NAME 40
#define LB_PORT_COUNTERS_MAX 48

struct lb_port_counter {
	char name[LB_PORT_COUNTER_NAME];
	uint64_t value;
};

struct lb_port_counters {
	uint32_t n;
	struct lb_port_counter c[LB_PORT_COUNTERS_MAX];
};

#endif
