/* Topology and pinning tests.
 *
 * Hand-made hwloc XML topologies in $LB_TOPO_DIR (default tests/data/topo):
 *   two-numa.xml  2 packages, each one NUMA node and 4 cores of 1 PU
 *                 (PUs 0-3 on node 0, 4-7 on node 1); PCI 0000:3b:00.0
 *                 carries eth2 + mlx5_0 near node 0, 0000:86:00.0 carries
 *                 eth3 + mlx5_1 near node 1; a SATA disk "sda" and a
 *                 virtual "virt0" (no PCI) that are not NICs.
 *   smt.xml       2 packages, each one NUMA node and 2 cores of 2 PUs
 *                 (cores {0,1} {2,3} on node 0, {4,5} {6,7} on node 1);
 *                 eth4 (PCI 0000:af:00.0) near node 1.
 * Then this machine (no XML): open, plan "lo,lo", and threads that bind
 * themselves at the same time and check where they run. */
#include "launch/topology.h"
#include "lib/error.h"

#include <arpa/inet.h>
#include <hwloc.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "tests/check.h"

#define MAXL 16

static char xml_dir[512] = "tests/data/topo";
static char err[512];

static struct lb_topo *open_xml(const char *file)
{
	char path[640];
	struct lb_topo *t = NULL;
	snprintf(path, sizeof(path), "%s/%s", xml_dir, file);
	setenv("LANEBENCH_TOPOLOGY_XML", path, 1);
	CHECK(lb_topo_open(&t, err, sizeof(err)) == 0 && t, "open %s: %s", path, err);
	return t;
}

/* Plans `lanes`, expecting success and `want` lanes. */
static int plan_ok(struct lb_topo *t, const char *lanes, struct lb_lane_plan *p, int want)
{
	int k = -1;
	int rc = lb_topo_plan(t, lanes, p, MAXL, &k, err, sizeof(err));
	CHECK(rc == 0, "plan '%s': %s", lanes, err);
	CHECK(k == want, "plan '%s': %d lanes, want %d", lanes, k, want);
	return rc == 0 && k == want;
}

/* Expects the plan to fail with rc (-1; LB_EINPUT: a list no host could
 * have) and an error mentioning `needle`. */
static void plan_fails_with(struct lb_topo *t, const char *lanes, int max, int rc,
			    const char *needle)
{
	struct lb_lane_plan p[MAXL];
	int k = 0;
	err[0] = '\0';
	int got = lb_topo_plan(t, lanes, p, max, &k, err, sizeof(err));
	CHECK(got == rc, "plan '%s': returned %d, want %d", lanes, got, rc);
	CHECK(strstr(err, needle) != NULL, "plan '%s': error '%s' lacks '%s'", lanes, err, needle);
}

static void plan_fails(struct lb_topo *t, const char *lanes, int max, const char *needle)
{
	plan_fails_with(t, lanes, max, -1, needle);
}

static void plan_refused(struct lb_topo *t, const char *lanes, int max, const char *needle)
{
	plan_fails_with(t, lanes, max, LB_EINPUT, needle);
}

static int distinct_cores(const struct lb_lane_plan *p, int k)
{
	for (int i = 0; i < k; i++)
		for (int j = 0; j < i; j++)
			if (p[i].core == p[j].core)
				return 0;
	return 1;
}

static void test_nics(struct lb_topo *t)
{
	static const struct lb_nic want[] = {
		{ "eth2", "network", "0000:3b:00.0", 0, "0-3" },
		{ "mlx5_0", "openfabrics", "0000:3b:00.0", 0, "0-3" },
		{ "eth3", "network", "0000:86:00.0", 1, "4-7" },
		{ "mlx5_1", "openfabrics", "0000:86:00.0", 1, "4-7" },
	};
	struct lb_nic n[8];
	int k = lb_topo_nics(t, n, 8);
	CHECK(k == 4, "%d NICs, want 4 (virt0 and sda are not NICs)", k);
	for (int i = 0; i < k && i < 4; i++) {
		CHECK(strcmp(n[i].name, want[i].name) == 0, "NIC %d is %s, want %s", i, n[i].name, want[i].name);
		CHECK(strcmp(n[i].kind, want[i].kind) == 0, "%s kind %s", n[i].name, n[i].kind);
		CHECK(strcmp(n[i].pci, want[i].pci) == 0, "%s pci '%s'", n[i].name, n[i].pci);
		CHECK(n[i].numa == want[i].numa, "%s numa %d", n[i].name, n[i].numa);
		CHECK(strcmp(n[i].cpus, want[i].cpus) == 0, "%s cpus '%s'", n[i].name, n[i].cpus);
	}
	CHECK(lb_topo_nics(t, n, 2) == 2, "max 2 not honoured");
}

