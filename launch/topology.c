/* Topology and pinning with hwloc 2.x (see topology.h). */
#include "topology.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include <hwloc.h>

#include "lib/error.h"

#if HWLOC_API_VERSION < 0x00020000 || HWLOC_API_VERSION >= 0x00030000
#error "launch/topology.c is written for the hwloc 2.x API (OS device types change in 3.0)"
#endif

#define REPORT_MAX_LANES 64

struct lb_topo {
	hwloc_topology_t h;
	char source[256];       /* XML file it was loaded from; "" = this machine */
};

/* strerror is not thread-safe and bind runs in several threads. */
static const char *errstr(int e, char *buf, size_t n)
{
#if defined(_GNU_SOURCE) && defined(__GLIBC__)
	return strerror_r(e, buf, n);   /* the GNU variant */
#else
	return strerror_r(e, buf, n) ? "unknown error" : buf;
#endif
}

/* ---------------------------------------------------------------- open */

static const char *xml_source(void)
{
	const char *x = getenv("LANEBENCH_TOPOLOGY_XML");
	if (!x || !*x)
		x = getenv("HWLOC_XMLFILE");
	return x && *x ? x : NULL;
}

/* Discovery components we do not need, each dragging a foreign library
 * into every rank: GPU ones (gl may even contact an X server), and on Linux
 * libpciaccess ("pci"), whose PCI tree the Linux backend reads from sysfs
 * anyway, and whose allocations are left behind when hwloc unloads it
 * (LeakSanitizer reports them).  Absent components are fine. */
static void skip_components(struct lb_topo *t)
{
#if HWLOC_API_VERSION >= 0x00020100
	static const char *const skip[] = {
		"gl", "opencl", "cuda", "nvml", "rsmi", "levelzero",
#ifdef __linux__
		"pci",
#endif
	};
	for (size_t i = 0; i < sizeof(skip) / sizeof(skip[0]); i++)
		(void)hwloc_topology_set_components(t->h, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, skip[i]);
#else
	(void)t;
#endif
}

/* Discovery with the I/O devices that matter (NICs and their PCI path);
 * the refresh settles hwloc's lazy caches so later reads are read-only. */
static int load(struct lb_topo *t, char *err, size_t len)
{
	const char *xml = xml_source();
	char e[128];
	skip_components(t);
	if (hwloc_topology_set_io_types_filter(t->h, HWLOC_TYPE_FILTER_KEEP_IMPORTANT))
		return lb_errf(err, len, "hwloc: cannot enable I/O discovery: %s", errstr(errno, e, sizeof(e)));
	if (xml) {
		snprintf(t->source, sizeof(t->source), "%s", xml);
		if (hwloc_topology_set_xml(t->h, xml))
			return lb_errf(err, len, "hwloc: cannot use XML topology '%s': %s", xml,
				       errstr(errno, e, sizeof(e)));
	}
	if (hwloc_topology_load(t->h))
		return lb_errf(err, len, "hwloc: cannot load the topology of %s: %s",
			       xml ? xml : "this machine", errstr(errno, e, sizeof(e)));
	if (hwloc_topology_refresh(t->h))
		return lb_errf(err, len, "hwloc: cannot refresh the topology: %s", errstr(errno, e, sizeof(e)));
	return 0;
}

int lb_topo_open(struct lb_topo **out, char *err, size_t len)
{
	unsigned lib = hwloc_get_api_version();
	struct lb_topo *t = NULL;
	*out = NULL;
	if (lib >> 16 != HWLOC_API_VERSION >> 16)
		return lb_errf(err, len, "hwloc library API 0x%x does not match the headers' 0x%x",
			       lib, (unsigned)HWLOC_API_VERSION);
	t = calloc(1, sizeof(*t));
	if (!t)
		return lb_errf(err, len, "out of memory");
	if (hwloc_topology_init(&t->h)) {
		lb_errf(err, len, "hwloc_topology_init failed");
		goto fail_init;
	}
	if (load(t, err, len))
		goto fail_load;
	*out = t;
	return 0;
fail_load:
	hwloc_topology_destroy(t->h);
fail_init:
	free(t);
	return -1;
}

void lb_topo_close(struct lb_topo *t)
{
	if (!t)
		return;
	hwloc_topology_destroy(t->h);
	free(t);
}

/* ---------------------------------------------------------------- NICs */

static const char *nic_kind(hwloc_obj_t o)
{
	switch (o->attr->osdev.type) {
	case HWLOC_OBJ_OSDEV_NETWORK:
		return "network";
	case HWLOC_OBJ_OSDEV_OPENFABRICS:
		return "openfabrics";
	default:
		return NULL;
	}
}

