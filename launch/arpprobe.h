/* Where a port is cabled: ARP requests for given IPv4 addresses sent from
 * one network interface (a packet socket bound to it, as arping does;
 * sender address 0.0.0.0, an RFC 5227 probe, so no neighbour cache is
 * written), and which of them answer on that wire.  A port whose own
 * rail's peers do not answer but another rail's do is cabled into the
 * other rail's switch.  Needs CAP_NET_RAW. */
#ifndef LB_ARPPROBE_H
#define LB_ARPPROBE_H

#include <stddef.h>
#include <stdint.h>

/* The hardware address an answer came from, "02:00:00:00:01:03". */
#define LB_ARP_MAC_TEXT 18

/* Probes addrs[0..n) (dotted IPv4) from interface ifname for at most
 * `seconds` (ends early when every address answered); answered[i] = 1 for
 * each that did, and, when macs is not NULL, macs[i] the MAC of the port
 * that answered ("" none) -- which port answered tells the wiring even
 * where a host answers for all its addresses on every interface (Linux's
 * default, arp_ignore 0).  Returns the number that answered, or -1 with a
 * reason (no such interface, no CAP_NET_RAW, ...) in err. */
int lb_arp_probe(const char *ifname, const char *const *addrs, size_t n, double seconds,
		 int *answered, char (*macs)[LB_ARP_MAC_TEXT], char *err, size_t errlen);

#endif