static void test_two_rails(struct lb_topo *t)
{
	struct lb_lane_plan p[MAXL];
	if (!plan_ok(t, "eth2,eth3", p, 2))
		return;
	for (int i = 0; i < 2; i++) {
		CHECK(p[i].found && p[i].nic_numa == i && p[i].core_numa == i,
		      "%s: found %d nic_numa %d core_numa %d", p[i].name, p[i].found, p[i].nic_numa, p[i].core_numa);
		CHECK(p[i].core >= 4 * i && p[i].core < 4 * i + 4, "%s on PU %d", p[i].name, p[i].core);
		CHECK(p[i].note[0] == '\0', "%s: unexpected note '%s'", p[i].name, p[i].note);
	}
	CHECK(strcmp(p[0].name, "eth2") == 0 && strcmp(p[1].name, "eth3") == 0, "names %s %s", p[0].name, p[1].name);
}

static void test_overflow(struct lb_topo *t)
{
	struct lb_lane_plan p[MAXL];
	if (!plan_ok(t, "eth2,eth2,eth2,eth2,eth2", p, 5))
		return;
	CHECK(distinct_cores(p, 5), "PUs not distinct");
	for (int i = 0; i < 4; i++)
		CHECK(p[i].core < 4 && p[i].core_numa == 0 && p[i].note[0] == '\0',
		      "lane %d: PU %d numa %d note '%s'", i, p[i].core, p[i].core_numa, p[i].note);
	CHECK(p[4].core >= 4 && p[4].core_numa == 1 && p[4].nic_numa == 0, "lane 4: PU %d", p[4].core);
	CHECK(strstr(p[4].note, "remote NUMA") && strstr(p[4].note, "taken"), "lane 4 note '%s'", p[4].note);
}

static void test_names(struct lb_topo *t)
{
	struct lb_lane_plan p[MAXL];
	if (plan_ok(t, "mlx5_1:1", p, 1))
		CHECK(p[0].found && p[0].nic_numa == 1 && p[0].core_numa == 1 && p[0].core >= 4 &&
		      strcmp(p[0].name, "mlx5_1:1") == 0, "mlx5_1:1 -> PU %d numa %d", p[0].core, p[0].nic_numa);
	if (plan_ok(t, "auto", p, 4)) {
		CHECK(strcmp(p[0].name, "eth2") == 0 && strcmp(p[1].name, "mlx5_0") == 0 &&
		      strcmp(p[2].name, "eth3") == 0 && strcmp(p[3].name, "mlx5_1") == 0,
		      "auto: %s %s %s %s", p[0].name, p[1].name, p[2].name, p[3].name);
		CHECK(distinct_cores(p, 4), "auto: PUs not distinct");
		for (int i = 0; i < 4; i++)
			CHECK(p[i].core_numa == p[i].nic_numa, "auto %s: remote PU %d", p[i].name, p[i].core);
	}
	/* one face per NIC: interfaces for tcp/dpdk, verbs devices for rdma */
	if (plan_ok(t, "auto:network", p, 2))
		CHECK(strcmp(p[0].name, "eth2") == 0 && strcmp(p[1].name, "eth3") == 0,
		      "auto:network: %s %s", p[0].name, p[1].name);
	if (plan_ok(t, "auto:openfabrics", p, 2))
		CHECK(strcmp(p[0].name, "mlx5_0") == 0 && strcmp(p[1].name, "mlx5_1") == 0 &&
		      p[1].nic_numa == 1, "auto:openfabrics: %s %s", p[0].name, p[1].name);
	/* on this machine, unknown to the XML topology */
	if (plan_ok(t, "lo", p, 1))
		CHECK(!p[0].found && p[0].core >= 0 && p[0].nic_numa == -1 && strstr(p[0].note, "locality unknown"),
		      "lo: found %d PU %d note '%s'", p[0].found, p[0].core, p[0].note);
	/* virt0 hangs off the machine, not a NUMA node: found, locality unknown */
	if (plan_ok(t, "virt0", p, 1))
		CHECK(p[0].found && p[0].nic_numa == -1 && p[0].core >= 0 && strstr(p[0].note, "NUMA node"),
		      "virt0: found %d numa %d note '%s'", p[0].found, p[0].nic_numa, p[0].note);
	if (plan_ok(t, "127.0.0.1,eth2", p, 2))
		CHECK(!p[0].found && p[1].found && p[0].core != p[1].core, "127.0.0.1: found %d", p[0].found);
}