static hwloc_obj_t pci_of(hwloc_obj_t o)
{
	while (o && o->type != HWLOC_OBJ_PCI_DEVICE)
		o = o->parent;
	return o;
}

/* Network devices behind PCI (virtual ones are not NICs) and every
 * OpenFabrics device (Soft-RoCE included). */
static int is_nic(hwloc_obj_t o)
{
	return o->name && nic_kind(o) &&
	       (o->attr->osdev.type == HWLOC_OBJ_OSDEV_OPENFABRICS || pci_of(o));
}

static hwloc_obj_t next_nic(const struct lb_topo *t, hwloc_obj_t prev)
{
	do
		prev = hwloc_get_next_osdev(t->h, prev);
	while (prev && !is_nic(prev));
	return prev;
}

/* The NUMA node of a nodeset holding exactly one, else -1. */
static int numa_of(hwloc_const_nodeset_t ns)
{
	return ns && hwloc_bitmap_weight(ns) == 1 ? hwloc_bitmap_first(ns) : -1;
}

static void fill_nic(const struct lb_topo *t, hwloc_obj_t o, struct lb_nic *n)
{
	hwloc_obj_t near = hwloc_get_non_io_ancestor_obj(t->h, o), pci = pci_of(o);
	const char *kind = nic_kind(o);
	memset(n, 0, sizeof(*n));
	snprintf(n->name, sizeof(n->name), "%s", o->name);
	snprintf(n->kind, sizeof(n->kind), "%s", kind ? kind : "");
	if (pci)
		snprintf(n->pci, sizeof(n->pci), "%04x:%02x:%02x.%01x",
			 (unsigned)pci->attr->pcidev.domain, pci->attr->pcidev.bus,
			 pci->attr->pcidev.dev, pci->attr->pcidev.func);
	n->numa = numa_of(near->nodeset);
	hwloc_bitmap_list_snprintf(n->cpus, sizeof(n->cpus), near->cpuset);
}

int lb_topo_nics(struct lb_topo *t, struct lb_nic *out, int max)
{
	int n = 0;
	for (hwloc_obj_t o = next_nic(t, NULL); o && n < max; o = next_nic(t, o))
		fill_nic(t, o, &out[n++]);
	return n;
}

/* ------------------------------------------------------- lane -> device */

/* The network or OpenFabrics OS device called name[0..n), or NULL. */
static hwloc_obj_t find_dev(const struct lb_topo *t, const char *name, size_t n)
{
	for (hwloc_obj_t o = hwloc_get_next_osdev(t->h, NULL); o; o = hwloc_get_next_osdev(t->h, o))
		if (o->name && nic_kind(o) && strlen(o->name) == n && strncmp(o->name, name, n) == 0)
			return o;
	return NULL;
}

/* ":1", the port suffix of "mlx5_0:1". */
static int is_port(const char *s)
{
	return s[0] == ':' && s[1] && strspn(s + 1, "0123456789") == strlen(s + 1);
}

static int has_ipv4(const struct ifaddrs *i, struct in_addr a)
{
	struct sockaddr_in sin;
	if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET)
		return 0;
	memcpy(&sin, i->ifa_addr, sizeof(sin));
	return sin.sin_addr.s_addr == a.s_addr;
}

/* The local interface called `name`, or holding IPv4 address `name`, into
 * ifname: 0, 1 when there is none, -1 when getifaddrs fails. */
static int local_iface(const char *name, char *ifname, size_t n, char *err, size_t len)
{
	struct in_addr a;
	struct ifaddrs *all, *i;
	char e[128];
	int ip = inet_pton(AF_INET, name, &a) == 1;
	if (getifaddrs(&all))
		return lb_errf(err, len, "lane '%s': getifaddrs: %s", name, errstr(errno, e, sizeof(e)));
	for (i = all; i; i = i->ifa_next)
		if (ip ? has_ipv4(i, a) : strcmp(i->ifa_name, name) == 0)
			break;
	if (i)
		snprintf(ifname, n, "%s", i->ifa_name);
	freeifaddrs(all);
	return i ? 0 : 1;
}

/* An RDMA device hwloc does not list (Soft-RoCE rxe, siw: no PCI parent). */
static int rdma_device(const char *name, size_t n)
{
	char path[160];
	snprintf(path, sizeof(path), "/sys/class/infiniband/%.*s", (int)n, name);
	return n > 0 && n < 64 && access(path, F_OK) == 0;
}

