/* tcp's lane_counters on loopback: two ranks of this process, two lanes.
 * Each lane reports tcp:retransmits and tcp:segments_out, in that order,
 * on every call; a megabytes transfer on lane 0 raises lane 0's
 * segments_out by at least one per 64 KiB (loopback's largest segment)
 * and lane 0's more than idle lane 1's; a connection given up (forget)
 * keeps what it counted, so no counter goes backwards; and lane 1 counts
 * its own transfer afterwards.  The counters are read from the main
 * thread, not from a lane's (the ranks connect in threads of their own);
 * every wait is bounded (WAIT_S). */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "check.h"
#include "transports/transport.h"

#define LANES 2
#define BYTES (2u << 20)
#define WAIT_S 10.0

static const char *const LOOPBACK[LANES] = { "127.0.0.1", "127.0.0.1" };
static const char *const NAMES[] = { "tcp:retransmits", "tcp:segments_out" };

struct rank {
	uint32_t r;
	struct lb_tp *tp;
	const uint8_t *addrs;
	int rc;
	char err[256];
};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void *connect_main(void *arg)
{
	struct rank *k = arg;
	uint32_t other = 1 - k->r, npeers[LANES] = { 1, 1 };
	const uint32_t *peers[LANES] = { &other, &other };
	struct lb_tp_peers p = { peers, npeers };
	k->rc = lb_transport_tcp.connect(k->tp, k->addrs, &p, k->err, sizeof(k->err));
	return NULL;
}

/* Both ranks opened and connected on both lanes: 0, or -1 with reasons. */
static int connect_ranks(struct rank *k, uint8_t *addrs)
{
	pthread_t t[2];
	for (uint32_t r = 0; r < 2; r++) {
		struct lb_tp_cfg cfg = { .rank = r, .size = 2, .lanes = LANES, .lane_names = LOOPBACK,
					 .token = "test-token", .timeout = WAIT_S };
		k[r] = (struct rank){ .r = r, .addrs = addrs };
		if (lb_transport_tcp.open(&cfg, &k[r].tp, k[r].err, sizeof(k[r].err)))
			return -1;
		for (uint32_t l = 0; l < LANES; l++)
			lb_transport_tcp.local_address(k[r].tp, l, addrs + (r * LANES + l) * LB_TP_ADDR_MAX);
	}
	for (int r = 0; r < 2; r++)
		pthread_create(&t[r], NULL, connect_main, &k[r]);
	for (int r = 0; r < 2; r++)
		pthread_join(t[r], NULL);
	return k[0].rc || k[1].rc ? -1 : 0;
}

/* BYTES from rank 0 to rank 1 on lane, polled from this thread until
 * both completions came. */
static int transfer(struct rank *k, uint32_t lane)
{
	char *err = k[0].err;
	if (lb_transport_tcp.post(k[1].tp, lane, LB_XFER_RECV, 0, 0, BYTES, 7, err, sizeof(k[0].err)) ||
	    lb_transport_tcp.post(k[0].tp, lane, LB_XFER_SEND, 1, 0, BYTES, 7, err, sizeof(k[0].err)))
		return -1;
	int got[2] = { 0, 0 };
	for (double end = now() + WAIT_S; !(got[0] && got[1]) && now() < end;)
		for (int r = 0; r < 2; r++) {
			struct lb_completion c[4];
			int n = lb_transport_tcp.poll(k[r].tp, lane, c, 4, err, sizeof(k[0].err));
			if (n < 0)
				return -1;
			got[r] += n;
		}
	if (!(got[0] && got[1]))
		snprintf(err, sizeof(k[0].err), "lane %u: no completion within %.0f s", lane, WAIT_S);
	return got[0] && got[1] ? 0 : -1;
}

