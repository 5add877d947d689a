/* libFuzzer target for `lanebench check --expect FILE` (engine/check_expect.c):
 * any bytes as the file, read through its path as the check reads it (a
 * memfd's /proc/self/fd/N), then what applies to a few ports and the
 * inventory judged against it, over a lane of ports that differ in every
 * fact the file can say.  A file refused leaves nothing to free and says
 * where; a file taken holds only rules that say something, in line order;
 * every finding is a whole sentence about a port or lane that exists. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "engine/check_expect.h"
#include "lib/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define RANKS 5
#define LANES 2

static struct lb_port_facts facts[RANKS * LANES];
static const char *nics[RANKS * LANES];

/* A ConnectX port as portinfo reads it, on lane l of rank k. */
static struct lb_port_facts port(uint32_t k, uint32_t l)
{
	struct lb_port_facts f = { .carrier = 1, .mtu = 9000, .speed_bps = 100e9, .width = 4,
				   .numa_node = 0, .pcie_gts = 16, .pcie_max_gts = 16,
				   .pcie_width = 16, .pcie_max_width = 16, .rdma_port = 1,
				   .rdma_mtu = 4096 };
	snprintf(f.ifname, sizeof(f.ifname), "rail%u", l);
	snprintf(f.driver, sizeof(f.driver), "%s", l ? "ice" : "mlx5_core");
	snprintf(f.driver_version, sizeof(f.driver_version), "%s", "24.10");
	snprintf(f.firmware, sizeof(f.firmware), "%s", "16.35.2000");
	snprintf(f.state, sizeof(f.state), "%s", "up");
	snprintf(f.rdma_dev, sizeof(f.rdma_dev), "mlx5_%u", l);
	snprintf(f.rdma_state, sizeof(f.rdma_state), "%s", "4: ACTIVE");
	snprintf(f.source, sizeof(f.source), "%s", "sysfs");
	(void)k;
	return f;
}

/* Every fact the file says made odd on some port, some unknown. */
static void build_ports(void)
{
	for (uint32_t i = 0; i < RANKS * LANES; i++) {
		facts[i] = port(i / LANES, i % LANES);
		nics[i] = i % LANES ? "rail1" : "rail0";
	}
	facts[1 * LANES].speed_bps = 50e9;
	facts[2 * LANES].pcie_width = 8;
	facts[2 * LANES].pcie_gts = 8;
	facts[3 * LANES].mtu = 1500;
	snprintf(facts[4 * LANES].firmware, sizeof(facts[0].firmware), "%s", "16.31.1014");
	facts[1 * LANES + 1].speed_bps = 0;
	facts[2 * LANES + 1].carrier = 0;
	snprintf(facts[3 * LANES + 1].rdma_state, sizeof(facts[0].rdma_state), "%s", "1: DOWN");
	facts[4 * LANES + 1].mtu = 0;
}

static void on_finding(void *ctx, uint32_t rank, uint32_t lane, enum lb_level level,
		       const char *reason)
{
	(void)ctx;
	if ((rank >= RANKS && rank != LB_FINDING_LANE) || lane >= LANES)
		abort();
	if (level < LB_PASS || level > LB_ERROR || !reason || !reason[0])
		abort();
}

/* A rule says at least one key, within the bounds the parser promises. */
static void check_rule(const struct lb_expect_rule *r, uint32_t after)
{
	if (r->line <= after || r->lane < -1 || r->lane > LB_EXPECT_LANE_MAX)
		abort();
	if (!memchr(r->nic, 0, sizeof(r->nic)) || !memchr(r->driver, 0, sizeof(r->driver)) ||
	    !memchr(r->firmware, 0, sizeof(r->firmware)))
		abort();
	if (r->mtu && (r->mtu < LB_EXPECT_MTU_MIN || r->mtu > LB_EXPECT_MTU_MAX))
		abort();
	if (r->min_bw < 0 || r->min_bw > 1 || (r->min_bw && r->min_bw_bps))
		abort();
	if (!isfinite(r->speed_bps) || !isfinite(r->min_bw_bps) || !isfinite(r->max_lat))
		abort();
	if (!(r->speed_bps || r->mtu || r->pcie_width || r->pcie_gts || r->min_bw ||
	      r->min_bw_bps || r->max_lat || r->firmware[0]))
		abort();
}

static void check_taken(const struct lb_expect *e)
{
	uint32_t last = 0;
	for (size_t i = 0; i < e->n; i++) {
		check_rule(&e->rules[i], last);
		last = e->rules[i].line;
	}
	static const char *const names[] = { "rail0", "mlx5_1", "rail1", NULL };
	struct lb_expect_rule x;
	for (uint32_t lane = 0; lane < 3; lane++)
		for (size_t n = 0; n < sizeof(names) / sizeof(names[0]); n++) {
			lb_expect_for(e, lane, names[n], n % 2 ? "ice" : NULL, &x);
			if (x.lane != (int32_t)lane || x.line > last)
				abort();
		}
	for (uint32_t i = 0; i < RANKS * LANES; i++) {
		const char *from;
		uint32_t line;
		lb_expect_for_port(e, i % LANES, nics[i], &facts[i], &x);
		double bps = lb_expected_speed(facts, RANKS, LANES, e, nics, i / LANES, i % LANES,
					       &from, &line);
		if (!(bps >= 0) || !isfinite(bps) || (strcmp(from, "expect") == 0) != (line > 0))
			abort();
	}
	lb_judge_inventory(facts, nics, RANKS, LANES, e, on_finding, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	if (fd < 0) {
		build_ports();
		fd = memfd_create("fuzz.expect", 0);
		if (fd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	struct lb_expect e;
	char err[512] = "";
	int rc = lb_expect_load(path, &e, err, sizeof(err));
	if (rc) {
		/* "FILE:LINE: 'TOKEN': why", nothing left to free */
		if (rc != LB_EINPUT || e.n || e.rules || strncmp(err, path, strlen(path)) != 0)
			abort();
		return 0;
	}
	if (memchr(data, 0, size)) /* what follows a NUL would go unseen */
		abort();
	check_taken(&e);
	lb_expect_free(&e);
	return 0;
}