/* The device behind a lane name: *dev is its hwloc object, or NULL for a
 * local interface or RDMA device hwloc does not know (veth, bridge, lo, rxe). */
static int resolve(const struct lb_topo *t, const char *name, hwloc_obj_t *dev, char *err, size_t len)
{
	char ifname[64];
	size_t base = strcspn(name, ":");
	int rc;
	*dev = find_dev(t, name, strlen(name));
	if (!*dev && is_port(name + base))
		*dev = find_dev(t, name, base);
	if (*dev || (rdma_device(name, base) && (!name[base] || is_port(name + base))))
		return 0;
	rc = local_iface(name, ifname, sizeof(ifname), err, len);
	if (rc > 0)
		return lb_errf(err, len, "lane '%s' is neither a NIC hwloc knows nor a local interface or IPv4 address",
			       name);
	if (rc == 0) /* an alias label "eth0:1" is eth0 */
		*dev = find_dev(t, ifname, strcspn(ifname, ":"));
	return rc;
}

/* ------------------------------------------------------------ PU choice */

struct pick {
	hwloc_obj_t pu;
	int key[4];             /* compared in order, smaller is better */
	int free_local;         /* near the NIC and no other lane on it */
	int pu_use, core_use;   /* lanes already on this PU, on its core */
};

static hwloc_obj_t core_of(const struct lb_topo *t, hwloc_obj_t pu)
{
	hwloc_obj_t c = hwloc_get_ancestor_obj_by_type(t->h, HWLOC_OBJ_CORE, pu);
	return c ? c : pu;
}

/* Local free PUs first (on the least-used core), then the least-used PU of
 * the machine, on the least-used core, near the NIC when it is a tie. */
static struct pick rate(const struct lb_topo *t, const struct lb_lane_plan *plan, int i,
			hwloc_obj_t pu, hwloc_const_cpuset_t local)
{
	struct pick c = { .pu = pu };
	int near = local && hwloc_bitmap_isset(local, pu->os_index);
	for (int j = 0; j < i; j++) {
		hwloc_obj_t q = plan[j].core < 0 ? NULL
			: hwloc_get_pu_obj_by_os_index(t->h, (unsigned)plan[j].core);
		c.pu_use += q == pu;
		c.core_use += q && core_of(t, q) == core_of(t, pu);
	}
	c.free_local = near && c.pu_use == 0;
	c.key[0] = !c.free_local;
	c.key[1] = c.pu_use;
	c.key[2] = c.core_use;
	c.key[3] = !near;
	return c;
}

static int better(const struct pick *a, const struct pick *b)
{
	for (size_t k = 0; k < sizeof(a->key) / sizeof(a->key[0]); k++)
		if (a->key[k] != b->key[k])
			return a->key[k] < b->key[k];
	return 0;
}

static struct pick choose(const struct lb_topo *t, const struct lb_lane_plan *plan, int i,
			  hwloc_const_cpuset_t local)
{
	struct pick best = { .pu = NULL };
	hwloc_obj_t pu = NULL;
	while ((pu = hwloc_get_next_obj_by_type(t->h, HWLOC_OBJ_PU, pu))) {
		struct pick c = rate(t, plan, i, pu, local);
		if (!best.pu || better(&c, &best))
			best = c;
	}
	return best;
}

/* ---------------------------------------------------------------- plan */

__attribute__((format(printf, 2, 3)))
static void add_note(struct lb_lane_plan *p, const char *fmt, ...)
{
	size_t used = strlen(p->note);
	va_list ap;
	if (used && used + 2 < sizeof(p->note))
		used += (size_t)snprintf(p->note + used, sizeof(p->note) - used, "; ");
	va_start(ap, fmt);
	vsnprintf(p->note + used, sizeof(p->note) - used, fmt, ap);
	va_end(ap);
}

static void explain(const struct lb_topo *t, struct lb_lane_plan *p, const struct pick *c,
		    hwloc_obj_t near)
{
	if (!p->found)
		add_note(p, "unknown to hwloc (virtual interface?): locality unknown, least-used PU");
	else if (!c->free_local)
		add_note(p, "all %d PUs near the NIC are taken by other lanes: least-used PU",
			 hwloc_bitmap_weight(near->cpuset));
	if (c->pu_use)
		add_note(p, "PU %d shared with %d other lane(s)", p->core, c->pu_use);
	else if (c->core_use)
		add_note(p, "core shared with another lane (SMT sibling)");
	if (p->found && p->nic_numa < 0 && hwloc_get_nbobjs_by_type(t->h, HWLOC_OBJ_NUMANODE) > 1)
		add_note(p, "hwloc does not know the NIC's NUMA node");
	if (p->nic_numa >= 0 && p->core_numa >= 0 && p->nic_numa != p->core_numa)
		add_note(p, "warning: remote NUMA node: PU %d is on node %d, the NIC on node %d",
			 p->core, p->core_numa, p->nic_numa);
}

