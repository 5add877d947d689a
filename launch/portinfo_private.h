/* Internal to launch/portinfo*.c: nothing else includes this header;
 * launch/portinfo.h is the interface.  portinfo.c reads the facts,
 * portinfo_counters.c the counters, portinfo_ethtool.c asks the kernel
 * through the ethtool ioctl (live systems only). */
#ifndef LB_PORTINFO_PRIVATE_H
#define LB_PORTINFO_PRIVATE_H

#include <stddef.h>
#include <stdint.h>

#include "transports/port.h"

/* The sysfs root a reader was given: NULL means the live "/sys". */
const char *port_root(const char *sysroot);
/* Whether it is the live system, where the ethtool ioctl and getifaddrs
 * speak for the same ports as the files. */
int port_is_live(const char *sysroot);

/* The first line of the file at the formatted path, without its newline,
 * into buf: 0, or -errno (a down link's carrier fails with -EINVAL). */
int port_read_line(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A decimal number from the file at the formatted path: 0, or -1. */
int port_read_long(long *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Appends counter name = value to c unless c has it already.  When c is
 * full its last slot becomes "portinfo:not_kept", the number of counters
 * that did not fit, so that nothing is lost without a trace. */
void port_counter_add(struct lb_port_counters *c, const char *name, uint64_t value);
#define PORT_NOT_KEPT "portinfo:not_kept"
/* "<source>:<name>" into out (LB_PORT_COUNTER_NAME bytes), cut to fit --
 * a long name keeps its start, which says what it counts; 1 when cut. */
int port_counter_name(char *out, const char *source, const char *name);

/* Whether a counter's name says trouble: an error, a drop, a retry. */
int port_name_says_trouble(const char *name);

/* The ethtool ioctl on f->ifname: driver, its version, firmware, bus
 * (those still unknown), and the link speed when believe_speed.  1 when
 * the kernel answered at least one request, else 0. */
int port_ethtool_facts(struct lb_port_facts *f, int believe_speed);
/* The link's lanes from ethtool's netlink (the ioctl has no field for
 * them): > 0, or 0 when unknown (kernel < 5.10, a driver that does not
 * say, a virtual interface). */
int port_ethtool_lanes(const char *ifname);
/* Appends the driver's statistics (ethtool -S) whose names say trouble. */
void port_ethtool_counters(const char *ifname, struct lb_port_counters *c);

#endif