/* Rank r's counters of lane, their names and order checked. */
static void read_lane(const struct rank *k, uint32_t lane, uint64_t v[2])
{
	struct lb_port_counters c = { .n = 0 };
	lb_transport_tcp.lane_counters(k->tp, lane, &c);
	CHECK(c.n == 2, "rank %u lane %u: %u counters, expected 2", k->r, lane, c.n);
	for (uint32_t i = 0; i < 2; i++) {
		CHECK(i < c.n && strcmp(c.c[i].name, NAMES[i]) == 0, "rank %u lane %u counter %u: '%s', expected '%s'",
		      k->r, lane, i, i < c.n ? c.c[i].name : "", NAMES[i]);
		v[i] = i < c.n ? c.c[i].value : 0;
	}
}

/* [rank][lane][counter] */
typedef uint64_t snapshot[2][LANES][2];

static void read_all(const struct rank *k, snapshot s)
{
	for (int r = 0; r < 2; r++)
		for (uint32_t l = 0; l < LANES; l++)
			read_lane(&k[r], l, s[r][l]);
}

static void check_monotonic(snapshot before, snapshot after, const char *when)
{
	for (int r = 0; r < 2; r++)
		for (int l = 0; l < LANES; l++)
			for (int i = 0; i < 2; i++)
				CHECK(after[r][l][i] >= before[r][l][i], "%s: rank %d lane %d %s went from %llu to %llu",
				      when, r, l, NAMES[i], (unsigned long long)before[r][l][i],
				      (unsigned long long)after[r][l][i]);
}

/* What lane's segments_out of rank 0 grew by between two snapshots. */
static uint64_t grew(snapshot a, snapshot b, int lane)
{
	return b[0][lane][1] - a[0][lane][1];
}

int main(void)
{
	struct rank k[2] = { { 0 } };
	uint8_t addrs[2 * LANES * LB_TP_ADDR_MAX];
	snapshot s0, s1, s2, s3;
	uint8_t *buf[2] = { calloc(1, BYTES), calloc(1, BYTES) };
	int rc = buf[0] && buf[1] ? connect_ranks(k, addrs) : -1;
	for (int r = 0; rc == 0 && r < 2; r++)
		rc = lb_transport_tcp.register_buffer(k[r].tp, buf[r], BYTES, k[r].err, sizeof(k[r].err));
	CHECK(rc == 0, "set-up: %s / %s", k[0].err, k[1].err);
	if (rc == 0) {
		read_all(k, s0);
		CHECK(transfer(k, 0) == 0, "lane 0: %s", k[0].err);
		read_all(k, s1);
		check_monotonic(s0, s1, "lane 0's transfer");
		CHECK(grew(s0, s1, 0) >= BYTES / 65536, "lane 0's segments_out grew by %llu for %u bytes",
		      (unsigned long long)grew(s0, s1, 0), BYTES);
		CHECK(grew(s0, s1, 0) > grew(s0, s1, 1), "idle lane 1 grew by %llu, lane 0 by %llu",
		      (unsigned long long)grew(s0, s1, 1), (unsigned long long)grew(s0, s1, 0));
		lb_transport_tcp.forget(k[0].tp, 0, 1);
		lb_transport_tcp.forget(k[1].tp, 0, 0);
		read_all(k, s2);
		check_monotonic(s1, s2, "lane 0's connection given up");
		CHECK(transfer(k, 1) == 0, "lane 1: %s", k[0].err);
		read_all(k, s3);
		check_monotonic(s2, s3, "lane 1's transfer");
		CHECK(grew(s2, s3, 1) >= BYTES / 65536, "lane 1's segments_out grew by %llu for %u bytes",
		      (unsigned long long)grew(s2, s3, 1), BYTES);
		CHECK(grew(s2, s3, 0) == 0, "lane 0, its connection closed, grew by %llu",
		      (unsigned long long)grew(s2, s3, 0));
	}
	for (int r = 0; r < 2; r++) {
		lb_transport_tcp.close(k[r].tp);
		free(buf[r]);
	}
	return check_status("tcp-counters");
}