/* plan[i] for a lane whose name is set: dev NULL = locality unknown. */
static void plan_lane(const struct lb_topo *t, struct lb_lane_plan *plan, int i, hwloc_obj_t dev)
{
	struct lb_lane_plan *p = &plan[i];
	hwloc_obj_t near = dev ? hwloc_get_non_io_ancestor_obj(t->h, dev) : NULL;
	struct pick c = choose(t, plan, i, near ? near->cpuset : NULL);
	p->found = dev != NULL;
	p->nic_numa = near ? numa_of(near->nodeset) : -1;
	p->core = c.pu ? (int)c.pu->os_index : -1;
	p->core_numa = c.pu ? numa_of(c.pu->nodeset) : -1;
	if (c.pu)
		explain(t, p, &c, near);
	else
		add_note(p, "hwloc lists no PU to bind to");
}

static void start_lane(struct lb_lane_plan *p, const char *name, size_t n)
{
	memset(p, 0, sizeof(*p));
	memcpy(p->name, name, n);
	p->name[n] = '\0';
	p->core = p->nic_numa = p->core_numa = -1;
}

/* Every NIC, or only those of one kind ("auto:network", "auto:openfabrics"):
 * one RoCE NIC is both an interface and a verbs device, and a transport
 * uses one face of it, not both. */
static int plan_auto(const struct lb_topo *t, const char *kind, struct lb_lane_plan *plan,
		     int max, int *k, char *err, size_t len)
{
	for (hwloc_obj_t o = next_nic(t, NULL); o; o = next_nic(t, o)) {
		if (kind && strcmp(nic_kind(o), kind) != 0)
			continue;
		if (*k == max)
			return lb_errf(err, len, "NICs 'auto': more than %d NICs; name them (--nics)", max);
		start_lane(&plan[*k], o->name, strnlen(o->name, sizeof(plan->name) - 1));
		plan_lane(t, plan, (*k)++, o);
	}
	if (*k == 0 && kind)
		return lb_errf(err, len, "NICs 'auto:%s': hwloc found no %s NIC; name them (--nics)",
			       kind, kind);
	if (*k == 0)
		return lb_errf(err, len, "NICs 'auto': hwloc found no NIC (network device behind PCI, "
			       "or OpenFabrics device); name them (--nics)");
	return 0;
}

/* A NIC list no host could have is a bad input: the message, and
 * LB_EINPUT (exit 2) instead of -1. */
__attribute__((format(printf, 3, 4)))
static int refused(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (err && len)
		vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return LB_EINPUT;
}

static int plan_named(const struct lb_topo *t, const char *lanes, struct lb_lane_plan *plan,
		      int max, int *k, char *err, size_t len)
{
	const char *s = lanes;
	for (;;) {
		size_t n = strcspn(s, ",");
		hwloc_obj_t dev;
		if (*k == max)
			return refused(err, len, "too many lanes in '%s' (at most %d)", lanes, max);
		if (n == 0)
			return refused(err, len, "lane %d of '%s' has an empty name", *k, lanes);
		if (n >= sizeof(plan->name))
			return refused(err, len, "lane name '%.*s' is too long (at most %zu characters)",
				       (int)n, s, sizeof(plan->name) - 1);
		start_lane(&plan[*k], s, n);
		if (strcmp(plan[*k].name, "auto") == 0)
			return lb_errf(err, len, "NICs '%s': 'auto' cannot be combined with named NICs", lanes);
		if (resolve(t, plan[*k].name, &dev, err, len))
			return -1;
		plan_lane(t, plan, (*k)++, dev);
		if (s[n] == '\0')
			return 0;
		s += n + 1;
	}
}

int lb_topo_plan(struct lb_topo *t, const char *lanes, struct lb_lane_plan *plan, int max,
		 int *k, char *err, size_t len)
{
	*k = 0;
	if (!lanes)
		return lb_errf(err, len, "no NICs given");
	if (strcmp(lanes, "auto") == 0)
		return plan_auto(t, NULL, plan, max, k, err, len);
	if (strcmp(lanes, "auto:network") == 0 || strcmp(lanes, "auto:openfabrics") == 0)
		return plan_auto(t, lanes + 5, plan, max, k, err, len);
	if (strncmp(lanes, "auto:", 5) == 0)
		return lb_errf(err, len, "NICs '%s': the kinds are auto:network and auto:openfabrics",
			       lanes);
	return plan_named(t, lanes, plan, max, k, err, len);
}