static void test_errors(struct lb_topo *t)
{
	plan_fails(t, "nosuch0", MAXL, "'nosuch0'");
	plan_fails(t, "eth2,nosuch0", MAXL, "'nosuch0'");
	plan_fails(t, "192.0.2.254", MAXL, "'192.0.2.254'");
	plan_fails(t, "mlx5_0:x", MAXL, "'mlx5_0:x'");
	plan_refused(t, "eth2,,eth3", MAXL, "empty");
	plan_refused(t, "eth2,", MAXL, "empty");
	plan_refused(t, "", MAXL, "empty");
	plan_refused(t, "eth2,eth3,eth2", 2, "at most 2");
	plan_fails(t, "auto", 3, "auto");
	plan_fails(t, "eth2,auto", MAXL, "'auto' cannot be combined");
	plan_fails(t, "auto:gpu", MAXL, "auto:network and auto:openfabrics");
	plan_refused(t, "a123456789b123456789c123456789d123456789e123456789f123456789g1234",
		     MAXL, "too long");
	CHECK(lb_topo_bind_thread(t, 0, err, sizeof(err)) == -1 && strstr(err, "not this machine"),
	      "bind on an XML topology: '%s'", err);
	CHECK(lb_topo_bind_thread(t, 99, err, sizeof(err)) == -1 && strstr(err, "99"), "bind 99: '%s'", err);
	CHECK(lb_topo_bind_thread(t, -1, err, sizeof(err)) == -1 && strstr(err, "-1"), "bind -1: '%s'", err);
}

static void test_report(struct lb_topo *t)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	CHECK(f != NULL, "open_memstream");
	if (!f)
		return;
	CHECK(lb_topo_report(t, "eth2,eth3", f, err, sizeof(err)) == 0, "report: %s", err);
	CHECK(lb_topo_report(t, NULL, f, err, sizeof(err)) == 0, "report without lanes: %s", err);
	CHECK(lb_topo_report(t, "nosuch0", f, err, sizeof(err)) == -1 && strstr(err, "nosuch0"),
	      "report nosuch0: '%s'", err);
	fclose(f);
	static const char *const want[] = {
		"2 package(s), 2 NUMA node(s), 8 core(s), 8 PU(s)", "NUMA node 1: cpus 4-7",
		"mlx5_1", "openfabrics", "0000:86:00.0", "lane 1 eth3", "pinning plan for lanes 'eth2,eth3'",
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		CHECK(strstr(buf, want[i]), "report lacks '%s':\n%s", want[i], buf);
	free(buf);
}

