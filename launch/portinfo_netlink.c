/* The link's lane count (4 for 100GBASE-CR4, 2 for 100GBASE-CR2): only
 * ethtool's netlink interface tells it (ETHTOOL_A_LINKMODES_LANES, kernel
 * >= 5.10); the ioctl's struct ethtool_link_settings has no field for it.
 * One generic-netlink request and its answer: the family's id, then
 * LINKMODES_GET for the interface.  Live systems only. */
#include "portinfo_private.h"

#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <net/if.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

/* A request: room for the family name or a header nest with an
 * interface name and flags. */
struct request {
	struct nlmsghdr nl;
	struct genlmsghdr genl;
	char attrs[128];
};

/* A compact-bitset LINKMODES answer is a few hundred bytes; a larger one
 * is cut, and its first attributes are still whole. */
#define ANSWER_MAX 8192

static struct nlattr *put_attr(struct request *r, uint16_t type, const void *data, size_t len)
{
	struct nlattr *a = (struct nlattr *)((char *)r + NLMSG_ALIGN(r->nl.nlmsg_len));
	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	if (len)
		memcpy((char *)a + NLA_HDRLEN, data, len);
	r->nl.nlmsg_len = NLMSG_ALIGN(r->nl.nlmsg_len) + NLA_ALIGN(a->nla_len);
	return a;
}

static void start(struct request *r, uint16_t family, uint8_t cmd, uint8_t version)
{
	memset(r, 0, sizeof(*r));
	r->nl.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	r->nl.nlmsg_type = family;
	r->nl.nlmsg_flags = NLM_F_REQUEST;
	r->nl.nlmsg_seq = 1;
	r->genl.cmd = cmd;
	r->genl.version = version;
}

/* Sends r, receives its answer's attributes into buf: their length, or
 * -1 (an error answer, a timeout, a foreign message). */
static int transact(int fd, struct request *r, char *buf, size_t len)
{
	if (send(fd, r, r->nl.nlmsg_len, 0) != (ssize_t)r->nl.nlmsg_len)
		return -1;
	ssize_t n = recv(fd, buf, len, 0);
	const struct nlmsghdr *h = (const struct nlmsghdr *)buf;
	if (n < (ssize_t)NLMSG_LENGTH(GENL_HDRLEN) || h->nlmsg_type != r->nl.nlmsg_type ||
	    h->nlmsg_seq != r->nl.nlmsg_seq)
		return -1; /* NLMSG_ERROR's type differs from the family's */
	size_t whole = h->nlmsg_len < (size_t)n ? h->nlmsg_len : (size_t)n;
	size_t head = NLMSG_LENGTH(GENL_HDRLEN);
	memmove(buf, buf + head, whole - head);
	return (int)(whole - head);
}

/* The payload of attribute `type` among attrs, of at least `len` bytes. */
static const void *find_attr(const char *attrs, int n, uint16_t type, size_t len)
{
	for (int at = 0; at + NLA_HDRLEN <= n;) {
		const struct nlattr *a = (const struct nlattr *)(attrs + at);
		if (a->nla_len < NLA_HDRLEN || at + a->nla_len > n)
			return NULL;
		if ((a->nla_type & NLA_TYPE_MASK) == type && a->nla_len >= NLA_HDRLEN + len)
			return attrs + at + NLA_HDRLEN;
		at += NLA_ALIGN(a->nla_len);
	}
	return NULL;
}

static int ethtool_family(int fd, char *buf)
{
	struct request r;
	uint16_t id;
	start(&r, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1);
	put_attr(&r, CTRL_ATTR_FAMILY_NAME, ETHTOOL_GENL_NAME, sizeof(ETHTOOL_GENL_NAME));
	int n = transact(fd, &r, buf, ANSWER_MAX);
	const void *p = n > 0 ? find_attr(buf, n, CTRL_ATTR_FAMILY_ID, sizeof(id)) : NULL;
	if (!p)
		return -1;
	memcpy(&id, p, sizeof(id));
	return id;
}

static int netlink_socket(void)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	struct timeval bound = {.tv_sec = 1}; /* the kernel answers at once: bound it all the same */
	if (fd >= 0 && setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &bound, sizeof(bound))) {
		close(fd);
		return -1;
	}
	return fd;
}

int port_ethtool_lanes(const char *ifname)
{
	_Alignas(struct nlmsghdr) char buf[ANSWER_MAX];
	struct request r;
	uint32_t flags = ETHTOOL_FLAG_COMPACT_BITSETS, lanes = 0;
	size_t len = strlen(ifname);
	int fd = netlink_socket();
	int family = fd >= 0 && len < IFNAMSIZ ? ethtool_family(fd, buf) : -1;
	if (family > 0) {
		start(&r, (uint16_t)family, ETHTOOL_MSG_LINKMODES_GET, ETHTOOL_GENL_VERSION);
		struct nlattr *nest = put_attr(&r, ETHTOOL_A_LINKMODES_HEADER | NLA_F_NESTED, NULL, 0);
		put_attr(&r, ETHTOOL_A_HEADER_DEV_NAME, ifname, len + 1);
		put_attr(&r, ETHTOOL_A_HEADER_FLAGS, &flags, sizeof(flags));
		nest->nla_len = (uint16_t)((char *)&r + r.nl.nlmsg_len - (char *)nest);
		int n = transact(fd, &r, buf, sizeof(buf));
		const void *p = n > 0 ? find_attr(buf, n, ETHTOOL_A_LINKMODES_LANES, sizeof(lanes)) : NULL;
		if (p)
			memcpy(&lanes, p, sizeof(lanes));
	}
	if (fd >= 0)
		close(fd);
	return lanes <= 64 ? (int)lanes : 0;
}
