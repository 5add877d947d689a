/* ARP probes from one interface; see arpprobe.h. */
#include "arpprobe.h"

#include "lib/error.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <math.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* An unanswered address is asked again this often: one lost request or
 * reply (a busy switch, a queue) costs a tenth of a second, not the probe. */
#define RESEND_S 0.1

/* An ARP packet for IPv4 over Ethernet (RFC 826), as the packet socket
 * (SOCK_DGRAM) hands it over: without the Ethernet header. */
struct arp_ipv4 {
	uint16_t hw_type, proto;
	uint8_t hw_len, proto_len;
	uint16_t op;
	uint8_t sender_hw[ETH_ALEN], sender_ip[4];
	uint8_t target_hw[ETH_ALEN], target_ip[4];
} __attribute__((packed));

/* The bound socket and what a probe and its answers carry. */
struct probe {
	int fd, ifindex;
	const char *ifname;
	uint8_t mac[ETH_ALEN];
};

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int parse_addrs(const char *const *addrs, size_t n, struct in_addr *ips, char *err,
		       size_t errlen)
{
	for (size_t i = 0; i < n; i++)
		if (!addrs[i] || inet_pton(AF_INET, addrs[i], &ips[i]) != 1)
			return lb_errf(err, errlen, "arp probe: bad IPv4 address '%s'",
				       addrs[i] ? addrs[i] : "(null)");
	return 0;
}

/* The interface's index: its name is checked before the socket is asked
 * for, so a caller without CAP_NET_RAW still hears of a misspelt name. */
static int find_index(struct probe *p, char *err, size_t errlen)
{
	if (strlen(p->ifname) >= IFNAMSIZ || !(p->ifindex = (int)if_nametoindex(p->ifname)))
		return lb_errf(err, errlen, "arp probe: no such interface '%s'", p->ifname);
	return 0;
}

static int open_socket(struct probe *p, char *err, size_t errlen)
{
	p->fd = socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC, htons(ETH_P_ARP));
	if (p->fd >= 0)
		return 0;
	if (errno == EPERM || errno == EACCES)
		return lb_errf(err, errlen,
			       "arp probe on %s: a packet socket needs CAP_NET_RAW "
			       "(run as root, or setcap cap_net_raw+ep on the program)",
			       p->ifname);
	return lb_errf(err, errlen, "arp probe on %s: packet socket: %s", p->ifname,
		       strerror(errno));
}

/* The interface's MAC, and the socket bound to it; only Ethernet-like
 * links carry ARP as RFC 826 lays it out here (InfiniBand's IPoIB has
 * 20-byte addresses). */
static int bind_interface(struct probe *p, char *err, size_t errlen)
{
	struct ifreq ifr = {0};
	memcpy(ifr.ifr_name, p->ifname, strlen(p->ifname));
	if (ioctl(p->fd, SIOCGIFHWADDR, &ifr) < 0)
		return lb_errf(err, errlen, "arp probe on %s: its hardware address: %s", p->ifname,
			       strerror(errno));
	if (ifr.ifr_hwaddr.sa_family != ARPHRD_ETHER)
		return lb_errf(err, errlen,
			       "arp probe on %s: not an Ethernet interface (hardware type %u)",
			       p->ifname, (unsigned)ifr.ifr_hwaddr.sa_family);
	memcpy(p->mac, ifr.ifr_hwaddr.sa_data, ETH_ALEN);
	struct sockaddr_ll at = {.sll_family = AF_PACKET,
				 .sll_protocol = htons(ETH_P_ARP),
				 .sll_ifindex = p->ifindex};
	if (bind(p->fd, (struct sockaddr *)&at, sizeof(at)) < 0)
		return lb_errf(err, errlen, "arp probe on %s: bind: %s", p->ifname, strerror(errno));
	return 0;
}

/* Who-has `ip`, from our MAC and 0.0.0.0 (RFC 5227: the target answers,
 * nobody learns a mapping from it), to the broadcast address. */
static int send_probe(const struct probe *p, struct in_addr ip, char *err, size_t errlen)
{
	struct arp_ipv4 a = {.hw_type = htons(ARPHRD_ETHER),
			     .proto = htons(ETH_P_IP),
			     .hw_len = ETH_ALEN,
			     .proto_len = 4,
			     .op = htons(ARPOP_REQUEST)};
	memcpy(a.sender_hw, p->mac, ETH_ALEN);
	memcpy(a.target_ip, &ip, 4);
	struct sockaddr_ll to = {.sll_family = AF_PACKET,
				 .sll_protocol = htons(ETH_P_ARP),
				 .sll_ifindex = p->ifindex,
				 .sll_halen = ETH_ALEN};
	memset(to.sll_addr, 0xff, ETH_ALEN);
	if (sendto(p->fd, &a, sizeof(a), 0, (struct sockaddr *)&to, sizeof(to)) == (ssize_t)sizeof(a))
		return 0;
	if (errno == ENETDOWN)
		return lb_errf(err, errlen, "arp probe on %s: the interface is down", p->ifname);
	/* A full queue (ENOBUFS) loses one request: the next round asks again. */
	if (errno == ENOBUFS || errno == EAGAIN)
		return 0;
	return lb_errf(err, errlen, "arp probe on %s: send: %s", p->ifname, strerror(errno));
}

