/* The DPDK transport's per-lane view (lane_counters, port_facts) over
 * net_memif: two ranks -- this process and a child, EAL being once per
 * process -- with two lanes, a memif link per lane, addresses exchanged
 * through a socketpair.  Rank 0 sends on both lanes; then each rank
 * (5% of the frames each receives dropped: --tp-opt inject) checks
 * that its lanes' counters, named "dpdk:<count>" in counters()'
 * order and then "xstat:...", add up to the per-rank counters() (read
 * between two readings of the lanes: the service thread's keepalives go
 * on), that every name stays the same across calls, that each lane sent
 * or received data, and that port_facts says memif, the lane's MAC, its
 * link up, and no speed (a vdev's link speed is made up).  Needs root
 * (EAL's runtime directory, memif sockets): else exit 77.  Every wait is
 * bounded (WAIT_S). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/check.h"
#include "lib/error.h"
#include "transports/transport.h"

#define LANES 2
#define BYTES (512u << 10)
#define WAIT_S 30.0

static const char *const LO[LANES] = { "lo", "lo" };

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static const struct lb_transport *const T = &lb_transport_dpdk;

/* One memif link per lane; rank 0 is the server of each. */
static void eal_of(uint32_t r, const char *dir, char *s, size_t n)
{
	int k = snprintf(s, n, "eal=--no-huge -m 128 --no-pci -l %u", r);
	for (int l = 0; l < LANES && k > 0 && (size_t)k < n; l++)
		k += snprintf(s + k, n - (size_t)k,
			      " --vdev net_memif_l%d_p%u,role=%s,id=0,socket=%s/l%d.sock,socket-abstract=no",
			      l, 1 - r, r ? "client" : "server", dir, l);
}

/* Exactly n bytes each way over the socketpair (a barrier when n is 1). */
static int swap(int fd, const void *mine, void *theirs, size_t n)
{
	if (write(fd, mine, n) != (ssize_t)n)
		return -1;
	size_t got = 0;
	while (got < n) {
		ssize_t k = read(fd, (char *)theirs + got, n - got);
		if (k <= 0)
			return -1;
		got += (size_t)k;
	}
	return 0;
}

static int setup(struct lb_tp *tp, uint32_t r, int fd, uint8_t *buf, char *err, size_t len)
{
	uint8_t mine[LANES * LB_TP_ADDR_MAX] = { 0 }, all[2 * LANES * LB_TP_ADDR_MAX] = { 0 };
	for (uint32_t l = 0; l < LANES; l++)
		T->local_address(tp, l, mine + l * LB_TP_ADDR_MAX);
	memcpy(all + r * sizeof(mine), mine, sizeof(mine));
	if (swap(fd, mine, all + (1 - r) * sizeof(mine), sizeof(mine)))
		return lb_errf(err, len, "rank %u: no addresses from the other rank", r);
	uint32_t other = 1 - r, npeers[LANES] = { 1, 1 };
	const uint32_t *peers[LANES] = { &other, &other };
	struct lb_tp_peers p = { peers, npeers };
	if (T->connect(tp, all, &p, err, len) || T->register_buffer(tp, buf, BYTES, err, len))
		return -1;
	return 0;
}

/* Rank 0 sends BYTES on every lane, rank 1 receives them. */
static int transfer(struct lb_tp *tp, uint32_t r, char *err, size_t len)
{
	int want = 0, got = 0;
	for (uint32_t l = 0; l < LANES; l++, want++)
		if (T->post(tp, l, r ? LB_XFER_RECV : LB_XFER_SEND, 1 - r, 0, BYTES, l, err, len))
			return -1;
	for (double end = now() + WAIT_S; got < want && now() < end;)
		for (uint32_t l = 0; l < LANES; l++) {
			struct lb_completion c[4];
			int n = T->poll(tp, l, c, 4, err, len);
			if (n < 0)
				return -1;
			got += n;
		}
	return got == want ? 0 : lb_errf(err, len, "rank %u: %d of %d completions", r, got, want);
}

static void read_lanes(struct lb_tp *tp, struct lb_port_counters c[LANES])
{
	for (uint32_t l = 0; l < LANES; l++) {
		c[l].n = 0;
		T->lane_counters(tp, l, &c[l]);
	}
}

/* The lanes' counters add up to the rank's: before <= rank <= after. */
static void check_sums(uint32_t r, struct lb_port_counters before[LANES], const struct lb_tp_counter *rank,
		       int nrank, struct lb_port_counters after[LANES])
{
	for (int i = 0; i < nrank; i++) {
		uint64_t lo = 0, hi = 0;
		for (int l = 0; l < LANES; l++) {
			lo += before[l].c[i].value;
			hi += after[l].c[i].value;
		}
		char name[LB_PORT_COUNTER_NAME];
		snprintf(name, sizeof(name), "dpdk:%s", rank[i].name);
		if (i == 1 || i == 4) /* port.h's shorter names */
			snprintf(name, sizeof(name), "dpdk:%s", i == 1 ? "retransmitted" : "dropped");
		CHECK(!strcmp(before[0].c[i].name, name), "rank %u lane counter %d: '%s', expected '%s'", r, i,
		      before[0].c[i].name, name);
		CHECK(lo <= rank[i].value && rank[i].value <= hi,
		      "rank %u %s: %llu, its lanes' %llu..%llu", r, rank[i].name,
		      (unsigned long long)rank[i].value, (unsigned long long)lo, (unsigned long long)hi);
	}
}