/* smt.xml: eth4 near PUs 4-7 (cores {4,5} {6,7}); PUs 0-3 on node 0. */
static void test_smt(void)
{
	struct lb_topo *t = open_xml("smt.xml");
	struct lb_lane_plan p[MAXL];
	if (t && plan_ok(t, "eth4,eth4,eth4,eth4,eth4,eth4,eth4,eth4,eth4", p, 9)) {
		/* distinct physical cores first, then the local SMT siblings */
		CHECK(p[0].core >= 4 && p[1].core >= 4 && p[0].core / 2 != p[1].core / 2,
		      "lanes 0,1 on PUs %d %d", p[0].core, p[1].core);
		CHECK(p[0].note[0] == '\0' && p[1].note[0] == '\0', "notes '%s' '%s'", p[0].note, p[1].note);
		CHECK(distinct_cores(p, 8), "8 lanes on 8 PUs not distinct");
		for (int i = 2; i < 4; i++)
			CHECK(p[i].core >= 4 && strstr(p[i].note, "SMT") && !strstr(p[i].note, "remote"),
			      "lane %d: PU %d note '%s'", i, p[i].core, p[i].note);
		/* then remote PUs, distinct cores first */
		CHECK(p[4].core < 4 && p[5].core < 4 && p[4].core / 2 != p[5].core / 2 &&
		      strstr(p[4].note, "remote NUMA"), "lanes 4,5 on PUs %d %d", p[4].core, p[5].core);
		/* every PU taken once: the least-used PU near the NIC */
		CHECK(p[8].core >= 4 && strstr(p[8].note, "shared") && !strstr(p[8].note, "remote"),
		      "lane 8: PU %d note '%s'", p[8].core, p[8].note);
	}
	lb_topo_close(t);
}

static void test_env(void)
{
	struct lb_topo *t = NULL;
	char path[640];
	snprintf(path, sizeof(path), "%s/two-numa.xml", xml_dir);
	unsetenv("LANEBENCH_TOPOLOGY_XML");
	setenv("HWLOC_XMLFILE", path, 1);
	struct lb_nic n[8];
	CHECK(lb_topo_open(&t, err, sizeof(err)) == 0, "HWLOC_XMLFILE: %s", err);
	CHECK(t && lb_topo_nics(t, n, 8) == 4, "HWLOC_XMLFILE not honoured");
	lb_topo_close(t);
	unsetenv("HWLOC_XMLFILE");
	setenv("LANEBENCH_TOPOLOGY_XML", "/nonexistent/topo.xml", 1);
	t = (struct lb_topo *)&t; /* any non-NULL value: open must reset it */
	CHECK(lb_topo_open(&t, err, sizeof(err)) == -1 && !t && strstr(err, "/nonexistent/topo.xml"),
	      "bad XML path: '%s'", err);
	unsetenv("LANEBENCH_TOPOLOGY_XML");
}

/* ------------------------------------------------------- this machine */

struct binder {
	struct lb_topo *t;
	hwloc_topology_t check;     /* the test's own view, to read bindings */
	pthread_barrier_t *go;
	int core, ok;
	char why[256];
};

static void *bind_self(void *arg)
{
	struct binder *b = arg;
	hwloc_bitmap_t got = hwloc_bitmap_alloc();
	pthread_barrier_wait(b->go);
	if (lb_topo_bind_thread(b->t, b->core, b->why, sizeof(b->why)) == 0 && got &&
	    hwloc_get_cpubind(b->check, got, HWLOC_CPUBIND_THREAD) == 0) {
		sched_yield();
		b->ok = hwloc_bitmap_weight(got) == 1 && hwloc_bitmap_isset(got, (unsigned)b->core) &&
			sched_getcpu() == b->core;
		if (!b->ok)
			snprintf(b->why, sizeof(b->why), "bound to %d PU(s), running on %d",
				 hwloc_bitmap_weight(got), sched_getcpu());
	}
	hwloc_bitmap_free(got);
	return NULL;
}

/* Every lane thread binds itself at the same moment; the main thread
 * stays where it was. */
