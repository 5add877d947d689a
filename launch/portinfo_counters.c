/* A port's error and drop counters, their difference and lookup; see
 * portinfo.h.  Order is priority: when more counters say trouble than
 * fit (LB_PORT_COUNTERS_MAX), the netdev's and the OpenFabrics port's
 * few fixed ones are kept and the driver's long tail is cut, counted in
 * "portinfo:not_kept". */
#include "launch/portinfo.h"
#include "portinfo_private.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* class/net/IF/statistics/ (sysfs-class-net-statistics) that mean trouble,
 * then the traffic a ratio needs. */
static const char *const netdev_stats[] = {
	"rx_errors", "tx_errors", "rx_dropped", "tx_dropped", "rx_crc_errors", "rx_frame_errors",
	"rx_fifo_errors", "rx_missed_errors", "rx_over_errors", "rx_length_errors",
	"tx_carrier_errors", "tx_aborted_errors", "tx_fifo_errors", "collisions", "rx_packets",
	"tx_packets",
};

/* class/infiniband/DEV/ports/P/counters/ (sysfs-class-infiniband) that
 * mean trouble: the physical layer first. */
static const char *const rdma_port_stats[] = {
	"symbol_error", "port_rcv_errors", "port_xmit_discards", "link_downed",
	"link_error_recovery", "port_rcv_remote_physical_errors", "local_link_integrity_errors",
	"excessive_buffer_overrun_errors", "VL15_dropped", "port_rcv_constraint_errors",
	"port_xmit_constraint_errors", "port_xmit_wait",
};

/* Words in a driver's or an RDMA device's counter names that say
 * trouble.  The last five are for hw_counters: Soft-RoCE and mlx5 count
 * retransmissions as duplicate_request, out_of_sequence, *retry*, rnr. */
static const char *const trouble_words[] = {
	"err", "drop", "discard", "crc", "fcs", "symbol", "miss", "timeout", "lost", "bad",
	"out_of_buffer", "fault", "duplicate", "out_of_sequence", "retry", "downed", "rnr",
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

int port_name_says_trouble(const char *name)
{
	for (size_t i = 0; i < COUNT(trouble_words); i++)
		if (strcasestr(name, trouble_words[i]))
			return 1;
	return 0;
}

static const struct lb_port_counter *find(const struct lb_port_counters *c, const char *name)
{
	uint32_t n = c->n <= LB_PORT_COUNTERS_MAX ? c->n : LB_PORT_COUNTERS_MAX;
	for (uint32_t i = 0; i < n; i++)
		if (strncmp(c->c[i].name, name, sizeof(c->c[i].name)) == 0)
			return &c->c[i];
	return NULL;
}

void port_counter_add(struct lb_port_counters *c, const char *name, uint64_t value)
{
	if (find(c, name))
		return;
	if (c->n < LB_PORT_COUNTERS_MAX) {
		struct lb_port_counter *slot = &c->c[c->n++];
		snprintf(slot->name, sizeof(slot->name), "%s", name);
		slot->value = value;
		return;
	}
	/* full: the last slot gives way to the count of what did not fit */
	struct lb_port_counter *last = &c->c[LB_PORT_COUNTERS_MAX - 1];
	if (strcmp(last->name, PORT_NOT_KEPT) != 0) {
		snprintf(last->name, sizeof(last->name), "%s", PORT_NOT_KEPT);
		last->value = 1;
	}
	last->value++;
}

int port_counter_name(char *out, const char *source, const char *name)
{
	return snprintf(out, LB_PORT_COUNTER_NAME, "%s:%s", source, name) >= LB_PORT_COUNTER_NAME;
}

static int read_u64(uint64_t *v, const char *dir, const char *name)
{
	char line[32], *end;
	if (port_read_line(line, sizeof(line), "%s/%s", dir, name) || line[0] == '-')
		return -1;
	*v = strtoull(line, &end, 10);
	return end == line ? -1 : 0;
}

/* The files of dir listed in names that exist, as "<source>:<file>". */
static void add_listed(const char *dir, const char *source, const char *const *names, size_t n,
		       struct lb_port_counters *c)
{
	char counter[LB_PORT_COUNTER_NAME];
	uint64_t v;
	for (size_t i = 0; i < n; i++) {
		if (read_u64(&v, dir, names[i]))
			continue;
		port_counter_name(counter, source, names[i]);
		port_counter_add(c, counter, v);
	}
}

/* The files of dir whose names say trouble, in name order (so that two
 * reads keep the same ones). */
static void add_trouble_files(const char *dir, const char *source, struct lb_port_counters *c)
{
	char counter[LB_PORT_COUNTER_NAME];
	struct dirent **names;
	uint64_t v;
	int n = scandir(dir, &names, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		if (name[0] != '.' && port_name_says_trouble(name) && read_u64(&v, dir, name) == 0) {
			port_counter_name(counter, source, name);
			port_counter_add(c, counter, v);
		}
		free(names[i]);
	}
	if (n >= 0)
		free(names);
}

void lb_port_counters_read(const char *sysroot, const struct lb_port_facts *f,
			   struct lb_port_counters *c)
{
	const char *root = port_root(sysroot);
	char dir[PATH_MAX];
	if (*f->ifname) {
		snprintf(dir, sizeof(dir), "%s/class/net/%s/statistics", root, f->ifname);
		add_listed(dir, "stat", netdev_stats, COUNT(netdev_stats), c);
	}
	if (*f->rdma_dev && f->rdma_port > 0) {
		snprintf(dir, sizeof(dir), "%s/class/infiniband/%s/ports/%d/counters", root,
			 f->rdma_dev, (int)f->rdma_port);
		add_listed(dir, "rdma", rdma_port_stats, COUNT(rdma_port_stats), c);
		snprintf(dir, sizeof(dir), "%s/class/infiniband/%s/ports/%d/hw_counters", root,
			 f->rdma_dev, (int)f->rdma_port);
		add_trouble_files(dir, "rdma", c);
	}
	if (port_is_live(sysroot) && *f->ifname)
		port_ethtool_counters(f->ifname, c);
}

void lb_port_counters_delta(const struct lb_port_counters *before,
			    const struct lb_port_counters *after, struct lb_port_counters *delta)
{
	struct lb_port_counters d; /* delta may be before or after */
	memset(&d, 0, sizeof(d));
	d.n = after->n <= LB_PORT_COUNTERS_MAX ? after->n : LB_PORT_COUNTERS_MAX;
	for (uint32_t i = 0; i < d.n; i++) {
		const struct lb_port_counter *b = find(before, after->c[i].name);
		d.c[i] = after->c[i];
		if (b && b->value <= d.c[i].value)
			d.c[i].value -= b->value;
	}
	*delta = d;
}

int64_t lb_port_counter(const struct lb_port_counters *c, const char *name)
{
	const struct lb_port_counter *found = find(c, name);
	if (!found)
		return -1;
	return found->value <= INT64_MAX ? (int64_t)found->value : INT64_MAX;
}
