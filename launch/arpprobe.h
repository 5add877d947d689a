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

/* Probes addrs[0..n) (dotted IPv4) from interface ifname for at most
 * `seconds` (ends early when every address answered); answered[i] = 1 for
 * each that did.  Returns the number that answered, or -1 with a reason
 * (no such interface, no CAP_NET_RAW, ...) in err. */
int lb_arp_probe(const char *ifname, const char *const *addrs, size_t n, double seconds,
		 int *answered, char *err, size_t errlen);

#endif
