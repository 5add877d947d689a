/* A port's facts from sysfs (class/net, the PCI device behind it,
 * class/infiniband), getifaddrs and the ethtool ioctl; see portinfo.h.
 * The files' formats are the kernel's Documentation/ABI/testing/
 * sysfs-class-net, sysfs-bus-pci and sysfs-class-infiniband
 * (tests/data/sysfs/README.md says which line each reader expects). */
#include "launch/portinfo.h"
#include "portinfo_private.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <ifaddrs.h>
#include <libgen.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LIVE_ROOT "/sys"

const char *port_root(const char *sysroot)
{
	return sysroot ? sysroot : LIVE_ROOT;
}

int port_is_live(const char *sysroot)
{
	return !sysroot || strcmp(sysroot, LIVE_ROOT) == 0;
}

int port_read_line(char *buf, size_t len, const char *fmt, ...)
{
	char path[PATH_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	FILE *f = fopen(path, "r");
	if (!f)
		return -errno;
	int err = fgets(buf, (int)len, f) ? 0 : ferror(f) ? -errno : -ENODATA;
	fclose(f);
	if (err) {
		*buf = '\0';
		return err;
	}
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int port_read_long(long *v, const char *fmt, ...)
{
	char path[PATH_MAX], line[64], *end;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (port_read_line(line, sizeof(line), "%s", path))
		return -1;
	errno = 0;
	long n = strtol(line, &end, 10);
	if (end == line || errno)
		return -1;
	*v = n;
	return 0;
}

static int path_exists(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int path_exists(const char *fmt, ...)
{
	char path[PATH_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	return access(path, F_OK) == 0;
}

/* "sysfs", then "sysfs+ethtool": each source named once. */
static void add_source(struct lb_port_facts *f, const char *who)
{
	size_t n = strlen(f->source);
	if (strstr(f->source, who))
		return;
	snprintf(f->source + n, sizeof(f->source) - n, "%s%s", n ? "+" : "", who);
}

/* ---- which port the lane names ------------------------------------------ */

/* The interface holding IPv4 address f->addr, or the first address of
 * interface f->ifname: whichever is empty is looked up (live only). */
static void match_address(struct lb_port_facts *f)
{
	struct ifaddrs *all, *i;
	if (getifaddrs(&all))
		return;
	for (i = all; i; i = i->ifa_next) {
		char dotted[INET_ADDRSTRLEN];
		if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET)
			continue;
		inet_ntop(AF_INET, &((struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr, dotted,
			  sizeof(dotted));
		if (*f->ifname ? strcmp(i->ifa_name, f->ifname) == 0 : strcmp(dotted, f->addr) == 0) {
			snprintf(f->ifname, sizeof(f->ifname), "%s", i->ifa_name);
			snprintf(f->addr, sizeof(f->addr), "%s", dotted);
			break;
		}
	}
	freeifaddrs(all);
}

/* The netdev of an OpenFabrics port: of the device's netdevs
 * (DEV/device/net/), the one whose dev_port is port - 1 (a two-port
 * ConnectX-3 has two), else the first; Soft-RoCE has no device/net and
 * names its netdev in ports/P/gid_attrs/ndevs/0. */
static void rdma_netdev(const char *root, const char *dev, int port, char *ifname, size_t len)
{
	char dir[PATH_MAX];
	struct dirent **names;
	snprintf(dir, sizeof(dir), "%s/class/infiniband/%s/device/net", root, dev);
	int n = scandir(dir, &names, NULL, alphasort);
	*ifname = '\0';
	for (int i = 0; i < n; i++) {
		long dev_port;
		const char *name = names[i]->d_name;
		int same_port = port_read_long(&dev_port, "%s/%s/dev_port", dir, name) == 0 &&
				dev_port == port - 1;
		if (name[0] != '.' && strlen(name) < len && (!*ifname || same_port))
			memcpy(ifname, name, strlen(name) + 1);
	}
	for (int i = 0; i < n; i++)
		free(names[i]);
	if (n >= 0)
		free(names);
	if (!*ifname)
		port_read_line(ifname, len, "%s/class/infiniband/%s/ports/%d/gid_attrs/ndevs/0", root,
			       dev, port);
}

/* The OpenFabrics port behind netdev f->ifname (RoCE, IPoIB), if any:
 * its counters say what the netdev's do not (symbol errors). */
static void netdev_rdma(const char *root, struct lb_port_facts *f)
{
	char dir[PATH_MAX], ifname[sizeof(f->ifname)];
	long dev_port = 0;
	snprintf(dir, sizeof(dir), "%s/class/infiniband", root);
	port_read_long(&dev_port, "%s/class/net/%s/dev_port", root, f->ifname);
	DIR *d = opendir(dir);
	for (struct dirent *e; d && (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		rdma_netdev(root, e->d_name, (int)dev_port + 1, ifname, sizeof(ifname));
		if (strcmp(ifname, f->ifname) == 0) {
			snprintf(f->rdma_dev, sizeof(f->rdma_dev), "%.31s", e->d_name);
			f->rdma_port = (int)dev_port + 1;
			break;
		}
	}
	if (d)
		closedir(d);
}

/* mlx5_0 or mlx5_0:1 (port 1 when not said). */
static void rdma_lane(const char *root, const char *lane, struct lb_port_facts *f)
{
	char dev[sizeof(f->rdma_dev)];
	snprintf(dev, sizeof(dev), "%s", lane);
	char *colon = strchr(dev, ':');
	int port = 1;
	if (colon) {
		port = atoi(colon + 1);
		*colon = '\0';
	}
	if (port < 1 || !path_exists("%s/class/infiniband/%s", root, dev))
		return;
	snprintf(f->rdma_dev, sizeof(f->rdma_dev), "%s", dev);
	f->rdma_port = port;
	rdma_netdev(root, dev, port, f->ifname, sizeof(f->ifname));
}

static void find_port(const char *root, int live, const char *lane, struct lb_port_facts *f)
{
	struct in_addr a;
	if (!*lane || strchr(lane, '/') || strlen(lane) >= sizeof(f->ifname))
		return; /* no interface or device is named so: read nothing outside */
	if (inet_pton(AF_INET, lane, &a) == 1)
		snprintf(f->addr, sizeof(f->addr), "%s", lane);
	else if (path_exists("%s/class/net/%s", root, lane))
		snprintf(f->ifname, sizeof(f->ifname), "%s", lane);
	else
		rdma_lane(root, lane, f);
	if (live && (*f->ifname || *f->addr))
		match_address(f);
	if (*f->ifname && !*f->rdma_dev)
		netdev_rdma(root, f);
}

/* ---- the netdev and the PCI device behind it ----------------------------- */

/* Whether a device's name is a PCI address, "0000:3b:00.0". */
static int is_pci_address(const char *name)
{
	unsigned domain, bus, slot, fn;
	char extra;
	return sscanf(name, "%4x:%2x:%2x.%1x%c", &domain, &bus, &slot, &fn, &extra) == 4;
}

/* "16.0 GT/s PCIe" (kernel >= 5.x), "8 GT/s" (older), "Unknown": GT/s or 0. */
static double read_gts(const char *dir, const char *attr)
{
	char line[64];
	if (port_read_line(line, sizeof(line), "%s/%s", dir, attr))
		return 0;
	double gts = strtod(line, NULL);
	return gts > 0 ? gts : 0;
}

static int32_t read_positive(const char *dir, const char *attr)
{
	long v;
	return port_read_long(&v, "%s/%s", dir, attr) == 0 && v > 0 && v < INT32_MAX ? (int32_t)v : 0;
}

/* The PCI function behind the netdev: the resolved device link, or its
 * parent when the link names a bus device on top of it (virtio-net's
 * ../0000:00:03.0/virtio2). */
static void pci_facts(const char *root, struct lb_port_facts *f)
{
	char link[PATH_MAX], dev[PATH_MAX];
	long numa;
	snprintf(link, sizeof(link), "%s/class/net/%s/device", root, f->ifname);
	if (!realpath(link, dev))
		return;
	if (!is_pci_address(basename(dev)))
		*strrchr(dev, '/') = '\0'; /* realpath's answer is absolute: a '/' is there */
	if (!is_pci_address(basename(dev)))
		return;
	snprintf(f->bus, sizeof(f->bus), "%s", basename(dev));
	if (port_read_long(&numa, "%s/numa_node", dev) == 0 && numa >= 0 && numa < INT32_MAX)
		f->numa_node = (int32_t)numa;
	f->pcie_gts = read_gts(dev, "current_link_speed");
	f->pcie_max_gts = read_gts(dev, "max_link_speed");
	f->pcie_width = read_positive(dev, "current_link_width");
	f->pcie_max_width = read_positive(dev, "max_link_width");
}

/* carrier reads 0 or 1, and fails with EINVAL while the interface is
 * administratively down: then operstate "down" says the link is. */
static int32_t read_carrier(const char *root, const struct lb_port_facts *f)
{
	long v;
	if (port_read_long(&v, "%s/class/net/%s/carrier", root, f->ifname) == 0)
		return v != 0;
	return strcmp(f->state, "down") == 0 ? 0 : -1;
}

static void driver_name(const char *root, struct lb_port_facts *f)
{
	char link[PATH_MAX], target[PATH_MAX];
	snprintf(link, sizeof(link), "%s/class/net/%s/device/driver", root, f->ifname);
	ssize_t n = readlink(link, target, sizeof(target) - 1);
	if (n <= 0)
		return;
	target[n] = '\0';
	snprintf(f->driver, sizeof(f->driver), "%.31s", basename(target));
}

/* 1 when the netdev exists.  Speed is believed of a device only: a veth
 * says 10000 and a tc-shaped one whatever it was told. */
static int netdev_facts(const char *root, struct lb_port_facts *f)
{
	char line[64];
	long v;
	if (!path_exists("%s/class/net/%s", root, f->ifname))
		return 0;
	port_read_line(f->state, sizeof(f->state), "%s/class/net/%s/operstate", root, f->ifname);
	f->carrier = read_carrier(root, f);
	if (port_read_long(&v, "%s/class/net/%s/mtu", root, f->ifname) == 0 && v > 0 && v < INT32_MAX)
		f->mtu = (int32_t)v;
	/* an IPoIB address is 20 bytes: not a MAC, left unknown */
	if (port_read_line(line, sizeof(line), "%s/class/net/%s/address", root, f->ifname) == 0 &&
	    strlen(line) == sizeof(f->mac) - 1)
		snprintf(f->mac, sizeof(f->mac), "%s", line);
	f->is_virtual = !path_exists("%s/class/net/%s/device", root, f->ifname);
	if (f->is_virtual)
		return 1;
	/* -1 (SPEED_UNKNOWN) without a link */
	if (port_read_long(&v, "%s/class/net/%s/speed", root, f->ifname) == 0 && v > 0)
		f->speed_bps = (double)v * 1e6;
	driver_name(root, f);
	pci_facts(root, f);
	return 1;
}

/* ---- an OpenFabrics port ----------------------------------------------- */

/* rate "100 Gb/sec (4X EDR)": its speed when the netdev gave none, its
 * width (4X) when ethtool gave none.  Soft-RoCE on a veth derives its
 * rate from the veth's made-up speed: not believed either. */
static void rdma_rate(const char *line, struct lb_port_facts *f)
{
	double gbps = strtod(line, NULL);
	const char *paren = strchr(line, '(');
	if (f->is_virtual)
		return;
	if (f->speed_bps == 0 && gbps > 0)
		f->speed_bps = gbps * 1e9;
	if (f->width == 0 && paren && atoi(paren + 1) > 0)
		f->width = atoi(paren + 1);
}

/* 1 when the device exists.  The active MTU is not in sysfs: the verbs
 * transport fills rdma_mtu. */
static int rdma_facts(const char *root, struct lb_port_facts *f)
{
	char line[64];
	const char *dev = f->rdma_dev;
	int p = f->rdma_port;
	if (!path_exists("%s/class/infiniband/%s", root, dev))
		return 0;
	if (!*f->firmware)
		port_read_line(f->firmware, sizeof(f->firmware), "%s/class/infiniband/%s/fw_ver", root,
			       dev);
	/* "4: ACTIVE" */
	if (port_read_line(line, sizeof(line), "%s/class/infiniband/%s/ports/%d/state", root, dev,
			   p) == 0) {
		const char *name = strchr(line, ':') ? strchr(line, ':') + 1 : line;
		snprintf(f->rdma_state, sizeof(f->rdma_state), "%s", name + strspn(name, " "));
	}
	if (port_read_line(line, sizeof(line), "%s/class/infiniband/%s/ports/%d/rate", root, dev,
			   p) == 0)
		rdma_rate(line, f);
	port_read_line(f->gid, sizeof(f->gid), "%s/class/infiniband/%s/ports/%d/gids/0", root, dev, p);
	return 1;
}

void lb_port_read(const char *sysroot, const char *lane, struct lb_port_facts *f)
{
	const char *root = port_root(sysroot);
	int live = port_is_live(sysroot);
	memset(f, 0, sizeof(*f));
	f->carrier = -1;
	f->numa_node = -1;
	find_port(root, live, lane, f);
	if (*f->ifname && netdev_facts(root, f))
		add_source(f, "sysfs");
	if (live && *f->ifname && port_ethtool_facts(f, !f->is_virtual && f->speed_bps == 0))
		add_source(f, "ethtool");
	if (*f->rdma_dev && rdma_facts(root, f))
		add_source(f, "sysfs");
}