static void check_counters(struct lb_tp *tp, uint32_t r)
{
	struct lb_port_counters before[LANES], after[LANES];
	struct lb_tp_counter rank[LB_TP_COUNTERS_MAX];
	read_lanes(tp, before);
	int n = T->counters(tp, rank);
	read_lanes(tp, after);
	CHECK(n > 5 && (uint32_t)n + 4 <= before[0].n, "rank %u: %d rank counters, %u lane counters", r, n,
	      before[0].n);
	if (n <= 5 || (uint32_t)n + 4 > before[0].n)
		return;
	check_sums(r, before, rank, n, after);
	static const char *const eth[] = { "xstat:ierrors", "xstat:oerrors", "xstat:imissed", "xstat:rx_nombuf" };
	for (int i = 0; i < 4; i++)
		CHECK(!strcmp(before[0].c[n + i].name, eth[i]), "rank %u: '%s' where '%s' was expected", r,
		      before[0].c[n + i].name, eth[i]);
	for (int l = 0; l < LANES; l++) {
		CHECK(before[l].n == after[l].n, "rank %u lane %d: %u then %u counters", r, l, before[l].n, after[l].n);
		for (uint32_t i = 0; i < before[l].n && i < after[l].n; i++)
			CHECK(!strcmp(before[l].c[i].name, after[l].c[i].name) &&
				      !strncmp(before[l].c[i].name, i < (uint32_t)n ? "dpdk:" : "xstat:", 5),
			      "rank %u lane %d counter %u: '%s' then '%s'", r, l, i, before[l].c[i].name,
			      after[l].c[i].name);
		uint64_t data = before[l].c[r == 0 ? 0 : 2].value; /* frames sent / received */
		CHECK(data >= BYTES / 9000, "rank %u lane %d: %llu data frames for %u bytes", r, l,
		      (unsigned long long)data, BYTES);
	}
	/* 5% of some 360 frames a lane dropped (inject): at least one lost
	 * data frame sent again, and the drops counted (each 1 - 0.95^360) */
	int lost = r == 0 ? 1 : 4;
	CHECK(before[0].c[lost].value + before[1].c[lost].value > 0, "rank %u: no %s on either lane", r,
	      before[0].c[lost].name);
}

static void check_facts(struct lb_tp *tp, uint32_t r)
{
	for (uint32_t l = 0; l < LANES; l++) {
		struct lb_port_facts f = { .carrier = -1, .numa_node = -1 };
		uint8_t mac[LB_TP_ADDR_MAX];
		char want[18];
		T->local_address(tp, l, mac);
		snprintf(want, sizeof(want), "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2], mac[3],
			 mac[4], mac[5]);
		T->port_facts(tp, l, &f);
		CHECK(!strcmp(f.source, "dpdk(memif)") && !strcmp(f.driver, "net_memif"),
		      "rank %u lane %u: source '%s', driver '%s'", r, l, f.source, f.driver);
		CHECK(!strcmp(f.mac, want), "rank %u lane %u: mac '%s', its address %s", r, l, f.mac, want);
		CHECK(f.carrier == 1 && !strcmp(f.state, "up") && f.mtu > 0,
		      "rank %u lane %u: carrier %d state '%s' mtu %d", r, l, f.carrier, f.state, f.mtu);
		CHECK(f.speed_bps == 0, "rank %u lane %u: a memif's speed believed: %g", r, l, f.speed_bps);
	}
}

static int run_rank(uint32_t r, int fd, const char *dir)
{
	char eal[1024], err[256] = "";
	eal_of(r, dir, eal, sizeof(eal));
	struct lb_tp_cfg cfg = { .rank = r, .size = 2, .lanes = LANES, .lane_names = LO,
				 .token = "dpdk-lanes", .timeout = WAIT_S,
				 .opt = { .item = { eal, "inject=drop=0.05" }, .n = 2 } };
	struct lb_tp *tp = NULL;
	uint8_t *buf = calloc(1, BYTES);
	int rc = buf ? T->open(&cfg, &tp, err, sizeof(err)) : -1;
	if (rc == 0)
		rc = setup(tp, r, fd, buf, err, sizeof(err));
	if (rc == 0)
		rc = transfer(tp, r, err, sizeof(err));
	CHECK(rc == 0, "rank %u: %s", r, err);
	if (rc == 0) {
		check_counters(tp, r);
		check_facts(tp, r);
	}
	char one = 1, theirs;
	swap(fd, &one, &theirs, 1); /* nobody closes while the other may wait for an ack */
	T->close(tp);
	free(buf);
	return check_status(r ? "dpdk-lanes rank 1" : "dpdk-lanes rank 0");
}

int main(void)
{
	if (geteuid() != 0) {
		printf("SKIP: needs root (EAL runtime directory, memif sockets)\n");
		return 77;
	}
	char dir[] = "/tmp/lb-dpdk-lanes-XXXXXX";
	int sv[2];
	if (!mkdtemp(dir) || socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) {
		perror("dpdk-lanes: set-up");
		return 1;
	}
	struct timeval tv = { (time_t)WAIT_S, 0 };
	for (int i = 0; i < 2; i++)
		setsockopt(sv[i], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	fflush(stdout);
	pid_t child = fork();
	if (child == 0)
		{
			int r1 = run_rank(1, sv[1], dir);
			fflush(NULL); /* _exit does not */
			_exit(r1);
		}
	int rc = child > 0 ? run_rank(0, sv[0], dir) : 1, status = 0;
	if (child > 0 && waitpid(child, &status, 0) == child && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
		rc = 1;
	for (int l = 0; l < LANES; l++) {
		char sock[sizeof(dir) + 16];
		snprintf(sock, sizeof(sock), "%s/l%d.sock", dir, l);
		unlink(sock);
	}
	rmdir(dir);
	return rc;
}
