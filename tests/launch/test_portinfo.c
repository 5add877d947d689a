/* launch/portinfo: every fact of every sysfs fixture (tests/data/sysfs,
 * argv[1]), the counters each yields, their delta and lookup, and the
 * live path on "lo" (sysfs, getifaddrs and the ethtool ioctl of this
 * machine's kernel). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "launch/portinfo.h"
#include "check.h"

static const char *data_dir;

static void read_case(const char *name, const char *lane, struct lb_port_facts *f)
{
	char root[1024];
	snprintf(root, sizeof(root), "%s/%s", data_dir, name);
	lb_port_read(root, lane, f);
}

#define CHECK_STR(field, want) CHECK(strcmp(field, want) == 0, "%s: '%s', want '%s'", #field, field, want)
#define CHECK_INT(field, want) CHECK((field) == (want), "%s: %ld, want %ld", #field, (long)(field), (long)(want))
#define CHECK_NUM(field, want) CHECK((field) == (want), "%s: %g, want %g", #field, (double)(field), (double)(want))

/* The ConnectX-style port of the PCI fixtures: what they all share. */
static void check_mlx5_netdev(const struct lb_port_facts *f)
{
	CHECK_STR(f->ifname, "rail0");
	CHECK_STR(f->addr, ""); /* addresses are not in sysfs */
	CHECK_STR(f->mac, "0c:42:a1:12:34:56");
	CHECK_STR(f->driver, "mlx5_core");
	CHECK_STR(f->driver_version, "");
	CHECK_STR(f->bus, "0000:3b:00.0");
	CHECK_INT(f->mtu, 9000);
	CHECK_INT(f->numa_node, 0);
	CHECK_NUM(f->pcie_max_gts, 16.0);
	CHECK_INT(f->pcie_max_width, 16);
	CHECK_INT(f->is_virtual, 0);
	CHECK_INT(f->rdma_mtu, 0);
	CHECK_STR(f->source, "sysfs");
}

static void check_no_rdma(const struct lb_port_facts *f)
{
	CHECK_STR(f->rdma_dev, "");
	CHECK_INT(f->rdma_port, 0);
	CHECK_STR(f->rdma_state, "");
	CHECK_STR(f->gid, "");
	CHECK_STR(f->firmware, "");
	CHECK_INT(f->width, 0);
}

static void test_pci_cases(void)
{
	struct lb_port_facts f;
	read_case("healthy-100g", "rail0", &f);
	check_mlx5_netdev(&f);
	check_no_rdma(&f);
	CHECK_STR(f.state, "up");
	CHECK_INT(f.carrier, 1);
	CHECK_NUM(f.speed_bps, 100e9);
	CHECK_NUM(f.pcie_gts, 16.0);
	CHECK_INT(f.pcie_width, 16);

	read_case("negotiated-50g", "rail0", &f);
	check_mlx5_netdev(&f);
	check_no_rdma(&f);
	CHECK_STR(f.state, "up");
	CHECK_INT(f.carrier, 1);
	CHECK_NUM(f.speed_bps, 50e9);
	CHECK_NUM(f.pcie_gts, 16.0);
	CHECK_INT(f.pcie_width, 16);

	read_case("pcie-x8", "rail0", &f);
	check_mlx5_netdev(&f);
	check_no_rdma(&f);
	CHECK_NUM(f.speed_bps, 100e9);
	CHECK_NUM(f.pcie_gts, 8.0);
	CHECK_INT(f.pcie_width, 8);

	read_case("link-down", "rail0", &f);
	check_mlx5_netdev(&f);
	check_no_rdma(&f);
	CHECK_STR(f.state, "down");
	CHECK_INT(f.carrier, 0);
	CHECK_NUM(f.speed_bps, 0); /* -1: unknown */
	CHECK_NUM(f.pcie_gts, 16.0);
	CHECK_INT(f.pcie_width, 16);
}

static void check_roce(const struct lb_port_facts *f, const char *lane)
{
	printf("roce lane %s\n", lane); /* which lane a failure below is about */
	check_mlx5_netdev(f);
	CHECK_STR(f->state, "up");
	CHECK_INT(f->carrier, 1);
	CHECK_NUM(f->speed_bps, 100e9);
	CHECK_NUM(f->pcie_gts, 16.0);
	CHECK_INT(f->pcie_width, 16);
	CHECK_STR(f->rdma_dev, "mlx5_0");
	CHECK_INT(f->rdma_port, 1);
	CHECK_STR(f->rdma_state, "ACTIVE");
	CHECK_STR(f->gid, "fe80:0000:0000:0000:0e42:a1ff:fe12:3456");
	CHECK_STR(f->firmware, "16.35.2000");
	CHECK_INT(f->width, 4);
}

