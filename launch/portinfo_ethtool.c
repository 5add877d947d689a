/* What only the driver says, through the ethtool ioctl (SIOCETHTOOL):
 * its name, version and firmware, the link speed sysfs could not give,
 * and its statistics (ethtool -S).  Live systems only: a captured sysfs
 * tree has no driver to ask. */
#include "portinfo_private.h"

#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

/* A driver with more statistics than this is not believed (mlx5 has a
 * few thousand with many channels). */
#define STATS_MAX 65536
/* The kernel writes as many statistics as it has when asked, not as many
 * as it said before: room for a few more channels appearing in between. */
#define STATS_SLACK 256

static int ethtool_ioctl(int fd, const char *ifname, void *request)
{
	struct ifreq ifr;
	size_t len = strlen(ifname);
	if (len >= sizeof(ifr.ifr_name))
		return -1; /* no interface is named so */
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, ifname, len);
	ifr.ifr_data = request;
	return ioctl(fd, SIOCETHTOOL, &ifr);
}

static int ethtool_socket(void)
{
	return socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
}

/* ethtool -i: fills driver and bus where sysfs had none; firmware unless
 * the driver has none to tell ("N/A", ""). */
static int driver_info(int fd, struct lb_port_facts *f)
{
	struct ethtool_drvinfo d;
	memset(&d, 0, sizeof(d));
	d.cmd = ETHTOOL_GDRVINFO;
	if (ethtool_ioctl(fd, f->ifname, &d))
		return 0;
	if (!*f->driver)
		snprintf(f->driver, sizeof(f->driver), "%.*s", (int)sizeof(d.driver), d.driver);
	snprintf(f->driver_version, sizeof(f->driver_version), "%.*s", (int)sizeof(d.version),
		 d.version);
	if (d.fw_version[0] && strncmp(d.fw_version, "N/A", sizeof(d.fw_version)) != 0)
		snprintf(f->firmware, sizeof(f->firmware), "%.*s", (int)sizeof(d.fw_version),
			 d.fw_version);
	if (!*f->bus)
		snprintf(f->bus, sizeof(f->bus), "%.*s", (int)sizeof(d.bus_info), d.bus_info);
	return 1;
}

/* ETHTOOL_GLINKSETTINGS is a handshake: asked with 0 mask words, the
 * kernel answers with minus the number it needs; asked again with that
 * many, it fills the settings.  The ioctl's settings carry no lane count
 * (portinfo_netlink.c asks for it): the speed is all it gives here. */
static int link_speed(int fd, struct lb_port_facts *f, int believe_speed)
{
	size_t size = sizeof(struct ethtool_link_settings) + 3 * 127 * sizeof(uint32_t);
	struct ethtool_link_settings *s = calloc(1, size);
	int answered = 0;
	if (!s)
		return 0;
	s->cmd = ETHTOOL_GLINKSETTINGS;
	if (ethtool_ioctl(fd, f->ifname, s) == 0 && s->link_mode_masks_nwords < 0) {
		int8_t nwords = (int8_t)-s->link_mode_masks_nwords;
		memset(s, 0, size);
		s->cmd = ETHTOOL_GLINKSETTINGS;
		s->link_mode_masks_nwords = nwords;
		answered = ethtool_ioctl(fd, f->ifname, s) == 0 && s->link_mode_masks_nwords > 0;
	}
	/* SPEED_UNKNOWN is (u32)-1 */
	if (answered && believe_speed && s->speed != 0 && s->speed != (uint32_t)SPEED_UNKNOWN)
		f->speed_bps = (double)s->speed * 1e6;
	free(s);
	return answered;
}

int port_ethtool_facts(struct lb_port_facts *f, int believe_speed)
{
	int fd = ethtool_socket();
	if (fd < 0)
		return 0;
	int answered = driver_info(fd, f);
	answered |= link_speed(fd, f, believe_speed);
	close(fd);
	int lanes = port_ethtool_lanes(f->ifname);
	if (lanes > 0 && f->width == 0) {
		f->width = lanes;
		answered = 1;
	}
	return answered;
}

/* How many statistics the driver has; 0 when it has none to tell. */
static uint32_t stats_count(int fd, const char *ifname)
{
	struct ethtool_sset_info *info = calloc(1, sizeof(*info) + sizeof(uint32_t));
	uint32_t n = 0;
	if (!info)
		return 0;
	info->cmd = ETHTOOL_GSSET_INFO;
	info->sset_mask = 1ULL << ETH_SS_STATS;
	if (ethtool_ioctl(fd, ifname, info) == 0 && (info->sset_mask & (1ULL << ETH_SS_STATS)))
		n = info->data[0];
	free(info);
	return n <= STATS_MAX ? n : 0;
}

/* Per-queue, per-priority and per-lane counters carry a number
 * (rx0_wqe_err, rx_prio3_discards); the port's totals mostly do not, and
 * go first when there is room for only some. */
static int names_a_part(const char *name)
{
	return strpbrk(name, "0123456789") != NULL;
}

static void keep_trouble(const struct ethtool_gstrings *names, const struct ethtool_stats *values,
			 uint32_t n, struct lb_port_counters *c)
{
	char name[ETH_GSTRING_LEN + 1], counter[LB_PORT_COUNTER_NAME];
	for (int parts = 0; parts <= 1; parts++) {
		for (uint32_t i = 0; i < n; i++) {
			memcpy(name, names->data + (size_t)i * ETH_GSTRING_LEN, ETH_GSTRING_LEN);
			name[ETH_GSTRING_LEN] = '\0';
			if (names_a_part(name) != parts || !port_name_says_trouble(name))
				continue;
			port_counter_name(counter, "ethtool", name);
			port_counter_add(c, counter, values->data[i]);
		}
	}
}

void port_ethtool_counters(const char *ifname, struct lb_port_counters *c)
{
	int fd = ethtool_socket();
	if (fd < 0)
		return;
	uint32_t n = stats_count(fd, ifname), room = n + STATS_SLACK;
	struct ethtool_gstrings *names = n ? calloc(1, sizeof(*names) + (size_t)room * ETH_GSTRING_LEN) : NULL;
	struct ethtool_stats *values = n ? calloc(1, sizeof(*values) + (size_t)room * sizeof(uint64_t)) : NULL;
	if (names && values) {
		names->cmd = ETHTOOL_GSTRINGS;
		names->string_set = ETH_SS_STATS;
		names->len = n;
		values->cmd = ETHTOOL_GSTATS;
		values->n_stats = n;
		if (ethtool_ioctl(fd, ifname, names) == 0 && ethtool_ioctl(fd, ifname, values) == 0 &&
		    names->len == n && values->n_stats == n)
			keep_trouble(names, values, n, c);
	}
	free(names);
	free(values);
	close(fd);
}