static int send_unanswered(const struct probe *p, const struct in_addr *ips, size_t n,
			   const int *answered, char *err, size_t errlen)
{
	for (size_t i = 0; i < n; i++)
		if (!answered[i] && send_probe(p, ips[i], err, errlen))
			return -1;
	return 0;
}

/* The address index a received packet answers, or -1: an ARP reply on this
 * interface, to our MAC (so to a probe of ours, not some other host's
 * request), whose sender is one of the probed addresses. */
static int answer_of(const struct probe *p, const struct arp_ipv4 *a, ssize_t len,
		     const struct sockaddr_ll *from, const struct in_addr *ips, size_t n)
{
	if (len < (ssize_t)sizeof(*a) || from->sll_ifindex != p->ifindex ||
	    from->sll_pkttype == PACKET_OUTGOING || a->op != htons(ARPOP_REPLY) ||
	    a->proto != htons(ETH_P_IP) || a->hw_len != ETH_ALEN || a->proto_len != 4 ||
	    memcmp(a->target_hw, p->mac, ETH_ALEN) != 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (memcmp(a->sender_ip, &ips[i], 4) == 0)
			return (int)i;
	return -1;
}

/* Reads every packet waiting; marks the addresses they answer. */
static size_t take_answers(const struct probe *p, const struct in_addr *ips, size_t n,
			   int *answered, char (*macs)[LB_ARP_MAC_TEXT])
{
	size_t got = 0;
	for (;;) {
		struct arp_ipv4 a;
		struct sockaddr_ll from;
		socklen_t fromlen = sizeof(from);
		ssize_t len = recvfrom(p->fd, &a, sizeof(a), MSG_DONTWAIT, (struct sockaddr *)&from,
				       &fromlen);
		if (len < 0)
			return got;
		int i = answer_of(p, &a, len, &from, ips, n);
		if (i >= 0 && !answered[i]) {
			answered[i] = 1;
			got++;
			if (macs) {
				const uint8_t *m = a.sender_hw;
				snprintf(macs[i], LB_ARP_MAC_TEXT, "%02x:%02x:%02x:%02x:%02x:%02x", m[0],
					 m[1], m[2], m[3], m[4], m[5]);
			}
		}
	}
}

/* Asks every unanswered address every RESEND_S until all answered or the
 * time is up; returns how many answered, or -1. */
static int probe_loop(const struct probe *p, const struct in_addr *ips, size_t n, double seconds,
		      int *answered, char (*macs)[LB_ARP_MAC_TEXT], char *err, size_t errlen)
{
	double end = now_s() + seconds, next_send = 0;
	size_t got = 0;
	for (;;) {
		double t = now_s();
		if (got == n || t >= end)
			return (int)got;
		if (t >= next_send) {
			if (send_unanswered(p, ips, n, answered, err, errlen))
				return -1;
			next_send = t + RESEND_S;
		}
		double wait = fmin(end, next_send) - now_s();
		struct pollfd pfd = {.fd = p->fd, .events = POLLIN};
		int ready = poll(&pfd, 1, wait > 0 ? (int)ceil(wait * 1e3) : 0);
		if (ready < 0 && errno != EINTR)
			return lb_errf(err, errlen, "arp probe on %s: poll: %s", p->ifname,
				       strerror(errno));
		if (ready > 0)
			got += take_answers(p, ips, n, answered, macs);
	}
}

int lb_arp_probe(const char *ifname, const char *const *addrs, size_t n, double seconds,
		 int *answered, char (*macs)[LB_ARP_MAC_TEXT], char *err, size_t errlen)
{
	if (!(seconds >= 0 && seconds <= 3600)) /* NaN too */
		return lb_errf(err, errlen, "arp probe on %s: bad probe time %g s (0..3600)", ifname,
			       seconds);
	struct in_addr *ips = calloc(n ? n : 1, sizeof(*ips));
	if (!ips)
		return lb_errf(err, errlen, "arp probe on %s: out of memory for %zu addresses", ifname,
			       n);
	struct probe p = {.fd = -1, .ifname = ifname};
	int rc = parse_addrs(addrs, n, ips, err, errlen);
	for (size_t i = 0; i < n; i++) {
		answered[i] = 0;
		if (macs)
			macs[i][0] = '\0';
	}
	if (!rc)
		rc = find_index(&p, err, errlen);
	if (!rc)
		rc = open_socket(&p, err, errlen);
	if (!rc)
		rc = bind_interface(&p, err, errlen);
	if (!rc)
		rc = probe_loop(&p, ips, n, seconds, answered, macs, err, errlen);
	if (p.fd >= 0)
		close(p.fd);
	free(ips);
	return rc;
}