static void test_roce(void)
{
	const char *lanes[] = {"mlx5_0:1", "mlx5_0", "rail0"};
	struct lb_port_facts f;
	for (size_t i = 0; i < sizeof(lanes) / sizeof(lanes[0]); i++) {
		read_case("roce", lanes[i], &f);
		check_roce(&f, lanes[i]);
	}
	/* a port the device lacks: the device and its netdev, no port facts */
	read_case("roce", "mlx5_0:2", &f);
	CHECK_STR(f.rdma_dev, "mlx5_0");
	CHECK_INT(f.rdma_port, 2);
	CHECK_STR(f.rdma_state, "");
	CHECK_STR(f.ifname, "rail0");
}

static void test_virtual(void)
{
	struct lb_port_facts f;
	read_case("veth", "veth0", &f);
	CHECK_STR(f.ifname, "veth0");
	CHECK_STR(f.state, "up");
	CHECK_INT(f.carrier, 1);
	CHECK_INT(f.mtu, 9000);
	CHECK_INT(f.is_virtual, 1);
	CHECK_NUM(f.speed_bps, 0); /* its 10000 is made up, and rxe0's rate with it */
	CHECK_INT(f.width, 0);
	CHECK_STR(f.driver, "");   /* ethtool's name, live only */
	CHECK_STR(f.bus, "");
	CHECK_INT(f.numa_node, -1);
	CHECK_NUM(f.pcie_gts, 0);
	CHECK_NUM(f.pcie_max_gts, 0);
	CHECK_INT(f.pcie_width, 0);
	CHECK_INT(f.pcie_max_width, 0);
	CHECK_STR(f.source, "sysfs");
	/* Soft-RoCE over it, found through gid_attrs/ndevs */
	CHECK_STR(f.rdma_dev, "rxe0");
	CHECK_INT(f.rdma_port, 1);
	CHECK_STR(f.rdma_state, "ACTIVE");
	CHECK_STR(f.firmware, "0.0.0");

	read_case("veth", "rxe0", &f);
	CHECK_STR(f.ifname, "veth0");
	CHECK_STR(f.rdma_dev, "rxe0");
	CHECK_INT(f.is_virtual, 1);
	CHECK_NUM(f.speed_bps, 0);
	CHECK_STR(f.gid, "fe80:0000:0000:0000:0000:0000:0000:0000");

	read_case("veth", "veth1", &f); /* down: carrier unreadable */
	CHECK_STR(f.state, "down");
	CHECK_INT(f.carrier, 0);
	CHECK_STR(f.rdma_dev, "");
}

static void test_unknown_lanes(void)
{
	struct lb_port_facts f;
	const char *lanes[] = {"rail9", "mlx5_9", "../healthy-100g/class/net/rail0", ""};
	for (size_t i = 0; i < sizeof(lanes) / sizeof(lanes[0]); i++) {
		read_case("healthy-100g", lanes[i], &f);
		CHECK_STR(f.ifname, "");
		CHECK_STR(f.source, "");
		CHECK_INT(f.carrier, -1);
		CHECK_INT(f.numa_node, -1);
		CHECK_INT(f.mtu, 0);
	}
	/* an address: not resolvable without the live system */
	read_case("healthy-100g", "10.0.0.1", &f);
	CHECK_STR(f.addr, "10.0.0.1");
	CHECK_STR(f.ifname, "");
}

static const char *const netdev_zero[] = {
	"stat:tx_errors", "stat:tx_dropped", "stat:rx_crc_errors", "stat:rx_frame_errors",
	"stat:rx_fifo_errors", "stat:rx_over_errors", "stat:rx_length_errors",
	"stat:tx_carrier_errors", "stat:tx_aborted_errors", "stat:tx_fifo_errors",
	"stat:collisions",
};