/* ---------------------------------------------------------------- bind */

/* Reads the topology only; the cpuset passed is the PU's own. */
int lb_topo_bind_thread(struct lb_topo *t, int core, char *err, size_t len)
{
	hwloc_obj_t pu = core >= 0 ? hwloc_get_pu_obj_by_os_index(t->h, (unsigned)core) : NULL;
	char e[128];
	if (!pu)
		return lb_errf(err, len, "cannot bind to PU %d: no such PU in the topology", core);
	if (!hwloc_topology_is_thissystem(t->h))
		return lb_errf(err, len, "cannot bind to PU %d: the topology comes from '%s', not this machine",
			       core, t->source);
	if (hwloc_set_cpubind(t->h, pu->cpuset, HWLOC_CPUBIND_THREAD | HWLOC_CPUBIND_STRICT) == 0 ||
	    hwloc_set_cpubind(t->h, pu->cpuset, HWLOC_CPUBIND_THREAD) == 0)
		return 0;
	return lb_errf(err, len, "cannot bind thread to PU %d: %s", core, errstr(errno, e, sizeof(e)));
}

/* -------------------------------------------------------------- report */

static const char *num(int v, char *buf, size_t n)
{
	if (v < 0)
		return "?";
	snprintf(buf, n, "%d", v);
	return buf;
}

static void report_machine(const struct lb_topo *t, FILE *out)
{
	char cpus[256];
	fprintf(out, "machine: %d package(s), %d NUMA node(s), %d core(s), %d PU(s)%s%s%s\n",
		hwloc_get_nbobjs_by_type(t->h, HWLOC_OBJ_PACKAGE),
		hwloc_get_nbobjs_by_type(t->h, HWLOC_OBJ_NUMANODE),
		hwloc_get_nbobjs_by_type(t->h, HWLOC_OBJ_CORE),
		hwloc_get_nbobjs_by_type(t->h, HWLOC_OBJ_PU),
		t->source[0] ? " (from " : "", t->source, t->source[0] ? ")" : "");
	for (hwloc_obj_t n = hwloc_get_next_obj_by_type(t->h, HWLOC_OBJ_NUMANODE, NULL); n;
	     n = hwloc_get_next_obj_by_type(t->h, HWLOC_OBJ_NUMANODE, n)) {
		hwloc_bitmap_list_snprintf(cpus, sizeof(cpus), n->cpuset);
		fprintf(out, "  NUMA node %u: cpus %s\n", n->os_index, cpus);
	}
}

static void report_nics(const struct lb_topo *t, FILE *out)
{
	struct lb_nic n;
	char b[16];
	hwloc_obj_t o = next_nic(t, NULL);
	fprintf(out, "NICs:%s\n", o ? "" : " none (no network device behind PCI, no OpenFabrics device)");
	for (; o; o = next_nic(t, o)) {
		fill_nic(t, o, &n);
		fprintf(out, "  %-12s %-11s pci %-12s NUMA %-2s cpus %s\n", n.name, n.kind,
			n.pci[0] ? n.pci : "-", num(n.numa, b, sizeof(b)), n.cpus);
	}
}

static void report_plan(const char *lanes, const struct lb_lane_plan *plan, int k, FILE *out)
{
	char a[16], b[16], c[16];
	fprintf(out, "pinning plan for lanes '%s':\n", lanes);
	for (int i = 0; i < k; i++) {
		const struct lb_lane_plan *p = &plan[i];
		fprintf(out, "  lane %d %-12s -> PU %s on NUMA %s (NIC on NUMA %s): %s\n", i, p->name,
			num(p->core, a, sizeof(a)), num(p->core_numa, b, sizeof(b)),
			num(p->nic_numa, c, sizeof(c)), p->note[0] ? p->note : "near its NIC");
	}
}

int lb_topo_report(struct lb_topo *t, const char *lanes, FILE *out, char *err, size_t len)
{
	struct lb_lane_plan plan[REPORT_MAX_LANES];
	int k = 0;
	report_machine(t, out);
	report_nics(t, out);
	if (!lanes)
		return 0;
	if (lb_topo_plan(t, lanes, plan, REPORT_MAX_LANES, &k, err, len))
		return -1;
	report_plan(lanes, plan, k, out);
	return 0;
}