static void bind_all(struct lb_topo *t, hwloc_topology_t check, const struct lb_lane_plan *p, int k)
{
	struct binder b[MAXL];
	pthread_t th[MAXL];
	pthread_barrier_t go;
	hwloc_bitmap_t before = hwloc_bitmap_alloc(), after = hwloc_bitmap_alloc();
	CHECK(hwloc_get_cpubind(check, before, HWLOC_CPUBIND_THREAD) == 0, "main thread's binding");
	pthread_barrier_init(&go, NULL, (unsigned)k);
	for (int i = 0; i < k; i++) {
		b[i] = (struct binder){ .t = t, .check = check, .go = &go, .core = p[i].core };
		CHECK(pthread_create(&th[i], NULL, bind_self, &b[i]) == 0, "pthread_create");
	}
	for (int i = 0; i < k; i++) {
		pthread_join(th[i], NULL);
		CHECK(b[i].ok, "thread of lane %d not on PU %d: %s", i, b[i].core, b[i].why);
	}
	pthread_barrier_destroy(&go);
	CHECK(hwloc_get_cpubind(check, after, HWLOC_CPUBIND_THREAD) == 0 && hwloc_bitmap_isequal(before, after),
	      "binding a lane thread moved the main thread");
	hwloc_bitmap_free(before);
	hwloc_bitmap_free(after);
}

/* An IPv4 address of a NIC hwloc knows plans as that NIC. */
static void test_machine_ipv4(struct lb_topo *t)
{
	struct lb_nic n[MAXL];
	struct lb_lane_plan p[MAXL];
	struct ifaddrs *all = NULL, *i = NULL;
	char ip[INET_ADDRSTRLEN] = "";
	int k = lb_topo_nics(t, n, MAXL), nic = -1;
	if (getifaddrs(&all) == 0)
		for (i = all; i && nic < 0; i = i->ifa_next)
			for (int j = 0; j < k && i->ifa_addr && i->ifa_addr->sa_family == AF_INET; j++)
				if (strcmp(n[j].name, i->ifa_name) == 0) {
					struct sockaddr_in sin;
					memcpy(&sin, i->ifa_addr, sizeof(sin));
					inet_ntop(AF_INET, &sin.sin_addr, ip, sizeof(ip));
					nic = j;
				}
	freeifaddrs(all);
	if (nic < 0) {
		printf("skipped: no NIC hwloc knows has an IPv4 address here\n");
		return;
	}
	if (plan_ok(t, ip, p, 1))
		CHECK(p[0].found && p[0].nic_numa == n[nic].numa && strcmp(p[0].name, ip) == 0,
		      "%s (%s): found %d numa %d", ip, n[nic].name, p[0].found, p[0].nic_numa);
}

static void test_machine(void)
{
	struct lb_topo *t = NULL;
	struct lb_lane_plan p[MAXL];
	unsetenv("LANEBENCH_TOPOLOGY_XML");
	unsetenv("HWLOC_XMLFILE");
	CHECK(lb_topo_open(&t, err, sizeof(err)) == 0, "open this machine: %s", err);
	if (!t)
		return;
	if (plan_ok(t, "lo,lo", p, 2)) {
		CHECK(p[0].core >= 0 && p[1].core >= 0 && p[0].core != p[1].core,
		      "lo,lo on PUs %d and %d", p[0].core, p[1].core);
		hwloc_topology_t check;
		CHECK(hwloc_topology_init(&check) == 0 && hwloc_topology_load(check) == 0,
		      "the test's own hwloc topology");
		bind_all(t, check, p, 2);
		hwloc_topology_destroy(check);
	}
	test_machine_ipv4(t);
	CHECK(lb_topo_report(t, "lo,lo", stdout, err, sizeof(err)) == 0, "report: %s", err);
	lb_topo_close(t);
}

int main(void)
{
	const char *dir = getenv("LB_TOPO_DIR");
	if (dir && *dir)
		snprintf(xml_dir, sizeof(xml_dir), "%s", dir);
	struct lb_topo *t = open_xml("two-numa.xml");
	if (t) {
		test_nics(t);
		test_two_rails(t);
		test_overflow(t);
		test_names(t);
		test_errors(t);
		test_report(t);
	}
	lb_topo_close(t);
	test_smt();
	test_env();
	test_machine();
	return check_status("test_topology");
}