static void check_netdev_counters(const struct lb_port_counters *c)
{
	CHECK_INT(lb_port_counter(c, "stat:rx_errors"), 3);
	CHECK_INT(lb_port_counter(c, "stat:rx_dropped"), 7);
	CHECK_INT(lb_port_counter(c, "stat:rx_missed_errors"), 3);
	CHECK_INT(lb_port_counter(c, "stat:rx_packets"), 123456789);
	CHECK_INT(lb_port_counter(c, "stat:tx_packets"), 987654321);
	for (size_t i = 0; i < sizeof(netdev_zero) / sizeof(netdev_zero[0]); i++)
		CHECK(lb_port_counter(c, netdev_zero[i]) == 0, "%s", netdev_zero[i]);
	/* traffic that is neither trouble nor a ratio's base is not kept */
	CHECK_INT(lb_port_counter(c, "stat:rx_bytes"), -1);
	CHECK_INT(lb_port_counter(c, "stat:multicast"), -1);
	CHECK(strcmp(c->c[0].name, "stat:rx_errors") == 0, "first: %s", c->c[0].name);
}

static void add(struct lb_port_counters *c, const char *name, uint64_t v)
{
	snprintf(c->c[c->n].name, sizeof(c->c[c->n].name), "%s", name);
	c->c[c->n++].value = v;
}

static void test_counters(void)
{
	struct lb_port_facts f;
	struct lb_port_counters c;
	memset(&c, 0, sizeof(c));
	char root[1024];
	read_case("healthy-100g", "rail0", &f);
	snprintf(root, sizeof(root), "%s/no-such-case", data_dir);
	lb_port_counters_read(root, &f, &c);
	CHECK_INT(c.n, 0);

	snprintf(root, sizeof(root), "%s/healthy-100g", data_dir);
	lb_port_counters_read(root, &f, &c);
	CHECK_INT(c.n, 16);
	check_netdev_counters(&c);

	memset(&c, 0, sizeof(c));
	read_case("roce", "mlx5_0:1", &f);
	snprintf(root, sizeof(root), "%s/roce", data_dir);
	lb_port_counters_read(root, &f, &c);
	check_netdev_counters(&c);
	CHECK_INT(lb_port_counter(&c, "rdma:symbol_error"), 17);
	CHECK_INT(lb_port_counter(&c, "rdma:port_rcv_errors"), 2);
	CHECK_INT(lb_port_counter(&c, "rdma:link_downed"), 1);
	CHECK_INT(lb_port_counter(&c, "rdma:port_xmit_wait"), 4096);
	CHECK_INT(lb_port_counter(&c, "rdma:VL15_dropped"), 0);
	CHECK_INT(lb_port_counter(&c, "rdma:out_of_sequence"), 5);
	CHECK_INT(lb_port_counter(&c, "rdma:duplicate_request"), 0);
	CHECK_INT(lb_port_counter(&c, "rdma:rnr_nak_retry_err"), 0);
	CHECK_INT(lb_port_counter(&c, "rdma:np_cnp_sent"), -1); /* congestion, not trouble */
	CHECK_INT(lb_port_counter(&c, "rdma:lifespan"), -1);
	CHECK_INT(lb_port_counter(&c, "rdma:port_xmit_data"), -1);
	CHECK_INT(c.n, 16 + 12 + 3);
	CHECK(strcmp(c.c[16].name, "rdma:symbol_error") == 0, "after netdev: %s", c.c[16].name);

	/* Soft-RoCE's hw_counters that say trouble, not its packet counts */
	memset(&c, 0, sizeof(c));
	read_case("veth", "rxe0", &f);
	snprintf(root, sizeof(root), "%s/veth", data_dir);
	lb_port_counters_read(root, &f, &c);
	CHECK_INT(c.n, 16 + 8);
	CHECK_INT(lb_port_counter(&c, "rdma:retry_exceeded_err"), 2);
	CHECK_INT(lb_port_counter(&c, "rdma:duplicate_request"), 0);
	CHECK_INT(lb_port_counter(&c, "rdma:out_of_sequence"), 0);
	CHECK_INT(lb_port_counter(&c, "rdma:link_downed"), 0);
	CHECK_INT(lb_port_counter(&c, "rdma:sent_pkts"), -1);
}

