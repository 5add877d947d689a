/* NIC facts from sysfs and getifaddrs; see nicinfo.h. */
#include "nicinfo.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A number from a one-line sysfs file; 0 when missing or negative (a
 * veth's speed reads as an error or -1). */
static long sysfs_number(const char *ifname, const char *attr)
{
	char path[160];
	long v = 0;
	snprintf(path, sizeof(path), "/sys/class/net/%s/%s", ifname, attr);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%ld", &v) != 1 || v < 0)
		v = 0;
	fclose(f);
	return v;
}

/* The interface holding IPv4 address `a` (dotted), or the first address
 * of interface `ifname` into addr: whichever is empty is looked up. */
static void match_address(char *ifname, size_t iflen, char *addr, size_t alen)
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
		if (*ifname ? strcmp(i->ifa_name, ifname) == 0 : strcmp(dotted, addr) == 0) {
			snprintf(ifname, iflen, "%s", i->ifa_name);
			snprintf(addr, alen, "%s", dotted);
			break;
		}
	}
	freeifaddrs(all);
}

/* An OpenFabrics device's first netdev (/sys/class/infiniband/D/device/net/). */
static void rdma_netdev(const char *dev, char *ifname, size_t len)
{
	char path[160];
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/device/net", dev);
	DIR *d = opendir(path);
	for (struct dirent *e; d && (e = readdir(d));) {
		if (e->d_name[0] != '.') {
			snprintf(ifname, len, "%.63s", e->d_name);
			break;
		}
	}
	if (d)
		closedir(d);
}

/* A virtual interface (veth, bridge) reports a made-up speed (10000 for
 * a veth, whatever tc shapes it to): only a device's is believed. */
static int has_device(const char *ifname)
{
	char path[160];
	snprintf(path, sizeof(path), "/sys/class/net/%s/device", ifname);
	return access(path, F_OK) == 0;
}

static int is_netdev(const char *name)
{
	char path[160];
	snprintf(path, sizeof(path), "/sys/class/net/%s", name);
	return access(path, F_OK) == 0;
}

void lb_nic_facts(const char *lane, struct lb_nic_facts *out)
{
	struct in_addr a;
	char dev[64];
	memset(out, 0, sizeof(*out));
	snprintf(dev, sizeof(dev), "%s", lane);
	char *colon = strchr(dev, ':');
	if (colon) { /* mlx5_0:1 */
		out->port = atoi(colon + 1);
		*colon = '\0';
	}
	if (inet_pton(AF_INET, dev, &a) == 1)
		snprintf(out->addr, sizeof(out->addr), "%s", dev);
	else if (is_netdev(dev))
		snprintf(out->ifname, sizeof(out->ifname), "%s", dev);
	else {
		rdma_netdev(dev, out->ifname, sizeof(out->ifname));
		out->port = out->port ? out->port : 1;
	}
	if (*out->ifname || *out->addr)
		match_address(out->ifname, sizeof(out->ifname), out->addr, sizeof(out->addr));
	if (!*out->ifname)
		return;
	out->port = out->port ? out->port : (int)sysfs_number(out->ifname, "dev_port") + 1;
	out->speed_bps = has_device(out->ifname) ? (double)sysfs_number(out->ifname, "speed") * 1e6 : 0;
	out->mtu = (int)sysfs_number(out->ifname, "mtu");
}