/* More than fit: the last slot counts what was not kept. */
static void test_counters_full(void)
{
	struct lb_port_facts f;
	struct lb_port_counters c = {0};
	char root[1024];
	while (c.n < LB_PORT_COUNTERS_MAX - 3)
		add(&c, "x:filler", c.n); /* names alike: lookups find the first */
	snprintf(root, sizeof(root), "%s/healthy-100g", data_dir);
	read_case("healthy-100g", "rail0", &f);
	lb_port_counters_read(root, &f, &c);
	CHECK_INT(c.n, LB_PORT_COUNTERS_MAX);
	CHECK_INT(lb_port_counter(&c, "stat:rx_errors"), 3);
	CHECK_INT(lb_port_counter(&c, "stat:tx_errors"), 0);
	CHECK_STR(c.c[LB_PORT_COUNTERS_MAX - 1].name, "portinfo:not_kept");
	CHECK_INT(c.c[LB_PORT_COUNTERS_MAX - 1].value, 16 - 2); /* 16 offered, 2 kept */
}

static void test_delta(void)
{
	struct lb_port_counters before = {0}, after = {0}, d;
	add(&before, "stat:rx_dropped", 10);
	add(&before, "rdma:symbol_error", 500); /* the driver was reset since */
	add(&before, "stat:gone", 4);           /* absent after: not in the delta */
	add(&after, "rdma:symbol_error", 3);
	add(&after, "stat:rx_dropped", 25);
	add(&after, "ethtool:rx_discards_phy", 9); /* absent before */
	lb_port_counters_delta(&before, &after, &d);
	CHECK_INT(d.n, 3);
	CHECK_INT(lb_port_counter(&d, "stat:rx_dropped"), 15);
	CHECK_INT(lb_port_counter(&d, "rdma:symbol_error"), 3);
	CHECK_INT(lb_port_counter(&d, "ethtool:rx_discards_phy"), 9);
	CHECK_INT(lb_port_counter(&d, "stat:gone"), -1);
	CHECK_INT(lb_port_counter(&d, "stat:absent"), -1);
	CHECK(strcmp(d.c[0].name, "rdma:symbol_error") == 0, "after's order: %s", d.c[0].name);

	lb_port_counters_delta(&before, &after, &after); /* in place */
	CHECK_INT(lb_port_counter(&after, "stat:rx_dropped"), 15);

	struct lb_port_counters big = {0};
	add(&big, "x:huge", UINT64_MAX);
	CHECK(lb_port_counter(&big, "x:huge") == INT64_MAX, "clamped");
}

/* loopback: what every Linux says of it */
static void test_live_lo(void)
{
	struct lb_port_facts f;
	struct lb_port_counters before = {0}, after = {0}, d;
	lb_port_read(NULL, "lo", &f);
	CHECK_STR(f.ifname, "lo");
	CHECK_STR(f.addr, "127.0.0.1");
	CHECK_STR(f.mac, "00:00:00:00:00:00");
	CHECK_STR(f.state, "unknown"); /* lo has no operstate of its own */
	CHECK_INT(f.carrier, 1);
	CHECK_INT(f.mtu, 65536);
	CHECK_INT(f.is_virtual, 1);
	CHECK_NUM(f.speed_bps, 0);
	CHECK_STR(f.bus, "");
	CHECK_INT(f.numa_node, -1);
	CHECK_INT(f.pcie_width, 0);
	CHECK_STR(f.rdma_dev, "");
	CHECK(strncmp(f.source, "sysfs", 5) == 0, "source '%s'", f.source);
	printf("lo: driver '%s' version '%s' firmware '%s' source '%s'\n", f.driver,
	       f.driver_version, f.firmware, f.source);

	lb_port_read("/sys", "127.0.0.1", &f);
	CHECK_STR(f.ifname, "lo");

	/* a datagram to ourselves through lo counts as a packet received */
	lb_port_counters_read(NULL, &f, &before);
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(9)};
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	CHECK(fd >= 0 && sendto(fd, "x", 1, 0, (struct sockaddr *)&to, sizeof(to)) == 1, "sendto");
	if (fd >= 0)
		close(fd);
	lb_port_counters_read(NULL, &f, &after);
	lb_port_counters_delta(&before, &after, &d);
	CHECK(lb_port_counter(&d, "stat:rx_packets") >= 1, "rx_packets delta %ld",
	      (long)lb_port_counter(&d, "stat:rx_packets"));
	CHECK(lb_port_counter(&after, "stat:rx_errors") >= 0, "rx_errors read");
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: test_portinfo tests/data/sysfs\n");
		return 2;
	}
	data_dir = argv[1];
	test_pci_cases();
	test_roce();
	test_virtual();
	test_unknown_lanes();
	test_counters();
	test_counters_full();
	test_delta();
	test_live_lo();
	return check_status("portinfo");
}
